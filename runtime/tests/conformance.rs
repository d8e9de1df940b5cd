//! The shared conformance vectors (`tests/conformance/*.json`, see
//! `docs/conformance.md`) run through the Rust API: every case must reach
//! exactly its expected outcome. Every mismatch is listed at once.
//!
//! `cargo test -p kfam-runtime --test integration conformance:: -- --nocapture` also prints
//! how many vectors each file holds and how many expect each outcome.
//! `$KFAM_CONFORMANCE_DIR` overrides the vector directory.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use kfam_catalog::{CATALOG, FAMILIES};
use kfam_runtime::ffi::{admission_status, capability_status};
use kfam_runtime::Catalog;
use kfam_runtime::{
    validate_call, Admission, CallRule, Capability, Contract, DType, Direction, OwnedTensorArg,
    ParamKind, ScalarValue, ScalarValueKind, Status, StorageFormat, TensorArg,
};
use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

/// The fewest vectors the directory may hold (the Python smoke set's size
/// when the shared set was written).
const MIN_CASES: usize = 150;

/// The fields a `not_approved` admission may name (`Refused::field`).
const ADMISSION_FIELDS: &[&str] = &[
    "revision",
    "contract",
    "params",
    "lowered_params",
    "return_count",
    "return_aliases",
    "platform",
    "backend",
    "runtime",
    "execution_mode",
    "artifact.sha256",
    "artifact.path",
];

// ------------------------------------------------------------- strict JSON

/// A JSON value as written: object keys keep their order, and a duplicate
/// key is an error (serde_json's own `Value` keeps the last one silently).
#[derive(Clone, Debug, PartialEq)]
enum Json {
    Null,
    Bool(bool),
    /// Nonnegative integers.
    U64(u64),
    /// Negative integers.
    I64(i64),
    F64(f64),
    Str(String),
    Arr(Vec<Json>),
    Obj(Vec<(String, Json)>),
}

impl<'de> Deserialize<'de> for Json {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Json;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON value")
            }
            fn visit_unit<E>(self) -> Result<Json, E> {
                Ok(Json::Null)
            }
            fn visit_bool<E>(self, v: bool) -> Result<Json, E> {
                Ok(Json::Bool(v))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Json, E> {
                Ok(Json::U64(v))
            }
            fn visit_i64<E>(self, v: i64) -> Result<Json, E> {
                Ok(if v >= 0 {
                    Json::U64(v as u64)
                } else {
                    Json::I64(v)
                })
            }
            fn visit_f64<E>(self, v: f64) -> Result<Json, E> {
                Ok(Json::F64(v))
            }
            fn visit_str<E>(self, v: &str) -> Result<Json, E> {
                Ok(Json::Str(v.to_owned()))
            }
            fn visit_string<E>(self, v: String) -> Result<Json, E> {
                Ok(Json::Str(v))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Json, A::Error> {
                let mut out = Vec::new();
                while let Some(v) = seq.next_element()? {
                    out.push(v);
                }
                Ok(Json::Arr(out))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Json, A::Error> {
                let mut out: Vec<(String, Json)> = Vec::new();
                while let Some(k) = map.next_key::<String>()? {
                    if out.iter().any(|(seen, _)| *seen == k) {
                        return Err(de::Error::custom(format!("duplicate key `{k}`")));
                    }
                    let v = map.next_value()?;
                    out.push((k, v));
                }
                Ok(Json::Obj(out))
            }
        }
        d.deserialize_any(V)
    }
}

impl Json {
    fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Obj(m) => m.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    fn keys(&self) -> BTreeSet<&str> {
        match self {
            Json::Obj(m) => m.iter().map(|(k, _)| k.as_str()).collect(),
            _ => BTreeSet::new(),
        }
    }

    /// Compact serialisation, as `serde_json::to_vec` writes a value: no
    /// whitespace, non-ASCII characters unescaped, keys in document order.
    fn write(&self, out: &mut String) {
        match self {
            Json::Null => out.push_str("null"),
            Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Json::U64(v) => write!(out, "{v}").unwrap(),
            Json::I64(v) => write!(out, "{v}").unwrap(),
            Json::F64(v) => out.push_str(&serde_json::to_string(v).unwrap()),
            Json::Str(s) => out.push_str(&serde_json::to_string(s).unwrap()),
            Json::Arr(a) => {
                out.push('[');
                for (i, v) in a.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    v.write(out);
                }
                out.push(']');
            }
            Json::Obj(m) => {
                out.push('{');
                for (i, (k, v)) in m.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push_str(&serde_json::to_string(k).unwrap());
                    out.push(':');
                    v.write(out);
                }
                out.push('}');
            }
        }
    }

    /// The value with every object's keys sorted: objects compare as maps.
    fn canonical(&self) -> Json {
        match self {
            Json::Arr(a) => Json::Arr(a.iter().map(Json::canonical).collect()),
            Json::Obj(m) => {
                let mut m: Vec<(String, Json)> =
                    m.iter().map(|(k, v)| (k.clone(), v.canonical())).collect();
                m.sort_by(|a, b| a.0.cmp(&b.0));
                Json::Obj(m)
            }
            other => other.clone(),
        }
    }

    fn to_text(&self) -> String {
        let mut s = String::new();
        self.write(&mut s);
        s
    }
}

fn str_or_null(s: Option<&str>) -> Json {
    s.map_or(Json::Null, |s| Json::Str(s.to_owned()))
}

// ------------------------------------------------------------- vector files

/// A vector that does not follow docs/conformance.md.
type VectorError = String;

struct Case {
    file: String,
    name: String,
    kind: String,
    data: Json,
    expect: Json,
}

/// The keys of each kind's `expect` object, and the case's other keys.
fn kind_keys(kind: &str) -> Option<(&'static [&'static str], &'static [&'static str])> {
    Some(match kind {
        "call" => (
            &["status", "rule", "param", "symbol", "other", "message"],
            &["name", "kind", "family", "tensors", "scalars", "expect"],
        ),
        "capability" => (
            &["status", "outcome", "profile", "message"],
            &[
                "name",
                "kind",
                "family",
                "platform",
                "execution_mode",
                "contract",
                "expect",
            ],
        ),
        "admission" => (
            &["status", "outcome", "field", "message"],
            &[
                "name",
                "kind",
                "document",
                "document_text",
                "sha256",
                "expect",
            ],
        ),
        "torch_schema" => (&["status", "schema"], &["name", "kind", "family", "expect"]),
        _ => return None,
    })
}

fn conformance_dir() -> PathBuf {
    match std::env::var_os("KFAM_CONFORMANCE_DIR") {
        Some(d) => PathBuf::from(d),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/conformance"),
    }
}

/// Every case of every `*.json` file of `dir`, in file then case order.
fn load_cases(dir: &Path) -> Result<Vec<Case>, Vec<VectorError>> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| vec![format!("{}: {e}", dir.display())])?
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    paths.sort();
    let mut errors = Vec::new();
    let mut cases = Vec::new();
    let mut seen: BTreeMap<String, String> = BTreeMap::new();
    for path in &paths {
        let file = path.file_name().unwrap().to_string_lossy().into_owned();
        match load_file(path, &file) {
            Ok(file_cases) => {
                for c in file_cases {
                    if let Some(other) = seen.insert(c.name.clone(), file.clone()) {
                        errors.push(format!(
                            "{file}: case name `{}` is also used in {other}",
                            c.name
                        ));
                    }
                    cases.push(c);
                }
            }
            Err(e) => errors.push(e),
        }
    }
    if paths.is_empty() {
        errors.push(format!("no vector files in {}/*.json", dir.display()));
    }
    if errors.is_empty() {
        Ok(cases)
    } else {
        Err(errors)
    }
}

fn load_file(path: &Path, file: &str) -> Result<Vec<Case>, VectorError> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{file}: {e}"))?;
    let top: Json = serde_json::from_str(&text).map_err(|e| format!("{file}: {e}"))?;
    let Some(Json::Arr(raw)) = top.get("cases").filter(|_| top.keys().len() == 1) else {
        return Err(format!("{file}: the file is {{\"cases\": [...]}}"));
    };
    let mut out = Vec::new();
    for (i, c) in raw.iter().enumerate() {
        let at = format!("{file}: cases[{i}]");
        let (Some(Json::Str(name)), Some(Json::Str(kind))) = (c.get("name"), c.get("kind")) else {
            return Err(format!("{at}: a case has a string `name` and `kind`"));
        };
        let Some((expect_keys, case_keys)) = kind_keys(kind) else {
            return Err(format!("{at} ({name}): unknown kind `{kind}`"));
        };
        if let Some(k) = c.keys().into_iter().find(|k| !case_keys.contains(k)) {
            return Err(format!("{at} ({name}): unknown key `{k}`"));
        }
        let expect = c
            .get("expect")
            .filter(|e| e.keys() == expect_keys.iter().copied().collect())
            .ok_or_else(|| {
                format!(
                    "{at} ({name}): `expect` of a {kind} case has exactly the keys {expect_keys:?}"
                )
            })?;
        out.push(Case {
            file: file.to_owned(),
            name: name.clone(),
            kind: kind.clone(),
            data: c.clone(),
            expect: expect.clone(),
        });
    }
    Ok(out)
}

// ------------------------------------------------------------- case fields

fn field<'a>(c: &'a Json, key: &str) -> Result<&'a Json, VectorError> {
    c.get(key).ok_or_else(|| format!("missing `{key}`"))
}

fn string<'a>(v: &'a Json, what: &str) -> Result<&'a str, VectorError> {
    match v {
        Json::Str(s) => Ok(s),
        _ => Err(format!("{what}: expected a string")),
    }
}

fn array<'a>(v: &'a Json, what: &str) -> Result<&'a [Json], VectorError> {
    match v {
        Json::Arr(a) => Ok(a),
        _ => Err(format!("{what}: expected an array")),
    }
}

fn int<T: TryFrom<i128>>(v: &Json, what: &str) -> Result<T, VectorError> {
    let wide: i128 = match v {
        Json::U64(u) => (*u).into(),
        Json::I64(i) => (*i).into(),
        _ => return Err(format!("{what}: expected an integer, got {}", v.to_text())),
    };
    T::try_from(wide).map_err(|_| format!("{what}: {wide} is out of range"))
}

fn spelled<T>(v: &Json, parse: impl Fn(&str) -> Option<T>, what: &str) -> Result<T, VectorError> {
    let s = string(v, what)?;
    parse(s).ok_or_else(|| format!("{what}: `{s}` is not a known spelling"))
}

/// A tensor descriptor's owned parts (`TensorArg` borrows its extents).
const TENSOR_KEYS: [&str; 8] = [
    "dtype",
    "shape",
    "strides",
    "storage_offset",
    "storage_bytes",
    "storage",
    "format",
    "device_index",
];

fn tensor(v: &Json, at: &str) -> Result<OwnedTensorArg, VectorError> {
    if v.keys() != TENSOR_KEYS.into_iter().collect() {
        return Err(format!(
            "{at}: a tensor has exactly the keys {TENSOR_KEYS:?}"
        ));
    }
    let extents = |key: &str| -> Result<Vec<i64>, VectorError> {
        array(field(v, key)?, key)?
            .iter()
            .map(|d| int(d, &format!("{at}.{key}")))
            .collect()
    };
    Ok(OwnedTensorArg {
        dtype: spelled(field(v, "dtype")?, DType::parse, &format!("{at}.dtype"))?,
        shape: extents("shape")?,
        strides: extents("strides")?,
        storage_offset: int(field(v, "storage_offset")?, &format!("{at}.storage_offset"))?,
        storage_bytes: int(field(v, "storage_bytes")?, &format!("{at}.storage_bytes"))?,
        storage: int(field(v, "storage")?, &format!("{at}.storage"))?,
        format: spelled(
            field(v, "format")?,
            StorageFormat::parse,
            &format!("{at}.format"),
        )?,
        device_index: int(field(v, "device_index")?, &format!("{at}.device_index"))?,
    })
}

fn scalar(v: &Json, at: &str) -> Result<ScalarValue, VectorError> {
    if v.keys() != ["kind", "value"].into_iter().collect() {
        return Err(format!("{at}: a scalar has exactly the keys kind, value"));
    }
    let kind = spelled(
        field(v, "kind")?,
        ScalarValueKind::parse,
        &format!("{at}.kind"),
    )?;
    let value = field(v, "value")?;
    let what = format!("{at}.value");
    Ok(match (kind, value) {
        (ScalarValueKind::Bool, Json::Bool(b)) => ScalarValue::Bool(*b),
        (ScalarValueKind::Int, _) => ScalarValue::Int(int(value, &what)?),
        (ScalarValueKind::Uint, _) => ScalarValue::Uint(int(value, &what)?),
        (ScalarValueKind::Float, Json::F64(x)) => ScalarValue::Float(*x),
        (ScalarValueKind::Float, Json::U64(x)) => ScalarValue::Float(*x as f64),
        (ScalarValueKind::Float, Json::I64(x)) => ScalarValue::Float(*x as f64),
        (ScalarValueKind::Float, Json::Str(s)) => ScalarValue::Float(match s.as_str() {
            "inf" => f64::INFINITY,
            "-inf" => f64::NEG_INFINITY,
            "nan" => f64::NAN,
            _ => return Err(format!("{what}: `{s}` is not inf, -inf or nan")),
        }),
        _ => return Err(format!("{what}: {} is not a {kind} value", value.to_text())),
    })
}

// ------------------------------------------------------------- runners

fn status(s: Status) -> Json {
    Json::Str(s.as_str().to_owned())
}

fn obj(fields: Vec<(&str, Json)>) -> Json {
    Json::Obj(fields.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
}

fn run_call(cat: &Catalog, c: &Json) -> Result<Json, VectorError> {
    let name = string(field(c, "family")?, "family")?;
    let tensors = array(field(c, "tensors")?, "tensors")?
        .iter()
        .enumerate()
        .map(|(i, t)| tensor(t, &format!("tensors[{i}]")))
        .collect::<Result<Vec<_>, _>>()?;
    let scalars = array(field(c, "scalars")?, "scalars")?
        .iter()
        .enumerate()
        .map(|(i, s)| scalar(s, &format!("scalars[{i}]")))
        .collect::<Result<Vec<_>, _>>()?;
    let Some(family) = cat.find(name) else {
        // As the C ABI reports it: not found, and no rule.
        return Ok(obj(vec![
            ("status", status(Status::NotFound)),
            ("rule", Json::Null),
            ("param", Json::Null),
            ("symbol", Json::Null),
            ("other", Json::Null),
            (
                "message",
                Json::Str(format!("not_found: no approved family `{name}`")),
            ),
        ]));
    };
    let args: Vec<TensorArg<'_>> = tensors.iter().map(OwnedTensorArg::as_arg).collect();
    Ok(match validate_call(family, &args, &scalars) {
        Ok(()) => obj(vec![
            ("status", status(Status::Ok)),
            ("rule", Json::Str(CallRule::Ok.as_str().to_owned())),
            ("param", Json::Null),
            ("symbol", Json::Null),
            ("other", Json::Null),
            ("message", Json::Str(CallRule::Ok.as_str().to_owned())),
        ]),
        Err(e) => obj(vec![
            ("status", status(Status::InvalidArgument)),
            ("rule", Json::Str(e.rule.as_str().to_owned())),
            ("param", e.param.map_or(Json::Null, |p| Json::U64(p.into()))),
            (
                "symbol",
                e.symbol.map_or(Json::Null, |s| {
                    Json::Str(family.symbols[s as usize].name.to_owned())
                }),
            ),
            ("other", e.other.map_or(Json::Null, |p| Json::U64(p.into()))),
            ("message", Json::Str(e.explain(family, &args, &scalars))),
        ]),
    })
}

fn run_capability(cat: &Catalog, c: &Json) -> Result<Json, VectorError> {
    let result = cat.capability(
        string(field(c, "family")?, "family")?,
        spelled(
            field(c, "platform")?,
            |s: &str| cat.targets.platform(s),
            "platform",
        )?,
        spelled(
            field(c, "execution_mode")?,
            |s: &str| cat.targets.execution_mode(s),
            "execution_mode",
        )?,
        spelled(field(c, "contract")?, Contract::parse, "contract")?,
    );
    let (outcome, profile, message) = match result {
        Ok(s) => (Capability::Supported, Some(s.profile.name), s.to_string()),
        Err(refusal) => (refusal.outcome, None, refusal.to_string()),
    };
    Ok(obj(vec![
        ("status", status(capability_status(outcome))),
        ("outcome", Json::Str(outcome.as_str().to_owned())),
        ("profile", str_or_null(profile)),
        ("message", Json::Str(message)),
    ]))
}

/// `document_text` as UTF-8, or `document` serialised compactly.
fn document_bytes(c: &Json) -> Result<Vec<u8>, VectorError> {
    match (c.get("document"), c.get("document_text")) {
        (Some(doc), None) => Ok(doc.to_text().into_bytes()),
        (None, Some(text)) => Ok(string(text, "document_text")?.as_bytes().to_vec()),
        _ => Err("an admission case has exactly one of document, document_text".into()),
    }
}

fn run_admission(cat: &Catalog, c: &Json) -> Result<Json, VectorError> {
    let bytes = document_bytes(c)?;
    let sha = string(field(c, "sha256")?, "sha256")?;
    let (outcome, field, message) = match cat.admit(&bytes, sha) {
        Ok(a) => (Admission::Admitted, None, a.to_string()),
        Err(r) => (r.outcome, r.field, r.to_string()),
    };
    Ok(obj(vec![
        ("status", status(admission_status(outcome))),
        ("outcome", Json::Str(outcome.as_str().to_owned())),
        ("field", str_or_null(field)),
        ("message", Json::Str(message)),
    ]))
}

fn run_torch_schema(cat: &Catalog, c: &Json) -> Result<Json, VectorError> {
    let (s, schema) = match cat.find(string(field(c, "family")?, "family")?) {
        None => (Status::NotFound, None),
        // As `kfam_torch_schema`: only families that request a torch binding.
        Some(f) => match f.torch_schema.filter(|_| f.torch) {
            Some(schema) => (Status::Ok, Some(schema)),
            None => (Status::Unsupported, None),
        },
    };
    Ok(obj(vec![
        ("status", status(s)),
        ("schema", str_or_null(schema)),
    ]))
}

fn run(cat: &Catalog, case: &Case) -> Result<Json, VectorError> {
    match case.kind.as_str() {
        "call" => run_call(cat, &case.data),
        "capability" => run_capability(cat, &case.data),
        "admission" => run_admission(cat, &case.data),
        "torch_schema" => run_torch_schema(cat, &case.data),
        other => Err(format!("unknown kind `{other}`")),
    }
}

/// The expected outcome a case counts towards in the table: the call rule,
/// the capability or admission outcome (with the differing field), or the
/// torch_schema status.
fn outcome_key(case: &Case) -> String {
    let s = |k: &str| match case.expect.get(k) {
        Some(Json::Str(s)) => s.clone(),
        _ => "null".to_owned(),
    };
    match case.kind.as_str() {
        "call" => s("rule"),
        "capability" => s("outcome"),
        "admission" if s("outcome") == "not_approved" => format!("not_approved: {}", s("field")),
        "admission" => s("outcome"),
        _ => s("status"),
    }
}

// ------------------------------------------------------------- what the shipped tables make reachable

/// `no_receipt` needs a profile without a receipt. The shipped manifest has
/// a receipt for every profile, so no capability query can reach it there.
fn no_receipt_reachable() -> bool {
    FAMILIES
        .iter()
        .any(|f| (0..f.profiles.len()).any(|i| !f.receipts.iter().any(|r| r.profile as usize == i)))
}

/// A document whose params equal the approved ones can only alias `out` /
/// `inout` tensors, and must number the approved return count: aliases that
/// differ from the approved ones need a family with two writable tensors.
/// Every shipped family has exactly one, so `return_aliases` is unreachable.
fn return_aliases_reachable() -> bool {
    FAMILIES.iter().any(|f| {
        !f.returns.is_empty()
            && f.params
                .iter()
                .filter(|p| p.kind == ParamKind::Tensor && p.direction != Direction::In)
                .count()
                > 1
    })
}

/// Every case whose outcome over `cat` is not the expected one.
fn mismatches(cat: &Catalog, cases: &[Case]) -> Vec<String> {
    let mut failures = Vec::new();
    for case in cases {
        match run(cat, case) {
            Ok(actual) if actual.canonical() == case.expect.canonical() => {}
            Ok(actual) => failures.push(format!(
                "{}: {}: got {}, expected {}",
                case.file,
                case.name,
                actual.to_text(),
                case.expect.to_text()
            )),
            Err(e) => failures.push(format!("{}: {}: {e}", case.file, case.name)),
        }
    }
    failures
}

/// A second catalog (tests/catalogs/npuops: its own platform, backends,
/// runtime and status codes), embedded with `manifest!`.
mod npuops {
    kfam_runtime::manifest!("../tests/catalogs/npuops");
}

/// The subset of vectors written for the second catalog
/// (`tests/conformance/npuops/`), which the C and Python runners also run
/// over its library and package (`catalog/tests/two_catalogs.rs`,
/// `codegen/tests/python.rs`).
#[test]
fn second_catalog_vectors() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/conformance/npuops");
    let cases = match load_cases(&dir) {
        Ok(c) => c,
        Err(errors) => panic!("invalid vector files:\n  {}", errors.join("\n  ")),
    };
    let kinds: BTreeSet<&str> = cases.iter().map(|c| c.kind.as_str()).collect();
    assert_eq!(
        kinds,
        BTreeSet::from(["admission", "call", "capability", "torch_schema"])
    );
    let failures = mismatches(&npuops::CATALOG, &cases);
    assert!(
        failures.is_empty(),
        "{} of {} vectors of the second catalog failed:\n  {}",
        failures.len(),
        cases.len(),
        failures.join("\n  ")
    );
}

#[test]
fn conformance_vectors() {
    let dir = conformance_dir();
    let cases = match load_cases(&dir) {
        Ok(c) => c,
        Err(errors) => panic!("invalid vector files:\n  {}", errors.join("\n  ")),
    };
    assert!(
        cases.len() >= MIN_CASES,
        "{} holds {} vectors; at least {MIN_CASES} expected",
        dir.display(),
        cases.len()
    );

    let mut failures = mismatches(&CATALOG, &cases);

    // The table: vectors per file and per expected outcome.
    let mut per_file: BTreeMap<&str, usize> = BTreeMap::new();
    let mut per_rule: BTreeMap<(&str, String), usize> = BTreeMap::new();
    for case in &cases {
        *per_file.entry(&case.file).or_default() += 1;
        *per_rule
            .entry((case.kind.as_str(), outcome_key(case)))
            .or_default() += 1;
    }
    println!("conformance vectors: {} in {}", cases.len(), dir.display());
    println!("{:<32} {:>7}", "file", "vectors");
    for (file, n) in &per_file {
        println!("{file:<32} {n:>7}");
    }
    println!();
    println!("{:<14} {:<34} {:>7}", "kind", "expected outcome", "vectors");
    for ((kind, rule), n) in &per_rule {
        println!("{kind:<14} {rule:<34} {n:>7}");
    }

    // Every outcome the shipped tables can produce has a vector, so a new
    // rule, outcome or field without one fails here.
    let expected = |kind: &str, key: &str| -> BTreeSet<String> {
        cases
            .iter()
            .filter(|c| c.kind == kind)
            .filter_map(|c| match c.expect.get(key) {
                Some(Json::Str(s)) => Some(s.clone()),
                _ => None,
            })
            .collect()
    };
    let rules = expected("call", "rule");
    // `invalid_call` is no verdict: only the C ABI reports it, for a call it
    // cannot read (tests/c/abi_main.c checks every such path).
    for r in CallRule::ALL
        .iter()
        .filter(|r| **r != CallRule::InvalidCall)
    {
        if !rules.contains(r.as_str()) {
            failures.push(format!("no call vector expects rule `{r}`"));
        }
    }
    let outcomes = expected("capability", "outcome");
    for c in Capability::ALL {
        // `invalid_call` is no decision: only the C ABI reports it, for a
        // call it cannot read (tests/c/abi_main.c checks every such path).
        if *c == Capability::InvalidCall {
            continue;
        }
        // `no_receipt`: impossible while every profile has a receipt.
        if *c == Capability::NoReceipt && !no_receipt_reachable() {
            continue;
        }
        // `unqualified`: the shipped catalog has no placeholder receipt; the
        // second catalog's `scale_new` (a team's first day, `kfam new`'s
        // placeholder) has its vector, run in Rust, C and Python alike
        // (`second_catalog_vectors`).
        if *c == Capability::Unqualified {
            let second = load_cases(&conformance_dir().join("npuops")).unwrap_or_default();
            let expects = |case: &Case| {
                case.kind == "capability"
                    && matches!(case.expect.get("outcome"), Some(Json::Str(o)) if o == c.as_str())
            };
            if !second.iter().any(expects) {
                failures.push(format!(
                    "no capability vector of tests/conformance/npuops expects outcome `{c}`"
                ));
            }
            continue;
        }
        if !outcomes.contains(c.as_str()) {
            failures.push(format!("no capability vector expects outcome `{c}`"));
        }
    }
    let outcomes = expected("admission", "outcome");
    for a in Admission::ALL
        .iter()
        .filter(|a| **a != Admission::InvalidCall)
    {
        if !outcomes.contains(a.as_str()) {
            failures.push(format!("no admission vector expects outcome `{a}`"));
        }
    }
    let fields = expected("admission", "field");
    for f in ADMISSION_FIELDS {
        // `return_aliases`: impossible while no family has two writable tensors.
        if *f == "return_aliases" && !return_aliases_reachable() {
            continue;
        }
        if !fields.contains(*f) {
            failures.push(format!(
                "no admission vector expects not_approved field `{f}`"
            ));
        }
    }
    // Every status of abi.toml but `internal`, which only a defect produces
    // (a panic caught at the C boundary; see `ffi::tests`).
    let statuses: BTreeSet<String> = ["call", "capability", "admission", "torch_schema"]
        .into_iter()
        .flat_map(|kind| expected(kind, "status"))
        .collect();
    for s in Status::ALL {
        if *s != Status::Internal && !statuses.contains(s.as_str()) {
            failures.push(format!("no vector expects status `{s}`"));
        }
    }
    for s in ["ok", "unsupported", "not_found"] {
        if !expected("torch_schema", "status").contains(s) {
            failures.push(format!("no torch_schema vector expects status `{s}`"));
        }
    }

    assert!(
        failures.is_empty(),
        "{} of {} conformance vectors failed (or outcomes lack a vector):\n  {}",
        failures.len(),
        cases.len(),
        failures.join("\n  ")
    );
}
