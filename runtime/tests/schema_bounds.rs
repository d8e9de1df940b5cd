//! Every bound a published schema states (`maxLength`, `minLength`,
//! `minimum`, `maximum`, `minItems`, `maxItems`, `pattern`) is enforced by
//! the loaders of that document: a shipped document is pushed one step past
//! each bound, the schema refuses it (so the step really breaks the bound),
//! and so must every loader:
//!
//! - `compiled_meta.schema.json`: admission in Rust and in Python, which
//!   must also agree on every document at the bound;
//! - the manifest schemas (`family`, `abi`, `retired`): `kfam check`.

use std::fs;

use crate::support::root;
use serde_json::{json, Value};

fn read_json(rel: &str) -> Value {
    let text = fs::read_to_string(root().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"));
    serde_json::from_str(&text).expect("JSON")
}

/// One step of the path to a value inside a document.
#[derive(Clone, Debug)]
enum Step {
    Key(String),
    Index(usize),
}

/// A document pushed past one bound (or onto it).
struct Probe {
    what: String,
    doc: Value,
    /// `true`: one step past the bound; `false`: exactly on it.
    breaks: bool,
}

fn at_mut<'a>(doc: &'a mut Value, path: &[Step]) -> &'a mut Value {
    path.iter().fold(doc, |v, s| match s {
        Step::Key(k) => &mut v[k.as_str()],
        Step::Index(i) => &mut v[*i],
    })
}

fn resolve<'a>(root: &'a Value, mut s: &'a Value) -> &'a Value {
    while let Some(r) = s.get("$ref").and_then(Value::as_str) {
        let name = r.strip_prefix("#/$defs/").expect("local reference");
        s = &root["$defs"][name];
    }
    s
}

/// Walk `schema` along `value` (its location `path` in `doc`), adding a
/// probe for every bound of every subschema that applies.
fn probes(root: &Value, schema: &Value, doc: &Value, path: &mut Vec<Step>, out: &mut Vec<Probe>) {
    let s = resolve(root, schema);
    let value = path.iter().fold(doc, |v, st| match st {
        Step::Key(k) => &v[k.as_str()],
        Step::Index(i) => &v[*i],
    });
    let name = path
        .iter()
        .map(|s| match s {
            Step::Key(k) => format!(".{k}"),
            Step::Index(i) => format!("[{i}]"),
        })
        .collect::<String>();
    let mut add = |what: &str, new: Value, breaks: bool| {
        let mut d = doc.clone();
        *at_mut(&mut d, path) = new;
        out.push(Probe {
            what: format!("{name} {what}"),
            doc: d,
            breaks,
        });
    };
    let n = |k: &str| s.get(k).and_then(Value::as_u64).map(|n| n as usize);
    if value.is_string() {
        if let Some(max) = n("maxLength") {
            add(
                &format!("maxLength {max} + 1"),
                json!("a".repeat(max + 1)),
                true,
            );
            add(&format!("maxLength {max}"), json!("a".repeat(max)), false);
        }
        if let Some(min) = n("minLength").filter(|&m| m > 0) {
            add(
                &format!("minLength {min} - 1"),
                json!("a".repeat(min - 1)),
                true,
            );
        }
        if let Some(p) = s.get("pattern").and_then(Value::as_str) {
            let re = jsonschema::draft202012::new(&json!({"pattern": p})).expect("pattern");
            let bad = ["", "A", "a b", "../x", "!"]
                .into_iter()
                .find(|c| !re.is_valid(&json!(c)))
                .expect("a string the pattern refuses");
            add(&format!("pattern {p}"), json!(bad), true);
        }
    }
    if let Some(i) = value.as_i64() {
        if let Some(max) = s.get("maximum").and_then(Value::as_i64) {
            add(
                &format!("maximum {max} + 1"),
                json!(i128::from(max) + 1),
                true,
            );
        }
        if let Some(min) = s.get("minimum").and_then(Value::as_i64) {
            if min > i64::MIN {
                add(&format!("minimum {min} - 1"), json!(min - 1), true);
            }
        }
        let _ = i;
    }
    if let Some(items) = value.as_array() {
        if let (Some(max), Some(first)) = (n("maxItems"), items.first()) {
            add(
                &format!("maxItems {max} + 1"),
                Value::Array(vec![first.clone(); max + 1]),
                true,
            );
        }
        if let Some(min) = n("minItems").filter(|&m| m > 0) {
            add(
                &format!("minItems {min} - 1"),
                Value::Array(items[..min - 1].to_vec()),
                true,
            );
        }
        if let Some(item) = s.get("items") {
            for i in 0..items.len().min(2) {
                path.push(Step::Index(i));
                probes(root, item, doc, path, out);
                path.pop();
            }
        }
    }
    // A choice (schema 3 or legacy metadata): the alternatives that name
    // every key of the value.
    for key in ["anyOf", "oneOf", "then", "else"] {
        let alts = match s.get(key) {
            Some(Value::Array(a)) => a.iter().collect(),
            Some(one @ Value::Object(_)) => vec![one],
            _ => Vec::new(),
        };
        for alt in alts {
            let alt = resolve(root, alt);
            let fits = match (
                alt.get("properties").and_then(Value::as_object),
                value.as_object(),
            ) {
                (Some(props), Some(obj)) => obj.keys().all(|k| props.contains_key(k)),
                _ => false,
            };
            if fits {
                probes(root, alt, doc, path, out);
            }
        }
    }
    if let (Some(props), Some(obj)) = (
        s.get("properties").and_then(Value::as_object),
        value.as_object(),
    ) {
        for (k, ps) in props {
            if obj.contains_key(k) {
                path.push(Step::Key(k.clone()));
                probes(root, ps, doc, path, out);
                path.pop();
            }
        }
    }
}

/// The outcome of Python's `kfam.admit` for each document (`admitted` or
/// the refusal's spelling), in one interpreter.
fn python_outcomes(docs: &[Value], sha256: &str) -> Vec<String> {
    const SCRIPT: &str = r#"
import json, sys
import kfam
for line in sys.stdin:
    doc, sha = json.loads(line)
    try:
        kfam.admit(doc.encode("utf-8"), sha)
        print("admitted")
    except kfam.AdmissionError as e:
        print(e.outcome.spelling)
"#;
    let mut input = String::new();
    for d in docs {
        input.push_str(&json!([d.to_string(), sha256]).to_string());
        input.push('\n');
    }
    kfam_testenv::python_lines(SCRIPT, &[], &root().join("generated/python"), &input)
}

fn rust_outcome(doc: &Value, sha256: &str) -> String {
    match kfam_catalog::CATALOG.admit(doc.to_string().as_bytes(), sha256) {
        Ok(_) => "admitted".to_owned(),
        Err(r) => r.outcome.as_str().to_owned(),
    }
}

#[test]
fn compiled_meta_bounds_are_enforced_by_both_admission_loaders() {
    let schema = read_json("generated/schema/compiled_meta.schema.json");
    let validator = jsonschema::draft202012::new(&schema).expect("schema");
    let example = "generated/schema/examples/add_bf16_1024.xdna2_onboard.compiled_meta.json";
    let doc = read_json(example);
    let sha256 = doc["artifact"]["sha256"]
        .as_str()
        .expect("sha256")
        .to_owned();
    assert_eq!(rust_outcome(&doc, &sha256), "admitted");

    let mut all = Vec::new();
    probes(&schema, &schema, &doc, &mut Vec::new(), &mut all);
    let breaking = all.iter().filter(|p| p.breaks).count();
    assert!(breaking >= 20, "only {breaking} bounds found");
    let docs: Vec<Value> = all.iter().map(|p| p.doc.clone()).collect();
    let python = python_outcomes(&docs, &sha256);
    assert_eq!(python.len(), all.len());
    for (p, py) in all.iter().zip(&python) {
        let rust = rust_outcome(&p.doc, &sha256);
        assert_eq!(&rust, py, "{}: Rust and Python disagree", p.what);
        if p.breaks {
            assert!(
                !validator.is_valid(&p.doc),
                "{}: the schema accepts it",
                p.what
            );
            assert_ne!(rust, "admitted", "{}: admitted past the bound", p.what);
        }
    }
    // On the bound, free text is still admitted.
    let comment = all
        .iter()
        .zip(&python)
        .find(|(p, _)| p.what == ".$comment maxLength 1024")
        .expect("the $comment bound");
    assert_eq!(comment.1, "admitted");
}

/// A JSON document as the TOML text `kfam check` reads.
fn to_toml(v: &Value) -> String {
    toml::to_string(v).expect("a TOML document")
}

fn check_codes(abi: &str, family: (&str, String), retired: Option<String>) -> Vec<String> {
    let dir = tempfile::tempdir().expect("temp dir");
    let m = dir.path();
    fs::create_dir(m.join("families")).expect("families/");
    fs::write(m.join("abi.toml"), abi).expect("abi");
    fs::write(
        m.join("families").join(format!("{}.toml", family.0)),
        family.1,
    )
    .expect("family");
    if let Some(r) = retired {
        fs::write(m.join("retired.toml"), r).expect("retired");
        fs::copy(
            root().join("manifest/approved.lock"),
            m.join("approved.lock"),
        )
        .expect("lock");
    }
    let (_, report) = kfam_codegen::check_dir(m);
    report
        .diagnostics
        .iter()
        .filter(|d| d.is_error())
        .map(|d| d.code.as_str().to_owned())
        .collect()
}

#[test]
fn manifest_bounds_are_enforced_by_kfam_check() {
    let toml_json = |rel: &str| -> Value {
        toml::from_str(&fs::read_to_string(root().join(rel)).expect("manifest file")).expect("TOML")
    };
    let abi_text = fs::read_to_string(root().join("manifest/abi.toml")).expect("abi");
    let family_rel = "manifest/families/matmul_acc_nz_bf16.toml";
    let family_name = "matmul_acc_nz_bf16";
    let family_text = fs::read_to_string(root().join(family_rel)).expect("family");
    let retired_text = fs::read_to_string(root().join("manifest/retired.toml")).expect("retired");
    assert!(check_codes(&abi_text, (family_name, family_text.clone()), None).is_empty());

    let mut total = 0;
    for (schema, rel) in [
        ("family", family_rel),
        ("abi", "manifest/abi.toml"),
        ("retired", "manifest/retired.toml"),
    ] {
        let schema = read_json(&format!("generated/schema/{schema}.schema.json"));
        let validator = jsonschema::draft202012::new(&schema).expect("schema");
        let doc = toml_json(rel);
        let mut all = Vec::new();
        probes(&schema, &schema, &doc, &mut Vec::new(), &mut all);
        for p in all.iter().filter(|p| p.breaks) {
            if validator.is_valid(&p.doc) {
                // A bound inside a cross-field rule that this document does
                // not meet; nothing to probe.
                continue;
            }
            let text = to_toml(&p.doc);
            let codes = match rel {
                "manifest/abi.toml" => check_codes(&text, (family_name, family_text.clone()), None),
                "manifest/retired.toml" => {
                    check_codes(&abi_text, (family_name, family_text.clone()), Some(text))
                }
                _ => check_codes(&abi_text, (family_name, text), None),
            };
            assert!(
                !codes.is_empty(),
                "{rel}{}: `kfam check` accepts it",
                p.what
            );
            total += 1;
        }
        let _ = &retired_text;
    }
    assert!(total >= 30, "only {total} bounds probed");
}
