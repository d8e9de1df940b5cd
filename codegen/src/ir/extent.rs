//! [`Extent`]: one checked extent of a shape or a payload.

use serde::Serialize;

/// A checked extent: a shape entry or a payload extent. Serialized (in the
/// IR's JSON form) as its anonymous `i64`; the symbols are in
/// [`Family::symbols`](super::Family::symbols).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Extent {
    /// A static extent, 1..=2^32-1 once checked.
    Static(i64),
    /// `-1`: any extent, unrelated to every other.
    Dynamic,
    /// A named symbol: an index into [`Family::symbols`](super::Family::symbols).
    Symbol(usize),
}

impl Serialize for Extent {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_i64(self.as_i64())
    }
}

impl Extent {
    /// The anonymous form (`-1` for every dynamic extent, named or not):
    /// what `compiled_meta.json` and the plain `shape` tables carry.
    pub fn as_i64(self) -> i64 {
        match self {
            Extent::Static(e) => e,
            Extent::Dynamic | Extent::Symbol(_) => -1,
        }
    }

    /// The static extent, if any.
    pub fn static_value(self) -> Option<i64> {
        match self {
            Extent::Static(e) => Some(e),
            _ => None,
        }
    }

    /// Whether a declaration may give both extents to one axis of equal
    /// operands: equal static extents, or dynamic ones that are not two
    /// different symbols (`-1` agrees with any dynamic extent; the symbol,
    /// if any, ties it at call time).
    pub fn agrees(self, other: Extent) -> bool {
        match (self, other) {
            (Extent::Symbol(a), Extent::Symbol(b)) => a == b,
            _ => self.as_i64() == other.as_i64(),
        }
    }

    /// Whether the two extents are equal at every call: the same static
    /// extent, or the same symbol. Two `-1`s are never tied.
    pub fn tied(self, other: Extent) -> bool {
        match (self, other) {
            (Extent::Static(a), Extent::Static(b)) => a == b,
            (Extent::Symbol(a), Extent::Symbol(b)) => a == b,
            _ => false,
        }
    }
}
