//! Target `description`: a catalog's description, as the prebuilt runtime
//! opens it from a generated C unit (`kfam_runtime::description`,
//! docs/description.md). Any bytes open or are refused with a reason, never
//! a panic, and a catalog that opens holds only references inside its own
//! lists (the decisions index with them) and decides without panicking.
//! Each run reads the bytes with `description::inspect`, which frees the
//! catalog after the oracle (`open` keeps every distinct catalog for the
//! process), and `check` must answer alike: a campaign runs in constant
//! memory.
//!
//! The first byte selects the input: even, the rest as a description;
//! odd, the shipped catalog's description with the rest applied as edits,
//! each three bytes (a 16-bit little-endian position, modulo its length,
//! and the byte written there), so most inputs get past the magic and the
//! lengths into the records.

use std::sync::OnceLock;

use kfam_runtime::vocab::Contract;

/// The shipped catalog's description.
pub fn shipped_description() -> &'static [u8] {
    static BYTES: OnceLock<Vec<u8>> = OnceLock::new();
    BYTES.get_or_init(|| {
        let ir = &super::shipped().ir;
        kfam_codegen::emit::c::description::description(ir, &kfam_codegen::ir::catalog_digest(ir))
    })
}

pub fn description(data: &[u8]) {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let bytes = if mode % 2 == 0 {
        rest.to_vec()
    } else {
        let mut bytes = shipped_description().to_vec();
        for edit in rest.chunks_exact(3) {
            let at = usize::from(u16::from_le_bytes([edit[0], edit[1]])) % bytes.len();
            bytes[at] = edit[2];
        }
        bytes
    };
    let checked = kfam_runtime::description::check(&bytes);
    // SAFETY: nothing of the catalog leaves `decide`.
    let read = unsafe { kfam_runtime::description::inspect(&bytes, decide) };
    assert_eq!(checked.is_ok(), read.is_ok(), "check and inspect disagree");
    if mode % 2 == 1 && bytes == shipped_description() {
        assert!(read.is_ok(), "the shipped description is refused");
    }
}

/// The oracle over an opened catalog.
fn decide(catalog: &kfam_runtime::Catalog) {
    for f in catalog.families {
        let params = f.params.len();
        assert!(f.returns.iter().all(|&r| (r as usize) < params));
        assert!(f
            .receipts
            .iter()
            .all(|r| (r.profile as usize) < f.profiles.len()));
        assert!(f
            .profiles
            .iter()
            .all(|p| p.bindings.iter().all(|b| (b.param as usize) < params)));
        assert!(f.symbols.iter().all(|s| s.multiple_of >= 1
            && s.uses.iter().all(|u| f
                .params
                .get(u.param as usize)
                .is_some_and(|p| p.pool_index == u.tensor && (u.axis as usize) < p.shape.len()))));
        assert!(f.params.iter().all(|p| p
            .shape
            .iter()
            .chain(p.lowered_shape)
            .all(|&d| d == -1 || (1..=i64::from(u32::MAX)).contains(&d))));
        assert!(catalog.find(f.name).is_some_and(|g| g.name == f.name));
        if let Err(e) = catalog.validate_call(f, &[], &[]) {
            let _ = e.describe(f);
        }
        for p in f.profiles {
            let _ = catalog.capability(f.name, p.platform, p.execution_mode, Contract::Kernel);
        }
    }
}
