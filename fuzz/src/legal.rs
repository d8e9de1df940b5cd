//! Random legal manifests that reach the limits: the longest names and
//! texts, the most parameters, every dtype, layout, operation kind,
//! operator, symbol form and constraint, torch on and off. Each family is
//! built legal by the rules docs/manifest.md states, so `kfam check`
//! accepts it unless it passes a consumer's limit (docs/manifest.md,
//! "Consumer limits"), which the generator reaches on purpose: more than
//! 64 torch arguments (KF0902), a torch schema over 4095 bytes (KF0903), a
//! family named `abi` (KF0107). A kind checked by its declaration alone is
//! built from that declaration (`declared`). Included by
//! `codegen/tests/accepted.rs` and by this crate, both over `kfam_codegen`.

use kfam_codegen::record::OperationKind;

/// A manifest's family files: `(name, TOML text)`, checked with the
/// shipped `abi.toml` (`max_rank = 5`, 256 tensors, 128 scalars).
pub fn families(seed: u64) -> Vec<(String, String)> {
    let mut r = Rng::new(seed);
    let count = 1 + r.below(4);
    (0..count).map(|i| family(&mut r, i)).collect()
}

/// The diagnostic codes a consumer's limit brings: a generated family that
/// meets one of these was legal by every other rule.
pub const LIMIT_CODES: &[&str] = &["KF0902", "KF0903", "KF0107"];

struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }
}

const FLOATS: &[&str] = &["fp32", "fp16", "bf16", "fp8e4m3fn", "fp8e8m0", "fp4"];
const SIGNED: &[&str] = &["int8", "int16", "int32", "int64"];
const UNSIGNED: &[&str] = &["uint8", "uint16", "uint32", "uint64"];
const SCALAR_DTYPES: &[&str] = &[
    "fp32", "fp16", "bf16", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
    "uint64", "bool",
];
/// Text fragments: multi-byte UTF-8 and what is hostile to some output
/// language, all allowed by the checker.
const FRAGMENTS: &[&str] = &[
    "a", "Z", " ", "Ω", "漢字", "🙂", "*/", "/*", "\"", "\\", "'''", "\"\"\"", "{}", "#", "??",
    "%s", "`", "<b>", "\\n", "$(x)", "é",
];

/// Every dtype of a class an operator accepts (docs/manifest.md,
/// "Operators and dtypes").
fn dtype_of(r: &mut Rng, float: bool, signed: bool, unsigned: bool, boolean: bool) -> &'static str {
    let mut all: Vec<&str> = Vec::new();
    if float {
        all.extend(FLOATS);
    }
    if signed {
        all.extend(SIGNED);
    }
    if unsigned {
        all.extend(UNSIGNED);
    }
    if boolean {
        all.push("bool");
    }
    r.pick(&all)
}

/// Free text of up to `max` characters (often exactly the longest).
fn text(r: &mut Rng, newlines: bool, max: usize) -> String {
    let target = if r.chance(25) { max } else { 1 + r.below(80) };
    let mut s = String::new();
    while s.chars().count() < target {
        let f = if newlines && r.chance(5) {
            "\n"
        } else {
            r.pick(FRAGMENTS)
        };
        s.push_str(f);
    }
    let mut s: String = s.chars().take(target).collect();
    if s.trim().is_empty() {
        s = "x".into();
    }
    s
}

/// `s` as a TOML basic string.
fn q(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A snake_case identifier that starts with `head`, up to 64 characters
/// (often exactly 64).
fn ident(r: &mut Rng, head: &str) -> String {
    let len = if r.chance(20) {
        64
    } else {
        head.len() + r.below(12)
    };
    let mut s = head.to_owned();
    while s.len() < len {
        let c = r.pick(b"aqz09_") as char;
        if c == '_' && (s.ends_with('_') || s.len() + 1 == len) {
            continue;
        }
        s.push(c);
    }
    s.truncate(64);
    s.trim_end_matches('_').to_owned()
}

#[derive(Clone)]
struct Param {
    name: String,
    scalar: bool,
    direction: &'static str,
    dtype: &'static str,
    shape: Vec<String>,
    layout: Option<&'static str>,
    doc: Option<String>,
}

impl Param {
    fn tensor(name: &str, direction: &'static str, dtype: &'static str, shape: &[String]) -> Param {
        Param {
            name: name.into(),
            scalar: false,
            direction,
            dtype,
            shape: shape.to_vec(),
            layout: None,
            doc: None,
        }
    }
}

/// A random extent: static (the boundary values too), `-1`, or one of
/// the family's symbols.
fn extent(r: &mut Rng, symbols: &[String]) -> String {
    match r.below(6) {
        0 => "-1".into(),
        1 if !symbols.is_empty() => q(&symbols[r.below(symbols.len())]),
        2 => r.pick(&["1", "4294967295", "3"]).into(),
        _ => r.pick(&["2", "16", "64", "128", "256"]).into(),
    }
}

/// A shape of `rank` extents; fp4 ends in a static even extent.
fn shape(r: &mut Rng, rank: usize, dtype: &str, symbols: &[String]) -> Vec<String> {
    let mut s: Vec<String> = (0..rank).map(|_| extent(r, symbols)).collect();
    // Keep the static byte size within 64 bits: one boundary extent at most.
    let mut big = false;
    for e in &mut s {
        if e == "4294967295" {
            if big || dtype == "fp4" {
                *e = "64".into();
            }
            big = true;
        }
    }
    if dtype == "fp4" {
        *s.last_mut().unwrap() = r.pick(&["2", "64", "128"]).into();
    }
    s
}

/// A family of a kind checked by its declaration alone
/// (`kfam_codegen::record::Operands`), built from that declaration: each
/// letter a static extent or, where a call must find it equal, its
/// suggested symbol; divisors first; leading extents for `Rows` operands;
/// one float dtype per group; a member of each vocabulary key, which picks
/// a `ByKey` operand's axes. Returns the payload table, the parameters, the
/// written operand and the symbols the shapes use.
fn declared(
    r: &mut Rng,
    kind: OperationKind,
    mut pname: impl FnMut(&mut Rng, usize) -> String,
) -> (String, Vec<Param>, Option<String>, Vec<String>) {
    use kfam_codegen::record::{self, DtypeClass, Shape, Ty};
    let decl = record::operands(kind);
    let payload = record::operation(kind);
    let mut value: Vec<(&str, String)> = Vec::new();
    let mut symbols: Vec<String> = Vec::new();
    for d in decl.divides {
        let divisor: u64 = r.pick(&[1, 2, 4, 8]);
        value.push((d.divisor, divisor.to_string()));
        value.push((d.multiple, (divisor * r.pick(&[1u64, 2, 4])).to_string()));
    }
    for letter in decl.extents {
        if value.iter().any(|(l, _)| *l == letter.letter) {
            continue;
        }
        let v = match letter.tie {
            Some(tie) if r.chance(50) => {
                symbols.push(tie.to_owned());
                q(tie)
            }
            _ => r.pick(&["1", "16", "64", "128"]).to_owned(),
        };
        value.push((letter.letter, v));
    }
    let leading: Vec<String> = (0..1 + r.below(2))
        .map(|i| {
            if r.chance(50) {
                let s = ["rows", "seq"][i];
                symbols.push(s.to_owned());
                q(s)
            } else {
                r.pick(&["1", "3", "32"]).to_owned()
            }
        })
        .collect();
    let mut keys = String::new();
    let mut members: Vec<(&str, &'static str)> = Vec::new();
    for f in payload.fields.iter().filter(|f| f.key.is_some()) {
        match f.ty {
            Ty::Vocab(v) => {
                let m = v.members[r.below(v.members.len())].spelling;
                members.push((f.name, m));
                keys.push_str(&format!("{} = \"{m}\"\n", f.name));
            }
            Ty::Bool => keys.push_str(&format!("{} = {}\n", f.name, r.chance(50))),
            Ty::ScalarRef => keys.push_str(&format!(
                "{} = {}\n",
                f.name,
                r.pick(&["0.125", "1.0", "1e-6"])
            )),
            _ => {}
        }
    }
    let dtypes: Vec<(&[&str], &str)> = decl
        .dtypes
        .iter()
        .map(|g| {
            let d = match g.class {
                DtypeClass::Int32 => "int32",
                _ => r.pick(&["fp32", "fp16", "bf16", "fp8e4m3fn"]),
            };
            (g.members, d)
        })
        .collect();
    let member = |key: &str| members.iter().find(|m| m.0 == key).map(|m| m.1);
    let axes_of = |shape: Shape| -> Vec<String> {
        let letters: &[&str] = match shape {
            Shape::Axes(a) | Shape::Rows(a) => a,
            _ => &[],
        };
        let mut axes = if matches!(shape, Shape::Rows(_)) {
            leading.clone()
        } else {
            Vec::new()
        };
        axes.extend(letters.iter().map(|l| {
            value
                .iter()
                .find(|(v, _)| v == l)
                .map_or_else(|| "1".to_owned(), |(_, v)| v.clone())
        }));
        axes
    };
    let mut params: Vec<Param> = Vec::new();
    let mut out = None;
    for (i, o) in decl.tensors.iter().enumerate() {
        let optional = payload
            .field(o.key)
            .is_some_and(|f| matches!(f.ty, Ty::OptParam));
        if optional && r.chance(50) {
            continue;
        }
        let shape = decl.resolve(o.key, &member).unwrap_or(Shape::Any);
        let dtype = dtypes
            .iter()
            .find(|(m, _)| m.contains(&o.key))
            .map_or("fp32", |(_, d)| *d);
        let name = pname(r, i);
        keys.push_str(&format!("{} = {}\n", o.key, q(&name)));
        let direction = if o.written { "out" } else { "in" };
        if o.written {
            out = Some(name.clone());
        }
        params.push(Param::tensor(&name, direction, dtype, &axes_of(shape)));
    }
    symbols.sort();
    symbols.dedup();
    (format!("[operation.{kind}]\n{keys}"), params, out, symbols)
}

fn family(r: &mut Rng, index: usize) -> (String, String) {
    let name = if index == 0 && r.chance(3) {
        "abi".to_owned()
    } else {
        ident(r, &format!("f{index}_"))
    };
    let torch = r.chance(50);
    let symbols: Vec<String> = (0..r.below(4))
        .map(|i| ident(r, &format!("s{i}_")))
        .collect();
    let mut params: Vec<Param> = Vec::new();
    let pname = |r: &mut Rng, i: usize| ident(r, &format!("p{i}_"));
    let kind = r.below(12);
    let op;
    let mut used_symbols = symbols.clone();
    let mut out_name: Option<String> = None;
    match kind {
        0 => {
            let o = r.pick(&["add", "sub", "mul", "div", "max", "min"]);
            let d = match o {
                "div" => dtype_of(r, true, false, false, false),
                "max" | "min" => dtype_of(r, true, true, true, true),
                _ => dtype_of(r, true, true, true, false),
            };
            let rank = 1 + r.below(5);
            let s = shape(r, rank, d, &symbols);
            let (a, b, c) = (pname(r, 0), pname(r, 1), pname(r, 2));
            params.push(Param::tensor(&a, "in", d, &s));
            params.push(Param::tensor(&b, r.pick(&["in", "inout"]), d, &s));
            params.push(Param::tensor(&c, r.pick(&["out", "inout"]), d, &s));
            op = format!(
                "[operation.elementwise_binary]\nop = \"{o}\"\nlhs = {}\nrhs = {}\nout = {}\n",
                q(&a),
                q(&b),
                q(&c)
            );
            out_name = Some(c);
        }
        1 => {
            let o = r.pick(&[
                "neg", "abs", "exp", "log", "sqrt", "rsqrt", "relu", "gelu", "silu", "sigmoid",
                "tanh", "cast",
            ]);
            let d = match o {
                "cast" => dtype_of(r, true, true, true, true),
                "neg" => dtype_of(r, true, true, false, false),
                "abs" | "relu" => dtype_of(r, true, true, true, false),
                _ => dtype_of(r, true, false, false, false),
            };
            let od = if o == "cast" {
                dtype_of(r, true, true, true, true)
            } else {
                d
            };
            let rank = 1 + r.below(5);
            let mut s = shape(r, rank, d, &symbols);
            if od == "fp4" {
                *s.last_mut().unwrap() = "64".into();
            }
            let (a, c) = (pname(r, 0), pname(r, 1));
            params.push(Param::tensor(&a, "in", d, &s));
            params.push(Param::tensor(&c, "out", od, &s));
            op = format!(
                "[operation.elementwise_unary]\nop = \"{o}\"\ninput = {}\nout = {}\n",
                q(&a),
                q(&c)
            );
            out_name = Some(c);
        }
        2 => {
            let o = r.pick(&["sum", "max", "min", "mean"]);
            let d = match o {
                "mean" => dtype_of(r, true, false, false, false),
                "sum" => dtype_of(r, true, true, true, false),
                _ => dtype_of(r, true, true, true, true),
            };
            let d = if d == "fp4" { "fp16" } else { d };
            let rank = 1 + r.below(5);
            let s = shape(r, rank, d, &symbols);
            let axis = r.below(rank);
            let keepdim = r.chance(50);
            let mut o_shape: Vec<String> = Vec::new();
            for (i, e) in s.iter().enumerate() {
                if i != axis {
                    o_shape.push(e.clone());
                } else if keepdim {
                    o_shape.push("1".into());
                }
            }
            if o_shape.is_empty() {
                o_shape.push("1".into());
            }
            let (a, c) = (pname(r, 0), pname(r, 1));
            params.push(Param::tensor(&a, "in", d, &s));
            params.push(Param::tensor(&c, "out", d, &o_shape));
            op = format!(
                "[operation.reduce]\nop = \"{o}\"\ninput = {}\nout = {}\naxes = [{axis}]\nkeepdim = {keepdim}\n",
                q(&a),
                q(&c)
            );
            out_name = Some(c);
        }
        3 => {
            let d = r.pick(&["fp32", "fp16", "bf16"]);
            let rank = 1 + r.below(5);
            let s = shape(r, rank, d, &symbols);
            let axis = r.below(rank);
            let (a, c) = (pname(r, 0), pname(r, 1));
            params.push(Param::tensor(&a, "in", d, &s));
            params.push(Param::tensor(&c, "out", d, &s));
            op = format!(
                "[operation.softmax]\ninput = {}\nout = {}\naxis = {axis}\n",
                q(&a),
                q(&c)
            );
            out_name = Some(c);
        }
        4 => {
            let d = r.pick(&["fp32", "fp16", "bf16"]);
            let rank = 1 + r.below(5);
            let s = shape(r, rank, d, &symbols);
            let axis = r.below(rank);
            let layer = r.chance(50);
            let (a, w, c) = (pname(r, 0), pname(r, 1), pname(r, 2));
            params.push(Param::tensor(&a, "in", d, &s));
            params.push(Param::tensor(&w, "in", d, &[s[axis].clone()]));
            let mut bias = String::new();
            if layer {
                let b = pname(r, 3);
                params.push(Param::tensor(&b, "in", d, &[s[axis].clone()]));
                bias = format!("bias = {}\n", q(&b));
            }
            params.push(Param::tensor(&c, "out", d, &s));
            let eps = if r.chance(50) {
                "1e-6".to_owned()
            } else {
                let e = pname(r, 9);
                let mut p = Param::tensor(&e, "in", r.pick(&["fp32", "fp16", "bf16"]), &[]);
                p.scalar = true;
                params.push(p);
                q(&e)
            };
            op = format!(
                "[operation.norm]\nop = \"{}\"\ninput = {}\nweight = {}\n{bias}out = {}\naxis = {axis}\neps = {eps}\n",
                if layer { "layer_norm" } else { "rms_norm" },
                q(&a),
                q(&w),
                q(&c)
            );
            out_name = Some(c);
        }
        5 => {
            let d = dtype_of(r, true, true, true, false);
            let d = if d == "fp4" { "int8" } else { d };
            let accumulate = r.chance(40);
            let cd = if d == "int8" { "int32" } else { d };
            let dims = ["-1", "16", "64", "128"];
            let (m, k, n) = (r.pick(&dims), r.pick(&dims[1..]), r.pick(&dims[1..]));
            let batch: Vec<String> = (0..r.below(3))
                .map(|_| r.pick(&["2", "-1"]).into())
                .collect();
            let with = |tail: [&str; 2]| {
                let mut v = batch.clone();
                v.extend(tail.iter().map(|s| s.to_string()));
                v
            };
            let (a, b, c) = (pname(r, 0), pname(r, 1), pname(r, 2));
            params.push(Param::tensor(&a, "in", d, &with([m, k])));
            params.push(Param::tensor(&b, "in", d, &[k.into(), n.into()]));
            let cdir = if accumulate {
                "inout"
            } else {
                r.pick(&["out", "inout"])
            };
            params.push(Param::tensor(&c, cdir, cd, &with([m, n])));
            op = format!(
                "[operation.matmul]\nm = {m}\nk = {k}\nn = {n}\na = {}\nb = {}\nc = {}\naccumulate = {accumulate}\n",
                q(&a),
                q(&b),
                q(&c)
            );
            out_name = Some(c);
        }
        6 => {
            let d = r.pick(&["fp32", "fp16", "bf16"]);
            let hkv = r.pick(&[1, 2, 8]);
            let h = hkv * r.pick(&[1, 4]);
            let dd = r.pick(&["64", "128"]);
            let (h, hkv) = (h.to_string(), hkv.to_string());
            let (batch, blocks) = ("batch".to_owned(), "num_blocks".to_owned());
            used_symbols = vec![batch.clone(), blocks.clone()];
            let qb = q(&batch);
            let qn = q(&blocks);
            let names: Vec<String> = (0..6).map(|i| pname(r, i)).collect();
            let bs = r.pick(&["16", "128"]);
            params.push(Param::tensor(
                &names[0],
                "in",
                d,
                &[qb.clone(), h.clone(), dd.into()],
            ));
            // Each cache layout, its caches shaped as it says.
            let layout = r.pick(&["nhd", "hnd", "x_packed", "combined_nhd", "combined_hnd"]);
            let x = if d == "fp32" { 4 } else { 8 };
            let groups = (dd.parse::<usize>().unwrap() / x).to_string();
            let (bs, two) = (bs.to_owned(), "2".to_owned());
            let dd_ = dd.to_owned();
            let (key, value): (Vec<String>, Option<Vec<String>>) = match layout {
                "nhd" => {
                    let s = vec![qn, bs, hkv, dd_];
                    (s.clone(), Some(s))
                }
                "hnd" => {
                    let s = vec![qn, hkv, bs, dd_];
                    (s.clone(), Some(s))
                }
                "x_packed" => (
                    vec![qn.clone(), hkv.clone(), groups, bs.clone(), x.to_string()],
                    Some(vec![qn, hkv, dd_, bs]),
                ),
                // One cache: its block count ties nothing (KF0209 for a symbol).
                "combined_nhd" => (vec!["-1".into(), two, bs, hkv, dd_], None),
                _ => (vec!["-1".into(), two, hkv, bs, dd_], None),
            };
            params.push(Param::tensor(&names[1], "in", d, &key));
            if let Some(value) = &value {
                params.push(Param::tensor(&names[2], "in", d, value));
            }
            let value_cache = if value.is_some() {
                &names[2]
            } else {
                &names[1]
            };
            params.push(Param::tensor(
                &names[3],
                "in",
                "int32",
                &[qb.clone(), "-1".into()],
            ));
            params.push(Param::tensor(
                &names[4],
                "in",
                "int32",
                std::slice::from_ref(&qb),
            ));
            params.push(Param::tensor(&names[5], "out", d, &[qb, h, dd.into()]));
            op = format!(
                "[operation.paged_attention_decode]\nlayout = {}\nquery = {}\nkey_cache = {}\nvalue_cache = {}\nblock_table = {}\ncontext_lens = {}\nout = {}\nscale = 0.125\n",
                q(layout),
                q(&names[0]),
                q(&names[1]),
                q(value_cache),
                q(&names[3]),
                q(&names[4]),
                q(&names[5])
            );
            out_name = Some(names[5].clone());
        }
        7 => {
            let d = r.pick(&["fp32", "fp16", "bf16"]);
            let hkv = r.pick(&[1, 2, 8]);
            let h = (hkv * r.pick(&[1, 4])).to_string();
            let (hkv, dd) = (hkv.to_string(), r.pick(&["64", "128"]).to_owned());
            let tokens = q("tokens");
            // Self-attention (one token count, maybe one offsets tensor) or
            // keys of their own count.
            let kv_tokens = if r.chance(50) {
                tokens.clone()
            } else {
                q("kv_tokens")
            };
            let offsets = q("batch_plus_one");
            // The offsets' length is at least 2 (KF0512): its own [dims].
            used_symbols = vec!["tokens".into(), "kv_tokens".into()];
            let names: Vec<String> = (0..6).map(|i| pname(r, i)).collect();
            let one_offsets = kv_tokens == tokens && r.chance(50);
            params.push(Param::tensor(
                &names[0],
                "in",
                d,
                &[tokens.clone(), h.clone(), dd.clone()],
            ));
            params.push(Param::tensor(
                &names[1],
                "in",
                d,
                &[kv_tokens.clone(), hkv.clone(), dd.clone()],
            ));
            params.push(Param::tensor(
                &names[2],
                "in",
                d,
                &[kv_tokens, hkv, dd.clone()],
            ));
            params.push(Param::tensor(
                &names[3],
                "in",
                "int32",
                std::slice::from_ref(&offsets),
            ));
            if !one_offsets {
                params.push(Param::tensor(&names[4], "in", "int32", &[offsets]));
            }
            params.push(Param::tensor(&names[5], "out", d, &[tokens, h, dd]));
            let cu_k = if one_offsets { &names[3] } else { &names[4] };
            op = format!(
                "[operation.packed_attention_prefill]\nquery = {}\nkey = {}\nvalue = {}\ncu_seqlens_q = {}\ncu_seqlens_k = {}\nout = {}\ncausal = {}\nscale = 0.125\n\n[dims.batch_plus_one]\nmin = 2\n",
                q(&names[0]),
                q(&names[1]),
                q(&names[2]),
                q(&names[3]),
                q(cu_k),
                q(&names[5]),
                r.chance(50)
            );
            out_name = Some(names[5].clone());
        }
        8 => {
            let d = r.pick(&["fp32", "fp16", "bf16"]);
            let table = r.pick(&["fp32", "bf16"]);
            let (h, hkv) = (r.pick(&["8", "32"]), r.pick(&["1", "8"]));
            let dd: u32 = r.pick(&[64, 128]);
            let rotary = if r.chance(50) { dd } else { dd / 2 };
            let tokens = q("tokens");
            used_symbols = vec!["tokens".into()];
            let names: Vec<String> = (0..6).map(|i| pname(r, i)).collect();
            let (head, half) = (dd.to_string(), (rotary / 2).to_string());
            let in_place = r.chance(50);
            let io = if in_place { "inout" } else { "in" };
            params.push(Param::tensor(
                &names[0],
                io,
                d,
                &[tokens.clone(), h.into(), head.clone()],
            ));
            params.push(Param::tensor(
                &names[1],
                io,
                d,
                &[tokens.clone(), hkv.into(), head.clone()],
            ));
            params.push(Param::tensor(
                &names[2],
                "in",
                table,
                &[tokens.clone(), half.clone()],
            ));
            params.push(Param::tensor(
                &names[3],
                "in",
                table,
                &[tokens.clone(), half],
            ));
            let (q_out, k_out) = if in_place {
                (names[0].clone(), names[1].clone())
            } else {
                params.push(Param::tensor(
                    &names[4],
                    "out",
                    d,
                    &[tokens.clone(), h.into(), head.clone()],
                ));
                params.push(Param::tensor(
                    &names[5],
                    "out",
                    d,
                    &[tokens, hkv.into(), head],
                ));
                (names[4].clone(), names[5].clone())
            };
            op = format!(
                "[operation.rope]\nquery = {}\nkey = {}\ncos = {}\nsin = {}\nquery_out = {}\nkey_out = {}\nrotary_dim = {rotary}\ninterleaved = {}\n",
                q(&names[0]),
                q(&names[1]),
                q(&names[2]),
                q(&names[3]),
                q(&q_out),
                q(&k_out),
                r.chance(50)
            );
            out_name = Some(q_out);
        }
        9 | 10 => {
            let kind = if kind == 9 {
                OperationKind::Linear
            } else {
                OperationKind::DenseAttention
            };
            let (text, mut ps, out, symbols) = declared(r, kind, |r, i| pname(r, i));
            op = text;
            params.append(&mut ps);
            out_name = out;
            used_symbols = symbols;
        }
        _ => {
            op = format!(
                "[operation.custom]\nsemantics = {}\n",
                q(&text(r, true, 1000))
            );
        }
    }
    // Extra parameters the operation does not name: up to past the torch
    // argument limit, every dtype and layout.
    let extra = match r.below(10) {
        0 => 60 + r.below(10),
        1..=3 => r.below(12),
        _ => 0,
    };
    let kernel_needs_out = out_name.is_none();
    for i in 0..extra + usize::from(kernel_needs_out) {
        let n = pname(r, 100 + i);
        let first_out = kernel_needs_out && i == 0;
        let scalar = r.chance(40) && !first_out;
        let p = if scalar {
            let mut d = r.pick(SCALAR_DTYPES);
            if torch && d == "uint64" {
                d = "int64";
            }
            Param {
                name: n,
                scalar: true,
                direction: "in",
                dtype: d,
                shape: Vec::new(),
                layout: None,
                doc: r.chance(30).then(|| text(r, true, 1000)),
            }
        } else if r.chance(15) && !first_out {
            // NZ: a read-only fp16/bf16/int8 tensor whose last two
            // extents are static multiples of 16 and c0.
            let d = r.pick(&["fp16", "bf16", "int8"]);
            let rank = 2 + r.below(3);
            let mut s = shape(r, rank, d, &used_symbols);
            let len = s.len();
            s[len - 2] = "32".into();
            s[len - 1] = "64".into();
            let mut p = Param::tensor(&n, "in", d, &s);
            p.layout = Some("nz");
            p
        } else {
            let d = dtype_of(r, true, true, true, true);
            let dir = if first_out {
                "out"
            } else {
                r.pick(&["in", "out", "inout"])
            };
            let rank = 1 + r.below(5);
            let mut p = Param::tensor(&n, dir, d, &shape(r, rank, d, &used_symbols));
            if r.chance(20) {
                p.layout = Some("nd");
            }
            if r.chance(20) && rank == 4 {
                p.layout = Some("nchw");
            }
            p
        };
        if first_out {
            out_name = Some(p.name.clone());
        }
        params.push(p);
    }
    // A torch family's sample call allocates its tensors: no 2^32 extents.
    if torch {
        for p in &mut params {
            for e in &mut p.shape {
                if e == "4294967295" {
                    *e = "3".into();
                }
            }
        }
    }
    // Docs on some parameters, up to the longest.
    for p in &mut params {
        if p.doc.is_none() && r.chance(10) {
            p.doc = Some(text(r, true, 1000));
        }
    }
    let mut t = String::new();
    t.push_str(&format!(
        "name = {}\nrevision = {}\nsummary = {}\ncontract = \"{}\"\ntorch = {torch}\n",
        q(&name),
        r.pick(&[1, 2, 4294967295u64]),
        q(&text(r, true, 1000)),
        r.pick(&["kernel", "program"]),
    ));
    if let Some(out) = out_name.as_ref().filter(|_| r.chance(60)) {
        t.push_str(&format!("returns = [{}]\n", q(out)));
    }
    t.push('\n');
    t.push_str(&op);
    // Constraints on the symbols the shapes use twice or more.
    let text_so_far: String = params
        .iter()
        .flat_map(|p| p.shape.iter().cloned())
        .collect();
    for s in &used_symbols {
        let quoted = q(s);
        if text_so_far.matches(&quoted).count() >= 1 && r.chance(50) {
            let m = r.pick(&[1, 2, 16]);
            let lo = m * r.pick(&[0, 1, 2]);
            let hi = lo + m * (1 + r.below(100) as u64);
            t.push_str(&format!(
                "\n[dims.{s}]\nmin = {lo}\nmax = {hi}\nmultiple_of = {m}\n"
            ));
        }
    }
    for p in &params {
        t.push_str("\n[[params]]\n");
        t.push_str(&format!("name = {}\n", q(&p.name)));
        if p.scalar {
            t.push_str("kind = \"scalar\"\n");
        } else {
            t.push_str(&format!("direction = \"{}\"\n", p.direction));
        }
        t.push_str(&format!("dtype = \"{}\"\n", p.dtype));
        if !p.scalar {
            t.push_str(&format!("shape = [{}]\n", p.shape.join(", ")));
        }
        if let Some(l) = p.layout {
            t.push_str(&format!("layout = \"{l}\"\n"));
        }
        if let Some(d) = &p.doc {
            t.push_str(&format!("doc = {}\n", q(d)));
        }
    }
    (name, t)
}
