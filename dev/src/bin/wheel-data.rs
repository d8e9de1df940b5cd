//! `cargo run -p kfam-dev --bin wheel-data`: stage what the `kfam-cli`
//! wheel installs beside the `kfam` binary (maturin's `data` directory,
//! `codegen/wheel-data/`, which pip installs into the environment's
//! prefix): the prebuilt runtime, built here in release mode, and kfam's
//! CMake and pkg-config packages. Then `maturin build --release` in
//! `codegen/` builds the wheel (docs/install.md).
//!
//! ```text
//! wheel-data/data/lib/libkfamrt.so.1                 the shared runtime (its SONAME)
//! wheel-data/data/lib/libkfamrt.a                    the static runtime, debug info stripped
//! wheel-data/data/lib/cmake/kfam/kfam-config.cmake   kfam::runtime, kfam_add_catalog()
//! wheel-data/data/lib/cmake/kfam/kfam-config-version.cmake
//! wheel-data/data/lib/pkgconfig/kfamrt.pc
//! ```

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

/// `KFAMRT_ABI` of `codegen/c/kfamrt.h`: the SONAME's number.
const ABI: &str = "1";
const VERSION: &str = env!("CARGO_PKG_VERSION");

const CONFIG: &str = include_str!("../../../native/cmake/kfam-config.cmake");
const CONFIG_VERSION: &str =
    include_str!("../../../codegen/src/emit/c/package/config-version.cmake");
const PKG_CONFIG: &str = include_str!("../../../native/cmake/kfamrt.pc");

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn fill(template: &str) -> String {
    template
        .replace(
            "@BANNER@",
            "installed by the kfam-cli wheel (cargo run -p kfam-dev --bin wheel-data): do not edit",
        )
        .replace("@NAME@", "kfam")
        .replace("@PREFIX@", "kfam")
        .replace("@VERSION@", VERSION)
        .replace("@ABI@", ABI)
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

fn stage() -> Result<PathBuf, String> {
    let root = workspace();
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    run(Command::new(cargo).current_dir(&root).args([
        "build",
        "--release",
        "--locked",
        "-p",
        "kfam-native",
    ]))?;
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target"));
    let built = target.join("release");

    let data = root.join("codegen/wheel-data");
    if data.exists() {
        fs::remove_dir_all(&data).map_err(|e| format!("{}: {e}", data.display()))?;
    }
    let lib = data.join("data/lib");
    let cmake = lib.join("cmake/kfam");
    let pkgconfig = lib.join("pkgconfig");
    for dir in [&cmake, &pkgconfig] {
        fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    let copy = |from: &Path, to: &Path| {
        fs::copy(from, to)
            .map(|_| ())
            .map_err(|e| format!("{} -> {}: {e}", from.display(), to.display()))
    };
    copy(
        &built.join("libkfamrt.so"),
        &lib.join(format!("libkfamrt.so.{ABI}")),
    )?;
    // Most of a Rust static library is the standard library's debug
    // information: stripped, the archive is 15 MB instead of 24, and a
    // program linking it 2 MB instead of 6.
    run(Command::new("strip")
        .arg("--strip-debug")
        .arg("-o")
        .arg(lib.join("libkfamrt.a"))
        .arg(built.join("libkfamrt.a")))?;
    let write = |path: PathBuf, text: String| {
        fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))
    };
    write(cmake.join("kfam-config.cmake"), fill(CONFIG))?;
    write(
        cmake.join("kfam-config-version.cmake"),
        fill(CONFIG_VERSION),
    )?;
    write(pkgconfig.join("kfamrt.pc"), fill(PKG_CONFIG))?;
    Ok(data)
}

fn main() -> ExitCode {
    match stage() {
        Ok(data) => {
            println!("staged {}", data.display());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}
