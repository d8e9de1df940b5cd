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

use super::escape::{c_string_literal, push_c_string_literal};
use super::out::check_length;
use crate::emit::layout::*;
use crate::emit::writer::Writer;
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
    /// Where each run of records written so far starts (its byte offset in
    /// `text` and its record index), by the hash of its text; equal hashes
    /// are compared by text.
    runs: HashMap<u64, Vec<(usize, usize)>>,
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
    fn write(&self, w: &mut Writer) {
        if self.count == 0 {
            return;
        }
        field_comment(w, self.ty, self.fields);
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
fn run_hasher() -> std::hash::BuildHasherDefault<std::collections::hash_map::DefaultHasher> {
    std::hash::BuildHasherDefault::default()
}

/// `/* kfam_param: struct_size, index, ... */` above an array of records.
fn field_comment(w: &mut Writer, ty: &str, fields: &[Field]) {
    if fields.is_empty() {
        return;
    }
    let names: Vec<&str> = fields.iter().map(|f| f.name).collect();
    w.line(format_args!("/* {ty}: {} */", names.join(", ")));
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

    /// Starts the value of field `name`.
    fn field(&mut self, name: &str) -> &mut String {
        let field = self.fields.get(self.next).map(|f| f.name);
        assert_eq!(field, Some(name), "record fields out of order");
        if self.next > 0 {
            self.out.push(',');
        }
        self.next += 1;
        self.out
    }

    /// A value spelled as it is (a name, an expression).
    fn v(&mut self, name: &str, value: &str) -> &mut Self {
        self.field(name).push_str(value);
        self
    }

    /// A number.
    fn n(&mut self, name: &str, value: impl itoa::Integer) -> &mut Self {
        self.field(name).push_str(itoa::Buffer::new().format(value));
        self
    }

    /// Text: a string literal, or the name of the pooled array holding it.
    fn s(&mut self, name: &str, strings: &mut Strings, text: &str) -> &mut Self {
        strings.push(self.field(name), text);
        self
    }

    /// Optional text: `NULL` when absent.
    fn os(&mut self, name: &str, strings: &mut Strings, text: Option<&str>) -> &mut Self {
        match text {
            Some(t) => self.s(name, strings, t),
            None => self.v(name, "NULL"),
        }
    }

    /// The used entries of a shape, `{d,d}` (the rest of the array is
    /// zero), `{0}` for none.
    fn dims(&mut self, name: &str, values: &[i64]) -> &mut Self {
        let out = self.field(name);
        let mut buf = itoa::Buffer::new();
        out.push('{');
        for (i, v) in values.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push_str(buf.format(*v));
        }
        if values.is_empty() {
            out.push('0');
        }
        out.push('}');
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
                let name = 14;
                n > 1 && {
                    let literal = c_string_literal(text).len();
                    n * literal > n * name + literal + 40
                }
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

    /// Appends `text` as a literal or as the name of its pooled array.
    fn push(&mut self, out: &mut String, text: &str) {
        // Text too short to be counted is never pooled.
        match (text.len() > MIN_POOLED)
            .then(|| self.pooled.get(text))
            .flatten()
        {
            Some(&i) => {
                out.push_str("kfam_gen_s");
                out.push_str(itoa::Buffer::new().format(i));
            }
            None => {
                check_length(&mut self.overlong, text);
                push_c_string_literal(out, text);
            }
        }
    }

    fn write(&mut self, w: &mut Writer) {
        if self.order.is_empty() {
            return;
        }
        w.line("/* Text that repeats, written once. */");
        for (i, text) in self.order.iter().enumerate() {
            check_length(&mut self.overlong, text);
            w.line(format_args!(
                "static const char kfam_gen_s{i}[] KFAM_GEN_MAYBE_UNUSED = {};",
                c_string_literal(text)
            ));
        }
        w.blank();
    }
}

/// Text this long or shorter is cheaper as a literal than as a name.
const MIN_POOLED: usize = 12;

/// How often each text of the tables is written (what [`Strings`] may
/// pool); short text is cheaper as a literal than as a name, and unique text
/// (names, digests) is not counted.
fn count_strings<'a>(ir: &'a Ir) -> HashMap<&'a str, usize> {
    let mut counts: HashMap<&str, usize> = HashMap::new();
    let mut add = |s: &'a str| {
        if s.len() > MIN_POOLED {
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

/// A scalar operand as C fields: `(constant, param)`, one of them unused
/// (`0.0` or `-1`). The constant in Rust's `Debug` spelling, which always
/// has a `.` or an exponent, so C reads it as a double.
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
    fn all(&self) -> [&Pool; 12] {
        [
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
        ]
    }

    fn write(&self, w: &mut Writer) {
        for pool in self.all() {
            pool.write(w);
        }
    }

    fn bytes(&self) -> usize {
        self.all().iter().map(|p| p.text.len()).sum()
    }
}

/// Indices as one line of the `uint32_t` array; the address of the run.
fn indices<T: itoa::Integer + Copy>(pool: &mut Pool, values: &[T]) -> String {
    let mut run = String::new();
    let mut buf = itoa::Buffer::new();
    for &v in values {
        run.push_str(buf.format(v));
        run.push(',');
    }
    if !run.is_empty() {
        run.push('\n');
    }
    pool.add(&run, values.len())
}

fn params(pools: &mut Pools, s: &mut Strings, f: &Family) -> String {
    let mut run = String::new();
    for p in &f.params {
        param_record(&mut run, s, p);
    }
    pools.params.add(&run, f.params.len())
}

fn param_record(run: &mut String, s: &mut Strings, p: &Param) {
    Rec::new(run, PARAM_FIELDS)
        .v("struct_size", "KFAM_GEN_P")
        .n("index", p.index)
        .s("name", s, &p.name)
        .os("doc", s, p.doc.as_deref())
        .n("kind", p.kind.code())
        .n("direction", p.direction.code())
        .n("dtype", p.dtype.code())
        .n("layout", p.layout.code())
        .n("pool_index", p.pool_index)
        .n("rank", p.shape.len())
        .n("lowered_rank", p.lowered_shape.len())
        .dims("shape", &p.shape)
        .dims("lowered_shape", &p.lowered_shape)
        .end();
}

/// The family's profiles (with their bindings) as a run of the profile
/// array; its address.
fn profiles(pools: &mut Pools, s: &mut Strings, f: &Family) -> String {
    let mut run = String::new();
    let mut brun = String::new();
    for (pi, pr) in f.profiles.iter().enumerate() {
        brun.clear();
        for b in &pr.bindings {
            Rec::new(&mut brun, BINDING_FIELDS)
                .v("struct_size", "KFAM_GEN_B")
                .n("param", b.param)
                .n("slot", b.slot)
                .n("kind", b.kind.code())
                .end();
        }
        let bindings = pools.bindings.add(&brun, pr.bindings.len());
        Rec::new(&mut run, PROFILE_FIELDS)
            .v("struct_size", "KFAM_GEN_PR")
            .n("index", pi)
            .s("name", s, &pr.name)
            .n("platform", pr.platform.code())
            .n("backend", pr.backend.code())
            .n("runtime", pr.runtime.code())
            .n("execution_mode", pr.execution_mode.code())
            .n("binding_count", pr.bindings.len())
            .v("bindings", &bindings)
            .end();
    }
    pools.profiles.add(&run, f.profiles.len())
}

fn receipts(pools: &mut Pools, s: &mut Strings, f: &Family) -> String {
    let mut run = String::new();
    for r in &f.receipts {
        Rec::new(&mut run, RECEIPT_FIELDS)
            .v("struct_size", "KFAM_GEN_R")
            .n("profile", r.profile)
            .s("codec", s, &r.codec)
            .s("artifact", s, &r.artifact)
            .s("sha256", s, &r.sha256)
            .s("evidence_date", s, &r.evidence.date)
            .s("evidence_hardware", s, &r.evidence.hardware)
            .os("evidence_note", s, r.evidence.note.as_deref())
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
                .n("param", u.param)
                .n("tensor", u.tensor)
                .n("axis", u.axis)
                .end();
        }
        let uses = pools.dim_uses.add(&urun, sym.uses.len());
        let mut rec = Rec::new(&mut run, SYMBOL_FIELDS);
        rec.v("struct_size", "sizeof(kfam_symbol)")
            .s("name", s, &sym.name)
            .n("min", i64::from(sym.min));
        match sym.max {
            Some(max) => rec.n("max", i64::from(max)),
            None => rec.v("max", "INT64_MAX"),
        };
        rec.n("multiple_of", i64::from(sym.multiple_of))
            .n("use_count", sym.uses.len())
            .v("uses", &uses)
            .end();
    }
    pools.symbols.add(&run, f.symbols.len())
}

/// The payload record of the family's operation (for the kinds after
/// matmul) and the values of the six payload fields of `kfam_family`, in
/// `FAMILY_FIELDS` order: an address for the kind's field, NULL elsewhere
/// (`semantics`, the last, is text or `None`).
fn payload<'f>(pools: &mut Pools, f: &'f Family) -> ([String; 5], Option<&'f str>) {
    let mut fields: [String; 5] = std::array::from_fn(|_| "NULL".to_owned());
    let mut run = String::new();
    match &f.operation {
        Operation::ElementwiseBinary { .. } | Operation::Matmul { .. } => {}
        Operation::ElementwiseUnary { op, input, out } => {
            Rec::new(&mut run, UNARY_FIELDS)
                .v("struct_size", "sizeof(kfam_elementwise_unary)")
                .n("op", op.code())
                .n("input", *input)
                .n("out", *out)
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
                .n("op", op.code())
                .n("input", *input)
                .n("out", *out)
                .n("keepdim", i32::from(*keepdim))
                .n("axis_count", axes.len())
                .v("axes", &axes_at)
                .end();
            fields[1] = pools.reduce.add(&run, 1);
        }
        Operation::Softmax { input, out, axis } => {
            Rec::new(&mut run, SOFTMAX_FIELDS)
                .v("struct_size", "sizeof(kfam_softmax)")
                .n("input", *input)
                .n("out", *out)
                .n("axis", *axis)
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
                .n("op", op.code())
                .n("input", *input)
                .n("weight", *weight)
                .n("bias", bias.map_or(-1, |b| b as i64))
                .n("out", *out)
                .n("axis", *axis)
                .v("eps", &eps)
                .n("eps_param", eps_param)
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
                .n("query", *query)
                .n("key_cache", *key_cache)
                .n("value_cache", *value_cache)
                .n("block_table", *block_table)
                .n("context_lens", *context_lens)
                .n("out", *out)
                .v("scale", &scale)
                .n("scale_param", scale_param)
                .end();
            fields[4] = pools.paged.add(&run, 1);
        }
        Operation::Custom { semantics } => return (fields, Some(semantics)),
    }
    (fields, None)
}

/// One line of `kfam_families`.
fn family_record(
    out: &mut String,
    (pools, s): (&mut Pools, &mut Strings),
    index: usize,
    f: &Family,
    abi: (u16, u16),
) {
    let params = params(pools, s, f);
    let returns = indices(&mut pools.indices, &f.returns);
    let profiles = profiles(pools, s, f);
    let receipts = receipts(pools, s, f);
    let symbols = symbols(pools, s, f);
    let ([unary, reduce, softmax, norm, paged], semantics) = payload(pools, f);
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
    let operands = format!("{{{},{},{}}}", operands[0], operands[1], operands[2]);
    Rec::new(out, FAMILY_FIELDS)
        .v("struct_size", "KFAM_GEN_F")
        .n("abi_major", abi.0)
        .n("abi_minor", abi.1)
        .n("index", index)
        .n("revision", f.revision)
        .s("name", s, &f.name)
        .s("identity", s, &f.identity)
        .s("summary", s, &f.summary)
        .os("torch_schema", s, f.torch_schema.as_deref())
        .n("contract", f.contract.code())
        .n("torch", i32::from(f.torch))
        .n("operation_kind", f.operation.kind().code())
        .n("binary_op", binary_op)
        .v("operands", &operands)
        .n("accumulate", i32::from(accumulate))
        .n("m", m)
        .n("k", k)
        .n("n", n)
        .n("param_count", f.params.len())
        .n("tensor_count", f.tensor_count)
        .n("scalar_count", f.scalar_count)
        .n("return_count", f.returns.len())
        .v("params", &params)
        .v("returns", &returns)
        .n("profile_count", f.profiles.len())
        .n("receipt_count", f.receipts.len())
        .v("profiles", &profiles)
        .v("receipts", &receipts)
        .n("symbol_count", f.symbols.len())
        .v("symbols", &symbols)
        .v("elementwise_unary", &unary)
        .v("reduce", &reduce)
        .v("softmax", &softmax)
        .v("norm", &norm)
        .v("paged_attention_decode", &paged)
        .os("semantics", s, semantics)
        .end();
}

/// One line of `kfam_retired_families`.
fn retired_record(
    out: &mut String,
    (digests, s): (&mut Pool, &mut Strings),
    r: &crate::ir::Retired,
) {
    let mut run = String::new();
    for d in &r.receipts {
        s.push(&mut run, d);
        run.push_str(",\n");
    }
    let receipts = digests.add_unique(&run, r.receipts.len());
    Rec::new(out, RETIRED_FIELDS)
        .v("struct_size", "sizeof(kfam_retired)")
        .n("revision", r.revision)
        .s("name", s, &r.name)
        .s("identity", s, &r.identity)
        .s("reason", s, &r.reason)
        .n("receipt_count", r.receipts.len())
        .v("receipts", &receipts)
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
    w: &mut Writer,
    (ty, name, fields): (&str, &str, &'static [Field]),
    n: usize,
    records: &str,
) {
    field_comment(w, ty, fields);
    w.line(format_args!(
        "KFAM_GEN_LINKAGE const {ty} {name}[{}] KFAM_GEN_MAYBE_UNUSED = {{",
        n.max(1)
    ));
    if n == 0 {
        w.line("/* None: one all-zero placeholder, since ISO C has no empty arrays. */");
        let mut zero = String::new();
        zero_record(&mut zero, fields);
        w.raw(&zero);
    } else {
        w.raw(records);
    }
    w.line("};");
    w.blank();
}

/// The struct_size of the records of which there are many, spelled short
/// (it was a third of a parameter record), for this file only.
const SHORT_SIZES: &str = "\
/* struct_size of the frequent records, spelled short (undefined at the end). */
#define KFAM_GEN_P sizeof(kfam_param)
#define KFAM_GEN_B sizeof(kfam_binding)
#define KFAM_GEN_PR sizeof(kfam_profile)
#define KFAM_GEN_R sizeof(kfam_receipt)
#define KFAM_GEN_F sizeof(kfam_family)

";

const UNDEF_SHORT_SIZES: &str = "\
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
    let abi = (ir.abi.major, ir.abi.minor);
    let mut families = String::with_capacity(ir.families.len() * 600);
    for (i, f) in ir.families.iter().enumerate() {
        family_record(&mut families, (&mut pools, &mut strings), i, f, abi);
    }
    let mut digests = Pool::new("kfam_gen_retired_receipts", "char *const", &[]);
    let mut retired = String::new();
    for r in &ir.retired {
        retired_record(&mut retired, (&mut digests, &mut strings), r);
    }

    let size = families.len() + pools.bytes() + 64 * 1024;
    let mut w = Writer::with_capacity("    ", size);
    w.raw(prologue);
    w.raw(SHORT_SIZES);
    strings.write(&mut w);
    pools.write(&mut w);
    digests.write(&mut w);
    public_table(
        &mut w,
        ("kfam_family", "kfam_families", FAMILY_FIELDS),
        ir.families.len(),
        &families,
    );
    public_table(
        &mut w,
        ("kfam_retired", "kfam_retired_families", RETIRED_FIELDS),
        ir.retired.len(),
        &retired,
    );
    w.line("KFAM_GEN_LINKAGE const kfam_table kfam_header_table KFAM_GEN_MAYBE_UNUSED =");
    let mut table = String::new();
    Rec::new(&mut table, TABLE_FIELDS)
        .v("struct_size", "sizeof(kfam_table)")
        .v("abi_major", "KFAM_ABI_MAJOR")
        .v("abi_minor", "KFAM_ABI_MINOR")
        .v("abi_revision", "KFAM_ABI_REVISION")
        .v("max_tensor_args", "KFAM_MAX_TENSOR_ARGS")
        .v("max_scalar_args", "KFAM_MAX_SCALAR_ARGS")
        .v("max_rank", "KFAM_MAX_RANK")
        .v("family_count", "KFAM_FAMILY_COUNT")
        .v("families", "kfam_families")
        .v("max_prepared", "KFAM_MAX_PREPARED")
        .close(";\n");
    w.raw(&table);
    w.blank();
    w.raw(UNDEF_SHORT_SIZES);
    (w.finish(), strings.overlong)
}
