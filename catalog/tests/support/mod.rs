//! What several suites share.

pub mod conformance_c;
pub mod libraries;

use std::path::{Path, PathBuf};

/// The workspace's root (the shipped manifest, `tests/`, `generated/`).
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the crate is in the workspace")
        .to_path_buf()
}
