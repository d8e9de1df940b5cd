//! A catalog's description (docs/description.md): the bytes the generator
//! writes for the shipped manifest open into the same catalog as the
//! generated Rust tables, record for record, and every damaged variant of
//! them is refused with a reason, never a panic.

use std::path::Path;

use kfam_runtime::description::{self, DescriptionError, FORMAT_MAJOR, FORMAT_MINOR, MAGIC};
use kfam_runtime::{CacheLayout, Catalog, Operation, Param};

fn shipped() -> Vec<u8> {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("../manifest");
    let (ir, report) = kfam_codegen::check_dir(&manifest);
    let ir = ir.unwrap_or_else(|| panic!("the shipped manifest checks: {report:?}"));
    let digest = kfam_codegen::ir::catalog_digest(&ir);
    kfam_codegen::emit::c::description::description(&ir, &digest)
}

fn same(a: &Catalog, b: &Catalog) {
    assert_eq!(a.name, b.name);
    assert_eq!(a.digest, b.digest);
    assert_eq!(a.abi, b.abi);
    assert_eq!(a.targets, b.targets);
    assert_eq!(a.families, b.families);
    assert_eq!(a.retired, b.retired);
    assert_eq!(a.artifacts, b.artifacts);
    assert_eq!(a.family_index, b.family_index);
    assert_eq!(a.artifact_index, b.artifact_index);
}

#[test]
fn the_description_opens_into_the_generated_tables() {
    let bytes = shipped();
    let opened = description::open(&bytes).expect("the shipped description opens");
    same(opened, &kfam_catalog::CATALOG);
    // And decides alike, by the same methods.
    let f = opened.find("add_bf16_1024").expect("a family by name");
    let sha = f.receipts[0].sha256;
    assert_eq!(
        opened.find_artifact(sha).map(|(f, _, _)| f.name),
        Some("add_bf16_1024")
    );
    assert_eq!(bytes[..8], MAGIC[..]);
}

/// A description an earlier generator wrote opens, with the fields appended
/// since at their defaults and everything else as in the current one:
/// format 1.0 (before a receipt's evidence gained `runs`, `deterministic`
/// and `run_max_abs`), 1.1 (before paged attention gained `layout`,
/// which reads as `nhd`, the one layout there was) and 1.2 (before a
/// parameter gained `alignment`, which reads as 1: any address). 1.4 added
/// the kind `rope` and no field, so 1.3's bytes are 1.4's; 1.5 appended a
/// retired family's `approval` (0 before: not recorded).
#[test]
fn an_earlier_minor_opens_with_appended_fields_defaulted() {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("../manifest");
    let (ir, _) = kfam_codegen::check_dir(&manifest);
    let ir = ir.expect("the shipped manifest checks");
    let digest = kfam_codegen::ir::catalog_digest(&ir);
    assert_eq!(FORMAT_MINOR, 5);
    let current = &kfam_catalog::CATALOG;
    let mut aligned = 0;
    for minor in [0, 1, 2, 4] {
        let old = kfam_codegen::emit::c::description::description_of_minor(&ir, &digest, minor);
        assert!(old.len() < shipped().len());
        let opened = description::open(&old).expect("an earlier minor's description opens");
        assert_eq!(opened.families.len(), current.families.len());
        assert_eq!(opened.retired.len(), current.retired.len());
        for (a, b) in opened.retired.iter().zip(current.retired) {
            assert!(b.approval > 0, "the shipped lock records the approval");
            assert_eq!(*a, kfam_runtime::Retired { approval: 0, ..*b });
        }
        let (mut receipts, mut paged) = (0, 0);
        for (a, b) in opened.families.iter().zip(current.families) {
            for (pa, pb) in a.params.iter().zip(b.params) {
                if minor >= 3 {
                    assert_eq!(pa, pb);
                    continue;
                }
                aligned += usize::from(pb.alignment != 1);
                assert_eq!(pa.alignment, 1);
                assert_eq!(
                    Param {
                        alignment: 1,
                        ..*pb
                    },
                    *pa
                );
            }
            assert_eq!(a.params.len(), b.params.len());
            assert_eq!(a.profiles, b.profiles);
            match (&a.operation, &b.operation) {
                (
                    Operation::PagedAttentionDecode { layout, query, .. },
                    Operation::PagedAttentionDecode { query: q, .. },
                ) if minor < 2 => {
                    paged += 1;
                    assert_eq!((*layout, query), (CacheLayout::Nhd, q));
                }
                (a, b) => assert_eq!(a, b),
            }
            for (ra, rb) in a.receipts.iter().zip(b.receipts) {
                receipts += 1;
                assert_eq!(
                    (ra.sha256, ra.evidence.cases),
                    (rb.sha256, rb.evidence.cases)
                );
                let e = &ra.evidence;
                let appended = (e.runs, e.deterministic, e.run_max_abs);
                if minor == 0 {
                    assert_eq!(appended, (0, false, 0.0));
                } else {
                    let e = &rb.evidence;
                    assert_eq!(appended, (e.runs, e.deterministic, e.run_max_abs));
                }
            }
        }
        assert!(receipts > 0 && (minor >= 2 || paged > 1));
    }
    assert!(aligned > 0, "a shipped family declares an alignment");
}

#[test]
fn a_newer_or_other_format_is_refused_with_both_versions() {
    let mut bytes = shipped();
    bytes[10..12].copy_from_slice(&(FORMAT_MINOR + 1).to_le_bytes());
    let err = description::open(&bytes).unwrap_err();
    assert_eq!(
        err,
        DescriptionError::Format {
            major: FORMAT_MAJOR,
            minor: FORMAT_MINOR + 1
        }
    );
    let text = err.to_string();
    assert!(
        text.contains(&format!("format {FORMAT_MAJOR}.{}", FORMAT_MINOR + 1))
            && text.contains(&format!("{FORMAT_MAJOR}.{FORMAT_MINOR}")),
        "{text}"
    );
    bytes[8..10].copy_from_slice(&(FORMAT_MAJOR + 1).to_le_bytes());
    assert!(matches!(
        description::open(&bytes),
        Err(DescriptionError::Format { .. })
    ));
    assert_eq!(
        description::open(b"not a description"),
        Err(DescriptionError::Magic)
    );
}

/// Every prefix of the description is refused (each record must be whole),
/// naming the byte where it ran out.
#[test]
fn every_truncation_is_refused() {
    let bytes = shipped();
    for len in 0..bytes.len() {
        match description::open(&bytes[..len]) {
            Err(DescriptionError::Malformed { offset, what }) => {
                assert!(offset <= len, "offset {offset} past {len}: {what}");
            }
            Err(DescriptionError::Magic) => assert!(len < MAGIC.len()),
            other => panic!("{len} of {} bytes: {other:?}", bytes.len()),
        }
    }
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(matches!(
        description::open(&longer),
        Err(DescriptionError::Malformed { what, .. }) if what.contains("after the catalog")
    ));
}

/// Every byte changed to each of a few values opens or is refused: never a
/// panic, and what opens holds only references inside its lists (the
/// decisions index with them). Read with `inspect`, which frees each
/// catalog (`open` keeps every distinct one for the process).
#[test]
fn damaged_bytes_never_panic() {
    let bytes = shipped();
    let mut opened = 0;
    for i in MAGIC.len()..bytes.len() {
        for value in [0x00, 0xff, bytes[i] ^ 0x10] {
            let mut damaged = bytes.clone();
            damaged[i] = value;
            // SAFETY: nothing of the catalog leaves the closure.
            let answer = unsafe { description::inspect(&damaged, holds_its_references) };
            if let Ok(holds) = answer {
                assert!(holds, "byte {i} = {value:#x}: a reference outside its list");
                opened += 1;
            }
        }
    }
    // Texts and numbers that stay in range still open (a changed letter of
    // a summary is the C unit's SHA-256's to catch, not the reader's).
    assert!(opened > 0);
}

/// Whether every reference of `c` names an entry of its lists.
fn holds_its_references(c: &Catalog) -> bool {
    c.families.iter().all(|f| {
        let n = f.params.len() as u32;
        f.returns.iter().all(|&r| r < n)
            && f.profiles
                .iter()
                .all(|p| p.bindings.iter().all(|b| b.param < n))
            && f.receipts
                .iter()
                .all(|r| (r.profile as usize) < f.profiles.len())
            && f.symbols.iter().all(|s| {
                s.multiple_of >= 1
                    && s.uses.iter().all(|u| {
                        f.params.get(u.param as usize).is_some_and(|p| {
                            p.pool_index == u.tensor && (u.axis as usize) < p.shape.len()
                        })
                    })
            })
            && f.params
                .iter()
                .all(|p| p.shape.iter().all(|&d| d == -1 || d >= 1))
    })
}

/// The same bytes open once: the catalog the first `open` made.
#[test]
fn the_same_description_opens_once() {
    let bytes = shipped();
    let first = description::open(&bytes).unwrap() as *const Catalog;
    let again = description::open(&bytes.clone()).unwrap() as *const Catalog;
    assert_eq!(first, again);
    assert_eq!(description::check(&bytes), Ok(()));
}

/// The shipped manifest's IR, to damage and write again as a description:
/// its digest is the description's own, so nothing but the reader stands
/// between such bytes and the decisions.
fn shipped_ir() -> kfam_codegen::ir::Ir {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("../manifest");
    let (ir, report) = kfam_codegen::check_dir(&manifest);
    ir.unwrap_or_else(|| panic!("the shipped manifest checks: {report:?}"))
}

/// A reference, count or value out of its range, written by the generator
/// itself from a damaged IR, is refused by the reader, each with the field
/// and the value named, whatever digest accompanies the bytes.
#[test]
fn references_counts_and_ranges_are_checked_whatever_the_digest() {
    use kfam_codegen::ir::Ir;
    type Damage = (&'static str, fn(&mut Ir), &'static str);
    fn symbolic(ir: &mut Ir) -> &mut kfam_codegen::ir::Family {
        ir.families
            .iter_mut()
            .find(|f| !f.symbols.is_empty())
            .expect("a shipped family has a symbol")
    }
    let cases: [Damage; 14] = [
        (
            "static extent -5",
            |ir| ir.families[0].params[0].shape[0] = -5,
            "`Param.shape` holds the extent -5: an extent is -1 (dynamic) or 1 to 4294967295",
        ),
        (
            "an extent past 2^32 - 1",
            |ir| ir.families[0].params[0].lowered_shape[0] = 1 << 40,
            "`Param.lowered_shape` holds the extent 1099511627776",
        ),
        (
            "multiple_of 0",
            |ir| symbolic(ir).symbols[0].multiple_of = 0,
            "`Symbol.multiple_of` of symbol `",
        ),
        (
            "max below min",
            |ir| {
                let s = &mut symbolic(ir).symbols[0];
                s.min = 8;
                s.max = Some(4);
            },
            "`Symbol.max` of symbol `",
        ),
        (
            "symbol axis out of range",
            |ir| symbolic(ir).symbols[0].uses[0].axis = 9,
            "`DimUse.axis` of symbol `",
        ),
        (
            "symbol tensor index out of range",
            |ir| symbolic(ir).symbols[0].uses[0].tensor = 99,
            "`DimUse.tensor` of symbol `",
        ),
        (
            "symbol parameter out of range",
            |ir| symbolic(ir).symbols[0].uses[0].param = 99,
            "`DimUse.param` is parameter 99, the family declares",
        ),
        (
            "tensor count",
            |ir| ir.families[0].tensor_count += 1,
            "`Family.tensor_count` is 4, its parameters hold 3 tensors",
        ),
        (
            "scalar count",
            |ir| ir.families[0].scalar_count = 2,
            "`Family.scalar_count` is 2, its parameters hold 0 scalars",
        ),
        (
            "binding",
            |ir| ir.families[0].profiles[0].bindings[0].param = 7,
            "`Binding.param` is parameter 7, the family declares 3",
        ),
        (
            "return alias",
            |ir| ir.families[0].returns[0] = 0,
            "`Family.returns` is parameter 0 (`lhs`, in tensor): an `out` or `inout` tensor expected",
        ),
        (
            "receipt profile",
            |ir| ir.families[0].receipts[0].profile = 5,
            "`Receipt.profile` of receipt ",
        ),
        (
            "alignment 3",
            |ir| {
                let attrs = &mut ir.families[0].params[0].attrs.0;
                attrs.retain(|(n, _)| *n != "alignment");
                attrs.push(("alignment", 3));
            },
            "`Param.alignment` is 3: a power of two from 1 to 4096 expected",
        ),
        (
            "pool index",
            |ir| ir.families[0].params[1].pool_index = 0,
            "`Param.pool_index` of tensor `rhs` is 0, 1 expected",
        ),
    ];
    let ir = shipped_ir();
    assert_eq!(ir.families[0].name, "add_bf16_1024");
    for (what, damage, said) in cases {
        let mut damaged = ir.clone();
        damage(&mut damaged);
        let digest = kfam_codegen::ir::catalog_digest(&damaged);
        let bytes = kfam_codegen::emit::c::description::description(&damaged, &digest);
        match description::check(&bytes) {
            Err(DescriptionError::Malformed { offset, what: text }) => {
                assert!(offset < bytes.len(), "{what}: offset {offset}");
                assert!(
                    text.contains(said),
                    "{what}: `{text}` does not say `{said}`"
                );
            }
            other => panic!("{what}: {other:?}"),
        }
    }
}
