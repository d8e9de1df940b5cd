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

use crate::types::{Family, Profile, Receipt};

/// An unused index slot.
pub const EMPTY: u32 = u32::MAX;

/// The hash the generator placed every key with (kfam-codegen carries the
/// same function; a test keeps the two equal). Two independent lanes of
/// multiply-rotate over 16-byte blocks, then a murmur3 finaliser.
#[inline]
pub fn key_hash(key: &[u8]) -> u64 {
    const K1: u64 = 0x9e37_79b9_7f4a_7c15;
    const K2: u64 = 0xc2b2_ae3d_27d4_eb4f;
    let word = |b: &[u8]| u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]);
    let mut a = (key.len() as u64).wrapping_mul(K1);
    let mut b = K2;
    let mut rest = key;
    while rest.len() >= 16 {
        a = (a ^ word(&rest[..8])).wrapping_mul(K1).rotate_left(31);
        b = (b ^ word(&rest[8..16])).wrapping_mul(K2).rotate_left(29);
        rest = &rest[16..];
    }
    if rest.len() >= 8 {
        a = (a ^ word(&rest[..8])).wrapping_mul(K1).rotate_left(31);
        rest = &rest[8..];
    }
    let mut tail = 0u64;
    for (i, &byte) in rest.iter().enumerate() {
        tail |= u64::from(byte) << (8 * i);
    }
    b = (b ^ tail).wrapping_mul(K2);
    let mut h = a ^ b.rotate_left(17);
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^ (h >> 33)
}

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
    probe(index, name, |i| families.get(i).is_some_and(|f| f.name == name)).map(|i| &families[i])
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
    let i = probe(index, sha256, |i| artifacts.get(i).is_some_and(|a| a.0 == sha256))?;
    let (_, family, receipt) = artifacts[i];
    let family = families.get(family as usize)?;
    let receipt = family.receipts.get(receipt as usize)?;
    Some((family, family.profiles.get(receipt.profile as usize)?, receipt))
}
