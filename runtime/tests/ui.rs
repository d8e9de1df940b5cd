//! trybuild: the `manifest!` macro accepts valid manifests and rejects each
//! kind of mistake with kfam's diagnostic. Cases live in `tests/ui/<category>/`
//! (`pass/` compiles and runs); `TRYBUILD=overwrite` refreshes the `.stderr`.

use std::path::Path;

#[test]
fn ui() {
    // trybuild compiles cases in a scratch crate; point the macro at this one.
    std::env::set_var("KFAM_MANIFEST_DIR_OVERRIDE", env!("CARGO_MANIFEST_DIR"));
    let ui = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/ui");
    let t = trybuild::TestCases::new();
    t.pass("../tests/ui/pass/*.rs");
    let mut categories: Vec<String> = std::fs::read_dir(&ui)
        .expect("tests/ui exists")
        .filter_map(Result::ok)
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|c| c != "pass")
        .collect();
    categories.sort();
    for c in categories {
        t.compile_fail(format!("../tests/ui/{c}/*.rs"));
    }
}

/// Every diagnostic code of the checker is pinned by at least one UI case,
/// so a new code without a case fails here.
#[test]
fn every_code_has_a_ui_case() {
    let ui = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/ui");
    let mut stderr = String::new();
    for category in std::fs::read_dir(&ui).unwrap().filter_map(Result::ok) {
        for case in std::fs::read_dir(category.path())
            .into_iter()
            .flatten()
            .filter_map(Result::ok)
        {
            if case.path().extension().is_some_and(|e| e == "stderr") {
                stderr.push_str(&std::fs::read_to_string(case.path()).unwrap());
            }
        }
    }
    let missing: Vec<&str> = kfam_codegen::diag::Code::ALL
        .iter()
        .map(|c| c.as_str())
        .filter(|c| !stderr.contains(&format!("[{c}]")))
        .collect();
    assert!(
        missing.is_empty(),
        "codes without a UI case in tests/ui: {missing:?}"
    );
}
