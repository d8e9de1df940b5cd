//! [`Spanned`]: a value with the byte range it was read from.

use std::borrow::Cow;
use std::ops::Range;

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::{Deserialize, Deserializer};

/// A value with the byte range it was read from. Its JSON Schema is that of
/// the value: spans are a loader detail, not part of the format.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Spanned<T> {
    pub span: Range<usize>,
    pub value: T,
}

impl<T> Spanned<T> {
    pub fn get(&self) -> &T {
        &self.value
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Spanned<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = serde_spanned::Spanned::<T>::deserialize(d)?;
        Ok(Spanned {
            span: s.span(),
            value: s.into_inner(),
        })
    }
}

impl<T: JsonSchema> JsonSchema for Spanned<T> {
    fn inline_schema() -> bool {
        T::inline_schema()
    }
    fn schema_name() -> Cow<'static, str> {
        T::schema_name()
    }
    fn schema_id() -> Cow<'static, str> {
        T::schema_id()
    }
    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        T::json_schema(generator)
    }
}
