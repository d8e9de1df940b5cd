//! The starting files of a catalog: `kfam init` (an `abi.toml` and an
//! example family) and `kfam new` (a family skeleton of any operation kind).
//!
//! The text lives in template files beside this one (`abi.toml`,
//! `family.toml`, and one `kinds/<kind>.toml` per [`OperationKind`], which
//! the family template wraps); this module fills their `{{placeholders}}`
//! and derives what follows from a skeleton's parameters (its `returns` and
//! bindings) and from the vocabularies (the lists of choices in comments),
//! so that a skeleton stays consistent with itself and with the vocabulary.
//! Every skeleton checks clean, without a warning, in the manifest `init`
//! writes (`codegen/tests/init.rs`).

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::ir::Targets;
use crate::names::{
    c_prefix_problem, identifier_problem, is_reserved, python_package_problem,
    torch_namespace_problem,
};
use crate::record::{OperationKind, VOCABULARIES};
use crate::write::{self, WriteError};

/// The license `kfam init` declares unless told: the outputs of a team's
/// own catalog grant nobody any rights until the team chooses a license.
pub const DEFAULT_LICENSE: &str = "LicenseRef-Proprietary";
/// The catalog name `kfam init` falls back to when the directory's name
/// makes none.
pub const FALLBACK_NAME: &str = "my_catalog";
/// The example family `kfam init` writes, and its kind.
pub const EXAMPLE_FAMILY: &str = "example_add";
pub const EXAMPLE_KIND: OperationKind = OperationKind::ElementwiseBinary;

const ABI: &str = include_str!("abi.toml");
const FAMILY: &str = include_str!("family.toml");

/// The template of a kind's operation and parameters, which the kind
/// declares (`kinds/<kind>.toml`, named by its [`crate::record::Kind`]).
fn kind_template(kind: OperationKind) -> &'static str {
    crate::record::operation(kind)
        .kind
        .expect("every operation record declares its kind")
        .template
}

/// The comment block every kind's parameters begin with.
const SIGNATURE: &str = "\
# The signature, in order. Each parameter: `name`; `kind` tensor (the
# default) or scalar; `direction` in (the default), out or inout; `dtype`;
# for tensors `shape` and `layout` ({{Layout}}; default nd).
# dtype: {{DType}}.
# A shape entry is a static extent, -1 (a dynamic extent), or a symbol: a
# dynamic extent that is equal wherever its name appears.";

/// `template` with each `{{key}}` replaced by `value(key)`, or by the
/// members of the vocabulary named `key` (`{{BinaryOp}}`: `add, sub, ...
/// or min`).
///
/// # Panics
///
/// On a placeholder that names nothing (a template bug: the tests render
/// every template).
fn fill(template: &str, value: &dyn Fn(&str) -> Option<String>) -> String {
    let mut out = String::with_capacity(template.len() + 512);
    let mut rest = template;
    while let Some(start) = rest.find("{{") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let end = after.find("}}").expect("an unclosed `{{` in a template");
        let key = &after[..end];
        let text = value(key)
            .or_else(|| vocabulary_list(key))
            .unwrap_or_else(|| panic!("template placeholder `{{{{{key}}}}}` names nothing"));
        out.push_str(&text);
        rest = &after[end + 2..];
    }
    out.push_str(rest);
    out
}

/// `a, b or c`: the spellings of the vocabulary named `name`.
fn vocabulary_list(name: &str) -> Option<String> {
    let v = VOCABULARIES
        .iter()
        .find(|v| v.name == name && !v.declared)?;
    let words: Vec<&str> = v.members.iter().map(|m| m.spelling).collect();
    Some(or_list(&words))
}

fn or_list(words: &[&str]) -> String {
    match words {
        [] => String::new(),
        [one] => (*one).to_owned(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

/// What a skeleton's profile and receipt name, from the catalog's
/// `abi.toml`: its platforms (each with its backends and runtimes), its
/// execution modes and its codecs, kfam's defaults where it declares none.
/// Read leniently: a malformed `abi.toml` is the checker's to report, and
/// the skeleton then names the defaults.
#[derive(Debug, Clone)]
pub struct Skeleton {
    platforms: Vec<(String, Vec<String>, Vec<String>)>,
    modes: Vec<String>,
    codec: String,
}

impl Skeleton {
    /// The skeleton of the catalog whose `abi.toml` reads `abi`.
    pub fn of(abi: &str) -> Self {
        let doc: toml::Table = abi.parse().unwrap_or_default();
        let names = |key: &str, field: &str, t: &toml::Value| -> Vec<String> {
            t.get(key)
                .and_then(|v| v.as_array())
                .map(|a| {
                    a.iter()
                        .filter_map(|x| x.get(field).or(Some(x)).and_then(|n| n.as_str()))
                        .map(str::to_owned)
                        .collect()
                })
                .unwrap_or_default()
        };
        let defaults = Targets::default();
        let root = toml::Value::Table(doc);
        let mut platforms: Vec<(String, Vec<String>, Vec<String>)> = root
            .get("platforms")
            .and_then(|v| v.as_array())
            .map(|a| {
                a.iter()
                    .filter_map(|p| {
                        let name = p.get("name")?.as_str()?.to_owned();
                        Some((name, names("backends", "", p), names("runtimes", "", p)))
                    })
                    .filter(|(_, b, r)| !b.is_empty() && !r.is_empty())
                    .collect()
            })
            .unwrap_or_default();
        if platforms.is_empty() {
            platforms = defaults
                .platforms
                .iter()
                .map(|p| {
                    (
                        p.target.name.clone(),
                        p.backends.clone(),
                        p.runtimes.clone(),
                    )
                })
                .collect();
        }
        let mut modes = names("execution_modes", "name", &root);
        if modes.is_empty() {
            modes = defaults
                .execution_modes
                .iter()
                .map(|m| m.name.clone())
                .collect();
        }
        let codec = names("codecs", "name", &root)
            .into_iter()
            .next()
            .unwrap_or_else(|| format!("{}.kernel.v1", platforms[0].0));
        Skeleton {
            platforms,
            modes,
            codec,
        }
    }

    /// One comment line per platform: its backends and runtimes.
    fn platform_lines(&self) -> String {
        let lines: Vec<String> = self
            .platforms
            .iter()
            .map(|(p, backends, runtimes)| {
                let words =
                    |l: &[String]| or_list(&l.iter().map(String::as_str).collect::<Vec<_>>());
                format!(
                    "#   {p}: backend {}; runtime {}",
                    words(backends),
                    words(runtimes)
                )
            })
            .collect();
        lines.join("\n")
    }
}

/// `abi.toml` of a new catalog named `name` (an identifier: see
/// [`catalog_name_problem`]) under `license` (any text: it is written as a
/// TOML string, and the checker judges it).
pub fn abi_toml(name: &str, license: &str) -> String {
    let license = toml::Value::String(license.to_owned()).to_string();
    // A C prefix is one word (KF1201): a name with `_` declares its own.
    let c_prefix = if name.contains('_') {
        format!(
            "# One word, since `name` has `_` (the C names of two catalogs never collide).\n\
             c_prefix = \"{}\"",
            c_prefix_of(name)
        )
    } else {
        format!("# c_prefix = \"{name}\"")
    };
    fill(ABI, &|key| match key {
        "name" => Some(name.to_owned()),
        "license" => Some(license.clone()),
        "c_prefix" => Some(c_prefix.clone()),
        _ => None,
    })
}

/// The skeleton of a family `family` (an identifier) of `kind`, whose
/// placeholder receipt is dated `date` (`YYYY-MM-DD`), with a profile on
/// the first platform, backend, runtime and execution mode of `targets`.
pub fn family_toml(kind: OperationKind, family: &str, date: &str, targets: &Skeleton) -> String {
    let operation = fill(kind_template(kind), &|key| match key {
        "signature" => Some(fill(SIGNATURE, &|_| None)),
        _ => None,
    });
    let (returns, bindings) = derived(&operation);
    let returns: Vec<String> = returns.iter().map(|r| format!("\"{r}\"")).collect();
    let (platform, backends, runtimes) = &targets.platforms[0];
    let (backend, runtime, mode) = (&backends[0], &runtimes[0], &targets.modes[0]);
    fill(FAMILY, &|key| match key {
        "family" => Some(family.to_owned()),
        "kind" => Some(kind.as_str().to_owned()),
        "operation" => Some(operation.clone()),
        "returns" => Some(returns.join(", ")),
        "bindings" => Some(bindings.clone()),
        "platforms" => Some(targets.platform_lines()),
        "modes" => Some(or_list(
            &targets.modes.iter().map(String::as_str).collect::<Vec<_>>(),
        )),
        "profile" => Some(format!("{platform}_{mode}")),
        "platform" => Some(platform.clone()),
        "backend" => Some(backend.clone()),
        "runtime" => Some(runtime.clone()),
        "mode" => Some(mode.clone()),
        "codec" => Some(targets.codec.clone()),
        "sha256" => Some(placeholder_sha256(family)),
        "date" => Some(date.to_owned()),
        _ => None,
    })
}

/// What follows from a skeleton's parameters: the returned tensors (every
/// `out` or `inout` tensor) and one launch slot per parameter, in order.
///
/// # Panics
///
/// When the kind's template is not TOML with a `[[params]]` array (a
/// template bug).
fn derived(operation: &str) -> (Vec<String>, String) {
    let doc: toml::Table = operation
        .parse()
        .unwrap_or_else(|e| panic!("a kind template is not TOML: {e}"));
    let params = doc
        .get("params")
        .and_then(|p| p.as_array())
        .expect("a kind template declares [[params]]");
    let mut returns = Vec::new();
    let mut bindings = Vec::new();
    for (slot, p) in params.iter().enumerate() {
        let field = |key: &str, default: &'static str| -> String {
            p.get(key)
                .and_then(|v| v.as_str())
                .unwrap_or(default)
                .to_owned()
        };
        let name = field("name", "");
        let scalar = field("kind", "tensor") == "scalar";
        if !scalar && field("direction", "in") != "in" {
            returns.push(name.clone());
        }
        let kind = if scalar { "scalar_arg" } else { "tensor_arg" };
        bindings.push(format!(
            "  {{ param = \"{name}\", slot = {slot}, kind = \"{kind}\" }},"
        ));
    }
    (returns, bindings.join("\n"))
}

/// The digest of a skeleton's placeholder receipt: 32 zeros, then 32 hex
/// digits of a hash of the family's name. Digests are unique across a
/// manifest (KF0705), so each family's differs; the zeros show it for a
/// placeholder, and no artifact is known to have it (it is no SHA-256 of
/// any known text).
pub fn placeholder_sha256(family: &str) -> String {
    let hash = Sha256::digest(format!("kfam placeholder receipt of {family}").as_bytes());
    let hex: String = hash.iter().map(|b| format!("{b:02x}")).collect();
    format!("{}{}", "0".repeat(32), &hex[..32])
}

/// Whether `sha256` is a placeholder digest by the documented rule
/// (docs/manifest.md, "Receipts"): 64 hex digits of which the first 32 are
/// zeros, as `kfam new` and `kfam init` write ([`placeholder_sha256`]), not
/// only their exact value. It approves no artifact: `kfam diff` does not
/// count its removal as a withdrawn artifact (KD055), admission refuses it,
/// and capability answers `unqualified` for a family with only such
/// receipts on a target. The runtimes' `is_placeholder_digest` (Rust and
/// Python) is the same rule (`runtime/tests/shared.rs` compares).
pub fn is_placeholder_digest(sha256: &str) -> bool {
    sha256.len() == 64 && sha256.bytes().take(32).all(|b| b == b'0')
}

/// The C prefix `init` declares for a catalog named `name`: the name
/// without its `_` (a prefix is one word).
fn c_prefix_of(name: &str) -> String {
    name.replace('_', "")
}

/// Why `name` cannot be a catalog's name when the names that follow from
/// it are not declared (the rules of KF1201; the C prefix `init` writes
/// is the name without `_`), if it cannot.
pub fn catalog_name_problem(name: &str) -> Option<&'static str> {
    identifier_problem(name)
        .or_else(|| is_reserved(name).then_some("it is a reserved word of Rust, C, C++ or Python"))
        .or_else(|| python_package_problem(name))
        .or_else(|| crate::names::catalog_name_problem(name))
        .or_else(|| {
            crate::names::kfams_distribution(name)
                .then_some("it is a Python distribution of kfam's own (`kfam-runtime`, `kfam-cli`)")
        })
        .or_else(|| torch_namespace_problem(name))
        .or_else(|| c_prefix_problem(&c_prefix_of(name)))
        .or_else(|| {
            is_reserved(&c_prefix_of(name))
                .then_some("without its `_`, the C prefix, it is a reserved word")
        })
}

/// Why `name` cannot be a family's name, with its diagnostic code, if it
/// cannot (the rules of KF0101 and KF0102).
pub fn family_name_problem(name: &str) -> Option<(&'static str, &'static str)> {
    if let Some(problem) = identifier_problem(name) {
        return Some(("KF0101", problem));
    }
    is_reserved(name).then_some((
        "KF0102",
        "it is a keyword or reserved identifier of Rust, C, C++ or Python",
    ))
}

/// The catalog name a directory's name makes: lowercase, each run of other
/// characters than letters and digits one `_`. `Err` holds that candidate
/// and why it cannot be a catalog's name.
pub fn catalog_name_of(dir: &Path) -> Result<String, (String, &'static str)> {
    // `.` and `..` name the directory they resolve to.
    let base = std::fs::canonicalize(dir)
        .ok()
        .and_then(|d| d.file_name().map(|n| n.to_string_lossy().into_owned()))
        .or_else(|| dir.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_default();
    let mut name = String::new();
    for c in base.chars() {
        if c.is_ascii_alphanumeric() {
            name.push(c.to_ascii_lowercase());
        } else if !name.is_empty() && !name.ends_with('_') {
            name.push('_');
        }
    }
    while name.ends_with('_') {
        name.pop();
    }
    match catalog_name_problem(&name) {
        None => Ok(name),
        Some(problem) => Err((name, problem)),
    }
}

/// Today's date in UTC, `YYYY-MM-DD` (a placeholder receipt's).
pub fn today() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (y, m, d) = civil_from_days((secs / 86_400) as i64);
    format!("{y:04}-{m:02}-{d:02}")
}

/// The proleptic Gregorian date of a day counted from 1970-01-01 (Howard
/// Hinnant's `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// Create every file of `files`, each atomically and never over an
/// existing one ([`write::create_new`]); when one cannot be created, those
/// created before it are removed again, so that nothing is left half done.
pub fn create_all(files: &[(PathBuf, String)]) -> Result<(), WriteError> {
    for (i, (path, contents)) in files.iter().enumerate() {
        if let Err(e) = write::create_new(path, contents) {
            for (created, _) in &files[..i] {
                let _ = std::fs::remove_file(created);
            }
            return Err(e);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(20_513), (2026, 3, 1));
        assert_eq!(civil_from_days(-1), (1969, 12, 31));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
    }

    #[test]
    fn directory_names() {
        let name = |d: &str| catalog_name_of(Path::new(d));
        assert_eq!(
            name("/nonexistent/My-Kernels.v2"),
            Ok("my_kernels_v2".into())
        );
        assert_eq!(name("/nonexistent/_team__ops_"), Ok("team_ops".into()));
        assert!(name("/nonexistent/2024").is_err());
        assert!(name("/nonexistent/json").is_err());
        assert!(name("/nonexistent/tools").is_err());
        assert!(name("/nonexistent/aten").is_err());
    }

    #[test]
    fn placeholders_are_unique_and_hex() {
        let (a, b) = (placeholder_sha256("a"), placeholder_sha256("b"));
        assert_ne!(a, b);
        assert_eq!(a.len(), 64);
        assert!(a
            .bytes()
            .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase()));
    }

    #[test]
    fn every_template_fills() {
        let abi = abi_toml("team_ops", "MIT OR \"quoted\"");
        assert!(!abi.contains("{{"), "{abi}");
        assert!(abi.parse::<toml::Table>().is_ok());
        for kind in OperationKind::ALL {
            let text = family_toml(*kind, "f", "2026-01-02", &Skeleton::of(&abi));
            assert!(!text.contains("{{"), "{kind}: {text}");
            assert!(text.parse::<toml::Table>().is_ok(), "{kind}: {text}");
        }
    }
}
