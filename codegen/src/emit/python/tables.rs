//! `kfam/_tables.py`: every family of the catalog as one row (its name, and
//! its record as a compact JSON array), decoded into records only when a
//! consumer first asks for that family (`python/kfam/_lookup.py`). Importing
//! the package thus loads one string per family instead of building every
//! record: at 10,000 families the import costs milliseconds, not seconds.
//! Data only, generated into the output alone; `python/kfam/_tables.pyi`
//! declares its names for the type checker in place.
//!
//! The row layout (field order) is defined twice, here and in
//! `python/kfam/_lookup.py`; the operation payloads, the part that grows
//! with the vocabulary, once (`records::operation_fields`): the record
//! classes, the decoders and [`operation_row`] follow it. The package tests
//! compare every decoded record with the IR field by field.

use std::fmt::{Display, Write as _};

use crate::emit::needs_no_escape;
use crate::emit::writer::Writer;
use crate::ir::{self, Family, Ir, Operation, Param, ScalarRef};

use super::text::{dict, py_str_literal};

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
    if needs_no_escape(text) && !text.contains('\'') {
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

/// `[kind, field...]` in the order of `records::operation_fields`.
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

/// `r'...'`: a row as a raw string literal (see [`Row`]).
fn raw_literal(out: &mut String, row: impl FnOnce(&mut String)) {
    out.push_str("r'");
    row(out);
    out.push('\'');
}

/// `_tables.py`: one row per family and the digest indices, data only,
/// imported by the first lookup that reads a row (`_lookup.py`).
pub(super) fn tables_py(ir: &Ir, header: &str) -> String {
    // About 1.2 KiB per family row and 0.1 KiB per artifact line.
    let receipts: usize = ir.families.iter().map(|f| f.receipts.len()).sum();
    let mut w = Writer::with_capacity("    ", 8192 + ir.families.len() * 1300 + receipts * 110);
    w.raw(header);
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
}
