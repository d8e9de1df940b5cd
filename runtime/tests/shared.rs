//! What the Python runtime shares with the Rust runtime is declared once,
//! in Rust: the words of a refused call (`kfam_runtime::wording`) and the
//! admission limits. `python/kfam_runtime/_shared.py` is written from
//! those declarations, so the Python runtime fills the same templates and
//! refuses at the same sizes as Rust and C.
//! `KFAM_BLESS=1 cargo test -p kfam-runtime --test integration shared::`
//! rewrites it.

use std::fmt::{Display, Write as _};

use kfam_codegen::emit::python::py_str_literal;
use kfam_runtime::admission;
use kfam_runtime::wording::Words;

use crate::support::root;

const PYTHON: &str = "python/kfam_runtime/_shared.py";

fn python() -> String {
    let mut out = String::from(
        "# @generated from kfam-runtime (src/wording.rs, src/admission/): rebuild with \
         `KFAM_BLESS=1 cargo test -p kfam-runtime --test integration shared::`; do not edit\n",
    );
    out.push_str(
        r#""""What the Python runtime shares with the Rust runtime, declared once there.

``_call`` fills the templates of a refused call as ``CallError::describe`` and
``CallError::explain`` do, so a refusal reads the same in Rust, C and Python; ``_admission``
refuses documents at the sizes ``kfam_runtime::admission`` does.
"""

from __future__ import annotations

from typing import Final

"#,
    );
    let _ = writeln!(
        out,
        "#: Largest ``compiled_meta.json`` admitted, in bytes (``kfam_runtime::admission``).\n\
         MAX_DOCUMENT_BYTES: Final[int] = {}\n\
         #: The most characters of a document's ``$comment``.\n\
         MAX_COMMENT_CHARS: Final[int] = {}\n\n\
         #: The words of a refused call, by key (``kfam_runtime::wording::Words``).\n\
         WORDING: Final[dict[str, str]] = {{",
        admission::MAX_DOCUMENT_BYTES,
        admission::MAX_COMMENT_CHARS,
    );
    for w in Words::ALL {
        let _ = writeln!(
            out,
            "    {}: {},",
            py_str_literal(w.key()),
            py_str_literal(w.text())
        );
    }
    out.push_str(
        r#"}


def words(key: str, **values: object) -> str:
    """The template of ``key`` with each ``{name}`` filled from ``values``."""
    return WORDING[key].format_map(values)
"#,
    );
    out
}

#[test]
fn python_shared_is_written_from_the_declarations() {
    let path = root().join(PYTHON);
    let want = python();
    if std::env::var_os("KFAM_BLESS").is_some_and(|v| v == "1") {
        std::fs::write(&path, &want).expect("the Python package is writable");
        return;
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        have == want,
        "{PYTHON} is stale: run `KFAM_BLESS=1 cargo test -p kfam-runtime --test integration \
         shared::` and commit it"
    );
}

/// Each template's names are filled by name, in both languages: distinct
/// keys, names that are identifiers (Python's `format_map` reads nothing
/// else), and no brace left once every name has a value.
#[test]
fn every_template_fills_by_name() {
    let mut keys: Vec<&str> = Words::ALL.iter().map(|w| w.key()).collect();
    keys.sort_unstable();
    keys.dedup();
    assert_eq!(keys.len(), Words::ALL.len(), "a key is declared twice");
    for w in Words::ALL {
        let names: Vec<&str> = w.names().collect();
        for n in &names {
            assert!(
                !n.is_empty() && n.bytes().all(|b| b == b'_' || b.is_ascii_lowercase()),
                "{}: `{{{n}}}` is not a plain name",
                w.key()
            );
        }
        let values: Vec<(&str, &dyn Display)> =
            names.iter().map(|n| (*n, &"x" as &dyn Display)).collect();
        let filled = w.fill(&values);
        assert!(!filled.contains(['{', '}']), "{}: {filled}", w.key());
    }
}

/// The generator's reader of `compiled_meta.json` (the JSON Schema, `kfam
/// check` of the examples) holds documents to the runtime's limits.
#[test]
fn the_generator_reads_documents_at_the_runtime_limits() {
    use kfam_codegen::compiled_meta as generator;
    assert_eq!(generator::MAX_DOCUMENT_BYTES, admission::MAX_DOCUMENT_BYTES);
    assert_eq!(generator::MAX_COMMENT_CHARS, admission::MAX_COMMENT_CHARS);
}

/// A placeholder receipt is recognised by one documented rule everywhere
/// (docs/manifest.md, "Receipts"): 64 hex digits whose first 32 are zeros.
/// `kfam diff` (the generator's `init::is_placeholder_digest`), admission
/// and capability (the runtime's) agree on every digest of the table,
/// `kfam new`'s exact value and any other such digest alike.
#[test]
fn the_placeholder_rule_is_one_rule() {
    let new = kfam_codegen::init::placeholder_sha256("scale_new");
    let cases = [
        (new.as_str(), true),
        (
            "0000000000000000000000000000000000000000000000000000000000000000",
            true,
        ),
        (
            "00000000000000000000000000000000ffffffffffffffffffffffffffffffff",
            true,
        ),
        (
            "00000000000000000000000000000001ffffffffffffffffffffffffffffffff",
            false,
        ),
        ("0000000000000000000000000000000", false),
        (
            "5c1f0e3c8f0a4a57f0d7a3c2a7e1a4b0f6b3d5d8e2c9a1b7f4e6d3c2b1a09876",
            false,
        ),
        ("", false),
    ];
    for (digest, placeholder) in cases {
        assert_eq!(
            kfam_codegen::init::is_placeholder_digest(digest),
            placeholder,
            "{digest}"
        );
        assert_eq!(
            admission::is_placeholder_digest(digest),
            placeholder,
            "{digest}"
        );
    }
}
