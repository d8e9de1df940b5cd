//! `--message-format github` and `sarif` for `kfam check` and `kfam diff`:
//! golden outputs in `tests/ci/` (refresh with `SNAPSHOTS=overwrite cargo
//! test -p kfam-codegen --test integration ci_formats::`, then review the diff), and every
//! SARIF log validated against the SARIF 2.1.0 JSON Schema
//! (`tests/ci/sarif/`, see its README).

use std::path::Path;
use std::process::Command;

use crate::support::root;
use serde_json::Value;

/// A manifest with one mistake of each shape: a plain error, an error with
/// a fix, a duplicate with a related location, a serde error with a fix.
const CASE: &str = "tests/ci/manifest";
/// A diff with breaking and compatible changes.
const DIFF_CASE: &str = "tests/review/bump-with-new-receipt";

/// `kfam ARGS` in `cwd`: exit code and stdout.
fn kfam(cwd: &Path, args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_kfam"))
        .current_dir(cwd)
        .args(args)
        .output()
        .expect("kfam runs");
    (
        out.status.code().expect("exit code"),
        String::from_utf8(out.stdout).expect("utf-8 stdout"),
    )
}

/// Compared byte for byte: snapbox's path normalisation would turn the
/// `\n` escapes of JSON strings into `/n`.
fn golden(actual: &str, rel: &str) {
    use snapbox::IntoData as _;
    snapbox::assert_data_eq!(
        actual.to_owned().into_data().raw(),
        snapbox::Data::read_from(&root().join("tests/ci").join(rel), None).raw()
    );
}

/// Parse a SARIF log and validate it against the SARIF 2.1.0 schema.
fn valid_sarif(text: &str) -> Value {
    let schema_path = root().join("tests/ci/sarif/sarif-2.1.0.json");
    let schema: Value =
        serde_json::from_str(&std::fs::read_to_string(&schema_path).expect("the SARIF schema"))
            .expect("the schema is JSON");
    let validator = jsonschema::validator_for(&schema).expect("the SARIF schema compiles");
    let log: Value = serde_json::from_str(text).expect("stdout is one JSON document");
    let errors: Vec<String> = validator
        .iter_errors(&log)
        .map(|e| format!("{} at {}", e, e.instance_path))
        .collect();
    assert!(
        errors.is_empty(),
        "not valid SARIF 2.1.0: {errors:#?}\n{text}"
    );
    log
}

#[test]
fn check_github_annotations() {
    let (code, out) = kfam(&root(), &["check", CASE, "--message-format", "github"]);
    assert_eq!(code, 1);
    golden(&out, "check.github.txt");
}

#[test]
fn check_sarif() {
    let (code, out) = kfam(&root(), &["check", CASE, "--message-format", "sarif"]);
    assert_eq!(code, 1);
    golden(&out, "check.sarif.json");
    let log = valid_sarif(&out);
    let results = log["runs"][0]["results"].as_array().expect("results");
    let by_rule = |id: &str| {
        results
            .iter()
            .find(|r| r["ruleId"] == id)
            .unwrap_or_else(|| panic!("no {id} result"))
    };
    // The duplicate points at the first declaration; fixes are edits.
    let related = &by_rule("KF0103")["relatedLocations"][0]["physicalLocation"];
    assert_eq!(
        related["artifactLocation"]["uri"],
        "tests/ci/manifest/families/add_bf16_1024.toml"
    );
    let fix = &by_rule("KF0003")["fixes"][0]["artifactChanges"][0]["replacements"][0];
    assert_eq!(fix["insertedContent"]["text"], "dtype");
    assert!(by_rule("KF0702")["fixes"][0].is_object());
    // Every rule carries its explanation.
    let rules = log["runs"][0]["tool"]["driver"]["rules"]
        .as_array()
        .expect("rules");
    let kf0103 = &rules[by_rule("KF0103")["ruleIndex"].as_u64().expect("index") as usize];
    assert_eq!(kf0103["id"], "KF0103");
    assert!(kf0103["fullDescription"]["text"]
        .as_str()
        .is_some_and(|t| t.contains("Family names are unique")));
}

#[test]
fn clean_manifest_sarif_is_a_log_without_results() {
    let (code, out) = kfam(&root(), &["check", "manifest", "--message-format", "sarif"]);
    assert_eq!(code, 0, "{out}");
    let log = valid_sarif(&out);
    assert_eq!(log["runs"][0]["results"], serde_json::json!([]));
    let (code, out) = kfam(
        &root(),
        &["check", "manifest", "--message-format", "github"],
    );
    assert_eq!(code, 0);
    assert!(!out.contains("::"), "{out}");
}

#[test]
fn diff_github_annotations() {
    let (code, out) = kfam(
        &root().join(DIFF_CASE),
        &["diff", "old", "new", "--message-format", "github"],
    );
    assert_eq!(code, 1);
    golden(&out, "diff.github.txt");
}

#[test]
fn diff_sarif() {
    let (code, out) = kfam(
        &root().join(DIFF_CASE),
        &["diff", "old", "new", "--message-format", "sarif"],
    );
    assert_eq!(code, 1);
    golden(&out, "diff.sarif.json");
    valid_sarif(&out);
}

#[test]
fn diff_of_a_manifest_with_errors_is_one_sarif_log() {
    let (code, out) = kfam(
        &root(),
        &["diff", "manifest", CASE, "--message-format", "sarif"],
    );
    assert_eq!(code, 2);
    let log = valid_sarif(&out);
    assert_eq!(log["runs"].as_array().map(Vec::len), Some(2));
    assert_eq!(log["runs"][1]["results"].as_array().map(Vec::len), Some(4));
}
