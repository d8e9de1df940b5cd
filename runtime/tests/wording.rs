//! The words of a refused call are declared once (`kfam_runtime::wording`):
//! `python/kfam_runtime/_wording.py` is written from that table, so the
//! Python runtime fills the same templates as Rust and C.
//! `KFAM_BLESS=1 cargo test -p kfam-runtime --test integration wording::`
//! rewrites it.

use std::fmt::{Display, Write as _};

use kfam_runtime::wording::Words;

use crate::support::root;

const PYTHON: &str = "python/kfam_runtime/_wording.py";

/// `text` as a Python string literal (the templates are ASCII; JSON's
/// escapes are Python's).
fn literal(text: &str) -> String {
    serde_json::to_string(text).expect("a string serializes")
}

fn python() -> String {
    let mut out = String::from(
        "# @generated from runtime/src/wording.rs: rebuild with \
         `KFAM_BLESS=1 cargo test -p kfam-runtime --test integration wording::`; do not edit\n",
    );
    out.push_str(
        r#""""The words of a refused call, declared once in the Rust runtime (``runtime/src/wording.rs``).

``_call`` fills these templates as ``CallError::describe`` and ``CallError::explain`` do, so a
refusal reads the same in Rust, C and Python.
"""

from __future__ import annotations

from typing import Final

WORDING: Final[dict[str, str]] = {
"#,
    );
    for w in Words::ALL {
        let _ = writeln!(out, "    {}: {},", literal(w.key()), literal(w.text()));
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
fn python_wording_is_written_from_the_table() {
    let path = root().join(PYTHON);
    let want = python();
    if std::env::var_os("KFAM_BLESS").is_some() {
        std::fs::write(&path, &want).expect("the Python package is writable");
        return;
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        have == want,
        "{PYTHON} is stale: run `KFAM_BLESS=1 cargo test -p kfam-runtime --test integration \
         wording::` and commit it"
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
        let names = w.names();
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
