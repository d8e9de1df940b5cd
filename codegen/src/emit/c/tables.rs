//! The table data `include/kfam/kfam_tables.h`, defined once: `kfam.h`
//! includes it only in the translation unit that defines
//! `KFAM_IMPLEMENTATION` (or `KFAM_PRIVATE_TABLES`), so no other unit opens it.
//!
//! Compact and flat (docs/c.md, "Tables are defined once"): every record of
//! one struct type sits in one array, one record per line, codes as numbers;
//! a family points into those arrays with constant address expressions
//! (`kfam_gen_params + 12`), valid in C99 and C++17 static initializers.
//! Identical runs of records (two families with the same signature, two
//! profiles with the same bindings) are written once and shared; strings that
//! repeat are written once into a named array. The records that reach a
//! consumer are the same as if each family had its own copy: read-only data,
//! compared by value.

use std::collections::HashMap;
use std::fmt::{Display, Write as _};

use super::escape::c_string_literal;
use super::layout::*;
use super::out::check_length;
use crate::ir::{Family, Ir, Operation, Param, ScalarRef};

/// Records of one struct type, in one flat array.
struct Pool {
    /// The array's name (private: `kfam_gen_*`).
    name: &'static str,
    ty: &'static str,
    fields: &'static [Field],
    /// The records' lines, each `{...},`.
    text: String,
    count: usize,
    /// Where each run of records written so far starts, by its text.
    runs: HashMap<String, usize>,
}

impl Pool {
    fn new(name: &'static str, ty: &'static str, fields: &'static [Field]) -> Self {
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
        let at = match self.runs.get(run) {
            Some(&at) => at,
            None => {
                let at = self.count;
                self.text.push_str(run);
                self.count += n;
                self.runs.insert(run.to_owned(), at);
                at
            }
        };
        self.address(at)
    }

    /// [`Pool::add`] for records that are never shared (each is unique, e.g.
    /// receipts carry their artifact's digest).
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
            self.name.to_owned()
        } else {
            format!("{} + {at}", self.name)
        }
    }

    /// The array, with a comment naming the fields in order; nothing when
    /// no record uses it.
    fn write(&self, out: &mut String) {
        if self.count == 0 {
            return;
        }
        field_comment(out, self.ty, self.fields);
        let _ = writeln!(
            out,
            "static const {} {}[{}] KFAM_GEN_MAYBE_UNUSED = {{",
            self.ty, self.name, self.count
        );
        out.push_str(&self.text);
        out.push_str("};\n\n");
    }
}

/// `/* kfam_param: struct_size, index, ... */` above an array of records.
fn field_comment(out: &mut String, ty: &str, fields: &[Field]) {
    if fields.is_empty() {
        return;
    }
    let _ = write!(out, "/* {ty}:");
    for (i, f) in fields.iter().enumerate() {
        out.push_str(if i == 0 { " " } else { ", " });
        out.push_str(f.name);
    }
    out.push_str(" */\n");
}

/// One record, `{v, v, ...}`, its values given by field name in the order
/// of the field list. A missing, extra or misplaced field panics: an emitter
/// bug, caught by the tests.
struct Rec<'o> {
    out: &'o mut String,
    fields: &'static [Field],
    next: usize,
}

impl<'o> Rec<'o> {
    fn new(out: &'o mut String, fields: &'static [Field]) -> Self {
        out.push('{');
        Rec {
            out,
            fields,
            next: 0,
        }
    }

    fn v(&mut self, name: &str, value: impl Display) -> &mut Self {
        let field = self.fields.get(self.next).map(|f| f.name);
        assert_eq!(field, Some(name), "record fields out of order");
        if self.next > 0 {
            self.out.push(',');
        }
        let _ = write!(self.out, "{value}");
        self.next += 1;
        self
    }

    /// Closes the record and its line.
    fn end(&mut self) {
        self.close(",\n");
    }

    /// Closes the record, then `tail`.
    fn close(&mut self, tail: &str) {
        assert_eq!(self.next, self.fields.len(), "record fields missing");
        self.out.push('}');
        self.out.push_str(tail);
    }
}

/// The strings of the tables: a literal where it is written, or, for text
/// that repeats, a named array written once (`kfam_gen_s3`).
struct Strings<'ir> {
    pooled: HashMap<&'ir str, usize>,
    order: Vec<&'ir str>,
    overlong: Vec<String>,
}

impl<'ir> Strings<'ir> {
    /// Pools every text of `counts` whose repeats cost more than one named
    /// array and a name per use.
    fn new(counts: HashMap<&'ir str, usize>) -> Self {
        let mut order: Vec<&str> = counts
            .into_iter()
            .filter(|&(text, n)| {
                let literal = c_string_literal(text).len();
                let name = 14;
                n > 1 && n * literal > n * name + literal + 40
            })
            .map(|(text, _)| text)
            .collect();
        order.sort_unstable();
        let pooled = order.iter().enumerate().map(|(i, t)| (*t, i)).collect();
        Strings {
            pooled,
            order,
            overlong: Vec::new(),
        }
    }

    fn get(&mut self, text: &str) -> String {
        match self.pooled.get(text) {
            Some(i) => format!("kfam_gen_s{i}"),
            None => {
                check_length(&mut self.overlong, text);
                c_string_literal(text)
            }
        }
    }

    fn opt(&mut self, text: Option<&str>) -> String {
        text.map_or_else(|| "NULL".to_owned(), |t| self.get(t))
    }

    fn write(&mut self, out: &mut String) {
        if self.order.is_empty() {
            return;
        }
        out.push_str("/* Text that repeats, written once. */\n");
        for (i, text) in self.order.iter().enumerate() {
            check_length(&mut self.overlong, text);
            let _ = writeln!(
                out,
                "static const char kfam_gen_s{i}[] KFAM_GEN_MAYBE_UNUSED = {};",
                c_string_literal(text)
            );
        }
        out.push('\n');
    }
}

/// How often each text of the tables is written (what [`Strings`] may
/// pool); short text is cheaper as a literal than as a name, and unique text
/// (names, digests) is not counted.
fn count_strings<'a>(ir: &'a Ir) -> HashMap<&'a str, usize> {
    let mut counts: HashMap<&str, usize> = HashMap::new();
    let mut add = |s: &'a str| {
        if s.len() > 12 {
            *counts.entry(s).or_default() += 1;
        }
    };
    for f in &ir.families {
        add(&f.summary);
        for p in &f.params {
            add(&p.name);
            if let Some(d) = &p.doc {
                add(d);
            }
        }
        for pr in &f.profiles {
            add(&pr.name);
        }
        for r in &f.receipts {
            add(&r.codec);
            add(&r.evidence.hardware);
            if let Some(n) = &r.evidence.note {
                add(n);
            }
        }
        for s in &f.symbols {
            add(&s.name);
        }
    }
    for r in &ir.retired {
        add(&r.reason);
    }
    counts
}

/// `{d, d}`: the used entries of a shape (the rest of the array is zero),
/// `{0}` for none.
fn dims(values: &[i64]) -> String {
    if values.is_empty() {
        return "{0}".to_owned();
    }
    let mut s = String::with_capacity(2 + 6 * values.len());
    let mut buf = itoa::Buffer::new();
    s.push('{');
    for (i, v) in values.iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        s.push_str(buf.format(*v));
    }
    s.push('}');
    s
}

/// A scalar operand as C fields: `(constant, param)`, one of them unused
/// (`0` or `-1`). The constant in Rust's `Debug` spelling, which always has
/// a `.` or an exponent, so C reads it as a double.
fn scalar_fields(s: ScalarRef) -> (String, i64) {
    match s {
        ScalarRef::Constant(v) => (format!("{v:?}"), -1),
        ScalarRef::Param(i) => ("0.0".to_owned(), i as i64),
    }
}

/// Every array of the data file.
struct Pools {
    params: Pool,
    bindings: Pool,
    profiles: Pool,
    receipts: Pool,
    indices: Pool,
    dim_uses: Pool,
    symbols: Pool,
    unary: Pool,
    reduce: Pool,
    softmax: Pool,
    norm: Pool,
    paged: Pool,
}

/// `uint32_t` runs (return aliases, reduce axes) share one array.
const INDEX_FIELDS: &[Field] = &[];

impl Pools {
    fn new() -> Self {
        Pools {
            params: Pool::new("kfam_gen_params", "kfam_param", PARAM_FIELDS),
            bindings: Pool::new("kfam_gen_bindings", "kfam_binding", BINDING_FIELDS),
            profiles: Pool::new("kfam_gen_profiles", "kfam_profile", PROFILE_FIELDS),
            receipts: Pool::new("kfam_gen_receipts", "kfam_receipt", RECEIPT_FIELDS),
            indices: Pool::new("kfam_gen_indices", "uint32_t", INDEX_FIELDS),
            dim_uses: Pool::new("kfam_gen_dim_uses", "kfam_dim_use", DIM_USE_FIELDS),
            symbols: Pool::new("kfam_gen_symbols", "kfam_symbol", SYMBOL_FIELDS),
            unary: Pool::new(
                "kfam_gen_elementwise_unary",
                "kfam_elementwise_unary",
                UNARY_FIELDS,
            ),
            reduce: Pool::new("kfam_gen_reduce", "kfam_reduce", REDUCE_FIELDS),
            softmax: Pool::new("kfam_gen_softmax", "kfam_softmax", SOFTMAX_FIELDS),
            norm: Pool::new("kfam_gen_norm", "kfam_norm", NORM_FIELDS),
            paged: Pool::new(
                "kfam_gen_paged_attention_decode",
                "kfam_paged_attention_decode",
                PAGED_ATTENTION_FIELDS,
            ),
        }
    }

    /// In dependency order: an array is written before any array that
    /// points into it.
    fn write(&self, out: &mut String) {
        for pool in [
            &self.params,
            &self.bindings,
            &self.profiles,
            &self.receipts,
            &self.indices,
            &self.dim_uses,
            &self.symbols,
            &self.unary,
            &self.reduce,
            &self.softmax,
            &self.norm,
            &self.paged,
        ] {
            pool.write(out);
        }
    }
}

/// `n` indices as one line of a `uint32_t` array; the address of the run.
fn indices<T: Display>(pool: &mut Pool, values: &[T]) -> String {
    let mut run = String::new();
    for v in values {
        let _ = write!(run, "{v},");
    }
    if !run.is_empty() {
        run.push('\n');
    }
    pool.add(&run, values.len())
}

fn param_run(s: &mut Strings, f: &Family) -> String {
    let mut run = String::new();
    for p in &f.params {
        param_record(&mut run, s, p);
    }
    run
}

fn param_record(run: &mut String, s: &mut Strings, p: &Param) {
    let (name, doc) = (s.get(&p.name), s.opt(p.doc.as_deref()));
    Rec::new(run, PARAM_FIELDS)
        .v("struct_size", "KFAM_GEN_P")
        .v("index", p.index)
        .v("name", name)
        .v("doc", doc)
        .v("kind", p.kind.code())
        .v("direction", p.direction.code())
        .v("dtype", p.dtype.code())
        .v("layout", p.layout.code())
        .v("pool_index", p.pool_index)
        .v("rank", p.shape.len())
        .v("lowered_rank", p.lowered_shape.len())
        .v("shape", dims(&p.shape))
        .v("lowered_shape", dims(&p.lowered_shape))
        .end();
}

/// The family's profiles (with their bindings) as a run of the profile
/// array; its address.
fn profiles(pools: &mut Pools, s: &mut Strings, f: &Family) -> String {
    let mut run = String::new();
    for (pi, pr) in f.profiles.iter().enumerate() {
        let mut brun = String::new();
        for b in &pr.bindings {
            Rec::new(&mut brun, BINDING_FIELDS)
                .v("struct_size", "KFAM_GEN_B")
                .v("param", b.param)
                .v("slot", b.slot)
                .v("kind", b.kind.code())
                .end();
        }
        let bindings = pools.bindings.add(&brun, pr.bindings.len());
        let name = s.get(&pr.name);
        Rec::new(&mut run, PROFILE_FIELDS)
            .v("struct_size", "KFAM_GEN_PR")
            .v("index", pi)
            .v("name", name)
            .v("platform", pr.platform.code())
            .v("backend", pr.backend.code())
            .v("runtime", pr.runtime.code())
            .v("execution_mode", pr.execution_mode.code())
            .v("binding_count", pr.bindings.len())
            .v("bindings", bindings)
            .end();
    }
    pools.profiles.add(&run, f.profiles.len())
}

fn receipts(pools: &mut Pools, s: &mut Strings, f: &Family) -> String {
    let mut run = String::new();
    for r in &f.receipts {
        let values = [
            s.get(&r.codec),
            s.get(&r.artifact),
            s.get(&r.sha256),
            s.get(&r.evidence.date),
            s.get(&r.evidence.hardware),
            s.opt(r.evidence.note.as_deref()),
        ];
        let [codec, artifact, sha256, date, hardware, note] = values;
        Rec::new(&mut run, RECEIPT_FIELDS)
            .v("struct_size", "KFAM_GEN_R")
            .v("profile", r.profile)
            .v("codec", codec)
            .v("artifact", artifact)
            .v("sha256", sha256)
            .v("evidence_date", date)
            .v("evidence_hardware", hardware)
            .v("evidence_note", note)
            .end();
    }
    pools.receipts.add_unique(&run, f.receipts.len())
}

fn symbols(pools: &mut Pools, s: &mut Strings, f: &Family) -> String {
    let mut run = String::new();
    for sym in &f.symbols {
        let mut urun = String::new();
        for u in &sym.uses {
            Rec::new(&mut urun, DIM_USE_FIELDS)
                .v("struct_size", "sizeof(kfam_dim_use)")
                .v("param", u.param)
                .v("tensor", u.tensor)
                .v("axis", u.axis)
                .end();
        }
        let uses = pools.dim_uses.add(&urun, sym.uses.len());
        let max = match sym.max {
            Some(max) => i64::from(max).to_string(),
            None => "INT64_MAX".to_owned(),
        };
        let name = s.get(&sym.name);
        Rec::new(&mut run, SYMBOL_FIELDS)
            .v("struct_size", "sizeof(kfam_symbol)")
            .v("name", name)
            .v("min", i64::from(sym.min))
            .v("max", max)
            .v("multiple_of", i64::from(sym.multiple_of))
            .v("use_count", sym.uses.len())
            .v("uses", uses)
            .end();
    }
    pools.symbols.add(&run, f.symbols.len())
}

/// The payload record of the family's operation (for the kinds after
/// matmul) and the values of the six payload fields of `kfam_family`, in
/// `FAMILY_FIELDS` order: an address for the kind's field, NULL elsewhere.
fn payload(pools: &mut Pools, s: &mut Strings, f: &Family) -> [String; 6] {
    let mut fields: [String; 6] = std::array::from_fn(|_| "NULL".to_owned());
    let mut run = String::new();
    match &f.operation {
        Operation::ElementwiseBinary { .. } | Operation::Matmul { .. } => {}
        Operation::ElementwiseUnary { op, input, out } => {
            Rec::new(&mut run, UNARY_FIELDS)
                .v("struct_size", "sizeof(kfam_elementwise_unary)")
                .v("op", op.code())
                .v("input", input)
                .v("out", out)
                .end();
            fields[0] = pools.unary.add(&run, 1);
        }
        Operation::Reduce {
            op,
            input,
            out,
            axes,
            keepdim,
        } => {
            let axes_at = indices(&mut pools.indices, axes);
            Rec::new(&mut run, REDUCE_FIELDS)
                .v("struct_size", "sizeof(kfam_reduce)")
                .v("op", op.code())
                .v("input", input)
                .v("out", out)
                .v("keepdim", i32::from(*keepdim))
                .v("axis_count", axes.len())
                .v("axes", axes_at)
                .end();
            fields[1] = pools.reduce.add(&run, 1);
        }
        Operation::Softmax { input, out, axis } => {
            Rec::new(&mut run, SOFTMAX_FIELDS)
                .v("struct_size", "sizeof(kfam_softmax)")
                .v("input", input)
                .v("out", out)
                .v("axis", axis)
                .end();
            fields[2] = pools.softmax.add(&run, 1);
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
            let (eps, eps_param) = scalar_fields(*eps);
            Rec::new(&mut run, NORM_FIELDS)
                .v("struct_size", "sizeof(kfam_norm)")
                .v("op", op.code())
                .v("input", input)
                .v("weight", weight)
                .v("bias", bias.map_or(-1, |b| b as i64))
                .v("out", out)
                .v("axis", axis)
                .v("eps", eps)
                .v("eps_param", eps_param)
                .end();
            fields[3] = pools.norm.add(&run, 1);
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
            let (scale, scale_param) = scalar_fields(*scale);
            Rec::new(&mut run, PAGED_ATTENTION_FIELDS)
                .v("struct_size", "sizeof(kfam_paged_attention_decode)")
                .v("query", query)
                .v("key_cache", key_cache)
                .v("value_cache", value_cache)
                .v("block_table", block_table)
                .v("context_lens", context_lens)
                .v("out", out)
                .v("scale", scale)
                .v("scale_param", scale_param)
                .end();
            fields[4] = pools.paged.add(&run, 1);
        }
        Operation::Custom { semantics } => fields[5] = s.get(semantics),
    }
    fields
}

/// One line of `kfam_families`.
fn family_record(
    out: &mut String,
    pools: &mut Pools,
    s: &mut Strings,
    index: usize,
    f: &Family,
    abi: (u16, u16),
) {
    let params = pools.params.add(&param_run(s, f), f.params.len());
    let returns = indices(&mut pools.indices, &f.returns);
    let profiles = profiles(pools, s, f);
    let receipts = receipts(pools, s, f);
    let symbols = symbols(pools, s, f);
    let [unary, reduce, softmax, norm, paged, semantics] = payload(pools, s, f);
    let (binary_op, operands, accumulate, m, k, n) = match &f.operation {
        Operation::ElementwiseBinary { op, lhs, rhs, out } => {
            (op.code(), [*lhs, *rhs, *out], false, 0, 0, 0)
        }
        Operation::Matmul {
            m,
            k,
            n,
            a,
            b,
            c,
            accumulate,
        } => (
            -1,
            [*a, *b, *c],
            *accumulate,
            m.as_i64(),
            k.as_i64(),
            n.as_i64(),
        ),
        _ => (-1, [0, 0, 0], false, 0, 0, 0),
    };
    let [name, identity, summary] = [s.get(&f.name), s.get(&f.identity), s.get(&f.summary)];
    let torch_schema = s.opt(f.torch_schema.as_deref());
    Rec::new(out, FAMILY_FIELDS)
        .v("struct_size", "KFAM_GEN_F")
        .v("abi_major", abi.0)
        .v("abi_minor", abi.1)
        .v("index", index)
        .v("revision", f.revision)
        .v("name", name)
        .v("identity", identity)
        .v("summary", summary)
        .v("torch_schema", torch_schema)
        .v("contract", f.contract.code())
        .v("torch", i32::from(f.torch))
        .v("operation_kind", f.operation.kind().code())
        .v("binary_op", binary_op)
        .v(
            "operands",
            format_args!("{{{},{},{}}}", operands[0], operands[1], operands[2]),
        )
        .v("accumulate", i32::from(accumulate))
        .v("m", m)
        .v("k", k)
        .v("n", n)
        .v("param_count", f.params.len())
        .v("tensor_count", f.tensor_count)
        .v("scalar_count", f.scalar_count)
        .v("return_count", f.returns.len())
        .v("params", params)
        .v("returns", returns)
        .v("profile_count", f.profiles.len())
        .v("receipt_count", f.receipts.len())
        .v("profiles", profiles)
        .v("receipts", receipts)
        .v("symbol_count", f.symbols.len())
        .v("symbols", symbols)
        .v("elementwise_unary", unary)
        .v("reduce", reduce)
        .v("softmax", softmax)
        .v("norm", norm)
        .v("paged_attention_decode", paged)
        .v("semantics", semantics)
        .end();
}

/// The all-zero record of a struct (the placeholder element of an empty
/// public table: ISO C has no empty arrays).
fn zero_record(out: &mut String, fields: &'static [Field]) {
    let mut rec = Rec::new(out, fields);
    for f in fields {
        let zero = if f.array.is_some() {
            "{0}"
        } else if f.ty.ends_with('*') {
            "NULL"
        } else {
            "0"
        };
        rec.v(f.name, zero);
    }
    rec.end();
}

/// A public table: `KFAM_GEN_LINKAGE const <ty> <name>[<n>] = {...};` (the
/// extent as `kfam.h` declares it: at least 1).
fn public_table(
    out: &mut String,
    (ty, name, fields): (&str, &str, &'static [Field]),
    n: usize,
    records: &str,
) {
    field_comment(out, ty, fields);
    let _ = writeln!(
        out,
        "KFAM_GEN_LINKAGE const {ty} {name}[{}] KFAM_GEN_MAYBE_UNUSED = {{",
        n.max(1)
    );
    if n == 0 {
        out.push_str("/* None: one all-zero placeholder, since ISO C has no empty arrays. */\n");
        zero_record(out, fields);
    } else {
        out.push_str(records);
    }
    out.push_str("};\n\n");
}

/// The struct_size of the records of which there are many, spelled short
/// (a third of a parameter record is its `sizeof(kfam_param)`), for this
/// file only.
const SHORT_SIZES: &str =
    "/* struct_size of the frequent records, spelled short (undefined at the end). */
#define KFAM_GEN_P sizeof(kfam_param)
#define KFAM_GEN_B sizeof(kfam_binding)
#define KFAM_GEN_PR sizeof(kfam_profile)
#define KFAM_GEN_R sizeof(kfam_receipt)
#define KFAM_GEN_F sizeof(kfam_family)

";

const UNDEF_SHORT_SIZES: &str = "
#undef KFAM_GEN_P
#undef KFAM_GEN_B
#undef KFAM_GEN_PR
#undef KFAM_GEN_R
#undef KFAM_GEN_F
";

/// The data file's text, and the texts too long for a C99 string literal.
pub(super) fn data_file(ir: &Ir, prologue: &str) -> (String, Vec<String>) {
    let mut strings = Strings::new(count_strings(ir));
    let mut pools = Pools::new();
    let mut families = String::with_capacity(ir.families.len() * 400);
    for (i, f) in ir.families.iter().enumerate() {
        family_record(
            &mut families,
            &mut pools,
            &mut strings,
            i,
            f,
            (ir.abi.major, ir.abi.minor),
        );
    }
    let mut retired_digests = Pool::new("kfam_gen_retired_receipts", "char *const", &[]);
    let mut retired = String::new();
    for r in &ir.retired {
        let mut run = String::new();
        for d in &r.receipts {
            let _ = writeln!(run, "{},", strings.get(d));
        }
        let receipts = retired_digests.add_unique(&run, r.receipts.len());
        let [name, identity, reason] = [
            strings.get(&r.name),
            strings.get(&r.identity),
            strings.get(&r.reason),
        ];
        Rec::new(&mut retired, RETIRED_FIELDS)
            .v("struct_size", "sizeof(kfam_retired)")
            .v("revision", r.revision)
            .v("name", name)
            .v("identity", identity)
            .v("reason", reason)
            .v("receipt_count", r.receipts.len())
            .v("receipts", receipts)
            .end();
    }

    let size = families.len()
        + [
            &pools.params,
            &pools.bindings,
            &pools.profiles,
            &pools.receipts,
        ]
        .iter()
        .map(|p| p.text.len())
        .sum::<usize>();
    let mut out = String::with_capacity(size + 64 * 1024);
    out.push_str(prologue);
    out.push_str(SHORT_SIZES);
    strings.write(&mut out);
    pools.write(&mut out);
    retired_digests.write(&mut out);
    public_table(
        &mut out,
        ("kfam_family", "kfam_families", FAMILY_FIELDS),
        ir.families.len(),
        &families,
    );
    public_table(
        &mut out,
        ("kfam_retired", "kfam_retired_families", RETIRED_FIELDS),
        ir.retired.len(),
        &retired,
    );
    out.push_str("KFAM_GEN_LINKAGE const kfam_table kfam_header_table KFAM_GEN_MAYBE_UNUSED =\n");
    Rec::new(&mut out, TABLE_FIELDS)
        .v("struct_size", "sizeof(kfam_table)")
        .v("abi_major", "KFAM_ABI_MAJOR")
        .v("abi_minor", "KFAM_ABI_MINOR")
        .v("abi_revision", "KFAM_ABI_REVISION")
        .v("max_tensor_args", "KFAM_MAX_TENSOR_ARGS")
        .v("max_scalar_args", "KFAM_MAX_SCALAR_ARGS")
        .v("max_rank", "KFAM_MAX_RANK")
        .v("family_count", "KFAM_FAMILY_COUNT")
        .v("families", "kfam_families")
        .close(";\n");
    out.push_str(UNDEF_SHORT_SIZES);
    (out, strings.overlong)
}
