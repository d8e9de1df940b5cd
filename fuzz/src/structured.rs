//! Structure-aware manifest inputs: a well-typed family record (one of the
//! shipped families, which cover every operation kind, named symbols and
//! `[dims]`, or a synthetic one), edited as TOML values by decisions read
//! from the fuzz input, then rendered back to TOML. Byte-level mutation of
//! TOML text mostly produces syntax errors; these inputs keep the document
//! well-formed and typed, so they reach the checker's rules, the lowering
//! and the emitters.
//!
//! Each edit picks a table or array anywhere in the document and replaces,
//! removes, duplicates or reorders one of its members, with values drawn
//! from what a family file holds: the document's own names, the
//! vocabularies, extents and symbols, small and boundary integers.

use toml::{Table, Value};

use super::Bytes;

/// Words a family document is made of: vocabulary members, keys, the
/// document's kinds of names. Values are drawn from these and from the
/// document itself.
const WORDS: &[&str] = &[
    "in",
    "out",
    "inout",
    "tensor",
    "scalar",
    "nd",
    "nz",
    "bf16",
    "fp16",
    "fp32",
    "fp4",
    "int8",
    "int32",
    "int64",
    "uint8",
    "uint64",
    "bool",
    "kernel",
    "program",
    "a2a3",
    "a5",
    "xdna2",
    "pto",
    "cce",
    "aie",
    "sim",
    "onboard",
    "tensormap_and_ringbuffer",
    "host_build_graph",
    "xrt_direct",
    "tensor_arg",
    "scalar_arg",
    "buffer_object",
    "add",
    "sub",
    "mul",
    "max",
    "sum",
    "mean",
    "rms_norm",
    "layer_norm",
    "silu",
    "exp",
    "cast",
    "rows",
    "batch",
    "num_blocks",
    "x",
    "out",
    "acc",
    "lhs",
    "rhs",
    "",
];

const INTS: &[i64] = &[
    0,
    1,
    2,
    3,
    -1,
    -2,
    16,
    64,
    128,
    255,
    256,
    1024,
    4096,
    65_535,
    4_294_967_295,
    4_294_967_296,
    i64::MAX,
    i64::MIN,
];

/// The templates: every shipped family and a few synthetic ones, parsed.
fn templates() -> &'static [Table] {
    static T: std::sync::OnceLock<Vec<Table>> = std::sync::OnceLock::new();
    T.get_or_init(|| {
        let mut texts: Vec<String> = super::shipped()
            .families
            .iter()
            .map(|(_, t)| t.clone())
            .collect();
        texts.extend(
            kfam_codegen::synth::manifest(6, 11)
                .families
                .into_iter()
                .map(|(_, t)| t),
        );
        texts
            .iter()
            .map(|t| t.parse::<Table>().expect("template family parses"))
            .collect()
    })
}

/// The number of template documents (a corpus seed's first byte selects one).
pub fn template_count() -> usize {
    templates().len()
}

/// Every string in `v` (names the document already uses).
fn strings(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) => out.push(s.clone()),
        Value::Array(a) => a.iter().for_each(|x| strings(x, out)),
        Value::Table(t) => t.values().for_each(|x| strings(x, out)),
        _ => {}
    }
}

/// A value of the kind found at a position: mostly the same type as `old`.
fn value(u: &mut Bytes<'_>, old: &Value, names: &[String]) -> Value {
    let pick = |u: &mut Bytes<'_>, n: usize| usize::from(u.u8()) % n.max(1);
    match (u.u8() % 8, old) {
        (0..=3, Value::String(_)) => {
            if u.u8() & 1 == 0 && !names.is_empty() {
                Value::String(names[pick(u, names.len())].clone())
            } else {
                Value::String(WORDS[pick(u, WORDS.len())].to_owned())
            }
        }
        (0..=3, Value::Integer(_)) => Value::Integer(INTS[pick(u, INTS.len())]),
        (0..=3, Value::Boolean(b)) => Value::Boolean(!b),
        (0..=3, Value::Float(_)) => Value::Float([0.0, 1e-6, -1.0, 1e300, f64::NAN][pick(u, 5)]),
        (0..=3, Value::Array(a)) => {
            // An extent list: mix static extents, -1 and symbols.
            let len = pick(u, 6);
            let mut items = Vec::with_capacity(len);
            for _ in 0..len {
                items.push(match u.u8() % 3 {
                    0 => Value::Integer(INTS[pick(u, INTS.len())]),
                    1 => Value::String(["rows", "batch", "n"][pick(u, 3)].to_owned()),
                    _ => a.first().cloned().unwrap_or(Value::Integer(1)),
                });
            }
            Value::Array(items)
        }
        (4, _) => Value::Integer(INTS[pick(u, INTS.len())]),
        (5, _) => Value::String(WORDS[pick(u, WORDS.len())].to_owned()),
        (6, _) => Value::Array(vec![Value::Integer(-1), Value::String("rows".into())]),
        _ => Value::Boolean(u.u8() & 1 == 0),
    }
}

/// Walk from the root by input decisions to a table (up to four levels into
/// tables and arrays of tables), then edit one member there.
fn edit(doc: &mut Table, u: &mut Bytes<'_>, names: &[String]) {
    let depth = u.u8() % 5;
    edit_in(doc, depth, u, names);
}

fn edit_in(table: &mut Table, depth: u8, u: &mut Bytes<'_>, names: &[String]) {
    if depth > 0 && !table.is_empty() {
        let i = usize::from(u.u8()) % table.len();
        let key = table.keys().nth(i).cloned().expect("index in range");
        let j = usize::from(u.u8());
        let child = match table.get_mut(&key) {
            Some(Value::Table(t)) => Some(t),
            Some(Value::Array(a)) if !a.is_empty() => {
                let len = a.len();
                match &mut a[j % len] {
                    Value::Table(t) => Some(t),
                    _ => None,
                }
            }
            _ => None,
        };
        if let Some(child) = child {
            return edit_in(child, depth - 1, u, names);
        }
    }
    edit_here(table, u, names);
}

fn edit_here(table: &mut Table, u: &mut Bytes<'_>, names: &[String]) {
    if table.is_empty() {
        table.insert("name".to_owned(), Value::String("x".to_owned()));
        return;
    }
    let i = usize::from(u.u8()) % table.len();
    let key = table.keys().nth(i).cloned().expect("index in range");
    match u.u8() % 6 {
        0 => {
            table.remove(&key);
        }
        1 => {
            // A key the model does not have, or one of another table.
            let k = [
                "kind", "dtype", "shape", "layout", "doc", "bias", "eps", "axis", "typo",
            ][usize::from(u.u8()) % 9];
            let v = table[&key].clone();
            table.insert(k.to_owned(), v);
        }
        2 => {
            if let Some(Value::Array(a)) = table.get_mut(&key) {
                if !a.is_empty() {
                    let j = usize::from(u.u8()) % a.len();
                    match u.u8() % 3 {
                        0 => {
                            let dup = a[j].clone();
                            a.insert(j, dup);
                        }
                        1 => {
                            a.remove(j);
                        }
                        _ => {
                            let last = a.len() - 1;
                            a.swap(j, last);
                        }
                    }
                    return;
                }
            }
            let old = table[&key].clone();
            table.insert(key, value(u, &old, names));
        }
        _ => {
            let old = table[&key].clone();
            table.insert(key, value(u, &old, names));
        }
    }
}

/// The family document for `data`: the template its first byte selects,
/// with as many edits as its second byte says (up to 8).
pub fn family_text(data: &[u8]) -> String {
    let mut u = Bytes::new(data);
    let t = templates();
    let mut doc = t[usize::from(u.u8()) % t.len()].clone();
    let mut names = Vec::new();
    strings(&Value::Table(doc.clone()), &mut names);
    for _ in 0..(u.u8() % 9) {
        edit(&mut doc, &mut u, &names);
    }
    toml::to_string(&doc).unwrap_or_default()
}
