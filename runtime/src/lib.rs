//! kfam runtime: the approved kernel-family tables generated from
//! `manifest/`, and the decisions consumers make over them.
//!
//! The tables and vocabulary enums are compiled from `generated/rust/`, which
//! `kfam generate` (or `cargo build`, through this crate's build script)
//! writes from the manifest.

pub mod admission;
pub mod call;
pub mod capability;
pub mod ffi;
pub mod lookup;
mod types;

/// The closed vocabularies, with their stable numeric codes.
pub mod vocab {
    include!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../generated/rust/vocab.rs"
    ));
}

mod tables {
    include!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../generated/rust/tables.rs"
    ));
}

pub use admission::{admit, Admitted, Malformed, Refused};
pub use call::{validate_call, CallError, OwnedTensorArg, ScalarValue, TensorArg};
pub use capability::{capability, CapabilityRefused, Supported};
/// Embed and check a manifest at compile time: see `docs/macro.md`.
pub use kfam_macros::manifest;
pub use tables::{families, ABI, FAMILIES, RETIRED};
pub use types::{
    Abi, Binding, DimUse, Evidence, Family, Operation, Param, Profile, Receipt, Retired, ScalarRef,
    Symbol,
};
pub use vocab::*;

/// The approved family named `name` (a hash lookup: see [`lookup`]).
pub fn find_family(name: &str) -> Option<&'static Family> {
    lookup::family(FAMILIES, tables::FAMILY_INDEX, name)
}

/// The family, profile and receipt of the artifact whose SHA-256 (lowercase
/// hex) is `sha256` (a hash lookup: see [`lookup`]).
pub fn find_artifact(
    sha256: &str,
) -> Option<(&'static Family, &'static Profile, &'static Receipt)> {
    lookup::artifact(FAMILIES, tables::ARTIFACTS, tables::ARTIFACT_INDEX, sha256)
}

/// The tombstone of the retired family named `name`.
pub fn find_retired(name: &str) -> Option<&'static Retired> {
    lookup::retired(RETIRED, name)
}

/// The retired family whose artifacts include the one whose SHA-256 is
/// `sha256`.
pub fn find_retired_artifact(sha256: &str) -> Option<&'static Retired> {
    lookup::retired_artifact(RETIRED, sha256)
}
