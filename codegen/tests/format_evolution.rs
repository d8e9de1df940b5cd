//! The manifest format evolves without breaking the files users wrote
//! (docs/manifest.md, "Format evolution"): a key added later is optional,
//! and a file without it checks clean and generates with its default.

use std::fs;
use std::path::{Path, PathBuf};

use kfam_codegen::limits::DEFAULT_MAX_PREPARED;
use kfam_codegen::{check_dir, generate_dir, GenerateOutcome};

use crate::support::root;
use crate::support::tree;
use tree::copy_dir;

/// The shipped manifest, copied into `dir/manifest`, with `abi.toml`
/// replaced by `abi`.
fn manifest_with_abi(dir: &Path, abi: &str) -> PathBuf {
    let manifest = dir.join("manifest");
    copy_dir(&root().join("manifest"), &manifest);
    fs::write(manifest.join("abi.toml"), abi).unwrap();
    manifest
}

fn render(report: &kfam_codegen::diag::Report) -> String {
    report.render_human(&annotate_snippets::Renderer::plain())
}

/// The shipped `abi.toml` without `max_prepared` checks clean (not even a
/// warning) and generates exactly the committed outputs: the default is the
/// value the shipped manifest declares, in every language.
#[test]
fn an_abi_without_max_prepared_checks_clean_and_generates_the_default() {
    let shipped = fs::read_to_string(root().join("manifest/abi.toml")).unwrap();
    let line = format!("max_prepared = {DEFAULT_MAX_PREPARED}\n");
    assert!(
        shipped.contains(&line),
        "the shipped abi.toml declares the default"
    );
    let dir = tempfile::tempdir().unwrap();
    let manifest = manifest_with_abi(dir.path(), &shipped.replacen(&line, "", 1));

    let (ir, report) = check_dir(&manifest);
    assert!(report.diagnostics.is_empty(), "{}", render(&report));
    assert_eq!(ir.unwrap().abi.max_prepared, DEFAULT_MAX_PREPARED);

    let out = dir.path().join("generated");
    let written = match generate_dir(&manifest, &out, false) {
        Ok(GenerateOutcome::Written { report, outcome }) => {
            assert!(report.diagnostics.is_empty(), "{}", render(&report));
            outcome.written
        }
        other => panic!("{other:?}"),
    };
    let read = |path: &str| fs::read_to_string(out.join(path)).unwrap();
    assert!(read("include/kfam/kfam.h").contains("\n#define KFAM_MAX_PREPARED 64\n"));
    assert!(read("python/kfam/_abi.py").contains("\nMAX_PREPARED: Final[int] = 64\n"));
    assert!(read("rust/tables.rs").contains(", max_prepared: 64, status: ["));
    // Every output equals the committed one (the same layout, `manifest/`
    // beside `generated/`, so the same banners).
    assert!(written.len() > 30, "{written:?}");
    for path in &written {
        let committed = fs::read_to_string(root().join("generated").join(path))
            .unwrap()
            .replace("\r\n", "\n");
        assert!(
            read(path) == committed,
            "{path} differs from generated/{path}"
        );
    }
}

/// Every `abi.toml` in a shape an earlier kfam accepted (`tests/format/`)
/// still checks clean against the shipped families, with the defaults of
/// the keys it predates.
#[test]
fn every_earlier_abi_shape_still_checks() {
    let mut seen = 0;
    for entry in fs::read_dir(root().join("tests/format")).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_str().unwrap().to_owned();
        if !(name.starts_with("abi-") && name.ends_with(".toml")) {
            continue;
        }
        seen += 1;
        let dir = tempfile::tempdir().unwrap();
        let abi = fs::read_to_string(&path).unwrap();
        let manifest = manifest_with_abi(dir.path(), &abi);
        let (ir, report) = kfam_codegen::check_dir_ungated(&manifest);
        assert!(
            report.diagnostics.is_empty(),
            "{name}:\n{}",
            render(&report)
        );
        let ir = ir.unwrap();
        // Each key the shape predates takes its default.
        if !abi.contains("max_prepared") {
            assert_eq!(ir.abi.max_prepared, DEFAULT_MAX_PREPARED, "{name}");
        }
        if !abi.contains("[catalog]") {
            assert_eq!(ir.catalog, kfam_codegen::ir::Catalog::default(), "{name}");
        }
    }
    assert!(seen >= 1, "no abi-*.toml in tests/format/");
}

/// A declared `max_prepared` still wins over the default, and is still
/// checked (KF0007 out of 1..=65535).
#[test]
fn a_declared_max_prepared_is_still_read_and_checked() {
    let shipped = fs::read_to_string(root().join("manifest/abi.toml")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    // Lowering an approved limit is an ABI break: the gate wants `major`
    // raised with it (KF1110).
    let shipped = shipped.replacen("major = 3", "major = 4", 1);
    let manifest = manifest_with_abi(
        dir.path(),
        &shipped.replacen("max_prepared = 64", "max_prepared = 8", 1),
    );
    let (ir, report) = check_dir(&manifest);
    assert!(report.diagnostics.is_empty(), "{}", render(&report));
    assert_eq!(ir.unwrap().abi.max_prepared, 8);
    fs::write(
        manifest.join("abi.toml"),
        shipped.replacen("max_prepared = 64", "max_prepared = 0", 1),
    )
    .unwrap();
    let (ir, report) = check_dir(&manifest);
    assert!(ir.is_none());
    let codes: Vec<&str> = report.diagnostics.iter().map(|d| d.code.as_str()).collect();
    assert_eq!(codes, ["KF0007"], "{}", render(&report));
}
