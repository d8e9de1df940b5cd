//! The published JSON Schemas, checked the way their users meet them:
//! valid Draft 2020-12; every shipped manifest file validates against its
//! schema; structural mistakes (the diagnostics KF0003-KF0006) are rejected by
//! the schema as well as by `kfam check`; the example `compiled_meta.json`
//! documents validate and hand-written bad ones do not (and the Rust reader
//! agrees with the schema on every one).

use std::fs;
use std::path::{Path, PathBuf};

use crate::support::root;
use kfam_codegen::compiled_meta::{self, CompiledMeta};
use kfam_codegen::diag::Code;
use kfam_codegen::emit::schema::{
    abi_schema, compiled_meta_examples, compiled_meta_schema, family_schema, retired_schema,
    ABI_SCHEMA, COMPILED_META_SCHEMA, FAMILY_SCHEMA, RETIRED_SCHEMA,
};
use kfam_codegen::emit::{self, Origin};
use kfam_codegen::ir::Ir;
use serde_json::{json, Value};

fn read(p: &Path) -> String {
    fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn shipped_ir() -> Ir {
    let (ir, report) = kfam_codegen::check_dir(&root().join("manifest"));
    ir.unwrap_or_else(|| panic!("the shipped manifest has errors: {report:?}"))
}

fn validator(schema: &Value) -> jsonschema::Validator {
    jsonschema::draft202012::new(schema).expect("schema compiles")
}

/// TOML parsed straight into JSON, as an editor's schema support sees it.
fn toml_to_json(text: &str) -> Value {
    toml::from_str::<Value>(text).unwrap_or_else(|e| panic!("not TOML: {e}\n{text}"))
}

fn errors(v: &jsonschema::Validator, doc: &Value) -> Vec<String> {
    v.iter_errors(doc)
        .map(|e| format!("{} at {}", e, e.instance_path))
        .collect()
}

#[test]
fn schemas_are_valid_draft_2020_12() {
    for (name, schema) in [
        ("family", family_schema()),
        ("abi", abi_schema()),
        ("retired", retired_schema()),
        ("compiled_meta", compiled_meta_schema()),
    ] {
        assert_eq!(
            schema["$schema"], "https://json-schema.org/draft/2020-12/schema",
            "{name}"
        );
        if let Err(e) = jsonschema::draft202012::meta::validate(&schema) {
            panic!(
                "{name} schema is not valid Draft 2020-12: {e} at {}",
                e.instance_path
            );
        }
        validator(&schema);
    }
}

/// Editors show descriptions on hover: every property of every schema has one.
#[test]
fn every_property_is_described() {
    fn walk(v: &Value, at: &str, missing: &mut Vec<String>) {
        match v {
            Value::Object(m) => {
                if let Some(Value::Object(props)) = m.get("properties") {
                    for (k, p) in props {
                        // Conditional rules restate constraints of described properties.
                        let conditional =
                            at.contains("/if") || at.contains("/then") || at.contains("/else");
                        if !conditional && p.get("description").is_none() {
                            missing.push(format!("{at}/properties/{k}"));
                        }
                    }
                }
                for (k, x) in m {
                    walk(x, &format!("{at}/{k}"), missing);
                }
            }
            Value::Array(a) => a
                .iter()
                .enumerate()
                .for_each(|(i, x)| walk(x, &format!("{at}/{i}"), missing)),
            _ => {}
        }
    }
    for (name, schema) in [
        ("family", family_schema()),
        ("abi", abi_schema()),
        ("retired", retired_schema()),
        ("compiled_meta", compiled_meta_schema()),
    ] {
        let mut missing = Vec::new();
        walk(&schema, "#", &mut missing);
        assert!(
            missing.is_empty(),
            "{name} schema: properties without a description: {missing:#?}"
        );
        for (def, body) in schema["$defs"].as_object().unwrap() {
            let vocab = body.get("enum").is_some();
            if vocab {
                let one_of = body["oneOf"]
                    .as_array()
                    .expect("vocabularies list their members");
                assert!(
                    one_of.iter().all(|m| m.get("description").is_some()),
                    "{name}: {def}"
                );
            }
        }
    }
}

#[test]
fn committed_outputs_are_current() {
    // Only this emitter's files; the full `generate --check` test covers all.
    let files = emit::generate(&shipped_ir());
    let mine: Vec<_> = files
        .iter()
        .filter(|f| f.path.starts_with("schema/") || f.path.starts_with("docs/"))
        .collect();
    assert!(mine.len() >= 6);
    for f in mine {
        let on_disk = read(&root().join("generated").join(&f.path)).replace("\r\n", "\n");
        assert!(
            on_disk == f.contents,
            "generated/{} is stale; run `cargo run --bin kfam -- generate manifest --out generated`",
            f.path,
        );
    }
}

#[test]
fn schema_files_are_where_the_manifest_points() {
    let check = |toml_path: &Path, want: &str| {
        let text = read(toml_path);
        let first = text.lines().next().unwrap_or("");
        let rel = first
            .strip_prefix("#:schema ")
            .unwrap_or_else(|| panic!("{}: no `#:schema` line", toml_path.display()));
        let target = toml_path.parent().unwrap().join(rel);
        let target = target
            .canonicalize()
            .unwrap_or_else(|e| panic!("{}: {rel}: {e}", toml_path.display()));
        assert_eq!(
            target,
            root().join("generated").join(want).canonicalize().unwrap()
        );
    };
    check(&root().join("manifest/abi.toml"), ABI_SCHEMA);
    check(&root().join("manifest/retired.toml"), RETIRED_SCHEMA);
    for f in family_files(&root().join("manifest/families")) {
        check(&f, FAMILY_SCHEMA);
    }
}

fn family_files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    v.sort();
    v
}

#[test]
fn shipped_manifest_validates() {
    let abi = validator(&abi_schema());
    let doc = toml_to_json(&read(&root().join("manifest/abi.toml")));
    assert_eq!(
        errors(&abi, &doc),
        Vec::<String>::new(),
        "manifest/abi.toml"
    );
    let retired = validator(&retired_schema());
    let doc = toml_to_json(&read(&root().join("manifest/retired.toml")));
    assert_eq!(
        errors(&retired, &doc),
        Vec::<String>::new(),
        "manifest/retired.toml"
    );
    let family = validator(&family_schema());
    let files = family_files(&root().join("manifest/families"));
    assert!(!files.is_empty());
    for f in files {
        let doc = toml_to_json(&read(&f));
        assert_eq!(
            errors(&family, &doc),
            Vec::<String>::new(),
            "{}",
            f.display()
        );
    }
}

/// A family that `kfam check` accepts, to derive mistakes from.
const BASE: &str = r#"
name = "scaled_add"
revision = 1
summary = "A family used by the schema tests."
contract = "kernel"
returns = ["out", 2]

[operation.elementwise_binary]
op = "add"
lhs = "lhs"
rhs = "rhs"
out = "out"

[[params]]
name = "lhs"
dtype = "bf16"
shape = [-1, 64]

[[params]]
name = "rhs"
dtype = "bf16"
shape = [-1, 64]

[[params]]
name = "out"
direction = "out"
dtype = "bf16"
shape = [-1, 64]

[[params]]
name = "alpha"
kind = "scalar"
dtype = "fp32"

[[profiles]]
name = "a2a3_sim"
platform = "a2a3"
backend = "pto"
runtime = "tensormap_and_ringbuffer"
execution_mode = "sim"
bindings = [
  { param = "lhs", slot = 0, kind = "tensor_arg" },
  { param = "rhs", slot = 1, kind = "tensor_arg" },
  { param = "out", slot = 2, kind = "tensor_arg" },
  { param = "alpha", slot = 3, kind = "scalar_arg" },
]

[[receipts]]
profile = "a2a3_sim"
codec = "simpler.kernel.v1"
artifact = "a2a3/sim/scaled_add.so"
sha256 = "1111111111111111111111111111111111111111111111111111111111111111"
evidence = { date = "2026-11-02", hardware = "a2a3 simulator" }
"#;

/// Structural mistakes: (case, expected code, the family text).
fn structural_fixtures() -> Vec<(&'static str, Code, String)> {
    let edit = |from: &str, to: &str| {
        assert!(BASE.contains(from), "fixture edit `{from}` does not apply");
        BASE.replacen(from, to, 1)
    };
    vec![
        (
            "unknown top-level key",
            Code::UnknownKey,
            edit("revision = 1", "revision = 1\nrevison = 2"),
        ),
        (
            "misspelt param key",
            Code::UnknownKey,
            edit("dtype = \"fp32\"", "dtpye = \"fp32\""),
        ),
        (
            "unknown evidence key",
            Code::UnknownKey,
            edit(
                "hardware = \"a2a3 simulator\"",
                "hardware = \"x\", by = \"me\"",
            ),
        ),
        (
            "unknown operation key",
            Code::UnknownKey,
            edit("op = \"add\"", "op = \"add\"\nbroadcast = true"),
        ),
        (
            "missing summary",
            Code::MissingKey,
            edit("summary = \"A family used by the schema tests.\"\n", ""),
        ),
        (
            "missing dtype",
            Code::MissingKey,
            edit("kind = \"scalar\"\ndtype = \"fp32\"", "kind = \"scalar\""),
        ),
        (
            "missing operand",
            Code::MissingKey,
            edit("out = \"out\"\n", ""),
        ),
        (
            "missing binding slot",
            Code::MissingKey,
            edit(
                "{ param = \"lhs\", slot = 0, kind",
                "{ param = \"lhs\", kind",
            ),
        ),
        (
            "string revision",
            Code::WrongType,
            edit("revision = 1", "revision = \"1\""),
        ),
        (
            "negative revision",
            Code::WrongType,
            edit("revision = 1", "revision = -1"),
        ),
        (
            "bool shape extent",
            Code::WrongType,
            edit("shape = [-1, 64]", "shape = [-1, true]"),
        ),
        (
            "fractional extent",
            Code::WrongType,
            edit("shape = [-1, 64]", "shape = [-1, 6.5]"),
        ),
        (
            "slot above u32",
            Code::WrongType,
            edit("slot = 3,", "slot = 4294967296,"),
        ),
        (
            "bool return alias",
            Code::WrongType,
            edit("returns = [\"out\", 2]", "returns = [true]"),
        ),
        (
            "datetime evidence date",
            Code::WrongType,
            edit("date = \"2026-11-02\"", "date = 2026-11-02"),
        ),
        (
            "torch as string",
            Code::WrongType,
            edit(
                "contract = \"kernel\"",
                "contract = \"kernel\"\ntorch = \"yes\"",
            ),
        ),
        (
            "unknown dtype",
            Code::UnknownVariant,
            edit("dtype = \"fp32\"", "dtype = \"float32\""),
        ),
        (
            "unknown platform",
            Code::UnknownVariant,
            edit("platform = \"a2a3\"", "platform = \"a3\""),
        ),
        (
            "dual contract",
            Code::UnknownVariant,
            edit("contract = \"kernel\"", "contract = \"both\""),
        ),
        (
            "unknown binding kind",
            Code::UnknownVariant,
            edit(
                "slot = 3, kind = \"scalar_arg\"",
                "slot = 3, kind = \"register\"",
            ),
        ),
        (
            "unknown operation kind",
            Code::UnknownVariant,
            edit("[operation.elementwise_binary]", "[operation.conv2d]"),
        ),
        (
            "unknown binary op",
            Code::UnknownVariant,
            edit("op = \"add\"", "op = \"pow\""),
        ),
    ]
}

fn abi_text() -> (String, String) {
    (
        "manifest/abi.toml".to_owned(),
        read(&root().join("manifest/abi.toml")),
    )
}

fn check_codes(family_text: &str) -> Vec<Code> {
    let (_, report) = kfam_codegen::check_sources(
        Some(abi_text()),
        vec![("families/scaled_add.toml".into(), family_text.into())],
    );
    report
        .diagnostics
        .iter()
        .filter(|d| d.severity == kfam_codegen::diag::Severity::Error)
        .map(|d| d.code)
        .collect()
}

#[test]
fn base_fixture_is_valid_for_check_and_schema() {
    assert_eq!(check_codes(BASE), Vec::<Code>::new());
    assert_eq!(
        errors(&validator(&family_schema()), &toml_to_json(BASE)),
        Vec::<String>::new()
    );
}

#[test]
fn structural_mistakes_are_rejected_by_the_schema() {
    let schema = validator(&family_schema());
    for (case, code, text) in structural_fixtures() {
        assert_eq!(
            check_codes(&text),
            vec![code],
            "fixture `{case}` does not produce {code} alone"
        );
        assert!(
            !schema.is_valid(&toml_to_json(&text)),
            "the schema accepts `{case}` ({code})"
        );
    }
}

const STRUCTURAL: [Code; 4] = [
    Code::UnknownKey,
    Code::MissingKey,
    Code::WrongType,
    Code::UnknownVariant,
];

/// The diagnostics corpus (`tests/diagnostics/<category>/<case>.toml`, or
/// `<case>.abi.toml`, with the expected `<case>.stderr` beside it): every case
/// whose expected diagnostics are all structural is rejected by the schema
/// too. (Directory cases hold several files or file-system mistakes; none is
/// about the structure of one document.)
#[test]
fn structural_corpus_cases_are_rejected_by_the_schema() {
    let corpus = root().join("tests/diagnostics");
    if !corpus.is_dir() {
        eprintln!(
            "note: no diagnostics corpus at {}; only the inline fixtures ran",
            corpus.display()
        );
        return;
    }
    let family = validator(&family_schema());
    let abi = validator(&abi_schema());
    let mut checked = 0;
    let mut cases: Vec<PathBuf> = Vec::new();
    for category in fs::read_dir(&corpus).unwrap() {
        let dir = category.unwrap().path();
        if dir.is_dir() {
            cases.extend(family_files(&dir));
        }
    }
    cases.sort();
    for case in cases {
        // `<case>.toml` is a family file, `<case>.abi.toml` an `abi.toml`;
        // either way the expected output is `<case>.stderr`.
        let file_name = case.file_name().unwrap().to_string_lossy().into_owned();
        let abi_case = file_name.ends_with(".abi.toml");
        let stem = file_name.trim_end_matches(".toml").trim_end_matches(".abi");
        let stderr = case.with_file_name(format!("{stem}.stderr"));
        let Ok(expected) = fs::read_to_string(&stderr) else {
            continue;
        };
        let codes: Vec<Code> = expected
            .lines()
            .filter_map(|l| {
                l.strip_prefix("error[")
                    .and_then(|r| r.split_once(']'))
                    .and_then(|(c, _)| Code::parse(c))
            })
            .collect();
        if codes.is_empty() || !codes.iter().all(|c| STRUCTURAL.contains(c)) {
            continue;
        }
        let text = read(&case);
        let Ok(doc) = toml::from_str::<Value>(&text) else {
            continue;
        }; // a syntax case
        if has_integral_float(&doc) {
            // JSON Schema counts 1.0 as an integer; only `kfam check` can tell.
            eprintln!(
                "note: {} uses an integral float; the schema cannot reject it",
                case.display()
            );
            continue;
        }
        let is_abi = abi_case
            || stem == "abi"
            || expected
                .lines()
                .any(|l| l.trim_start().starts_with("-->") && l.contains("abi.toml"))
            || ["major", "limits", "status"]
                .iter()
                .any(|k| doc.get(k).is_some());
        let schema = if is_abi { &abi } else { &family };
        assert!(
            !schema.is_valid(&doc),
            "{}: expected {codes:?}, but the schema accepts it",
            case.display()
        );
        checked += 1;
    }
    eprintln!("{checked} structural corpus cases rejected by the schema");
}

fn has_integral_float(v: &Value) -> bool {
    match v {
        Value::Number(n) => n.is_f64() && n.as_f64().is_some_and(|f| f.fract() == 0.0),
        Value::Array(a) => a.iter().any(has_integral_float),
        Value::Object(m) => m.values().any(has_integral_float),
        _ => false,
    }
}

#[test]
fn schema_states_checker_rules() {
    // Mistakes `check` reports with semantic codes that the schema flags too,
    // so an editor shows them while typing.
    let schema = validator(&family_schema());
    let cases = [
        (
            "scalar with shape",
            Code::ScalarShape,
            "kind = \"scalar\"\ndtype = \"fp32\"",
            "kind = \"scalar\"\ndtype = \"fp32\"\nshape = [1]",
        ),
        (
            "scalar out",
            Code::ScalarDirection,
            "kind = \"scalar\"\ndtype = \"fp32\"",
            "kind = \"scalar\"\ndirection = \"out\"\ndtype = \"fp32\"",
        ),
        (
            "fp4 scalar",
            Code::ScalarDType,
            "kind = \"scalar\"\ndtype = \"fp32\"",
            "kind = \"scalar\"\ndtype = \"fp4\"",
        ),
        (
            "zero extent",
            Code::DimOutOfBounds,
            "shape = [-1, 64]",
            "shape = [0, 64]",
        ),
        (
            "bad name",
            Code::InvalidIdentifier,
            "name = \"lhs\"",
            "name = \"Lhs\"",
        ),
        (
            "bad digest",
            Code::BadDigest,
            "sha256 = \"1111",
            "sha256 = \"G111",
        ),
        (
            "climbing path",
            Code::BadArtifactPath,
            "artifact = \"a2a3/sim/scaled_add.so\"",
            "artifact = \"../scaled_add.so\"",
        ),
        ("bad date", Code::BadDate, "2026-11-02", "2026-13-02"),
        (
            "wrong backend",
            Code::PlatformBackend,
            "backend = \"pto\"",
            "backend = \"aie\"",
        ),
        (
            "revision zero",
            Code::OutOfRange,
            "revision = 1",
            "revision = 0",
        ),
    ];
    for (case, code, from, to) in cases {
        assert!(BASE.contains(from), "{case}");
        let text = BASE.replacen(from, to, 1);
        assert!(
            check_codes(&text).contains(&code),
            "{case}: check does not report {code}"
        );
        assert!(
            !schema.is_valid(&toml_to_json(&text)),
            "{case}: the schema accepts it"
        );
    }
}

#[test]
fn identifier_pattern_equals_the_checker() {
    let schema = family_schema();
    let name = jsonschema::draft202012::new(&schema["properties"]["name"]).unwrap();
    let alphabet = ['a', 'b', 'z', '0', '9', '_', 'A', '-'];
    // Every string over the alphabet up to length 4, plus length edges.
    let mut words = vec![String::new()];
    for _ in 0..4 {
        let next: Vec<String> = words
            .iter()
            .flat_map(|w| alphabet.iter().map(move |c| format!("{w}{c}")))
            .collect();
        words.extend(next);
    }
    words.sort();
    words.dedup();
    words.extend(["a".repeat(64), "a".repeat(65), "é".into()]);
    for w in words {
        let ok = kfam_codegen::names::identifier_problem(&w).is_none();
        assert_eq!(name.is_valid(&json!(w)), ok, "`{w}`");
    }
}

#[test]
fn artifact_path_pattern_accepts_what_the_checker_accepts() {
    let schema = family_schema();
    let path = jsonschema::draft202012::new(&schema["$defs"]["Receipt"]["properties"]["artifact"])
        .unwrap();
    let alphabet = ["a", ".", "/", "\\", ":", "x.so"];
    let mut words = vec![String::new()];
    for _ in 0..4 {
        let next: Vec<String> = words
            .iter()
            .flat_map(|w| alphabet.iter().map(move |c| format!("{w}{c}")))
            .collect();
        words.extend(next);
    }
    for w in words {
        let check_ok = kfam_codegen::check::artifact_path_problem(&w).is_none();
        let schema_ok = path.is_valid(&json!(w));
        if check_ok {
            assert!(schema_ok, "the schema rejects valid path `{w}`");
        } else if schema_ok {
            // Left to `check`: drive prefixes (`a:`).
            assert_eq!(w.as_bytes().get(1), Some(&b':'), "the schema accepts `{w}`");
        }
    }
}

// ---- compiled_meta.json ----

fn meta_validator() -> jsonschema::Validator {
    validator(&compiled_meta_schema())
}

#[test]
fn compiled_meta_examples_validate_and_match_the_ir() {
    let ir = shipped_ir();
    let v = meta_validator();
    let banner = Origin::default().banner();
    let examples = compiled_meta_examples(&ir, &banner);
    // One family per contract and operation kind, every receipt of it.
    let mut sampled: Vec<&str> = Vec::new();
    let mut shapes = Vec::new();
    for f in &ir.families {
        if !shapes.contains(&(f.contract, f.operation.kind())) {
            shapes.push((f.contract, f.operation.kind()));
            sampled.push(&f.name);
        }
    }
    assert!(sampled.len() < ir.families.len(), "{sampled:?}");
    assert_eq!(
        examples.len(),
        ir.families
            .iter()
            .filter(|f| sampled.contains(&f.name.as_str()))
            .map(|f| f.receipts.len())
            .sum::<usize>()
    );
    for (path, text) in &examples {
        let on_disk = read(&root().join("generated").join(path));
        assert_eq!(&on_disk, text, "{path} is stale");
        let doc: Value = serde_json::from_str(text).unwrap();
        assert_eq!(errors(&v, &doc), Vec::<String>::new(), "{path}");
        let parsed = CompiledMeta::parse(text).unwrap_or_else(|e| panic!("{path}: {e}"));
        let CompiledMeta::V3(mut meta) = parsed else {
            panic!("{path} is not schema 3")
        };
        assert_eq!(meta.comment.as_deref(), Some(banner.as_str()));
        meta.comment = None;
        let family = ir.families.iter().find(|f| f.name == meta.family).unwrap();
        let receipt = family
            .receipts
            .iter()
            .find(|r| r.sha256 == meta.artifact.sha256)
            .unwrap();
        assert_eq!(
            meta,
            compiled_meta::expected(&ir.abi, family, receipt),
            "{path}"
        );
        assert!(path.starts_with(&format!(
            "schema/examples/{}.{}",
            family.name, family.profiles[receipt.profile].name
        )));
    }
}

fn example_doc() -> Value {
    let ir = shipped_ir();
    let f = ir
        .families
        .iter()
        .find(|f| f.name == "matmul_acc_nz_bf16")
        .expect("shipped family");
    serde_json::to_value(compiled_meta::expected(&ir.abi, f, &f.receipts[0])).unwrap()
}

/// Hand-written bad documents: each is rejected by the schema and by the
/// Rust reader.
#[test]
fn bad_compiled_meta_is_rejected() {
    let v = meta_validator();
    let base = example_doc();
    assert!(v.is_valid(&base));
    type Edit = fn(&mut Value);
    let cases: Vec<(&str, Edit)> = vec![
        ("bool where an integer is expected", |d| {
            d["revision"] = json!(true)
        }),
        ("bool return count", |d| d["return_count"] = json!(false)),
        ("bool schema", |d| d["schema"] = json!(true)),
        ("string alias", |d| d["return_aliases"] = json!(["acc"])),
        ("negative alias", |d| d["return_aliases"] = json!([-1])),
        ("unknown key", |d| d["extra"] = json!(1)),
        ("unknown ParamInfo key", |d| {
            d["params"][0]["stride"] = json!([1])
        }),
        ("unknown artifact key", |d| d["artifact"]["size"] = json!(1)),
        ("schema 3 missing return_aliases", |d| {
            d.as_object_mut().unwrap().remove("return_aliases");
        }),
        ("schema 3 missing lowered_params", |d| {
            d.as_object_mut().unwrap().remove("lowered_params");
        }),
        ("schema 3 missing abi_revision", |d| {
            d.as_object_mut().unwrap().remove("abi_revision");
        }),
        ("short abi_revision", |d| {
            d["abi_revision"] = json!("6b6b88f")
        }),
        ("schema 3 missing capabilities", |d| {
            d.as_object_mut().unwrap().remove("capabilities");
        }),
        ("null aliases", |d| d["return_aliases"] = Value::Null),
        (
            "implicit dual mode",
            |d| d["capabilities"] = json!([{"contract": "kernel", "execution_mode": "sim"}, {"contract": "kernel", "execution_mode": "onboard"}]),
        ),
        ("capability differs from the request", |d| {
            d["capabilities"][0]["execution_mode"] = json!("onboard")
        }),
        ("capability contract differs", |d| {
            d["capabilities"][0]["contract"] = json!("program")
        }),
        ("no capability", |d| d["capabilities"] = json!([])),
        ("unknown schema", |d| d["schema"] = json!(4)),
        ("no schema", |d| {
            d.as_object_mut().unwrap().remove("schema");
        }),
        ("unknown dtype", |d| {
            d["params"][0]["dtype"] = json!("float32")
        }),
        ("zero extent", |d| d["params"][0]["shape"] = json!([0, 64])),
        ("scalar with extents", |d| {
            d["params"][3]["shape"] = json!([1])
        }),
        ("scalar out", |d| d["params"][3]["direction"] = json!("out")),
        ("short digest", |d| d["artifact"]["sha256"] = json!("abc")),
        ("absolute artifact path", |d| {
            d["artifact"]["path"] = json!("/lib/x.so")
        }),
        ("bad family name", |d| d["family"] = json!("Matmul")),
        ("revision 0", |d| d["revision"] = json!(0)),
        ("legacy schema with kernel fields", |d| {
            d["schema"] = json!(2)
        }),
    ];
    for (case, edit) in cases {
        let mut doc = base.clone();
        edit(&mut doc);
        assert!(!v.is_valid(&doc), "the schema accepts: {case}");
        // The reader checks types and fields; patterns and the ParamInfo
        // rules are the schema's (a loader exact-matches those values anyway).
        let structural = !matches!(
            case,
            "zero extent"
                | "scalar with extents"
                | "scalar out"
                | "short digest"
                | "absolute artifact path"
                | "bad family name"
                | "revision 0"
                | "short abi_revision"
        );
        if structural {
            assert!(
                CompiledMeta::parse(&doc.to_string()).is_err(),
                "the reader accepts: {case}"
            );
        }
    }
}

#[test]
fn legacy_program_metadata_validates() {
    let v = meta_validator();
    let base = example_doc();
    for schema in [1, 2] {
        let doc = json!({
            "schema": schema,
            "params": base["params"],
            "return_count": 2,
            "platform": "a2a3",
            "backend": "pto",
        });
        assert_eq!(errors(&v, &doc), Vec::<String>::new());
        let meta = CompiledMeta::parse(&doc.to_string()).unwrap();
        assert!(!meta.establishes_kernel_contract());
        // A legacy document carrying kernel fields is not legacy.
        let mut with_kernel = doc.clone();
        with_kernel["lowered_params"] = base["lowered_params"].clone();
        assert!(!v.is_valid(&with_kernel));
        assert!(CompiledMeta::parse(&with_kernel.to_string()).is_err());
        // And legacy documents still need every program field.
        let mut missing = doc.clone();
        missing.as_object_mut().unwrap().remove("backend");
        assert!(!v.is_valid(&missing));
        assert!(CompiledMeta::parse(&missing.to_string()).is_err());
    }
}

#[test]
fn schema_files_on_disk_match_the_functions() {
    for (path, schema) in [
        (FAMILY_SCHEMA, family_schema()),
        (ABI_SCHEMA, abi_schema()),
        (COMPILED_META_SCHEMA, compiled_meta_schema()),
    ] {
        let mut on_disk: Value =
            serde_json::from_str(&read(&root().join("generated").join(path))).unwrap();
        // The file carries the banner of the run that wrote it.
        let comment = on_disk.as_object_mut().unwrap().remove("$comment");
        assert_eq!(comment, Some(json!(Origin::default().banner())), "{path}");
        assert_eq!(on_disk, schema, "{path}");
    }
}

/// The number of example documents does not grow with the catalog: one
/// family per contract and operation kind, whatever the family count.
#[test]
fn example_documents_do_not_grow_with_the_catalog() {
    let count = |n: usize| {
        let dir = tempfile::tempdir().unwrap();
        kfam_codegen::synth::write_dir(dir.path(), n, 7).unwrap();
        let (ir, report) = kfam_codegen::check_dir(dir.path());
        let ir = ir.unwrap_or_else(|| panic!("{report:?}"));
        let families: std::collections::BTreeSet<String> = compiled_meta_examples(&ir, "")
            .into_iter()
            .map(|(path, _)| path.split('.').next().unwrap().to_owned())
            .collect();
        families.len()
    };
    let shapes = 2 * kfam_codegen::record::OperationKind::ALL.len();
    for n in [40, 400] {
        let sampled = count(n);
        assert!((2..=shapes).contains(&sampled), "{n} families: {sampled}");
    }
}

/// `kfam example` prints any receipt's document, sampled or not, and says
/// which choices exist when the selection is ambiguous.
#[test]
fn kfam_example_prints_any_receipts_document() {
    use std::process::Command;
    let ir = shipped_ir();
    let kfam = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_kfam"))
            .current_dir(root())
            .args(args)
            .output()
            .expect("kfam runs");
        (
            out.status.code().expect("exit code"),
            String::from_utf8(out.stdout).unwrap(),
            String::from_utf8(out.stderr).unwrap(),
        )
    };
    let sampled: Vec<String> = compiled_meta_examples(&ir, "")
        .into_iter()
        .map(|(p, _)| p)
        .collect();
    let mut unsampled = 0;
    for f in &ir.families {
        for (r, receipt) in f.receipts.iter().enumerate() {
            let stem = kfam_codegen::emit::schema::example_stem(f, r);
            let mut parts = stem.splitn(3, '.').skip(1);
            let mut args = vec!["example", &f.name, "--profile", parts.next().unwrap()];
            if let Some(n) = parts.next() {
                args.extend(["--receipt", n]);
            }
            let (code, stdout, stderr) = kfam(&args);
            assert_eq!(code, 0, "{args:?}: {stderr}");
            let CompiledMeta::V3(mut meta) = CompiledMeta::parse(&stdout).unwrap() else {
                panic!("{args:?}: not schema 3")
            };
            // Its `$comment` names the command that printed it.
            let command = format!("kfam {}", args.join(" "));
            assert_eq!(meta.comment, Some(Origin::Printed(command).banner()));
            meta.comment = None;
            assert_eq!(
                meta,
                compiled_meta::expected(&ir.abi, f, receipt),
                "{args:?}"
            );
            let path = format!("schema/examples/{stem}.compiled_meta.json");
            if sampled.contains(&path) {
                // The example file, but for the `$comment` (the file's
                // names the `kfam generate` run that wrote it).
                let file = read(&root().join("generated").join(&path));
                let comment = |text: &str| text.lines().nth(1).unwrap().to_owned();
                assert_eq!(stdout.replacen(&comment(&stdout), &comment(&file), 1), file);
            } else {
                unsampled += 1;
            }
        }
    }
    assert!(unsampled > 0);
    let (code, _, stderr) = kfam(&["example", "matmul_acc_nz_bf16"]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("`--profile a2a3_sim`") && stderr.contains("`--profile a2a3_onboard`"),
        "{stderr}"
    );
    let (code, _, stderr) = kfam(&["example", "matmul_acc_nz"]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("did you mean `matmul_acc_nz_bf16`?"),
        "{stderr}"
    );
}

/// `kfam resolve` prints the resolved manifest: the IR as serde writes it,
/// with the marker as `$comment`, one family per line.
#[test]
fn kfam_resolve_prints_the_ir() {
    let ir = shipped_ir();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_kfam"))
        .current_dir(root())
        .args(["resolve"])
        .output()
        .expect("kfam runs");
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text, kfam_codegen::emit::schema::families_json(&ir));
    let mut doc: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        doc["$comment"],
        json!("@generated by kfam: the output of `kfam resolve`; do not edit")
    );
    doc.as_object_mut().unwrap().remove("$comment");
    assert_eq!(doc, serde_json::to_value(&ir).unwrap());
    for f in &ir.families {
        let line = format!("{{\"name\":\"{}\",", f.name);
        assert_eq!(
            text.lines().filter(|l| l.starts_with(&line)).count(),
            1,
            "{}",
            f.name
        );
    }
}
