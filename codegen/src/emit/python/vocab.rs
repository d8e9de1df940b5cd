//! `kfam_runtime/vocab.py`: one `IntEnum` per vocabulary of kfam, valued by
//! its stable code, and the data the runtime decides with that follows
//! from the vocabularies alone (dtype sizes, scalar ranges, the outcome to
//! status maps, the torch spellings of each dtype). `Status` and the
//! vocabularies a catalog declares (platforms, backends, runtimes,
//! execution modes) are each catalog's: here they are bases without
//! members, which a catalog's `_abi.py` ([`super::abi`], with
//! [`vocab_class`]) subclasses with its own, and `Targets` holds a
//! catalog's classes for the record decoders. The same for every catalog
//! of one kfam version: the text is committed as
//! `python/kfam_runtime/vocab.py` (`codegen/tests/sourcegen.rs` keeps the
//! copy current).

use crate::emit::writer::Writer;
use crate::names;
use crate::record::VOCABULARIES;
use crate::vocab::{
    Admission, CallRule, Capability, DType, Member, ScalarDomain, Status, Vocabulary,
};

use super::text::{data_dict, doc_comment, member, py_float, py_str_literal};

/// One vocabulary as an `@unique` `IntEnum` subclass of `base`: an empty
/// line, the class, and the empty line its block closes with.
pub(super) fn vocab_class(
    w: &mut Writer,
    vocab: &Vocabulary,
    base: &str,
    members: &[(Member, i64)],
) {
    w.blank();
    w.line("@unique");
    w.block(format_args!("class {}({base}):", vocab.name), "", |w| {
        w.line(py_str_literal(&one_line(vocab.doc)));
        w.blank();
        for (m, value) in members {
            if let Some(comment) = doc_comment(m.doc) {
                w.line(comment);
            }
            w.line(format_args!("{} = {value}", names::shouty(m.spelling)));
        }
        if vocab.name == DType::NAME {
            w.blank();
            w.line("@property");
            w.line("def bits(self) -> int:");
            w.line("    \"\"\"Storage size of one element in bits (4 for packed ``FP4``).\"\"\"");
            w.line("    return _KFAM_DTYPE_BITS[self]");
        }
    });
}

fn one_line(doc: &str) -> String {
    doc.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The vocabularies each catalog has its own members of: `Status` (valued
/// by its `abi.toml`) and those it declares.
fn catalogs_own() -> impl Iterator<Item = &'static Vocabulary> {
    [&Status::VOCABULARY]
        .into_iter()
        .chain(VOCABULARIES.iter().filter(|v| v.declared))
}

/// Members valued by their codes.
pub(super) fn coded<'a>(members: &[Member<'a>]) -> Vec<(Member<'a>, i64)> {
    members.iter().map(|m| (*m, i64::from(m.code))).collect()
}

/// `vocab.py` after its first line `first_line` (which ends in `\n`).
pub(super) fn vocab_py(first_line: &str) -> String {
    let mut w = Writer::new("    ");
    w.raw(first_line);
    w.raw(
        r#""""Closed vocabularies of the kfam manifest: one ``IntEnum`` each, valued by the stable code.

A member's name is its manifest spelling in upper case (``DType.BF16`` is ``"bf16"``).
Codes are part of the ABI: they never change meaning. ``Status`` and the target vocabularies
(``Platform``, ``Backend``, ``Runtime``, ``ExecutionMode``) are each catalog's: here they are
bases without members, which a catalog's ``_abi`` module subclasses with its own; the maps
below name ``Status`` members.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum, unique
from typing import Final, TypeVar

_VocabT = TypeVar("_VocabT", bound="Vocab")


class Vocab(IntEnum):
    """Base of every vocabulary."""

    @property
    def spelling(self) -> str:
        """The manifest spelling, e.g. ``"bf16"``."""
        return self.name.lower()

    @classmethod
    def from_spelling(cls: type[_VocabT], text: str) -> _VocabT:
        """The member spelled ``text`` in the manifest; ``ValueError`` when there is none."""
        for m in cls:
            if m.spelling == text:
                return m
        raise ValueError(f"{text!r} is not a {cls.__name__} spelling")
"#,
    );
    // The vocabularies every catalog shares, re-exported by its package.
    let mut public: Vec<&str> = VOCABULARIES
        .iter()
        .filter(|v| !v.declared)
        .map(|v| v.name)
        .collect();
    public.sort_unstable();
    w.blank();
    w.blank();
    w.open("__all__ = [");
    for name in public {
        w.line(format_args!("\"{name}\","));
    }
    w.close("]");
    // Two empty lines between top-level items: a class block closes with
    // one (its `close("")`), the template ends with none.
    w.blank();
    for vocab in VOCABULARIES.iter().filter(|v| !v.declared) {
        vocab_class(&mut w, vocab, "Vocab", &coded(vocab.members));
    }
    // A catalog's own vocabularies: bases without members (an enum with
    // members cannot be subclassed).
    for vocab in catalogs_own() {
        w.blank();
        w.block(format_args!("class {}(Vocab):", vocab.name), "", |w| {
            w.line(py_str_literal(&format!(
                "{} Each catalog's ``_abi`` subclasses it with its members.",
                one_line(vocab.doc)
            )));
        });
    }
    w.blank();
    w.line("@dataclass(frozen=True, slots=True)");
    w.block("class Targets:", "", |w| {
        w.line(
            "\"\"\"A catalog's target vocabularies (its ``_abi`` classes): what the records' \
             fields of those\n    types hold, for the decoders of ``kfam_runtime.records``.\"\"\"",
        );
        w.blank();
        for vocab in VOCABULARIES.iter().filter(|v| v.declared) {
            w.line(format_args!(
                "{}: type[{}]",
                names::vocab_snake(vocab.name),
                vocab.name
            ));
        }
    });
    let mut s = w.finish();
    // A class body ends with one empty line (its block's close); two separate top-level items.
    s.push('\n');
    data(&mut s);
    s
}

/// The dicts after the classes.
fn data(s: &mut String) {
    let dtype = |d: &DType| member(DType::NAME, d.as_str());
    data_dict(
        s,
        "Storage size of one element of each dtype, in bits.",
        "_KFAM_DTYPE_BITS: Final[dict[DType, int]] = ",
        DType::ALL
            .iter()
            .map(|d| format!("{}: {}", dtype(d), d.bits()))
            .collect(),
    );
    let (mut floats, mut ints) = (Vec::new(), Vec::new());
    for d in DType::ALL {
        match d.scalar_domain() {
            ScalarDomain::Bool => {}
            ScalarDomain::Int(lo, hi) => ints.push(format!("{}: ({lo}, {hi})", dtype(d))),
            ScalarDomain::Float(max) => floats.push(format!("{}: {}", dtype(d), py_float(max))),
        }
    }
    data_dict(
        s,
        "Largest finite value of each float dtype: a finite scalar beyond it overflows.",
        "_FLOAT_MAX: Final[dict[DType, float]] = ",
        floats,
    );
    data_dict(
        s,
        "Inclusive range of each integer dtype.",
        "_INT_RANGE: Final[dict[DType, tuple[int, int]]] = ",
        ints,
    );
    // Valued by member name: `Status` itself is the catalog's (`_abi.py`).
    let statuses = |vocab: &str, members: Vec<(&str, Status)>| -> Vec<String> {
        members
            .into_iter()
            .map(|(m, st)| {
                format!(
                    "{}: {}",
                    member(vocab, m),
                    py_str_literal(&names::shouty(st.as_str()))
                )
            })
            .collect()
    };
    data_dict(
        s,
        "The C ABI status (a ``Status`` member's name) of each capability outcome.",
        "_CAPABILITY_STATUS: Final[dict[Capability, str]] = ",
        statuses(
            Capability::NAME,
            Capability::ALL
                .iter()
                .map(|&c| (c.as_str(), c.status()))
                .collect(),
        ),
    );
    data_dict(
        s,
        "The C ABI status (a ``Status`` member's name) of each admission outcome.",
        "_ADMISSION_STATUS: Final[dict[Admission, str]] = ",
        statuses(
            Admission::NAME,
            Admission::ALL
                .iter()
                .map(|&a| (a.as_str(), a.status()))
                .collect(),
        ),
    );
    data_dict(
        s,
        "The C ABI status (a ``Status`` member's name) of each call validation rule.",
        "_CALL_STATUS: Final[dict[CallRule, str]] = ",
        statuses(
            CallRule::NAME,
            CallRule::ALL
                .iter()
                .map(|&r| (r.as_str(), r.status()))
                .collect(),
        ),
    );
    data_dict(
        s,
        "The ``torch`` attribute holding each dtype's ``torch.dtype`` (``kfam_runtime.torch``).",
        "_TORCH_DTYPES: Final[dict[DType, str]] = ",
        DType::ALL
            .iter()
            .map(|d| format!("{}: {}", dtype(d), py_str_literal(d.torch_dtype())))
            .collect(),
    );
    data_dict(
        s,
        "The dispatcher type of a scalar of each dtype (none: torch cannot represent it).",
        "_SCALAR_TYPES: Final[dict[DType, str]] = ",
        DType::ALL
            .iter()
            .filter_map(|d| {
                d.torch_scalar()
                    .map(|t| format!("{}: {}", dtype(d), py_str_literal(t)))
            })
            .collect(),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vocabulary_members_spell_back() {
        // `Vocab.spelling` is the member name in lower case.
        for vocab in VOCABULARIES.iter().chain([&Status::VOCABULARY]) {
            // A declared vocabulary's names are checked identifiers
            // (lowercase snake_case), which spell back alike.
            for m in vocab.members {
                let name = names::shouty(m.spelling);
                assert_eq!(name.to_lowercase(), m.spelling, "{}", vocab.name);
                assert!(
                    name.bytes()
                        .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_'),
                    "{name}"
                );
            }
        }
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
    }

    #[test]
    fn every_map_is_defined_once() {
        let text = vocab_py("");
        for name in [
            "_KFAM_DTYPE_BITS",
            "_FLOAT_MAX",
            "_INT_RANGE",
            "_CAPABILITY_STATUS",
            "_ADMISSION_STATUS",
            "_CALL_STATUS",
            "_TORCH_DTYPES",
            "_SCALAR_TYPES",
        ] {
            assert_eq!(
                text.matches(&format!("\n{name}: Final[")).count(),
                1,
                "{name}"
            );
        }
        // Status is the catalog's: the base has no member.
        let status = &text[text.find("\nclass Status(Vocab):\n").expect("Status")..];
        let body = &status[..status[1..].find("\n\n\n").expect("the end of Status")];
        assert_eq!(body.lines().count(), 3, "{body}");
    }
}
