//! The words of recovery: key paths, what a schema expects, what was
//! found, and the help for each structural mistake.

use std::fmt::Write as _;
use std::ops::Range;

use serde_json::Value;
use toml::de::DeValue;
use toml::Spanned;

use super::{Kind, Walker};
use crate::diag::{Code, Diagnostic};

/// One step of a key path: `params[1].dtype`.
#[derive(Clone)]
pub(super) enum Seg {
    Key(String),
    Index(usize),
}

pub(super) fn path_text(path: &[Seg]) -> String {
    let mut s = String::new();
    for seg in path {
        match seg {
            Seg::Key(k) => {
                if !s.is_empty() {
                    s.push('.');
                }
                s.push_str(k);
            }
            Seg::Index(i) => {
                let _ = write!(s, "[{i}]");
            }
        }
    }
    s
}

/// `the top-level table` or `` `params[1]` ``.
pub(super) fn table_name(path: &[Seg]) -> String {
    if path.is_empty() {
        "the top-level table".to_owned()
    } else {
        format!("`{}`", path_text(path))
    }
}

/// The key a value sits under (the last named step of its path).
pub(super) fn key_name(path: &[Seg]) -> String {
    path.iter()
        .rev()
        .find_map(|s| match s {
            Seg::Key(k) => Some(k.clone()),
            Seg::Index(_) => None,
        })
        .unwrap_or_default()
}

/// Most values a message lists.
const MAX_LISTED: usize = 16;

pub(super) fn ticked(items: &[String]) -> String {
    let mut parts: Vec<String> = items
        .iter()
        .take(MAX_LISTED)
        .map(|i| format!("`{i}`"))
        .collect();
    if items.len() > MAX_LISTED {
        parts.push(format!("and {} more", items.len() - MAX_LISTED));
    }
    parts.join(", ")
}

/// The closest of `candidates` to `word`, if it is close enough to be a typo.
pub fn did_you_mean<'c>(
    word: &str,
    candidates: impl IntoIterator<Item = &'c str>,
) -> Option<&'c str> {
    let lower = word.to_ascii_lowercase();
    let candidates: Vec<&str> = candidates.into_iter().collect();
    // `output` for `out`: the longest member the word starts with, when
    // little is left over (`program_and_kernel` is not `program`).
    if let Some(c) = candidates
        .iter()
        .filter(|c| c.len() >= 2 && lower.starts_with(**c) && lower.len() - c.len() <= 3)
        .max_by_key(|c| c.len())
    {
        return Some(c);
    }
    candidates
        .into_iter()
        .map(|c| (strsim::damerau_levenshtein(&lower, c), c))
        .filter(|&(d, c)| d <= (c.len().max(3) / 3).max(1) || lower == c)
        .min_by_key(|&(d, _)| d)
        .map(|(_, c)| c)
}

impl<'a> Walker<'a> {
    /// What a schema expects, for a message.
    pub(super) fn expected(&self, s: &'a Value, path: &[Seg]) -> String {
        match self.kind(s) {
            Kind::Any => "any value".to_owned(),
            Kind::Vocab(m) if m.len() == 1 => format!("the string `\"{}\"`", m[0]),
            Kind::Vocab(m) => format!("one of {}", ticked(&m)),
            Kind::Tagged(tags) => {
                let p = path_text(path);
                let tables: Vec<String> = tags.iter().map(|(t, _)| format!("[{p}.{t}]")).collect();
                format!("a table: one of {}", ticked(&tables))
            }
            Kind::Choice(alts) => {
                let e: Vec<String> = alts.iter().map(|a| self.expected(a, path)).collect();
                e.join(" or ")
            }
            Kind::Table(_) => "a table".to_owned(),
            Kind::Array(_) => "an array".to_owned(),
            Kind::String => "a string".to_owned(),
            Kind::Integer { min, max } => {
                // The range the field documents, within its type's range.
                let r = self.resolve(s);
                let bound = |k: &str| r.get(k).and_then(Value::as_i64).map(i128::from);
                let lo = bound("minimum").map_or(min, |b| b.max(min));
                let hi = bound("maximum").map_or(max, |b| b.min(max));
                if lo == i64::MIN.into() && hi == i64::MAX.into() {
                    "an integer".to_owned()
                } else {
                    format!("an integer from {lo} to {hi}")
                }
            }
            Kind::Float => "a number".to_owned(),
            Kind::Bool => "`true` or `false`".to_owned(),
        }
    }

    pub(super) fn source(&self, span: &Range<usize>) -> &str {
        self.text.get(span.clone()).unwrap_or("").trim()
    }

    /// What was found, for a message.
    pub(super) fn found(&self, v: &Spanned<DeValue<'_>>) -> String {
        match v.get_ref() {
            DeValue::String(s) => {
                let shown: String = s.chars().take(40).flat_map(char::escape_debug).collect();
                let more = if s.chars().count() > 40 { "…" } else { "" };
                format!("the string `\"{shown}{more}\"`")
            }
            DeValue::Integer(_) => format!("the integer `{}`", self.source(&v.span())),
            DeValue::Float(_) => format!("the float `{}`", self.source(&v.span())),
            DeValue::Boolean(b) => format!("`{b}`"),
            DeValue::Datetime(_) => {
                format!("the unquoted date or time `{}`", self.source(&v.span()))
            }
            DeValue::Array(_) => "an array".to_owned(),
            DeValue::Table(_) => "a table".to_owned(),
        }
    }

    pub(super) fn unknown_value(
        &mut self,
        members: &[String],
        found: &str,
        span: Range<usize>,
        path: &[Seg],
    ) {
        let key = key_name(path);
        let mut d = Diagnostic::error(
            Code::UnknownVariant,
            self.id,
            span,
            format!(
                "unknown value `{}` for `{}`",
                found.escape_debug(),
                path_text(path)
            ),
        )
        .label("not a member of this vocabulary");
        let list = format!("`{key}` is one of {}", ticked(members));
        d = match did_you_mean(found, members.iter().map(String::as_str)) {
            Some(m) => d.help(format!("did you mean `{m}`?")).note(list),
            None => d.help(list),
        };
        self.push(d);
    }

    pub(super) fn wrong_type(&mut self, s: &'a Value, v: &Spanned<DeValue<'_>>, path: &[Seg]) {
        let expected = self.expected(s, path);
        let found = self.found(v);
        let span = v.span();
        let raw = self.source(&span).to_owned();
        let kind = self.kind(s);
        let help = match (&kind, v.get_ref()) {
            (Kind::Integer { .. }, DeValue::String(t)) if t.trim().parse::<i128>().is_ok() => {
                format!("write the number without quotes: `{}`", t.trim())
            }
            (Kind::Array(_), DeValue::String(t)) if t.trim().parse::<i128>().is_ok() => {
                format!("write an array: `[{}]`", t.trim())
            }
            (Kind::Array(_), DeValue::Integer(_)) => format!("write an array: `[{raw}]`"),
            (
                Kind::String | Kind::Vocab(_),
                DeValue::Datetime(_)
                | DeValue::Integer(_)
                | DeValue::Float(_)
                | DeValue::Boolean(_),
            ) => {
                format!("quote it: `\"{raw}\"`")
            }
            (Kind::Vocab(m), DeValue::Array(_)) => {
                format!(
                    "`{}` takes exactly one value: one of {}",
                    key_name(path),
                    ticked(m)
                )
            }
            (Kind::Tagged(tags), DeValue::String(t))
                if tags.iter().any(|(n, _)| n == t.as_ref()) =>
            {
                format!(
                    "write the kind as a table: `[{}.{t}]` followed by its keys",
                    path_text(path)
                )
            }
            (Kind::Integer { .. }, DeValue::Integer(_)) => match self.description(s) {
                Some(desc) => format!("`{}`: {}", key_name(path), first_sentence(desc)),
                None => format!("write {expected}"),
            },
            _ => match self.description(s) {
                Some(desc) => format!("`{}`: {}", key_name(path), first_sentence(desc)),
                None => format!("write {expected}"),
            },
        };
        let (message, label) = match (&kind, v.get_ref()) {
            (Kind::Integer { .. }, DeValue::Integer(_)) => (
                format!(
                    "`{}` is out of range: expected {expected}, found {found}",
                    path_text(path)
                ),
                "out of range".to_owned(),
            ),
            _ => (
                format!(
                    "`{}` has the wrong type: expected {expected}, found {found}",
                    path_text(path)
                ),
                "wrong type".to_owned(),
            ),
        };
        self.push(
            Diagnostic::error(Code::WrongType, self.id, span, message)
                .label(label)
                .help(help),
        );
    }

    pub(super) fn missing_help(&self, s: &'a Value, path: &[Seg]) -> String {
        let key = key_name(path);
        let example = match self.kind(s) {
            Kind::Vocab(m) => match m.as_slice() {
                [one] => format!("add `{key} = \"{one}\"`"),
                _ => format!("add `{key} = \"…\"`, one of {}", ticked(&m)),
            },
            Kind::Tagged(tags) => {
                let p = path_text(path);
                let tables: Vec<String> = tags.iter().map(|(t, _)| format!("[{p}.{t}]")).collect();
                format!("add one of the tables {}", ticked(&tables))
            }
            Kind::Table(_) => format!("add a `[{}]` table", path_text(path)),
            Kind::Array(_) => format!("add `{key} = [ … ]`"),
            Kind::String => format!("add `{key} = \"…\"`"),
            Kind::Integer { .. } | Kind::Float => format!("add `{key} = …` (a number)"),
            Kind::Bool => format!("add `{key} = true` or `{key} = false`"),
            Kind::Any | Kind::Choice(_) => format!("add `{key}`"),
        };
        match self.description(s) {
            Some(desc) => format!("{example}: {}", lower_first(first_sentence(desc))),
            None => example,
        }
    }
}

fn first_sentence(s: &str) -> &str {
    let s = s.trim();
    let end = s.find(". ").map_or(s.len(), |i| i + 1);
    s[..end].trim_end_matches('.')
}

fn lower_first(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) if c.clone().next().is_some_and(char::is_lowercase) => {
            f.to_lowercase().chain(c).collect()
        }
        _ => s.to_owned(),
    }
}
