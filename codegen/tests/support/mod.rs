//! What several suites share: the workspace's root, running processes,
//! copying trees, the property-test seed and the literal decoders.

pub mod graph;
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

/// A crate outside the workspace, made as a team makes one: `src/`, and a
/// `Cargo.toml` of `name` with `tables` (its `[dependencies]` and any
/// other tables) and an empty `[workspace]`, so that it is no member of
/// this one.
pub fn team_crate(dir: &Path, name: &str, tables: &str) {
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::write(
        dir.join("Cargo.toml"),
        format!(
            "[package]\nname = \"{name}\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\
             publish = false\n\n{tables}\n[workspace]\n"
        ),
    )
    .unwrap();
}

/// The workspace member `member` (`runtime`, `codegen`) as a TOML string,
/// for a path dependency.
pub fn member_path(member: &str) -> String {
    format!("{:?}", root().join(member).display().to_string())
}
