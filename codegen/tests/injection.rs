//! Injection safety over the corpus in `tests/injection/` (see its
//! README): hostile free text in every free-text field is either refused
//! with its diagnostic or escaped so that every output stays well-formed and
//! reads back exactly the text. `<case>.snap` shows each case in each output
//! language; `KFAM_BLESS=1` rewrites the snapshots.

use crate::support::literals;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use annotate_snippets::Renderer;
use kfam_codegen::emit::{self, c, GeneratedFile};
use kfam_codegen::ir::Ir;

const ABI: &str = include_str!("../../manifest/abi.toml");
const FIELDS: [&str; 4] = ["summary", "doc", "hardware", "note"];

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/injection")
}

struct Case {
    name: String,
    text: String,
    /// Expected outcome per field: `accepted` or a diagnostic code.
    expect: BTreeMap<&'static str, String>,
}

fn cases() -> Vec<Case> {
    let mut paths: Vec<PathBuf> = fs::read_dir(corpus_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    paths.sort();
    assert!(paths.len() >= 20, "the corpus is missing");
    paths
        .iter()
        .map(|p| {
            let doc: toml::Table = fs::read_to_string(p).unwrap().parse().unwrap();
            let get = |k: &str| doc.get(k).and_then(|v| v.as_str()).map(str::to_owned);
            let default = get("expect").expect("expect");
            let expect = FIELDS
                .iter()
                .map(|f| {
                    (
                        *f,
                        get(&format!("expect_{f}")).unwrap_or_else(|| default.clone()),
                    )
                })
                .collect();
            Case {
                name: p.file_stem().unwrap().to_string_lossy().into_owned(),
                text: get("text").expect("text"),
                expect,
            }
        })
        .collect()
}

/// A TOML basic string holding `s` exactly.
fn q(s: &str) -> String {
    let mut out = String::from("\"");
    for ch in s.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            ch if ch.is_control() => {
                let _ = write!(out, "\\u{:04X}", ch as u32);
            }
            ch => out.push(ch),
        }
    }
    out.push('"');
    out
}

const PLAIN: &str = "plain text";

/// A family whose free-text fields hold the given texts.
fn family(name: &str, summary: &str, doc: &str, hardware: &str, note: &str, sha: &str) -> String {
    format!(
        r#"name = "{name}"
revision = 1
summary = {}
contract = "kernel"
returns = ["out"]

[operation.elementwise_binary]
op = "add"
lhs = "lhs"
rhs = "rhs"
out = "out"

[[params]]
name = "lhs"
dtype = "fp32"
shape = [-1, 8]
doc = {}

[[params]]
name = "rhs"
dtype = "fp32"
shape = [-1, 8]

[[params]]
name = "out"
direction = "out"
dtype = "fp32"
shape = [-1, 8]

[[profiles]]
name = "sim"
platform = "a2a3"
backend = "pto"
runtime = "host_build_graph"
execution_mode = "sim"
bindings = [
  {{ param = "lhs", slot = 0, kind = "tensor_arg" }},
  {{ param = "rhs", slot = 1, kind = "tensor_arg" }},
  {{ param = "out", slot = 2, kind = "tensor_arg" }},
]

[[receipts]]
profile = "sim"
codec = "test.v1"
artifact = "sim/{name}.so"
sha256 = "{sha}"
evidence = {{ date = "2026-01-01", hardware = {}, note = {} }}
"#,
        q(summary),
        q(doc),
        q(hardware),
        q(note)
    )
}

fn with_field(case: &Case, field: &str, sha: &str) -> String {
    let t = |f: &str| {
        if f == field {
            case.text.as_str()
        } else {
            PLAIN
        }
    };
    family(
        &format!("inj_{}", case.name),
        t("summary"),
        t("doc"),
        t("hardware"),
        t("note"),
        sha,
    )
}

fn check(families: Vec<(String, String)>) -> (Option<Ir>, kfam_codegen::diag::Report) {
    kfam_codegen::check_sources(Some(("manifest/abi.toml".into(), ABI.into())), families)
}

fn path_of(case: &Case) -> String {
    format!("manifest/families/inj_{}.toml", case.name)
}

fn sha(i: usize) -> String {
    format!("{i:064x}")
}

/// Each output is well-formed and holds exactly `texts`.
fn assert_outputs(ir: &Ir, files: &[GeneratedFile], texts: &[&str], context: &str) {
    for f in files {
        literals::well_formed(&f.path, &f.contents).unwrap_or_else(|e| panic!("{context}: {e}"));
    }
    let get = |p: &str| &files.iter().find(|f| f.path == p).unwrap().contents;
    let rust = literals::rust_strings(get("rust/tables.rs"));
    let cstr = literals::c_strings(get(c::DATA_PATH));
    let py = literals::py_strings(get("python/kfam/_tables.py"));
    let js = literals::json_strings(&kfam_codegen::emit::schema::families_json(ir));
    for t in texts {
        assert!(rust.contains(*t), "{context}: no Rust literal holds {t:?}");
        assert!(
            cstr.contains(t.as_bytes()),
            "{context}: no C literal holds {t:?}"
        );
        assert!(py.contains(*t), "{context}: no Python literal holds {t:?}");
        assert!(
            js.contains(*t),
            "{context}: `kfam resolve` does not hold {t:?}"
        );
    }
}

/// Lines of `new` that `base` does not have, per output file.
fn changed_lines(base: &[GeneratedFile], new: &[GeneratedFile]) -> String {
    let mut out = String::new();
    for f in new {
        let Some(b) = base.iter().find(|b| b.path == f.path) else {
            continue;
        };
        let old: BTreeSet<&str> = b.contents.lines().collect();
        let lines: Vec<&str> = f.contents.lines().filter(|l| !old.contains(l)).collect();
        if lines.is_empty() {
            continue;
        }
        let _ = writeln!(out, "### {}\n", f.path);
        for l in lines {
            let _ = writeln!(out, "{}", format!("    {l}").trim_end());
        }
        out.push('\n');
    }
    out
}

/// `s` with every control, bidirectional and invisible character but the
/// newline written `\u{XXXX}`: the snapshots show the cases without
/// containing what they are about.
fn visible(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c != '\n' && kfam_codegen::check::is_forbidden_char(c, true) {
                format!("\\u{{{:04X}}}", c as u32)
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// Markdown structure (headings, and table rows and list items) of the
/// family docs.
fn md_shape(files: &[GeneratedFile]) -> (usize, usize) {
    let md = &files
        .iter()
        .find(|f| f.path == "docs/families.md")
        .unwrap()
        .contents;
    let headings = md.lines().filter(|l| l.starts_with('#')).count();
    let rows = md
        .lines()
        .filter(|l| l.starts_with('|') || l.starts_with("- "))
        .count();
    (headings, rows)
}

#[test]
fn every_case_in_every_field() {
    let bless = std::env::var_os("KFAM_BLESS").is_some_and(|v| v == "1");
    let mut stale = Vec::new();
    for (i, case) in cases().iter().enumerate() {
        let baseline = {
            let plain = Case {
                name: case.name.clone(),
                text: PLAIN.into(),
                expect: BTreeMap::new(),
            };
            let (ir, report) = check(vec![(
                path_of(case),
                with_field(&plain, "summary", &sha(i)),
            )]);
            let ir = ir.unwrap_or_else(|| panic!("baseline: {report:?}"));
            emit::generate(&ir)
        };
        let mut snap = format!(
            "# Injection case `{}`\n\nText: `{:?}`\n\n",
            case.name, case.text
        );
        for field in FIELDS {
            let want = &case.expect[field];
            let context = format!("{} in `{field}`", case.name);
            let (ir, report) = check(vec![(path_of(case), with_field(case, field, &sha(i)))]);
            let codes: Vec<&str> = report.diagnostics.iter().map(|d| d.code.as_str()).collect();
            if want == "accepted" {
                let ir = ir.unwrap_or_else(|| {
                    panic!(
                        "{context}: refused: {}",
                        report.render_human(&Renderer::plain())
                    )
                });
                let files = emit::generate(&ir);
                assert_outputs(&ir, &files, &[case.text.as_str()], &context);
                assert_eq!(
                    md_shape(&files),
                    md_shape(&baseline),
                    "{context}: Markdown structure changed"
                );
                if field == "summary" {
                    let _ = writeln!(snap, "## `summary`: accepted\n");
                    snap.push_str(&changed_lines(&baseline, &files));
                } else {
                    let _ = writeln!(snap, "## `{field}`: accepted\n");
                }
            } else {
                assert!(ir.is_none(), "{context}: accepted, expected {want}");
                assert_eq!(codes, [want.as_str()], "{context}: diagnostics");
                let rendered = report.render_human(&Renderer::plain());
                let _ = writeln!(snap, "## `{field}`: refused ({want})\n");
                for l in rendered.lines() {
                    let _ = writeln!(snap, "{}", format!("    {l}").trim_end());
                }
                snap.push('\n');
            }
        }
        let path = corpus_dir().join(format!("{}.snap", case.name));
        let snap = visible(snap.trim_end()) + "\n";
        if bless {
            fs::write(&path, &snap).unwrap();
        } else if fs::read_to_string(&path).ok().as_deref() != Some(snap.as_str()) {
            stale.push(path.display().to_string());
        }
    }
    assert!(
        stale.is_empty(),
        "snapshots differ (review, then rerun with KFAM_BLESS=1): {stale:?}"
    );
}

fn tool(name: &str) -> Command {
    match Command::new(name).arg("--version").output() {
        Ok(o) if o.status.success() => Command::new(name),
        _ => panic!(
            "`{name}` is required (gcc and g++ are assumed, see README.md); this test never skips"
        ),
    }
}

fn run_ok(mut cmd: Command) -> String {
    let shown = format!("{cmd:?}");
    let out = cmd.output().unwrap_or_else(|e| panic!("{shown}: {e}"));
    assert!(
        out.status.success(),
        "{shown} failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Every accepted case at once, each in every field that accepts it:
/// the header compiles strictly as C99 and C++17 and C reads back every
/// text; Python imports the package and reads back every text.
#[test]
fn accepted_cases_compile_and_read_back() {
    let cases = cases();
    let mut families = Vec::new();
    let mut texts: Vec<(String, [Option<String>; 4])> = Vec::new();
    for (i, case) in cases.iter().enumerate() {
        let ok = |f: &str| case.expect[f] == "accepted";
        if !FIELDS.iter().any(|f| ok(f)) {
            continue;
        }
        let t = |f: &str| if ok(f) { case.text.as_str() } else { PLAIN };
        let name = format!("inj_{}", case.name);
        families.push((
            path_of(case),
            family(
                &name,
                t("summary"),
                t("doc"),
                t("hardware"),
                t("note"),
                &sha(i),
            ),
        ));
        texts.push((name, FIELDS.map(|f| Some(t(f).to_owned()))));
    }
    let (ir, report) = check(families);
    let ir = ir.unwrap_or_else(|| panic!("{}", report.render_human(&Renderer::plain())));
    let dir = tempfile::tempdir().unwrap();
    kfam_codegen::write::write(dir.path(), &emit::generate(&ir)).unwrap();

    // C: print each family's four texts as hex.
    let reader = dir.path().join("reader.c");
    fs::write(
        &reader,
        r#"#include <stdio.h>
#define KFAM_IMPLEMENTATION
#include <kfam/kfam.h>
static void hex(const char *s) {
    for (; *s; ++s) printf("%02x", (unsigned)(unsigned char)*s);
    printf("\n");
}
int main(void) {
    unsigned i;
    for (i = 0; i < KFAM_FAMILY_COUNT; ++i) {
        const kfam_family *f = &kfam_families[i];
        printf("%s\n", f->name);
        hex(f->summary);
        hex(f->params[0].doc);
        hex(f->receipts[0].evidence_hardware);
        hex(f->receipts[0].evidence_note);
    }
    return 0;
}
"#,
    )
    .unwrap();
    let include = dir.path().join("include");
    let mut cxx = tool("g++");
    cxx.args([
        "-std=c++17",
        "-Wall",
        "-Wextra",
        "-Werror",
        "-pedantic",
        "-Wcomment",
        "-Wtrigraphs",
    ])
    .args(["-fsyntax-only", "-x", "c++", "-I"])
    .arg(&include)
    .arg(&reader);
    run_ok(cxx);
    let exe = dir.path().join("reader");
    let mut cc = tool("gcc");
    cc.args([
        "-std=c99",
        "-Wall",
        "-Wextra",
        "-Werror",
        "-pedantic",
        "-Wcomment",
        "-Wtrigraphs",
        "-o",
    ])
    .arg(&exe)
    .arg("-I")
    .arg(&include)
    .arg(&reader);
    run_ok(cc);
    let mut want = String::new();
    let mut sorted = texts.clone();
    sorted.sort();
    for (name, t) in &sorted {
        let _ = writeln!(want, "{name}");
        for s in t.iter().flatten() {
            let hex: String = s.bytes().map(|b| format!("{b:02x}")).collect();
            let _ = writeln!(want, "{hex}");
        }
    }
    assert_eq!(run_ok(Command::new(&exe)), want, "C reads back other text");

    // Python: the same four texts, as JSON.
    let mut py = kfam_testenv::python();
    py.env(
        "PYTHONPATH",
        kfam_testenv::search_path(&[&dir.path().join("python")]),
    )
        .args([
            "-c",
            "import json, kfam\nprint(json.dumps([[f.name, f.summary, f.params[0].doc, \
             f.receipts[0].evidence.hardware, f.receipts[0].evidence.note] for f in kfam.FAMILIES]))",
        ]);
    let got: serde_json::Value = serde_json::from_str(&run_ok(py)).unwrap();
    let want: Vec<serde_json::Value> = sorted
        .iter()
        .map(|(name, t)| {
            let mut row = vec![serde_json::json!(name)];
            row.extend(t.iter().map(|s| serde_json::json!(s)));
            serde_json::Value::Array(row)
        })
        .collect();
    assert_eq!(
        got,
        serde_json::Value::Array(want),
        "Python reads back other text"
    );
}
