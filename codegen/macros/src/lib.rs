//! `kfam_macros::manifest!("path")`: load, check and lower a kernel-family
//! manifest at compile time and expand to the same static tables that
//! `kfam generate` writes to `generated/rust/tables.rs`. A malformed manifest
//! is a compile error carrying kfam's diagnostics. Use it through
//! `kfam_runtime::manifest!`, whose record types the expansion names.

mod expand;

/// Expand to `ABI`, `FAMILIES`, `ARTIFACTS` and `families::*` for the manifest
/// at `path` (relative to the calling crate's `CARGO_MANIFEST_DIR`): a
/// manifest directory (holding `abi.toml` and `families/`), or one family
/// file checked against `abi = "..."` when given, else the nearest
/// `abi.toml` in its directory or above.
///
/// ```ignore
/// kfam_runtime::manifest!("manifest");
/// kfam_runtime::manifest!("kernels/add.toml", abi = "manifest/abi.toml");
/// ```
#[proc_macro]
pub fn manifest(input: proc_macro::TokenStream) -> proc_macro::TokenStream {
    let input = syn::parse_macro_input!(input as expand::Input);
    expand::manifest(&input).into()
}
