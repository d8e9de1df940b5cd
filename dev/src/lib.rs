//! Nothing to call: this crate exists for its `Cargo.toml`, which turns on
//! kfam-runtime's `macros` feature in this workspace (see `docs/rust.md`,
//! "Layering").
