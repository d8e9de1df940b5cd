//! `[operation.<kind>]`: the kind, and its table's keys as written.
//!
//! Each kind's keys are declared once, on its payload record
//! ([`crate::record::OPERATIONS`]: a field with a [`Key`] is a key of the
//! table). The JSON Schema below is built from that declaration, and the
//! loader holds every table to it (unknown and missing keys, a value of the
//! wrong type, a misspelled member) before serde reads it here; `check`
//! then reads each key by name, typed by these accessors.

use std::borrow::Cow;

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::{Deserialize, Deserializer};
use serde_json::{json, Map, Value};

use super::dim::Dim;
use super::spanned::Spanned;
use crate::record::OperationKind;
use crate::record::{Key, Ty, OPERATIONS};
use crate::vocab::Vocabulary;

/// The operation payload: exactly one table, named by its kind.
#[derive(Debug)]
pub struct Operation {
    pub kind: Spanned<OperationKind>,
    /// The table's keys in the order written.
    pub keys: Vec<(Spanned<String>, Spanned<KeyValue>)>,
}

/// A key's value as TOML wrote it; its declared type says how it is read.
#[derive(Clone, Debug, PartialEq)]
pub enum KeyValue {
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    Ints(Vec<Spanned<i64>>),
}

/// A scalar operand of an operation (`eps`, `scale`): a constant, or the
/// name of a scalar parameter passed at call time.
#[derive(Clone, Debug, PartialEq, JsonSchema)]
#[serde(untagged)]
pub enum ScalarOperand {
    Constant(f64),
    Param(String),
}

impl Operation {
    pub fn kind(&self) -> OperationKind {
        self.kind.value
    }

    /// The value of key `key`, if written.
    pub fn get(&self, key: &str) -> Option<&Spanned<KeyValue>> {
        self.keys
            .iter()
            .find(|(k, _)| k.value == key)
            .map(|(_, v)| v)
    }

    fn read<T>(&self, key: &str, f: impl FnOnce(&KeyValue) -> Option<T>) -> Option<Spanned<T>> {
        let v = self.get(key)?;
        Some(Spanned {
            span: v.span.clone(),
            value: f(&v.value)?,
        })
    }

    /// A name: a parameter's, or text.
    pub fn text(&self, key: &str) -> Option<Spanned<String>> {
        self.read(key, |v| match v {
            KeyValue::Str(s) => Some(s.clone()),
            _ => None,
        })
    }

    pub fn int(&self, key: &str) -> Option<Spanned<i64>> {
        self.read(key, |v| match v {
            KeyValue::Int(i) => Some(*i),
            _ => None,
        })
    }

    pub fn flag(&self, key: &str) -> Option<Spanned<bool>> {
        self.read(key, |v| match v {
            KeyValue::Bool(b) => Some(*b),
            _ => None,
        })
    }

    pub fn ints(&self, key: &str) -> Option<Spanned<Vec<Spanned<i64>>>> {
        self.read(key, |v| match v {
            KeyValue::Ints(v) => Some(v.clone()),
            _ => None,
        })
    }

    pub fn scalar(&self, key: &str) -> Option<Spanned<ScalarOperand>> {
        self.read(key, |v| match v {
            KeyValue::Int(i) => Some(ScalarOperand::Constant(*i as f64)),
            KeyValue::Float(f) => Some(ScalarOperand::Constant(*f)),
            KeyValue::Str(s) => Some(ScalarOperand::Param(s.clone())),
            _ => None,
        })
    }

    pub fn dim(&self, key: &str) -> Option<Spanned<Dim>> {
        self.read(key, |v| match v {
            KeyValue::Int(i) => Some(Dim::Extent(*i)),
            KeyValue::Str(s) => Some(Dim::Symbol(s.clone())),
            _ => None,
        })
    }

    /// A vocabulary member, by `parse` (`BinaryOp::from_str_opt`).
    pub fn member<V>(&self, key: &str, parse: fn(&str) -> Option<V>) -> Option<Spanned<V>> {
        self.read(key, |v| match v {
            KeyValue::Str(s) => parse(s),
            _ => None,
        })
    }
}

impl<'de> Deserialize<'de> for Operation {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Keys(Vec<(Spanned<String>, Spanned<KeyValue>)>);
        impl<'de> Deserialize<'de> for Keys {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl<'de> serde::de::Visitor<'de> for V {
                    type Value = Keys;
                    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                        f.write_str("the operation's table")
                    }
                    fn visit_map<A: serde::de::MapAccess<'de>>(
                        self,
                        mut m: A,
                    ) -> Result<Keys, A::Error> {
                        let mut out = Vec::new();
                        while let Some(entry) = m.next_entry()? {
                            out.push(entry);
                        }
                        Ok(Keys(out))
                    }
                }
                d.deserialize_map(V)
            }
        }
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Operation;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a table such as `[operation.matmul]`")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut m: A,
            ) -> Result<Operation, A::Error> {
                use serde::de::Error;
                let Some(name) = m.next_key::<Spanned<String>>()? else {
                    return Err(A::Error::custom("`operation` names no kind"));
                };
                let kind = OperationKind::from_str_opt(&name.value).ok_or_else(|| {
                    A::Error::custom(format!("unknown operation kind `{}`", name.value))
                })?;
                let keys: Keys = m.next_value()?;
                if m.next_key::<String>()?.is_some() {
                    return Err(A::Error::custom("`operation` declares more than one kind"));
                }
                declared(kind, &keys.0).map_err(A::Error::custom)?;
                Ok(Operation {
                    kind: Spanned {
                        span: name.span,
                        value: kind,
                    },
                    keys: keys.0,
                })
            }
        }
        d.deserialize_map(V)
    }
}

/// The table holds what `kind`'s schema admits (its keys, each of its
/// type, the required ones), so that serde refuses exactly what the
/// loader's schema walk then reports in kfam's words.
fn declared(
    kind: OperationKind,
    keys: &[(Spanned<String>, Spanned<KeyValue>)],
) -> Result<(), String> {
    let record = crate::record::operation(kind);
    for (k, v) in keys {
        let Some(key) = record.field(&k.value).filter(|f| f.key.is_some()) else {
            return Err(format!("unknown key `{}`", k.value));
        };
        let fits = match (key.ty, &v.value) {
            (Ty::Param | Ty::OptParam | Ty::Str, KeyValue::Str(_))
            | (Ty::U32, KeyValue::Int(_))
            | (Ty::Indices, KeyValue::Ints(_))
            | (Ty::Bool, KeyValue::Bool(_))
            | (Ty::Extent, KeyValue::Int(_) | KeyValue::Str(_))
            | (Ty::ScalarRef, KeyValue::Int(_) | KeyValue::Float(_) | KeyValue::Str(_)) => true,
            (Ty::Vocab(vocab), KeyValue::Str(s)) => vocab.members.iter().any(|m| m.spelling == s),
            _ => false,
        };
        if !fits {
            return Err(format!("`{}` has the wrong type", k.value));
        }
    }
    for f in record.fields {
        if f.key.is_some_and(|k| !k.optional) && !keys.iter().any(|(k, _)| k.value == f.name) {
            return Err(format!("missing key `{}`", f.name));
        }
    }
    Ok(())
}

impl<'de> Deserialize<'de> for KeyValue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = KeyValue;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a boolean, a number, a string or an array of integers")
            }
            fn visit_bool<E: serde::de::Error>(self, v: bool) -> Result<KeyValue, E> {
                Ok(KeyValue::Bool(v))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<KeyValue, E> {
                Ok(KeyValue::Int(v))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<KeyValue, E> {
                Ok(KeyValue::Int(i64::try_from(v).unwrap_or(i64::MAX)))
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<KeyValue, E> {
                Ok(KeyValue::Float(v))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<KeyValue, E> {
                Ok(KeyValue::Str(v.to_owned()))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut s: A,
            ) -> Result<KeyValue, A::Error> {
                let mut out = Vec::new();
                while let Some(i) = s.next_element::<Spanned<i64>>()? {
                    out.push(i);
                }
                Ok(KeyValue::Ints(out))
            }
        }
        d.deserialize_any(V)
    }
}

impl<'de> Deserialize<'de> for ScalarOperand {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match KeyValue::deserialize(d)? {
            KeyValue::Int(i) => Ok(ScalarOperand::Constant(i as f64)),
            KeyValue::Float(f) => Ok(ScalarOperand::Constant(f)),
            KeyValue::Str(s) => Ok(ScalarOperand::Param(s)),
            _ => Err(serde::de::Error::custom(
                "a number or the name of a scalar parameter",
            )),
        }
    }
}

/// One variant per kind, `{"<kind>": {"$ref": "#/$defs/<Record>"}}`, each
/// record's table from its keys.
impl JsonSchema for Operation {
    fn schema_name() -> Cow<'static, str> {
        "Operation".into()
    }

    fn json_schema(g: &mut SchemaGenerator) -> Schema {
        let variants: Vec<Value> = OPERATIONS
            .iter()
            .map(|&(kind, record)| {
                let manifest = record
                    .kind
                    .expect("every operation record declares its kind");
                let mut properties = Map::new();
                let mut required = Vec::new();
                for f in record.fields {
                    let Some(key) = f.key else { continue };
                    properties.insert(f.name.to_owned(), key_schema(g, f.ty, key));
                    if !key.optional {
                        required.push(f.name);
                    }
                }
                let table = json!({
                    "type": "object",
                    "description": manifest.table,
                    "properties": properties,
                    "required": required,
                    "additionalProperties": false,
                });
                g.definitions_mut().insert(record.name.to_owned(), table);
                json!({
                    "type": "object",
                    "description": manifest.summary,
                    "properties": {
                        kind.as_str(): {
                            "$ref": format!("#/$defs/{}", record.name),
                            "description": manifest.table,
                        }
                    },
                    "required": [kind.as_str()],
                    "additionalProperties": false,
                })
            })
            .collect();
        schemars::json_schema!({
            "description": "The operation payload: exactly one table, named by its kind.",
            "oneOf": variants,
        })
    }
}

/// The schema of one key: what the manifest writes for a field of type `ty`.
fn key_schema(g: &mut SchemaGenerator, ty: Ty, key: Key) -> Value {
    let mut s = match ty {
        Ty::Param | Ty::OptParam => g.subschema_for::<String>(),
        Ty::Str => {
            let mut s = g.subschema_for::<String>();
            s.insert("minLength".into(), json!(1));
            s.insert("maxLength".into(), json!(crate::limits::MAX_TEXT_CHARS));
            s
        }
        Ty::U32 => g.subschema_for::<i64>(),
        Ty::Indices => {
            let mut s = g.subschema_for::<Vec<i64>>();
            s.insert("minItems".into(), json!(1));
            s
        }
        Ty::Bool => g.subschema_for::<bool>(),
        Ty::Extent => g.subschema_for::<Dim>(),
        Ty::ScalarRef => g.subschema_for::<ScalarOperand>(),
        Ty::Vocab(v) => vocab_ref(g, v),
        ty => panic!("a payload key of type {ty:?}"),
    }
    .to_value();
    s["description"] = json!(key.doc);
    s
}

/// `{"$ref": "#/$defs/<Vocabulary>"}`, the vocabulary's members as the
/// derived schema of its Rust enum spells them.
fn vocab_ref(g: &mut SchemaGenerator, v: &Vocabulary) -> Schema {
    let def = if v.members.iter().all(|m| !m.doc.is_empty()) {
        let members: Vec<Value> = v
            .members
            .iter()
            .map(|m| json!({"const": m.spelling, "description": m.doc, "type": "string"}))
            .collect();
        json!({"description": v.doc, "oneOf": members})
    } else {
        let spellings: Vec<&str> = v.members.iter().map(|m| m.spelling).collect();
        json!({"description": v.doc, "type": "string", "enum": spellings})
    };
    g.definitions_mut().insert(v.name.to_owned(), def);
    schemars::json_schema!({ "$ref": format!("#/$defs/{}", v.name) })
}
