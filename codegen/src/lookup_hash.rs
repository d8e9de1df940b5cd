// The hash of the lookup indices and the index builder. kfam-codegen
// places every key of the generated tables with them, and `kfam generate`
// copies this file verbatim into `generated/rust/lookup_hash.rs`, which
// kfam-runtime probes with (and builds the indices of a catalog it opens
// from its description with): one definition, so the two cannot drift. It
// is plain Rust without imports, compiled as a module here and included
// into `kfam_runtime::lookup`.

/// An unused slot of a lookup index.
pub const EMPTY: u32 = u32::MAX;

/// The slot a key's probe starts from is `key_hash(key) & (len - 1)`.
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
