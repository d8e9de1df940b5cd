//! The language server's check of one file (`live::Manifest::check_file`)
//! reports exactly what `kfam check` reports for that file: the same rules,
//! run by the same code, on every manifest directory of the test fixtures.

use std::fs;
use std::path::PathBuf;

use crate::support::root;
use annotate_snippets::Renderer;
use kfam_codegen::diag::{Location, Report, SourceMap};
use kfam_codegen::live::Manifest;

/// Every manifest directory (with `abi.toml` and `families/`) among the
/// fixtures, and the shipped manifest.
fn manifests() -> Vec<PathBuf> {
    let mut out = vec![root().join("manifest"), root().join("tests/ci/manifest")];
    for top in ["tests/diagnostics", "tests/review"] {
        for group in fs::read_dir(root().join(top)).unwrap().flatten() {
            for case in fs::read_dir(group.path()).into_iter().flatten().flatten() {
                let p = case.path();
                if p.join("abi.toml").is_file() && p.join("families").is_dir() {
                    out.push(p);
                }
            }
        }
    }
    out.sort();
    out
}

fn rendered<'a>(
    diagnostics: impl Iterator<Item = &'a kfam_codegen::diag::Diagnostic>,
    sources: &SourceMap,
) -> Vec<String> {
    diagnostics
        .map(|d| d.render(sources, &Renderer::plain()))
        .collect()
}

#[test]
fn one_file_is_checked_as_kfam_check_checks_it() {
    let roots = manifests();
    assert!(roots.len() >= 20, "{roots:?}");
    let mut compared = 0;
    for root in roots {
        let (_, report): (_, Report) = kfam_codegen::check_dir(&root);
        let mut manifest = Manifest::open(&root);
        let mut files: Vec<PathBuf> = fs::read_dir(root.join("families"))
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "toml"))
            .collect();
        files.sort();
        for path in files {
            let Ok(text) = fs::read_to_string(&path) else {
                continue; // not UTF-8: a load error of the manifest, not of a buffer
            };
            let shown = path.to_string_lossy().into_owned();
            let expected = rendered(
                report.diagnostics.iter().filter(|d| match &d.location {
                    Location::Span { file, .. } => report.sources.get(*file).path == shown,
                    Location::Path(p) => *p == shown,
                }),
                &report.sources,
            );
            let checked = manifest.check_file(&path, text);
            let actual = rendered(checked.diagnostics.iter(), manifest.sources());
            assert_eq!(actual, expected, "{shown}");
            compared += 1;
        }
    }
    assert!(compared >= 40, "only {compared} files compared");
}
