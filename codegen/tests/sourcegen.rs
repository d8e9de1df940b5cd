//! The committed copies of generator-rendered sources (rust-analyzer's
//! "sourcegen" tests): `python/kfam_runtime/_records.py` and `_vocab.py` are
//! rendered by `emit::python` from kfam's vocabularies and record
//! definitions, the same for every catalog, and also committed where the
//! Python runtime lives, so ruff and mypy check them there
//! (`python_sources.rs`). This test fails when a copy differs from what the
//! generator renders; `KFAM_BLESS=1 cargo test -p kfam-codegen --test
//! sourcegen` rewrites it.
//!
//! The hand-written stubs of the per-catalog data modules
//! (`python/kfam_runtime/_abi.pyi`, `_tables.pyi`) are checked here too: they
//! declare exactly the names, with the annotations, that the generated
//! modules define.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use kfam_codegen::emit::{python, Origin};
use kfam_codegen::ir::Ir;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn bless() -> bool {
    std::env::var_os("KFAM_BLESS").is_some_and(|v| v == "1")
}

#[test]
fn committed_python_sources_are_current() {
    let mut stale = Vec::new();
    for (path, want) in python::sourcegen() {
        let file = repo().join(&path);
        let have = std::fs::read_to_string(&file).unwrap_or_default();
        if have == want {
            continue;
        }
        if bless() {
            std::fs::write(&file, &want).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
            eprintln!("rewrote {path}");
        } else {
            let line = have
                .lines()
                .zip(want.lines())
                .position(|(a, b)| a != b)
                .unwrap_or_else(|| have.lines().count().min(want.lines().count()));
            stale.push(format!("{path} (first difference at line {})", line + 1));
        }
    }
    assert!(
        stale.is_empty(),
        "stale committed sources: {}\nrun `KFAM_BLESS=1 cargo test -p kfam-codegen --test sourcegen` and commit the result",
        stale.join(", ")
    );
}

fn shipped_ir() -> Ir {
    let (ir, report) = kfam_codegen::check_dir(&repo().join("manifest"));
    ir.unwrap_or_else(|| {
        panic!(
            "the shipped manifest has errors:\n{}",
            report.render_human(&annotate_snippets::Renderer::plain())
        )
    })
}

/// `NAME: Final[...]` of every top-level assignment (`NAME: T = value`
/// in a module, `NAME: T` in a stub), and `Class.MEMBER` of every enum
/// member (`MEMBER = value`, `MEMBER = ...` in a stub).
fn declarations(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut class = None;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("class ") {
            class = rest.split('(').next().map(str::to_owned);
        } else if !line.starts_with(' ') && !line.is_empty() {
            class = None;
        }
        if line.starts_with('#') || line.starts_with('@') {
            continue;
        }
        match (&class, line.strip_prefix("    ")) {
            (Some(c), Some(member)) => {
                if let Some((name, _)) = member.split_once(" = ") {
                    if !name.contains(' ') && name.bytes().all(|b| b != b'(') {
                        out.insert(format!("{c}.{name}"));
                    }
                }
            }
            (None, _) if !line.starts_with(' ') => {
                if let Some((name, ty)) = line.split_once(": ") {
                    let ty = ty.split(" = ").next().unwrap_or(ty);
                    if !name.contains(' ') {
                        out.insert(format!("{name}: {ty}"));
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// The stubs that let mypy check `python/kfam_runtime/` in place declare what the
/// generated data modules define (a dict's type up to its first `{`).
#[test]
fn stubs_declare_the_data_modules() {
    let files = python::emit(&shipped_ir(), &Origin::default().banner());
    for module in ["_abi", "_tables"] {
        let generated = &files
            .iter()
            .find(|f| f.path == format!("python/kfam/{module}.py"))
            .unwrap()
            .contents;
        let stub_path = repo().join(format!("python/kfam_runtime/{module}.pyi"));
        let stub = std::fs::read_to_string(&stub_path)
            .unwrap_or_else(|e| panic!("{}: {e}", stub_path.display()));
        // The members of the vocabularies a catalog declares are its data:
        // the stub declares the classes alone.
        let declared: Vec<String> = kfam_codegen::vocab::VOCABULARIES
            .iter()
            .filter(|v| v.declared)
            .map(|v| format!("{}.", v.name))
            .collect();
        let defined: BTreeSet<String> = declarations(generated)
            .into_iter()
            .filter(|d| !declared.iter().any(|c| d.starts_with(c.as_str())))
            .map(|d| d.trim_end_matches(" {").to_owned())
            .collect();
        assert_eq!(
            declarations(&stub),
            defined,
            "python/kfam_runtime/{module}.pyi does not declare what the generated {module}.py defines"
        );
    }
}
