//! `kfam lsp` end to end: `tests/lsp/test_lsp.py` drives the built binary
//! over stdio with a real LSP client (pytest-lsp): diagnostics at their
//! ranges and cleared when fixed, hover, completion, definition, references
//! and every quick fix, on the shipped families.

use crate::support::root;
use std::process::Command;

/// The test environment's Python (pytest and pytest-lsp, provisioned on
/// first use by `kfam-testenv`), with no bytecode written into the tree.
fn python() -> Command {
    kfam_testenv::python()
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
        .current_dir(root())
        .output()
        .unwrap_or_else(|e| panic!("cannot run the test environment's python: {e}"));
    assert!(
        out.status.success(),
        "tests/lsp failed\n--- stdout\n{}\n--- stderr\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}
