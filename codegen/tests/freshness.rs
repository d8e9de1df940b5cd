//! `generated/` must be exactly what the generator makes of `manifest/`: the
//! committed outputs are the golden files. `KFAM_BLESS=1 cargo test` rewrites
//! them (review with `git diff`), as `kfam generate` does.

use std::path::Path;

use kfam_codegen::{generate_dir, GenerateError, GenerateOutcome};

#[test]
fn generated_is_fresh() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let bless = std::env::var_os("KFAM_BLESS").is_some_and(|v| v == "1");
    match generate_dir(&root.join("manifest"), &root.join("generated"), !bless) {
        Ok(GenerateOutcome::Checked { problems, .. }) => {
            let list: Vec<String> = problems.iter().map(ToString::to_string).collect();
            assert!(
                list.is_empty(),
                "generated/ is not up to date:\n  {}\nrun `cargo run --bin kfam -- generate` (or KFAM_BLESS=1 cargo test) and review the diff",
                list.join("\n  ")
            );
        }
        Ok(GenerateOutcome::Written { .. }) => {}
        Err(GenerateError::Manifest(report)) => {
            panic!(
                "the shipped manifest has errors:\n{}",
                report.render_human(&annotate_snippets::Renderer::plain())
            )
        }
        Err(GenerateError::Write(e)) => panic!("{e}"),
        Err(GenerateError::LockStale { lock, .. }) => {
            panic!("{} is stale (a locked run only)", lock.display())
        }
    }
}

#[test]
fn generation_is_deterministic_and_marked() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let (ir, _) = kfam_codegen::check_dir(&root.join("manifest"));
    let ir = ir.expect("shipped manifest is clean");
    let a = kfam_codegen::emit::generate(&ir);
    let b = kfam_codegen::emit::generate(&ir);
    assert_eq!(a, b);
    for f in &a {
        assert!(!f.contents.contains('\r'), "{} has CR line endings", f.path);
        let head: String = f.contents.chars().take(256).collect();
        assert!(
            head.contains(kfam_codegen::emit::MARKER),
            "{} lacks the @generated marker near its start",
            f.path
        );
    }
}
