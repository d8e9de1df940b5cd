//! [`Catalog`]: one set of approved tables (families, retired tombstones,
//! the lookup indices, the ABI, the declared targets) and every runtime
//! decision over it as a method. The tables are a catalog's own, generated
//! into the crate that holds them (`kfam_codegen::build`, `manifest!`);
//! this crate holds none.
//!
//! The lookups are here; each decision's method is written beside its rules
//! (`Catalog::capability` in `capability.rs`, `Catalog::admit` in
//! `admission/`, `Catalog::validate_call` in `call.rs`), so those modules
//! depend on this one and not the other way round.

use crate::targets::{ExecutionMode, Platform, Targets};
use crate::types::{Abi, Family, Profile, Receipt, Retired};
use crate::vocab::Contract;

/// An artifact table row: (SHA-256, family index, receipt index).
pub type ArtifactRow = (&'static str, u32, u32);

/// A complete set of approved tables. Every field is `'static` so a catalog
/// can be a `static` (generated, or expanded by `manifest!`) and the records
/// its decisions hand out outlive any borrow of it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Catalog {
    /// The catalog's name (`[catalog] name` of `abi.toml`).
    pub name: &'static str,
    /// The digest of its content (`CATALOG_DIGEST` in Python,
    /// `PREFIX_CATALOG_DIGEST` in C): two builds decide alike when equal.
    pub digest: &'static str,
    pub abi: &'static Abi,
    /// The platforms, backends, runtimes and execution modes it declares.
    pub targets: &'static Targets,
    /// Approved families, sorted by name.
    pub families: &'static [Family],
    pub retired: &'static [Retired],
    pub artifacts: &'static [ArtifactRow],
    /// Open-addressing hash index over `families` (see [`crate::lookup`]).
    pub family_index: &'static [u32],
    /// Open-addressing hash index over `artifacts`.
    pub artifact_index: &'static [u32],
}

impl Catalog {
    /// The approved family named `name`.
    pub fn find(&self, name: &str) -> Option<&'static Family> {
        crate::lookup::family(self.families, self.family_index, name)
    }

    /// The family, profile and receipt of the artifact whose SHA-256
    /// (lowercase hex) is `sha256`.
    pub fn find_artifact(
        &self,
        sha256: &str,
    ) -> Option<(&'static Family, &'static Profile, &'static Receipt)> {
        crate::lookup::artifact(self.families, self.artifacts, self.artifact_index, sha256)
    }

    /// The tombstone of the retired family named `name`.
    pub fn find_retired(&self, name: &str) -> Option<&'static Retired> {
        crate::lookup::retired(self.retired, name)
    }

    /// The retired family whose artifacts include `sha256`.
    pub fn find_retired_artifact(&self, sha256: &str) -> Option<&'static Retired> {
        crate::lookup::retired_artifact(self.retired, sha256)
    }

    /// The torch dispatcher schema of the family named `name`, if it has one.
    pub fn torch_schema(&self, name: &str) -> Option<&'static str> {
        self.find(name).and_then(|f| f.torch_schema)
    }

    /// Whether any approved profile runs on `platform` in `mode` (with
    /// `contract`, when given).
    pub fn has_profile(
        &self,
        platform: Platform,
        mode: ExecutionMode,
        contract: Option<Contract>,
    ) -> bool {
        self.families.iter().any(|f| {
            contract.is_none_or(|c| f.contract == c)
                && f.profiles
                    .iter()
                    .any(|p| p.platform == platform && p.execution_mode == mode)
        })
    }
}
