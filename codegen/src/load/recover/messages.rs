//! The walker's messages: what a schema expects, what was found, and the
//! help for each structural mistake.

use std::ops::Range;

use serde_json::Value;
use toml::de::DeValue;
use toml::Spanned;

use super::words::{key_name, path_text, ticked, Seg};
use super::{Kind, Walker};
use crate::diag::{Code, Diagnostic};
use crate::names::did_you_mean;

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

    /// `word` written in place of the text under `span`, keeping its quotes
    /// (a quick fix's replacement).
    pub(super) fn respelled(&self, span: &Range<usize>, word: &str) -> String {
        match self.source(span).chars().next() {
            Some(q @ ('"' | '\'')) => format!("{q}{word}{q}"),
            _ => word.to_owned(),
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
            span.clone(),
            format!(
                "unknown value `{}` for `{}`",
                found.escape_debug(),
                path_text(path)
            ),
        )
        .label("not a member of this vocabulary");
        let list = format!("`{key}` is one of {}", ticked(members));
        d = match did_you_mean(found, members.iter().map(String::as_str)) {
            Some(m) => {
                let replacement = self.respelled(&span, m);
                d.help(format!("did you mean `{m}`?")).note(list).fix(
                    format!("replace `{found}` with `{m}`"),
                    span,
                    replacement,
                )
            }
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
