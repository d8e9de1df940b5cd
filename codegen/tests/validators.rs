//! The generated JSON Schemas as outside validators see them: ajv (the most
//! used JSON Schema validator) in strict mode and check-jsonschema (PyPI)
//! accept every schema and validate the shipped documents with it. Each
//! tool runs behind one function, from the pinned test environment
//! (`kfam-testenv`, docs/testing.md).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;

use crate::support::root;
use serde_json::Value;

/// ajv's command line (ajv-cli), with ajv's default options plus every
/// strict check as an error (`--strict=true`; by default some only log).
fn ajv(args: &[&str]) -> Output {
    kfam_testenv::node_tool("ajv")
        .args(args)
        .args(["--spec=draft2020", "--strict=true"])
        .output()
        .expect("run ajv")
}

/// check-jsonschema (PyPI), run by the test environment's Python.
fn check_jsonschema(args: &[&str]) -> Output {
    kfam_testenv::python()
        .args(["-m", "check_jsonschema"])
        .args(args)
        .output()
        .expect("run check-jsonschema")
}

fn show(o: &Output) -> String {
    format!(
        "status {:?}\nstdout:\n{}\nstderr:\n{}",
        o.status.code(),
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn schemas() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = fs::read_dir(root().join("generated/schema"))
        .expect("generated/schema")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.to_string_lossy().ends_with(".schema.json"))
        .collect();
    v.sort();
    assert_eq!(v.len(), 4, "{v:?}");
    v
}

fn path(p: &Path) -> &str {
    p.to_str().expect("UTF-8 path")
}

/// `(schema, documents)`: every shipped document each schema describes, as
/// JSON files in `dir` (TOML converted as an editor's validator reads it).
fn documents(dir: &Path) -> Vec<(&'static str, Vec<PathBuf>)> {
    let manifest = root().join("manifest");
    let to_json = |from: &Path, name: &str| {
        let text = fs::read_to_string(from).expect("manifest file");
        let value: Value = toml::from_str(&text).expect("TOML");
        let out = dir.join(name);
        fs::write(&out, serde_json::to_string(&value).expect("JSON")).expect("write");
        out
    };
    let mut families = Vec::new();
    for e in fs::read_dir(manifest.join("families")).expect("families") {
        let p = e.expect("entry").path();
        let name = format!("{}.json", p.file_stem().expect("stem").to_string_lossy());
        families.push(to_json(&p, &name));
    }
    let mut examples: Vec<PathBuf> = fs::read_dir(root().join("generated/schema/examples"))
        .expect("examples")
        .map(|e| e.expect("entry").path())
        .collect();
    examples.sort();
    vec![
        ("family.schema.json", families),
        (
            "abi.schema.json",
            vec![to_json(&manifest.join("abi.toml"), "abi.json")],
        ),
        (
            "retired.schema.json",
            vec![to_json(&manifest.join("retired.toml"), "retired.json")],
        ),
        ("compiled_meta.schema.json", examples),
    ]
}

#[test]
fn ajv_strict_accepts_every_schema_and_the_shipped_documents() {
    for schema in schemas() {
        let out = ajv(&["compile", "-s", path(&schema)]);
        let text = show(&out);
        assert!(out.status.success(), "{}: {text}", schema.display());
        assert!(
            !text.contains("strict mode"),
            "{}: {text}",
            schema.display()
        );
    }
    // One process per schema, with all its documents (`-d` repeated): ajv
    // prints `<file> valid` for each.
    let dir = tempfile::tempdir().expect("temp dir");
    for (schema, docs) in documents(dir.path()) {
        let schema = root().join("generated/schema").join(schema);
        let mut args = vec!["validate", "-s", path(&schema)];
        for doc in &docs {
            args.extend(["-d", path(doc)]);
        }
        let out = ajv(&args);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{}: {}", schema.display(), show(&out));
        for doc in &docs {
            assert!(
                stdout.lines().any(|l| l == format!("{} valid", path(doc))),
                "{}: {}",
                doc.display(),
                show(&out)
            );
        }
    }
}

#[test]
fn check_jsonschema_accepts_every_schema_and_the_shipped_documents() {
    let schemas: Vec<PathBuf> = schemas();
    let mut args = vec!["--check-metaschema"];
    args.extend(schemas.iter().map(|p| path(p)));
    let out = check_jsonschema(&args);
    assert!(out.status.success(), "{}", show(&out));
    let dir = tempfile::tempdir().expect("temp dir");
    for (schema, docs) in documents(dir.path()) {
        let schema = root().join("generated/schema").join(schema);
        let mut args = vec!["--schemafile", path(&schema)];
        args.extend(docs.iter().map(|p| path(p)));
        let out = check_jsonschema(&args);
        assert!(out.status.success(), "{schema:?}: {}", show(&out));
    }
}

/// The tools are real judges: a document that breaks a schema is refused.
#[test]
fn both_refuse_a_document_that_breaks_the_schema() {
    let dir = tempfile::tempdir().expect("temp dir");
    let doc = dir.path().join("bad.json");
    fs::write(&doc, r#"{"name": "Bad Name", "revision": 0}"#).expect("write");
    let schema = root().join("generated/schema/family.schema.json");
    let out = ajv(&["validate", "-s", path(&schema), "-d", path(&doc)]);
    assert!(!out.status.success(), "{}", show(&out));
    let out = check_jsonschema(&["--schemafile", path(&schema), path(&doc)]);
    assert!(!out.status.success(), "{}", show(&out));
}
