//! What the Rust tables hold beside the records, computed from the IR before
//! printing: the `ARTIFACTS` rows, the hash indices' slots and each
//! symbol's bounds.

use crate::ir::Ir;
use crate::lookup_hash::{key_hash, EMPTY};

/// A symbol's constraints as the runtime tables carry them: `min`, `max`
/// (`i64::MAX` when unbounded) and `multiple_of`.
pub fn symbol_bounds(s: &crate::ir::Symbol) -> (i64, i64, i64) {
    (
        i64::from(s.min),
        s.max.map_or(i64::MAX, i64::from),
        i64::from(s.multiple_of),
    )
}

/// The open-addressing index of `keys` (table order) that
/// `kfam_runtime::lookup` probes: a power of two of at least twice as many
/// slots as keys (so every probe sequence meets an empty slot), each the
/// table index placed there by linear probing, or [`EMPTY`].
/// Deterministic: the same keys give the same index.
pub fn index_slots<'k>(keys: impl ExactSizeIterator<Item = &'k str>) -> Vec<u32> {
    let n = keys.len();
    if n == 0 {
        return Vec::new();
    }
    let len = (2 * n).next_power_of_two().max(8);
    let mask = len - 1;
    let mut slots = vec![EMPTY; len];
    for (i, key) in keys.enumerate() {
        let mut slot = key_hash(key.as_bytes()) as usize & mask;
        while slots[slot] != EMPTY {
            slot = (slot + 1) & mask;
        }
        slots[slot] = u32::try_from(i).unwrap_or(EMPTY - 1);
    }
    slots
}

/// `(artifact sha256, family index, receipt index)` of every receipt,
/// sorted by digest: the `ARTIFACTS` table.
pub fn artifact_rows(ir: &Ir) -> Vec<(&str, usize, usize)> {
    let mut rows: Vec<(&str, usize, usize)> = ir
        .families
        .iter()
        .enumerate()
        .flat_map(|(fi, f)| {
            f.receipts
                .iter()
                .enumerate()
                .map(move |(ri, r)| (r.sha256.as_str(), fi, ri))
        })
        .collect();
    rows.sort_unstable();
    rows
}
