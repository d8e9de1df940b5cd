//! The manifest as written: serde types read from TOML with spans kept.
//!
//! These are the only types serde reads, and schemars derives the published
//! JSON Schemas from the same types, so the schema and the loader cannot
//! drift. The operation payload is the one exception to derivation: each
//! kind's table is its payload record's declaration (`operation.rs`).
//! Nothing here is checked or derived yet: see `check` and `ir`.

use std::borrow::Cow;

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::{Deserialize, Deserializer};

use crate::vocab::{BindingKind, Contract, DType, Direction, Layout, ParamKind};

mod dim;
mod operation;
pub mod pattern;
mod spanned;
pub mod targets;

pub use dim::Dim;
pub use operation::{KeyValue, Operation, ScalarOperand};
pub use spanned::Spanned;

/// `manifest/abi.toml`: the native ABI the artifacts target.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "kfam ABI declaration (manifest/abi.toml)")]
pub struct AbiFile {
    /// Native runtime commit the artifacts target (40 lowercase hex digits).
    #[schemars(pattern(pattern::COMMIT))]
    pub revision: Spanned<String>,
    /// ABI major version: bumped on any incompatible change of the tables or C functions.
    pub major: Spanned<u16>,
    /// ABI minor version: bumped on compatible additions.
    pub minor: Spanned<u16>,
    /// Bounds every family is checked against.
    pub limits: Spanned<Limits>,
    /// Values of the C status codes.
    pub status: Spanned<StatusCodes>,
    /// The catalog's identity: the names its outputs carry and where they
    /// go. Optional: absent, the catalog is named `kfam` (Apache-2.0).
    #[serde(default)]
    pub catalog: Option<Spanned<Catalog>>,
    /// The platforms artifacts run on, with the backends, runtimes, layouts
    /// and dtypes each allows. Optional: kfam's default platforms when
    /// absent (docs/manifest.md, "Declared platforms").
    #[serde(default)]
    pub platforms: Option<Spanned<Vec<Spanned<targets::Platform>>>>,
    /// The compiler backends. Optional: kfam's default backends when absent.
    #[serde(default)]
    pub backends: Option<Spanned<Vec<Spanned<targets::Member>>>>,
    /// The launch runtimes. Optional: kfam's default runtimes when absent.
    #[serde(default)]
    pub runtimes: Option<Spanned<Vec<Spanned<targets::Member>>>>,
    /// The execution modes. Optional: `sim` and `onboard` when absent.
    #[serde(default)]
    pub execution_modes: Option<Spanned<Vec<Spanned<targets::Member>>>>,
    /// The wire formats receipts may name. Optional: absent, any
    /// well-formed codec; declared, only these.
    #[serde(default)]
    pub codecs: Option<Spanned<Vec<Spanned<targets::Codec>>>>,
}

/// `[catalog]`: the catalog's identity. Every name not declared follows
/// from `name`; an `abi.toml` without the table has the identity `name =
/// "kfam"`, `license = "Apache-2.0"`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Catalog {
    /// The catalog's name: an identifier, and the default of the Python
    /// distribution and package, the torch namespace and the C prefix.
    #[schemars(pattern(pattern::IDENTIFIER), length(max = crate::names::MAX_NAME_LEN))]
    pub name: Spanned<String>,
    /// The license of the generated outputs: an SPDX license expression
    /// (`Apache-2.0`, `MIT OR Apache-2.0`, `LicenseRef-Proprietary`).
    #[schemars(length(min = 1, max = crate::limits::MAX_LICENSE_CHARS))]
    pub license: Spanned<String>,
    /// The catalog's release version (PEP 440, normalized, no local label).
    /// Optional: the generating kfam's version when absent.
    #[serde(default)]
    #[schemars(
        pattern(pattern::VERSION),
        length(max = crate::limits::MAX_VERSION_CHARS)
    )]
    pub version: Option<Spanned<String>>,
    /// The Python distribution name (`pip install NAME`, PEP 508).
    /// Optional: `name` when absent.
    #[serde(default)]
    #[schemars(
        pattern(pattern::DISTRIBUTION),
        length(max = crate::names::MAX_NAME_LEN)
    )]
    pub python_distribution: Option<Spanned<String>>,
    /// The Python import package (`import NAME`): an identifier. Optional:
    /// `name` when absent.
    #[serde(default)]
    #[schemars(pattern(pattern::IDENTIFIER), length(max = crate::names::MAX_NAME_LEN))]
    pub python_package: Option<Spanned<String>>,
    /// The torch namespace the families are defined in (`NAMESPACE::FAMILY`):
    /// an identifier. Optional: `name` when absent.
    #[serde(default)]
    #[schemars(pattern(pattern::IDENTIFIER), length(max = crate::names::MAX_NAME_LEN))]
    pub torch_namespace: Option<Spanned<String>>,
    /// The prefix of generated C names (`PREFIX_family`, `PREFIX_*` macros
    /// in capitals, the header directory): an identifier. Optional: `name`
    /// when absent.
    #[serde(default)]
    #[schemars(pattern(pattern::IDENTIFIER), length(max = crate::names::MAX_NAME_LEN))]
    pub c_prefix: Option<Spanned<String>>,
    /// Where each output goes, below the output directory (`--out`).
    #[serde(default)]
    pub outputs: Option<Spanned<Outputs>>,
}

/// `[catalog.outputs]`: each output's directory, relative to the output
/// directory `kfam generate --out` names; distinct, none inside another.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Outputs {
    /// The C headers (`<c>/kfam/kfam.h`). Default `include`.
    #[serde(default)]
    #[schemars(
        pattern(pattern::OUTPUT_PATH),
        length(max = crate::limits::MAX_OUTPUT_PATH_CHARS),
        extend("default" = "include")
    )]
    pub c: Option<Spanned<String>>,
    /// The Rust tables. Default `rust`.
    #[serde(default)]
    #[schemars(
        pattern(pattern::OUTPUT_PATH),
        length(max = crate::limits::MAX_OUTPUT_PATH_CHARS),
        extend("default" = "rust")
    )]
    pub rust: Option<Spanned<String>>,
    /// The Python distribution (`pyproject.toml` and the package). Default `python`.
    #[serde(default)]
    #[schemars(
        pattern(pattern::OUTPUT_PATH),
        length(max = crate::limits::MAX_OUTPUT_PATH_CHARS),
        extend("default" = "python")
    )]
    pub python: Option<Spanned<String>>,
    /// The JSON Schemas and `compiled_meta.json` examples. Default `schema`.
    #[serde(default)]
    #[schemars(
        pattern(pattern::OUTPUT_PATH),
        length(max = crate::limits::MAX_OUTPUT_PATH_CHARS),
        extend("default" = "schema")
    )]
    pub schema: Option<Spanned<String>>,
    /// The Markdown reference. Default `docs`.
    #[serde(default)]
    #[schemars(
        pattern(pattern::OUTPUT_PATH),
        length(max = crate::limits::MAX_OUTPUT_PATH_CHARS),
        extend("default" = "docs")
    )]
    pub docs: Option<Spanned<String>>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Limits {
    /// Most tensor parameters one family may declare.
    #[schemars(range(min = 1, max = crate::limits::ARG_CEILING))]
    pub max_tensor_args: Spanned<u32>,
    /// Most scalar parameters one family may declare.
    #[schemars(range(min = 1, max = crate::limits::ARG_CEILING))]
    pub max_scalar_args: Spanned<u32>,
    /// Highest tensor rank.
    #[schemars(range(min = 1, max = crate::limits::RANK_CEILING))]
    pub max_rank: Spanned<u32>,
    /// Most callables one kernel context may hold prepared at once; past it,
    /// preparing a new artifact is refused and nothing is evicted. Optional:
    /// 64 when absent.
    #[serde(default)]
    #[schemars(
        range(min = 1, max = crate::limits::PREPARED_CEILING),
        extend("default" = crate::limits::DEFAULT_MAX_PREPARED)
    )]
    pub max_prepared: Option<Spanned<u32>>,
}

/// C status code values. `ok` is 0; every other code is negative and distinct.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StatusCodes {
    pub ok: Spanned<i32>,
    pub internal: Spanned<i32>,
    pub unsupported: Spanned<i32>,
    pub prepared_incompatible: Spanned<i32>,
    pub invalid_state: Spanned<i32>,
    pub invalid_argument: Spanned<i32>,
    pub not_found: Spanned<i32>,
    pub recompile_required: Spanned<i32>,
    pub not_approved: Spanned<i32>,
}

/// `manifest/families/<name>.toml`: one reviewed kernel family.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "kfam kernel family (manifest/families/<name>.toml)")]
pub struct FamilyFile {
    /// Unique snake_case identifier; equals the file stem.
    #[schemars(pattern(pattern::IDENTIFIER), length(max = crate::names::MAX_NAME_LEN))]
    pub name: Spanned<String>,
    /// Revision of this contract, from 1. Bump it whenever the identity changes.
    #[schemars(range(min = 1))]
    pub revision: Spanned<u32>,
    /// One-paragraph description for generated docs (not part of the identity).
    #[schemars(length(min = 1, max = crate::limits::MAX_TEXT_CHARS))]
    pub summary: Spanned<String>,
    /// Calling rules: `program` or `kernel`, never both.
    pub contract: Spanned<Contract>,
    /// Whether a torch dispatcher schema is generated for this family.
    #[serde(default)]
    pub torch: Option<Spanned<bool>>,
    /// The typed operation the kernel implements.
    pub operation: Spanned<Operation>,
    /// The ordered logical signature (ParamInfo).
    #[serde(default)]
    pub params: Vec<Spanned<Param>>,
    /// Return aliases: parameter names or indices into the complete signature.
    #[serde(default)]
    pub returns: Vec<Spanned<AliasRef>>,
    /// Where and how artifacts of this family run.
    #[serde(default)]
    pub profiles: Vec<Spanned<Profile>>,
    /// Qualified artifacts.
    #[serde(default)]
    pub receipts: Vec<Spanned<Receipt>>,
    /// Constraints on named symbolic dimensions: `[dims.<symbol>]`.
    #[serde(default)]
    pub dims: DimRules,
}

/// `[dims.<symbol>]`: the extents a symbol accepts at call time. Every bound
/// is optional; absent, a symbol takes any extent, like `-1`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DimRule {
    /// Smallest accepted extent.
    #[schemars(range(min = 0, max = u32::MAX))]
    pub min: Option<Spanned<i64>>,
    /// Largest accepted extent.
    #[schemars(range(min = 1, max = u32::MAX))]
    pub max: Option<Spanned<i64>>,
    /// The extent must be a multiple of this.
    #[schemars(range(min = 1, max = u32::MAX))]
    pub multiple_of: Option<Spanned<i64>>,
}

/// The `[dims]` table in declaration order, keys with their spans.
#[derive(Debug, Default)]
pub struct DimRules(pub Vec<(Spanned<String>, Spanned<DimRule>)>);

impl<'de> Deserialize<'de> for DimRules {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = DimRules;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a table of symbol constraints")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut m: A,
            ) -> Result<DimRules, A::Error> {
                let mut out = Vec::new();
                while let Some(entry) = m.next_entry()? {
                    out.push(entry);
                }
                Ok(DimRules(out))
            }
        }
        d.deserialize_map(V)
    }
}

impl JsonSchema for DimRules {
    fn schema_name() -> Cow<'static, str> {
        "DimRules".into()
    }
    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let rule = generator.subschema_for::<DimRule>();
        schemars::json_schema!({
            "description": "Constraints on named symbolic dimensions, one table per symbol.",
            "type": "object",
            "propertyNames": {
                "pattern": pattern::IDENTIFIER,
                "maxLength": crate::names::MAX_NAME_LEN,
            },
            "additionalProperties": rule,
        })
    }
}

/// One entry of the ordered signature.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Param {
    /// Unique within the family; becomes an identifier in every binding.
    #[schemars(pattern(pattern::IDENTIFIER), length(max = crate::names::MAX_NAME_LEN))]
    pub name: Spanned<String>,
    /// `tensor` (default) or `scalar`.
    #[serde(default)]
    pub kind: Option<Spanned<ParamKind>>,
    /// `in` (default), `out` or `inout`. Scalars are always `in`.
    #[serde(default)]
    pub direction: Option<Spanned<Direction>>,
    /// Element type.
    pub dtype: Spanned<DType>,
    /// Tensor extents: static, `-1` (dynamic) or a symbol name. Absent for scalars.
    #[serde(default)]
    #[schemars(length(min = 1))]
    pub shape: Option<Spanned<Vec<Spanned<Dim>>>>,
    /// `nd` (default), `nchw` or `nz`. Tensors only.
    #[serde(default)]
    pub layout: Option<Spanned<Layout>>,
    /// Byte alignment every call's data keeps: the address of the view's
    /// first element is a multiple of it. A power of two from 1 (default:
    /// any address) to 4096. Tensors only.
    #[serde(default)]
    pub alignment: Option<Spanned<i64>>,
    /// Free-text description for generated docs.
    #[serde(default)]
    #[schemars(length(max = crate::limits::MAX_TEXT_CHARS))]
    pub doc: Option<Spanned<String>>,
}

impl Param {
    /// The value the manifest declares for the parameter record's attribute
    /// `name` (a field of the record declaration with an `Attr`): the field
    /// of this struct with that name.
    pub fn attr(&self, name: &str) -> Option<&Spanned<i64>> {
        match name {
            "alignment" => self.alignment.as_ref(),
            _ => None,
        }
    }
}

/// A return alias: a parameter name, or an index into the complete signature.
#[derive(Clone, Debug, PartialEq, Eq, JsonSchema)]
#[serde(untagged)]
pub enum AliasRef {
    Name(String),
    Index(i64),
}

impl<'de> Deserialize<'de> for AliasRef {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = AliasRef;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a parameter name or an index into the signature")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<AliasRef, E> {
                Ok(AliasRef::Name(v.to_owned()))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<AliasRef, E> {
                Ok(AliasRef::Index(v))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<AliasRef, E> {
                Ok(AliasRef::Index(i64::try_from(v).unwrap_or(i64::MAX)))
            }
        }
        d.deserialize_any(V)
    }
}

/// An artifact profile: where and how an artifact runs.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Profile {
    /// Unique within the family; receipts refer to it.
    #[schemars(pattern(pattern::IDENTIFIER), length(max = crate::names::MAX_NAME_LEN))]
    pub name: Spanned<String>,
    /// Hardware platform the artifact targets (one of `abi.toml`'s
    /// `[[platforms]]`).
    #[schemars(pattern(pattern::IDENTIFIER), length(max = crate::names::MAX_NAME_LEN))]
    pub platform: Spanned<String>,
    /// Compiler backend; one the platform offers.
    #[schemars(pattern(pattern::IDENTIFIER), length(max = crate::names::MAX_NAME_LEN))]
    pub backend: Spanned<String>,
    /// Launch runtime; one the platform offers.
    #[schemars(pattern(pattern::IDENTIFIER), length(max = crate::names::MAX_NAME_LEN))]
    pub runtime: Spanned<String>,
    /// Simulator or device (one of `abi.toml`'s `[[execution_modes]]`).
    #[schemars(pattern(pattern::IDENTIFIER), length(max = crate::names::MAX_NAME_LEN))]
    pub execution_mode: Spanned<String>,
    /// The final ABI: which parameter sits in which launch slot.
    #[serde(default)]
    pub bindings: Vec<Spanned<Binding>>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Binding {
    /// Name of the parameter placed in the slot.
    pub param: Spanned<String>,
    /// Launch slot (or buffer-object index).
    pub slot: Spanned<u32>,
    /// What the slot holds: `scalar_arg` for scalars, `tensor_arg` or `buffer_object` for tensors.
    pub kind: Spanned<BindingKind>,
}

/// The record that one artifact passed physical qualification on a profile.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Receipt {
    /// Name of the profile the artifact qualified on.
    pub profile: Spanned<String>,
    /// Wire-format identifier of the receipt.
    #[schemars(pattern(pattern::CODEC), length(max = 64))]
    pub codec: Spanned<String>,
    /// Artifact path relative to the artifact root.
    #[schemars(pattern(pattern::ARTIFACT_PATH))]
    pub artifact: Spanned<String>,
    /// SHA-256 of the artifact, 64 lowercase hex digits.
    #[schemars(pattern(pattern::SHA256))]
    pub sha256: Spanned<String>,
    /// What the qualification was: when, on what hardware.
    pub evidence: Spanned<Evidence>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Evidence {
    /// Qualification date, `YYYY-MM-DD`.
    #[schemars(pattern(pattern::DATE))]
    pub date: Spanned<String>,
    /// Hardware (or simulator) the qualification ran on.
    #[schemars(length(min = 1, max = crate::limits::MAX_TEXT_CHARS))]
    pub hardware: Spanned<String>,
    /// Free-text note: test plan, results.
    #[serde(default)]
    #[schemars(length(max = crate::limits::MAX_TEXT_CHARS))]
    pub note: Option<Spanned<String>>,
    /// The qualification tool that produced this evidence (`kfam.qualify`,
    /// docs/qualify.md). With it, the evidence is structured: `cases`,
    /// `versions` and `errors` are required.
    #[serde(default)]
    pub tool: Option<Spanned<String>>,
    /// Versions of the tools of the run, `name version` (`torch 2.9.1`).
    #[serde(default)]
    #[schemars(length(max = crate::limits::MAX_EVIDENCE_ENTRIES))]
    pub versions: Option<Spanned<Vec<Spanned<String>>>>,
    /// Cases the run passed.
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub cases: Option<Spanned<u32>>,
    /// Seed of the run's first case.
    #[serde(default)]
    #[schemars(range(min = 0))]
    pub seed: Option<Spanned<i64>>,
    /// Extents covered, one entry per symbol: `name = v1, v2, ...`.
    #[serde(default)]
    #[schemars(length(max = crate::limits::MAX_EVIDENCE_ENTRIES))]
    pub shapes: Option<Spanned<Vec<Spanned<String>>>>,
    /// The worst error per written tensor.
    #[serde(default)]
    #[schemars(length(max = crate::limits::MAX_EVIDENCE_ENTRIES))]
    pub errors: Option<Spanned<Vec<Spanned<OutputError>>>>,
    /// Runs of the kernel per case on identical inputs; 2 or more measure
    /// determinism (`deterministic`).
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub runs: Option<Spanned<u32>>,
    /// Every run of each case wrote bitwise identical outputs. Required
    /// with `runs` >= 2.
    #[serde(default)]
    pub deterministic: Option<Spanned<bool>>,
    /// Largest absolute difference between two runs of one case, over
    /// elements finite in both. Only with `deterministic = false`.
    #[serde(default)]
    #[schemars(range(min = 0.0))]
    pub run_max_abs: Option<Spanned<f64>>,
}

/// The worst difference from the reference one written tensor showed.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OutputError {
    /// Name of the written (`out` or `inout`) tensor parameter.
    pub output: Spanned<String>,
    /// Largest absolute difference from the reference.
    #[schemars(range(min = 0.0))]
    pub max_abs: Spanned<f64>,
    /// Largest difference relative to the reference's magnitude.
    #[schemars(range(min = 0.0))]
    pub max_rel: Spanned<f64>,
}

/// `manifest/retired.toml`: tombstones of families that were approved and
/// then withdrawn. A tombstone keeps the name, so it is never reused for a
/// different contract.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "kfam retired families (manifest/retired.toml)")]
pub struct RetiredFile {
    /// One `[[retired]]` table per retired family.
    #[serde(default)]
    pub retired: Vec<Spanned<Tombstone>>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Tombstone {
    /// The retired family's name, reserved from now on.
    #[schemars(pattern(pattern::IDENTIFIER), length(max = crate::names::MAX_NAME_LEN))]
    pub name: Spanned<String>,
    /// The last approved revision.
    #[schemars(range(min = 1))]
    pub revision: Spanned<u32>,
    /// Its identity digest, as recorded in `approved.lock`.
    #[schemars(pattern(pattern::SHA256))]
    pub identity: Spanned<String>,
    /// Why the family was retired.
    #[schemars(length(min = 1, max = crate::limits::MAX_TEXT_CHARS))]
    pub reason: Spanned<String>,
}

/// `manifest/approved.lock`: every approved family revision. Written by
/// `kfam generate`; reviewed, never edited by hand.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LockFile {
    pub version: Spanned<u32>,
    #[serde(default)]
    pub family: Vec<Spanned<LockEntry>>,
    /// Every platform, backend, runtime and execution mode approved so far,
    /// with its code (absent from locks written before kfam 0.2).
    #[serde(default)]
    pub target: Vec<Spanned<LockTarget>>,
    /// The ABI surface compiled programs depend on, as the catalog's major
    /// approved it (absent from locks written before kfam 0.2's KF1110).
    #[serde(default)]
    pub abi: Option<Spanned<LockAbi>>,
}

/// `[abi]` of `approved.lock`: what programs compiled against the catalog's
/// header depend on, as `major` approved it (`gate::abi`).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LockAbi {
    pub major: Spanned<u16>,
    pub max_tensor_args: Spanned<u32>,
    pub max_scalar_args: Spanned<u32>,
    pub max_rank: Spanned<u32>,
    pub max_prepared: Spanned<u32>,
    /// `kind name` of every declared platform, backend, runtime and
    /// execution mode.
    pub targets: Spanned<Vec<Spanned<String>>>,
    /// Every status code, by status name.
    pub status: Spanned<std::collections::BTreeMap<String, Spanned<i32>>>,
}

/// `[[target]]` of `approved.lock`: a code the catalog approved for a member
/// of a declared vocabulary. Kept when the member is removed, so that its
/// code is never given to another.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LockTarget {
    /// `platform`, `backend`, `runtime` or `execution_mode`.
    pub kind: Spanned<String>,
    pub name: Spanned<String>,
    pub code: Spanned<u32>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LockEntry {
    pub name: Spanned<String>,
    pub revision: Spanned<u32>,
    pub identity: Spanned<String>,
    /// Artifact digests of the receipts of this revision.
    #[serde(default)]
    pub receipts: Vec<Spanned<String>>,
    /// The canonical identity form (see `docs/identity.md`), kept so a changed
    /// revision can be reported field by field.
    pub canonical: Spanned<String>,
    /// The approval this revision entered the lock with (docs/compatibility.md):
    /// 1 for every revision of a lock written before approvals were numbered.
    #[serde(default)]
    pub approved: Option<Spanned<u32>>,
}
