//! With the `regenerate` feature (this workspace's `kfam-dev` member turns it
//! on), regenerates `generated/` from `manifest/` in a development checkout,
//! so that editing a family and running `cargo build` updates every output
//! and this crate's tables. It writes nothing when `CI` is set (CI checks
//! freshness instead) or when there is no manifest beside the crate (a
//! packaged build), and cargo runs it only when a manifest file changed.
//! Without the feature (a dependent crate) no generator is compiled.
//!
//! Everything the crate compiles from is read through `generated/` inside
//! the crate: in the repository a symlink to the workspace's `generated/`
//! (the one place the generator writes), in a packaged crate the files
//! themselves, which `cargo package` copies through the link (docs/rust.md,
//! "Packaging").

use std::path::Path;

fn main() {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let generated = crate_dir.join("generated");
    let manifest = crate_dir.join("../manifest");
    println!("cargo::rerun-if-env-changed=CI");
    #[cfg(feature = "regenerate")]
    if manifest.join("abi.toml").is_file() {
        regenerate(&manifest, &crate_dir.join("../generated"));
    }
    #[cfg(not(feature = "regenerate"))]
    let _ = manifest;
    compile_c_tables(&generated);
    soname(&generated);
}

/// The shared library's SONAME carries the ABI major
/// (`libkfam_runtime.so.<major>`), so the dynamic loader never pairs a program
/// with a library of another major. Read from the header the library is
/// compiled against, the one authority on the ABI version.
fn soname(generated: &Path) {
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() != Ok("linux") {
        return;
    }
    let header = generated.join("include/kfam/kfam.h");
    let text = std::fs::read_to_string(&header)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", header.display()));
    let major = text
        .lines()
        .find_map(|l| l.strip_prefix("#define KFAM_ABI_MAJOR "))
        .map(str::trim)
        .unwrap_or_else(|| panic!("{} defines no KFAM_ABI_MAJOR", header.display()));
    println!("cargo::rustc-cdylib-link-arg=-Wl,-soname,libkfam_runtime.so.{major}");
}

/// The C ABI hands out records of the generated header's own tables.
fn compile_c_tables(generated: &Path) {
    // With `regenerate` the headers are not watched: this script writes
    // them (a watched output would rerun the script after every build), and
    // they change only when the manifest or the generator does, which rerun
    // the script anyway. Without it they are inputs like any other (a
    // checkout or merge that changes `generated/` must rebuild the tables).
    let shim = Path::new(env!("CARGO_MANIFEST_DIR")).join("c/tables.c");
    println!("cargo::rerun-if-changed={}", shim.display());
    #[cfg(not(feature = "regenerate"))]
    for header in ["kfam.h", "kfam_tables.h"] {
        let path = generated.join("include/kfam").join(header);
        println!("cargo::rerun-if-changed={}", path.display());
    }
    cc::Build::new()
        .file(&shim)
        .include(generated.join("include"))
        .std("c99")
        .warnings(true)
        .extra_warnings(true)
        .warnings_into_errors(true)
        // Leaf accessors over static tables: a frame pointer buys nothing,
        // and asking for one makes cc test-compile a flag support probe on
        // every run of this script (one more compiler run after each
        // manifest edit).
        .force_frame_pointer(false)
        .compile("kfam_c_tables");
}

#[cfg(feature = "regenerate")]
fn regenerate(manifest: &Path, out: &Path) {
    println!(
        "cargo::rerun-if-changed={}",
        manifest.join("abi.toml").display()
    );
    println!(
        "cargo::rerun-if-changed={}",
        manifest.join("families").display()
    );
    // Tombstones reach the tables (`RETIRED`). Retiring a family also
    // deletes its file, which `families` above sees; this catches later
    // edits. (A path that does not exist would rerun the script on every
    // build.)
    let retired = manifest.join("retired.toml");
    if retired.exists() {
        println!("cargo::rerun-if-changed={}", retired.display());
    }
    if std::env::var_os("CI").is_some() {
        return;
    }
    // cargo's rerun rules above are this script's freshness check: no stamp.
    let options = kfam_codegen::GenerateOptions {
        check: false,
        stamp: false,
    };
    match kfam_codegen::generate_dir_with(manifest, out, options) {
        Ok(_) => {}
        Err(kfam_codegen::GenerateError::Manifest(report)) => {
            let renderer = annotate_snippets::Renderer::plain();
            eprint!("{}", report.render_human(&renderer));
            eprintln!(
                "error: the manifest has {} error(s); generated/ was not updated",
                report.error_count()
            );
            std::process::exit(1);
        }
        Err(kfam_codegen::GenerateError::Write(e)) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    }
}
