//! Regular expressions the JSON Schemas attach to string fields, so that
//! editors flag a malformed value while it is typed. Each accepts exactly what
//! `check` accepts, or more (never less: the schema must accept every valid
//! manifest); `check` stays the authority. Plain syntax without lookaround, so
//! ECMA-262, Rust `regex` and Python `re` read them alike.

/// Family, parameter and profile names (`names::identifier_problem`).
pub const IDENTIFIER: &str = "^[a-z][a-z0-9]*(_[a-z0-9]+)*$";
/// An artifact SHA-256 digest.
pub const SHA256: &str = "^[0-9a-f]{64}$";
/// The native runtime commit of `abi.toml`.
pub const COMMIT: &str = "^[0-9a-f]{40}$";
/// A receipt codec (wire-format identifier).
pub const CODEC: &str = "^[a-z][a-z0-9_.-]*$";
/// A calendar date `YYYY-MM-DD`.
pub const DATE: &str = "^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$";
/// A relative `/`-separated artifact path: no leading `/`, no backslash,
/// no empty, `.` or `..` segment. (Drive prefixes and control characters
/// are left to `check`.)
pub const ARTIFACT_PATH: &str = concat!(
    r"^([^/\\.][^/\\]*|\.[^/\\.][^/\\]*|\.\.[^/\\]+)",
    r"(/([^/\\.][^/\\]*|\.[^/\\.][^/\\]*|\.\.[^/\\]+))*$"
);
/// A Python distribution name (PEP 508: letters, digits, `.`, `_`, `-`,
/// beginning and ending with a letter or digit).
pub const DISTRIBUTION: &str = "^[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?$";
/// A release version in PEP 440's normalized form, without a local
/// label (which PyPI refuses).
pub const VERSION: &str = concat!(
    r"^([1-9][0-9]*!)?(0|[1-9][0-9]*)(\.(0|[1-9][0-9]*))*",
    r"((a|b|rc)(0|[1-9][0-9]*))?(\.post(0|[1-9][0-9]*))?(\.dev(0|[1-9][0-9]*))?$"
);
/// An output location: a relative `/`-separated path of plain segments
/// (letters, digits, `.`, `_`, `-`; no `.` or `..` segment).
pub const OUTPUT_PATH: &str = r"^[A-Za-z0-9_-][A-Za-z0-9._-]*(/[A-Za-z0-9_-][A-Za-z0-9._-]*)*$";
