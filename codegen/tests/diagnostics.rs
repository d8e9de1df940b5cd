//! The diagnostics corpus: `tests/diagnostics/<category>/<case>`, one mistake
//! per case, with the expected `kfam check` rendering beside it in
//! `<case>.stderr`. `SNAPSHOTS=overwrite cargo test -p kfam-codegen --test
//! integration diagnostics::` refreshes the expected files; review the diff.
//!
//! Case forms (see `tests/diagnostics/README.md`):
//! - `<case>.toml`: one family file, checked with the shipped `manifest/abi.toml`;
//! - `<case>.abi.toml`: an `abi.toml`, checked with one valid shipped family;
//! - `<case>/`: `families/*.toml` and an optional `abi.toml`. With `abi.toml`
//!   the directory is checked as a manifest directory (`kfam check <case>`);
//!   without, its families are checked with the shipped `manifest/abi.toml`.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::root;
use annotate_snippets::Renderer;
use kfam_codegen::diag::{Code, Location, Report, Severity};

/// The valid family an `.abi.toml` case is checked together with.
const ABI_CASE_FAMILY: &str = "manifest/families/add_bf16_1024.toml";
/// The case the binary test runs `kfam check` on (a complete manifest directory).
const BINARY_CASE: &str = "tests/diagnostics/naming/duplicate_family";
const MIN_CASES: usize = 60;

fn read(rel: &str) -> String {
    fs::read_to_string(root().join(rel)).unwrap_or_else(|e| panic!("read {rel}: {e}"))
}

#[derive(Debug)]
enum Form {
    Family,
    Abi,
    Dir,
}

#[derive(Debug)]
struct Case {
    /// Workspace-relative path of the case file or directory, `/`-separated.
    rel: String,
    category: String,
    form: Form,
    /// Workspace-relative path of the expected rendering.
    stderr: String,
}

/// Every case of the corpus, sorted; panics on stray files so that a
/// misnamed case can never be silently skipped.
fn corpus() -> Vec<Case> {
    let root = root().join("tests/diagnostics");
    let categories: BTreeSet<&str> = Code::ALL.iter().map(|c| c.category()).collect();
    let mut cases = Vec::new();
    let mut stderr_files = BTreeSet::new();
    for dir in sorted_entries(&root) {
        let category = file_name(&dir);
        if !dir.is_dir() {
            assert!(
                category == "README.md",
                "unexpected file {} in the corpus root",
                dir.display()
            );
            continue;
        }
        assert!(
            categories.contains(category.as_str()),
            "`{category}` is not the category of any code"
        );
        for entry in sorted_entries(&dir) {
            let name = file_name(&entry);
            let rel = format!("tests/diagnostics/{category}/{name}");
            let (stem, form) = if entry.is_dir() {
                (name.as_str(), Form::Dir)
            } else if let Some(stem) = name.strip_suffix(".abi.toml") {
                (stem, Form::Abi)
            } else if let Some(stem) = name.strip_suffix(".toml") {
                (stem, Form::Family)
            } else if name.ends_with(".stderr") {
                stderr_files.insert(rel);
                continue;
            } else {
                panic!("unexpected file {rel}: cases are `<case>.toml`, `<case>.abi.toml` or `<case>/`");
            };
            let stderr = format!("tests/diagnostics/{category}/{stem}.stderr");
            cases.push(Case {
                rel,
                category: category.clone(),
                form,
                stderr,
            });
        }
    }
    let expected: BTreeSet<String> = cases.iter().map(|c| c.stderr.clone()).collect();
    assert_eq!(expected.len(), cases.len(), "two cases share a stem");
    let orphans: Vec<_> = stderr_files.difference(&expected).collect();
    assert!(
        orphans.is_empty(),
        "`.stderr` files without a case: {orphans:?}"
    );
    cases
}

fn sorted_entries(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("read {}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .collect();
    v.sort();
    v
}

fn file_name(p: &Path) -> String {
    p.file_name()
        .expect("file name")
        .to_string_lossy()
        .into_owned()
}

/// Load and check one case, with workspace-relative display paths.
fn run(case: &Case) -> Report {
    let (ir, report) = run_with_ir(case);
    // A manifest with errors never lowers to IR (so generation cannot run).
    assert_eq!(
        ir.is_some(),
        !report.has_errors(),
        "{}: IR present despite errors, or missing without",
        case.rel
    );
    report
}

fn run_with_ir(case: &Case) -> (Option<kfam_codegen::ir::Ir>, Report) {
    let abi = || Some(("manifest/abi.toml".to_owned(), read("manifest/abi.toml")));
    match case.form {
        Form::Family => {
            kfam_codegen::check_sources(abi(), vec![(case.rel.clone(), read(&case.rel))])
        }
        Form::Abi => {
            let family = (ABI_CASE_FAMILY.to_owned(), read(ABI_CASE_FAMILY));
            kfam_codegen::check_sources(Some((case.rel.clone(), read(&case.rel))), vec![family])
        }
        Form::Dir => {
            let dir = root().join(&case.rel);
            if dir.join("abi.toml").exists() {
                let (ir, report) = kfam_codegen::check_dir(&dir);
                (ir, relative(report))
            } else {
                let families = sorted_entries(&dir.join("families"))
                    .iter()
                    .map(|p| {
                        let rel = format!("{}/families/{}", case.rel, file_name(p));
                        let text = read(&rel);
                        (rel, text)
                    })
                    .collect();
                kfam_codegen::check_sources(abi(), families)
            }
        }
    }
}

/// Rewrite the absolute paths `check_dir` reports (in locations and in text
/// that quotes a path) into workspace-relative ones, as `kfam check` prints
/// them when run from the workspace root.
fn relative(report: Report) -> Report {
    let root = format!("{}/", root().to_string_lossy().replace('\\', "/"));
    let strip = |p: &str| p.replace(root.as_str(), "");
    let mut out = Report::default();
    for (id, file) in report.sources.files() {
        let new = out.sources.add(strip(&file.path), file.text.clone());
        assert_eq!(new, id);
    }
    out.diagnostics = report.diagnostics;
    for d in &mut out.diagnostics {
        if let Location::Path(p) = &mut d.location {
            *p = strip(p);
        }
        d.message = strip(&d.message);
        d.label = d.label.as_deref().map(strip);
        d.help = d.help.as_deref().map(strip);
        d.notes = d.notes.iter().map(|n| strip(n)).collect();
    }
    out.sort();
    out
}

fn render(report: &Report) -> String {
    report.render_human(&Renderer::plain())
}

/// The error that decides a case's category: the first error, or the first
/// diagnostic when there are only warnings.
fn first_code(report: &Report) -> Code {
    report
        .diagnostics
        .iter()
        .find(|d| d.is_error())
        .or(report.diagnostics.first())
        .expect("a diagnostic")
        .code
}

#[test]
fn corpus_matches_expected_output() {
    let cases = corpus();
    let mut failures = Vec::new();
    let mut produced = BTreeSet::new();
    for case in &cases {
        let report = run(case);
        assert!(
            !report.diagnostics.is_empty(),
            "{}: no diagnostic",
            case.rel
        );
        let first = first_code(&report);
        assert_eq!(
            first.category(),
            case.category,
            "{}: the first error is {first}, of category `{}`",
            case.rel,
            first.category()
        );
        assert_sorted(case, &report);
        produced.extend(report.diagnostics.iter().map(|d| d.code));

        let actual = render(&report);
        let path = root().join(&case.stderr);
        let result = std::panic::catch_unwind(|| {
            snapbox::assert_data_eq!(actual, snapbox::Data::read_from(&path, None).raw());
        });
        if result.is_err() {
            failures.push(case.rel.clone());
        }
    }
    assert!(
        failures.is_empty(),
        "rendering differs from the expected `.stderr` for: {failures:#?}"
    );

    let missing: Vec<&str> = Code::ALL
        .iter()
        .filter(|c| !produced.contains(*c))
        .map(|c| c.as_str())
        .collect();
    assert!(
        missing.is_empty(),
        "codes without a corpus case: {missing:?}"
    );
    assert!(
        cases.len() >= MIN_CASES,
        "the corpus has {} cases, fewer than {MIN_CASES}",
        cases.len()
    );
}

/// Diagnostics come sorted by file, then position.
fn assert_sorted(case: &Case, report: &Report) {
    let keys: Vec<(String, usize)> = report
        .diagnostics
        .iter()
        .map(|d| match &d.location {
            Location::Span { file, span } => (report.sources.get(*file).path.clone(), span.start),
            Location::Path(p) => (p.clone(), 0),
        })
        .collect();
    assert!(
        keys.windows(2).all(|w| w[0] <= w[1]),
        "{}: diagnostics not sorted: {keys:?}",
        case.rel
    );
}

/// The one case with several mistakes reports every one of them.
#[test]
fn every_mistake_is_reported() {
    let case = corpus()
        .into_iter()
        .find(|c| c.rel.ends_with("/several_mistakes.toml"))
        .expect("the multi-mistake case");
    let report = run(&case);
    let codes: BTreeSet<Code> = report.diagnostics.iter().map(|d| d.code).collect();
    assert!(
        codes.len() >= 5,
        "{}: expected five distinct codes, got {codes:?}",
        case.rel
    );
}

fn kfam(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_kfam"))
        .args(args)
        .current_dir(root())
        .env_remove("NO_COLOR")
        .output()
        .expect("run kfam")
}

#[test]
fn binary_check_on_a_corpus_case() {
    let out = kfam(&["check", BINARY_CASE]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let stderr = String::from_utf8(out.stderr).expect("UTF-8 stderr");
    // Exactly the corpus rendering, then the summary line.
    let expected = read(&format!("{BINARY_CASE}.stderr"));
    let rest = stderr
        .strip_prefix(expected.as_str())
        .unwrap_or_else(|| panic!("stderr:\n{stderr}"));
    assert!(
        rest.starts_with("error: the manifest has "),
        "summary line: {rest:?}"
    );
    assert!(out.stdout.is_empty());
}

#[test]
fn binary_check_on_the_shipped_manifest() {
    let out = kfam(&["check", "manifest"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).expect("UTF-8 stdout");
    for family in [
        "add_bf16_1024",
        "add_bf16_rows",
        "matmul_acc_nz_bf16",
        "matmul_bf16_128x64x128",
        "mul_fp4_dequant",
        "packed_attention_prefill_bf16",
        "paged_attention_decode_bf16",
        "paged_attention_decode_combined_hnd_bf16",
        "paged_attention_decode_combined_nhd_bf16",
        "paged_attention_decode_hnd_bf16",
        "paged_attention_decode_x_packed_bf16",
        "rms_norm_bf16_4096",
        "rope_neox_bf16",
        "silu_bf16",
        "swiglu_fused_bf16",
    ] {
        let line = stdout
            .lines()
            .find(|l| l.starts_with(&format!("{family} r")))
            .unwrap_or_else(|| panic!("{family} missing:\n{stdout}"));
        // Only the custom family's line says its operation went unchecked.
        assert_eq!(
            line.ends_with("operation UNCHECKED (custom: signature only)"),
            family == "swiglu_fused_bf16",
            "{line}"
        );
    }
    assert!(stdout.contains("checked 17 families: ok"), "{stdout}");
}

#[test]
fn binary_json_messages() {
    let out = kfam(&["check", BINARY_CASE, "--message-format", "json"]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let stderr = String::from_utf8(out.stderr).expect("UTF-8 stderr");
    let lines: Vec<&str> = stderr.lines().collect();
    assert!(!lines.is_empty());
    for line in lines {
        let v: serde_json::Value =
            serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"));
        let obj = v.as_object().expect("one JSON object per line");
        for key in [
            "code", "severity", "message", "file", "line", "column", "help",
        ] {
            assert!(obj.contains_key(key), "no `{key}` in {line}");
        }
        assert!(Code::parse(obj["code"].as_str().expect("code is a string")).is_some());
        assert!(matches!(
            obj["severity"].as_str(),
            Some("error" | "warning")
        ));
        assert!(obj["file"].as_str().expect("file").starts_with(BINARY_CASE));
        assert!(
            obj["line"].as_u64().expect("line") >= 1
                && obj["column"].as_u64().expect("column") >= 1
        );
    }
}

/// Regression: a family file that fails to parse used to leave the checker
/// with zero families and no error of its own, so `kfam check` exited 0.
#[test]
fn binary_fails_on_a_family_that_does_not_parse() {
    let dir = tempfile::tempdir().expect("temp dir");
    fs::create_dir(dir.path().join("families")).expect("families/");
    fs::copy(
        root().join("manifest/abi.toml"),
        dir.path().join("abi.toml"),
    )
    .expect("copy abi");
    fs::copy(
        root().join("tests/diagnostics/syntax/bare_dtype.toml"),
        dir.path().join("families/bare_dtype.toml"),
    )
    .expect("copy case");
    let out = kfam(&["check", dir.path().to_str().expect("UTF-8 temp path")]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("error[KF0002]"),
        "{out:?}"
    );
    assert!(
        !String::from_utf8_lossy(&out.stdout).contains(": ok"),
        "{out:?}"
    );
}

#[test]
fn binary_missing_directory_is_a_usage_error() {
    let out = kfam(&["check", "tests/diagnostics/no/such/manifest"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("KF0001"));
}

#[test]
fn binary_explains_every_code() {
    for code in Code::ALL {
        let out = kfam(&["explain", code.as_str()]);
        assert_eq!(out.status.code(), Some(0), "{code}: {out:?}");
        let stdout = String::from_utf8(out.stdout).expect("UTF-8 stdout");
        assert!(
            stdout.starts_with(&format!("{}: {}", code.as_str(), code.title())),
            "{stdout}"
        );
        assert!(stdout.contains(code.explanation()), "{stdout}");
    }
    let out = kfam(&["explain", "KF9999"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
}

/// `kfam explain` covers every rule of `kfam diff` as it covers the
/// diagnostic codes: `kfam explain KD073` prints the rule, its class and why.
#[test]
fn binary_explains_every_diff_rule() {
    use kfam_codegen::diff::Rule;
    for rule in Rule::ALL {
        let out = kfam(&["explain", rule.id()]);
        assert_eq!(out.status.code(), Some(0), "{}: {out:?}", rule.id());
        let stdout = String::from_utf8(out.stdout).expect("UTF-8 stdout");
        assert!(
            stdout.starts_with(&format!(
                "{} {} ({}): {}",
                rule.id(),
                rule.name(),
                rule.class(),
                rule.doc()
            )),
            "{stdout}"
        );
        let why = rule.explanation();
        assert!(
            why.len() > 80 && stdout.contains(why),
            "{}: {stdout}",
            rule.id()
        );
    }
    let out = kfam(&["explain", "kd073"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("status-changed (breaking)"));
    let out = kfam(&["explain", "KD999"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
}

#[test]
fn severities_are_errors_except_the_three_warnings() {
    // KF0607, KF0209 and KF1207 are the only warnings; the corpus shows
    // each alone.
    for case in corpus() {
        for d in run(&case).diagnostics {
            let expected = if matches!(
                d.code,
                Code::ProfileWithoutReceipt | Code::SymbolUsedOnce | Code::PlatformsNotDeclared
            ) {
                Severity::Warning
            } else {
                Severity::Error
            };
            assert_eq!(d.severity, expected, "{}: {}", case.rel, d.code);
        }
    }
}

/// Every error says how to fix it (or where the rule is explained).
#[test]
fn every_error_has_a_help_line() {
    for case in corpus() {
        for d in run(&case).diagnostics.iter().filter(|d| d.is_error()) {
            assert!(
                d.help.is_some(),
                "{}: {} `{}` has no help",
                case.rel,
                d.code,
                d.message
            );
        }
    }
}

/// A file with several structural mistakes reports each of them, then
/// checks what parsed (rustc's recovery), without cascades.
#[test]
fn structural_mistakes_are_all_reported_and_the_rest_is_checked() {
    let find = |suffix: &str| {
        corpus()
            .into_iter()
            .find(|c| c.rel.ends_with(suffix))
            .unwrap_or_else(|| panic!("case {suffix}"))
    };
    let codes = |suffix: &str| -> Vec<Code> {
        run(&find(suffix))
            .diagnostics
            .iter()
            .map(|d| d.code)
            .collect()
    };
    // Two unknown keys and a misspelled one, then a rule of `check`.
    assert_eq!(
        codes("unknown_key/two_unknown_keys_and_bad_alias.toml"),
        [
            Code::UnknownKey,
            Code::AliasUnknownParam,
            Code::UnknownKey,
            Code::UnknownKey
        ]
    );
    // An empty file lacks every required key.
    assert_eq!(codes("type/empty_family.toml"), [Code::MissingKey; 5]);
    // Six mistyped or misspelled values, each once, and the codec rule.
    assert_eq!(
        codes("type/mistyped_and_misspelled.toml"),
        [
            Code::WrongType,
            Code::UnknownVariant,
            Code::WrongType,
            Code::UnknownVariant,
            Code::WrongType,
            Code::BadCodec
        ]
    );
}

/// KF1207's quick fix declares exactly the platforms the catalog had: the
/// fixed `abi.toml` checks without a diagnostic, into the same targets and
/// the same catalog digest.
#[test]
fn kf1207_fix_declares_the_platforms_it_had() {
    let rel = "tests/diagnostics/catalog/platforms_not_declared.abi.toml";
    let family = || vec![(ABI_CASE_FAMILY.to_owned(), read(ABI_CASE_FAMILY))];
    let (before, report) = kfam_codegen::check_sources(Some((rel.to_owned(), read(rel))), family());
    let warning = report
        .diagnostics
        .iter()
        .find(|d| d.code == Code::PlatformsNotDeclared)
        .expect("the case warns");
    let [fix] = &warning.fixes[..] else {
        panic!("one fix: {:?}", warning.fixes)
    };
    let mut fixed = read(rel);
    fixed.replace_range(fix.span.clone(), &fix.replacement);
    let (after, report) = kfam_codegen::check_sources(Some((rel.to_owned(), fixed)), family());
    assert!(report.diagnostics.is_empty(), "{:?}", report.diagnostics);
    let (before, after) = (before.unwrap(), after.unwrap());
    assert_eq!(before.targets, after.targets);
    assert_eq!(
        kfam_codegen::ir::catalog_digest(&before),
        kfam_codegen::ir::catalog_digest(&after)
    );
}
