//! Regenerates `generated/` from `manifest/` in a development checkout, so
//! that editing a family and running `cargo build` updates every output and
//! this crate's tables. It writes nothing when `CI` is set (CI checks
//! freshness instead) or when there is no manifest beside the crate (a
//! packaged build), and cargo runs it only when a manifest file changed.

use std::path::Path;

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let manifest = root.join("manifest");
    println!("cargo::rerun-if-env-changed=CI");
    if !manifest.join("abi.toml").is_file() {
        return; // packaged crate: compile the tables that ship with it
    }
    println!(
        "cargo::rerun-if-changed={}",
        manifest.join("abi.toml").display()
    );
    println!(
        "cargo::rerun-if-changed={}",
        manifest.join("families").display()
    );
    if std::env::var_os("CI").is_some() {
        return;
    }
    let out = root.join("generated");
    match kfam_codegen::generate_dir(&manifest, &out, false) {
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
