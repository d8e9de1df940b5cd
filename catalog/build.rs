//! The catalog's tables and C library, from `manifest/` through the
//! build-script API a team uses for its own (`kfam_codegen::build`): the
//! Rust tables and `CATALOG` in `OUT_DIR/kfam_catalog.rs`, the header in
//! `OUT_DIR/include/kfam/`, the C tables compiled into the crate, and the
//! `kfam_*` exports.
//!
//! With the `regenerate` feature (this workspace's `kfam-dev` member turns
//! it on) it first regenerates the workspace's `generated/` from the same
//! manifest, so that editing a family and running `cargo build` updates
//! every output. It writes nothing there when `CI` is set (CI checks
//! freshness instead) or outside the repository (a packaged build).

use std::path::Path;

fn main() {
    let manifest = Path::new("manifest");
    #[cfg(feature = "regenerate")]
    if Path::new("../generated").is_dir() {
        regenerate(manifest, Path::new("../generated"));
    }
    let tables = kfam_codegen::build::Builder::new(manifest)
        .c_abi(true)
        .compile()
        .unwrap_or_else(|e| {
            eprintln!("{e}");
            std::process::exit(1);
        });
    soname(&tables.with_file_name("include/kfam/kfam.h"));
}

/// The shared library's SONAME carries the ABI major
/// (`libkfam_catalog.so.<major>`), so the dynamic loader never pairs a
/// program with a library of another major. Read from the header the
/// library is compiled against, the one authority on the ABI version.
fn soname(header: &Path) {
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() != Ok("linux") {
        return;
    }
    let text = std::fs::read_to_string(header)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", header.display()));
    let major = text
        .lines()
        .find_map(|l| l.strip_prefix("#define KFAM_ABI_MAJOR "))
        .map(str::trim)
        .unwrap_or_else(|| panic!("{} defines no KFAM_ABI_MAJOR", header.display()));
    println!("cargo::rustc-cdylib-link-arg=-Wl,-soname,libkfam_catalog.so.{major}");
}

#[cfg(feature = "regenerate")]
fn regenerate(manifest: &Path, out: &Path) {
    println!("cargo::rerun-if-env-changed=CI");
    if std::env::var_os("CI").is_some() {
        return;
    }
    // cargo's rerun rules (the build API watches the manifest directory)
    // are this script's freshness check: no stamp.
    let options = kfam_codegen::GenerateOptions {
        check: false,
        stamp: false,
    };
    match kfam_codegen::generate_dir_with(manifest, out, options) {
        Ok(_) => {}
        Err(kfam_codegen::GenerateError::Manifest(report)) => {
            eprint!(
                "{}",
                report.render_human(&annotate_snippets::Renderer::plain())
            );
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
