//! With the `wheel` feature only (which `codegen/pyproject.toml` turns on,
//! so `maturin build` and `pip wheel codegen/` do): build kfam's prebuilt
//! native runtime and stage what the `kfam-cli` wheel installs beside the
//! `kfam` binary into maturin's `data` directory, `codegen/wheel-data/`
//! (committed with only the `.gitignore` that ignores the rest: maturin
//! wants the directory before it builds), which pip installs into the
//! environment's prefix:
//!
//! ```text
//! data/lib/libkfamrt.so.1                 the shared runtime (its SONAME)
//! data/lib/libkfamrt.a                    the static runtime, debug info stripped
//! data/lib/cmake/kfam/kfam-config.cmake   kfam::runtime, kfam_add_catalog()
//! data/lib/cmake/kfam/kfam-config-version.cmake
//! data/lib/pkgconfig/kfamrt.pc
//! ```
//!
//! The runtime is `cargo build --release -p kfam-native` for the target
//! this build compiles for, in a target directory of its own below
//! `OUT_DIR` (the build holds the lock of its own), with the environment
//! of this build: the linker maturin's `--zig` sets for the binary
//! (glibc 2.17 for `manylinux2014`) links the runtime too. Without the
//! feature (every other build of this crate, and the published crate)
//! nothing happens. docs/install.md.

use std::env;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    if env::var_os("CARGO_FEATURE_WHEEL").is_none() {
        return;
    }
    if let Err(e) = stage() {
        // A wheel without its runtime would install and then fail every
        // C++ team at `find_package(kfam)`: no wheel at all.
        eprintln!("error: the kfam-cli wheel's native runtime: {e}");
        std::process::exit(1);
    }
}

fn var(name: &str) -> Result<String, String> {
    env::var(name).map_err(|_| format!("cargo did not set {name}"))
}

fn run(cmd: &mut Command) -> Result<(), String> {
    let shown = format!("{cmd:?}");
    let status = cmd
        .status()
        .map_err(|e| format!("cannot run {shown}: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{shown} failed ({status})"))
    }
}

/// `#define KFAMRT_ABI N` of the runtime's C header: the SONAME's number.
fn runtime_abi(header: &Path) -> Result<String, String> {
    let text = fs::read_to_string(header).map_err(|e| format!("{}: {e}", header.display()))?;
    text.lines()
        .find_map(|l| l.strip_prefix("#define KFAMRT_ABI "))
        .map(|n| n.trim().to_owned())
        .ok_or_else(|| format!("{}: no `#define KFAMRT_ABI`", header.display()))
}

fn stage() -> Result<(), String> {
    let marker = stage_into()?;
    // A path this script writes and watches would rerun it, and rebuild
    // the crate, on every build: its mtime goes back once staged.
    fs::OpenOptions::new()
        .write(true)
        .open(&marker)
        .and_then(|f| f.set_modified(std::time::UNIX_EPOCH + std::time::Duration::from_secs(1)))
        .map_err(|e| format!("{}: {e}", marker.display()))
}

/// Stages `wheel-data/data/lib/` and returns its marker.
fn stage_into() -> Result<PathBuf, String> {
    let manifest_dir = PathBuf::from(var("CARGO_MANIFEST_DIR")?);
    let root = manifest_dir
        .parent()
        .ok_or("the crate has no parent directory")?
        .to_path_buf();
    let native = root.join("native");
    if !native.join("Cargo.toml").is_file() {
        return Err(format!(
            "no {}: the wheel is built from a checkout of kfam (`maturin build --release --zig` \
             in codegen/), not from the published crate or a source distribution",
            native.join("Cargo.toml").display()
        ));
    }
    for input in [
        "native/src",
        "native/build.rs",
        "native/Cargo.toml",
        "native/cmake",
        "runtime/src",
        "runtime/Cargo.toml",
        "Cargo.lock",
        "codegen/c/kfamrt.h",
        "codegen/src/emit/c/package/config-version.cmake",
    ] {
        println!("cargo::rerun-if-changed={}", root.join(input).display());
    }
    // The directory holds one target's files, with a marker that names
    // the target (left out of the wheel by codegen/pyproject.toml). This
    // script watches its own target's marker: when the directory is gone,
    // or a build for another target restaged it, the marker is missing and
    // the next build for this target stages again.
    let target = var("TARGET")?;
    let lib = manifest_dir.join("wheel-data/data/lib");
    let marker = lib.join(format!(".staged-for-{target}"));
    println!("cargo::rerun-if-changed={}", marker.display());
    if lib.exists() {
        fs::remove_dir_all(&lib).map_err(|e| format!("{}: {e}", lib.display()))?;
    }
    fs::create_dir_all(&lib).map_err(|e| format!("{}: {e}", lib.display()))?;
    fs::write(&marker, "").map_err(|e| format!("{}: {e}", marker.display()))?;

    if var("CARGO_CFG_TARGET_OS")? != "linux" {
        // The runtime and its CMake package are for Linux (libkfamrt.so.N);
        // elsewhere the wheel carries the binary alone (docs/install.md).
        println!(
            "cargo::warning=no prebuilt native runtime for {target}: the wheel carries the kfam binary alone"
        );
        return Ok(marker);
    }

    let abi = runtime_abi(&root.join("codegen/c/kfamrt.h"))?;
    let out = PathBuf::from(var("OUT_DIR")?);
    let target_dir = out.join("kfamrt");
    let cargo = env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut build = Command::new(cargo);
    build
        .current_dir(&root)
        .args(["build", "--release", "--locked", "-p", "kfam-native"])
        .arg("--manifest-path")
        .arg(root.join("Cargo.toml"))
        .arg("--target")
        .arg(&target)
        .arg("--target-dir")
        .arg(&target_dir)
        // This crate's features and profile are not the runtime's.
        .env_remove("CARGO_TARGET_DIR")
        .env_remove("CARGO_BUILD_TARGET");
    if var("CARGO_CFG_TARGET_ENV")? == "musl" {
        // A shared library links the C library dynamically.
        let mut flags = env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default();
        if !flags.is_empty() {
            flags.push('\x1f');
        }
        flags.push_str("-Ctarget-feature=-crt-static");
        build.env("CARGO_ENCODED_RUSTFLAGS", flags);
    }
    run(&mut build)?;
    let built = target_dir.join(&target).join("release");

    let cmake = lib.join("cmake/kfam");
    let pkgconfig = lib.join("pkgconfig");
    for dir in [&cmake, &pkgconfig] {
        fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    let shared = lib.join(format!("libkfamrt.so.{abi}"));
    fs::copy(built.join("libkfamrt.so"), &shared)
        .map_err(|e| format!("{}: {e}", built.join("libkfamrt.so").display()))?;
    // Most of a Rust static library is the standard library's debug
    // information: stripped, the archive is 15 MB instead of 24, and a
    // program linking it 2 MB instead of 6. The host's `strip` reads the
    // host architecture's archives; another architecture's takes
    // `llvm-strip` (or `KFAM_STRIP`).
    println!("cargo::rerun-if-env-changed=KFAM_STRIP");
    let cross = var("CARGO_CFG_TARGET_ARCH")? != env::consts::ARCH;
    let strip = env::var("KFAM_STRIP")
        .unwrap_or_else(|_| if cross { "llvm-strip" } else { "strip" }.to_owned());
    run(Command::new(&strip)
        .arg("--strip-debug")
        .arg("-o")
        .arg(lib.join("libkfamrt.a"))
        .arg(built.join("libkfamrt.a")))
    .map_err(|e| format!("{e} (set KFAM_STRIP to a strip that reads {target} archives)"))?;

    let version = var("CARGO_PKG_VERSION")?;
    let fill = |template: &str| -> Result<String, String> {
        let path = root.join(template);
        let text = fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(text
            .replace(
                "@BANNER@",
                "installed by the kfam-cli wheel (built by codegen/build.rs): do not edit",
            )
            .replace("@NAME@", "kfam")
            .replace("@PREFIX@", "kfam")
            .replace("@VERSION@", &version)
            .replace("@ABI@", &abi))
    };
    let write = |path: PathBuf, text: String| {
        fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))
    };
    write(
        cmake.join("kfam-config.cmake"),
        fill("native/cmake/kfam-config.cmake")?,
    )?;
    write(
        cmake.join("kfam-config-version.cmake"),
        fill("codegen/src/emit/c/package/config-version.cmake")?,
    )?;
    write(pkgconfig.join("kfamrt.pc"), fill("native/cmake/kfamrt.pc")?)?;
    Ok(marker)
}
