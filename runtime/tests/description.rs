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
/// the kind `rope` and no field, so 1.3's bytes are 1.4's.
#[test]
fn an_earlier_minor_opens_with_appended_fields_defaulted() {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("../manifest");
    let (ir, _) = kfam_codegen::check_dir(&manifest);
    let ir = ir.expect("the shipped manifest checks");
    let digest = kfam_codegen::ir::catalog_digest(&ir);
    assert_eq!(FORMAT_MINOR, 4);
    let current = &kfam_catalog::CATALOG;
    let mut aligned = 0;
    for minor in [0, 1, 2] {
        let old = kfam_codegen::emit::c::description::description_of_minor(&ir, &digest, minor);
        assert!(old.len() < shipped().len());
        let opened = description::open(&old).expect("an earlier minor's description opens");
        assert_eq!(opened.families.len(), current.families.len());
        let (mut receipts, mut paged) = (0, 0);
        for (a, b) in opened.families.iter().zip(current.families) {
            for (pa, pb) in a.params.iter().zip(b.params) {
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
        assert!(receipts > 0 && (minor == 2 || paged > 1));
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
/// decisions index with them).
#[test]
fn damaged_bytes_never_panic() {
    let bytes = shipped();
    let mut opened = 0;
    for i in MAGIC.len()..bytes.len() {
        for value in [0x00, 0xff, bytes[i] ^ 0x10] {
            let mut damaged = bytes.clone();
            damaged[i] = value;
            if let Ok(c) = description::open(&damaged) {
                opened += 1;
                for f in c.families {
                    let n = f.params.len() as u32;
                    assert!(f.returns.iter().all(|&r| r < n));
                    assert!(f
                        .profiles
                        .iter()
                        .all(|p| p.bindings.iter().all(|b| b.param < n)));
                    assert!(f
                        .receipts
                        .iter()
                        .all(|r| (r.profile as usize) < f.profiles.len()));
                }
            }
        }
    }
    // Texts and numbers that stay in range still open (a changed letter of
    // a summary is the C unit's SHA-256's to catch, not the reader's).
    assert!(opened > 0);
}
