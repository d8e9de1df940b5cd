//! Nothing to call: this crate exists for its `Cargo.toml`, which turns on
//! kfam-catalog's `regenerate` and kfam-runtime's `macros` features in this
//! workspace (see `docs/rust.md`, "Layering").
