//! kfam runtime: the decisions consumers make over a catalog of approved
//! kernel families (capability, admission, call validation, the kernel
//! context), and its C ABI, for any catalog.
//!
//! This crate holds no catalog. A catalog's tables are generated into the
//! crate that uses them, typed by this crate's records: from a build script
//! (`kfam_codegen::build`), with `manifest!` (feature `macros`), or as
//! this repository's own catalog, the crate `kfam-catalog`. Each defines a
//! [`Catalog`] value, `CATALOG`, whose methods are the decisions; a crate
//! that exports a catalog's C ABI does it with [`c_abi!`].
//!
//! The record types and the vocabularies kfam fixes are compiled from
//! `generated/rust/`, which `kfam generate` writes; none depends on a
//! catalog.

pub mod admission;
pub mod call;
pub mod capability;
pub mod catalog;
pub mod context;
pub mod description;
// The C ABI's Rust side: what `c_abi!` expands to and `kfam-native`
// exports. Public for those two, not an API of its own (docs/rust.md).
#[doc(hidden)]
pub mod ffi;
pub mod lookup;
pub mod pairing;
pub mod targets;
mod types;
/// The words of a refused call, which the Python runtime's are written
/// from (`python/kfam_runtime/_shared.py`).
#[doc(hidden)]
pub mod wording;

mod c_abi;

pub use description::TABLES_FORMAT;

/// The closed vocabularies kfam fixes, with their stable numeric codes.
pub mod vocab {
    include!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/generated/rust/vocab.rs"
    ));
}

pub use admission::{Admitted, Malformed, Refused};
pub use call::{validate_call, CallError, OwnedTensorArg, ScalarValue, TensorArg};
pub use capability::{CapabilityRefused, Supported};
pub use catalog::Catalog;
pub use context::{Context, Launch, Launcher};
/// Embed and check a manifest at compile time (feature `macros`): see
/// `docs/macro.md`.
#[cfg(feature = "macros")]
pub use kfam_macros::manifest;
pub use pairing::{Mismatch, Pairing};
pub use targets::{Backend, ExecutionMode, Platform, Runtime, Targets};
pub use types::{
    Abi, Binding, DimUse, Evidence, Family, Operation, OutputError, Param, Profile, Receipt,
    Retired, ScalarRef, Symbol,
};
pub use vocab::*;
