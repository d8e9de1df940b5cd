//! The table data `include/kfam/kfam_tables.h`, defined once: `kfam.h`
//! includes it only in the translation unit that defines
//! `KFAM_IMPLEMENTATION` (or `KFAM_PRIVATE_TABLES`), so no other unit opens it.
//!
//! Compact and flat (docs/c.md, "Tables are defined once"): every record of
//! one struct type sits in one array, one record per line, codes as numbers;
//! a family points into those arrays with constant address expressions
//! (`kfam_gen_params + 12`), valid in C99 and C++17 static initializers.
//! Identical runs of records (two families with the same signature, two
//! profiles with the same bindings) are written once and shared; the texts
//! the plan pools are written once into named arrays. Every record is
//! printed by walking its declaration (`crate::record`): the C fields it
//! derives, and the values of the IR record.

use std::collections::HashMap;

use super::escape::{c_string_literal, push_c_string_literal};
use super::out::check_length;
use crate::emit::writer::Writer;
use crate::plan::Plan;
use crate::record::values::{Row, Rows, Value, Values};
use crate::record::{
    c_fields, table_records, CField, CValue, CWhere, Part, Record, Ty, FAMILY, OPERATIONS, RETIRED,
    TABLE,
};

/// Records of one struct type, in one flat array.
struct Pool {
    /// The array's name (private: `kfam_gen_*`).
    name: String,
    /// The element type.
    ty: String,
    /// The field names of the comment above the array.
    fields: Vec<String>,
    /// The records' lines, each `{...},`.
    text: String,
    count: usize,
    /// Where each run of records written so far starts (its byte offset in
    /// `text` and its record index), by the hash of its text; equal hashes
    /// are compared by text.
    runs: HashMap<u64, Vec<(usize, usize)>>,
}

impl Pool {
    fn new(name: String, ty: String, fields: Vec<String>) -> Self {
        Pool {
            name,
            ty,
            fields,
            text: String::new(),
            count: 0,
            runs: HashMap::new(),
        }
    }

    /// The address of `n` records whose lines are `run`: an identical run
    /// written before is shared. `NULL` when `n` is 0.
    fn add(&mut self, run: &str, n: usize) -> String {
        if n == 0 {
            return "NULL".to_owned();
        }
        let hash = std::hash::BuildHasher::hash_one(&run_hasher(), run);
        let same = self.runs.entry(hash).or_default();
        let text = &self.text;
        let found = same
            .iter()
            .find(|&&(start, _)| text.get(start..start + run.len()) == Some(run));
        let at = match found {
            Some(&(_, at)) => at,
            None => {
                let at = self.count;
                same.push((self.text.len(), at));
                self.text.push_str(run);
                self.count += n;
                at
            }
        };
        self.address(at)
    }

    /// [`Pool::add`] for records that are never shared (each is unique:
    /// the digests of a retired family).
    fn add_unique(&mut self, run: &str, n: usize) -> String {
        if n == 0 {
            return "NULL".to_owned();
        }
        let at = self.count;
        self.text.push_str(run);
        self.count += n;
        self.address(at)
    }

    fn address(&self, at: usize) -> String {
        if at == 0 {
            self.name.clone()
        } else {
            format!("{} + {at}", self.name)
        }
    }

    /// The array, with a comment naming the fields in order; nothing when
    /// no record uses it.
    fn write(&self, w: &mut Writer) {
        if self.count == 0 {
            return;
        }
        field_comment(w, &self.ty, &self.fields);
        w.line(format_args!(
            "static const {} {}[{}] KFAM_GEN_MAYBE_UNUSED = {{",
            self.ty, self.name, self.count
        ));
        w.raw(&self.text);
        w.line("};");
        w.blank();
    }
}

/// The hasher of the runs: fixed, so the output never depends on it (it
/// does not: runs are compared by text), and cheap to build per call.
fn run_hasher() -> xxhash_rust::xxh3::Xxh3DefaultBuilder {
    xxhash_rust::xxh3::Xxh3DefaultBuilder::new()
}

/// `/* kfam_param: struct_size, index, ... */` above an array of records.
fn field_comment(w: &mut Writer, ty: &str, fields: &[String]) {
    if fields.is_empty() {
        return;
    }
    w.line(format_args!("/* {ty}: {} */", fields.join(", ")));
}

/// A struct's `struct_size`, spelled short for the records of which there
/// are many (it was a third of a parameter record), for this file only.
const SHORT_SIZES: &[(&str, &str)] = &[
    ("kfam_param", "KFAM_GEN_P"),
    ("kfam_binding", "KFAM_GEN_B"),
    ("kfam_profile", "KFAM_GEN_PR"),
    ("kfam_receipt", "KFAM_GEN_R"),
    ("kfam_family", "KFAM_GEN_F"),
];

/// One struct type: its C fields, where each takes its value from, and its
/// array.
struct Struct {
    record: &'static Record,
    c: &'static str,
    fields: Vec<CField>,
    /// Each C field's value, resolved once against the record's logical
    /// fields.
    sources: Vec<Source>,
    /// The logical field holding the operation, for the fields that spread it.
    operation: Option<usize>,
    /// The `struct_size` value.
    size: String,
    pool: Pool,
}

/// Where a C field takes its value from (positions are into the record's
/// logical values).
#[derive(Clone, Copy)]
enum Source {
    /// The value at `.0`, as C spells `.1`.
    Value(usize, Ty),
    /// A part of the scalar reference at `.0`.
    Part(usize, Part),
    /// Field `.1` (typed `.2`) of the record nested at `.0`.
    Sub(usize, usize, Ty),
    /// The entries of the list or shape at `.0`.
    Len(usize),
    /// The entries of list `.1` of the record nested at `.0`.
    SubLen(usize, usize),
    /// A value of C alone; `.1` is the C field's name.
    C(CValue, &'static str),
}

impl Struct {
    fn sources(record: &'static Record, fields: &[CField]) -> Vec<Source> {
        let at = |name: &str| {
            record
                .logical()
                .position(|f| f.name == name)
                .unwrap_or_else(|| panic!("{} has no field `{name}`", record.name))
        };
        fields
            .iter()
            .map(|c| match (c.field.ty, c.part) {
                (Ty::C(CValue::Count(list) | CValue::Rank(list)), _) => Source::Len(at(list)),
                (Ty::C(value), _) => Source::C(value, c.field.name),
                (ty, Part::Whole) => Source::Value(at(c.field.name), ty),
                (_, Part::Sub(sub)) => {
                    let Ty::Nested(inner) = c.field.ty else {
                        unreachable!("{} is nested", c.field.name)
                    };
                    match sub.ty {
                        Ty::C(CValue::Count(list)) => {
                            Source::SubLen(at(c.field.name), sub_index(inner, list))
                        }
                        ty => Source::Sub(at(c.field.name), sub_index(inner, sub.name), ty),
                    }
                }
                (_, part) => Source::Part(at(c.field.name), part),
            })
            .collect()
    }
}

/// Every array of the data file, and the texts.
struct Data<'p, 'i> {
    plan: &'p Plan<'i>,
    /// In dependency order: an array is written before any array that
    /// points into it.
    structs: Vec<Struct>,
    /// `uint32_t` runs (return aliases, reduce axes) share one array.
    indices: Pool,
    /// Lists of texts: the artifact digests of the retired families, the
    /// versions and shapes of structured evidence.
    texts: Pool,
    overlong: Vec<String>,
    extent: HashMap<&'static str, usize>,
}

impl<'p, 'i> Data<'p, 'i> {
    fn new(plan: &'p Plan<'i>, extent: HashMap<&'static str, usize>) -> Self {
        let structs = table_records()
            .filter(|r| !std::ptr::eq(*r, &TABLE))
            .map(|record| {
                let c = record.c_name().expect("a table record is a C struct");
                let fields = c_fields(record);
                let size = SHORT_SIZES
                    .iter()
                    .find(|(n, _)| *n == c)
                    .map_or_else(|| format!("sizeof({c})"), |(_, s)| (*s).to_owned());
                // Records held in lists are many (`kfam_gen_params`); a
                // payload is one a family (`kfam_gen_reduce`).
                let held = is_listed(record);
                let name = format!("kfam_gen_{}{}", &c[5..], if held { "s" } else { "" });
                let names = fields.iter().map(|f| f.name.to_string()).collect();
                Struct {
                    record,
                    c,
                    sources: Struct::sources(record, &fields),
                    operation: record.logical().position(|f| matches!(f.ty, Ty::Operation)),
                    fields,
                    size,
                    pool: Pool::new(name, c.to_owned(), names),
                }
            })
            .collect();
        Data {
            plan,
            structs,
            indices: Pool::new("kfam_gen_indices".into(), "uint32_t".into(), vec![]),
            texts: Pool::new("kfam_gen_texts".into(), "char *const".into(), vec![]),
            overlong: Vec::new(),
            extent,
        }
    }

    fn slot(&self, record: &'static Record) -> usize {
        self.structs
            .iter()
            .position(|s| std::ptr::eq(s.record, record))
            .unwrap_or_else(|| panic!("{} has no array", record.name))
    }

    /// Text: a string literal, or the name of the pooled array holding it.
    fn text(&mut self, out: &mut String, text: &str) {
        match self.plan.strings().get(text) {
            Some(i) => {
                out.push_str("kfam_gen_s");
                out.push_str(itoa::Buffer::new().format(i));
            }
            None => {
                check_length(&mut self.overlong, text);
                push_c_string_literal(out, text);
            }
        }
    }

    /// The lines of `rows` into `record`'s array; their address.
    fn list(&mut self, record: &'static Record, rows: &dyn Rows) -> String {
        let mut run = String::new();
        for i in 0..rows.len() {
            self.record(&mut run, record, rows.row(i), i);
            run.push_str(",\n");
        }
        let slot = self.slot(record);
        self.structs[slot].pool.add(&run, rows.len())
    }

    /// One record, `{v,v,...}`, at `position` in its list.
    fn record(
        &mut self,
        out: &mut String,
        record: &'static Record,
        row: &dyn Row,
        position: usize,
    ) {
        let slot = self.slot(record);
        let values = row.values();
        // The operation's payload row, for the fields that spread it.
        let payload = self.structs[slot].operation.and_then(|i| match values[i] {
            Value::Operation(p) => Some(p),
            _ => None,
        });
        // The payload's values, and a nested record's (its fields are
        // consecutive C fields), each read once.
        let payload_values = payload.map(|p| p.values());
        let mut nested: Option<(usize, Values<'_>)> = None;
        out.push('{');
        for k in 0..self.structs[slot].sources.len() {
            if k > 0 {
                out.push(',');
            }
            match self.structs[slot].sources[k] {
                Source::Value(at, ty) => self.value(out, ty, values[at]),
                Source::Part(at, part) => scalar_ref(out, part, values[at]),
                Source::Sub(at, sub, _) | Source::SubLen(at, sub) => {
                    if nested.as_ref().is_none_or(|(n, _)| *n != at) {
                        let Value::Nested(inner) = values[at] else {
                            unreachable!("a nested record")
                        };
                        nested = Some((at, inner.values()));
                    }
                    let v = nested.as_ref().map(|(_, v)| v[sub]).expect("read above");
                    match self.structs[slot].sources[k] {
                        Source::Sub(_, _, ty) => self.value(out, ty, v),
                        _ => out.push_str(itoa::Buffer::new().format(v.entries())),
                    }
                }
                Source::Len(at) => out.push_str(itoa::Buffer::new().format(values[at].entries())),
                Source::C(value, name) => {
                    let payload = payload.zip(payload_values.as_deref());
                    self.c_value(out, (slot, name), value, position, payload)
                }
            }
        }
        out.push('}');
    }

    /// A value a field of C alone holds: `name`'s.
    fn c_value(
        &mut self,
        out: &mut String,
        (slot, name): (usize, &str),
        value: CValue,
        position: usize,
        payload: Option<(&dyn Row, &[Value<'_>])>,
    ) {
        let num = |out: &mut String, n: i64| out.push_str(itoa::Buffer::new().format(n));
        match value {
            CValue::StructSize => out.push_str(&self.structs[slot].size),
            CValue::AbiMajor => num(out, i64::from(self.plan.ir.abi.major)),
            CValue::AbiMinor => num(out, i64::from(self.plan.ir.abi.minor)),
            CValue::Position => num(out, position as i64),
            CValue::Count(_) | CValue::Rank(_) => unreachable!("resolved to Source::Len"),
            CValue::OperationKind => {
                let (p, _) = payload.expect("a record with an operation");
                num(out, i64::from(kind_of(p.record()).code()));
            }
            CValue::Flat {
                extent, default, ..
            } => {
                let (p, values) = payload.expect("a record with an operation");
                let record = p.record();
                let entry = |data: &mut Self, out: &mut String, index: usize| {
                    let at = record
                        .logical()
                        .position(|f| matches!(f.c, CWhere::Flat(n, i) if n == name && i == index));
                    match at {
                        Some(at) => {
                            let ty = record.logical().nth(at).map(|f| f.ty).expect("a field");
                            data.value(out, ty, values[at]);
                        }
                        None => out.push_str(default),
                    }
                };
                match extent {
                    None => entry(self, out, 0),
                    Some(e) => {
                        out.push('{');
                        for i in 0..self.extent[e] {
                            if i > 0 {
                                out.push(',');
                            }
                            entry(self, out, i);
                        }
                        out.push('}');
                    }
                }
            }
            CValue::Payload(r) => match payload {
                Some((p, _)) if std::ptr::eq(p.record(), r) => {
                    let mut run = String::new();
                    self.record(&mut run, r, p, 0);
                    run.push_str(",\n");
                    let at = self.slot(r);
                    let address = self.structs[at].pool.add(&run, 1);
                    out.push_str(&address);
                }
                _ => out.push_str("NULL"),
            },
            CValue::Macro(name, _) => out.push_str(name),
        }
    }

    /// A value of a logical field, as C spells its type.
    fn value(&mut self, out: &mut String, ty: Ty, v: Value<'_>) {
        let mut buf = itoa::Buffer::new();
        match (ty, v) {
            (Ty::OptStr, Value::Absent) => out.push_str("NULL"),
            (Ty::OptParam, Value::Absent) => out.push_str("-1"),
            (Ty::Bound, Value::Absent) => out.push_str("INT64_MAX"),
            (_, Value::Bool(b)) => out.push(if b { '1' } else { '0' }),
            (_, Value::Int(n)) => out.push_str(buf.format(n)),
            (_, Value::Extent(e)) => out.push_str(buf.format(e.as_i64())),
            (_, Value::F64(x)) => out.push_str(&format!("{x:?}")),
            (_, Value::Str(s)) => self.text(out, s),
            (_, Value::Vocab(c)) => out.push_str(buf.format(c.code)),
            (Ty::Dims { .. }, Value::Ints(ints)) => {
                out.push('{');
                for (i, d) in ints.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push_str(buf.format(d));
                }
                if ints.is_empty() {
                    out.push('0');
                }
                out.push('}');
            }
            (_, Value::Ints(ints)) => {
                let mut run = String::new();
                for d in ints.iter() {
                    run.push_str(buf.format(d));
                    run.push(',');
                }
                if !run.is_empty() {
                    run.push('\n');
                }
                let address = self.indices.add(&run, ints.len());
                out.push_str(&address);
            }
            (_, Value::Strs(list)) => {
                let mut run = String::new();
                for s in list {
                    self.text(&mut run, s);
                    run.push_str(",\n");
                }
                let address = self.texts.add_unique(&run, list.len());
                out.push_str(&address);
            }
            (Ty::List(r), Value::List(rows)) => {
                let address = self.list(r, rows);
                out.push_str(&address);
            }
            (ty, _) => unreachable!("no C value for {ty:?}"),
        }
    }
}

/// Whether records of `record` are held in lists (and so are many).
fn is_listed(record: &'static Record) -> bool {
    table_records().any(|r| {
        r.fields
            .iter()
            .any(|f| matches!(f.ty, Ty::List(l) if std::ptr::eq(l, record)))
    })
}

/// The operation kind whose payload is `record`.
fn kind_of(record: &'static Record) -> crate::record::OperationKind {
    OPERATIONS
        .iter()
        .find(|(_, r)| std::ptr::eq(*r, record))
        .map(|(k, _)| *k)
        .expect("a payload record")
}

fn sub_index(record: &'static Record, name: &str) -> usize {
    record
        .logical()
        .position(|f| f.name == name)
        .expect("a field of the nested record")
}

/// A scalar reference's C part: the constant (`0.0` for a parameter) or the
/// parameter (`-1` for a constant). The constant in Rust's `Debug`
/// spelling, which always has a `.` or an exponent, so C reads a double.
fn scalar_ref(out: &mut String, part: Part, v: Value<'_>) {
    let Value::ScalarRef(s) = v else {
        unreachable!("a scalar reference")
    };
    match (part, s) {
        (Part::Constant, crate::ir::ScalarRef::Constant(x)) => out.push_str(&format!("{x:?}")),
        (Part::Constant, crate::ir::ScalarRef::Param(_)) => out.push_str("0.0"),
        (_, crate::ir::ScalarRef::Constant(_)) => out.push_str("-1"),
        (_, crate::ir::ScalarRef::Param(i)) => out.push_str(itoa::Buffer::new().format(i)),
    }
}

/// The all-zero record of a struct (the placeholder element of an empty
/// public table: ISO C has no empty arrays).
fn zero_record(out: &mut String, fields: &[CField]) {
    out.push('{');
    for (i, f) in fields.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(if f.array.is_some() {
            "{0}"
        } else if f.ty.ends_with('*') {
            "NULL"
        } else {
            "0"
        });
    }
    out.push_str("},\n");
}

/// A public table: `KFAM_GEN_LINKAGE const <ty> <name>[<n>] = {...};` (the
/// extent as `kfam.h` declares it: at least 1).
fn public_table(w: &mut Writer, s: &Struct, name: &str, n: usize, records: &str) {
    field_comment(w, s.c, &s.pool.fields);
    w.line(format_args!(
        "KFAM_GEN_LINKAGE const {} {name}[{}] KFAM_GEN_MAYBE_UNUSED = {{",
        s.c,
        n.max(1)
    ));
    if n == 0 {
        w.line("/* None: one all-zero placeholder, since ISO C has no empty arrays. */");
        let mut zero = String::new();
        zero_record(&mut zero, &s.fields);
        w.raw(&zero);
    } else {
        w.raw(records);
    }
    w.line("};");
    w.blank();
}

/// The data file's text, and the texts too long for a C99 string literal.
/// `extent` gives the value of each array extent's macro.
pub(super) fn data_file(
    plan: &Plan<'_>,
    prologue: &str,
    extent: HashMap<&'static str, usize>,
) -> (String, Vec<String>) {
    let ir = plan.ir;
    let mut data = Data::new(plan, extent);
    let mut families = String::with_capacity(ir.families.len() * 600);
    for (i, f) in ir.families.iter().enumerate() {
        data.record(&mut families, &FAMILY, f, i);
        families.push_str(",\n");
    }
    let mut retired = String::new();
    for (i, r) in ir.retired.iter().enumerate() {
        data.record(&mut retired, &RETIRED, r, i);
        retired.push_str(",\n");
    }

    let size = families.len()
        + data
            .structs
            .iter()
            .map(|s| s.pool.text.len())
            .sum::<usize>();
    let mut w = Writer::with_capacity("    ", size + 64 * 1024);
    w.raw(prologue);
    w.line("/* struct_size of the frequent records, spelled short (undefined at the end). */");
    for (c, short) in SHORT_SIZES {
        w.line(format_args!("#define {short} sizeof({c})"));
    }
    w.blank();
    let pooled = plan.strings().all();
    if !pooled.is_empty() {
        w.line("/* Text that repeats, written once. */");
        for (i, text) in pooled.iter().enumerate() {
            check_length(&mut data.overlong, text);
            w.line(format_args!(
                "static const char kfam_gen_s{i}[] KFAM_GEN_MAYBE_UNUSED = {};",
                c_string_literal(text)
            ));
        }
        w.blank();
    }
    data.indices.write(&mut w);
    data.texts.write(&mut w);
    for s in &data.structs {
        if !std::ptr::eq(s.record, &FAMILY) && !std::ptr::eq(s.record, &RETIRED) {
            s.pool.write(&mut w);
        }
    }
    let of = |r: &'static Record| data.structs.iter().find(|s| std::ptr::eq(s.record, r));
    let family = of(&FAMILY).expect("the family struct");
    public_table(
        &mut w,
        family,
        "kfam_families",
        ir.families.len(),
        &families,
    );
    let tomb = of(&RETIRED).expect("the retired struct");
    public_table(
        &mut w,
        tomb,
        "kfam_retired_families",
        ir.retired.len(),
        &retired,
    );
    w.line("KFAM_GEN_LINKAGE const kfam_table kfam_header_table KFAM_GEN_MAYBE_UNUSED =");
    let mut table = String::from("{");
    for (i, f) in c_fields(&TABLE).iter().enumerate() {
        if i > 0 {
            table.push(',');
        }
        match f.field.ty {
            Ty::C(CValue::StructSize) => table.push_str("sizeof(kfam_table)"),
            Ty::C(CValue::Macro(name, _)) => table.push_str(name),
            ty => unreachable!("the table header holds constants, not {ty:?}"),
        }
    }
    table.push_str("};\n");
    w.raw(&table);
    w.blank();
    for (_, short) in SHORT_SIZES {
        w.line(format_args!("#undef {short}"));
    }
    (w.finish(), data.overlong)
}
