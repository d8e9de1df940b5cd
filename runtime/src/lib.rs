//! kfam runtime: the approved kernel-family tables generated from
//! `manifest/`, and the decisions consumers make over them.
//!
//! The tables and vocabulary enums are compiled from `generated/rust/`, which
//! `kfam generate` (or `cargo build`, through this crate's build script)
//! writes from the manifest.

pub mod admission;
pub mod call;
pub mod capability;
pub mod catalog;
pub mod context;
pub mod ffi;
pub mod ffi_context;
pub mod ffi_message;
pub mod lookup;
pub mod targets;
mod types;

/// The closed vocabularies, with their stable numeric codes.
pub mod vocab {
    include!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/generated/rust/vocab.rs"
    ));
}

mod tables {
    include!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/generated/rust/tables.rs"
    ));
}

pub use admission::{admit, Admitted, Malformed, Refused};
pub use call::{validate_call, CallError, OwnedTensorArg, ScalarValue, TensorArg};
pub use capability::{capability, CapabilityRefused, Supported};
pub use catalog::Catalog;
pub use context::{Context, Launch, Launcher};
/// Embed and check a manifest at compile time (feature `macros`): see
/// `docs/macro.md`.
#[cfg(feature = "macros")]
pub use kfam_macros::manifest;
pub use tables::{
    backends, execution_modes, families, platforms, runtimes, ABI, FAMILIES, RETIRED, TARGETS,
};
pub use targets::{Backend, ExecutionMode, Platform, Runtime, Targets};
pub use types::{
    Abi, Binding, DimUse, Evidence, Family, Operation, Param, Profile, Receipt, Retired, ScalarRef,
    Symbol,
};
pub use vocab::*;

/// This crate's approved tables, generated from `manifest/`.
pub static CATALOG: Catalog = Catalog {
    abi: &ABI,
    targets: &TARGETS,
    families: FAMILIES,
    retired: RETIRED,
    artifacts: tables::ARTIFACTS,
    family_index: tables::FAMILY_INDEX,
    artifact_index: tables::ARTIFACT_INDEX,
};

/// The approved family named `name` (a hash lookup: see [`lookup`]).
pub fn find_family(name: &str) -> Option<&'static Family> {
    CATALOG.find(name)
}

/// The family, profile and receipt of the artifact whose SHA-256 (lowercase
/// hex) is `sha256` (a hash lookup: see [`lookup`]).
pub fn find_artifact(
    sha256: &str,
) -> Option<(&'static Family, &'static Profile, &'static Receipt)> {
    CATALOG.find_artifact(sha256)
}

/// The tombstone of the retired family named `name`.
pub fn find_retired(name: &str) -> Option<&'static Retired> {
    CATALOG.find_retired(name)
}

/// The retired family whose artifacts include the one whose SHA-256 is
/// `sha256`.
pub fn find_retired_artifact(sha256: &str) -> Option<&'static Retired> {
    CATALOG.find_retired_artifact(sha256)
}
