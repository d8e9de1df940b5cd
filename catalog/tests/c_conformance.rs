//! The conformance vectors through the C ABI: every case of
//! tests/conformance/*.json becomes one function of a generated C program
//! (`support/conformance_c.rs`), which links the static library of this
//! repository's catalog, calls the exported functions and counts
//! agreements: once with the Rust-built library, once with the generated C
//! unit over the prebuilt runtime (libkfamrt). A new vector needs no change
//! here. gcc must be installed: a missing compiler fails the test.

use std::path::PathBuf;
use std::process::Command;

use crate::support::conformance_c;
use crate::support::libraries;
use crate::support::root;

#[test]
fn c_runner_agrees_with_every_vector() {
    let dir = std::env::var_os("KFAM_CONFORMANCE_DIR")
        .map_or_else(|| root().join("tests/conformance"), PathBuf::from);
    let cases = conformance_c::cases(&dir);
    let (src, expected) = conformance_c::program(&cases, &kfam_catalog::CATALOG, "kfam");
    let dir = tempfile::tempdir().unwrap();
    let c_file = dir.path().join("conformance.c");
    std::fs::write(&c_file, &src).unwrap();
    for library in libraries::BOTH {
        let built = libraries::shipped(library, dir.path());
        let exe = dir.path().join(format!("conformance-{library:?}"));
        let out = Command::new("gcc")
            .args([
                "-std=c99",
                "-Wall",
                "-Wextra",
                "-Werror",
                "-Wno-overlength-strings",
                "-o",
            ])
            .arg(&exe)
            .arg("-I")
            .arg(root().join("generated/include"))
            .arg(&c_file)
            .args(built.link_args(false))
            .output()
            .expect("gcc is required for the C conformance runner");
        assert!(
            out.status.success(),
            "gcc failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let run = Command::new(&exe).output().unwrap();
        let stdout = String::from_utf8_lossy(&run.stdout);
        assert!(
            stdout.lines().any(|l| l == expected),
            "C runner disagrees through the {library:?} library:\n{stdout}"
        );
    }
    println!("C runner: {expected}");
}
