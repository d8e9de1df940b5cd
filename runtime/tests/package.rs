//! The published crates package: `cargo package` of kfam-codegen,
//! kfam-macros, kfam-runtime and kfam-catalog succeeds (metadata, versioned
//! path dependencies, file lists), and cargo's verification builds each
//! from its unpacked `.crate` alone, so the runtime compiles from its own
//! contents (the generated records it ships) and the catalog from its own
//! manifest, never from the workspace's `generated/` or `manifest/`
//! (docs/rust.md, "Packaging"). `cargo install` of the CLI from its
//! packaged crate then works and runs.

use crate::support::root;
use std::path::Path;
use std::process::Command;

const PUBLISHED: [&str; 4] = [
    "kfam-codegen",
    "kfam-macros",
    "kfam-runtime",
    "kfam-catalog",
];

/// The verification builds where the team crates of the other suites do
/// (`kfam_testenv::team_cargo`: the same directory, profile and flags), so
/// the dependencies they share are built once; not in the workspace's
/// target directory, since it builds kfam-catalog from its package, and
/// its shared library's file name carries no hash, so there it would
/// replace the one the C tests link. The packaged crates come from cargo's
/// overlay registry: package ids of their own, beside the team crates'
/// path builds of the same crates.
fn cargo_package(extra: &[&str]) -> String {
    let mut cmd = kfam_testenv::team_cargo();
    cmd.current_dir(root())
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
/// `$CARGO_HOME/registry/src/-HASH/NAME-VERSION/` once, with the fixed
/// timestamps of a `.crate`, so in the target directory a second run with
/// changed sources but the same version would find the first run's builds
/// fresh and verify the first run's code. The extracted sources, the
/// packages and every build of a kfam crate in the target directory (the
/// team crates' too, which rebuild theirs when they next run) are removed
/// first, so every run verifies what is packaged now; the dependencies'
/// builds stay.
fn forget_earlier_packages(target: &Path) {
    let _ = std::fs::remove_dir_all(target.join("package"));
    for dir in ["debug/.fingerprint", "debug/build"] {
        for entry in std::fs::read_dir(target.join(dir))
            .into_iter()
            .flatten()
            .flatten()
        {
            let name = entry.file_name().to_string_lossy().into_owned();
            if PUBLISHED.iter().any(|p| {
                name.strip_prefix(p)
                    .and_then(|rest| rest.strip_prefix('-'))
                    .is_some_and(|hash| hash.bytes().all(|b| b.is_ascii_hexdigit()))
            }) {
                let _ = std::fs::remove_dir_all(entry.path());
            }
        }
    }
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
    forget_earlier_packages(&kfam_testenv::team_target());
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
                && !f.starts_with("python/")
                && !f.starts_with("generated/python")
                && !f.starts_with("generated/schema"),
            "a package holds {f}"
        );
    }
    cargo_package(&[]);
    install_the_cli_from_its_package();
}

/// `cargo install` of the `kfam` binary from kfam-codegen's package, as a
/// user would from crates.io: the unpacked `.crate` alone (with its
/// packaged `Cargo.lock`), into a fresh root, and the installed binary
/// runs. In the target directory the verification built in (`debug/` of
/// `CARGO_TARGET_DIR`; `package/` holds only the `.crate` files and their
/// unpacked sources), with its profile, so the dependencies it built are
/// reused.
fn install_the_cli_from_its_package() {
    let target = kfam_testenv::team_target();
    let unpacked = target
        .join("package")
        .join(format!("kfam-codegen-{}", env!("CARGO_PKG_VERSION")));
    assert!(
        unpacked.join("Cargo.toml").is_file(),
        "no {}",
        unpacked.display()
    );
    let install = target.join("install-root");
    let _ = std::fs::remove_dir_all(&install);
    let out = kfam_testenv::team_cargo()
        .current_dir(&target)
        .args(["install", "--offline", "--locked", "--debug", "--path"])
        .arg(&unpacked)
        .arg("--root")
        .arg(&install)
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "cargo install from the package failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let kfam = install.join("bin").join("kfam");
    let version = Command::new(&kfam)
        .arg("--version")
        .output()
        .expect("kfam runs");
    assert!(version.status.success());
    assert_eq!(
        String::from_utf8_lossy(&version.stdout).trim(),
        format!("kfam {}", env!("CARGO_PKG_VERSION"))
    );
    // The installed binary checks the shipped manifest, away from the
    // workspace (it embeds everything it needs).
    let check = Command::new(&kfam)
        .current_dir(&install)
        .arg("check")
        .arg(root().join("manifest"))
        .output()
        .expect("kfam runs");
    assert!(
        check.status.success(),
        "installed kfam check failed:\n{}",
        String::from_utf8_lossy(&check.stderr)
    );
}
