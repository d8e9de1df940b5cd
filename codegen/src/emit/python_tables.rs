//! `python/kfam/_tables.py`: the ABI constants and every family as one row
//! (its name, and its record as a compact JSON array), decoded into records
//! only when a consumer first asks for that family (`kfam/_lookup.py`, the
//! static source `python_lookup.py` next to this file). Importing the
//! package thus loads one string per family instead of building every
//! record: at 10,000 families the import costs milliseconds, not seconds.
//!
//! The row layout (field order) is defined twice, here and in
//! `python_lookup.py`; the operation payloads, the part that grows with the
//! vocabulary, once ([`operation_fields`]): the record classes, the rows
//! and the decoders are all written from it. The package tests compare
//! every decoded record with the IR field by field.

use std::fmt::{Display, Write as _};

use super::python::{header, py_str_literal};
use super::writer::Writer;
use crate::ir::{self, Family, Ir, Operation, Param, ScalarRef};
use crate::vocab::OperationKind;

/// The Python type of an operation field, and so how its row encodes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Field {
    /// `int` (an operand index or an extent).
    Int,
    Bool,
    /// `tuple[int, ...]`, a JSON array.
    Ints,
    /// A vocabulary member, by its code.
    Vocab(&'static str),
    /// `int | None`.
    OptInt,
    /// `ScalarRef`, as `[constant, param]` (one of them `null`).
    ScalarRef,
    Str,
}

impl Field {
    /// The field's annotation in the record class.
    pub(super) fn annotation(self) -> &'static str {
        match self {
            Field::Int => "int",
            Field::Bool => "bool",
            Field::Ints => "tuple[int, ...]",
            Field::Vocab(name) => name,
            Field::OptInt => "int | None",
            Field::ScalarRef => "ScalarRef",
            Field::Str => "str",
        }
    }

    /// The Python expression decoding `v` (an `object` from the row).
    fn decoder(self, v: &str) -> String {
        match self {
            Field::Int => format!("_int({v})"),
            Field::Bool => format!("_bool({v})"),
            Field::Ints => format!("_ints({v})"),
            Field::Vocab(name) => format!("{name}(_int({v}))"),
            Field::OptInt => format!("_opt_int({v})"),
            Field::ScalarRef => format!("_scalar_ref({v})"),
            Field::Str => format!("_str({v})"),
        }
    }
}

/// The fields of each operation kind's record, in order: the dataclass,
/// the row and the decoder follow it. Exhaustive: a new kind does not
/// compile until it has fields here (and a row in [`operation_row`]).
pub(super) fn operation_fields(kind: OperationKind) -> &'static [(&'static str, Field)] {
    use Field::*;
    match kind {
        OperationKind::ElementwiseBinary => &[
            ("op", Vocab("BinaryOp")),
            ("lhs", Int),
            ("rhs", Int),
            ("out", Int),
        ],
        OperationKind::Matmul => &[
            ("m", Int),
            ("k", Int),
            ("n", Int),
            ("a", Int),
            ("b", Int),
            ("c", Int),
            ("accumulate", Bool),
        ],
        OperationKind::ElementwiseUnary => {
            &[("op", Vocab("UnaryOp")), ("input", Int), ("out", Int)]
        }
        OperationKind::Reduce => &[
            ("op", Vocab("ReduceOp")),
            ("input", Int),
            ("out", Int),
            ("axes", Ints),
            ("keepdim", Bool),
        ],
        OperationKind::Softmax => &[("input", Int), ("out", Int), ("axis", Int)],
        OperationKind::Norm => &[
            ("op", Vocab("NormKind")),
            ("input", Int),
            ("weight", Int),
            ("bias", OptInt),
            ("out", Int),
            ("axis", Int),
            ("eps", ScalarRef),
        ],
        OperationKind::PagedAttentionDecode => &[
            ("query", Int),
            ("key_cache", Int),
            ("value_cache", Int),
            ("block_table", Int),
            ("context_lens", Int),
            ("out", Int),
            ("scale", ScalarRef),
        ],
        OperationKind::Custom => &[("semantics", Str)],
    }
}

/// The decoders of the operation rows, spliced into `_lookup.py`: for each
/// kind, the length of its row and the function building its record.
pub(super) fn operation_decoders() -> String {
    let mut w = Writer::new("    ");
    dict(
        &mut w,
        "Each operation kind: the length of its row (code and fields) and its decoder.",
        "_OPERATIONS: Final[dict[OperationKind, tuple[int, Callable[[list[object]], Operation]]]] = ",
        OperationKind::ALL,
        |out, &kind| {
            let fields = operation_fields(kind);
            let args: Vec<String> = fields
                .iter()
                .enumerate()
                .map(|(i, (_, f))| f.decoder(&format!("v[{}]", i + 1)))
                .collect();
            let _ = write!(
                out,
                "OperationKind.{}: ({}, lambda v: {}({}))",
                crate::names::shouty(kind.as_str()),
                fields.len() + 1,
                kind.variant_name(),
                args.join(", ")
            );
        },
    );
    w.finish()
}

/// A JSON array written in place: values are separated by commas, strings
/// are printable ASCII without `'` (so the row is a raw Python literal,
/// `r'...'`, that nothing in it can end early).
struct Row<'a> {
    out: &'a mut String,
    more: bool,
}

impl<'a> Row<'a> {
    fn new(out: &'a mut String) -> Self {
        out.push('[');
        Row { out, more: false }
    }

    fn sep(&mut self) {
        if self.more {
            self.out.push(',');
        }
        self.more = true;
    }

    fn num(&mut self, n: impl Display) -> &mut Self {
        self.sep();
        let _ = write!(self.out, "{n}");
        self
    }

    fn bool(&mut self, b: bool) -> &mut Self {
        self.num(b)
    }

    fn null(&mut self) -> &mut Self {
        self.num("null")
    }

    fn str(&mut self, text: &str) -> &mut Self {
        self.sep();
        json_str(self.out, text);
        self
    }

    fn opt_str(&mut self, text: Option<&str>) -> &mut Self {
        match text {
            Some(t) => self.str(t),
            None => self.null(),
        }
    }

    fn opt_num(&mut self, n: Option<impl Display>) -> &mut Self {
        match n {
            Some(n) => self.num(n),
            None => self.null(),
        }
    }

    fn nums<T: Display>(&mut self, items: &[T]) -> &mut Self {
        self.array(|r| {
            for n in items {
                r.num(n);
            }
        })
    }

    /// A nested array whose items `body` writes.
    fn array(&mut self, body: impl FnOnce(&mut Row<'_>)) -> &mut Self {
        self.sep();
        let mut inner = Row::new(self.out);
        body(&mut inner);
        self.out.push(']');
        self
    }

    fn code(&mut self, code: i32) -> &mut Self {
        self.num(code)
    }
}

/// `text` as a JSON string of printable ASCII without `'`: `"`, `\`, and
/// newline, return and tab escaped short, everything else outside `' '..='~'` (and `'`) as `\uXXXX`
/// (UTF-16 surrogate pairs beyond the BMP).
fn json_str(out: &mut String, text: &str) {
    out.push('"');
    if super::needs_no_escape(text) && !text.contains('\'') {
        out.push_str(text);
    } else {
        for c in text.chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                '\'' => out.push_str("\\u0027"),
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push_str("\\t"),
                ' '..='~' => out.push(c),
                c => {
                    let mut units = [0u16; 2];
                    for u in c.encode_utf16(&mut units) {
                        let _ = write!(out, "\\u{u:04x}");
                    }
                }
            }
        }
    }
    out.push('"');
}

/// `[kind, field...]` in the order of [`operation_fields`].
fn operation_row(r: &mut Row<'_>, op: &Operation) {
    r.array(|r| {
        r.code(op.kind().code());
        match op {
            Operation::ElementwiseBinary { op, lhs, rhs, out } => {
                r.code(op.code()).num(lhs).num(rhs).num(out);
            }
            Operation::Matmul {
                m,
                k,
                n,
                a,
                b,
                c,
                accumulate,
            } => {
                r.num(m.as_i64()).num(k.as_i64()).num(n.as_i64());
                r.num(a).num(b).num(c).bool(*accumulate);
            }
            Operation::ElementwiseUnary { op, input, out } => {
                r.code(op.code()).num(input).num(out);
            }
            Operation::Reduce {
                op,
                input,
                out,
                axes,
                keepdim,
            } => {
                r.code(op.code())
                    .num(input)
                    .num(out)
                    .nums(axes)
                    .bool(*keepdim);
            }
            Operation::Softmax { input, out, axis } => {
                r.num(input).num(out).num(axis);
            }
            Operation::Norm {
                op,
                input,
                weight,
                bias,
                out,
                axis,
                eps,
            } => {
                r.code(op.code()).num(input).num(weight).opt_num(*bias);
                r.num(out).num(axis);
                scalar_ref(r, *eps);
            }
            Operation::PagedAttentionDecode {
                query,
                key_cache,
                value_cache,
                block_table,
                context_lens,
                out,
                scale,
            } => {
                r.num(query).num(key_cache).num(value_cache);
                r.num(block_table).num(context_lens).num(out);
                scalar_ref(r, *scale);
            }
            Operation::Custom { semantics } => {
                r.str(semantics);
            }
        }
    });
}

/// `[constant, null]` or `[null, param]`. A constant is written with `{:?}`:
/// the shortest digits that read back exactly, always a JSON float (`1.0`,
/// `1e-6`), never an integer.
fn scalar_ref(r: &mut Row<'_>, s: ScalarRef) {
    r.array(|r| match s {
        ScalarRef::Constant(v) => {
            assert!(v.is_finite(), "{v}");
            r.num(format_args!("{v:?}")).null();
        }
        ScalarRef::Param(i) => {
            r.null().num(i);
        }
    });
}

/// `[name, kind, direction, dtype, shape, layout, pool_index, doc,
/// lowered_shape]`, `index` being the position in the row. `lowered_shape`
/// is `null` when it equals `shape` (most do), and trailing `null`s are left
/// out (most parameters have neither: at 10,000 families that is a tenth of
/// the file).
fn param_row(r: &mut Row<'_>, p: &Param) {
    r.array(|r| {
        r.str(&p.name)
            .code(p.kind.code())
            .code(p.direction.code())
            .code(p.dtype.code());
        r.nums(&p.shape).code(p.layout.code()).num(p.pool_index);
        let lowered = (p.lowered_shape != p.shape).then_some(&p.lowered_shape);
        if p.doc.is_some() || lowered.is_some() {
            r.opt_str(p.doc.as_deref());
        }
        if let Some(l) = lowered {
            r.nums(l);
        }
    });
}

/// A family's row, without its name (the key of the row):
/// `[revision, summary, contract, torch, operation, params, returns,
/// profiles, receipts, tensor_count, scalar_count, identity, torch_schema,
/// symbols]`. `Family::source` is left out: it is the path as `kfam` was
/// invoked, so emitting it would make the output depend on the working
/// directory.
fn family_row(out: &mut String, f: &Family) {
    let mut r = Row::new(out);
    r.num(f.revision)
        .str(&f.summary)
        .code(f.contract.code())
        .bool(f.torch);
    operation_row(&mut r, &f.operation);
    r.array(|r| f.params.iter().for_each(|p| param_row(r, p)));
    r.nums(&f.returns);
    r.array(|r| {
        for p in &f.profiles {
            r.array(|r| {
                r.str(&p.name)
                    .code(p.platform.code())
                    .code(p.backend.code());
                r.code(p.runtime.code()).code(p.execution_mode.code());
                r.array(|r| {
                    for b in &p.bindings {
                        r.array(|r| {
                            r.num(b.param).num(b.slot).code(b.kind.code());
                        });
                    }
                });
            });
        }
    });
    r.array(|r| {
        for rc in &f.receipts {
            let ir::Evidence {
                date,
                hardware,
                note,
            } = &rc.evidence;
            r.array(|r| {
                r.num(rc.profile)
                    .str(&rc.codec)
                    .str(&rc.artifact)
                    .str(&rc.sha256);
                r.str(date).str(hardware).opt_str(note.as_deref());
            });
        }
    });
    r.num(f.tensor_count).num(f.scalar_count).str(&f.identity);
    r.opt_str(f.torch_schema.as_deref());
    r.array(|r| {
        for s in &f.symbols {
            r.array(|r| {
                r.str(&s.name).num(s.min).opt_num(s.max).num(s.multiple_of);
                r.array(|r| {
                    for u in &s.uses {
                        r.array(|r| {
                            r.num(u.param).num(u.tensor).num(u.axis);
                        });
                    }
                });
            });
        }
    });
    out.push(']');
}

/// A retired family's row, without its name: `[revision, identity, reason,
/// receipts]`.
fn retired_row(out: &mut String, t: &ir::Retired) {
    let mut r = Row::new(out);
    r.num(t.revision).str(&t.identity).str(&t.reason);
    r.array(|r| {
        for d in &t.receipts {
            r.str(d);
        }
    });
    out.push(']');
}

/// `lead{`, one `key: value,` line per item (`item` writes the value), `}`;
/// `lead{}` when there are none.
pub(super) fn dict<T>(
    w: &mut Writer,
    comment: &str,
    lead: &str,
    items: impl IntoIterator<Item = T>,
    mut item: impl FnMut(&mut String, T),
) {
    w.comment("#: ", comment);
    let mut items = items.into_iter().peekable();
    if items.peek().is_none() {
        w.line(format_args!("{lead}{{}}"));
        return;
    }
    w.open(format_args!("{lead}{{"));
    for it in items {
        w.start_line();
        item(w.buf(), it);
        w.buf().push(',');
        w.end_line();
    }
    w.close("}");
}

/// `r'...'`: a row as a raw string literal (see [`Row`]).
fn raw_literal(out: &mut String, row: impl FnOnce(&mut String)) {
    out.push_str("r'");
    row(out);
    out.push('\'');
}

/// `_abi.py`: the native ABI's constants, imported with the package (the
/// rows are not: [`tables_py`]).
pub(super) fn abi_py(ir: &Ir) -> String {
    let abi = &ir.abi;
    let mut w = Writer::new("    ");
    w.raw(&header());
    w.raw(
        r#""""The native ABI the approved artifacts target, as ``manifest/abi.toml`` declares it."""

from __future__ import annotations

from typing import Final

"#,
    );
    w.line("#: Native runtime commit the artifacts are built against.");
    w.line(format_args!(
        "ABI_REVISION: Final[str] = {}",
        py_str_literal(&abi.revision)
    ));
    w.line(format_args!("ABI_MAJOR: Final[int] = {}", abi.major));
    w.line(format_args!("ABI_MINOR: Final[int] = {}", abi.minor));
    w.line(format_args!(
        "MAX_TENSOR_ARGS: Final[int] = {}",
        abi.max_tensor_args
    ));
    w.line(format_args!(
        "MAX_SCALAR_ARGS: Final[int] = {}",
        abi.max_scalar_args
    ));
    w.line(format_args!("MAX_RANK: Final[int] = {}", abi.max_rank));
    w.line("#: Most callables one kernel context holds prepared (``kfam.context.Context``).");
    w.line(format_args!(
        "MAX_PREPARED: Final[int] = {}",
        abi.max_prepared
    ));
    w.line("#: Version of the canonical form ``Family.identity`` is taken over.");
    w.line(format_args!(
        "IDENTITY_FORMAT: Final[int] = {}",
        ir::IDENTITY_FORMAT
    ));
    w.finish()
}

/// `_tables.py`: one row per family and the digest indices, data only,
/// imported by the first lookup that reads a row (`_lookup.py`).
pub(super) fn tables_py(ir: &Ir) -> String {
    // About 1.2 KiB per family row and 0.1 KiB per artifact line.
    let receipts: usize = ir.families.iter().map(|f| f.receipts.len()).sum();
    let mut w = Writer::with_capacity("    ", 8192 + ir.families.len() * 1300 + receipts * 110);
    w.raw(&header());
    w.raw(
        r#""""The approved families of ``manifest/``. Data only.

Each family is one row: its name, and its record as a JSON array (fields by position) that
``kfam._lookup`` decodes into a ``Family`` the first time the family is asked for. Importing the
package neither builds a record nor loads this module: the first lookup that reads a row does.
"""

from __future__ import annotations

from typing import Final

"#,
    );
    dict(
        &mut w,
        "Every approved family, sorted by name: its row (``kfam._lookup``).",
        "FAMILY_ROWS: Final[dict[str, str]] = ",
        &ir.families,
        |out, f| {
            out.push_str(&py_str_literal(&f.name));
            out.push_str(": ");
            raw_literal(out, |out| family_row(out, f));
        },
    );
    w.blank();
    dict(
        &mut w,
        "The digest of every receipt: the name of the family it approves an artifact for.",
        "ARTIFACTS: Final[dict[str, str]] = ",
        ir.families
            .iter()
            .flat_map(|f| f.receipts.iter().map(move |r| (&r.sha256, &f.name))),
        |out, (sha, name)| {
            let _ = write!(out, "{}: {}", py_str_literal(sha), py_str_literal(name));
        },
    );
    w.blank();
    dict(
        &mut w,
        "Every retired family, sorted by name: its row (``kfam._lookup``).",
        "RETIRED_ROWS: Final[dict[str, str]] = ",
        &ir.retired,
        |out, t| {
            out.push_str(&py_str_literal(&t.name));
            out.push_str(": ");
            raw_literal(out, |out| retired_row(out, t));
        },
    );
    w.blank();
    dict(
        &mut w,
        "Every artifact digest the lock recorded for a retired family: that family's name.",
        "RETIRED_ARTIFACTS: Final[dict[str, str]] = ",
        ir.retired
            .iter()
            .flat_map(|t| t.receipts.iter().map(move |d| (d, &t.name))),
        |out, (sha, name)| {
            let _ = write!(out, "{}: {}", py_str_literal(sha), py_str_literal(name));
        },
    );
    w.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_strings_are_printable_ascii_without_single_quotes() {
        let mut out = String::new();
        json_str(&mut out, "a'b\"c\\d\ne\u{7f}é😀\u{202e}");
        assert_eq!(out, r#""a\u0027b\"c\\d\ne\u007f\u00e9\ud83d\ude00\u202e""#);
        let row: serde_json::Value = serde_json::from_str(&format!("[{out}]")).unwrap();
        assert_eq!(row[0], "a'b\"c\\d\ne\u{7f}é😀\u{202e}");
    }

    #[test]
    fn operation_decoders_cover_every_kind() {
        let text = operation_decoders();
        for &k in OperationKind::ALL {
            assert!(
                text.contains(&format!("lambda v: {}(", k.variant_name())),
                "{text}"
            );
        }
    }
}
