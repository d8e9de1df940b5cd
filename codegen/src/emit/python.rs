//! Python: a pip-installable, standard-library-only package under `python/`.
//!
//! - `python/pyproject.toml`: setuptools build of the package `kfam`, no dependencies.
//! - `python/.gitignore`: what an in-tree `pip install` leaves behind.
//! - `python/kfam/__init__.py`: the public API (lookups and re-exports).
//! - `python/kfam/_vocab.py`: one `IntEnum` per vocabulary, valued by its stable
//!   code; `Status` valued as `abi.toml` declares.
//! - `python/kfam/_records.py`: the frozen dataclasses of the records
//!   ([`super::python_records`]).
//! - `python/kfam/_abi.py`: the native ABI's constants.
//! - `python/kfam/_tables.py`: one row per family, data only, so a manifest
//!   change shows up in this one file ([`super::python_tables`]).
//! - `python/kfam/_lookup.py`: the lazy tables: `_tables` is imported by the
//!   first lookup that reads a row, and a family's records are built from its
//!   row on first lookup (static source `python_lookup.py`).
//! - `python/kfam/_runtime.py`: capability, admission of
//!   `compiled_meta.json` and call validation, the same decisions as
//!   `kfam-runtime`. The logic is the static source `python_runtime.py` next to
//!   this file; the generator splices in the per-dtype limits and the outcome
//!   to status maps ([`runtime_data`]).
//! - `python/kfam/torch.py`: PyTorch schemas, fake kernels and registration
//!   ([`super::python_torch`]); the only module that imports `torch`.
//! - `python/kfam/py.typed`: PEP 561 marker.
//!
//! Annotations are inline (no `.pyi` beside the modules), so `mypy --strict`
//! checks the code that actually runs. Free text reaches Python only through
//! [`py_str_literal`] (or, in a row, `python_tables::json_str`); private generated names start with `_kfam`/`_Kfam`, which
//! a declared name (lowercase first letter) can never do.

use std::fmt::Write as _;

use super::python_records::{operation_classes, records_py};
use super::python_tables::{abi_py, operation_decoders, tables_py};
use super::writer::Writer;
use super::{marker_line, needs_no_escape, GeneratedFile};
use crate::check::is_forbidden_char;
use crate::ir::{self, Ir};
use crate::names;
use crate::vocab::{
    Admission, CallRule, Capability, DType, Member, ScalarDomain, Status, Vocabulary, VOCABULARIES,
};

/// Where the package sits below the output directory.
const ROOT: &str = "python";
/// Version of the generated distribution: the generator's own version.
const VERSION: &str = env!("CARGO_PKG_VERSION");
/// The license of the generated package: the project's.
const LICENSE: &str = env!("CARGO_PKG_LICENSE");
/// Lowest Python the generated code supports (`slots=True` dataclasses, `X | Y`).
const REQUIRES_PYTHON: &str = ">=3.10";

pub fn emit(ir: &Ir) -> Vec<GeneratedFile> {
    vec![
        GeneratedFile::new(format!("{ROOT}/.gitignore"), gitignore()),
        GeneratedFile::new(format!("{ROOT}/pyproject.toml"), pyproject(ir)),
        GeneratedFile::new(format!("{ROOT}/kfam/__init__.py"), init_py(ir)),
        GeneratedFile::new(format!("{ROOT}/kfam/_abi.py"), abi_py(ir)),
        GeneratedFile::new(format!("{ROOT}/kfam/_lookup.py"), lookup_py()),
        GeneratedFile::new(format!("{ROOT}/kfam/_records.py"), records_py()),
        GeneratedFile::new(format!("{ROOT}/kfam/_runtime.py"), runtime_py()),
        GeneratedFile::new(format!("{ROOT}/kfam/_tables.py"), tables_py(ir)),
        GeneratedFile::new(format!("{ROOT}/kfam/_vocab.py"), vocab_py(ir)),
        GeneratedFile::new(
            format!("{ROOT}/kfam/torch.py"),
            super::python_torch::torch_py(),
        ),
        GeneratedFile::new(
            format!("{ROOT}/kfam/context.py"),
            format!("{}{}", header(), include_str!("python_context.py")),
        ),
        GeneratedFile::new(format!("{ROOT}/kfam/py.typed"), header()),
    ]
}

/// A Python `str` literal that evaluates to exactly `text`, whatever it holds.
///
/// Double-quoted, pure printable ASCII and on one line: `"` and `\` are
/// escaped, `\n`, `\r` and `\t` use their short escapes, every other control
/// or non-ASCII character becomes `\xNN`, `\uNNNN` or `\UNNNNNNNN` (fixed
/// widths, so a following digit never extends an escape). Triple quotes,
/// `#`, bidirectional overrides and NUL are therefore inert.
pub fn py_str_literal(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    if needs_no_escape(text) {
        out.push_str(text);
        out.push('"');
        return out;
    }
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            ' '..='~' => out.push(c),
            c if u32::from(c) <= 0xff => {
                let _ = write!(out, "\\x{:02x}", u32::from(c));
            }
            c if u32::from(c) <= 0xffff => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => {
                let _ = write!(out, "\\U{:08x}", u32::from(c));
            }
        }
    }
    out.push('"');
    out
}

/// The first line of every file, as a `#` comment.
pub(super) fn header() -> String {
    format!("# {}\n", marker_line())
}

// ---------------------------------------------------------------- pyproject

/// What an in-tree `pip install generated/python` leaves behind.
fn gitignore() -> String {
    format!("{}/build/\n/*.egg-info/\n__pycache__/\n", header())
}

/// The package version: the generator's, with the catalog digest as a local
/// label (PEP 440), so an installed package names the manifest it came from.
fn version(ir: &Ir) -> String {
    format!("{VERSION}+catalog.{}", &ir::catalog_digest(ir)[..12])
}

fn pyproject(ir: &Ir) -> String {
    format!(
        r#"{header}
[build-system]
requires = ["setuptools>=77"]
build-backend = "setuptools.build_meta"

[project]
name = "kfam"
version = "{version}"
description = "Approved accelerator kernel families: typed tables generated by kfam from manifest/"
license = "{LICENSE}"
requires-python = "{REQUIRES_PYTHON}"
dependencies = []
classifiers = ["Typing :: Typed"]

[project.optional-dependencies]
torch = ["torch>={min_torch}"]

[tool.setuptools]
packages = ["kfam"]

[tool.setuptools.package-data]
kfam = ["py.typed"]
"#,
        header = header().trim_end(),
        version = version(ir),
        min_torch = super::python_torch::MIN_TORCH,
    )
}

// ---------------------------------------------------------------- __init__

/// Record classes every manifest gets (the operation classes come from
/// [`operation_classes`]).
const RECORDS: &[&str] = &[
    "Binding",
    "DimUse",
    "Evidence",
    "Family",
    "Param",
    "Profile",
    "Receipt",
    "Retired",
    "ScalarRef",
    "Symbol",
];
/// Constants of `_abi.py`.
const ABI: &[&str] = &[
    "ABI_MAJOR",
    "ABI_MINOR",
    "ABI_REVISION",
    "IDENTITY_FORMAT",
    "MAX_PREPARED",
    "MAX_RANK",
    "MAX_SCALAR_ARGS",
    "MAX_TENSOR_ARGS",
];
/// The lookups of `_lookup.py` (`FAMILIES` and `RETIRED` are built from it
/// on first access).
const LOOKUP: &[&str] = &[
    "family",
    "find_artifact",
    "find_family",
    "find_retired",
    "find_retired_artifact",
];
/// The names `kfam.__getattr__` builds on first access.
const LAZY: &[&str] = &["FAMILIES", "RETIRED"];
/// Public names of `_runtime.py`: the runtime decisions.
const RUNTIME: &[&str] = &[
    "AdmissionError",
    "Admitted",
    "CallError",
    "CapabilityError",
    "KfamError",
    "MAX_DOCUMENT_BYTES",
    "ScalarArg",
    "Supported",
    "TensorArg",
    "admit",
    "capability",
    "validate_call",
];

/// The record classes, operation variants included.
fn record_classes() -> Vec<&'static str> {
    let mut v = RECORDS.to_vec();
    v.extend(operation_classes());
    v
}

/// Public names of the package, sorted (`__all__`).
fn public_names() -> Vec<&'static str> {
    let mut names = record_classes();
    names.push("Operation");
    names.extend(ABI);
    names.extend(LOOKUP);
    names.extend(LAZY);
    names.extend(vocabularies_names());
    names.extend(RUNTIME);
    names.sort_unstable();
    names
}

/// `from module import (` and the sorted names one per line: a fixed
/// layout, whatever the count.
pub(super) fn import_list(module: &str, mut items: Vec<&str>) -> String {
    items.sort_unstable();
    let mut w = Writer::new("    ");
    w.block(format_args!("from {module} import ("), ")", |w| {
        for i in items {
            w.line(format_args!("{i},"));
        }
    });
    let mut text = w.finish();
    text.pop();
    text
}

fn init_py(ir: &Ir) -> String {
    let mut records = record_classes();
    records.push("Operation");
    let mut all = Writer::new("    ");
    all.block("__all__ = [", "]", |w| {
        for n in public_names() {
            w.line(format_args!("{},", py_str_literal(n)));
        }
    });
    format!(
        r#"{header}"""kfam: the approved accelerator kernel families, as typed Python records.

Generated from the reviewed manifest (``manifest/``) by the kfam generator; do not edit.

- ``FAMILIES``: every approved family, sorted by name (built on first access).
- ``family(name)`` / ``find_family(name)``: lookup by family name.
- ``find_artifact(sha256)``: the ``(Family, Profile, Receipt)`` that approves an artifact digest.
- ``Family.identity``: the identity digest recorded in ``manifest/approved.lock``.
- ``ABI_REVISION``, ``ABI_MAJOR``, ``ABI_MINOR``, ``MAX_*`` and ``Status``: the native ABI.
- ``capability(...)``, ``admit(document, sha256)`` and ``validate_call(family, tensors, scalars)``:
  the decisions of the Rust runtime (``kfam-runtime``), refusals raised as ``KfamError``.

A family's records are built the first time it is looked up (``kfam._lookup``): importing the
package builds none, and loads no table row.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Final

{abi}
{lookup}
{records}
{runtime}
{vocab}

__version__: Final[str] = {version}

if TYPE_CHECKING:
    #: Every approved family, sorted by name.
    FAMILIES: Final[tuple[Family, ...]] = _kfam_families()
    #: Every retired family, sorted by name.
    RETIRED: Final[tuple[Retired, ...]] = _kfam_retired()


def _kfam_getattr(name: str) -> object:
    """``FAMILIES`` and ``RETIRED``, built on first access and then kept (PEP 562)."""
    value: object
    if name == "FAMILIES":
        value = _kfam_families()
    elif name == "RETIRED":
        value = _kfam_retired()
    else:
        raise AttributeError(f"module {{__name__!r}} has no attribute {{name!r}}")
    setattr(sys.modules[__name__], name, value)
    return value


# Hidden from type checkers, which would otherwise type every unknown `kfam.name` as `object`.
if not TYPE_CHECKING:
    __getattr__ = _kfam_getattr

{all}"#,
        header = header(),
        lookup = import_list(
            "._lookup",
            [
                LOOKUP,
                &["families as _kfam_families", "retired as _kfam_retired"]
            ]
            .concat()
        ),
        records = import_list("._records", records),
        runtime = import_list("._runtime", RUNTIME.to_vec()),
        abi = import_list("._abi", ABI.to_vec()),
        vocab = import_list("._vocab", vocabularies_names()),
        version = py_str_literal(&version(ir)),
        all = all.finish(),
    )
}

// ---------------------------------------------------------------- _runtime

/// The logic of `_runtime.py`: static Python, reviewed like any other source.
const RUNTIME_SOURCE: &str = include_str!("python_runtime.py");
/// The line of [`RUNTIME_SOURCE`] that [`runtime_data`] replaces.
pub(super) const RUNTIME_DATA_MARKER: &str =
    "# @kfam-data: the generator writes the data tables here.\n";

/// Largest `compiled_meta.json` admitted (`kfam_runtime::admission::MAX_DOCUMENT_BYTES`).
pub const MAX_DOCUMENT_BYTES: usize = 1 << 20;

/// A Python `float` literal that evaluates to exactly `x` (finite).
fn py_float(x: f64) -> String {
    assert!(x.is_finite(), "{x}");
    // `Debug` prints the shortest representation that round-trips, always
    // with a `.` or an exponent, which Python reads back exactly.
    format!("{x:?}")
}

/// One `Final` dict of the data block, with a `#:` comment.
pub(super) fn data_dict(s: &mut String, comment: &str, lead: &str, items: Vec<String>) {
    let mut w = Writer::new("    ");
    super::python_tables::dict(&mut w, comment, lead, items, |out, item| {
        out.push_str(&item);
    });
    s.push_str(&w.finish());
}

/// The data `_runtime.py` decides with, as Python.
fn runtime_data() -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "#: Largest ``compiled_meta.json`` admitted, in bytes.\n\
         MAX_DOCUMENT_BYTES: Final[int] = {MAX_DOCUMENT_BYTES}"
    );
    let (mut floats, mut ints) = (Vec::new(), Vec::new());
    for &d in DType::ALL {
        let key = member(DType::NAME, d.as_str());
        match d.scalar_domain() {
            ScalarDomain::Bool => {}
            ScalarDomain::Int(lo, hi) => ints.push(format!("{key}: ({lo}, {hi})")),
            ScalarDomain::Float(max) => floats.push(format!("{key}: {}", py_float(max))),
        }
    }
    data_dict(
        &mut s,
        "Largest finite value of each float dtype: a finite scalar beyond it overflows.",
        "_FLOAT_MAX: Final[dict[DType, float]] = ",
        floats,
    );
    data_dict(
        &mut s,
        "Inclusive range of each integer dtype.",
        "_INT_RANGE: Final[dict[DType, tuple[int, int]]] = ",
        ints,
    );
    let statuses = |vocab: &str, members: Vec<(&str, Status)>| -> Vec<String> {
        members
            .into_iter()
            .map(|(m, st)| {
                format!(
                    "{}: {}",
                    member(vocab, m),
                    member(Status::NAME, st.as_str())
                )
            })
            .collect()
    };
    data_dict(
        &mut s,
        "The C ABI status of each capability outcome.",
        "_CAPABILITY_STATUS: Final[dict[Capability, Status]] = ",
        statuses(
            Capability::NAME,
            Capability::ALL
                .iter()
                .map(|&c| (c.as_str(), c.status()))
                .collect(),
        ),
    );
    data_dict(
        &mut s,
        "The C ABI status of each admission outcome.",
        "_ADMISSION_STATUS: Final[dict[Admission, Status]] = ",
        statuses(
            Admission::NAME,
            Admission::ALL
                .iter()
                .map(|&a| (a.as_str(), a.status()))
                .collect(),
        ),
    );
    data_dict(
        &mut s,
        "The C ABI status of each call validation rule.",
        "_CALL_STATUS: Final[dict[CallRule, Status]] = ",
        statuses(
            CallRule::NAME,
            CallRule::ALL
                .iter()
                .map(|&r| (r.as_str(), r.status()))
                .collect(),
        ),
    );
    s
}

fn runtime_py() -> String {
    assert_eq!(
        RUNTIME_SOURCE.matches(RUNTIME_DATA_MARKER).count(),
        1,
        "python_runtime.py must hold the data marker exactly once"
    );
    format!(
        "{}{}",
        header(),
        RUNTIME_SOURCE.replacen(RUNTIME_DATA_MARKER, &runtime_data(), 1)
    )
}

// ---------------------------------------------------------------- _lookup

/// The lazy tables of `_lookup.py`: static Python (`python_lookup.py`) and
/// the decoders of the operation rows ([`operation_decoders`]).
fn lookup_py() -> String {
    const SOURCE: &str = include_str!("python_lookup.py");
    assert_eq!(
        SOURCE.matches(RUNTIME_DATA_MARKER).count(),
        1,
        "python_lookup.py must hold the data marker exactly once"
    );
    format!(
        "{}{}",
        header(),
        SOURCE.replacen(RUNTIME_DATA_MARKER, &operation_decoders(), 1)
    )
}

// ---------------------------------------------------------------- _vocab

/// Every vocabulary with the values Python gets: the fixed codes, and
/// `Status` valued as `abi.toml` declares.
fn vocabularies(ir: &Ir) -> Vec<(Vocabulary, Vec<(Member, i64)>)> {
    let mut all: Vec<(Vocabulary, Vec<(Member, i64)>)> = VOCABULARIES
        .iter()
        .map(|c| {
            (
                *c,
                c.members.iter().map(|m| (*m, i64::from(m.code))).collect(),
            )
        })
        .collect();
    let status = Status::ALL
        .iter()
        .zip(Status::VOCABULARY.members)
        .map(|(s, m)| (*m, i64::from(ir.abi.status(*s))))
        .collect();
    all.push((Status::VOCABULARY, status));
    all
}

/// The class names of [`vocabularies`], sorted.
fn vocabularies_names() -> Vec<&'static str> {
    let mut v: Vec<&str> = VOCABULARIES.iter().map(|c| c.name).collect();
    v.push(Status::VOCABULARY.name);
    v.sort_unstable();
    v
}

/// Generator-written prose as a one-line `#:` comment (whitespace collapsed,
/// control characters dropped); `None` when there is none.
fn doc_comment(text: &str) -> Option<String> {
    let clean: String = text
        .chars()
        .map(|c| if is_forbidden_char(c, false) { ' ' } else { c })
        .collect();
    let words: Vec<&str> = clean.split_whitespace().collect();
    (!words.is_empty()).then(|| format!("#: {}", words.join(" ")))
}

/// `Vocab.MEMBER`: the Python spelling of a vocabulary member.
pub(super) fn member(vocab: &str, spelling: &str) -> String {
    format!("{vocab}.{}", names::shouty(spelling))
}

fn vocab_py(ir: &Ir) -> String {
    let mut w = Writer::new("    ");
    w.raw(&header());
    w.raw(
        r#""""Closed vocabularies of the kfam manifest: one ``IntEnum`` each, valued by the stable code.

A member's name is its manifest spelling in upper case (``DType.BF16`` is ``"bf16"``).
Codes are part of the ABI: they never change meaning.
"""

from __future__ import annotations

from enum import IntEnum, unique
from typing import Final, TypeVar

_KfamVocabT = TypeVar("_KfamVocabT", bound="_KfamVocab")


class _KfamVocab(IntEnum):
    """Base of every vocabulary."""

    @property
    def spelling(self) -> str:
        """The manifest spelling, e.g. ``"bf16"``."""
        return self.name.lower()

    @classmethod
    def from_spelling(cls: type[_KfamVocabT], text: str) -> _KfamVocabT:
        """The member spelled ``text`` in the manifest; ``ValueError`` when there is none."""
        for m in cls:
            if m.spelling == text:
                return m
        raise ValueError(f"{text!r} is not a {cls.__name__} spelling")
"#,
    );
    // Two empty lines between top-level items: a class block closes with
    // one (its `close("")`), the template ends with none.
    w.blank();
    for (vocab, members) in vocabularies(ir) {
        let doc = vocab.doc.split_whitespace().collect::<Vec<_>>().join(" ");
        w.blank();
        w.line("@unique");
        w.block(format_args!("class {}(_KfamVocab):", vocab.name), "", |w| {
            w.line(py_str_literal(&doc));
            w.blank();
            for (m, value) in &members {
                if let Some(comment) = doc_comment(m.doc) {
                    w.line(comment);
                }
                w.line(format_args!("{} = {value}", names::shouty(m.spelling)));
            }
            if vocab.name == DType::NAME {
                w.blank();
                w.line("@property");
                w.line("def bits(self) -> int:");
                w.line(
                    "    \"\"\"Storage size of one element in bits (4 for packed ``FP4``).\"\"\"",
                );
                w.line("    return _KFAM_DTYPE_BITS[self]");
            }
        });
    }
    let bits: Vec<String> = DType::ALL
        .iter()
        .map(|d| format!("{}: {}", member(DType::NAME, d.as_str()), d.bits()))
        .collect();
    let mut s = w.finish();
    // A class body ends with one empty line (its block's close); two separate top-level items.
    s.push('\n');
    data_dict(
        &mut s,
        "Storage size of one element of each dtype, in bits.",
        "_KFAM_DTYPE_BITS: Final[dict[DType, int]] = ",
        bits,
    );
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write as _;
    use std::process::Stdio;

    const HOSTILE: &[&str] = &[
        "",
        "plain text",
        r#"triple """ double"#,
        "triple ''' single",
        r"back\slash \n \x00 \N{DIGIT ONE} \u0041 trailing \",
        "# not a comment",
        "line one\nline two\r\n\ttabbed",
        "nul \0 then 1",
        "bell \u{7} del \u{7f} nbsp \u{a0}",
        "rtl override \u{202E}gnp.exe",
        "bom \u{feff} ls \u{2028} ps \u{2029}",
        "ünïcödé, CJK 漢字, emoji 😀, math 𝔸",
        "{braces} %s %(name)s f'{x}'",
        "\"\"\"; import os; os.system('x') #",
        "ends with backslash \\",
    ];

    #[test]
    fn literals_are_one_line_printable_ascii() {
        for text in HOSTILE {
            let lit = py_str_literal(text);
            assert!(
                lit.starts_with('"') && lit.ends_with('"') && lit.len() >= 2,
                "{lit}"
            );
            assert!(
                lit.bytes().all(|b| (b' '..=b'~').contains(&b)),
                "not printable ASCII: {lit}"
            );
            // Every quote inside is escaped, so the literal cannot end early.
            let inner = &lit[1..lit.len() - 1];
            let mut escaped = false;
            for c in inner.chars() {
                assert!(escaped || c != '"', "unescaped quote in {lit}");
                escaped = !escaped && c == '\\';
            }
            assert!(!escaped, "dangling backslash in {lit}");
        }
    }

    #[test]
    fn literal_spellings() {
        assert_eq!(py_str_literal(""), r#""""#);
        assert_eq!(py_str_literal(r#"a"""b"#), r#""a\"\"\"b""#);
        assert_eq!(py_str_literal("'''"), r#""'''""#);
        assert_eq!(py_str_literal(r"\"), r#""\\""#);
        assert_eq!(py_str_literal("a\nb"), r#""a\nb""#);
        assert_eq!(py_str_literal("\0"), r#""\x00""#);
        assert_eq!(py_str_literal("\u{0}1"), r#""\x001""#);
        assert_eq!(py_str_literal("\u{202E}"), r#""\u202e""#);
        assert_eq!(py_str_literal("é"), r#""\xe9""#);
        assert_eq!(py_str_literal("😀"), r#""\U0001f600""#);
        assert_eq!(py_str_literal("# x"), r##""# x""##);
    }

    /// The literals evaluate back to the text in a real Python.
    #[test]
    fn literals_round_trip_through_python() {
        let script = "import ast, json, sys\n\
                      print(json.dumps([ast.literal_eval(l) for l in sys.stdin.read().splitlines()]))";
        let mut child = kfam_testenv::python()
            .args(["-c", script])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("the test environment's python runs");
        let input: String = HOSTILE.iter().map(|t| py_str_literal(t) + "\n").collect();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(input.as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "python3 failed on the literals:\n{input}"
        );
        let back: Vec<String> = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(back, HOSTILE);
    }

    #[test]
    fn vocabulary_members_spell_back() {
        let ir = Ir {
            abi: ir::Abi {
                revision: String::new(),
                major: 1,
                minor: 0,
                max_tensor_args: 1,
                max_scalar_args: 1,
                max_rank: 1,
                max_prepared: 1,
                status: Status::ALL.iter().map(|&s| (s, -s.code())).collect(),
            },
            families: vec![],
            retired: vec![],
        };
        // `_KfamVocab.spelling` is the member name in lower case.
        for (vocab, members) in vocabularies(&ir) {
            for (m, _) in &members {
                let name = names::shouty(m.spelling);
                assert_eq!(name.to_lowercase(), m.spelling, "{}", vocab.name);
                assert!(
                    name.bytes()
                        .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_'),
                    "{name}"
                );
            }
        }
        let mut listed: Vec<&str> = vocabularies(&ir).iter().map(|(c, _)| c.name).collect();
        listed.sort_unstable();
        assert_eq!(listed, vocabularies_names());
    }

    #[test]
    fn scalar_domains_follow_the_dtype() {
        for &d in DType::ALL {
            match d.scalar_domain() {
                ScalarDomain::Bool => assert_eq!(d, DType::Bool),
                ScalarDomain::Float(max) => {
                    assert!(d.is_float() && max.is_finite() && max > 0.0, "{d}");
                    assert_eq!(py_float(max).parse::<f64>().unwrap(), max);
                }
                ScalarDomain::Int(lo, hi) => {
                    assert!(!d.is_float() && d != DType::Bool, "{d}");
                    assert_eq!(hi - lo + 1, 1i128 << d.bits(), "{d}");
                }
            }
        }
        assert_eq!(py_float(f64::from(f32::MAX)), "3.4028234663852886e38");
        assert_eq!(py_float(65504.0), "65504.0");
    }

    #[test]
    fn runtime_module_gets_its_data_once() {
        let text = runtime_py();
        assert!(!text.contains(RUNTIME_DATA_MARKER.trim_end()));
        assert_eq!(
            text.matches("\nMAX_DOCUMENT_BYTES: Final[int] = 1048576\n")
                .count(),
            1
        );
        for name in [
            "_FLOAT_MAX",
            "_INT_RANGE",
            "_CAPABILITY_STATUS",
            "_ADMISSION_STATUS",
        ] {
            assert_eq!(
                text.matches(&format!("\n{name}: Final[")).count(),
                1,
                "{name}"
            );
        }
        for name in RUNTIME {
            let defined = [
                format!("\ndef {name}("),
                format!("\nclass {name}("),
                format!("\nclass {name}:"),
                format!("\n{name}: Final["),
            ];
            assert!(
                defined.iter().any(|d| text.contains(d.as_str())),
                "{name} is exported but not defined in _runtime.py"
            );
        }
    }
}
