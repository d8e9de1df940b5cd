//! JSON outputs under `generated/schema/`:
//!
//! - `family.schema.json`, `abi.schema.json` and `retired.schema.json`: JSON
//!   Schema (Draft 2020-12) of the manifest, derived with schemars from
//!   `model::FamilyFile`, `model::AbiFile` and `model::RetiredFile`, the same
//!   types serde reads, so they cannot drift.
//!   Editors validate `manifest/*.toml` through their `#:schema` line.
//! - `compiled_meta.schema.json`: the `compiled_meta.json` documents a loader
//!   accepts, derived from `compiled_meta::CompiledMeta`.
//! - `examples/<family>.<profile>.compiled_meta.json`: the exact document an
//!   approved artifact carries, for one family per contract and operation
//!   kind (`kfam example` prints any receipt's).
//!
//! [`families_json`], the resolved manifest (the IR) as JSON data, is not a
//! file: `kfam resolve` prints it on demand, so the output directory does not
//! hold a second copy of the whole catalog.
//!
//! schemars derives the structure; `finish` then makes the schemas complete
//! for editors: every vocabulary member with a description, integer bounds of
//! the Rust types, no `null` (TOML has none), and the cross-field rules of
//! `check` that JSON Schema can state (scalars, NZ, platform backends). The
//! schema never rejects a manifest that `check` accepts; `check` remains the
//! authority and reports what a schema cannot (names resolving, shapes
//! agreeing).

use schemars::generate::SchemaSettings;
use schemars::JsonSchema;
use serde_json::{json, Map, Value};

use super::output::GeneratedFile;
use crate::compiled_meta::{self, CompiledMeta};
use crate::ir::{Family, Ir, Targets};
use crate::model::{AbiFile, FamilyFile, RetiredFile};
use crate::origin::Origin;
use crate::record::PARAM;
use crate::vocab::{
    BinaryOp, BindingKind, Contract, DType, Direction, Layout, NormKind, ParamKind, ReduceOp,
    Status, UnaryOp,
};

mod targets;
mod vocab;

pub use vocab::Members;
use vocab::{def_mut, vocab_schema};

pub const FAMILY_SCHEMA: &str = "schema/family.schema.json";
pub const ABI_SCHEMA: &str = "schema/abi.schema.json";
pub const RETIRED_SCHEMA: &str = "schema/retired.schema.json";
pub const COMPILED_META_SCHEMA: &str = "schema/compiled_meta.schema.json";
pub const EXAMPLES_DIR: &str = "schema/examples";

/// The schemas and example documents, each with `banner`
/// ([`Origin::banner`]) as its `$comment`.
pub fn emit(ir: &Ir, banner: &str) -> Vec<GeneratedFile> {
    let mut files = vec![
        GeneratedFile::new(
            FAMILY_SCHEMA,
            pretty(family_schema_for(&ir.targets), banner),
        ),
        GeneratedFile::new(ABI_SCHEMA, pretty(abi_schema(), banner)),
        GeneratedFile::new(RETIRED_SCHEMA, pretty(retired_schema(), banner)),
        GeneratedFile::new(
            COMPILED_META_SCHEMA,
            pretty(compiled_meta_schema_for(&ir.targets), banner),
        ),
    ];
    for (path, doc) in compiled_meta_examples(ir, banner) {
        files.push(GeneratedFile::new(path, doc));
    }
    files
}

/// A schema pretty-printed with `banner` as its `$comment`, and a trailing
/// newline.
fn pretty(mut v: Value, banner: &str) -> String {
    v.as_object_mut()
        .expect("a root schema is an object")
        .insert("$comment".into(), json!(banner));
    let mut s = serde_json::to_string_pretty(&v).expect("a JSON value always serializes");
    s.push('\n');
    s
}

/// The schema of a family file of a catalog with kfam's default platforms.
pub fn family_schema() -> Value {
    family_schema_for(&Targets::default())
}

/// The schema of `manifest/families/<name>.toml` for a catalog with
/// `targets`: its platforms, backends, runtimes and modes as vocabularies.
pub fn family_schema_for(targets: &Targets) -> Value {
    let mut v = root_schema::<FamilyFile>();
    family_rules(&mut v);
    targets::profile_rules(&mut v, targets);
    // The cross-field rules are added after `finish`.
    declare_types(&mut v, false);
    v
}

/// The schema of `manifest/abi.toml`.
pub fn abi_schema() -> Value {
    let mut v = root_schema::<AbiFile>();
    let status = def_mut(&mut v, "StatusCodes");
    let props = status["properties"]
        .as_object_mut()
        .expect("StatusCodes has properties");
    for s in Status::ALL {
        let p = props
            .get_mut(s.as_str())
            .unwrap_or_else(|| panic!("StatusCodes lacks `{s}`"));
        if *s == Status::Ok {
            p["const"] = json!(0);
            p["description"] = json!("Success: always 0.");
        } else {
            p["maximum"] = json!(-1);
            p["description"] = json!(format!(
                "Status `{s}`: negative, distinct from every other status."
            ));
        }
    }
    v
}

/// The schema of `manifest/retired.toml`.
pub fn retired_schema() -> Value {
    root_schema::<RetiredFile>()
}

/// The schema of the `compiled_meta.json` documents a loader of a catalog
/// with kfam's default platforms accepts.
pub fn compiled_meta_schema() -> Value {
    compiled_meta_schema_for(&Targets::default())
}

/// The schema of the `compiled_meta.json` documents a loader of a catalog
/// with `targets` accepts.
pub fn compiled_meta_schema_for(targets: &Targets) -> Value {
    let mut v = root_schema::<CompiledMeta>();
    targets::meta_rules(&mut v, targets);
    declare_types(&mut v, false);
    v
}

/// The resolved manifest (`kfam resolve`): the IR as JSON, with the banner
/// of `kfam resolve` ([`Origin::Printed`]) as `$comment`,
/// fields in declaration order, one family (and one retired tombstone) per
/// line (`Lines`): compact, yet a diff shows which family changed.
/// Serialized straight from the IR (no `serde_json::Value` tree in between:
/// at 10,000 families that tree was most of this emitter's time).
pub fn families_json(ir: &Ir) -> String {
    #[derive(serde::Serialize)]
    struct FamiliesJson<'a> {
        #[serde(rename = "$comment")]
        comment: String,
        #[serde(flatten)]
        ir: &'a Ir,
    }
    let doc = FamiliesJson {
        comment: Origin::Printed("kfam resolve".into()).banner(),
        ir,
    };
    let mut out = Vec::with_capacity(1024 + ir.families.len() * 2048);
    let mut ser = serde_json::Serializer::with_formatter(&mut out, Lines::default());
    serde::Serialize::serialize(&doc, &mut ser).expect("the IR serializes");
    out.push(b'\n');
    String::from_utf8(out).expect("serde_json writes UTF-8")
}

/// A JSON layout with a line break before each member of the outer two
/// levels (the document's keys, the elements of `families`) and none
/// deeper: one record per line.
#[derive(Default)]
struct Lines {
    depth: usize,
}

impl Lines {
    /// Levels whose members start a line.
    const BROKEN: usize = 2;

    fn member<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        if !first {
            w.write_all(b",")?;
        }
        if self.depth <= Self::BROKEN {
            w.write_all(b"\n")?;
        }
        Ok(())
    }

    fn end<W: ?Sized + std::io::Write>(&mut self, w: &mut W, close: &[u8]) -> std::io::Result<()> {
        self.depth -= 1;
        if self.depth < Self::BROKEN {
            w.write_all(b"\n")?;
        }
        w.write_all(close)
    }
}

impl serde_json::ser::Formatter for Lines {
    fn begin_array<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.depth += 1;
        w.write_all(b"[")
    }
    fn end_array<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.end(w, b"]")
    }
    fn begin_array_value<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.member(w, first)
    }
    fn begin_object<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.depth += 1;
        w.write_all(b"{")
    }
    fn end_object<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.end(w, b"}")
    }
    fn begin_object_key<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.member(w, first)
    }
}

/// `(path, contents)` of the example documents: one per shape of document,
/// so their number does not grow with the catalog. For each contract and
/// operation kind the manifest uses, the first family (by name) of that
/// pair gives one document per receipt, at
/// `schema/examples/<family>.<profile>.compiled_meta.json` ([`example_stem`]).
/// Any other receipt's document is printed on demand by `kfam example`.
/// Each document carries `banner` as its `$comment`.
pub fn compiled_meta_examples(ir: &Ir, banner: &str) -> Vec<(String, String)> {
    let mut seen = Vec::new();
    let mut out = Vec::new();
    for f in &ir.families {
        let shape = (f.contract, f.operation.kind());
        if seen.contains(&shape) {
            continue;
        }
        seen.push(shape);
        for receipt in 0..f.receipts.len() {
            out.push((
                format!(
                    "{EXAMPLES_DIR}/{}.compiled_meta.json",
                    example_stem(f, receipt)
                ),
                example_document(ir, f, receipt, banner),
            ));
        }
    }
    out
}

/// `<family>.<profile>`, with `.<n>` (from 1) appended when the profile has
/// several receipts: the name of receipt `receipt`'s example document.
pub fn example_stem(f: &Family, receipt: usize) -> String {
    let profile = &f.profiles[f.receipts[receipt].profile].name;
    match receipt_number(f, receipt) {
        Some(n) => format!("{}.{profile}.{n}", f.name),
        None => format!("{}.{profile}", f.name),
    }
}

/// Receipt `receipt`'s number (from 1) among its profile's receipts, when
/// that profile has several (`--receipt N` of `kfam example`).
fn receipt_number(f: &Family, receipt: usize) -> Option<usize> {
    let profile = f.receipts[receipt].profile;
    let same: Vec<usize> = (0..f.receipts.len())
        .filter(|&j| f.receipts[j].profile == profile)
        .collect();
    (same.len() > 1).then(|| same.iter().position(|&j| j == receipt).unwrap_or(0) + 1)
}

/// The `compiled_meta.json` document receipt `receipt` of `f` carries,
/// pretty-printed with `banner` as `$comment`: the contents of its example
/// file (under the banner of the run) and what `kfam example` prints
/// ([`printed_example`]).
pub fn example_document(ir: &Ir, f: &Family, receipt: usize, banner: &str) -> String {
    let mut doc = compiled_meta::expected(&ir.abi, f, &f.receipts[receipt]);
    doc.comment = Some(banner.to_owned());
    // Serialized from the struct, so fields keep their documented order.
    let mut text = Vec::with_capacity(4096);
    serde_json::to_writer_pretty(&mut text, &doc).expect("metadata serializes");
    text.push(b'\n');
    String::from_utf8(text).expect("serde_json writes UTF-8")
}

/// What `kfam example` prints for receipt `receipt` of `f`: its document,
/// with the banner of the command that prints it ([`example_command`]) as
/// `$comment`. It names no directory, so the text is the same from any
/// working directory.
pub fn printed_example(ir: &Ir, f: &Family, receipt: usize) -> String {
    let origin = Origin::Printed(example_command(f, receipt));
    example_document(ir, f, receipt, &origin.banner())
}

/// `kfam example FAMILY --profile P [--receipt N]`: the command that prints
/// receipt `receipt`'s document from the default manifest directory,
/// `--receipt` only when the profile has several receipts.
pub fn example_command(f: &Family, receipt: usize) -> String {
    let profile = &f.profiles[f.receipts[receipt].profile].name;
    match receipt_number(f, receipt) {
        Some(n) => format!("kfam example {} --profile {profile} --receipt {n}", f.name),
        None => format!("kfam example {} --profile {profile}", f.name),
    }
}

/// The receipt `kfam example FAMILY [--profile P] [--receipt N]` names:
/// `(family, receipt index)`, or what to say when the selection names none
/// or several (with the choices).
pub fn select_example<'a>(
    ir: &'a Ir,
    family: &str,
    profile: Option<&str>,
    receipt: Option<usize>,
) -> Result<(&'a Family, usize), String> {
    let Some(f) = ir.families.iter().find(|f| f.name == family) else {
        let hint = crate::names::did_you_mean(family, ir.families.iter().map(|f| f.name.as_str()))
            .map(|m| format!(" (did you mean `{m}`?)"))
            .unwrap_or_default();
        return Err(format!("no approved family is named `{family}`{hint}"));
    };
    let mut picked: Vec<usize> = (0..f.receipts.len()).collect();
    if let Some(p) = profile {
        picked.retain(|&r| f.profiles[f.receipts[r].profile].name == p);
        if picked.is_empty() {
            let mut names: Vec<&str> = f
                .receipts
                .iter()
                .map(|r| f.profiles[r.profile].name.as_str())
                .collect();
            names.dedup();
            return Err(format!(
                "family `{family}` has no receipt for profile `{p}`; its receipts are for: {}",
                names.join(", ")
            ));
        }
    }
    match receipt {
        Some(n) if n >= 1 && n <= picked.len() && (profile.is_some() || picked.len() == 1) => {
            Ok((f, picked[n - 1]))
        }
        None if picked.len() == 1 => Ok((f, picked[0])),
        Some(n) if profile.is_some() || picked.len() == 1 => Err(format!(
            "`--receipt {n}`: the selection has {} receipt{} (counted from 1)",
            picked.len(),
            if picked.len() == 1 { "" } else { "s" }
        )),
        _ => {
            let choices: Vec<String> = picked
                .iter()
                .map(|&r| {
                    let p = &f.profiles[f.receipts[r].profile].name;
                    match receipt_number(f, r) {
                        Some(n) => format!("`--profile {p} --receipt {n}`"),
                        None => format!("`--profile {p}`"),
                    }
                })
                .collect();
            Err(format!(
                "family `{family}` has {} receipts; pick one with {}",
                picked.len(),
                choices.join(", ")
            ))
        }
    }
}

/// schemars with Draft 2020-12 settings, then `finish`.
fn root_schema<T: JsonSchema>() -> Value {
    let generator = SchemaSettings::draft2020_12().into_generator();
    let mut v = generator.into_root_schema_for::<T>().to_value();
    finish(&mut v);
    v
}

/// Make a derived schema complete (see the module docs). The banner is
/// added where a schema is written ([`emit`]).
fn finish(root: &mut Value) {
    walk(root);
    declare_types(root, false);
    describe_refs(root);
    if let Some(defs) = root.get_mut("$defs").and_then(Value::as_object_mut) {
        for (name, members) in vocabularies() {
            if let Some(def) = defs.get_mut(name) {
                *def = vocab_schema(def.get("description").and_then(Value::as_str), &members);
            }
        }
    }
}

/// A property that is only a `$ref` shows its definition's description.
fn describe_refs(root: &mut Value) {
    let defs = root.get("$defs").cloned().unwrap_or(Value::Null);
    fn fill(v: &mut Value, defs: &Value) {
        match v {
            Value::Object(m) => {
                if let Some(Value::Object(props)) = m.get_mut("properties") {
                    for p in props.values_mut() {
                        let target = p
                            .get("$ref")
                            .and_then(Value::as_str)
                            .and_then(|r| r.strip_prefix("#/$defs/"));
                        let doc = target
                            .and_then(|t| defs.get(t))
                            .and_then(|d| d.get("description"))
                            .cloned();
                        if let (Some(doc), Value::Object(pm)) = (doc, p) {
                            pm.entry("description").or_insert(doc);
                        }
                    }
                }
                m.values_mut().for_each(|x| fill(x, defs));
            }
            Value::Array(a) => a.iter_mut().for_each(|x| fill(x, defs)),
            _ => {}
        }
    }
    fill(root, &defs);
}

/// Recursive clean-up of every subschema: drop `null` (the documents have
/// none: TOML cannot spell it, and the metadata reader rejects it), and give
/// integers the bounds of their Rust type instead of schemars' `format`s
/// (`uint32`, ...), which are no standard format: validators in strict mode
/// (ajv) refuse a schema with an unknown format.
fn walk(v: &mut Value) {
    match v {
        Value::Array(items) => items.iter_mut().for_each(walk),
        Value::Object(map) => {
            strip_null(map);
            integer_bounds(map);
            if map
                .get("format")
                .and_then(Value::as_str)
                .is_some_and(|f| !STANDARD_FORMATS.contains(&f))
            {
                map.remove("format");
            }
            if let Some(Value::String(d)) = map.get_mut("description") {
                *d = unwrap_lines(d);
            }
            map.values_mut().for_each(walk);
        }
        _ => {}
    }
}

/// Doc comments arrive hard-wrapped; editors show descriptions as Markdown,
/// so join the lines of each paragraph.
fn unwrap_lines(s: &str) -> String {
    s.split("\n\n")
        .map(|p| p.lines().map(str::trim).collect::<Vec<_>>().join(" "))
        .collect::<Vec<_>>()
        .join("\n\n")
}

fn strip_null(map: &mut Map<String, Value>) {
    if let Some(Value::Array(types)) = map.get_mut("type") {
        types.retain(|t| t != "null");
        if types.len() == 1 {
            let t = types.remove(0);
            map.insert("type".into(), t);
        }
    }
    let Some(Value::Array(any)) = map.get_mut("anyOf") else {
        return;
    };
    let before = any.len();
    any.retain(|s| s != &json!({"type": "null"}));
    if any.len() == 1 && before == 2 {
        if let Some(Value::Object(only)) = any.pop() {
            map.remove("anyOf");
            for (k, val) in only {
                map.entry(k).or_insert(val);
            }
        }
    }
}

/// The formats JSON Schema 2020-12 defines (section 7.3 of the validation
/// vocabulary); any other `format` is dropped.
const STANDARD_FORMATS: &[&str] = &[
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "iri",
    "iri-reference",
    "uuid",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
    "regex",
];

/// State the type of every subschema that uses a type's keywords without
/// one (the cross-field rules' `if`/`then` parts): ajv's strict mode
/// (`strictTypes`) asks for it. It never narrows what a schema accepts:
/// those parts only refine a property whose type the main schema states.
/// A subschema under `not` is left alone (a type there would widen it).
fn declare_types(v: &mut Value, under_not: bool) {
    match v {
        Value::Array(items) => items.iter_mut().for_each(|i| declare_types(i, under_not)),
        Value::Object(map) => {
            if !under_not && !map.contains_key("type") && !map.contains_key("$ref") {
                let has = |keys: &[&str]| keys.iter().any(|k| map.contains_key(*k));
                let ty = if has(&["properties", "required", "additionalProperties"]) {
                    Some("object")
                } else if has(&["items", "minItems", "maxItems", "prefixItems"]) {
                    Some("array")
                } else if has(&["pattern", "minLength", "maxLength"]) {
                    Some("string")
                } else if has(&["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"]) {
                    Some("number")
                } else {
                    None
                };
                if let Some(ty) = ty {
                    map.insert("type".into(), json!(ty));
                }
            }
            for (k, x) in map.iter_mut() {
                match (k.as_str(), x) {
                    // Maps from names to schemas: each value is a schema.
                    (
                        "properties" | "$defs" | "patternProperties" | "dependentSchemas",
                        Value::Object(named),
                    ) => {
                        named.values_mut().for_each(|s| declare_types(s, under_not));
                    }
                    // Values, not schemas.
                    ("enum" | "const" | "default" | "examples", _) => {}
                    (k, x) => declare_types(x, under_not || k == "not"),
                }
            }
        }
        _ => {}
    }
}

fn integer_bounds(map: &mut Map<String, Value>) {
    if map.get("type").and_then(Value::as_str) != Some("integer") {
        return;
    }
    let (min, max): (Value, Value) = match map.get("format").and_then(Value::as_str) {
        Some("uint8") => (json!(0), json!(u8::MAX)),
        Some("uint16") => (json!(0), json!(u16::MAX)),
        Some("uint32") => (json!(0), json!(u32::MAX)),
        Some("uint64") => (json!(0), json!(u64::MAX)),
        Some("int8") => (json!(i8::MIN), json!(i8::MAX)),
        Some("int16") => (json!(i16::MIN), json!(i16::MAX)),
        Some("int32") => (json!(i32::MIN), json!(i32::MAX)),
        Some("int64") => (json!(i64::MIN), json!(i64::MAX)),
        _ => return,
    };
    map.entry("minimum").or_insert(min);
    map.entry("maximum").or_insert(max);
}

/// Every vocabulary a schema can use, by schemars definition name, with each
/// member's spelling, numeric code and description.
pub fn vocabularies() -> Vec<(&'static str, Members)> {
    fn list<T: Copy>(
        all: &[T],
        s: fn(T) -> &'static str,
        c: fn(T) -> i32,
        d: fn(T) -> String,
    ) -> Members {
        all.iter().map(|&v| (s(v).to_owned(), c(v), d(v))).collect()
    }
    vec![
        (
            DType::NAME,
            list(DType::ALL, DType::as_str, DType::code, describe_dtype),
        ),
        (
            Direction::NAME,
            list(Direction::ALL, Direction::as_str, Direction::code, |v| {
                describe_direction(v).into()
            }),
        ),
        (
            ParamKind::NAME,
            list(ParamKind::ALL, ParamKind::as_str, ParamKind::code, |v| {
                describe_param_kind(v).into()
            }),
        ),
        (
            Layout::NAME,
            list(Layout::ALL, Layout::as_str, Layout::code, |v| {
                describe_layout(v).into()
            }),
        ),
        (
            Contract::NAME,
            list(Contract::ALL, Contract::as_str, Contract::code, |v| {
                describe_contract(v).into()
            }),
        ),
        (
            BindingKind::NAME,
            list(
                BindingKind::ALL,
                BindingKind::as_str,
                BindingKind::code,
                |v| describe_binding(v).into(),
            ),
        ),
        (
            BinaryOp::NAME,
            list(BinaryOp::ALL, BinaryOp::as_str, BinaryOp::code, |v| {
                describe_op(v).into()
            }),
        ),
        (
            UnaryOp::NAME,
            list(UnaryOp::ALL, UnaryOp::as_str, UnaryOp::code, |v| {
                describe_unary(v).into()
            }),
        ),
        (
            ReduceOp::NAME,
            list(ReduceOp::ALL, ReduceOp::as_str, ReduceOp::code, |v| {
                describe_reduce(v).into()
            }),
        ),
        (
            NormKind::NAME,
            list(NormKind::ALL, NormKind::as_str, NormKind::code, |v| {
                describe_norm(v).into()
            }),
        ),
    ]
}

pub fn describe_dtype(d: DType) -> String {
    let what = match d {
        DType::Fp32 => "32-bit IEEE 754 float",
        DType::Fp16 => "16-bit IEEE 754 half-precision float",
        DType::Int32 => "32-bit signed integer",
        DType::Int16 => "16-bit signed integer",
        DType::Int8 => "8-bit signed integer",
        DType::Uint8 => "8-bit unsigned integer",
        DType::Bf16 => "16-bit bfloat16",
        DType::Int64 => "64-bit signed integer",
        DType::Uint64 => "64-bit unsigned integer (torch has no such scalar)",
        DType::Uint16 => "16-bit unsigned integer",
        DType::Uint32 => "32-bit unsigned integer",
        DType::Bool => "boolean, one byte per element",
        DType::Fp8e4m3fn => "8-bit float, 4 exponent and 3 mantissa bits, finite only",
        DType::Fp8e8m0 => "8-bit exponent-only scale (E8M0)",
        DType::Fp4 => "packed 4-bit float, two elements per byte along the last dimension",
    };
    let mut s = what.to_owned();
    if !d.scalar_allowed() {
        s.push_str("; tensors only");
    }
    if d.nz_allowed() {
        s.push_str("; NZ layout allowed");
    }
    s
}

pub fn describe_direction(d: Direction) -> &'static str {
    match d {
        Direction::In => "read by the kernel (the default; scalars are always `in`)",
        Direction::Out => "written by the kernel into a caller-supplied tensor; may be returned",
        Direction::InOut => "read and updated in place; may be returned",
    }
}

pub fn describe_param_kind(k: ParamKind) -> &'static str {
    match k {
        ParamKind::Tensor => "a tensor with a `shape` (the default)",
        ParamKind::Scalar => "one value passed by value: no `shape`, no `layout`, always `in`",
    }
}

pub fn describe_layout(l: Layout) -> &'static str {
    match l {
        Layout::Nd => "row-major contiguous (the default)",
        Layout::Nchw => "row-major contiguous, rank 4: batch, channel, height, width",
        Layout::Nz => {
            "Ascend fractal blocked layout for read-only fp16/bf16/int8 inputs of rank >= 2, on platforms that accept it (`a2a3` of the defaults); lowered to `[prod(leading), C/c0, R/16, 16, c0]`"
        }
    }
}

pub fn describe_contract(c: Contract) -> &'static str {
    match c {
        Contract::Program => "PROGRAM calling rules: the program runner binds arguments and allocates outputs",
        Contract::Kernel => {
            "KERNEL calling rules: one chip and entry, the caller supplies every `out`/`inout` buffer, returns alias parameters"
        }
    }
}

pub fn describe_binding(b: BindingKind) -> &'static str {
    match b {
        BindingKind::BufferObject => "a device buffer object (XRT BO); tensors only",
        BindingKind::TensorArg => "a tensor argument slot of the launch arguments; tensors only",
        BindingKind::ScalarArg => "a typed scalar slot of the launch arguments; scalars only",
    }
}

pub fn describe_op(op: BinaryOp) -> &'static str {
    match op {
        BinaryOp::Add => "out = lhs + rhs",
        BinaryOp::Sub => "out = lhs - rhs",
        BinaryOp::Mul => "out = lhs * rhs",
        BinaryOp::Div => "out = lhs / rhs",
        BinaryOp::Max => "out = max(lhs, rhs)",
        BinaryOp::Min => "out = min(lhs, rhs)",
    }
}

pub fn describe_unary(op: UnaryOp) -> &'static str {
    match op {
        UnaryOp::Neg => "out = -x",
        UnaryOp::Abs => "out = abs(x)",
        UnaryOp::Exp => "out = exp(x); float dtypes",
        UnaryOp::Log => "out = log(x), the natural logarithm; float dtypes",
        UnaryOp::Sqrt => "out = sqrt(x); float dtypes",
        UnaryOp::Rsqrt => "out = 1 / sqrt(x); float dtypes",
        UnaryOp::Relu => "out = max(x, 0)",
        UnaryOp::Gelu => "out = gelu(x), the erf form; float dtypes",
        UnaryOp::GeluTanh => {
            "out = 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))), gelu's tanh approximation; float dtypes"
        }
        UnaryOp::Silu => "out = x * sigmoid(x); float dtypes",
        UnaryOp::Sigmoid => "out = 1 / (1 + exp(-x)); float dtypes",
        UnaryOp::Tanh => "out = tanh(x); float dtypes",
        UnaryOp::Cast => {
            "out = x converted to the dtype of out (the only operator that may change the dtype)"
        }
    }
}

pub fn describe_reduce(op: ReduceOp) -> &'static str {
    match op {
        ReduceOp::Sum => "sum over the reduced axes",
        ReduceOp::Max => "maximum over the reduced axes",
        ReduceOp::Min => "minimum over the reduced axes",
        ReduceOp::Mean => "arithmetic mean over the reduced axes",
    }
}

pub fn describe_norm(op: NormKind) -> &'static str {
    match op {
        NormKind::RmsNorm => "x / sqrt(mean(x^2) + eps) * weight; no bias",
        NormKind::LayerNorm => "(x - mean(x)) / sqrt(var(x) + eps) * weight + bias",
    }
}

/// The rules of `check` on one parameter and one profile that JSON Schema
/// can state, so an editor flags them while typing.
fn family_rules(root: &mut Value) {
    let scalar_dtypes: Vec<&str> = DType::ALL
        .iter()
        .filter(|d| !d.scalar_allowed())
        .map(|d| d.as_str())
        .collect();
    let nz_dtypes: Vec<&str> = DType::ALL
        .iter()
        .filter(|d| d.nz_allowed())
        .map(|d| d.as_str())
        .collect();
    // What a scalar has not: a shape, a layout, a declared attribute that
    // only tensors have (KF0407).
    let mut scalar = json!({
        "shape": false,
        "layout": false,
        "direction": { "const": Direction::In.as_str() },
        "dtype": { "not": { "enum": scalar_dtypes } },
    });
    for (field, _) in PARAM.attrs().filter(|(_, a)| a.tensors_only) {
        scalar[field.name] = json!(false);
    }
    let param = def_mut(root, "Param");
    param["allOf"] = json!([
        {
            "$comment": "a scalar has no shape or layout, is `in`, and has a dtype with a scalar representation (KF0203-KF0205)",
            "if": { "properties": { "kind": { "const": ParamKind::Scalar.as_str() } }, "required": ["kind"] },
            "then": { "properties": scalar },
            "else": {
                "$comment": "a tensor declares 1 or more extents, each -1 or 1..=2^32-1 (KF0201, KF0202)",
                "required": ["shape"],
                "properties": { "shape": { "items": { "not": { "const": 0 } } } },
            },
        },
        {
            "$comment": "NZ is for read-only fp16/bf16/int8 inputs of rank >= 2 (KF0401-KF0403)",
            "if": { "properties": { "layout": { "const": Layout::Nz.as_str() } }, "required": ["layout"] },
            "then": { "properties": {
                "dtype": { "enum": nz_dtypes },
                "direction": { "const": Direction::In.as_str() },
                "shape": { "minItems": 2 },
            } },
        },
        {
            "$comment": "NCHW is rank 4 (KF0406)",
            "if": { "properties": { "layout": { "const": Layout::Nchw.as_str() } }, "required": ["layout"] },
            "then": { "properties": { "shape": { "minItems": 4, "maxItems": 4 } } },
        },
    ]);
    // The declared attributes' values (KF0407).
    for (field, attr) in PARAM.attrs() {
        if let Some(Value::Object(p)) = param["properties"].get_mut(field.name) {
            // The values stand for the integer type's bounds.
            p.remove("minimum");
            p.remove("maximum");
            p.insert("enum".into(), json!(attr.rule.values()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_vocabulary_is_described() {
        for (name, members) in vocabularies() {
            assert!(!members.is_empty(), "{name}");
            for (s, _, d) in members {
                assert!(!d.is_empty(), "{name}::{s} has no description");
            }
        }
    }

    #[test]
    fn comment_sorts_first() {
        let text = pretty(family_schema(), &Origin::default().banner());
        assert!(
            text.starts_with("{\n  \"$comment\": \"@generated by kfam"),
            "{}",
            &text[..80]
        );
    }

    #[test]
    fn no_nulls_remain() {
        for s in [family_schema(), abi_schema(), compiled_meta_schema()] {
            let text = s.to_string();
            assert!(!text.contains("\"null\""), "a schema still allows null");
        }
    }

    #[test]
    fn status_codes_match_the_vocabulary() {
        let abi = abi_schema();
        let props = abi["$defs"]["StatusCodes"]["properties"]
            .as_object()
            .unwrap();
        let keys: Vec<&str> = props.keys().map(String::as_str).collect();
        let mut want: Vec<&str> = Status::ALL.iter().map(|s| s.as_str()).collect();
        want.sort();
        assert_eq!(keys, want);
    }
}
