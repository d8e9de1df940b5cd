//! The hand-written reference pages stay true to the code: the worked
//! identity example in `docs/identity.md` is what `canonical_identity`
//! produces, the complete example family in `docs/manifest.md` passes
//! `kfam check` and the schema, and every key, vocabulary value and
//! diagnostic code the pages must cover is covered.

use std::collections::BTreeSet;
use std::fs;

use crate::support::root;
use kfam_codegen::diag::Code;
use kfam_codegen::emit::schema::{abi_schema, compiled_meta_schema, family_schema};
use kfam_codegen::ir::sha256_hex;
use kfam_codegen::record::{OperationKind, VOCABULARIES};
use kfam_codegen::vocab::{
    BinaryOp, BindingKind, CacheLayout, Contract, DType, Direction, Layout, NormKind, ParamKind,
    ReduceOp, UnaryOp,
};
use serde_json::Value;

fn doc(name: &str) -> String {
    let p = root().join("docs").join(name);
    fs::read_to_string(&p)
        .unwrap_or_else(|e| panic!("{}: {e}", p.display()))
        .replace("\r\n", "\n")
}

/// The body of the first fenced code block after `marker` (an HTML comment).
fn block_after<'a>(text: &'a str, marker: &str) -> &'a str {
    let at = text
        .find(marker)
        .unwrap_or_else(|| panic!("marker `{marker}` not found"));
    let rest = &text[at + marker.len()..];
    let open = rest.find("```").expect("a fenced block after the marker");
    let body_start = open + rest[open..].find('\n').expect("fence line") + 1;
    let close = rest[body_start..].find("\n```").expect("closing fence");
    &rest[body_start..body_start + close]
}

#[test]
fn identity_worked_example_matches_the_code() {
    let text = doc("identity.md");
    let name = "add_bf16_1024";
    let canonical = block_after(&text, &format!("<!-- identity-example: {name} -->"));
    let digest = block_after(&text, &format!("<!-- identity-digest: {name} -->")).trim();
    assert_eq!(
        sha256_hex(canonical.as_bytes()),
        digest,
        "the documented digest is not the SHA-256 of the documented form"
    );

    let (ir, report) = kfam_codegen::check_dir(&root().join("manifest"));
    let ir = ir.unwrap_or_else(|| panic!("{report:?}"));
    let family = ir
        .families
        .iter()
        .find(|f| f.name == name)
        .expect("shipped family");
    assert_eq!(
        canonical,
        family.canonical_identity(),
        "docs/identity.md: canonical form differs from the code"
    );
    assert_eq!(
        digest, family.identity,
        "docs/identity.md: digest differs from the code"
    );

    // The indented copy is the same JSON.
    let pretty_at = text.find("indented for reading only").expect("pretty copy");
    let pretty = block_after(&text[pretty_at..], "");
    let a: Value = serde_json::from_str(pretty).unwrap();
    let b: Value = serde_json::from_str(canonical).unwrap();
    assert_eq!(a, b);
}

/// One worked example of `docs/manifest.md`, checked alone with the shipped
/// abi: clean (no diagnostic at all) and valid against the JSON Schema.
fn check_example(text: &str, name: &str) -> (kfam_codegen::ir::Family, Value) {
    let toml_text = block_after(text, &format!("<!-- example-family: {name} -->"));
    let abi = fs::read_to_string(root().join("manifest/abi.toml")).unwrap();
    let (ir, report) = kfam_codegen::check_sources(
        Some(("manifest/abi.toml".into(), abi)),
        vec![(
            format!("manifest/families/{name}.toml"),
            toml_text.to_owned(),
        )],
    );
    assert!(
        report.diagnostics.is_empty(),
        "{name}: {:#?}",
        report.diagnostics
    );
    let mut ir = ir.expect("valid");
    let json: Value = toml::from_str(toml_text).unwrap();
    let v = jsonschema::draft202012::new(&family_schema()).unwrap();
    let errors: Vec<String> = v.iter_errors(&json).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{name}: {errors:?}");
    (ir.families.remove(0), json)
}

#[test]
fn manifest_example_family_is_valid() {
    let text = doc("manifest.md");
    let (f, json) = check_example(&text, "scaled_matmul_example");
    assert_eq!(f.returns, vec![2, 2]);
    assert_eq!(f.params[1].lowered_shape, vec![1, 8, 4, 16, 16]);

    // Every key of a family file appears in the complete example or in
    // the worked example of an operation kind; each of those is a clean
    // family of its kind.
    let mut used = BTreeSet::new();
    collect_keys(&json, &mut used);
    let mut kinds = BTreeSet::from([f.operation.kind()]);
    let marker = "<!-- example-family: ";
    for (at, _) in text.match_indices(marker) {
        let rest = &text[at + marker.len()..];
        let name = &rest[..rest.find(" -->").expect("marker end")];
        let (g, json) = check_example(&text, name);
        collect_keys(&json, &mut used);
        kinds.insert(g.operation.kind());
    }
    // `lhs` and `rhs` belong to the elementwise binary kind, shown in
    // "A complete family" below the example.
    used.extend(["elementwise_binary", "lhs", "rhs"].map(String::from));
    let mut all = BTreeSet::new();
    schema_keys(&family_schema(), &mut all);
    let missing: Vec<_> = all.difference(&used).collect();
    assert!(missing.is_empty(), "keys in no example: {missing:?}");
    let absent: Vec<_> = OperationKind::ALL
        .iter()
        .filter(|k| **k != OperationKind::ElementwiseBinary && !kinds.contains(k))
        .collect();
    assert!(
        absent.is_empty(),
        "operation kinds without a worked example: {absent:?}"
    );
}

fn collect_keys(v: &Value, out: &mut BTreeSet<String>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                out.insert(k.clone());
                collect_keys(x, out);
            }
        }
        Value::Array(a) => a.iter().for_each(|x| collect_keys(x, out)),
        _ => {}
    }
}

/// Every property name declared anywhere in a schema.
fn schema_keys(v: &Value, out: &mut BTreeSet<String>) {
    match v {
        Value::Object(m) => {
            if let Some(Value::Object(props)) = m.get("properties") {
                out.extend(props.keys().cloned());
            }
            m.values().for_each(|x| schema_keys(x, out));
        }
        Value::Array(a) => a.iter().for_each(|x| schema_keys(x, out)),
        _ => {}
    }
}

#[test]
fn manifest_reference_documents_every_key() {
    let text = doc("manifest.md");
    let mut keys = BTreeSet::new();
    schema_keys(&family_schema(), &mut keys);
    schema_keys(&abi_schema(), &mut keys);
    for k in keys {
        assert!(
            text.contains(&format!("| `{k}` |")),
            "docs/manifest.md has no table row for key `{k}`"
        );
    }
}

#[test]
fn manifest_reference_documents_every_vocabulary_value() {
    let text = doc("manifest.md");
    let mut rows: Vec<(&str, &str, i32)> = Vec::new();
    macro_rules! add {
        ($($t:ident),*) => { $( for v in $t::ALL { rows.push(($t::NAME, v.as_str(), v.code())); } )* };
    }
    add!(
        DType,
        Direction,
        ParamKind,
        Layout,
        Contract,
        BindingKind,
        OperationKind,
        BinaryOp,
        UnaryOp,
        ReduceOp,
        NormKind,
        CacheLayout
    );
    // The declared vocabularies: kfam's defaults.
    let defaults = kfam_codegen::ir::Targets::default();
    for v in VOCABULARIES.iter().filter(|v| v.declared) {
        for m in defaults.members(v).unwrap_or_default() {
            rows.push((v.name, m.spelling, m.code));
        }
    }
    for (vocab, s, code) in rows {
        assert!(
            text.contains(&format!("### `{vocab}`")),
            "docs/manifest.md has no section for {vocab}"
        );
        assert!(
            text.contains(&format!("| `{s}` | {code} |")),
            "docs/manifest.md has no row `{s}` (code {code}) of {vocab}"
        );
    }
}

#[test]
fn manifest_reference_names_real_codes_for_every_checker_rule() {
    let text = doc("manifest.md");
    // Every code mentioned exists.
    for (i, _) in text.match_indices("KF") {
        let code = &text[i..(i + 6).min(text.len())];
        if code.len() == 6 && code[2..].bytes().all(|b| b.is_ascii_digit()) {
            assert!(
                Code::parse(code).is_some(),
                "docs/manifest.md mentions unknown code {code}"
            );
        }
    }
    // Every code of the manifest rule categories is mentioned (codes of
    // other parts, e.g. the review gate, are documented with those parts).
    let categories = [
        "syntax",
        "unknown_key",
        "type",
        "naming",
        "shape",
        "alias",
        "layout",
        "operation",
        "profile",
        "receipt",
        "limits",
        "torch",
        "text",
    ];
    for c in Code::ALL
        .iter()
        .filter(|c| categories.contains(&c.category()))
    {
        assert!(
            text.contains(c.as_str()),
            "docs/manifest.md does not mention {c} ({})",
            c.title()
        );
    }
}

#[test]
fn compiled_meta_reference_documents_every_field() {
    let text = doc("compiled_meta.md");
    let mut keys = BTreeSet::new();
    schema_keys(&compiled_meta_schema(), &mut keys);
    for k in keys {
        assert!(
            text.contains(&format!("| `{k}` |")),
            "docs/compiled_meta.md has no table row for field `{k}`"
        );
    }
}

/// Each operation kind's operand table in docs/manifest.md is what its
/// declaration renders (`kfam_codegen::emit::docs::operand_table`), under a
/// `<!-- operands: <kind> -->` marker: the docs cannot drift from the
/// constraints the checker enforces. `KFAM_BLESS=1` rewrites the tables.
#[test]
fn operand_tables_follow_the_declarations() {
    use kfam_codegen::record::OperationKind;
    let path = root().join("docs/manifest.md");
    let mut text = doc("manifest.md");
    let mut stale = Vec::new();
    for &kind in OperationKind::ALL {
        if kind == OperationKind::Custom {
            continue;
        }
        let marker = format!("<!-- operands: {kind} -->\n");
        let Some(at) = text.find(&marker) else {
            stale.push(format!("{kind}: no `{}` marker", marker.trim()));
            continue;
        };
        let start = at + marker.len();
        let end = text[start..]
            .find("\n\n")
            .map_or(text.len(), |e| start + e + 1);
        let want = kfam_codegen::emit::docs::operand_table(kind);
        if text[start..end] != want {
            stale.push(format!("{kind}:\n{want}"));
            text.replace_range(start..end, &want);
        }
    }
    if std::env::var_os("KFAM_BLESS").is_some_and(|v| v == "1") {
        std::fs::write(&path, &text).unwrap();
        return;
    }
    assert!(
        stale.is_empty(),
        "docs/manifest.md's operand tables differ from the declarations (KFAM_BLESS=1 rewrites them):\n{}",
        stale.join("\n")
    );
}
