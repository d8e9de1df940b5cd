//! The C ABI, as C and C++ programs see it: tests/c/abi_main.c (with the
//! docs' tests/c/runtime_example.c) links against the static and the shared
//! library of the catalog, each both as cargo builds it from Rust and as a
//! C/C++ team builds it (the generated C unit over the prebuilt runtime),
//! built as C99 and as C++17 with warnings as errors, and calls every
//! exported function. gcc and g++ must be installed: a missing compiler
//! fails the test.

use std::path::Path;
use std::process::Command;

use crate::support::libraries;

use crate::support::root;
use libraries::{deps_dir as lib_dir, Built, BOTH};

fn build(library: &Built, compiler: &str, std: &str, shared: bool, out: &Path) {
    let r = root();
    let mut cmd = Command::new(compiler);
    cmd.args([std, "-Wall", "-Wextra", "-Werror", "-pedantic", "-o"])
        .arg(out);
    cmd.arg("-I").arg(r.join("generated/include"));
    if compiler == "g++" {
        cmd.args(["-x", "c++"]);
    }
    cmd.arg(r.join("tests/c/abi_main.c"))
        .arg(r.join("tests/c/runtime_example.c"));
    if compiler == "g++" {
        cmd.args(["-x", "none"]);
    }
    cmd.args(library.link_args(shared));
    let output = cmd
        .output()
        .unwrap_or_else(|e| panic!("{compiler} is required for this test: {e}"));
    assert!(
        output.status.success(),
        "{compiler} {std} (shared: {shared}) failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn c_and_cpp_programs_call_every_function() {
    let (family, profile, receipt) = kfam_catalog::CATALOG
        .find_artifact(
            kfam_catalog::CATALOG
                .find("add_bf16_1024")
                .unwrap()
                .receipts[0]
                .sha256,
        )
        .unwrap();
    let example = root().join(format!(
        "generated/schema/examples/{}.{}.compiled_meta.json",
        family.name, profile.name
    ));
    let dir = tempfile::tempdir().unwrap();
    for library in BOTH {
        let built = libraries::shipped(library, dir.path());
        for (compiler, std) in [("gcc", "-std=c99"), ("g++", "-std=c++17")] {
            for shared in [false, true] {
                let exe = dir
                    .path()
                    .join(format!("abi-{library:?}-{compiler}-{shared}"));
                build(&built, compiler, std, shared, &exe);
                // The program finds the library by its SONAME, as an installed
                // library is found (`libkfam_catalog.so.MAJOR`, docs/c.md).
                // cargo's LD_LIBRARY_PATH also names target/<profile>, where
                // `cargo build` leaves a copy that may be older than this
                // test's: load the one the library was built as.
                let out = Command::new(&exe)
                    .env("LD_LIBRARY_PATH", &built.dir)
                    .arg(&example)
                    .arg(receipt.sha256)
                    .output()
                    .unwrap();
                let stdout = String::from_utf8_lossy(&out.stdout);
                assert!(
                    out.status.success(),
                    "{}: {stdout}\n{}",
                    exe.display(),
                    String::from_utf8_lossy(&out.stderr)
                );
                let expected = [
                format!("library_table 0 families {}", kfam_catalog::FAMILIES.len()),
                "library_table(NULL) invalid_argument".to_owned(),
                "check_library 0".to_owned(),
                format!(
                    "own_tables families {} first {} same 1",
                    kfam_catalog::FAMILIES.len(),
                    kfam_catalog::FAMILIES[0].name
                ),
                format!(
                    "paired {0} of {0}",
                    kfam_catalog::FAMILIES.len()
                ),
                "find_family ok add_bf16_1024".to_owned(),
                "find_family unknown not_found".to_owned(),
                "find_artifact ok add_bf16_1024".to_owned(),
                "find_artifact bad invalid_argument".to_owned(),
                format!("add_bf16_1024 r1 on xdna2_onboard: {}", receipt.artifact),
                format!("torch: {}", family.torch_schema.unwrap()),
                "describe 0".to_owned(),
                "capability ok supported a2a3_sim".to_owned(),
                "capability xdna2 unsupported no_profile".to_owned(),
                "capability small struct invalid_argument".to_owned(),
                "admit ok admitted".to_owned(),
                "admit truncated invalid_argument malformed".to_owned(),
                "admit_message truncated invalid_argument malformed: `lowered_params` is not strict JSON".to_owned(),
                "admit_message needed ok 1".to_owned(),
                "example admit 0".to_owned(),
                "refusal failures 0".to_owned(),
                "validate add 0".to_owned(),
                "validate scalars only -1".to_owned(),
                "call refusal failures 0".to_owned(),
                format!("torch_schema ok {}", family.torch_schema.unwrap()),
                "torch_schema unknown not_found".to_owned(),
            ];
                for line in &expected {
                    assert!(
                        stdout.lines().any(|l| l == line),
                        "{}: missing `{line}` in:\n{stdout}",
                        exe.display()
                    );
                }
            }
        }
    }
}

/// The shared library's SONAME names the ABI major, so the dynamic loader
/// refuses to pair a program with a library of another major.
#[test]
fn shared_library_soname_carries_the_abi_major() {
    let lib = lib_dir().join("libkfam_catalog.so");
    let out = Command::new("readelf")
        .arg("-d")
        .arg(&lib)
        .output()
        .unwrap_or_else(|e| panic!("readelf (binutils, installed with gcc) is required: {e}"));
    assert!(out.status.success(), "readelf -d {}", lib.display());
    let dynamic = String::from_utf8_lossy(&out.stdout);
    let want = format!("[libkfam_catalog.so.{}]", kfam_catalog::ABI.major);
    assert!(
        dynamic
            .lines()
            .any(|l| l.contains("(SONAME)") && l.contains(&want)),
        "no SONAME {want} in:\n{dynamic}"
    );
}

/// The library's C tables and its Rust tables list the same families in the
/// same order (the C functions translate indices between them); the C
/// consumer above checks every family's pairing (`paired N of N`), this
/// the torch schemas the C functions read from the C records.
#[test]
fn c_and_rust_tables_agree() {
    for f in kfam_catalog::FAMILIES.iter().filter(|f| f.torch) {
        let name = std::ffi::CString::new(f.name).unwrap();
        let mut out = std::ptr::null();
        let status = unsafe { kfam_catalog::c_abi::find_family(name.as_ptr(), &mut out) };
        assert_eq!(status, 0);
        let mut schema = std::ptr::null();
        let status = unsafe { kfam_catalog::c_abi::torch_schema(name.as_ptr(), &mut schema) };
        assert_eq!(status, 0);
        let schema = unsafe { std::ffi::CStr::from_ptr(schema) }
            .to_str()
            .unwrap();
        assert_eq!(Some(schema), f.torch_schema, "{}", f.name);
    }
}
