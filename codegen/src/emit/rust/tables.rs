//! The static tables `kfam-runtime` compiles, printed through the one
//! source writer in a layout chosen for rustc (see `docs/rust.md`,
//! "How the tables are laid out"):
//!
//! - every list a record holds (parameters, profiles, bindings, receipts,
//!   symbols, shapes, return aliases), and each operation, is a `const` of
//!   its own in the private module `rows`, shared by every family whose
//!   list is the same (`const P3: &[Param] = &[...]`), and repeated strings
//!   are `const`s too (`S12`): rustc type-checks and evaluates many small
//!   bodies in linear time, where one static holding every record as
//!   nested `&[..]` literals took it minutes and gigabytes at 10,000
//!   families;
//! - records are built by small `const fn`s with positional arguments
//!   (`p("lhs", 0, Pk::Tensor, ...)`), one record per line, so the file
//!   stays a few bytes per field;
//! - the family table (`FAMILY_ROWS`), the artifact table and the hash
//!   indices are flat arrays, one row per line (the indices sixteen slots
//!   a line);
//! - the per-family modules are one `family!(..)` line each, the module
//!   they expand to written once as a `macro_rules!`.

use std::collections::HashMap;
use std::fmt::Write as _;

use super::{artifact_rows, index_slots, symbol_bounds};
use crate::emit::needs_no_escape;
use crate::emit::writer::Writer;
use crate::ir::{Family, Ir, Operation, ScalarRef};
use crate::lookup_hash::EMPTY;
use crate::names::shouty;
use crate::vocab::{Direction, Layout, ParamKind};

/// Rust source of the tables, with record types at `krate` (`crate` or
/// `::kfam_runtime`), after `preamble` (written first into the same
/// buffer).
pub fn tables_source(ir: &Ir, krate: &str, preamble: &str) -> String {
    let mut pools = Pools::default();
    for f in &ir.families {
        pools.count_strings(f);
    }
    // The family rows are written first, into their own buffer, so the
    // lists they name are interned before the pools are written.
    let mut rows = String::with_capacity(ir.families.len() * 400);
    for f in &ir.families {
        rows.push_str("        ");
        pools.family(&mut rows, f);
        rows.push_str(",\n");
    }
    let mut w = Writer::with_capacity("    ", preamble.len() + 4096 + ir.families.len() * 1400);
    w.raw(preamble);
    abi(&mut w, ir, krate);
    w.blank();
    w.line("/// Every approved family, sorted by name.");
    w.line(format_args!(
        "pub static FAMILIES: &[{krate}::Family] = &FAMILY_ROWS;"
    ));
    w.blank();
    w.line("/// The rows of `FAMILIES`, one address for every reference to a family.");
    w.open(format_args!(
        "static FAMILY_ROWS: [{krate}::Family; {}] = {{",
        ir.families.len()
    ));
    if !ir.families.is_empty() {
        w.line("use rows::*;");
    }
    w.open("[");
    w.raw(&rows);
    drop(rows);
    w.close("]");
    w.close("};");
    w.blank();
    artifacts(&mut w, ir);
    w.blank();
    retired(&mut w, ir, krate);
    w.blank();
    indices(&mut w, ir);
    w.blank();
    let values = modules(&mut w, ir, krate);
    w.blank();
    pools.write(&mut w, krate, &values);
    w.finish()
}

fn abi(w: &mut Writer, ir: &Ir, k: &str) {
    let a = &ir.abi;
    w.line("/// The native ABI the artifacts target.");
    w.start_line();
    let out = w.buf();
    let _ = write!(out, "pub static ABI: {k}::Abi = {k}::Abi {{ revision: ");
    push_str_lit(out, &a.revision);
    let _ = write!(
        out,
        ", major: {}, minor: {}, max_tensor_args: {}, max_scalar_args: {}, max_rank: {}, max_prepared: {} }};",
        a.major, a.minor, a.max_tensor_args, a.max_scalar_args, a.max_rank, a.max_prepared
    );
    w.end_line();
}

fn artifacts(w: &mut Writer, ir: &Ir) {
    w.line("/// `(artifact sha256, family index, receipt index)`, sorted by digest; `a(f, r)`");
    w.line("/// reads the digest from receipt `r` of family `f`.");
    let rows = artifact_rows(ir);
    if rows.is_empty() {
        w.line("pub static ARTIFACTS: &[(&str, u32, u32)] = &[];");
        return;
    }
    w.open("pub static ARTIFACTS: &[(&str, u32, u32)] = {");
    w.line("use rows::a;");
    w.open("&[");
    for (_, f, r) in rows {
        w.line(format_args!("a({f}, {r}),"));
    }
    w.close("]");
    w.close("};");
}

fn retired(w: &mut Writer, ir: &Ir, k: &str) {
    w.comment("/// ", RETIRED_DOC);
    w.open(format_args!("pub static RETIRED: &[{k}::Retired] = &["));
    for r in &ir.retired {
        w.start_line();
        let out = w.buf();
        let _ = write!(out, "{k}::Retired {{ name: ");
        push_str_lit(out, &r.name);
        let _ = write!(out, ", revision: {}, identity: ", r.revision);
        push_str_lit(out, &r.identity);
        out.push_str(", reason: ");
        push_str_lit(out, &r.reason);
        out.push_str(", receipts: &[");
        for (i, d) in r.receipts.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            push_str_lit(out, d);
        }
        out.push_str("] },");
        w.end_line();
    }
    w.close("];");
}

const RETIRED_DOC: &str = "Every retired family (`retired.toml`), sorted by name, with every artifact digest the lock recorded for it.";

fn indices(w: &mut Writer, ir: &Ir) {
    let families = index_slots(ir.families.iter().map(|f| f.name.as_str()));
    index(
        w,
        "Hash index of `FAMILIES` by name, for `kfam_runtime::lookup::family`.",
        "FAMILY_INDEX",
        &families,
    );
    w.blank();
    let artifacts = index_slots(artifact_rows(ir).into_iter().map(|(d, _, _)| d));
    index(
        w,
        "Hash index of `ARTIFACTS` by digest, for `kfam_runtime::lookup::artifact`.",
        "ARTIFACT_INDEX",
        &artifacts,
    );
}

/// `slots`, sixteen a line; an empty slot is `E` ([`EMPTY`]).
fn index(w: &mut Writer, doc: &str, name: &str, slots: &[u32]) {
    w.comment("/// ", doc);
    if slots.is_empty() {
        w.line(format_args!("pub static {name}: &[u32] = &[];"));
        return;
    }
    w.open(format_args!("pub static {name}: &[u32] = {{"));
    w.line(format_args!("const E: u32 = {EMPTY};"));
    w.open("&[");
    let mut buf = itoa::Buffer::new();
    for line in slots.chunks(16) {
        w.start_line();
        let out = w.buf();
        for (i, &s) in line.iter().enumerate() {
            if i > 0 {
                out.push(' ');
            }
            if s == EMPTY {
                out.push('E');
            } else {
                out.push_str(buf.format(s));
            }
            out.push(',');
        }
        w.end_line();
    }
    w.close("]");
    w.close("};");
}

/// `pub mod families { family!(<family>, ...); ... }`, one module per
/// family: the named constants. The indices and slots are re-exports of
/// one `const` per value (`rows::N3`): rustc resolves a re-export for a
/// fraction of what it spends on a `const` item of its own, and a module
/// has about thirty of them. Returns the values re-exported, sorted.
fn modules(w: &mut Writer, ir: &Ir, k: &str) -> Vec<u32> {
    w.comment("/// ", MODULES_DOC);
    w.open("pub mod families {");
    if !ir.families.is_empty() {
        // The module every family has, written once: each family is then
        // one line of what differs (its row and its names).
        w.comment(
            "// ",
            "`family!(name, row, N<value> as NAME, ...)`: one family's module.",
        );
        w.open("macro_rules! family {");
        w.open("($name:ident, $row:literal $(, $value:ident as $alias:ident)*) => {");
        // A crate that embeds its tables privately (`manifest!`) need not
        // name every constant: rustc would call the rest unused.
        w.line("#[allow(dead_code, unused_imports)]");
        w.open("pub mod $name {");
        w.line(format_args!(
            "pub const FAMILY: &{k}::Family = &super::super::FAMILY_ROWS[$row];"
        ));
        w.line("pub const IDENTITY: &str = FAMILY.identity;");
        w.line("pub use super::super::rows::{$($value as $alias),*};");
        w.close("}");
        w.close("};");
        w.close("}");
    }
    let mut values = Vec::new();
    for (i, f) in ir.families.iter().enumerate() {
        w.start_line();
        let out = w.buf();
        let _ = write!(out, "family!({}, {i}", f.name);
        let mut name = |out: &mut String, value: u32, name: std::fmt::Arguments<'_>| {
            let _ = write!(out, ", N{value} as {name}");
            values.push(value);
        };
        for p in &f.params {
            let index = u32::try_from(p.index).unwrap_or(u32::MAX);
            name(out, index, format_args!("PARAM_{}", shouty(&p.name)));
        }
        for p in &f.params {
            let param = shouty(&p.name);
            // One name per fact: per-profile slots only where profiles disagree.
            if let Some(slot) = f.common_slot(p.index) {
                name(out, slot, format_args!("SLOT_{param}"));
                continue;
            }
            for pr in &f.profiles {
                if let Some(slot) = pr.slot_of(p.index) {
                    name(out, slot, format_args!("{}_SLOT_{param}", shouty(&pr.name)));
                }
            }
        }
        out.push_str(");");
        w.end_line();
    }
    w.close("}");
    values.sort_unstable();
    values.dedup();
    values
}

const MODULES_DOC: &str =
    "Named constants per family: `FAMILY` (the record; its `summary` describes the family),
`IDENTITY` (its identity digest), `PARAM_<NAME>` (a parameter's index in the signature),
`SLOT_<NAME>` (its launch slot, when every profile binds it to the same slot) or else
`<PROFILE>_SLOT_<NAME>` (its launch slot in each profile that binds it).";

/// The lists and strings the rows name, each written once however many
/// records hold it, in order of first use.
#[derive(Default)]
struct Pools {
    strings: Pool,
    i64s: Pool,
    u32s: Pool,
    bindings: Pool,
    params: Pool,
    profiles: Pool,
    receipts: Pool,
    symbols: Pool,
    operations: Pool,
    /// How often each string long enough to be worth a `const` occurs
    /// among the fields that can repeat (counted before any row is written).
    counts: HashMap<String, u32>,
}

/// Interned texts (each a `const`'s value) and their names' numbers.
#[derive(Default)]
struct Pool {
    index: HashMap<String, usize>,
    texts: Vec<String>,
}

impl Pool {
    /// The number of the `const` whose value is `text`.
    fn intern(&mut self, text: String) -> usize {
        if let Some(&n) = self.index.get(&text) {
            return n;
        }
        let n = self.texts.len();
        self.texts.push(text.clone());
        self.index.insert(text, n);
        n
    }
}

/// Strings shorter than this are written where they are used: a `const`'s
/// name would save little.
const POOLED_STRING_MIN: usize = 8;

impl Pools {
    /// A string literal, or the name of the `const` holding it when the
    /// string is long enough and occurs more than once in the tables.
    fn str(&mut self, out: &mut String, s: &str, repeats: bool) {
        if repeats && s.len() >= POOLED_STRING_MIN {
            let mut lit = String::with_capacity(s.len() + 2);
            push_str_lit(&mut lit, s);
            let n = self.strings.intern(lit);
            let _ = write!(out, "S{n}");
        } else {
            push_str_lit(out, s);
        }
    }

    /// Whether `s` occurs more than once among the strings of records
    /// that can repeat (codecs, hardware, notes, dates, names).
    fn repeats(&self, s: &str) -> bool {
        self.counts.get(s).is_some_and(|&n| n > 1)
    }

    fn opt_str(&mut self, out: &mut String, s: Option<&str>) {
        match s {
            None => out.push_str("None"),
            Some(s) => {
                out.push_str("Some(");
                let repeats = self.repeats(s);
                self.str(out, s, repeats);
                out.push(')');
            }
        }
    }

    /// `&[]`, or the `const` holding these integers.
    fn i64s(&mut self, out: &mut String, items: &[i64]) {
        if items.is_empty() {
            out.push_str("&[]");
            return;
        }
        let n = self.i64s.intern(int_list(items.iter().copied()));
        let _ = write!(out, "I{n}");
    }

    fn u32s(&mut self, out: &mut String, items: impl ExactSizeIterator<Item = i64>) {
        if items.len() == 0 {
            out.push_str("&[]");
            return;
        }
        let n = self.u32s.intern(int_list(items));
        let _ = write!(out, "U{n}");
    }

    fn count_strings(&mut self, f: &Family) {
        let counts = &mut self.counts;
        let mut add = |s: &str| {
            if s.len() >= POOLED_STRING_MIN {
                *counts.entry(s.to_owned()).or_default() += 1;
            }
        };
        for p in &f.params {
            add(&p.name);
            if let Some(d) = &p.doc {
                add(d);
            }
        }
        for p in &f.profiles {
            add(&p.name);
        }
        for r in &f.receipts {
            add(&r.codec);
            add(&r.evidence.date);
            add(&r.evidence.hardware);
            if let Some(n) = &r.evidence.note {
                add(n);
            }
        }
    }

    /// One family's row (`f(...)`), interning the lists it names.
    fn family(&mut self, out: &mut String, f: &Family) {
        out.push_str("f(");
        push_str_lit(out, &f.name);
        let _ = write!(out, ", {}, ", f.revision);
        push_str_lit(out, &f.summary);
        let _ = write!(out, ", Ct::{}, {}, ", f.contract.variant_name(), f.torch);
        let mut op = String::new();
        operation(&mut op, self, &f.operation);
        let n = self.operations.intern(op);
        let _ = write!(out, "O{n}, ");
        let params = self.param_list(f);
        let _ = write!(out, "P{params}, ");
        self.u32s(out, f.returns.iter().map(|&r| u32_of(r)));
        out.push_str(", ");
        if f.profiles.is_empty() {
            out.push_str("&[]");
        } else {
            let n = self.profile_list(f);
            let _ = write!(out, "PR{n}");
        }
        out.push_str(", ");
        if f.receipts.is_empty() {
            out.push_str("&[]");
        } else {
            let n = self.receipt_list(f);
            let _ = write!(out, "RC{n}");
        }
        let _ = write!(out, ", {}, {}, ", f.tensor_count, f.scalar_count);
        push_str_lit(out, &f.identity);
        out.push_str(", ");
        match &f.torch_schema {
            None => out.push_str("None"),
            Some(s) => {
                out.push_str("Some(");
                push_str_lit(out, s);
                out.push(')');
            }
        }
        out.push_str(", ");
        if f.symbols.is_empty() {
            out.push_str("&[]");
        } else {
            let n = self.symbol_list(f);
            let _ = write!(out, "SY{n}");
        }
        out.push(')');
    }

    /// The list's records, one a line at the depth of a `const`'s body.
    /// Scalars (always `in`, no shape, `nd`) are `s(..)` and tensors whose
    /// lowered shape is their shape `t(..)`: the fields they imply are not
    /// written (a third of a parameter's line); any other parameter is the
    /// whole `p(..)`.
    fn param_list(&mut self, f: &Family) -> usize {
        let mut text = String::new();
        for p in &f.params {
            let plain_scalar = p.kind == ParamKind::Scalar
                && p.direction == Direction::In
                && p.layout == Layout::Nd
                && p.shape.is_empty()
                && p.lowered_shape.is_empty();
            let plain_tensor = p.kind == ParamKind::Tensor && p.shape == p.lowered_shape;
            text.push_str(if plain_scalar {
                "    s("
            } else if plain_tensor {
                "    t("
            } else {
                "    p("
            });
            let repeats = self.repeats(&p.name);
            self.str(&mut text, &p.name, repeats);
            let _ = write!(text, ", {}, ", p.index);
            if !plain_scalar {
                if !plain_tensor {
                    let _ = write!(text, "Pk::{}, ", p.kind.variant_name());
                }
                let _ = write!(text, "Dir::{}, ", p.direction.variant_name());
            }
            let _ = write!(text, "Dt::{}, ", p.dtype.variant_name());
            if !plain_scalar {
                self.i64s(&mut text, &p.shape);
                let _ = write!(text, ", Ly::{}, ", p.layout.variant_name());
                if !plain_tensor {
                    self.i64s(&mut text, &p.lowered_shape);
                    text.push_str(", ");
                }
            }
            let _ = write!(text, "{}, ", p.pool_index);
            self.opt_str(&mut text, p.doc.as_deref());
            text.push_str("),\n");
        }
        self.params.intern(text)
    }

    fn profile_list(&mut self, f: &Family) -> usize {
        let mut text = String::new();
        for p in &f.profiles {
            text.push_str("    pr(");
            let repeats = self.repeats(&p.name);
            self.str(&mut text, &p.name, repeats);
            let _ = write!(
                text,
                ", Pf::{}, Be::{}, Rt::{}, Em::{}, ",
                p.platform.variant_name(),
                p.backend.variant_name(),
                p.runtime.variant_name(),
                p.execution_mode.variant_name()
            );
            if p.bindings.is_empty() {
                text.push_str("&[]");
            } else {
                let mut list = String::from("&[");
                for (i, b) in p.bindings.iter().enumerate() {
                    if i > 0 {
                        list.push_str(", ");
                    }
                    let _ = write!(
                        list,
                        "b({}, {}, Bk::{})",
                        b.param,
                        b.slot,
                        b.kind.variant_name()
                    );
                }
                list.push(']');
                let n = self.bindings.intern(list);
                let _ = write!(text, "B{n}");
            }
            text.push_str("),\n");
        }
        self.profiles.intern(text)
    }

    fn receipt_list(&mut self, f: &Family) -> usize {
        let mut text = String::new();
        for r in &f.receipts {
            let _ = write!(text, "    rc({}, ", r.profile);
            let repeats = self.repeats(&r.codec);
            self.str(&mut text, &r.codec, repeats);
            text.push_str(", ");
            push_str_lit(&mut text, &r.artifact);
            text.push_str(", ");
            push_str_lit(&mut text, &r.sha256);
            for s in [&r.evidence.date, &r.evidence.hardware] {
                text.push_str(", ");
                let repeats = self.repeats(s);
                self.str(&mut text, s, repeats);
            }
            text.push_str(", ");
            self.opt_str(&mut text, r.evidence.note.as_deref());
            text.push_str("),\n");
        }
        self.receipts.intern(text)
    }

    fn symbol_list(&mut self, f: &Family) -> usize {
        let mut text = String::new();
        for s in &f.symbols {
            text.push_str("    sy(");
            push_str_lit(&mut text, &s.name);
            let (min, max, multiple_of) = symbol_bounds(s);
            let _ = write!(text, ", {min}, {max}, {multiple_of}, &[");
            for (i, u) in s.uses.iter().enumerate() {
                if i > 0 {
                    text.push_str(", ");
                }
                let _ = write!(text, "u({}, {}, {})", u.param, u.tensor, u.axis);
            }
            text.push_str("]),\n");
        }
        self.symbols.intern(text)
    }

    /// `mod rows`: the record constructors and every pooled `const`.
    fn write(&self, w: &mut Writer, k: &str, values: &[u32]) {
        w.line("/// The records' lists and repeated strings, each once, and the constructors the");
        w.line("/// rows are written with (positional, in the records' field order).");
        w.open("mod rows {");
        w.line("#![allow(dead_code, unused_imports, clippy::too_many_arguments)]");
        w.line(format_args!("pub(super) use {k}::{{Binding, DimUse, Evidence, Family, Operation as Op, Param, Profile, Receipt, ScalarRef as Sr, Symbol}};"));
        w.line(format_args!("pub(super) use {k}::{{Backend as Be, BinaryOp as Bin, BindingKind as Bk, Contract as Ct, DType as Dt, Direction as Dir, ExecutionMode as Em, Layout as Ly}};"));
        w.line(format_args!("pub(super) use {k}::{{NormKind as Nk, ParamKind as Pk, Platform as Pf, ReduceOp as Red, Runtime as Rt, UnaryOp as Un}};"));
        w.blank();
        w.raw(CONSTRUCTORS);
        w.blank();
        for v in values {
            w.line(format_args!("pub const N{v}: u32 = {v};"));
        }
        let lines: [(&str, &str, &Pool); 3] = [
            ("S", "&str", &self.strings),
            ("I", "&[i64]", &self.i64s),
            ("U", "&[u32]", &self.u32s),
        ];
        for (prefix, ty, pool) in lines {
            for (n, text) in pool.texts.iter().enumerate() {
                w.line(format_args!("pub(super) const {prefix}{n}: {ty} = {text};"));
            }
        }
        for (n, text) in self.bindings.texts.iter().enumerate() {
            w.line(format_args!("pub(super) const B{n}: &[Binding] = {text};"));
        }
        for (n, text) in self.operations.texts.iter().enumerate() {
            w.line(format_args!("pub(super) const O{n}: Op = {text};"));
        }
        let lists: [(&str, &str, &Pool); 4] = [
            ("P", "Param", &self.params),
            ("PR", "Profile", &self.profiles),
            ("RC", "Receipt", &self.receipts),
            ("SY", "Symbol", &self.symbols),
        ];
        for (prefix, ty, pool) in lists {
            for (n, text) in pool.texts.iter().enumerate() {
                w.open(format_args!("pub(super) const {prefix}{n}: &[{ty}] = &["));
                w.raw(&indent_once(text));
                w.close("];");
            }
        }
        w.close("}");
    }
}

/// `text`'s lines (written one level deep, as a `const`'s body) one level
/// deeper: the pooled `const`s sit inside `mod rows`.
fn indent_once(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    for line in text.lines() {
        out.push_str("    ");
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// The record constructors: the rows call these with positional arguments
/// in each record's field order.
const CONSTRUCTORS: &str = "    pub(super) const fn f(name: &'static str, revision: u32, summary: &'static str, contract: Ct, torch: bool, operation: Op, params: &'static [Param], returns: &'static [u32], profiles: &'static [Profile], receipts: &'static [Receipt], tensor_count: u32, scalar_count: u32, identity: &'static str, torch_schema: Option<&'static str>, symbols: &'static [Symbol]) -> Family {
        Family { name, revision, summary, contract, torch, operation, params, returns, profiles, receipts, tensor_count, scalar_count, identity, torch_schema, symbols }
    }
    const fn p(name: &'static str, index: u32, kind: Pk, direction: Dir, dtype: Dt, shape: &'static [i64], layout: Ly, lowered_shape: &'static [i64], pool_index: u32, doc: Option<&'static str>) -> Param {
        Param { name, index, kind, direction, dtype, shape, layout, lowered_shape, pool_index, doc }
    }
    const fn t(name: &'static str, index: u32, direction: Dir, dtype: Dt, shape: &'static [i64], layout: Ly, pool_index: u32, doc: Option<&'static str>) -> Param {
        p(name, index, Pk::Tensor, direction, dtype, shape, layout, shape, pool_index, doc)
    }
    const fn s(name: &'static str, index: u32, dtype: Dt, pool_index: u32, doc: Option<&'static str>) -> Param {
        p(name, index, Pk::Scalar, Dir::In, dtype, &[], Ly::Nd, &[], pool_index, doc)
    }
    const fn pr(name: &'static str, platform: Pf, backend: Be, runtime: Rt, execution_mode: Em, bindings: &'static [Binding]) -> Profile {
        Profile { name, platform, backend, runtime, execution_mode, bindings }
    }
    const fn b(param: u32, slot: u32, kind: Bk) -> Binding {
        Binding { param, slot, kind }
    }
    const fn rc(profile: u32, codec: &'static str, artifact: &'static str, sha256: &'static str, date: &'static str, hardware: &'static str, note: Option<&'static str>) -> Receipt {
        Receipt { profile, codec, artifact, sha256, evidence: Evidence { date, hardware, note } }
    }
    const fn sy(name: &'static str, min: i64, max: i64, multiple_of: i64, uses: &'static [DimUse]) -> Symbol {
        Symbol { name, min, max, multiple_of, uses }
    }
    const fn u(param: u32, tensor: u32, axis: u32) -> DimUse {
        DimUse { param, tensor, axis }
    }
    /// An `ARTIFACTS` row: the digest of receipt `r` of family `f`.
    pub(super) const fn a(f: u32, r: u32) -> (&'static str, u32, u32) {
        (super::FAMILY_ROWS[f as usize].receipts[r as usize].sha256, f, r)
    }
";

/// `Op::Kind { field: value, ... }`, lists through the pools.
fn operation(out: &mut String, pools: &mut Pools, op: &Operation) {
    match op {
        Operation::ElementwiseBinary {
            op,
            lhs,
            rhs,
            out: o,
        } => {
            let _ = write!(
                out,
                "Op::ElementwiseBinary {{ op: Bin::{}, lhs: {lhs}, rhs: {rhs}, out: {o} }}",
                op.variant_name()
            );
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
            let _ = write!(
                out,
                "Op::Matmul {{ m: {}, k: {}, n: {}, a: {a}, b: {b}, c: {c}, accumulate: {accumulate} }}",
                m.as_i64(),
                k.as_i64(),
                n.as_i64()
            );
        }
        Operation::ElementwiseUnary { op, input, out: o } => {
            let _ = write!(
                out,
                "Op::ElementwiseUnary {{ op: Un::{}, input: {input}, out: {o} }}",
                op.variant_name()
            );
        }
        Operation::Reduce {
            op,
            input,
            out: o,
            axes,
            keepdim,
        } => {
            let _ = write!(
                out,
                "Op::Reduce {{ op: Red::{}, input: {input}, out: {o}, axes: ",
                op.variant_name()
            );
            pools.u32s(out, axes.iter().map(|&a| i64::from(a)));
            let _ = write!(out, ", keepdim: {keepdim} }}");
        }
        Operation::Softmax {
            input,
            out: o,
            axis,
        } => {
            let _ = write!(
                out,
                "Op::Softmax {{ input: {input}, out: {o}, axis: {axis} }}"
            );
        }
        Operation::Norm {
            op,
            input,
            weight,
            bias,
            out: o,
            axis,
            eps,
        } => {
            let bias = bias.map_or("None".to_owned(), |b| format!("Some({b})"));
            let _ = write!(
                out,
                "Op::Norm {{ op: Nk::{}, input: {input}, weight: {weight}, bias: {bias}, out: {o}, axis: {axis}, eps: {} }}",
                op.variant_name(),
                scalar_ref(*eps)
            );
        }
        Operation::PagedAttentionDecode {
            query,
            key_cache,
            value_cache,
            block_table,
            context_lens,
            out: o,
            scale,
        } => {
            let _ = write!(
                out,
                "Op::PagedAttentionDecode {{ query: {query}, key_cache: {key_cache}, value_cache: {value_cache}, block_table: {block_table}, context_lens: {context_lens}, out: {o}, scale: {} }}",
                scalar_ref(*scale)
            );
        }
        Operation::Custom { semantics } => {
            out.push_str("Op::Custom { semantics: ");
            push_str_lit(out, semantics);
            out.push_str(" }");
        }
    }
}

/// `Sr::Constant(1.5)` or `Sr::Param(3)`.
fn scalar_ref(s: ScalarRef) -> String {
    match s {
        ScalarRef::Constant(v) => format!("Sr::Constant({})", float_lit(v)),
        ScalarRef::Param(i) => format!("Sr::Param({i})"),
    }
}

/// The shortest spelling that reads back exactly (`Debug`: `1e-5`, not
/// `0.00001`), with `.0` when it has neither `.` nor an exponent.
fn float_lit(v: f64) -> String {
    let mut t = format!("{v:?}");
    if !t.contains(['.', 'e', 'E']) && v.is_finite() {
        t.push_str(".0");
    }
    t
}

/// `&[1, -1, 4096]`.
fn int_list(items: impl Iterator<Item = i64>) -> String {
    let mut buf = itoa::Buffer::new();
    let mut out = String::from("&[");
    for (i, v) in items.enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(buf.format(v));
    }
    out.push(']');
    out
}

fn u32_of(n: usize) -> i64 {
    i64::from(u32::try_from(n).unwrap_or(u32::MAX))
}

/// `s` as a Rust string literal: quotes, backslashes and control characters
/// escaped, everything else as it is (the file is UTF-8).
pub(crate) fn push_str_lit(out: &mut String, s: &str) {
    out.push('"');
    if needs_no_escape(s) {
        out.push_str(s);
    } else {
        for c in s.chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push_str("\\t"),
                c if c.is_control() => {
                    let _ = write!(out, "\\u{{{:x}}}", c as u32);
                }
                c => out.push(c),
            }
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ir_of(families: Vec<(String, String)>) -> Ir {
        let abi = Some(("m/abi.toml".to_owned(), crate::synth::ABI_TOML.to_owned()));
        let (ir, report) = crate::check_sources(abi, families);
        let rendered = report.render_human(&annotate_snippets::Renderer::plain());
        ir.unwrap_or_else(|| panic!("{rendered}"))
    }

    /// The tables parse as a Rust file under both crate paths. (That they
    /// compile and hold the IR's values is checked by `kfam-runtime`'s
    /// tests over the shipped manifest and by the macro's trybuild cases.)
    fn assert_parses(ir: &Ir) -> String {
        for krate in ["crate", "::kfam_runtime"] {
            let text = tables_source(ir, krate, "");
            if let Err(e) = syn::parse_file(&text) {
                panic!("the tables do not parse ({krate}): {e}");
            }
        }
        tables_source(ir, "crate", "")
    }

    #[test]
    fn synthetic_manifests_parse() {
        for (n, seed) in [(0, 1), (1, 2), (60, 3), (400, 4)] {
            let families = crate::synth::manifest(n, seed).sources("m").1;
            assert_parses(&ir_of(families));
        }
    }

    #[test]
    fn an_empty_manifest_has_no_unused_items() {
        let text = assert_parses(&ir_of(Vec::new()));
        assert!(text.contains("pub static ARTIFACTS: &[(&str, u32, u32)] = &[];"));
        assert!(text.contains("pub static FAMILY_INDEX: &[u32] = &[];"));
        assert!(!text.contains("use rows::"));
    }

    #[test]
    fn retired_families_and_every_operation_kind_parse() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../manifest");
        let (ir, report) = crate::check_dir(&dir);
        let mut ir = ir.unwrap_or_else(|| {
            panic!(
                "{}",
                report.render_human(&annotate_snippets::Renderer::plain())
            )
        });
        let extra = ir_of(vec![
            (
                "m/families/softmax_x.toml".to_owned(),
                "name = \"softmax_x\"\nrevision = 1\nsummary = \"s\"\ncontract = \"kernel\"\n\
                 [operation.softmax]\ninput = \"x\"\nout = \"y\"\naxis = 1\n\
                 [[params]]\nname = \"x\"\ndtype = \"fp32\"\nshape = [4, 8]\n\
                 [[params]]\nname = \"y\"\ndirection = \"out\"\ndtype = \"fp32\"\nshape = [4, 8]\n"
                    .to_owned(),
            ),
            (
                "m/families/reduce_x.toml".to_owned(),
                "name = \"reduce_x\"\nrevision = 1\nsummary = \"s\"\ncontract = \"kernel\"\n\
                 [operation.reduce]\nop = \"sum\"\ninput = \"x\"\nout = \"y\"\naxes = [2, 0]\n\
                 [[params]]\nname = \"x\"\ndtype = \"fp32\"\nshape = [4, 8, 16]\n\
                 [[params]]\nname = \"y\"\ndirection = \"out\"\ndtype = \"fp32\"\nshape = [8]\n"
                    .to_owned(),
            ),
        ]);
        ir.families.extend(extra.families);
        let mut kinds: Vec<_> = ir.families.iter().map(|f| f.operation.kind()).collect();
        kinds.sort_unstable();
        kinds.dedup();
        assert_eq!(kinds.len(), crate::vocab::OperationKind::ALL.len());
        assert!(!ir.retired.is_empty());
        let text = assert_parses(&ir);
        assert!(text.contains("Op::Reduce { op: Red::Sum, input: 0, out: 1, axes: U"));
        assert!(text.contains("eps: Sr::Constant(1e-6)"));
    }

    /// Lists and repeated strings are written once, however many records
    /// hold them.
    #[test]
    fn lists_and_repeated_strings_are_shared() {
        let families = crate::synth::manifest(60, 3).sources("m").1;
        let ir = ir_of(families);
        let text = assert_parses(&ir);
        let defined = |prefix: &str| {
            text.lines()
                .filter(|l| {
                    l.trim_start()
                        .starts_with(&format!("pub(super) const {prefix}"))
                })
                .count()
        };
        let profiles: usize = ir.families.iter().map(|f| f.profiles.len()).sum();
        let bindings = defined("B");
        assert!(
            bindings > 0 && bindings < profiles,
            "{bindings} binding lists for {profiles} profiles"
        );
        assert!(defined("S") > 0);
        // Every shape is a pooled list, each defined once.
        let shapes: Vec<&str> = text
            .lines()
            .filter_map(|l| l.trim_start().strip_prefix("pub(super) const I"))
            .filter_map(|l| l.split_once(" = ").map(|(_, v)| v))
            .collect();
        let mut unique = shapes.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), shapes.len());
    }

    #[test]
    fn string_literals_read_back_exactly() {
        for s in [
            "",
            "plain",
            "quote \" backslash \\ apostrophe '",
            "line one\nline two\r\n\ttab",
            "caf\u{e9} \u{4e2d}\u{6587} \u{1f600}",
            "nul \0 bell \u{7} del \u{7f} next-line \u{85}",
            "{braces} and #[doc]",
        ] {
            let mut lit = String::new();
            push_str_lit(&mut lit, s);
            let read: syn::LitStr = syn::parse_str(&lit).unwrap_or_else(|e| panic!("{lit}: {e}"));
            assert_eq!(read.value(), s, "{lit}");
        }
    }

    #[test]
    fn floats_read_back_exactly() {
        for v in [1e-6, 0.5, 1.0, 3.0, 1e300, 123456.789, f64::MIN_POSITIVE] {
            let lit = float_lit(v);
            let read: syn::LitFloat = syn::parse_str(&lit).unwrap_or_else(|e| panic!("{lit}: {e}"));
            assert_eq!(read.base10_parse::<f64>().unwrap(), v, "{lit}");
        }
    }
}
