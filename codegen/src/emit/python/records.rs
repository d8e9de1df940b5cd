//! `kfam_runtime/records.py`: the frozen dataclasses of the records and
//! the decoders of their rows, printed by walking the record declarations
//! (`crate::record`): one class per record and per operation kind, fields
//! in the declared order, and one `_kfam_decode_<record>` function per
//! record that reads the row [`super::tables`] writes from the same
//! declaration. A field of a vocabulary the catalog declares is annotated
//! with the runtime's base class and decoded with the catalog's own
//! (`Targets`, passed down to the decoders that need it). Hand-written
//! methods (`Family.param`, ...) come from the mixins of
//! `python/kfam_runtime/_methods.py` that a declaration names. The same for
//! every catalog of one kfam version: the text is committed as
//! `python/kfam_runtime/records.py` (`codegen/tests/sourcegen.rs` keeps the
//! copy current).

use std::collections::BTreeSet;
use std::fmt::Write as _;

use crate::names;
use crate::record::{Field, Record, Role, Ty, LOGICAL_RECORDS, OPERATIONS};

use super::text::import_list;

/// The Python annotation of a field's type.
fn annotation(ty: Ty) -> String {
    match ty {
        Ty::Bool => "bool".into(),
        Ty::U32 | Ty::Index | Ty::Param | Ty::Count | Ty::I64 | Ty::Extent => "int".into(),
        Ty::OptParam | Ty::Bound => "int | None".into(),
        Ty::F64 => "float".into(),
        Ty::Str | Ty::Digest => "str".into(),
        Ty::OptStr => "str | None".into(),
        Ty::Vocab(v) => v.name.into(),
        Ty::Dims { .. } | Ty::Indices => "tuple[int, ...]".into(),
        Ty::Strs => "tuple[str, ...]".into(),
        Ty::List(r) => format!("tuple[{}, ...]", r.name),
        Ty::Nested(r) => r.name.into(),
        Ty::ScalarRef => "ScalarRef".into(),
        Ty::Operation => "Operation".into(),
        Ty::C(_) | Ty::Raw(_) => unreachable!("a field only C has"),
    }
}

/// The decoder of a record's rows.
fn decoder(r: &Record) -> String {
    format!("_kfam_decode_{}", names::vocab_snake(r.name))
}

/// Whether a record's row leaves out its position (the decoder takes it).
fn positional(r: &Record) -> bool {
    r.logical().any(|f| f.role == Role::Position)
}

/// Whether a record holds a value of a vocabulary the catalog declares,
/// itself or in a record it holds: its decoder takes the catalog's
/// `Targets`.
fn targeted(r: &Record) -> bool {
    r.logical().any(|f| match f.ty {
        Ty::Vocab(v) => v.declared,
        Ty::List(inner) | Ty::Nested(inner) => targeted(inner),
        _ => false,
    })
}

/// `, t` when the decoder of `r` takes the catalog's `Targets`.
fn targets_arg(r: &Record) -> &'static str {
    if targeted(r) {
        ", t"
    } else {
        ""
    }
}

/// Whether a record's row leaves out its key (the decoder takes it).
fn keyed(r: &Record) -> bool {
    r.logical().any(|f| f.role == Role::Key)
}

/// The fields a row of `r` holds, in order: every logical field but the
/// position and the key.
fn row_fields(r: &Record) -> impl Iterator<Item = &'static Field> + Clone {
    r.logical()
        .filter(|f| !matches!(f.role, Role::Position | Role::Key))
}

/// The Python expression decoding the row value `v` of type `ty`, noting
/// the primitives of `_decode.py` it uses.
fn decode(ty: Ty, v: &str, used: &mut BTreeSet<&'static str>) -> String {
    let mut prim = |name: &'static str| {
        used.insert(name);
        format!("{name}({v})")
    };
    match ty {
        Ty::Bool => prim("_bool"),
        Ty::U32 | Ty::Index | Ty::Param | Ty::Count | Ty::I64 | Ty::Extent => prim("_int"),
        Ty::OptParam | Ty::Bound => prim("_opt_int"),
        Ty::F64 => prim("_float"),
        Ty::Str | Ty::Digest => prim("_str"),
        Ty::OptStr => prim("_opt_str"),
        Ty::Vocab(vocab) if vocab.declared => {
            used.insert("_int");
            format!("t.{}(_int({v}))", names::vocab_snake(vocab.name))
        }
        Ty::Vocab(vocab) => {
            used.insert("_int");
            format!("{}(_int({v}))", vocab.name)
        }
        Ty::Dims { .. } | Ty::Indices => prim("_ints"),
        Ty::Strs => {
            used.insert("_items");
            used.insert("_str");
            format!("tuple(map(_str, _items({v})))")
        }
        Ty::List(r) => {
            used.insert("_items");
            let t = targets_arg(r);
            if positional(r) {
                format!(
                    "tuple({}(e, i{t}) for i, e in enumerate(_items({v})))",
                    decoder(r)
                )
            } else if targeted(r) {
                format!("tuple({}(e, t) for e in _items({v}))", decoder(r))
            } else {
                format!("tuple(map({}, _items({v})))", decoder(r))
            }
        }
        Ty::Nested(r) => format!("{}({v}{})", decoder(r), targets_arg(r)),
        Ty::ScalarRef => {
            used.insert("_scalar_ref");
            format!("ScalarRef(*_scalar_ref({v}))")
        }
        Ty::Operation => format!("_kfam_decode_operation({v})"),
        Ty::C(_) | Ty::Raw(_) => unreachable!("a field only C has"),
    }
}

/// `class Name(...)` with its docstring and fields, `extra` after them.
fn class(out: &mut String, r: &Record, extra: &str) {
    let base = r.methods.map_or(String::new(), |m| format!("({m})"));
    let _ = writeln!(out, "\n\n@dataclass(frozen=True, slots=True)");
    let _ = writeln!(out, "class {}{base}:", r.name);
    let _ = writeln!(out, "    \"\"\"{}\"\"\"\n", docstring(r.doc));
    for f in r.logical() {
        let _ = writeln!(out, "    #: {}", one_line(f.doc));
        let _ = writeln!(out, "    {}: {}", f.name, annotation(f.ty));
    }
    out.push_str(extra);
}

/// A declaration's doc as a docstring body: `` `x` `` spelled ``` ``x`` ```
/// (reStructuredText), continuation lines indented.
fn docstring(doc: &str) -> String {
    rst(doc).replace('\n', "\n    ")
}

fn one_line(doc: &str) -> String {
    rst(&doc.split_whitespace().collect::<Vec<_>>().join(" "))
}

fn rst(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    for (i, part) in text.split('`').enumerate() {
        if i > 0 {
            out.push_str("``");
        }
        out.push_str(part);
    }
    out
}

/// `def _kfam_decode_<record>(x[, position][, key][, t]) -> Record`.
fn decode_fn(out: &mut String, r: &Record, used: &mut BTreeSet<&'static str>) {
    let mut params = String::from("x: object");
    if positional(r) {
        params.push_str(", position: int");
    }
    if keyed(r) {
        params.push_str(", key: str");
    }
    if targeted(r) {
        params.push_str(", t: Targets");
    }
    used.insert("_fields");
    // Where each row field starts: a nested record's fields are inline.
    let mut starts: Vec<(&str, usize)> = Vec::new();
    let mut width = 0;
    for f in row_fields(r) {
        starts.push((f.name, width));
        width += row_width(f);
    }
    let at = |name: &str| {
        starts
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, a)| *a)
            .expect("a row field")
    };
    let _ = writeln!(out, "\n\ndef {}({params}) -> {}:", decoder(r), r.name);
    let _ = writeln!(out, "    v = _fields(x, {width})");
    let _ = writeln!(out, "    return {}(", r.name);
    for f in r.logical() {
        let value = match (f.role, f.ty) {
            (Role::Position, _) => "position".to_owned(),
            (Role::Key, _) => "key".to_owned(),
            (Role::SameAs(other), ty) => {
                let (mine, theirs) = (at(f.name), at(other));
                decode(
                    ty,
                    &format!("v[{theirs}] if v[{mine}] is None else v[{mine}]"),
                    used,
                )
            }
            (Role::Plain, Ty::Nested(inner)) => {
                let start = at(f.name);
                format!(
                    "{}(v[{start}:{}]{})",
                    decoder(inner),
                    start + row_width(f),
                    targets_arg(inner)
                )
            }
            // Appended in a later release: a row an earlier generator
            // wrote ends before it, so it reads as its type's zero. A
            // declared attribute's row value is left out at its default.
            (Role::Plain, ty) if f.since > 0 || f.attr.is_some() => {
                let i = at(f.name);
                let zero = match ty {
                    _ if f.attr.is_some() => f.attr.map_or(0, |a| a.default).to_string(),
                    Ty::Bool => "False".to_owned(),
                    Ty::F64 => "0.0".to_owned(),
                    Ty::U32 | Ty::Count | Ty::I64 => "0".to_owned(),
                    Ty::Vocab(v) if !v.declared => {
                        format!("{}.{}", v.name, names::shouty(v.absent().spelling))
                    }
                    other => unreachable!("an appended field of type {other:?} needs a zero here"),
                };
                format!(
                    "{zero} if v[{i}] is None else {}",
                    decode(ty, &format!("v[{i}]"), used)
                )
            }
            (Role::Plain, ty) => decode(ty, &format!("v[{}]", at(f.name)), used),
        };
        let _ = writeln!(out, "        {}={value},", f.name);
    }
    out.push_str("    )\n");
}

/// How many values of a row a field takes: a nested record's fields are
/// written inline, as the Rust constructors take them.
pub(super) fn row_width(f: &Field) -> usize {
    match f.ty {
        Ty::Nested(r) => row_fields(r).map(row_width).sum(),
        _ => 1,
    }
}

pub(super) fn records_py(first_line: &str) -> String {
    let mut used = BTreeSet::new();
    let mut body = String::new();
    body.push_str(SCALAR_REF);
    for (kind, r) in OPERATIONS {
        let kind_property = format!(
            "\n    @property\n    def kind(self) -> OperationKind:\n        return OperationKind.{}\n",
            names::shouty(kind.as_str())
        );
        class(&mut body, r, &kind_property);
    }
    // One member a line, with the trailing comma that keeps `ruff format`
    // from joining them, however many kinds there are.
    let union: String = OPERATIONS
        .iter()
        .map(|(_, r)| format!("    {},\n", r.name))
        .collect();
    let _ = write!(
        body,
        "\n\n#: The typed operation payload of a family; narrow it with ``isinstance``.\n\
         Operation: TypeAlias = Union[\n{union}]\n"
    );
    for r in LOGICAL_RECORDS {
        class(&mut body, r, "");
    }
    body.push_str(
        "\n\n# ---------------------------------------------------------------- decoders\n",
    );
    for r in LOGICAL_RECORDS
        .iter()
        .copied()
        .chain(OPERATIONS.iter().map(|(_, r)| *r))
    {
        decode_fn(&mut body, r, &mut used);
    }
    body.push_str(
        "\n\n#: The decoder of each operation kind's payload row (the fields after the kind's code).\n\
         _OPERATIONS: Final[dict[OperationKind, Callable[[object], Operation]]] = {\n",
    );
    for (kind, r) in OPERATIONS {
        let _ = writeln!(
            body,
            "    OperationKind.{}: {},",
            names::shouty(kind.as_str()),
            decoder(r)
        );
    }
    body.push_str("}\n");
    used.insert("_row");
    used.insert("_int");
    used.insert("_corrupt");
    body.push_str(DECODE_OPERATION);

    // Imports last: they name what the classes and decoders use.
    // The bases of the vocabularies a catalog declares annotate its fields;
    // `Targets` holds the catalog's classes that decode them.
    let mut vocab: BTreeSet<&str> = BTreeSet::from(["OperationKind", "Targets"]);
    let mut mixins: BTreeSet<&str> = BTreeSet::new();
    for r in LOGICAL_RECORDS
        .iter()
        .copied()
        .chain(OPERATIONS.iter().map(|(_, r)| *r))
    {
        // The class's name, without the type arguments of a generic mixin.
        mixins.extend(r.methods.and_then(|m| m.split('[').next()));
        for f in r.logical() {
            if let Ty::Vocab(v) = f.ty {
                vocab.insert(v.name);
            }
        }
    }
    let mut out = String::with_capacity(body.len() + 1024);
    out.push_str(first_line);
    out.push_str(
        r#""""Record types of the kfam tables: frozen dataclasses, shapes as tuples of int (-1 is dynamic).

Each record's row in a catalog's ``_tables`` module (a JSON array, fields by position) is read by
its ``_kfam_decode_*`` function, with the checked reads of ``kfam_runtime._decode``; the fields of
the catalog's own vocabularies are decoded with its classes (``Targets``). Printed from kfam's
record declarations, as the C structs and the Rust records are.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Final, TypeAlias, Union

"#,
    );
    out.push_str(&import_list("._decode", used.into_iter().collect()));
    out.push('\n');
    out.push_str(&import_list("._methods", mixins.into_iter().collect()));
    out.push('\n');
    out.push_str(&import_list(".vocab", vocab.into_iter().collect()));
    out.push('\n');
    // The public classes, re-exported by the package.
    let mut public: Vec<&str> = LOGICAL_RECORDS
        .iter()
        .chain(OPERATIONS.iter().map(|(_, r)| r))
        .map(|r| r.name)
        .chain(["Operation", "ScalarRef"])
        .collect();
    public.sort_unstable();
    out.push_str("\n__all__ = [\n");
    for name in public {
        let _ = writeln!(out, "    \"{name}\",");
    }
    out.push_str("]\n");
    out.push_str(&body);
    out
}

/// `ScalarRef`: how Python holds a scalar operand (Rust has an enum, C two
/// fields).
const SCALAR_REF: &str = r#"

@dataclass(frozen=True, slots=True)
class ScalarRef:
    """A scalar operand of an operation (``eps``, ``scale``).

    Either ``constant`` (fixed by the family) or ``param`` (an index into ``Family.params`` of
    the scalar passed at call time) is set, never both.
    """

    constant: float | None
    param: int | None
"#;

const DECODE_OPERATION: &str = r#"

def _kfam_decode_operation(x: object) -> Operation:
    """An operation row: the kind's code, then the kind's fields in order."""
    v = _row(x)
    if not v:
        raise _corrupt("operation", x)
    decode = _OPERATIONS.get(OperationKind(_int(v[0])))
    if decode is None:
        raise _corrupt("operation", x)
    return decode(v[1:])


def decode_family(name: str, row: object, targets: Targets) -> Family:
    """The family called ``name`` from its row (``_tables.FAMILY_ROWS``, parsed), the catalog's
    vocabularies decoded with ``targets``."""
    return _kfam_decode_family(row, name, targets)


def decode_retired(name: str, row: object) -> Retired:
    """The retired family called ``name`` from its row (``_tables.RETIRED_ROWS``, parsed)."""
    return _kfam_decode_retired(row, name)
"#;
