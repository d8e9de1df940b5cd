//! The catalog's tables and C library, from `manifest/` through the
//! build-script API a team uses for its own (`kfam_codegen::build`): the
//! Rust tables and `CATALOG` in `OUT_DIR/kfam_catalog.rs`, the header in
//! `OUT_DIR/include/kfam/`, the C tables compiled into the crate, the
//! `kfam_*` exports and the shared library's SONAME. It writes into
//! `OUT_DIR` only: the workspace's committed `generated/` is `kfam
//! generate`'s (docs/architecture.md, "Refreshing generated/").

use std::path::Path;

fn main() {
    // The SONAME (`libkfam_catalog.so.<ABI major>`) comes with `c_abi`.
    if let Err(e) = kfam_codegen::build::Builder::new(Path::new("manifest"))
        .c_abi(true)
        .compile()
    {
        eprintln!("{e}");
        std::process::exit(1);
    }
}
