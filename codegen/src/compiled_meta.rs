//! `compiled_meta.json`: the metadata document a compiled artifact carries.
//!
//! A loader admits an artifact only when this document and the artifact's
//! digest exact-match an approved family, profile and receipt. The types here
//! define the document: serde reads and writes it, and schemars derives the
//! published `generated/schema/compiled_meta.schema.json` from the same types,
//! so the schema and the reader cannot drift. [`expected`] builds, from the IR,
//! the exact document an approved artifact carries. `docs/compiled_meta.md`
//! documents every field.
//!
//! Schema 3 persists both signatures (logical `params` and assembly
//! `lowered_params`), the return count and aliases, the profile and the
//! verified execution capabilities. Schemas 1 and 2 are program metadata
//! written before kernel mode: they carry only `params`, `return_count`,
//! `platform` and `backend`, reload as PROGRAM only and never establish a
//! kernel contract.

use std::borrow::Cow;
use std::fmt;

use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::de::{self, Deserializer};
use serde::{Deserialize, Serialize, Serializer};
use serde_json::{json, Value};

use crate::ir;
use crate::model::pattern;
use crate::vocab::{Contract, DType, Direction, Layout, ParamKind};

/// The schema version this module writes.
pub const CURRENT_SCHEMA: u32 = 3;
/// Largest document a reader accepts; real documents are a few KiB.
pub const MAX_DOCUMENT_BYTES: usize = 1 << 20;
/// Longest `$comment`, in characters (JSON Schema's `maxLength` counts
/// characters); every reader enforces it.
pub const MAX_COMMENT_CHARS: usize = 1024;

/// A `compiled_meta.json` document of any accepted schema version.
// One document is read per admission, so the size of the unboxed variants
// costs nothing that matters; boxing would change the public variants.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum CompiledMeta {
    /// Schema 3: program or kernel metadata with every kernel field.
    V3(CompiledMetaV3),
    /// Schema 1 or 2: program metadata only.
    Legacy(CompiledMetaLegacy),
}

/// Schema 3 metadata: both signatures, returns, profile and capabilities.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(transform = v3_rules)]
pub struct CompiledMetaV3 {
    /// Free text for humans (the generated examples carry the generator's
    /// marker here). Never part of matching.
    #[serde(
        rename = "$comment",
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    #[schemars(length(max = MAX_COMMENT_CHARS))]
    pub comment: Option<String>,
    /// Document schema version: 3.
    pub schema: Schema3,
    /// The approved family this artifact was compiled for.
    #[schemars(pattern(pattern::IDENTIFIER), length(max = crate::names::MAX_NAME_LEN))]
    pub family: String,
    /// The family revision the artifact was compiled against.
    #[schemars(range(min = 1))]
    pub revision: u32,
    /// The requested calling rules (`program` or `kernel`).
    pub contract: Contract,
    /// The logical (caller) signature, in order.
    pub params: Vec<ParamInfo>,
    /// The assembly signature: same parameters, lowered shapes.
    pub lowered_params: Vec<ParamInfo>,
    /// Number of returned tensors; equals the length of `return_aliases`.
    pub return_count: u32,
    /// For each return, its index into the complete signature `params`
    /// (scalars included). Indices may repeat.
    pub return_aliases: Vec<u32>,
    /// Platform of the receipt's profile.
    #[schemars(pattern(pattern::IDENTIFIER), length(max = crate::names::MAX_NAME_LEN))]
    pub platform: String,
    /// Backend of the receipt's profile.
    #[schemars(pattern(pattern::IDENTIFIER), length(max = crate::names::MAX_NAME_LEN))]
    pub backend: String,
    /// Runtime of the receipt's profile.
    #[schemars(pattern(pattern::IDENTIFIER), length(max = crate::names::MAX_NAME_LEN))]
    pub runtime: String,
    /// Execution mode of the receipt's profile; independent of `contract`.
    #[schemars(pattern(pattern::IDENTIFIER), length(max = crate::names::MAX_NAME_LEN))]
    pub execution_mode: String,
    /// The native runtime commit the artifact was built against (`revision`
    /// of `abi.toml`, 40 lowercase hex digits). Another pin means the entry
    /// ABI cannot be trusted: the loader answers `prepared_incompatible`.
    #[schemars(pattern(pattern::COMMIT))]
    pub abi_revision: String,
    /// The verified execution capabilities: exactly the one requested
    /// `(contract, execution_mode)`, never an implied dual mode.
    #[schemars(length(min = 1, max = 1))]
    pub capabilities: Vec<Capability>,
    /// The artifact file this document describes.
    pub artifact: ArtifactRef,
}

/// Schema 1 and 2 metadata: program fields only. Reloads as PROGRAM only.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CompiledMetaLegacy {
    /// Free text for humans. Never part of matching.
    #[serde(
        rename = "$comment",
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    #[schemars(length(max = MAX_COMMENT_CHARS))]
    pub comment: Option<String>,
    /// Document schema version: 1 or 2.
    pub schema: LegacySchema,
    /// The logical (caller) signature, in order.
    pub params: Vec<ParamInfo>,
    /// Number of values the program returns.
    pub return_count: u32,
    /// Platform the program was compiled for.
    #[schemars(pattern(pattern::IDENTIFIER), length(max = crate::names::MAX_NAME_LEN))]
    pub platform: String,
    /// Backend that compiled it.
    #[schemars(pattern(pattern::IDENTIFIER), length(max = crate::names::MAX_NAME_LEN))]
    pub backend: String,
}

/// One parameter of a signature (the seed's ParamInfo).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(transform = param_info_rules)]
pub struct ParamInfo {
    /// Parameter name.
    #[schemars(pattern(pattern::IDENTIFIER), length(max = crate::names::MAX_NAME_LEN))]
    pub name: String,
    /// Tensor or scalar.
    pub kind: ParamKind,
    /// Always `in` for scalars.
    pub direction: Direction,
    /// Element type (unchanged by lowering).
    pub dtype: DType,
    /// Extents, `-1` for a dynamic one; `[]` for scalars.
    #[schemars(inner(range(min = -1, max = u32::MAX)))]
    pub shape: Vec<i64>,
    /// Always `nd` for scalars.
    pub layout: Layout,
}

/// One verified execution capability.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Capability {
    /// Equals the document's `contract`.
    pub contract: Contract,
    /// Equals the document's `execution_mode`.
    #[schemars(pattern(pattern::IDENTIFIER), length(max = crate::names::MAX_NAME_LEN))]
    pub execution_mode: String,
}

/// The artifact file: where it is and what it hashes to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ArtifactRef {
    /// Relative to the artifact root, `/`-separated; equals the receipt's `artifact`.
    #[schemars(pattern(pattern::ARTIFACT_PATH))]
    pub path: String,
    /// SHA-256 of the artifact file, 64 lowercase hex digits; equals the receipt's.
    #[schemars(pattern(pattern::SHA256))]
    pub sha256: String,
}

/// The integer 3 (and nothing else).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Schema3;

impl Serialize for Schema3 {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u32(3)
    }
}

impl<'de> Deserialize<'de> for Schema3 {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match u32::deserialize(d)? {
            3 => Ok(Schema3),
            v => Err(de::Error::custom(format!("expected schema 3, found {v}"))),
        }
    }
}

impl JsonSchema for Schema3 {
    fn schema_name() -> Cow<'static, str> {
        "Schema3".into()
    }
    fn inline_schema() -> bool {
        true
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "type": "integer", "const": 3 })
    }
}

/// The integer 1 or 2.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct LegacySchema(u8);

impl LegacySchema {
    pub fn new(v: u8) -> Option<Self> {
        matches!(v, 1 | 2).then_some(LegacySchema(v))
    }
    pub fn get(self) -> u8 {
        self.0
    }
}

impl<'de> Deserialize<'de> for LegacySchema {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = u32::deserialize(d)?;
        u8::try_from(v)
            .ok()
            .and_then(LegacySchema::new)
            .ok_or_else(|| de::Error::custom(format!("expected schema 1 or 2, found {v}")))
    }
}

impl JsonSchema for LegacySchema {
    fn schema_name() -> Cow<'static, str> {
        "LegacySchema".into()
    }
    fn inline_schema() -> bool {
        true
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "type": "integer", "enum": [1, 2] })
    }
}

impl JsonSchema for CompiledMeta {
    fn schema_name() -> Cow<'static, str> {
        "CompiledMeta".into()
    }
    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let v3 = generator.subschema_for::<CompiledMetaV3>();
        let legacy = generator.subschema_for::<CompiledMetaLegacy>();
        json_schema!({
            "title": "kfam compiled_meta.json (schema 3; schemas 1 and 2 reload as PROGRAM only)",
            "description": "The metadata a compiled artifact carries. A loader admits the artifact only when this document and the artifact digest exact-match an approved family, profile and receipt. `schema` selects the shape: 3 requires every kernel field; 1 and 2 carry program fields only.",
            "type": "object",
            "required": ["schema"],
            "properties": {
                "schema": {
                    "description": "Document schema version. 3 is current; 1 and 2 are program metadata written before kernel mode.",
                    "type": "integer",
                    "enum": [1, 2, 3]
                }
            },
            "if": { "properties": { "schema": { "const": 3 } } },
            "then": v3,
            "else": legacy
        })
    }
}

/// Rules of one ParamInfo that JSON Schema can state: a scalar is `in`,
/// has no extents and the `nd` layout; a tensor has 1 or more extents, none 0.
fn param_info_rules(schema: &mut Schema) {
    schema.insert(
        "if".into(),
        json!({ "properties": { "kind": { "const": ParamKind::Scalar.as_str() } }, "required": ["kind"] }),
    );
    schema.insert(
        "then".into(),
        json!({ "properties": {
            "direction": { "const": Direction::In.as_str() },
            "shape": { "maxItems": 0 },
            "layout": { "const": Layout::Nd.as_str() },
        } }),
    );
    schema.insert(
        "else".into(),
        json!({ "properties": { "shape": { "minItems": 1, "items": { "not": { "const": 0 } } } } }),
    );
}

/// The one capability of a schema 3 document is the requested contract and
/// execution mode: for each value of `contract`, every capability must
/// carry the same value. (The execution modes are the catalog's:
/// [`capability_rules`] adds theirs.)
fn v3_rules(schema: &mut Schema) {
    let contracts: Vec<&str> = Contract::ALL.iter().map(|c| c.as_str()).collect();
    schema.insert(
        "allOf".into(),
        Value::Array(capability_rules("contract", &contracts)),
    );
}

/// For each value of `field`, every capability carries the same value.
pub fn capability_rules(field: &str, values: &[&str]) -> Vec<Value> {
    values
        .iter()
        .map(|v| {
            json!({
                "if": { "properties": { field: { "const": v } }, "required": [field] },
                "then": { "properties": { "capabilities": { "items": { "properties": { field: { "const": v } } } } } },
            })
        })
        .collect()
}

/// Deserialize a present optional field; an explicit `null` is rejected
/// (absent and `null` are not the same thing in a strict document).
fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<T>, D::Error> {
    T::deserialize(d).map(Some)
}

/// Every field of any version, for one strict pass over the document (which
/// also rejects unknown and duplicate keys); sorted out by `schema` after.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawMeta {
    #[serde(rename = "$comment", default, deserialize_with = "present")]
    comment: Option<String>,
    schema: u32,
    #[serde(default, deserialize_with = "present")]
    family: Option<String>,
    #[serde(default, deserialize_with = "present")]
    revision: Option<u32>,
    #[serde(default, deserialize_with = "present")]
    contract: Option<Contract>,
    #[serde(default, deserialize_with = "present")]
    params: Option<Vec<ParamInfo>>,
    #[serde(default, deserialize_with = "present")]
    lowered_params: Option<Vec<ParamInfo>>,
    #[serde(default, deserialize_with = "present")]
    return_count: Option<u32>,
    #[serde(default, deserialize_with = "present")]
    return_aliases: Option<Vec<u32>>,
    #[serde(default, deserialize_with = "present")]
    platform: Option<String>,
    #[serde(default, deserialize_with = "present")]
    backend: Option<String>,
    #[serde(default, deserialize_with = "present")]
    runtime: Option<String>,
    #[serde(default, deserialize_with = "present")]
    execution_mode: Option<String>,
    #[serde(default, deserialize_with = "present")]
    abi_revision: Option<String>,
    #[serde(default, deserialize_with = "present")]
    capabilities: Option<Vec<Capability>>,
    #[serde(default, deserialize_with = "present")]
    artifact: Option<ArtifactRef>,
}

/// Why a document is not an acceptable `compiled_meta.json`. Every variant
/// means "recompile required" to a loader.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MetaError {
    TooLarge(usize),
    /// Not JSON, wrong types, unknown or duplicate keys (serde's message).
    Json(String),
    UnsupportedSchema(u32),
    /// A required field is absent.
    MissingField {
        schema: u32,
        field: &'static str,
    },
    /// A schema 1 or 2 document carries a schema 3 field.
    KernelFieldInLegacy {
        schema: u8,
        field: &'static str,
    },
    /// `capabilities` is not exactly the requested `(contract, execution_mode)`.
    Capabilities,
    /// `$comment` is longer than [`MAX_COMMENT_CHARS`].
    CommentTooLong,
}

impl fmt::Display for MetaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MetaError::TooLarge(n) => write!(
                f,
                "document is {n} bytes, over the limit of {MAX_DOCUMENT_BYTES}"
            ),
            MetaError::Json(e) => write!(f, "{e}"),
            MetaError::UnsupportedSchema(v) => {
                write!(f, "unsupported schema {v}; expected 1, 2 or 3")
            }
            MetaError::MissingField { schema, field } => {
                write!(f, "schema {schema} document is missing `{field}`")
            }
            MetaError::KernelFieldInLegacy { schema, field } => {
                write!(
                    f,
                    "schema {schema} document carries `{field}`, which only schema 3 defines"
                )
            }
            MetaError::Capabilities => {
                write!(
                    f,
                    "`capabilities` must be exactly the requested `contract` and `execution_mode`"
                )
            }
            MetaError::CommentTooLong => {
                write!(f, "`$comment` is over {MAX_COMMENT_CHARS} characters")
            }
        }
    }
}

impl std::error::Error for MetaError {}

impl TryFrom<RawMeta> for CompiledMeta {
    type Error = MetaError;

    fn try_from(r: RawMeta) -> Result<Self, MetaError> {
        match r.schema {
            3 => {
                fn req<T>(v: Option<T>, k: &'static str) -> Result<T, MetaError> {
                    v.ok_or(MetaError::MissingField {
                        schema: 3,
                        field: k,
                    })
                }
                let meta = CompiledMetaV3 {
                    comment: r.comment,
                    schema: Schema3,
                    family: req(r.family, "family")?,
                    revision: req(r.revision, "revision")?,
                    contract: req(r.contract, "contract")?,
                    params: req(r.params, "params")?,
                    lowered_params: req(r.lowered_params, "lowered_params")?,
                    return_count: req(r.return_count, "return_count")?,
                    return_aliases: req(r.return_aliases, "return_aliases")?,
                    platform: req(r.platform, "platform")?,
                    backend: req(r.backend, "backend")?,
                    runtime: req(r.runtime, "runtime")?,
                    execution_mode: req(r.execution_mode, "execution_mode")?,
                    abi_revision: req(r.abi_revision, "abi_revision")?,
                    capabilities: req(r.capabilities, "capabilities")?,
                    artifact: req(r.artifact, "artifact")?,
                };
                let requested = Capability {
                    contract: meta.contract,
                    execution_mode: meta.execution_mode.clone(),
                };
                if meta.capabilities != [requested] {
                    return Err(MetaError::Capabilities);
                }
                Ok(CompiledMeta::V3(meta))
            }
            1 | 2 => {
                let schema = r.schema as u8;
                let kernel_fields = [
                    ("family", r.family.is_some()),
                    ("revision", r.revision.is_some()),
                    ("contract", r.contract.is_some()),
                    ("lowered_params", r.lowered_params.is_some()),
                    ("return_aliases", r.return_aliases.is_some()),
                    ("runtime", r.runtime.is_some()),
                    ("execution_mode", r.execution_mode.is_some()),
                    ("abi_revision", r.abi_revision.is_some()),
                    ("capabilities", r.capabilities.is_some()),
                    ("artifact", r.artifact.is_some()),
                ];
                if let Some((field, _)) = kernel_fields.iter().find(|(_, present)| *present) {
                    return Err(MetaError::KernelFieldInLegacy { schema, field });
                }
                let missing = |field| MetaError::MissingField {
                    schema: u32::from(schema),
                    field,
                };
                Ok(CompiledMeta::Legacy(CompiledMetaLegacy {
                    comment: r.comment,
                    schema: LegacySchema(schema),
                    params: r.params.ok_or_else(|| missing("params"))?,
                    return_count: r.return_count.ok_or_else(|| missing("return_count"))?,
                    platform: r.platform.ok_or_else(|| missing("platform"))?,
                    backend: r.backend.ok_or_else(|| missing("backend"))?,
                }))
            }
            v => Err(MetaError::UnsupportedSchema(v)),
        }
    }
}

impl<'de> Deserialize<'de> for CompiledMeta {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = RawMeta::deserialize(d)?;
        CompiledMeta::try_from(raw).map_err(de::Error::custom)
    }
}

impl CompiledMeta {
    /// Read a document strictly: bounded size, exact JSON types (a bool is
    /// not an integer, `3.0` is not `3`), no unknown, duplicate or `null`
    /// keys, and the fields of exactly its schema version.
    pub fn parse(text: &str) -> Result<CompiledMeta, MetaError> {
        if text.len() > MAX_DOCUMENT_BYTES {
            return Err(MetaError::TooLarge(text.len()));
        }
        let raw: RawMeta =
            serde_json::from_str(text).map_err(|e| MetaError::Json(e.to_string()))?;
        if raw
            .comment
            .as_ref()
            .is_some_and(|c| c.chars().count() > MAX_COMMENT_CHARS)
        {
            return Err(MetaError::CommentTooLong);
        }
        CompiledMeta::try_from(raw)
    }

    pub fn schema(&self) -> u32 {
        match self {
            CompiledMeta::V3(_) => 3,
            CompiledMeta::Legacy(m) => u32::from(m.schema.get()),
        }
    }

    /// Whether the document can establish a kernel contract (only schema 3
    /// documents that request one can).
    pub fn establishes_kernel_contract(&self) -> bool {
        matches!(self, CompiledMeta::V3(m) if m.contract == Contract::Kernel)
    }
}

impl ParamInfo {
    /// The logical (caller) entry of an IR parameter.
    pub fn logical(p: &ir::Param) -> ParamInfo {
        ParamInfo {
            name: p.name.clone(),
            kind: p.kind,
            direction: p.direction,
            dtype: p.dtype,
            shape: p.shape.clone(),
            layout: p.layout,
        }
    }

    /// The assembly entry: the same parameter with its lowered shape (NZ
    /// blocked, fp4 packed), dtype and layout unchanged.
    pub fn lowered(p: &ir::Param) -> ParamInfo {
        ParamInfo {
            shape: p.lowered_shape.clone(),
            ..ParamInfo::logical(p)
        }
    }
}

/// The exact document an artifact approved by `receipt` of `family`, built
/// against the native runtime pinned by `abi`, carries (without `$comment`).
/// A loader admits a document only when it equals this for the receipt whose
/// `sha256` matches the artifact.
pub fn expected(abi: &ir::Abi, family: &ir::Family, receipt: &ir::Receipt) -> CompiledMetaV3 {
    let profile = &family.profiles[receipt.profile];
    CompiledMetaV3 {
        comment: None,
        schema: Schema3,
        family: family.name.clone(),
        revision: family.revision,
        contract: family.contract,
        params: family.params.iter().map(ParamInfo::logical).collect(),
        lowered_params: family.params.iter().map(ParamInfo::lowered).collect(),
        return_count: family.returns.len() as u32,
        return_aliases: family.returns.iter().map(|&i| i as u32).collect(),
        platform: profile.platform.name.clone(),
        backend: profile.backend.name.clone(),
        runtime: profile.runtime.name.clone(),
        execution_mode: profile.execution_mode.name.clone(),
        abi_revision: abi.revision.clone(),
        capabilities: vec![Capability {
            contract: family.contract,
            execution_mode: profile.execution_mode.name.clone(),
        }],
        artifact: ArtifactRef {
            path: receipt.artifact.clone(),
            sha256: receipt.sha256.clone(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v3() -> Value {
        json!({
            "schema": 3, "family": "f", "revision": 1, "contract": "kernel",
            "params": [{"name": "x", "kind": "tensor", "direction": "out", "dtype": "fp32", "shape": [4], "layout": "nd"}],
            "lowered_params": [{"name": "x", "kind": "tensor", "direction": "out", "dtype": "fp32", "shape": [4], "layout": "nd"}],
            "return_count": 1, "return_aliases": [0], "platform": "a2a3", "backend": "pto",
            "runtime": "tensormap_and_ringbuffer", "execution_mode": "sim",
            "abi_revision": "ab".repeat(20),
            "capabilities": [{"contract": "kernel", "execution_mode": "sim"}],
            "artifact": {"path": "a/b.so", "sha256": "00".repeat(32)},
        })
    }

    #[test]
    fn parses_v3_and_round_trips() {
        let text = v3().to_string();
        let meta = CompiledMeta::parse(&text).unwrap();
        assert!(meta.establishes_kernel_contract());
        assert_eq!(serde_json::to_value(&meta).unwrap(), v3());
    }

    #[test]
    fn strict_types_and_keys() {
        let mut v = v3();
        v["revision"] = json!(true);
        assert!(CompiledMeta::parse(&v.to_string()).is_err());
        let mut v = v3();
        v["return_count"] = json!(1.0);
        assert!(CompiledMeta::parse(&v.to_string()).is_err());
        let mut v = v3();
        v["extra"] = json!(1);
        assert!(CompiledMeta::parse(&v.to_string()).is_err());
        let mut v = v3();
        v["return_aliases"] = Value::Null;
        assert!(CompiledMeta::parse(&v.to_string()).is_err());
        let dup = v3()
            .to_string()
            .replacen("\"schema\":3", "\"schema\":3,\"schema\":3", 1);
        assert!(CompiledMeta::parse(&dup).is_err(), "{dup}");
    }

    #[test]
    fn v3_requires_every_kernel_field() {
        let mut v = v3();
        v.as_object_mut().unwrap().remove("return_aliases");
        assert_eq!(
            CompiledMeta::parse(&v.to_string()),
            Err(MetaError::MissingField {
                schema: 3,
                field: "return_aliases"
            })
        );
    }

    #[test]
    fn capabilities_are_exactly_the_request() {
        let mut v = v3();
        v["capabilities"] = json!([{"contract": "kernel", "execution_mode": "sim"}, {"contract": "kernel", "execution_mode": "onboard"}]);
        assert_eq!(
            CompiledMeta::parse(&v.to_string()),
            Err(MetaError::Capabilities)
        );
        v["capabilities"] = json!([{"contract": "program", "execution_mode": "sim"}]);
        assert_eq!(
            CompiledMeta::parse(&v.to_string()),
            Err(MetaError::Capabilities)
        );
    }

    #[test]
    fn legacy_is_program_only() {
        let legacy = json!({"schema": 2, "params": [], "return_count": 0, "platform": "a5", "backend": "cce"});
        let meta = CompiledMeta::parse(&legacy.to_string()).unwrap();
        assert_eq!(meta.schema(), 2);
        assert!(!meta.establishes_kernel_contract());
        let mut with_kernel = legacy.clone();
        with_kernel["contract"] = json!("kernel");
        assert!(matches!(
            CompiledMeta::parse(&with_kernel.to_string()),
            Err(MetaError::KernelFieldInLegacy {
                schema: 2,
                field: "contract"
            })
        ));
        let mut v4 = legacy;
        v4["schema"] = json!(4);
        assert_eq!(
            CompiledMeta::parse(&v4.to_string()),
            Err(MetaError::UnsupportedSchema(4))
        );
    }
}
