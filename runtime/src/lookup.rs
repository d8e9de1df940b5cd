//! Lookups by family name and by artifact digest over generated tables.
//!
//! The generator emits, beside `FAMILIES` and `ARTIFACTS`, an open-addressing
//! hash index of each (`FAMILY_INDEX`, `ARTIFACT_INDEX`): a power-of-two
//! number of slots, at most half of them used, each holding a table index
//! or [`EMPTY`]. A key is looked for from slot `key_hash(key) & (len - 1)`
//! onwards (linear probing) until its entry or an empty slot: one or two
//! probes on average, whatever the size of the manifest. The functions take
//! the tables as arguments, so the same code serves this crate's tables and
//! those a downstream crate embeds with `manifest!`.

use crate::types::{Family, Profile, Receipt, Retired};

// `EMPTY` and `key_hash`: the generator's own definitions, copied into
// `generated/` (see kfam-codegen's `lookup_hash.rs`).
include!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/generated/rust/lookup_hash.rs"
));

/// The table index stored for `key` in `index`, probing with `matches`.
#[inline]
fn probe(index: &[u32], key: &str, matches: impl Fn(usize) -> bool) -> Option<usize> {
    if index.is_empty() {
        return None;
    }
    let mask = index.len() - 1;
    let mut slot = key_hash(key.as_bytes()) as usize & mask;
    // At most every slot once, even for an index that is not the generator's.
    for _ in 0..index.len() {
        let i = index[slot];
        if i == EMPTY {
            return None;
        }
        if matches(i as usize) {
            return Some(i as usize);
        }
        slot = (slot + 1) & mask;
    }
    None
}

/// The family named `name` in `families`, through its `FAMILY_INDEX`.
#[inline]
pub fn family<'t>(families: &'t [Family], index: &[u32], name: &str) -> Option<&'t Family> {
    probe(index, name, |i| {
        families.get(i).is_some_and(|f| f.name == name)
    })
    .map(|i| &families[i])
}

/// The family, profile and receipt of the artifact whose SHA-256 is
/// `sha256`, through `ARTIFACTS` (`(digest, family, receipt)`) and its
/// `ARTIFACT_INDEX`.
#[inline]
pub fn artifact<'t>(
    families: &'t [Family],
    artifacts: &[(&str, u32, u32)],
    index: &[u32],
    sha256: &str,
) -> Option<(&'t Family, &'t Profile, &'t Receipt)> {
    let i = probe(index, sha256, |i| {
        artifacts.get(i).is_some_and(|a| a.0 == sha256)
    })?;
    let (_, family, receipt) = artifacts[i];
    let family = families.get(family as usize)?;
    let receipt = family.receipts.get(receipt as usize)?;
    Some((
        family,
        family.profiles.get(receipt.profile as usize)?,
        receipt,
    ))
}

// Retired families are consulted only on a refusal path, after the hash
// lookup of the approved tables failed: the sorted table is searched.

/// The tombstone named `name` in `retired` (sorted by name).
pub fn retired<'t>(retired: &'t [Retired], name: &str) -> Option<&'t Retired> {
    retired
        .binary_search_by(|r| r.name.cmp(name))
        .ok()
        .map(|i| &retired[i])
}

/// The tombstone in `retired` whose recorded artifacts include `sha256`.
pub fn retired_artifact<'t>(retired: &'t [Retired], sha256: &str) -> Option<&'t Retired> {
    retired
        .iter()
        .find(|r| r.receipts.binary_search(&sha256).is_ok())
}
