//! The published crates package: `cargo package` of kfam-codegen,
//! kfam-macros, kfam-runtime and kfam-catalog succeeds (metadata, versioned
//! path dependencies, file lists), and cargo's verification builds each
//! from its unpacked `.crate` alone, so the runtime compiles from its own
//! contents (the generated records it ships) and the catalog from its own
//! manifest, never from the workspace's `generated/` or `manifest/`
//! (docs/rust.md, "Packaging").

use std::path::Path;
use std::process::Command;

const PUBLISHED: [&str; 4] = [
    "kfam-codegen",
    "kfam-macros",
    "kfam-runtime",
    "kfam-catalog",
];

fn workspace() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

fn cargo_package(extra: &[&str]) -> String {
    let mut cmd = Command::new(env!("CARGO"));
    // A target directory of its own: the verification builds kfam-catalog
    // from its package, and its shared library's file name carries no hash,
    // so in the workspace's target directory it would replace the one the
    // C tests link.
    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).join("package");
    cmd.current_dir(workspace())
        .env("CARGO_TARGET_DIR", &target)
        .args(["package", "--offline", "--allow-dirty", "--locked"]);
    for p in PUBLISHED {
        cmd.args(["-p", p]);
    }
    let out = cmd.args(extra).output().expect("cargo runs");
    assert!(
        out.status.success(),
        "cargo package {extra:?} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// What each package holds (the sources and what they include, nothing the
/// workspace's tests read), then packaging with verification: each crate
/// builds from its `.crate` (cargo resolves the three against a local
/// overlay registry of their packages). One test: two `cargo package` runs
/// at once would share `target/package/`.
/// cargo extracts the packages of its local overlay registry into
/// `$CARGO_HOME/registry/src/-HASH/NAME-VERSION/` once, and builds them in
/// the target directory as immutable registry crates: a second run with
/// changed sources but the same version would verify the first run's code.
/// Both are removed first, so every run verifies what is packaged now.
fn forget_earlier_packages(target: &Path) {
    let _ = std::fs::remove_dir_all(target);
    let home = std::env::var_os("CARGO_HOME")
        .map(std::path::PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cargo")));
    let Some(src) = home.map(|h| h.join("registry/src")) else {
        return;
    };
    for registry in std::fs::read_dir(src).into_iter().flatten().flatten() {
        // Overlay registries have no host name: `-HASH`.
        if !registry.file_name().to_string_lossy().starts_with('-') {
            continue;
        }
        for p in PUBLISHED {
            let dir = registry
                .path()
                .join(format!("{p}-{}", env!("CARGO_PKG_VERSION")));
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

#[test]
fn published_crates_package_and_build_alone() {
    forget_earlier_packages(&Path::new(env!("CARGO_TARGET_TMPDIR")).join("package"));
    let list = cargo_package(&["--list"]);
    let files: Vec<&str> = list.lines().collect();
    for needed in [
        "build.rs",
        "c/shim.c",
        "generated/rust/vocab.rs",
        "generated/rust/records.rs",
        "generated/rust/lookup_hash.rs",
        "generated/rust/ffi_records.rs",
        "manifest/abi.toml",
        "manifest/approved.lock",
        "manifest/retired.toml",
        "manifest/families/add_bf16_1024.toml",
        "src/lib.rs",
        "src/c_abi.rs",
        "src/expand.rs",
        "python/kfam/torch.py",
        "README.md",
        "LICENSE",
    ] {
        assert!(
            files.contains(&needed),
            "no package holds {needed}: {files:?}"
        );
    }
    for f in &files {
        assert!(
            !f.starts_with("tests/")
                && !f.starts_with("benches/")
                && !f.starts_with("generated/python")
                && !f.starts_with("generated/schema"),
            "a package holds {f}"
        );
    }
    cargo_package(&[]);
}
