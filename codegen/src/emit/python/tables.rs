//! `<package>/_tables.py`: every family of the catalog as one row (its
//! name, and its record as a compact JSON array), decoded into records only
//! when a consumer first asks for that family (the runtime's `Catalog`,
//! `python/kfam_runtime/_catalog.py`). Importing the package thus loads one
//! string per family instead of building every record: at 10,000 families
//! the import costs milliseconds, not seconds. Data only; the runtime's
//! `Tables` protocol declares what it reads of it (`codegen/tests/sourcegen.rs`
//! compares).
//!
//! A row is written by walking the record's declaration (`crate::record`),
//! and read back by the decoder `kfam_runtime/records.py` prints from the same
//! declaration ([`super::records`]): the field order is defined once. The
//! package tests compare every decoded record with the IR field by field.

use std::fmt::Write as _;

use crate::emit::needs_no_escape;
use crate::emit::writer::Writer;
use crate::ir::{Ir, ScalarRef};
use crate::record::values::{Row, Value};
use crate::record::{Record, Role, Ty, FAMILY, OPERATIONS, RETIRED};

use super::text::{dict, py_str_literal};

/// `text` as a JSON string of printable ASCII without `'`: `"`, `\`, and
/// newline, return and tab escaped short, everything else outside `' '..='~'` (and `'`) as `\uXXXX`
/// (UTF-16 surrogate pairs beyond the BMP). Rows are thus raw Python
/// literals, `r'...'`, that nothing in them can end early.
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

/// A record's row: the values of its fields but the position and the key,
/// in order (a nested record's fields inline), a field equal to the one it
/// defaults to ([`Role::SameAs`]) as `null`, trailing `null`s and empty
/// lists left out (most parameters have no lowered shape of their own, most
/// families no symbols).
fn row(out: &mut String, record: &Record, value: &dyn Row) {
    out.push('[');
    let mut end = out.len();
    fields(out, record, value, &mut true, &mut end);
    out.truncate(end);
    out.push(']');
}

/// A record's values into a row: a nested record's inline. `end` follows
/// where the row ends before its trailing `null`s and empty lists.
fn fields(out: &mut String, record: &Record, value: &dyn Row, first: &mut bool, end: &mut usize) {
    let values = value.values();
    let of = |name: &str| {
        values[record
            .logical()
            .position(|f| f.name == name)
            .expect("a field")]
    };
    for (f, &v) in record.logical().zip(values.iter()) {
        let same = match f.role {
            Role::Position | Role::Key => continue,
            Role::SameAs(other) => same_value(v, of(other)),
            // A declared attribute at its default is read as the default.
            Role::Plain => f
                .attr
                .is_some_and(|a| matches!(v, Value::Int(x) if x == a.default)),
        };
        if let Value::Nested(inner) = v {
            fields(out, inner.record(), inner, first, end);
            continue;
        }
        if !*first {
            out.push(',');
        }
        *first = false;
        if same {
            out.push_str("null");
        } else {
            json_value(out, f.ty, v);
        }
        if !(same || v.is_empty()) {
            *end = out.len();
        }
    }
}

fn same_value(a: Value<'_>, b: Value<'_>) -> bool {
    match (a, b) {
        (Value::Ints(x), Value::Ints(y)) => x.iter().eq(y.iter()),
        _ => false,
    }
}

/// One value as JSON: codes for vocabulary members, `[constant, param]`
/// for a scalar reference, `[code, fields...]` for an operation.
fn json_value(out: &mut String, ty: Ty, v: Value<'_>) {
    let mut buf = itoa::Buffer::new();
    match (ty, v) {
        (_, Value::Absent) => out.push_str("null"),
        (_, Value::Bool(b)) => out.push_str(if b { "true" } else { "false" }),
        (_, Value::Int(n)) => out.push_str(buf.format(n)),
        (_, Value::Extent(e)) => out.push_str(buf.format(e.as_i64())),
        (_, Value::F64(x)) => out.push_str(&json_float(x)),
        (_, Value::Str(s)) => json_str(out, s),
        (_, Value::Vocab(c)) => out.push_str(buf.format(c.code)),
        (_, Value::Ints(items)) => {
            out.push('[');
            for (i, n) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(buf.format(n));
            }
            out.push(']');
        }
        (_, Value::Strs(list)) => {
            out.push('[');
            for (i, s) in list.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                json_str(out, s);
            }
            out.push(']');
        }
        (Ty::List(r), Value::List(rows)) => {
            out.push('[');
            for i in 0..rows.len() {
                if i > 0 {
                    out.push(',');
                }
                row(out, r, rows.row(i));
            }
            out.push(']');
        }
        (_, Value::ScalarRef(ScalarRef::Constant(x))) => {
            let _ = write!(out, "[{},null]", json_float(x));
        }
        (_, Value::ScalarRef(ScalarRef::Param(i))) => {
            let _ = write!(out, "[null,{i}]");
        }
        (_, Value::Operation(payload)) => {
            let record = payload.record();
            let kind = OPERATIONS
                .iter()
                .find(|(_, r)| std::ptr::eq(*r, record))
                .map(|(k, _)| *k)
                .expect("a payload record");
            // `[code, fields...]`: the payload's row with its kind in front.
            let mut inner = String::new();
            row(&mut inner, record, payload);
            out.push('[');
            out.push_str(buf.format(kind.code()));
            if inner.len() > 2 {
                out.push(',');
            }
            out.push_str(&inner[1..]);
        }
        (ty, _) => unreachable!("no row value for {ty:?}"),
    }
}

/// A float as JSON that Python reads back exactly and as a `float`:
/// `Debug`'s shortest round-trip digits, always with a `.` or an exponent.
fn json_float(x: f64) -> String {
    assert!(x.is_finite(), "{x}");
    format!("{x:?}")
}

/// `r'...'`: a row as a raw string literal (see [`Row`]).
fn raw_literal(out: &mut String, row: impl FnOnce(&mut String)) {
    out.push_str("r'");
    row(out);
    out.push('\'');
}

/// `_tables.py`: one row per family and the digest indices, data only,
/// imported by the first lookup that reads a row (`Catalog` of the runtime).
pub(super) fn tables_py(ir: &Ir, header: &str) -> String {
    // About 1.2 KiB per family row and 0.1 KiB per artifact line.
    let receipts: usize = ir.families.iter().map(|f| f.receipts.len()).sum();
    let mut w = Writer::with_capacity("    ", 8192 + ir.families.len() * 1300 + receipts * 110);
    w.raw(header);
    w.raw(
        r#""""The approved families of ``manifest/``. Data only.

Each family is one row: its name, and its record as a JSON array (fields by position) that the
package's ``CATALOG`` decodes into a ``Family`` the first time the family is asked for. Importing
the package neither builds a record nor loads this module: the first lookup that reads a row does.
"""

from __future__ import annotations

from typing import Final

"#,
    );
    dict(
        &mut w,
        "Every approved family, sorted by name: its row (``CATALOG``).",
        "FAMILY_ROWS: Final[dict[str, str]] = ",
        &ir.families,
        |out, f| {
            out.push_str(&py_str_literal(&f.name));
            out.push_str(": ");
            raw_literal(out, |out| row(out, &FAMILY, f));
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
        "Every retired family, sorted by name: its row (``CATALOG``).",
        "RETIRED_ROWS: Final[dict[str, str]] = ",
        &ir.retired,
        |out, t| {
            out.push_str(&py_str_literal(&t.name));
            out.push_str(": ");
            raw_literal(out, |out| row(out, &RETIRED, t));
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
