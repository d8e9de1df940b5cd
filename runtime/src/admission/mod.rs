//! Admission of a compiled artifact: its `compiled_meta.json` and digest
//! must exact-match an approved family, profile and receipt before a loader
//! builds any cache entry. The accepted document is the one described by
//! `generated/schema/compiled_meta.schema.json`.

use crate::catalog::Catalog;
use crate::targets::{Backend, Platform};
use crate::types::{Family, Param, Profile, Receipt};
use crate::vocab::{Admission, Contract, DType, Direction, Layout, ParamKind};

/// Largest document accepted.
pub const MAX_DOCUMENT_BYTES: usize = 1 << 20;

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

impl core::fmt::Display for Admitted {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "{}: `{}` revision {}",
            Admission::Admitted,
            self.family.name,
            self.family.revision
        )
    }
}

/// A refusal: the outcome and, for `not_approved`, the first field that
/// differs (e.g. `params`, `artifact.sha256`); for `malformed`, what made
/// the document malformed; `note`, why beyond a difference (a placeholder
/// digest: [`is_placeholder_digest`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Refused {
    pub outcome: Admission,
    pub field: Option<&'static str>,
    pub malformed: Option<Malformed>,
    pub note: Option<&'static str>,
}

impl core::fmt::Display for Refused {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match (self.note, self.field, self.malformed) {
            (Some(note), _, _) => write!(f, "{}: {note}", self.outcome),
            (None, Some(field), _) => write!(f, "{} (`{field}` differs)", self.outcome),
            (None, None, Some(m)) => write!(f, "{}: {m}", self.outcome),
            (None, None, None) => write!(f, "{}", self.outcome),
        }
    }
}

impl std::error::Error for Refused {}

fn refuse(outcome: Admission) -> Refused {
    Refused {
        outcome,
        field: None,
        malformed: None,
        note: None,
    }
}

/// Whether `sha256` is a placeholder digest: its first 32 hex digits are
/// zeros, as in the receipt `kfam new` and `kfam init` write before a
/// family is qualified. No artifact is expected to have one (a chance of
/// 2^-128), so a loader that passes one took the digest from the catalog
/// rather than from the artifact, and is refused even where the catalog
/// still holds the placeholder receipt (docs/manifest.md, "Receipts").
pub fn is_placeholder_digest(sha256: &str) -> bool {
    sha256.len() == 64 && sha256.bytes().take(32).all(|b| b == b'0')
}

/// The refusal of a placeholder digest, at the point where the digest
/// would be matched against the receipts.
fn check_not_placeholder(sha256: &str) -> Result<(), Refused> {
    if !is_placeholder_digest(sha256) {
        return Ok(());
    }
    Err(Refused {
        note: Some(
            "`artifact.sha256` is a placeholder digest (32 leading zeros, as `kfam new` writes), \
             which approves no artifact: qualify the artifact and record its receipt",
        ),
        ..differs("artifact.sha256")
    })
}

fn differs(field: &'static str) -> Refused {
    Refused {
        field: Some(field),
        ..refuse(Admission::NotApproved)
    }
}

/// A malformed document: `key` (under `within`) `why`.
fn malformed(
    key: Option<&'static str>,
    within: Option<&'static str>,
    why: &'static str,
) -> Refused {
    refuse_malformed(Malformed { key, within, why })
}

fn refuse_malformed(m: Malformed) -> Refused {
    Refused {
        malformed: Some(m),
        ..refuse(Admission::Malformed)
    }
}

mod document;

use document::{Doc, Obj, ParamDoc};
// Defined by the reader, which finds them; part of this module's API.
pub use document::{Malformed, MAX_COMMENT_CHARS};

/// A parsed vocabulary value of `key` (under `within`), or a malformed
/// document.
fn vocab_of<T>(
    s: &str,
    parse: impl Fn(&str) -> Option<T>,
    key: &'static str,
    within: Option<&'static str>,
) -> Result<T, Refused> {
    parse(s).ok_or_else(|| malformed(Some(key), within, "is not a known value"))
}

fn vocab<T>(s: &str, parse: impl Fn(&str) -> Option<T>, key: &'static str) -> Result<T, Refused> {
    vocab_of(s, parse, key, None)
}

/// Every vocabulary value of a parameter (of `within`) is a known spelling.
fn param_view(p: &ParamDoc<'_>, within: &'static str) -> Result<(), Refused> {
    let w = Some(within);
    vocab_of(&p.kind, ParamKind::parse, "kind", w)?;
    vocab_of(&p.direction, Direction::parse, "direction", w)?;
    vocab_of(&p.dtype, DType::parse, "dtype", w)?;
    vocab_of(&p.layout, Layout::parse, "layout", w)?;
    Ok(())
}

/// Compare a signature with the approved one, using `lowered` shapes or not.
fn same_signature(
    docs: &[Obj<ParamDoc<'_>>],
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
            || d.shape != shape
        {
            return Ok(false);
        }
    }
    Ok(true)
}

impl Catalog {
    /// Admit an artifact's `compiled_meta.json` against this catalog, for
    /// the artifact whose SHA-256 is `sha256` (lowercase hex).
    pub fn admit(&self, json: &[u8], sha256: &str) -> Result<Admitted, Refused> {
        decide(self, json, sha256)
    }
}

/// [`Catalog::admit`].
pub(crate) fn decide(cat: &Catalog, json: &[u8], sha256: &str) -> Result<Admitted, Refused> {
    // A digest that is not 64 lowercase hex digits is a caller error, refused
    // before the document is read (as the C ABI does).
    if sha256.len() != 64
        || !sha256
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    {
        return Err(malformed(
            None,
            None,
            "cannot be matched: the artifact digest argument is not 64 lowercase hex digits",
        ));
    }
    if json.len() > MAX_DOCUMENT_BYTES {
        return Err(malformed(None, None, "is over the size limit"));
    }
    // UTF-8 is checked once for the whole document, so a refusal for it
    // says so; the reader then works on `&str`.
    let text = std::str::from_utf8(json).map_err(|_| malformed(None, None, "is not UTF-8"))?;
    let doc = document::parse(text).map_err(refuse_malformed)?;
    // Vocabulary values are checked up front, so a bad spelling is always
    // "malformed" whatever else differs.
    let platform = vocab(&doc.platform, |s| cat.targets.platform(s), "platform")?;
    let backend = vocab(&doc.backend, |s| cat.targets.backend(s), "backend")?;
    for p in &doc.params {
        param_view(p, "params")?;
    }
    for p in doc.lowered_params.iter().flatten() {
        param_view(p, "lowered_params")?;
    }
    match doc.schema {
        1 | 2 => admit_legacy(cat, &doc, platform, backend, sha256),
        3 => admit_v3(cat, &doc, platform, backend, sha256),
        _ => Err(malformed(Some("schema"), None, "is not 1, 2 or 3")),
    }
}

/// Schema 1/2: program metadata, matched through the artifact digest. It
/// never establishes a kernel contract.
fn admit_legacy(
    cat: &Catalog,
    doc: &Doc<'_>,
    platform: Platform,
    backend: Backend,
    sha256: &str,
) -> Result<Admitted, Refused> {
    let kernel_fields = [
        ("family", doc.family.is_some()),
        ("revision", doc.revision.is_some()),
        ("contract", doc.contract.is_some()),
        ("lowered_params", doc.lowered_params.is_some()),
        ("return_aliases", doc.return_aliases.is_some()),
        ("runtime", doc.runtime.is_some()),
        ("execution_mode", doc.execution_mode.is_some()),
        ("capabilities", doc.capabilities.is_some()),
        ("artifact", doc.artifact.is_some()),
        ("abi_revision", doc.abi_revision.is_some()),
    ];
    if let Some((key, _)) = kernel_fields.iter().find(|(_, present)| *present) {
        return Err(malformed(
            Some(key),
            None,
            "is a schema 3 key in a schema 1 or 2 document",
        ));
    }
    let Some(return_count) = doc.return_count else {
        return Err(malformed(Some("return_count"), None, "is missing"));
    };
    check_not_placeholder(sha256)?;
    let (family, profile, receipt) =
        cat.find_artifact(sha256)
            .ok_or_else(|| match cat.find_retired_artifact(sha256) {
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
    cat: &Catalog,
    doc: &Doc<'_>,
    platform: Platform,
    backend: Backend,
    sha256: &str,
) -> Result<Admitted, Refused> {
    let missing = |key| move || malformed(Some(key), None, "is missing");
    let name = doc.family.as_deref().ok_or_else(missing("family"))?;
    let revision = doc.revision.ok_or_else(missing("revision"))?;
    let contract = vocab(
        doc.contract.as_deref().ok_or_else(missing("contract"))?,
        Contract::parse,
        "contract",
    )?;
    let runtime = vocab(
        doc.runtime.as_deref().ok_or_else(missing("runtime"))?,
        |s| cat.targets.runtime(s),
        "runtime",
    )?;
    let mode = vocab(
        doc.execution_mode
            .as_deref()
            .ok_or_else(missing("execution_mode"))?,
        |s| cat.targets.execution_mode(s),
        "execution_mode",
    )?;
    let artifact = doc.artifact.as_ref().ok_or_else(missing("artifact"))?;

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
    let caps = Some("capabilities");
    if vocab_of(&cap.contract, Contract::parse, "contract", caps)? != contract
        || vocab_of(
            &cap.execution_mode,
            |s| cat.targets.execution_mode(s),
            "execution_mode",
            caps,
        )? != mode
    {
        return Err(recompile());
    }

    // Built against another native runtime: its entry ABI cannot be trusted.
    if abi_revision != cat.abi.revision {
        return Err(refuse(Admission::PreparedIncompatible));
    }
    let family = cat.find(name).ok_or_else(|| match cat.find_retired(name) {
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
    check_not_placeholder(sha256)?;
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
