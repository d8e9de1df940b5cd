//! Recovery after a structural mistake, as rustc recovers after a parse
//! error: serde stops at a document's first unknown, missing or mistyped key,
//! so a document it refuses is walked here against the JSON Schema that
//! schemars derives from the same model type. Every structural mistake is
//! reported in kfam's words (the key, what is expected, what was found, a
//! help line), and the document is repaired so that serde can read it and
//! `check` can judge everything that did parse:
//!
//! - an unknown key is removed;
//! - a value of the wrong type, or outside its vocabulary, is replaced by a
//!   placeholder of the right type; so is a missing required key;
//! - every placeholder carries the span of the mistake, and those spans are
//!   returned as *poisoned*: `check` drops its own diagnostics that touch
//!   one and skips parameters that hold one, so one mistake is one error.
//!
//! The walk is driven by the schema alone (objects, arrays, vocabularies,
//! externally tagged and untagged enums, integer widths), so a new model
//! type gets the same treatment without code here.

use std::borrow::Cow;
use std::collections::HashMap;
use std::ops::Range;
use std::sync::{Mutex, OnceLock};

use schemars::generate::SchemaSettings;
use schemars::JsonSchema;
use serde_json::{Map, Value};
use toml::de::{DeArray, DeTable, DeValue};
use toml::Spanned;

use crate::diag::{Code, Diagnostic, FileId};

mod messages;
mod words;

use crate::names::did_you_mean;
use words::{path_text, table_name, ticked, Seg};

/// The schemars schema of `T` (Draft 2020-12, as published but before the
/// emitter's additions), built once per type and process.
pub fn schema_of<T: JsonSchema>() -> &'static Value {
    static SCHEMAS: OnceLock<Mutex<HashMap<&'static str, &'static Value>>> = OnceLock::new();
    let key = std::any::type_name::<T>();
    let mut map = SCHEMAS
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    map.entry(key).or_insert_with(|| {
        let generator = SchemaSettings::draft2020_12().into_generator();
        Box::leak(Box::new(generator.into_root_schema_for::<T>().to_value()))
    })
}

/// What the walk found: its diagnostics and where it repaired.
#[derive(Debug, Default)]
pub struct Recovery {
    pub diagnostics: Vec<Diagnostic>,
    pub repairs: Repairs,
}

/// Where a document was repaired.
#[derive(Clone, Debug, Default)]
pub struct Repairs {
    /// The spans of the mistakes (what the placeholders span).
    pub poisoned: Vec<Range<usize>>,
    /// The spans (as serde reports them: the header of a `[[params]]`
    /// table) of the tables that hold a repair.
    pub tainted: Vec<Range<usize>>,
}

/// Walk `doc` (the parsed text `text` of file `id`) against `schema`,
/// repairing it in place.
pub fn recover(id: FileId, text: &str, schema: &Value, doc: &mut Spanned<DeTable<'_>>) -> Recovery {
    let defs = schema
        .get("$defs")
        .and_then(Value::as_object)
        .unwrap_or_else(|| empty_map());
    let mut w = Walker {
        id,
        text,
        defs,
        out: Recovery::default(),
        tables: Vec::new(),
    };
    let span = doc.span();
    // The top-level table's own span covers the whole text; a missing
    // top-level key is reported at the start of the file.
    w.table(
        schema,
        doc.get_mut(),
        span.start..span.start,
        &mut Vec::new(),
    );
    w.out
}

fn empty_map() -> &'static Map<String, Value> {
    static EMPTY: OnceLock<Map<String, Value>> = OnceLock::new();
    EMPTY.get_or_init(Map::new)
}

/// What a schema accepts, classified.
enum Kind<'s> {
    /// Anything (an empty or `true` schema).
    Any,
    /// A closed vocabulary of strings.
    Vocab(Vec<String>),
    /// An externally tagged enum: a table with exactly one of these keys.
    Tagged(Vec<(String, &'s Value)>),
    /// An untagged choice: the first alternative that fits.
    Choice(Vec<&'s Value>),
    Table(&'s Value),
    Array(&'s Value),
    String,
    Integer {
        min: i128,
        max: i128,
    },
    Float,
    Bool,
}

/// Range of the integer `format`s schemars writes for Rust integer types.
fn format_range(format: Option<&str>) -> (i128, i128) {
    match format {
        Some("uint8") => (0, u8::MAX.into()),
        Some("uint16") => (0, u16::MAX.into()),
        Some("uint32") | Some("uint") => (0, u32::MAX.into()),
        Some("uint64") => (0, u64::MAX.into()),
        Some("int8") => (i8::MIN.into(), i8::MAX.into()),
        Some("int16") => (i16::MIN.into(), i16::MAX.into()),
        Some("int32") => (i32::MIN.into(), i32::MAX.into()),
        _ => (i64::MIN.into(), i64::MAX.into()),
    }
}

struct Walker<'a> {
    id: FileId,
    text: &'a str,
    defs: &'a Map<String, Value>,
    out: Recovery,
    /// The tables being walked, innermost last (not the top level): their
    /// span as serde reports it, and their extent in the text.
    tables: Vec<(Range<usize>, Range<usize>)>,
}

impl<'a> Walker<'a> {
    /// Follow `$ref`s to the schema that says what a value is.
    fn resolve(&self, mut s: &'a Value) -> &'a Value {
        for _ in 0..32 {
            let Some(name) = s
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|r| r.strip_prefix("#/$defs/"))
            else {
                break;
            };
            match self.defs.get(name) {
                Some(d) => s = d,
                None => break,
            }
        }
        s
    }

    /// The description a property's schema (or its definition) carries.
    fn description(&self, s: &'a Value) -> Option<&'a str> {
        s.get("description")
            .or_else(|| self.resolve(s).get("description"))
            .and_then(Value::as_str)
    }

    fn kind(&self, s: &'a Value) -> Kind<'a> {
        let s = self.resolve(s);
        if let Some(members) = s.get("enum").and_then(Value::as_array) {
            return Kind::Vocab(
                members
                    .iter()
                    .filter_map(|m| m.as_str().map(str::to_owned))
                    .collect(),
            );
        }
        if let Some(c) = s.get("const").and_then(Value::as_str) {
            return Kind::Vocab(vec![c.to_owned()]);
        }
        for key in ["oneOf", "anyOf"] {
            let Some(alts) = s.get(key).and_then(Value::as_array) else {
                continue;
            };
            let alts: Vec<&Value> = alts
                .iter()
                .map(|a| self.resolve(a))
                .filter(|a| a.get("type").and_then(Value::as_str) != Some("null"))
                .collect();
            // A unit-variant enum whose members carry descriptions: a
            // union of `enum`s and `const`s.
            let members: Option<Vec<Vec<String>>> = alts
                .iter()
                .map(|a| match self.kind(a) {
                    Kind::Vocab(m) => Some(m),
                    _ => None,
                })
                .collect();
            if let Some(members) = members.filter(|m| !m.is_empty()) {
                return Kind::Vocab(members.concat());
            }
            let tags: Option<Vec<(String, &Value)>> = alts
                .iter()
                .map(|a| {
                    let req = a.get("required")?.as_array()?;
                    let props = a.get("properties")?.as_object()?;
                    match (req.as_slice(), props.len()) {
                        ([Value::String(k)], 1) => Some((k.clone(), props.get(k)?)),
                        _ => None,
                    }
                })
                .collect();
            if let Some(tags) = tags.filter(|t| !t.is_empty()) {
                return Kind::Tagged(tags);
            }
            if alts.len() == 1 {
                return self.kind(alts[0]);
            }
            return Kind::Choice(alts);
        }
        let ty = match s.get("type") {
            Some(Value::String(t)) => Some(t.as_str()),
            Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).find(|t| *t != "null"),
            _ => None,
        };
        match ty {
            Some("object") => Kind::Table(s),
            Some("array") => Kind::Array(s),
            Some("string") => Kind::String,
            Some("integer") => {
                let (min, max) = format_range(s.get("format").and_then(Value::as_str));
                Kind::Integer { min, max }
            }
            Some("number") => Kind::Float,
            Some("boolean") => Kind::Bool,
            _ => Kind::Any,
        }
    }

    fn poison(&mut self, span: Range<usize>) {
        self.out.repairs.poisoned.push(span);
        for (t, _) in &self.tables {
            if !self.out.repairs.tainted.contains(t) {
                self.out.repairs.tainted.push(t.clone());
            }
        }
    }

    fn push(&mut self, d: Diagnostic) {
        self.out.diagnostics.push(d);
    }

    /// Check one value; `false` when it must be replaced.
    fn value(&mut self, s: &'a Value, v: &mut Spanned<DeValue<'_>>, path: &mut Vec<Seg>) -> bool {
        let span = v.span();
        match (self.kind(s), v.get_mut()) {
            (Kind::Any, _) => true,
            (Kind::Vocab(members), DeValue::String(found)) => {
                if members.iter().any(|m| m == found.as_ref()) {
                    return true;
                }
                let found = found.to_string();
                self.unknown_value(&members, &found, span, path);
                false
            }
            (Kind::Tagged(tags), DeValue::Table(t)) => self.tagged(&tags, t, span, path),
            (Kind::Choice(alts), _) => {
                for alt in &alts {
                    if self.fits(alt, v) {
                        return self.value(alt, v, path);
                    }
                }
                self.wrong_type(s, v, path);
                false
            }
            (Kind::Table(ts), DeValue::Table(t)) => {
                self.tables.push((span.clone(), extent(span.clone(), t)));
                self.table(ts, t, span.clone(), path);
                self.tables.pop();
                true
            }
            (Kind::Array(ts), DeValue::Array(items)) => {
                let item = ts.get("items").unwrap_or(&Value::Bool(true));
                self.array(item, items, path);
                true
            }
            (Kind::String, DeValue::String(_)) | (Kind::Bool, DeValue::Boolean(_)) => true,
            (Kind::Float, DeValue::Float(_) | DeValue::Integer(_)) => true,
            (Kind::Integer { min, max }, DeValue::Integer(i)) => {
                let n = i128::from_str_radix(i.as_str(), i.radix()).ok();
                if n.is_some_and(|n| (min..=max).contains(&n)) {
                    return true;
                }
                self.wrong_type(s, v, path);
                false
            }
            _ => {
                self.wrong_type(s, v, path);
                false
            }
        }
    }

    /// Whether `v` fits `s` without a diagnostic (for untagged choices).
    fn fits(&self, s: &'a Value, v: &Spanned<DeValue<'_>>) -> bool {
        let mut scratch = Walker {
            id: self.id,
            text: self.text,
            defs: self.defs,
            out: Recovery::default(),
            tables: Vec::new(),
        };
        let mut copy = v.clone();
        scratch.value(s, &mut copy, &mut Vec::new()) && scratch.out.diagnostics.is_empty()
    }

    /// Check a table: every key known (a misspelled one is reported and
    /// read as the key it resembles), every value valid, every required key
    /// present. `at` is where a missing key is reported.
    fn table(&mut self, s: &'a Value, t: &mut DeTable<'_>, at: Range<usize>, path: &mut Vec<Seg>) {
        let s = self.resolve(s);
        let props = s
            .get("properties")
            .and_then(Value::as_object)
            .unwrap_or_else(|| empty_map());
        let closed = s.get("additionalProperties") == Some(&Value::Bool(false));
        let keys: Vec<(String, Range<usize>)> = t
            .iter()
            .map(|(k, _)| (k.get_ref().to_string(), k.span()))
            .collect();
        for (key, kspan) in keys {
            if let Some(ps) = props.get(&key) {
                let v = t.get_mut(key.as_str()).expect("a key of this table");
                self.entry(ps, key, v, path);
                continue;
            }
            if !closed {
                continue;
            }
            let Some((k, mut v)) = t.remove_entry(key.as_str()) else {
                continue;
            };
            let free: Vec<&str> = props
                .keys()
                .map(String::as_str)
                .filter(|p| !t.contains_key(*p))
                .collect();
            let mut d = Diagnostic::error(
                Code::UnknownKey,
                self.id,
                kspan.clone(),
                format!("unknown key `{key}` in {}", table_name(path)),
            )
            .label("unknown key");
            self.poison(kspan.clone());
            match did_you_mean(&key, free.iter().copied()) {
                Some(m) => {
                    let replacement = self.respelled(&kspan, m);
                    d = d.help(format!("did you mean `{m}`?")).fix(
                        format!("replace `{key}` with `{m}`"),
                        kspan.clone(),
                        replacement,
                    );
                    self.push(d);
                    // Read on as if it were spelled right, so that its value
                    // is still checked (a misspelling is one mistake).
                    let m = m.to_owned();
                    self.entry(&props[&m], m.clone(), &mut v, path);
                    t.insert(Spanned::new(k.span(), Cow::Owned(m)), v);
                }
                None => {
                    let keys: Vec<String> = props.keys().cloned().collect();
                    self.push(d.help(format!(
                        "the keys of {} are {}",
                        table_name(path),
                        ticked(&keys)
                    )));
                }
            }
        }
        let required: Vec<&str> = s
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        for key in required {
            if t.contains_key(key) {
                continue;
            }
            let ps = props.get(key).unwrap_or(&Value::Bool(true));
            path.push(Seg::Key(key.to_owned()));
            let help = self.missing_help(ps, path);
            path.pop();
            self.push(
                Diagnostic::error(
                    Code::MissingKey,
                    self.id,
                    at.clone(),
                    format!("missing key `{key}` in {}", table_name(path)),
                )
                .label(if path.is_empty() {
                    "in the top-level table of this file"
                } else {
                    "in this table"
                })
                .help(help),
            );
            let placeholder = self.placeholder(ps, at.clone(), None);
            t.insert(
                Spanned::new(at.clone(), Cow::Owned(key.to_owned())),
                placeholder,
            );
            self.poison(at.clone());
        }
    }

    /// Check the value of one key, replacing it when it is not valid.
    fn entry(
        &mut self,
        s: &'a Value,
        key: String,
        v: &mut Spanned<DeValue<'_>>,
        path: &mut Vec<Seg>,
    ) {
        path.push(Seg::Key(key));
        if !self.value(s, v, path) {
            self.replace(s, v);
        }
        path.pop();
    }

    /// Replace an invalid value by a placeholder and poison its span. A
    /// vocabulary value that resembles no member poisons its whole table:
    /// the stand-in is arbitrary, and the rules that combine it with its
    /// neighbours (a platform's backends) would only report the stand-in.
    fn replace(&mut self, s: &'a Value, v: &mut Spanned<DeValue<'_>>) {
        let span = v.span();
        let guess = self.suggestion(s, v);
        if guess.is_none() && matches!(self.kind(s), Kind::Vocab(_)) {
            if let Some((_, t)) = self.tables.last().cloned() {
                self.poison(t);
            }
        }
        *v = self.placeholder(s, span.clone(), guess);
        self.poison(span);
    }

    /// The vocabulary member a misspelled value stands for.
    fn suggestion(&self, s: &'a Value, v: &Spanned<DeValue<'_>>) -> Option<String> {
        match (self.kind(s), v.get_ref()) {
            (Kind::Vocab(m), DeValue::String(found)) => {
                did_you_mean(found, m.iter().map(String::as_str)).map(str::to_owned)
            }
            _ => None,
        }
    }

    fn array(&mut self, item: &'a Value, items: &mut DeArray<'_>, path: &mut Vec<Seg>) {
        for (i, v) in items.iter_mut().enumerate() {
            path.push(Seg::Index(i));
            if !self.value(item, v, path) {
                self.replace(item, v);
            }
            path.pop();
        }
    }

    /// `[operation.<kind>]`: exactly one known kind. A misspelled kind is
    /// read as the kind it resembles, so its table is still checked.
    fn tagged(
        &mut self,
        tags: &[(String, &'a Value)],
        t: &mut DeTable<'_>,
        span: Range<usize>,
        path: &mut Vec<Seg>,
    ) -> bool {
        let names: Vec<String> = tags.iter().map(|(n, _)| n.clone()).collect();
        let p = path_text(path);
        let tables: Vec<String> = names.iter().map(|n| format!("[{p}.{n}]")).collect();
        let keys: Vec<(String, Range<usize>)> = t
            .iter()
            .map(|(k, _)| (k.get_ref().to_string(), k.span()))
            .collect();
        let mut known: Vec<String> = Vec::new();
        for (key, kspan) in &keys {
            if names.contains(key) {
                known.push(key.clone());
                continue;
            }
            let mut d = Diagnostic::error(
                Code::UnknownVariant,
                self.id,
                kspan.clone(),
                format!("unknown kind `{key}` of `{p}`"),
            )
            .label("not a member of this vocabulary");
            self.poison(kspan.clone());
            let guess = did_you_mean(key, names.iter().map(String::as_str))
                .filter(|g| !t.contains_key(*g) && !known.iter().any(|k| k == g))
                .map(str::to_owned);
            match guess {
                Some(g) => {
                    self.push(
                        d.help(format!("did you mean `[{p}.{g}]`?"))
                            .note(format!("`{p}` is one of {}", ticked(&tables))),
                    );
                    if let Some((k, v)) = t.remove_entry(key.as_str()) {
                        t.insert(Spanned::new(k.span(), Cow::Owned(g.clone())), v);
                    }
                    known.push(g);
                }
                None => {
                    d = d.help(format!("`{p}` is one of {}", ticked(&tables)));
                    self.push(d);
                    t.remove(key.as_str());
                }
            }
        }
        if keys.is_empty() {
            self.push(
                Diagnostic::error(
                    Code::MissingKey,
                    self.id,
                    span.clone(),
                    format!("`{p}` names no kind"),
                )
                .label("empty table")
                .help(format!("declare exactly one of {}", ticked(&tables))),
            );
        }
        if known.len() > 1 {
            self.push(
                Diagnostic::error(
                    Code::WrongType,
                    self.id,
                    span.clone(),
                    format!("`{p}` declares {} kinds: {}", known.len(), ticked(&known)),
                )
                .label("more than one kind")
                .help(format!(
                    "a family implements exactly one `{p}`; keep one table"
                )),
            );
        }
        if known.len() != 1 {
            return false;
        }
        let (tag, inner) = tags
            .iter()
            .find(|(n, _)| *n == known[0])
            .expect("a known tag");
        let v = t
            .get_mut(tag.as_str())
            .expect("the kind's table is present");
        self.entry(inner, tag.clone(), v, path);
        true
    }

    /// A value of the type `s` describes, every part spanning `span`.
    /// For a vocabulary, `guess` (the member a misspelling resembles) when
    /// there is one: checking on with the value meant avoids errors that
    /// only the stand-in would cause.
    fn placeholder<'i>(
        &self,
        s: &'a Value,
        span: Range<usize>,
        guess: Option<String>,
    ) -> Spanned<DeValue<'i>> {
        let value = match self.kind(s) {
            Kind::Vocab(m) => DeValue::String(Cow::Owned(
                guess.or_else(|| m.first().cloned()).unwrap_or_default(),
            )),
            Kind::Tagged(tags) => {
                let mut t = DeTable::new();
                if let Some((tag, inner)) = tags.first() {
                    t.insert(
                        Spanned::new(span.clone(), Cow::Owned(tag.clone())),
                        self.placeholder(inner, span.clone(), None),
                    );
                }
                DeValue::Table(t)
            }
            Kind::Choice(alts) => return self.placeholder(alts[0], span, None),
            Kind::Table(ts) => {
                let mut t = DeTable::new();
                let props = ts.get("properties").and_then(Value::as_object);
                for key in ts
                    .get("required")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    let (Some(key), Some(props)) = (key.as_str(), props) else {
                        continue;
                    };
                    let ps = props.get(key).unwrap_or(&Value::Bool(true));
                    t.insert(
                        Spanned::new(span.clone(), Cow::Owned(key.to_owned())),
                        self.placeholder(ps, span.clone(), None),
                    );
                }
                DeValue::Table(t)
            }
            Kind::Array(_) => DeValue::Array(DeArray::new()),
            Kind::String | Kind::Any => DeValue::String(Cow::Borrowed("")),
            Kind::Integer { min, max } => {
                let lo = self
                    .resolve(s)
                    .get("minimum")
                    .and_then(Value::as_i64)
                    .map_or(0, i128::from);
                integer(lo.clamp(min, max))
            }
            Kind::Float => DeValue::parse("0.0")
                .map(Spanned::into_inner)
                .unwrap_or(DeValue::Boolean(false)),
            Kind::Bool => DeValue::Boolean(false),
        };
        Spanned::new(span, value)
    }
}

/// Where a table's text ends: a `[table]` header's span covers the header
/// only, its keys follow it.
fn extent(span: Range<usize>, t: &DeTable<'_>) -> Range<usize> {
    let mut end = span.end;
    for (k, v) in t.iter() {
        end = end.max(k.span().end).max(v.span().end);
        if let DeValue::Table(inner) = v.get_ref() {
            end = end.max(extent(v.span(), inner).end);
        }
        if let DeValue::Array(items) = v.get_ref() {
            for item in items.iter() {
                end = end.max(item.span().end);
                if let DeValue::Table(inner) = item.get_ref() {
                    end = end.max(extent(item.span(), inner).end);
                }
            }
        }
    }
    span.start..end
}

/// An integer placeholder: a schema's lower bound when it is -1 or 1 (the
/// bounds the model states), else 0.
fn integer<'i>(n: i128) -> DeValue<'i> {
    let text = match n {
        -1 => "-1",
        1 => "1",
        _ => "0",
    };
    DeValue::parse(text)
        .map(Spanned::into_inner)
        .unwrap_or(DeValue::Boolean(false))
}
