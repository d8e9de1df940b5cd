//! The committed copies of generator-rendered sources (rust-analyzer's
//! "sourcegen" tests): `python/kfam_runtime/records.py` and `vocab.py` are
//! rendered by `emit::python` from kfam's vocabularies and record
//! definitions, the same for every catalog, and committed where the Python
//! runtime lives, so ruff and mypy check them there (`python_sources.rs`).
//! This test fails when a copy differs from what the generator renders;
//! `KFAM_BLESS=1 cargo test -p kfam-codegen --test integration sourcegen::` rewrites it.
//!
//! What the runtime reads of a catalog's generated `_tables.py` (the
//! protocol `Tables` of `python/kfam_runtime/_catalog.py`) is checked here
//! too: it declares exactly the names, with the types, that the generated
//! module defines.

use std::collections::BTreeSet;

use crate::support::root;
use kfam_codegen::emit::{python, Origin};
use kfam_codegen::ir::Ir;

fn bless() -> bool {
    std::env::var_os("KFAM_BLESS").is_some_and(|v| v == "1")
}

#[test]
fn committed_python_sources_are_current() {
    let mut stale = Vec::new();
    for (path, want) in python::sourcegen() {
        let file = root().join(&path);
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
        "stale committed sources: {}\nrun `KFAM_BLESS=1 cargo test -p kfam-codegen --test integration sourcegen::` and commit the result",
        stale.join(", ")
    );
}

fn shipped_ir() -> Ir {
    let (ir, report) = kfam_codegen::check_dir(&root().join("manifest"));
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

/// The runtime's `Tables` protocol declares what the generated
/// `_tables.py` defines (a dict's type up to its first `{`, without
/// `Final`).
#[test]
fn the_tables_protocol_declares_the_data_module() {
    let files = python::emit(&shipped_ir(), &Origin::default().banner());
    let generated = &files
        .iter()
        .find(|f| f.path == "python/kfam/_tables.py")
        .unwrap()
        .contents;
    let defined: BTreeSet<String> = declarations(generated)
        .into_iter()
        .map(|d| {
            let d = d.trim_end_matches(" {");
            match d.split_once(": Final[") {
                Some((name, ty)) => format!("{name}: {}", ty.strip_suffix(']').unwrap_or(ty)),
                None => d.to_owned(),
            }
        })
        .collect();
    let catalog = std::fs::read_to_string(root().join("python/kfam_runtime/_catalog.py")).unwrap();
    let start = catalog
        .find("\nclass Tables(Protocol):\n")
        .expect("class Tables");
    let body: String = catalog[start + 1..]
        .lines()
        .skip(1)
        .take_while(|l| l.is_empty() || l.starts_with(' '))
        .filter_map(|l| l.strip_prefix("    "))
        .filter(|l| !l.starts_with(' ') && !l.starts_with('"') && l.contains(": "))
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(
        declarations(&body),
        defined,
        "the Tables protocol of python/kfam_runtime/_catalog.py does not declare what the generated _tables.py defines"
    );
}
