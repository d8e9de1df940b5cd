//! `kfam lsp` end to end: `tests/lsp/test_lsp.py` drives the built binary
//! over stdio with a real LSP client (pytest-lsp): diagnostics at their
//! ranges and cleared when fixed, hover, completion, definition, references
//! and every quick fix, on the shipped families.

use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("codegen/ has a parent")
        .to_path_buf()
}

/// `python3` (with pytest and pytest-lsp) with a clean environment for
/// imports and no bytecode written into the source tree.
fn python() -> Command {
    let mut c = Command::new("python3");
    c.env("PYTHONDONTWRITEBYTECODE", "1")
        .env("PYTHONNOUSERSITE", "1")
        .env_remove("PYTHONPATH");
    c
}

#[test]
fn language_server_over_stdio() {
    let out = python()
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
        .args([
            "-o",
            "asyncio_default_fixture_loop_scope=function",
            "tests/lsp",
        ])
        .env("KFAM_BIN", env!("CARGO_BIN_EXE_kfam"))
        .current_dir(repo())
        .output()
        .unwrap_or_else(|e| match e.kind() {
            ErrorKind::NotFound => panic!("`python3` (with pytest and pytest-lsp) is not on PATH"),
            _ => panic!("cannot run python3: {e}"),
        });
    assert!(
        out.status.success(),
        "tests/lsp failed\n--- stdout\n{}\n--- stderr\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}
