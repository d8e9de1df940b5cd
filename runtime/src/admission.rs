//! Admission of a compiled artifact: its `compiled_meta.json` and digest
//! must exact-match an approved family, profile and receipt before a loader
//! builds any cache entry. The accepted document is the one described by
//! `generated/schema/compiled_meta.schema.json`.

use std::borrow::Cow;

use crate::types::{Family, Param, Profile, Receipt};
use crate::vocab::{
    Admission, Backend, Contract, DType, Direction, ExecutionMode, Layout, ParamKind, Platform,
    Runtime,
};

/// Largest document accepted.
pub const MAX_DOCUMENT_BYTES: usize = 1 << 20;
/// Longest `$comment` accepted, in characters (the schema's `maxLength`).
pub const MAX_COMMENT_CHARS: usize = 1024;

/// An admitted artifact.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Admitted {
    pub family: &'static Family,
    pub profile: &'static Profile,
    pub receipt: &'static Receipt,
    /// The contract the artifact may be loaded with (always `program` for
    /// schema 1 and 2 documents).
    pub contract: Contract,
}

/// A refusal: the outcome and, for `not_approved`, the first field that
/// differs (e.g. `params`, `artifact.sha256`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Refused {
    pub outcome: Admission,
    pub field: Option<&'static str>,
}

impl core::fmt::Display for Refused {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self.field {
            Some(field) => write!(f, "{} (`{field}` differs)", self.outcome),
            None => write!(f, "{}", self.outcome),
        }
    }
}

impl std::error::Error for Refused {}

fn refuse(outcome: Admission) -> Refused {
    Refused {
        outcome,
        field: None,
    }
}

fn differs(field: &'static str) -> Refused {
    Refused {
        outcome: Admission::NotApproved,
        field: Some(field),
    }
}

mod json;
#[cfg(test)]
mod parser_tests;

// The document, as `json::parse` reads it. A string borrows from the
// document unless it has escapes.

#[derive(Debug, PartialEq)]
struct ParamDoc<'a> {
    name: Cow<'a, str>,
    kind: Cow<'a, str>,
    direction: Cow<'a, str>,
    dtype: Cow<'a, str>,
    shape: Small<i64, 8>,
    layout: Cow<'a, str>,
}

#[derive(Debug, PartialEq, Default)]
struct CapabilityDoc<'a> {
    contract: Cow<'a, str>,
    execution_mode: Cow<'a, str>,
}

#[derive(Debug, PartialEq)]
struct ArtifactDoc<'a> {
    path: Cow<'a, str>,
    sha256: Cow<'a, str>,
}

/// Every field of every schema version; which are required depends on
/// `schema` and is decided after parsing. An optional key is absent or has
/// a value: `null` is refused, as the published schema and the reference
/// reader (`kfam_codegen::compiled_meta`) refuse it.
#[derive(Debug, PartialEq)]
struct Doc<'a> {
    _comment: Option<Cow<'a, str>>,
    schema: u32,
    family: Option<Cow<'a, str>>,
    revision: Option<u32>,
    contract: Option<Cow<'a, str>>,
    params: Vec<ParamDoc<'a>>,
    lowered_params: Option<Vec<ParamDoc<'a>>>,
    return_count: Option<u32>,
    return_aliases: Option<Small<u32, 8>>,
    platform: Cow<'a, str>,
    backend: Cow<'a, str>,
    runtime: Option<Cow<'a, str>>,
    execution_mode: Option<Cow<'a, str>>,
    capabilities: Option<Small<CapabilityDoc<'a>, 1>>,
    artifact: Option<ArtifactDoc<'a>>,
    /// The native runtime revision the artifact was built against.
    abi_revision: Option<Cow<'a, str>>,
}

/// A list kept inline up to `N` items (shapes, return aliases, the one
/// capability), so a typical document is read without allocating them;
/// longer lists move to the heap and compare the same.
type Small<T, const N: usize> = smallvec::SmallVec<[T; N]>;

/// A parsed vocabulary value, or a malformed document.
fn vocab<T>(s: &str, parse: fn(&str) -> Option<T>) -> Result<T, Refused> {
    parse(s).ok_or(refuse(Admission::Malformed))
}

/// Every vocabulary value of a parameter is a known spelling.
fn param_view(p: &ParamDoc<'_>) -> Result<(), Refused> {
    vocab(&p.kind, ParamKind::parse)?;
    vocab(&p.direction, Direction::parse)?;
    vocab(&p.dtype, DType::parse)?;
    vocab(&p.layout, Layout::parse)?;
    Ok(())
}

/// Compare a signature with the approved one, using `lowered` shapes or not.
fn same_signature(
    docs: &[ParamDoc<'_>],
    approved: &[Param],
    lowered: bool,
) -> Result<bool, Refused> {
    if docs.len() != approved.len() {
        return Ok(false);
    }
    // Every vocabulary value was parsed up front (`admit`), so comparing
    // spellings is comparing values.
    for (d, p) in docs.iter().zip(approved) {
        let shape = if lowered { p.lowered_shape } else { p.shape };
        if d.name != p.name
            || d.kind != p.kind.as_str()
            || d.direction != p.direction.as_str()
            || d.dtype != p.dtype.as_str()
            || d.layout != p.layout.as_str()
            || d.shape.as_slice() != shape
        {
            return Ok(false);
        }
    }
    Ok(true)
}

/// Admit `json` (the artifact's `compiled_meta.json`) for the artifact whose
/// SHA-256 is `sha256` (lowercase hex).
pub fn admit(json: &[u8], sha256: &str) -> Result<Admitted, Refused> {
    // A digest that is not 64 lowercase hex digits is a caller error, refused
    // before the document is read (as the C ABI does).
    if sha256.len() != 64
        || !sha256
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    {
        return Err(refuse(Admission::Malformed));
    }
    if json.len() > MAX_DOCUMENT_BYTES {
        return Err(refuse(Admission::Malformed));
    }
    // UTF-8 is checked once for the whole document (fast), so the reader
    // need not validate every string again; invalid UTF-8 is malformed
    // either way.
    let text = std::str::from_utf8(json).map_err(|_| refuse(Admission::Malformed))?;
    let doc = json::parse(text).map_err(|_| refuse(Admission::Malformed))?;
    // Vocabulary values are checked up front, so a bad spelling is always
    // "malformed" whatever else differs.
    let platform = vocab(&doc.platform, Platform::parse)?;
    let backend = vocab(&doc.backend, Backend::parse)?;
    for p in doc.params.iter().chain(doc.lowered_params.iter().flatten()) {
        param_view(p)?;
    }
    match doc.schema {
        1 | 2 => admit_legacy(&doc, platform, backend, sha256),
        3 => admit_v3(&doc, platform, backend, sha256),
        _ => Err(refuse(Admission::Malformed)),
    }
}

/// Schema 1/2: program metadata, matched through the artifact digest. It
/// never establishes a kernel contract.
fn admit_legacy(
    doc: &Doc<'_>,
    platform: Platform,
    backend: Backend,
    sha256: &str,
) -> Result<Admitted, Refused> {
    let kernel_fields = doc.family.is_some()
        || doc.revision.is_some()
        || doc.contract.is_some()
        || doc.lowered_params.is_some()
        || doc.return_aliases.is_some()
        || doc.runtime.is_some()
        || doc.execution_mode.is_some()
        || doc.capabilities.is_some()
        || doc.artifact.is_some()
        || doc.abi_revision.is_some();
    if kernel_fields {
        return Err(refuse(Admission::Malformed));
    }
    let Some(return_count) = doc.return_count else {
        return Err(refuse(Admission::Malformed));
    };
    let (family, profile, receipt) =
        crate::find_artifact(sha256).ok_or_else(|| match crate::find_retired_artifact(sha256) {
            Some(_) => refuse(Admission::Retired),
            None => differs("artifact.sha256"),
        })?;
    if family.contract != Contract::Program {
        return Err(refuse(Admission::RecompileRequired));
    }
    if !same_signature(&doc.params, family.params, false)? {
        return Err(differs("params"));
    }
    if return_count as usize != family.returns.len() {
        return Err(differs("return_count"));
    }
    if platform != profile.platform {
        return Err(differs("platform"));
    }
    if backend != profile.backend {
        return Err(differs("backend"));
    }
    Ok(Admitted {
        family,
        profile,
        receipt,
        contract: Contract::Program,
    })
}

fn admit_v3(
    doc: &Doc<'_>,
    platform: Platform,
    backend: Backend,
    sha256: &str,
) -> Result<Admitted, Refused> {
    let malformed = || refuse(Admission::Malformed);
    let name = doc.family.as_deref().ok_or_else(malformed)?;
    let revision = doc.revision.ok_or_else(malformed)?;
    let contract = vocab(
        doc.contract.as_deref().ok_or_else(malformed)?,
        Contract::parse,
    )?;
    let runtime = vocab(
        doc.runtime.as_deref().ok_or_else(malformed)?,
        Runtime::parse,
    )?;
    let mode = vocab(
        doc.execution_mode.as_deref().ok_or_else(malformed)?,
        ExecutionMode::parse,
    )?;
    let artifact = doc.artifact.as_ref().ok_or_else(malformed)?;

    // Kernel fields an older producer did not write: rebuild the artifact.
    let recompile = || refuse(Admission::RecompileRequired);
    let (Some(lowered), Some(return_count), Some(aliases), Some(caps), Some(abi_revision)) = (
        &doc.lowered_params,
        doc.return_count,
        &doc.return_aliases,
        &doc.capabilities,
        doc.abi_revision.as_deref(),
    ) else {
        return Err(recompile());
    };
    if return_count as usize != aliases.len()
        || aliases.iter().any(|&a| {
            doc.params.get(a as usize).is_none_or(|p| {
                p.kind != ParamKind::Tensor.as_str() || p.direction == Direction::In.as_str()
            })
        })
    {
        return Err(recompile());
    }
    // Exactly the requested capability, never an implied dual mode.
    let [cap] = caps.as_slice() else {
        return Err(recompile());
    };
    if vocab(&cap.contract, Contract::parse)? != contract
        || vocab(&cap.execution_mode, ExecutionMode::parse)? != mode
    {
        return Err(recompile());
    }

    // Built against another native runtime: its entry ABI cannot be trusted.
    if abi_revision != crate::ABI.revision {
        return Err(refuse(Admission::PreparedIncompatible));
    }
    let family = crate::find_family(name).ok_or_else(|| match crate::find_retired(name) {
        Some(_) => refuse(Admission::Retired),
        None => refuse(Admission::UnknownFamily),
    })?;
    if revision != family.revision {
        return Err(differs("revision"));
    }
    if contract != family.contract {
        return Err(differs("contract"));
    }
    if !same_signature(&doc.params, family.params, false)? {
        return Err(differs("params"));
    }
    if !same_signature(lowered, family.params, true)? {
        return Err(differs("lowered_params"));
    }
    if return_count as usize != family.returns.len() {
        return Err(differs("return_count"));
    }
    if aliases.as_slice() != family.returns {
        return Err(differs("return_aliases"));
    }
    let matching = |p: &&Profile| p.platform == platform;
    if !family.profiles.iter().any(|p| matching(&p)) {
        return Err(differs("platform"));
    }
    let matching = |p: &&Profile| matching(p) && p.backend == backend;
    if !family.profiles.iter().any(|p| matching(&p)) {
        return Err(differs("backend"));
    }
    let matching = |p: &&Profile| matching(p) && p.runtime == runtime;
    if !family.profiles.iter().any(|p| matching(&p)) {
        return Err(differs("runtime"));
    }
    let matching = |p: &&Profile| matching(p) && p.execution_mode == mode;
    let profile_index = family
        .profiles
        .iter()
        .position(|p| matching(&p))
        .ok_or(differs("execution_mode"))?;
    let profile = &family.profiles[profile_index];
    if artifact.sha256 != sha256 {
        return Err(differs("artifact.sha256"));
    }
    let receipt = family
        .receipts
        .iter()
        .find(|r| r.profile as usize == profile_index && r.sha256 == sha256)
        .ok_or(differs("artifact.sha256"))?;
    if artifact.path != receipt.artifact {
        return Err(differs("artifact.path"));
    }
    Ok(Admitted {
        family,
        profile,
        receipt,
        contract,
    })
}
