//! [`Dim`]: one shape entry or payload extent as the manifest writes it.

use std::borrow::Cow;

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::{Deserialize, Deserializer};

use super::pattern;

/// One shape entry or payload extent: a static extent (1..=2^32-1), `-1`
/// (an anonymous dynamic extent) or a symbol name (a dynamic extent that is
/// equal wherever the same name appears in the family).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Dim {
    Extent(i64),
    Symbol(String),
}

impl std::fmt::Display for Dim {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Dim::Extent(e) => write!(f, "{e}"),
            Dim::Symbol(s) => write!(f, "\"{s}\""),
        }
    }
}

impl<'de> Deserialize<'de> for Dim {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = Dim;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an extent (an integer, -1 when dynamic) or a symbol name")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Dim, E> {
                Ok(Dim::Symbol(v.to_owned()))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Dim, E> {
                Ok(Dim::Extent(v))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Dim, E> {
                Ok(Dim::Extent(i64::try_from(v).unwrap_or(i64::MAX)))
            }
        }
        d.deserialize_any(V)
    }
}

impl JsonSchema for Dim {
    fn schema_name() -> Cow<'static, str> {
        "Dim".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        schemars::json_schema!({
            "description": "An extent: 1..=4294967295, -1 for an anonymous dynamic extent, or a symbol name (equal extents wherever the name appears).",
            "anyOf": [
                { "type": "integer", "minimum": -1, "maximum": u32::MAX },
                {
                    "type": "string",
                    "pattern": pattern::IDENTIFIER,
                    "maxLength": crate::names::MAX_NAME_LEN,
                }
            ]
        })
    }
}
