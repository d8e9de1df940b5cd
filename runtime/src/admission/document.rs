//! The `compiled_meta.json` document as serde reads it: derived types over
//! strict JSON (serde_json), strings borrowed from the document unless they
//! have escapes, unknown and repeated keys refused. A refusal names the key
//! at fault and the document key it sits under, from the path
//! `serde_path_to_error` records.
//!
//! Vocabulary values stay spellings here: `admit` parses them in the order
//! the decision (and Python's `kfam.admit`) checks them, so which refusal
//! wins when a document has several mistakes is the same in every language.

use std::borrow::Cow;

use serde::de::{Deserializer, Error as _, MapAccess, Visitor};
use serde::Deserialize;

/// Longest `$comment` accepted, in characters (the schema's `maxLength`).
pub const MAX_COMMENT_CHARS: usize = 1024;

/// Why a document is malformed: the key whose value is wrong (when the
/// reader knows it), the document key it sits under (`params` for a
/// parameter's `dtype`), and what is wrong (`has the wrong type`, `is not a
/// known value`, ...).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Malformed {
    pub key: Option<&'static str>,
    pub within: Option<&'static str>,
    pub why: &'static str,
}

impl core::fmt::Display for Malformed {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match (self.within, self.key) {
            (Some(w), Some(k)) => write!(f, "`{k}` of `{w}` {}", self.why),
            (None, Some(k)) => write!(f, "`{k}` {}", self.why),
            (Some(w), None) => write!(f, "`{w}` {}", self.why),
            (None, None) => write!(f, "the document {}", self.why),
        }
    }
}

#[derive(Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ParamDoc<'a> {
    #[serde(borrow)]
    pub name: Cow<'a, str>,
    #[serde(borrow)]
    pub kind: Cow<'a, str>,
    #[serde(borrow)]
    pub direction: Cow<'a, str>,
    #[serde(borrow)]
    pub dtype: Cow<'a, str>,
    pub shape: Vec<i64>,
    #[serde(borrow)]
    pub layout: Cow<'a, str>,
}

#[derive(Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct CapabilityDoc<'a> {
    #[serde(borrow)]
    pub contract: Cow<'a, str>,
    #[serde(borrow)]
    pub execution_mode: Cow<'a, str>,
}

#[derive(Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ArtifactDoc<'a> {
    #[serde(borrow)]
    pub path: Cow<'a, str>,
    #[serde(borrow)]
    pub sha256: Cow<'a, str>,
}

/// Every field of every schema version; which are required depends on
/// `schema` and is decided by `admit`. An optional key is absent or has a
/// value: `null` is refused (`present`), as the published schema and the
/// reference reader (`kfam_codegen::compiled_meta`) refuse it.
#[derive(Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Doc<'a> {
    #[serde(rename = "$comment", default, borrow, deserialize_with = "comment")]
    pub _comment: Option<Cow<'a, str>>,
    pub schema: u32,
    #[serde(default, borrow, deserialize_with = "present")]
    pub family: Option<Cow<'a, str>>,
    #[serde(default, deserialize_with = "present")]
    pub revision: Option<u32>,
    #[serde(default, borrow, deserialize_with = "present")]
    pub contract: Option<Cow<'a, str>>,
    #[serde(borrow)]
    pub params: Vec<Obj<ParamDoc<'a>>>,
    #[serde(default, borrow, deserialize_with = "present")]
    pub lowered_params: Option<Vec<Obj<ParamDoc<'a>>>>,
    #[serde(default, deserialize_with = "present")]
    pub return_count: Option<u32>,
    #[serde(default, deserialize_with = "present")]
    pub return_aliases: Option<Vec<u32>>,
    #[serde(borrow)]
    pub platform: Cow<'a, str>,
    #[serde(borrow)]
    pub backend: Cow<'a, str>,
    #[serde(default, borrow, deserialize_with = "present")]
    pub runtime: Option<Cow<'a, str>>,
    #[serde(default, borrow, deserialize_with = "present")]
    pub execution_mode: Option<Cow<'a, str>>,
    #[serde(default, borrow, deserialize_with = "present")]
    pub capabilities: Option<Vec<Obj<CapabilityDoc<'a>>>>,
    #[serde(default, borrow, deserialize_with = "present")]
    pub artifact: Option<Obj<ArtifactDoc<'a>>>,
    /// The native runtime revision the artifact was built against.
    #[serde(default, borrow, deserialize_with = "present")]
    pub abi_revision: Option<Cow<'a, str>>,
}

/// A struct read from a JSON object only: serde_json would also read a
/// derived struct from an array of its field values, which the schema
/// refuses.
#[derive(Debug, PartialEq)]
pub(super) struct Obj<T>(T);

impl<T> std::ops::Deref for Obj<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Obj<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = Obj<T>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Obj<T>, A::Error> {
                T::deserialize(serde::de::value::MapAccessDeserializer::new(map)).map(Obj)
            }
        }
        d.deserialize_map(V(std::marker::PhantomData))
    }
}

/// An optional key that is present has a value (`null` is the wrong type).
fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<T>, D::Error> {
    T::deserialize(d).map(Some)
}

/// `$comment`: free text of at most [`MAX_COMMENT_CHARS`] characters, the
/// bound the published schema states.
fn comment<'de: 'a, 'a, D: Deserializer<'de>>(d: D) -> Result<Option<Cow<'a, str>>, D::Error> {
    let s = Cow::<str>::deserialize(d)?;
    let n = s.chars().count();
    if n > MAX_COMMENT_CHARS {
        return Err(D::Error::invalid_length(n, &"at most 1024 characters"));
    }
    Ok(Some(s))
}

/// Read `text` (the whole document) into a [`Doc`].
pub(super) fn parse(text: &str) -> Result<Doc<'_>, Malformed> {
    // Tracking the path costs as much as reading the document, so it is
    // done only to word a refusal: the same text is read again.
    match read(text, |de| Obj::<Doc<'_>>::deserialize(de)) {
        Ok(doc) => Ok(doc.0),
        Err(_) => Err(
            match read(text, |de| {
                serde_path_to_error::deserialize::<_, Obj<Doc<'_>>>(de)
            }) {
                Err(Some(e)) => refusal(e),
                _ => Malformed {
                    key: None,
                    within: None,
                    why: "is not strict JSON",
                },
            },
        ),
    }
}

/// `text` read by `f`, then nothing but whitespace; `None` for trailing
/// data.
fn read<'a, T, E>(
    text: &'a str,
    f: impl FnOnce(&mut serde_json::Deserializer<serde_json::de::StrRead<'a>>) -> Result<T, E>,
) -> Result<T, Option<E>> {
    let mut de = serde_json::Deserializer::from_str(text);
    let value = f(&mut de).map_err(Some)?;
    de.end().map_err(|_| None)?;
    Ok(value)
}

/// Every key of the document, to name one with a `&'static str`.
const KEYS: &[&str] = &[
    "$comment",
    "schema",
    "family",
    "revision",
    "contract",
    "params",
    "lowered_params",
    "return_count",
    "return_aliases",
    "platform",
    "backend",
    "runtime",
    "execution_mode",
    "abi_revision",
    "capabilities",
    "artifact",
    "name",
    "kind",
    "direction",
    "dtype",
    "shape",
    "layout",
    "path",
    "sha256",
];

fn known(key: &str) -> Option<&'static str> {
    KEYS.iter().copied().find(|k| *k == key)
}

/// The refusal for a document serde did not read: the innermost key on the
/// path (or the one a `missing`/`duplicate field` message names), under the
/// document key the path starts at; what is wrong from the error's category
/// and serde's stable message prefixes.
#[cold]
fn refusal(e: serde_path_to_error::Error<serde_json::Error>) -> Malformed {
    let mut keys: Vec<&'static str> = e
        .path()
        .iter()
        .filter_map(|s| match s {
            serde_path_to_error::Segment::Map { key } => known(key),
            _ => None,
        })
        .collect();
    let e = e.into_inner();
    let why = match e.classify() {
        serde_json::error::Category::Data => {
            let message = e.to_string();
            let named = |prefix: &str| {
                let rest = message.strip_prefix(prefix)?;
                known(rest.split('`').next()?)
            };
            if let Some(key) = named("missing field `") {
                keys.push(key);
                "is missing"
            } else if let Some(key) = named("duplicate field `") {
                keys.push(key);
                "appears twice"
            } else if let Some(field) = message.strip_prefix("unknown field `") {
                // The path ends at the unknown key itself (when it is a key
                // of another record); the refusal names the record it is in.
                if keys
                    .last()
                    .is_some_and(|k| field.split('`').next() == Some(*k))
                {
                    keys.pop();
                }
                "has an unknown key"
            } else if message.starts_with("invalid value") {
                // An integer outside the field's type (u32, i64).
                "is out of range"
            } else if message.starts_with("invalid length") {
                "is too long"
            } else {
                "has the wrong type"
            }
        }
        _ => "is not strict JSON",
    };
    let key = keys.last().copied();
    let within = keys.first().copied().filter(|w| Some(*w) != key);
    Malformed { key, within, why }
}
