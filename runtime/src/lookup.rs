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
/// same function; a test keeps the two equal).
#[inline]
pub fn key_hash(key: &[u8]) -> u64 {
    // wyhash-style folded multiplies; the 16-byte blocks of a key are mixed
    // independently (they pipeline), then combined and folded once more.
    const S: [u64; 4] = [
        0x243f_6a88_85a3_08d3,
        0x1319_8a2e_0370_7344,
        0xa409_3822_299f_31d0,
        0x082e_fa98_ec4e_6c89,
    ];
    #[inline(always)]
    fn fold(a: u64, b: u64) -> u64 {
        let p = u128::from(a) * u128::from(b);
        (p as u64) ^ ((p >> 64) as u64)
    }
    let len = key.len();
    let r64 = |i: usize| {
        let b = &key[i..i + 8];
        u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]])
    };
    let r32 = |i: usize| {
        u64::from(u32::from_le_bytes([
            key[i],
            key[i + 1],
            key[i + 2],
            key[i + 3],
        ]))
    };
    let seed = S[0] ^ (len as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    let h = if len <= 16 {
        let (a, b) = if len >= 8 {
            (r64(0), r64(len - 8))
        } else if len >= 4 {
            (r32(0), r32(len - 4))
        } else if len > 0 {
            let (x, y, z) = (key[0], key[len / 2], key[len - 1]);
            (u64::from(x) | u64::from(y) << 8 | u64::from(z) << 16, 0)
        } else {
            (0, 0)
        };
        fold(a ^ S[1], b ^ seed)
    } else {
        let mut acc = 0u64;
        let mut i = 0;
        let mut lane = 0usize;
        while i + 16 < len {
            let m = fold(r64(i) ^ S[lane & 3], r64(i + 8) ^ S[(lane + 1) & 3] ^ seed);
            acc = acc.rotate_left(23).wrapping_add(m);
            i += 16;
            lane += 1;
        }
        let m = fold(r64(len - 16) ^ S[2], r64(len - 8) ^ S[3] ^ seed);
        acc.rotate_left(23).wrapping_add(m)
    };
    fold(h ^ S[3], seed ^ S[1])
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
