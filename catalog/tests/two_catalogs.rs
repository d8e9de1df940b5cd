//! Two catalogs in one C++ process, each from its own library, found with
//! CMake and with pkg-config (docs/c.md, "A catalog's own library"):
//! this repository's (kfam, libkfam_catalog) and a team's catalog outside
//! the workspace (npuops: its own C prefix, platforms and status codes),
//! whose library a small crate builds with `kfam_codegen::build`'s
//! `c_abi`. Capability, admission and call validation answer over each
//! catalog in its own codes; a program compiled with a header of another
//! version of a catalog than its library is refused, naming both; a header
//! whose library is not linked fails at link time.
//!
//! The conformance vectors written for the second catalog
//! (`tests/conformance/npuops/`) run through its library too.
//!
//! cmake and ninja are the pinned wheels of the test environment; gcc, g++
//! and pkg-config must be installed (a missing tool fails the test).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::support::conformance_c;
use crate::support::libraries;
use crate::support::root;

/// The second catalog, embedded as its Rust users would (`manifest!` of
/// the same directory the test copies).
mod npuops {
    kfam_runtime::manifest!("../tests/catalogs/npuops");
}

fn run(cmd: &mut Command) -> Output {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?} failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// The team's catalog crate: `build.rs` with the C ABI, a `cdylib`. Named
/// unlike its catalog (`npuops-kernels`): the library's SONAME follows the
/// catalog (`libnpuops_catalog.so.1`), the name its CMake and pkg-config
/// files link, so the program finds the installed library at run time.
fn team_crate(dir: &Path) {
    let path = |p: &str| root().join(p).display().to_string();
    fs::create_dir_all(dir.join("src")).unwrap();
    fs::write(
        dir.join("Cargo.toml"),
        format!(
            "[package]\nname = \"npuops-kernels\"\nversion = \"0.1.0\"\nedition = \"2021\"\npublish = false\n\n\
             [lib]\ncrate-type = [\"cdylib\"]\n\n\
             [dependencies]\nkfam-runtime = {{ path = {runtime:?} }}\n\n\
             [build-dependencies]\nkfam-codegen = {{ path = {codegen:?}, default-features = false }}\n\n\
             [workspace]\n",
            runtime = path("runtime"),
            codegen = path("codegen"),
        ),
    )
    .unwrap();
    fs::copy(root().join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();
    fs::write(
        dir.join("build.rs"),
        "fn main() {\n    kfam_codegen::build::Builder::new(\"../manifest\")\n        .c_abi(true)\n        .compile()\n        .unwrap();\n}\n",
    )
    .unwrap();
    fs::write(
        dir.join("src/lib.rs"),
        "include!(concat!(env!(\"OUT_DIR\"), \"/kfam_catalog.rs\"));\n",
    )
    .unwrap();
}

/// Build the team's library; its path.
fn build_team_library(krate: &Path) -> PathBuf {
    // Shared with codegen's tests of crates outside the workspace: one
    // build of the kfam crates.
    run(kfam_testenv::team_cargo()
        .current_dir(krate)
        .args(["build", "--offline", "--quiet"]));
    kfam_testenv::team_target().join("debug/libnpuops_kernels.so")
}

/// An install prefix: the catalog's headers and package files (its C
/// output) and its shared library under its SONAME, with the link name.
fn install(prefix: &Path, c_output: &Path, library: &Path, name: &str, major: u16) {
    copy_dir(&c_output.join("include"), &prefix.join("include"));
    copy_dir(&c_output.join("lib"), &prefix.join("lib"));
    let soname = format!("lib{name}_catalog.so.{major}");
    fs::copy(library, prefix.join("lib").join(&soname)).unwrap();
    std::os::unix::fs::symlink(&soname, prefix.join(format!("lib/lib{name}_catalog.so"))).unwrap();
}

/// One receipt's example `compiled_meta.json` and digest.
fn example(generated: &Path, family: &str, profile: &str, sha256: &str) -> [String; 2] {
    let meta = generated.join(format!(
        "schema/examples/{family}.{profile}.compiled_meta.json"
    ));
    assert!(meta.is_file(), "{} was not generated", meta.display());
    [meta.display().to_string(), sha256.to_owned()]
}

#[test]
fn a_cpp_program_decides_over_two_catalogs_found_with_cmake_and_pkg_config() {
    // cmake and ninja, provisioned (on a fresh machine, the test
    // environment's install) while the team's crate builds below.
    let tools = std::thread::spawn(|| {
        (
            kfam_testenv::venv_bin("cmake"),
            kfam_testenv::venv_bin("ninja"),
        )
    });
    let tmp = tempfile::tempdir().unwrap();
    let tmp = tmp.path();

    // The team's repository: its manifest and outputs, as `kfam generate`
    // writes them, and its catalog crate.
    let team = tmp.join("npuops");
    copy_dir(
        &root().join("tests/catalogs/npuops"),
        &team.join("manifest"),
    );
    kfam_codegen::generate_dir(&team.join("manifest"), &team.join("generated"), false)
        .unwrap_or_else(|e| panic!("the team's catalog generates: {e:?}"));
    team_crate(&team.join("crate"));
    let team_library = build_team_library(&team.join("crate"));

    // Both installed, as a package manager or `cmake --install` would.
    let kfam_prefix = tmp.join("kfam-prefix");
    let team_prefix = tmp.join("npuops-prefix");
    let kfam_library = std::env::current_exe()
        .unwrap()
        .parent()
        .unwrap()
        .join("libkfam_catalog.so");
    install(
        &kfam_prefix,
        &root().join("generated"),
        &kfam_library,
        "kfam",
        kfam_catalog::ABI.major,
    );
    install(
        &team_prefix,
        &team.join("generated"),
        &team_library,
        "npuops",
        1,
    );
    let library_path = format!(
        "{}:{}",
        kfam_prefix.join("lib").display(),
        team_prefix.join("lib").display()
    );

    // The arguments: one artifact of each catalog.
    let kfam_add = kfam_catalog::CATALOG.find("add_bf16_1024").unwrap();
    let kfam_receipt = &kfam_add.receipts[0];
    let mut args = example(
        &root().join("generated"),
        kfam_add.name,
        kfam_add.profiles[kfam_receipt.profile as usize].name,
        kfam_receipt.sha256,
    )
    .to_vec();
    args.extend(example(
        &team.join("generated"),
        "scale_ok",
        "npu_onboard",
        &"ab".repeat(32),
    ));
    let expected = "check kfam ok\n\
                    check npuops ok\n\
                    kfam capability 0 supported xdna2_onboard\n\
                    npuops capability 0 supported npu_onboard\n\
                    kfam unknown -1005 not_found\n\
                    npuops unknown -6 not_found\n\
                    kfam admit 0 admitted add_bf16_1024\n\
                    npuops admit 0 admitted scale_ok\n\
                    npuops admit kfam's -5 malformed\n\
                    kfam call 0 ok\n\
                    npuops call 0 ok\n\
                    npuops bad call -5 dtype param 1\n\
                    npuops foreign record -6 not_found\n";

    // CMake: find_package of both installs.
    let build = tmp.join("build");
    let (cmake, ninja) = tools
        .join()
        .expect("the test environment's cmake and ninja");
    run(Command::new(&cmake)
        .arg("-S")
        .arg(root().join("tests/c/two_catalogs"))
        .arg("-B")
        .arg(&build)
        .args(["-G", "Ninja"])
        .arg(format!("-DCMAKE_MAKE_PROGRAM={}", ninja.display()))
        .arg("-DCMAKE_CXX_COMPILER=g++")
        .arg(format!(
            "-DCMAKE_PREFIX_PATH={};{}",
            kfam_prefix.display(),
            team_prefix.display()
        )));
    run(Command::new(&cmake).arg("--build").arg(&build));
    let out = run(Command::new(build.join("two_catalogs"))
        .env("LD_LIBRARY_PATH", &library_path)
        .args(&args));
    assert_eq!(String::from_utf8_lossy(&out.stdout), expected);

    // pkg-config: the same program with the flags of both `.pc` files.
    let pc_path = format!(
        "{}:{}",
        kfam_prefix.join("lib/pkgconfig").display(),
        team_prefix.join("lib/pkgconfig").display()
    );
    let flags = run(Command::new("pkg-config")
        .env("PKG_CONFIG_PATH", &pc_path)
        .args(["--cflags", "--libs", "kfam", "npuops"]));
    let flags = String::from_utf8(flags.stdout).unwrap();
    let exe = tmp.join("two_catalogs_pc");
    run(Command::new("g++")
        .args(["-std=c++17", "-Wall", "-Wextra", "-Werror", "-pedantic"])
        .arg(root().join("tests/c/two_catalogs/main.cpp"))
        .args(flags.split_whitespace())
        .arg("-o")
        .arg(&exe));
    let out = run(Command::new(&exe)
        .env("LD_LIBRARY_PATH", &library_path)
        .args(&args));
    assert_eq!(String::from_utf8_lossy(&out.stdout), expected);

    // The vectors written for the second catalog, through its library, as
    // the Rust and Python runners run them over its tables and package.
    let cases = conformance_c::cases(&root().join("tests/conformance/npuops"));
    let (src, expected) = conformance_c::program(&cases, &npuops::CATALOG, "npuops");
    let c_file = tmp.join("conformance.c");
    fs::write(&c_file, src).unwrap();
    let conformance = tmp.join("conformance");
    run(Command::new("gcc")
        .args(["-std=c99", "-Wall", "-Wextra", "-Werror", "-o"])
        .arg(&conformance)
        .arg("-I")
        .arg(team_prefix.join("include"))
        .arg(&c_file)
        .arg("-L")
        .arg(team_prefix.join("lib"))
        .arg("-lnpuops_catalog")
        .arg("-lm"));
    let out = run(Command::new(&conformance).env("LD_LIBRARY_PATH", &library_path));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.lines().any(|l| l == expected),
        "the C runner disagrees over the second catalog:\n{stdout}"
    );

    // A stale header: the team adds a family and regenerates its headers,
    // but the program links the library built before. It is refused when
    // it checks the catalog, with a message naming both versions.
    let families = team.join("manifest/families");
    let scale = fs::read_to_string(families.join("scale_ok.toml")).unwrap();
    fs::write(
        families.join("scale_two.toml"),
        scale
            .replace("name = \"scale_ok\"", "name = \"scale_two\"")
            .replace(&"ab".repeat(32), &"cd".repeat(32)),
    )
    .unwrap();
    let newer = team.join("newer");
    kfam_codegen::generate_dir(&team.join("manifest"), &newer, false)
        .unwrap_or_else(|e| panic!("the team's newer catalog generates: {e:?}"));
    let stale = tmp.join("stale");
    run(Command::new("gcc")
        .args(["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic"])
        .arg("-I")
        .arg(newer.join("include"))
        .arg(root().join("tests/c/two_catalogs/stale.c"))
        .arg("-L")
        .arg(team_prefix.join("lib"))
        .arg("-lnpuops_catalog")
        .arg("-o")
        .arg(&stale));
    let out = Command::new(&stale)
        .env("LD_LIBRARY_PATH", &library_path)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    let header_digest = fs::read_to_string(newer.join("include/npuops/npuops.h")).unwrap();
    let header_digest = header_digest
        .lines()
        .find_map(|l| l.strip_prefix("#define NPUOPS_CATALOG_DIGEST \""))
        .expect("the header defines its digest");
    let library_digest = fs::read_to_string(team.join("generated/include/npuops/npuops.h"))
        .unwrap()
        .lines()
        .find_map(|l| {
            l.strip_prefix("#define NPUOPS_CATALOG_DIGEST \"")
                .map(str::to_owned)
        })
        .expect("the header defines its digest");
    assert_ne!(header_digest[..12], library_digest[..12]);
    assert!(text.starts_with("prepared_incompatible\n"), "{text}");
    assert!(
        text.contains(&format!(
            "header of catalog `npuops` (digest {})",
            &header_digest[..12]
        )) && text.contains(&format!(
            "this library serves catalog `npuops` (digest {})",
            &library_digest[..12]
        )),
        "{text}"
    );

    // A header whose library is not linked: the program does not link.
    let out = Command::new("gcc")
        .args(["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic"])
        .arg("-I")
        .arg(team.join("generated/include"))
        .arg(root().join("tests/c/two_catalogs/stale.c"))
        .arg("-L")
        .arg(kfam_prefix.join("lib"))
        .arg("-lkfam_catalog")
        .arg("-o")
        .arg(tmp.join("unlinked"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && stderr.contains("undefined reference to `npuops_check_catalog'"),
        "{stderr}"
    );
}

/// The vectors written for the second catalog, through the library a C/C++
/// team builds for it: its generated C unit over the prebuilt runtime.
#[test]
fn the_second_catalogs_vectors_pass_through_the_prebuilt_runtime() {
    let tmp = tempfile::tempdir().unwrap();
    let manifest = tmp.path().join("manifest");
    copy_dir(&root().join("tests/catalogs/npuops"), &manifest);
    let generated = tmp.path().join("generated");
    kfam_codegen::generate_dir(&manifest, &generated, false)
        .unwrap_or_else(|e| panic!("the team's catalog generates: {e:?}"));
    let built = libraries::build(
        libraries::Library::Prebuilt,
        "npuops",
        npuops::ABI.major,
        &generated.join("src/npuops_catalog.c"),
        &generated.join("include"),
        &tmp.path().join("lib"),
    );
    let cases = conformance_c::cases(&root().join("tests/conformance/npuops"));
    let (src, expected) = conformance_c::program(&cases, &npuops::CATALOG, "npuops");
    let c_file = tmp.path().join("conformance.c");
    fs::write(&c_file, src).unwrap();
    let exe = tmp.path().join("conformance");
    for shared in [true, false] {
        run(Command::new("gcc")
            .args(["-std=c99", "-Wall", "-Wextra", "-Werror", "-o"])
            .arg(&exe)
            .arg("-I")
            .arg(generated.join("include"))
            .arg(&c_file)
            .args(built.link_args(shared))
            .arg("-lm"));
        let out = run(Command::new(&exe).env("LD_LIBRARY_PATH", &built.dir));
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            stdout.lines().any(|l| l == expected),
            "the C runner disagrees over the second catalog (shared: {shared}):\n{stdout}"
        );
    }
}
