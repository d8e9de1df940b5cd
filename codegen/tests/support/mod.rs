//! What several suites share: the workspace's root, running processes,
//! copying trees, the property-test seed and the literal decoders.

pub mod literals;
pub mod process;
pub mod seeded;
pub mod tree;
/// The fuzz crate's well-formed-input generators, shared with the tests.
#[path = "../../../fuzz/src/wellformed.rs"]
pub mod wellformed;

use std::path::{Path, PathBuf};

/// The workspace's root (the shipped manifest, `tests/`, `generated/`).
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("codegen/ has a parent")
        .to_path_buf()
}
