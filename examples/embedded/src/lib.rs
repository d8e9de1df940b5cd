//! A runtime with a kernel-family catalog of its own: `manifest/` here has
//! its own families, digests and `approved.lock`, checked and compiled into
//! static tables by `manifest!`, and every runtime decision (capability,
//! admission, call validation) is a method of the expansion's `CATALOG`.
//! Run `cargo run -p kfam-example-embedded`; see docs/macro.md.

/// The catalog of `manifest/` (the expansion: `ABI`, `FAMILIES`,
/// `ARTIFACTS`, `RETIRED`, the lookup indices, per-family constants and
/// `CATALOG`).
pub mod kernels {
    kfam_runtime::manifest!("manifest");
}

/// The `compiled_meta.json` the `relu_fp16` artifact ships with (printed by
/// `kfam example relu_fp16 examples/embedded/manifest`).
pub const RELU_META: &[u8] = include_bytes!("../artifacts/relu_fp16.a5_sim.compiled_meta.json");
