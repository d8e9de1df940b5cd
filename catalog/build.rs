//! The catalog's tables and C library, from `manifest/` through the
//! build-script API a team uses for its own (`kfam_codegen::build`): the
//! Rust tables and `CATALOG` in `OUT_DIR/kfam_catalog.rs`, the header in
//! `OUT_DIR/include/kfam/`, the C tables compiled into the crate, the
//! `kfam_*` exports and the shared library's SONAME.
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
    // The SONAME (`libkfam_catalog.so.<ABI major>`) comes with `c_abi`.
    if let Err(e) = kfam_codegen::build::Builder::new(manifest)
        .c_abi(true)
        .compile()
    {
        eprintln!("{e}");
        std::process::exit(1);
    }
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
