//! The static tables `kfam-runtime` compiles, printed through the one
//! source writer in a layout chosen for rustc (see `docs/rust.md`,
//! "How the tables are laid out"), by walking the record declarations
//! (`crate::record`) and the IR values:
//!
//! - every list a record holds (parameters, profiles, bindings, receipts,
//!   symbols, shapes, return aliases), and each operation, is a `const` of
//!   its own in the private module `rows`, shared by every family whose
//!   list is the same (`const P3: &[Param] = &[...]`), and the texts the
//!   plan pools are `const`s too (`S12`): rustc type-checks and evaluates
//!   many small bodies in linear time, where one static holding every
//!   record as nested `&[..]` literals took it minutes and gigabytes at
//!   10,000 families;
//! - records are built by small `const fn`s with positional arguments in
//!   the declared field order (`p(0, "lhs", ...)`, the name each
//!   declaration gives), or a shorthand that leaves out what follows from
//!   the rest (`s(..)` for a scalar), one record per line, so the file
//!   stays a few bytes per field;
//! - the family table (`FAMILY_ROWS`), the artifact table and the hash
//!   indices are flat arrays, one row per line (the indices sixteen slots
//!   a line);
//! - the per-family modules are one `family!(..)` line each, the module
//!   they expand to written once as a `macro_rules!`.

use std::collections::HashMap;
use std::fmt::Write as _;

use crate::emit::needs_no_escape;
use crate::emit::writer::Writer;
use crate::ir::{Ir, ScalarRef};
use crate::lookup_hash::EMPTY;
use crate::names::shouty;
use crate::plan::Plan;
use crate::record::values::{Row, Value};
use crate::record::{Fixed, Record, Shorthand, Ty, FAMILY, LOGICAL_RECORDS, OPERATIONS, RETIRED};
use crate::vocab;

/// Rust source of the tables, with record types at `krate` (`crate` or
/// `::kfam_runtime`), after `preamble` (written first into the same
/// buffer).
pub fn tables_source(plan: &Plan<'_>, krate: &str, preamble: &str) -> String {
    let ir = plan.ir;
    let mut pools = Pools::new(plan);
    // The family rows are written first, into their own buffer, so the
    // lists they name are interned before the pools are written.
    let mut rows = String::with_capacity(ir.families.len() * 400);
    for f in &ir.families {
        rows.push_str("        ");
        pools.row(&mut rows, &FAMILY, f);
        rows.push_str(",\n");
    }
    let mut w = Writer::with_capacity("    ", preamble.len() + 4096 + ir.families.len() * 1400);
    w.raw(preamble);
    abi(&mut w, ir, krate);
    w.blank();
    targets(&mut w, ir, krate);
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
    artifacts(&mut w, plan);
    w.blank();
    retired(&mut w, &mut pools, krate);
    w.blank();
    indices(&mut w, plan);
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
        ", major: {}, minor: {}, max_tensor_args: {}, max_scalar_args: {}, max_rank: {}, max_prepared: {}, status: {} }};",
        a.major,
        a.minor,
        a.max_tensor_args,
        a.max_scalar_args,
        a.max_rank,
        a.max_prepared,
        // An array, not a slice: `int_list`'s `&[..]` without the `&`.
        &int_list(vocab::Status::ALL.iter().map(|&s| i64::from(a.status(s))))[1..]
    );
    w.end_line();
}

/// The declared vocabularies: a module of constants each (`platforms::A2A3`),
/// every member in `TARGETS`. The rows name members through the modules.
fn targets(w: &mut Writer, ir: &Ir, k: &str) {
    let declared = [
        vocab::PLATFORM,
        vocab::BACKEND,
        vocab::RUNTIME,
        vocab::EXECUTION_MODE,
    ];
    let mut lists = Vec::new();
    for v in &declared {
        let module = target_module(v.name);
        let members = ir.members(v);
        w.line(format_args!(
            "/// The catalog's {} (`abi.toml`), one constant each.",
            module.replace('_', " ")
        ));
        w.line("#[allow(dead_code)]");
        w.open(format_args!("pub mod {module} {{"));
        for m in &members {
            if !m.doc.is_empty() {
                w.comment("/// ", m.doc);
            }
            w.start_line();
            let out = w.buf();
            let _ = write!(
                out,
                "pub const {}: {k}::{} = {k}::{}::new({}, ",
                shouty(m.spelling),
                v.name,
                v.name,
                m.code
            );
            push_str_lit(out, m.spelling);
            out.push_str(");");
            w.end_line();
        }
        w.close("}");
        let names: Vec<String> = members
            .iter()
            .map(|m| format!("{module}::{}", shouty(m.spelling)))
            .collect();
        lists.push(format!("{module}: &[{}]", names.join(", ")));
    }
    w.line("/// Every declared platform, backend, runtime and execution mode.");
    w.open(format_args!(
        "pub static TARGETS: {k}::Targets = {k}::Targets {{"
    ));
    for l in lists {
        w.line(format_args!("{l},"));
    }
    w.close("};");
}

/// The module of a declared vocabulary's constants, named as `abi.toml`
/// names its tables (`execution_modes`).
fn target_module(vocabulary: &str) -> String {
    format!("{}s", heck::ToSnakeCase::to_snake_case(vocabulary))
}

fn artifacts(w: &mut Writer, plan: &Plan<'_>) {
    w.line("/// `(artifact sha256, family index, receipt index)`, sorted by digest; `a(f, r)`");
    w.line("/// reads the digest from receipt `r` of family `f`.");
    if plan.artifacts.is_empty() {
        w.line("pub static ARTIFACTS: &[(&str, u32, u32)] = &[];");
        return;
    }
    w.open("pub static ARTIFACTS: &[(&str, u32, u32)] = {");
    w.line("use rows::a;");
    w.open("&[");
    for (_, f, r) in &plan.artifacts {
        w.line(format_args!("a({f}, {r}),"));
    }
    w.close("]");
    w.close("};");
}

fn retired(w: &mut Writer, pools: &mut Pools<'_, '_>, k: &str) {
    w.comment("/// ", RETIRED_DOC);
    w.open(format_args!("pub static RETIRED: &[{k}::Retired] = &["));
    for r in &pools.plan.ir.retired {
        w.start_line();
        let out = w.buf();
        let _ = write!(out, "{k}::");
        pools.literal(out, &RETIRED, r);
        out.push(',');
        w.end_line();
    }
    w.close("];");
}

const RETIRED_DOC: &str = "Every retired family (`retired.toml`), sorted by name, with every artifact digest the lock recorded for it.";

fn indices(w: &mut Writer, plan: &Plan<'_>) {
    index(
        w,
        "Hash index of `FAMILIES` by name, for `kfam_runtime::lookup::family`.",
        "FAMILY_INDEX",
        &plan.family_index,
    );
    w.blank();
    index(
        w,
        "Hash index of `ARTIFACTS` by digest, for `kfam_runtime::lookup::artifact`.",
        "ARTIFACT_INDEX",
        &plan.artifact_index,
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

/// Interned texts (each a `const`'s value) and their names' numbers.
#[derive(Default)]
struct Pool {
    index: HashMap<String, usize, xxhash_rust::xxh3::Xxh3DefaultBuilder>,
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

/// The lists the rows name, each written once however many records hold
/// it, in order of first use.
struct Pools<'p, 'i> {
    plan: &'p Plan<'i>,
    i64s: Pool,
    u32s: Pool,
    operations: Pool,
    /// The lists of each record that lists hold, by record.
    lists: Vec<(&'static Record, Pool)>,
    /// The short name each vocabulary has in the rows (`DT` for `DType`),
    /// and whether the catalog declares it (the name is then a module).
    aliases: HashMap<&'static str, (String, bool)>,
    /// Each record's shorthands, resolved on its first row.
    shorts: Vec<(&'static Record, Vec<Short>)>,
}

/// A list of records whose fields are numbers and codes only is written on
/// one line; others one record a line.
fn one_line(r: &Record) -> bool {
    r.logical().all(|f| {
        matches!(
            f.ty,
            Ty::U32 | Ty::Index | Ty::Param | Ty::Count | Ty::I64 | Ty::Vocab(_)
        )
    })
}

/// The prefix of the `const`s holding lists of `r`: its constructor's name
/// in capitals (`P3` for a list of `p(..)`).
fn list_prefix(r: &Record) -> String {
    r.ctor
        .expect("a listed record has a constructor")
        .to_ascii_uppercase()
}

/// The short name of a vocabulary in the rows: its capitals (`DT`, `EM`).
fn alias(vocab: &str) -> String {
    let mut out = String::new();
    push_alias(&mut out, vocab);
    out
}

/// [`alias`] into `out` (a row names one in most fields).
fn push_alias(out: &mut String, vocab: &str) {
    out.extend(vocab.chars().filter(char::is_ascii_uppercase));
}

impl<'p, 'i> Pools<'p, 'i> {
    fn new(plan: &'p Plan<'i>) -> Self {
        let mut lists: Vec<(&'static Record, Pool)> = Vec::new();
        let mut aliases = HashMap::new();
        for r in LOGICAL_RECORDS
            .iter()
            .chain(OPERATIONS.iter().map(|(_, r)| r))
        {
            for f in r.logical() {
                match f.ty {
                    Ty::List(inner) if !lists.iter().any(|(l, _)| std::ptr::eq(*l, inner)) => {
                        lists.push((inner, Pool::default()));
                    }
                    Ty::Vocab(v) => {
                        aliases.insert(v.name, (alias(v.name), v.declared));
                    }
                    _ => {}
                }
            }
        }
        Pools {
            plan,
            i64s: Pool::default(),
            u32s: Pool::default(),
            operations: Pool::default(),
            lists,
            aliases,
            shorts: Vec::new(),
        }
    }

    /// A string literal, or the name of the `const` holding it when the
    /// plan pools it.
    fn str(&self, out: &mut String, s: &str) {
        match self.plan.strings().get(s) {
            Some(n) => {
                let _ = write!(out, "S{n}");
            }
            None => push_str_lit(out, s),
        }
    }

    /// `&[]`, or the `const` holding these integers.
    fn ints(&mut self, out: &mut String, items: crate::record::values::Ints<'_>, dims: bool) {
        if items.is_empty() {
            out.push_str("&[]");
            return;
        }
        let (prefix, pool) = if dims {
            ("I", &mut self.i64s)
        } else {
            ("U", &mut self.u32s)
        };
        let n = pool.intern(int_list(items.iter()));
        let _ = write!(out, "{prefix}{n}");
    }

    /// One value of a field typed `ty`, as Rust spells it in the rows.
    fn value(&mut self, out: &mut String, ty: Ty, v: Value<'_>) {
        match (ty, v) {
            (_, Value::Absent) => out.push_str("None"),
            (Ty::OptStr | Ty::OptParam | Ty::Bound, v) => {
                out.push_str("Some(");
                self.value(out, Ty::Str, v);
                out.push(')');
            }
            (_, Value::Bool(b)) => out.push_str(if b { "true" } else { "false" }),
            (_, Value::Int(n)) => out.push_str(itoa::Buffer::new().format(n)),
            (_, Value::Extent(e)) => out.push_str(itoa::Buffer::new().format(e.as_i64())),
            (_, Value::F64(x)) => out.push_str(&float_lit(x)),
            (_, Value::Str(s)) => self.str(out, s),
            (Ty::Vocab(v), Value::Vocab(c)) => {
                push_alias(out, v.name);
                out.push_str("::");
                if v.declared {
                    out.push_str(&shouty(c.spelling));
                } else {
                    out.push_str(c.variant);
                }
            }
            (Ty::Dims { .. }, Value::Ints(items)) => self.ints(out, items, true),
            (_, Value::Ints(items)) => self.ints(out, items, false),
            (_, Value::Strs(list)) => {
                out.push_str("&[");
                for (i, s) in list.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    self.str(out, s);
                }
                out.push(']');
            }
            (Ty::List(r), Value::List(rows)) => {
                if rows.is_empty() {
                    out.push_str("&[]");
                    return;
                }
                let mut text = String::new();
                if one_line(r) {
                    text.push_str("&[");
                    for i in 0..rows.len() {
                        if i > 0 {
                            text.push_str(", ");
                        }
                        self.row(&mut text, r, rows.row(i));
                    }
                    text.push(']');
                } else {
                    for i in 0..rows.len() {
                        text.push_str("    ");
                        self.row(&mut text, r, rows.row(i));
                        text.push_str(",\n");
                    }
                }
                let at = self
                    .lists
                    .iter()
                    .position(|(l, _)| std::ptr::eq(*l, r))
                    .expect("a pool for every listed record");
                let n = self.lists[at].1.intern(text);
                let _ = write!(out, "{}{n}", list_prefix(r));
            }
            (_, Value::Nested(row)) => self.literal(out, row.record(), row),
            (_, Value::ScalarRef(ScalarRef::Constant(x))) => {
                let _ = write!(out, "Sr::Constant({})", float_lit(x));
            }
            (_, Value::ScalarRef(ScalarRef::Param(i))) => {
                let _ = write!(out, "Sr::Param({i})");
            }
            (_, Value::Operation(row)) => {
                let mut text = String::from("Op::");
                self.literal(&mut text, row.record(), row);
                let n = self.operations.intern(text);
                let _ = write!(out, "O{n}");
            }
            (ty, _) => unreachable!("no Rust value for {ty:?}"),
        }
    }

    /// `Name { field: value, ... }`.
    fn literal(&mut self, out: &mut String, record: &'static Record, row: &dyn Row) {
        let values = row.values();
        let _ = write!(out, "{} {{ ", record.name);
        for (i, (f, v)) in record.logical().zip(values).enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            let _ = write!(out, "{}: ", f.name);
            self.value(out, f.ty, v);
        }
        out.push_str(" }");
    }

    /// A record's row: its constructor, or the first shorthand whose fixed
    /// and equal fields hold, with the other fields' values in order (a
    /// nested record's fields in its place).
    fn row(&mut self, out: &mut String, record: &'static Record, row: &dyn Row) {
        let values = row.values();
        let shorts = self
            .shorts
            .iter()
            .position(|(r, _)| std::ptr::eq(*r, record))
            .unwrap_or_else(|| {
                let resolved = record
                    .shorthands
                    .iter()
                    .map(|s| Short::of(record, s))
                    .collect();
                self.shorts.push((record, resolved));
                self.shorts.len() - 1
            });
        let short = self.shorts[shorts]
            .1
            .iter()
            .position(|s| s.applies(&values));
        let ctor = match short {
            Some(i) => self.shorts[shorts].1[i].name,
            None => record.ctor.expect("a constructor"),
        };
        out.push_str(ctor);
        out.push('(');
        let mut first = true;
        for (k, (f, v)) in record.logical().zip(values.iter()).enumerate() {
            if short.is_some_and(|i| self.shorts[shorts].1[i].left_out[k]) {
                continue;
            }
            match (f.ty, v) {
                (Ty::Nested(r), Value::Nested(inner)) => {
                    for (sf, sv) in r.logical().zip(inner.values()) {
                        sep(out, &mut first);
                        self.value(out, sf.ty, sv);
                    }
                }
                _ => {
                    sep(out, &mut first);
                    self.value(out, f.ty, *v);
                }
            }
        }
        out.push(')');
    }

    /// `mod rows`: the record constructors and every pooled `const`.
    fn write(&self, w: &mut Writer, k: &str, values: &[u32]) {
        w.line("/// The records' lists and repeated strings, each once, and the constructors the");
        w.line("/// rows are written with (positional, in the records' field order).");
        w.open("mod rows {");
        w.line("#![allow(dead_code, unused_imports, clippy::too_many_arguments)]");
        let mut records: Vec<&str> = LOGICAL_RECORDS.iter().map(|r| r.name).collect();
        records.extend(["Operation as Op", "ScalarRef as Sr"]);
        records.sort_unstable();
        w.line(format_args!(
            "pub(super) use {k}::{{{}}};",
            records.join(", ")
        ));
        let mut vocab: Vec<(&&str, &(String, bool))> = self.aliases.iter().collect();
        vocab.sort_unstable();
        let (fixed, declared): (Vec<_>, Vec<_>) = vocab.iter().partition(|(_, (_, d))| !d);
        let uses = |list: &[_], name: &dyn Fn(&str) -> String| {
            list.iter()
                .map(|(v, (a, _)): &(&&str, &(String, bool))| format!("{} as {a}", name(v)))
                .collect::<Vec<_>>()
        };
        let mut types = uses(&fixed, &|v| v.to_owned());
        types.extend(declared.iter().map(|(v, _)| v.to_string()));
        types.sort_unstable();
        w.line(format_args!(
            "pub(super) use {k}::{{{}}};",
            types.join(", ")
        ));
        w.line(format_args!(
            "pub(super) use super::{{{}}};",
            uses(&declared, &|v| target_module(v)).join(", ")
        ));
        w.blank();
        for r in LOGICAL_RECORDS {
            if r.ctor.is_some() {
                self.constructors(w, r);
            }
        }
        w.line("/// An `ARTIFACTS` row: the digest of receipt `r` of family `f`.");
        w.line("pub(super) const fn a(f: u32, r: u32) -> (&'static str, u32, u32) {");
        w.line("    (super::FAMILY_ROWS[f as usize].receipts[r as usize].sha256, f, r)");
        w.line("}");
        w.blank();
        for v in values {
            w.line(format_args!("pub const N{v}: u32 = {v};"));
        }
        for (n, text) in self.plan.strings().all().iter().enumerate() {
            let mut lit = String::new();
            push_str_lit(&mut lit, text);
            w.line(format_args!("pub(super) const S{n}: &str = {lit};"));
        }
        for (prefix, ty, pool) in [("I", "&[i64]", &self.i64s), ("U", "&[u32]", &self.u32s)] {
            for (n, text) in pool.texts.iter().enumerate() {
                w.line(format_args!("pub(super) const {prefix}{n}: {ty} = {text};"));
            }
        }
        for (n, text) in self.operations.texts.iter().enumerate() {
            w.line(format_args!("pub(super) const O{n}: Op = {text};"));
        }
        for (r, pool) in &self.lists {
            let prefix = list_prefix(r);
            for (n, text) in pool.texts.iter().enumerate() {
                if one_line(r) {
                    w.line(format_args!(
                        "pub(super) const {prefix}{n}: &[{}] = {text};",
                        r.name
                    ));
                } else {
                    w.open(format_args!(
                        "pub(super) const {prefix}{n}: &[{}] = &[",
                        r.name
                    ));
                    w.raw(&indent_once(text));
                    w.close("];");
                }
            }
        }
        w.close("}");
    }

    /// A record's constructor and its shorthands.
    fn constructors(&self, w: &mut Writer, r: &'static Record) {
        let ctor = r.ctor.expect("a constructor");
        // Every parameter: the record's fields, a nested record's in its place.
        let mut params: Vec<(&str, String)> = Vec::new();
        let mut init = Vec::new();
        for f in r.logical() {
            match f.ty {
                Ty::Nested(inner) => {
                    let subs: Vec<&str> = inner.logical().map(|s| s.name).collect();
                    for s in inner.logical() {
                        params.push((s.name, self.type_of(s.ty)));
                    }
                    init.push(format!(
                        "{}: {} {{ {} }}",
                        f.name,
                        inner.name,
                        subs.join(", ")
                    ));
                }
                ty => {
                    params.push((f.name, self.type_of(ty)));
                    init.push(f.name.to_owned());
                }
            }
        }
        let signature = |params: &[&(&str, String)]| -> String {
            let p: Vec<String> = params.iter().map(|(n, t)| format!("{n}: {t}")).collect();
            p.join(", ")
        };
        let all: Vec<&(&str, String)> = params.iter().collect();
        w.line(format_args!(
            "pub(super) const fn {ctor}({}) -> {} {{",
            signature(&all),
            r.name
        ));
        w.line(format_args!("    {} {{ {} }}", r.name, init.join(", ")));
        w.line("}");
        for s in r.shorthands {
            let kept: Vec<&(&str, String)> =
                params.iter().filter(|(n, _)| !leaves_out(s, n)).collect();
            let args: Vec<String> = params
                .iter()
                .map(|(n, _)| self.fixed_arg(r, s, n))
                .collect();
            w.line(format_args!(
                "pub(super) const fn {}({}) -> {} {{",
                s.name,
                signature(&kept),
                r.name
            ));
            w.line(format_args!("    {ctor}({})", args.join(", ")));
            w.line("}");
        }
    }

    /// What a shorthand passes its record's constructor for the field
    /// `name`: the fixed value, the field it equals, or its own parameter.
    fn fixed_arg(&self, r: &Record, s: &Shorthand, name: &str) -> String {
        if let Some((_, fixed)) = s.fixed.iter().find(|(n, _)| *n == name) {
            return match (fixed, r.field(name).map(|f| f.ty)) {
                (Fixed::Member(m), Some(Ty::Vocab(v))) => {
                    let member = v
                        .members
                        .iter()
                        .find(|x| x.spelling == *m)
                        .expect("a member of the vocabulary");
                    format!("{}::{}", self.aliases[v.name].0, member.variant)
                }
                (Fixed::Empty, _) => "&[]".to_owned(),
                _ => unreachable!("a fixed value of the field's type"),
            };
        }
        match s.same.iter().find(|(n, _)| *n == name) {
            Some((_, other)) => (*other).to_owned(),
            None => name.to_owned(),
        }
    }

    /// The Rust type of a constructor's parameter.
    fn type_of(&self, ty: Ty) -> String {
        match ty {
            // A declared vocabulary's alias names its constants' module.
            Ty::Vocab(v) if v.declared => v.name.to_owned(),
            Ty::Vocab(v) => self.aliases[v.name].0.clone(),
            Ty::Operation => "Op".to_owned(),
            Ty::ScalarRef => "Sr".to_owned(),
            ty => super::records::logical_type_text(ty),
        }
    }
}

fn sep(out: &mut String, first: &mut bool) {
    if !*first {
        out.push_str(", ");
    }
    *first = false;
}

/// Whether the shorthand `s` writes the field `name` itself.
fn leaves_out(s: &Shorthand, name: &str) -> bool {
    s.fixed.iter().any(|(n, _)| *n == name) || s.same.iter().any(|(n, _)| *n == name)
}

/// A shorthand with its fields resolved to positions among the record's
/// logical fields, once per record rather than once per row.
struct Short {
    name: &'static str,
    fixed: Vec<(usize, Fixed)>,
    same: Vec<(usize, usize)>,
    /// Per logical field: whether the shorthand writes it itself.
    left_out: Vec<bool>,
}

impl Short {
    fn of(r: &'static Record, s: &'static Shorthand) -> Short {
        let at = |name: &str| {
            r.logical()
                .position(|f| f.name == name)
                .unwrap_or_else(|| panic!("{} has no field `{name}`", r.name))
        };
        Short {
            name: s.name,
            fixed: s.fixed.iter().map(|(n, v)| (at(n), *v)).collect(),
            same: s.same.iter().map(|(a, b)| (at(a), at(b))).collect(),
            left_out: r.logical().map(|f| leaves_out(s, f.name)).collect(),
        }
    }

    /// Whether every field it fixes holds its value, and every field it
    /// equates equals the other.
    fn applies(&self, values: &[Value<'_>]) -> bool {
        let fixed = self
            .fixed
            .iter()
            .all(|&(at, fixed)| match (fixed, values[at]) {
                (Fixed::Member(m), Value::Vocab(c)) => c.spelling == m,
                (Fixed::Empty, Value::Ints(i)) => i.is_empty(),
                _ => false,
            });
        fixed
            && self
                .same
                .iter()
                .all(|&(a, b)| match (values[a], values[b]) {
                    (Value::Ints(x), Value::Ints(y)) => x.iter().eq(y.iter()),
                    _ => false,
                })
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
            let text = tables_source(&Plan::new(ir), krate, "");
            if let Err(e) = syn::parse_file(&text) {
                panic!("the tables do not parse ({krate}): {e}");
            }
        }
        tables_source(&Plan::new(ir), "crate", "")
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
        let extra = ir_of(crate::synth::other_kinds("m"));
        ir.families.extend(extra.families);
        let mut kinds: Vec<_> = ir.families.iter().map(|f| f.operation.kind()).collect();
        kinds.sort_unstable();
        kinds.dedup();
        assert_eq!(kinds.len(), crate::vocab::OperationKind::ALL.len());
        assert!(!ir.retired.is_empty());
        let text = assert_parses(&ir);
        assert!(
            text.contains("Op::Reduce { op: RO::Sum, input: 0, out: 1, keepdim: false, axes: U")
        );
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
