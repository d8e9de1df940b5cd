//! Accepted means it works: random legal manifests that reach the limits
//! (`fuzz/src/legal.rs`) are checked, and every one `kfam check` accepts
//! goes to every consumer:
//!
//! - the C header, constants and tables compiled as C99 and C++17 with
//!   `-Wall -Wextra -Werror -pedantic` by gcc and g++, and by clang;
//! - the Python package imported (every family read) and `mypy --strict`;
//! - every torch family defined with `kfam.torch.define` into a fresh
//!   library and checked with `torch.library.opcheck`
//!   (`tests/python/accepted_torch.py`);
//! - the Rust tables of every seed compiled against `kfam-runtime`.
//!
//! A manifest the checker refuses must be refused for a consumer's limit
//! (`legal::LIMIT_CODES`): any other refusal means the generator or the
//! checker is wrong. A consumer that refuses an accepted manifest is a bug,
//! reported with its seed. `KFAM_ACCEPTED_SEEDS=N` (default 10) and
//! `KFAM_ACCEPTED_FROM=S` run a longer campaign (docs/testing.md).

#[path = "../../fuzz/src/legal.rs"]
mod legal;

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::{member_path, root, team_crate};
use annotate_snippets::Renderer;
use kfam_codegen::emit::{self, c, python};
use kfam_codegen::ir::Ir;
use kfam_codegen::plan::Plan;

const ABI: &str = include_str!("../../manifest/abi.toml");

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// `cmd`'s stdout; a failure names the seed and the consumer.
fn run(seed: u64, consumer: &str, mut cmd: Command) -> String {
    let shown = format!("{cmd:?}");
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("seed {seed}: {consumer}: {shown}: {e}"));
    assert!(
        out.status.success(),
        "seed {seed}: {consumer} refuses an accepted manifest\n{shown}\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The C compilers, each as C99 and C++17, strict.
fn c_compilers() -> Vec<(String, Command)> {
    let strict = [
        "-Wall",
        "-Wextra",
        "-Werror",
        "-pedantic",
        "-c",
        "-o",
        "/dev/null",
    ];
    let mut out = Vec::new();
    for (name, std, lang) in [("gcc", "-std=c99", "c"), ("g++", "-std=c++17", "c++")] {
        let mut cmd = Command::new(name);
        cmd.args([std, "-x", lang]).args(strict);
        out.push((name.to_owned(), cmd));
    }
    for (cxx, std, lang) in [(false, "-std=c99", "c"), (true, "-std=c++17", "c++")] {
        let mut cmd = kfam_testenv::clang(cxx);
        cmd.args([std, "-x", lang]).args(strict);
        out.push((format!("clang {std}"), cmd));
    }
    out
}

/// One translation unit that includes everything the C output declares
/// and defines the tables.
const C_UNIT: &str = "#define KFAM_IMPLEMENTATION\n#include <kfam/kfam.h>\n#include <kfam/kfam_constants.h>\nint main(void) { return KFAM_FAMILY_COUNT > 0 ? 0 : 1; }\n";

/// Every family of the package, read, and the torch check's sample.
const PY_READ: &str = "import kfam\nfor f in kfam.FAMILIES:\n    assert kfam.family(f.name) == f, f.name\n    [p.doc for p in f.params]\nprint(len(kfam.FAMILIES))\n";

struct Accepted {
    seed: u64,
    ir: Ir,
    dir: PathBuf,
}

/// The generator's families are legal over many seeds, in process (the
/// checker alone: the consumers run on the first seeds below), and reach
/// every operation kind.
#[test]
fn generated_families_are_legal() {
    let mut kinds = std::collections::BTreeSet::new();
    for seed in 0..400 {
        let families = legal::families(seed);
        let sources: Vec<(String, String)> = families
            .iter()
            .map(|(n, t)| (format!("manifest/families/{n}.toml"), t.clone()))
            .collect();
        let (ir, report) =
            kfam_codegen::check_sources(Some(("manifest/abi.toml".into(), ABI.into())), sources);
        let refused: Vec<&str> = report
            .diagnostics
            .iter()
            .filter(|d| d.is_error())
            .map(|d| d.code.as_str())
            .filter(|c| !legal::LIMIT_CODES.contains(c))
            .collect();
        assert!(
            refused.is_empty(),
            "seed {seed}: a legal manifest was refused for a rule, not a consumer limit:\n{}\n--- files\n{}",
            report.render_human(&Renderer::plain()),
            families.iter().map(|(_, t)| t.as_str()).collect::<Vec<_>>().join("\n---\n")
        );
        kinds.extend(
            ir.iter()
                .flat_map(|ir| ir.families.iter().map(|f| f.operation.kind())),
        );
    }
    assert_eq!(
        kinds.len(),
        kfam_codegen::record::OperationKind::ALL.len(),
        "kinds reached: {kinds:?}"
    );
}

#[test]
fn accepted_manifests_work_in_every_consumer() {
    let seeds = env_number("KFAM_ACCEPTED_SEEDS", 10);
    let from = env_number("KFAM_ACCEPTED_FROM", 0);
    let scratch = Path::new(env!("CARGO_TARGET_TMPDIR")).join("accepted");
    let _ = std::fs::remove_dir_all(&scratch);
    let mut accepted: Vec<Accepted> = Vec::new();
    let mut refused = 0;
    for seed in from..from + seeds {
        let families = legal::families(seed);
        let sources: Vec<(String, String)> = families
            .iter()
            .map(|(n, t)| (format!("manifest/families/{n}.toml"), t.clone()))
            .collect();
        let (ir, report) =
            kfam_codegen::check_sources(Some(("manifest/abi.toml".into(), ABI.into())), sources);
        let Some(ir) = ir else {
            let codes: Vec<&str> = report
                .diagnostics
                .iter()
                .filter(|d| d.is_error())
                .map(|d| d.code.as_str())
                .collect();
            assert!(
                codes.iter().all(|c| legal::LIMIT_CODES.contains(c)),
                "seed {seed}: a legal manifest was refused for a rule, not a consumer limit:\n{}\n--- files\n{}",
                report.render_human(&Renderer::plain()),
                families.iter().map(|(_, t)| t.as_str()).collect::<Vec<_>>().join("\n---\n")
            );
            refused += 1;
            continue;
        };
        let dir = scratch.join(format!("seed{seed}"));
        let plan = Plan::new(&ir);
        let mut files = c::emit(&plan);
        files.extend(python::emit(&ir, &emit::Origin::default().banner()));
        kfam_codegen::write::write(&dir, &files).unwrap();
        accepted.push(Accepted { seed, ir, dir });
    }
    eprintln!(
        "accepted: {} of {seeds} manifests accepted, {refused} refused for a consumer limit",
        accepted.len()
    );
    assert!(
        accepted.len() * 2 >= seeds as usize,
        "the generator must mostly produce accepted manifests"
    );

    for a in &accepted {
        let unit = a.dir.join("unit.c");
        std::fs::write(&unit, C_UNIT).unwrap();
        for (name, mut cmd) in c_compilers() {
            cmd.arg("-o")
                .arg(a.dir.join("unit.o"))
                .arg("-I")
                .arg(a.dir.join("include"))
                .arg(&unit);
            run(a.seed, &name, cmd);
        }
    }

    for a in &accepted {
        let mut py = kfam_testenv::python();
        py.env(
            "PYTHONPATH",
            kfam_testenv::search_path(&[&a.dir.join("python")]),
        )
        .args(["-c", PY_READ]);
        let n = run(a.seed, "python import", py);
        assert_eq!(n.trim(), a.ir.families.len().to_string(), "seed {}", a.seed);
    }
    // mypy for a sample (each run type-checks the whole package).
    for a in accepted.iter().take(3) {
        let mut mypy = kfam_testenv::mypy(kfam_testenv::Mypy::Strict);
        mypy.current_dir(a.dir.join("python"))
            .args(["-p", "kfam"])
            .env("MYPYPATH", kfam_testenv::runtime_dir());
        run(a.seed, "mypy --strict", mypy);
    }

    // Every torch family of every seed, in one interpreter (PyTorch is
    // imported once), which loads each seed's package in turn.
    let with_torch: Vec<&Accepted> = accepted
        .iter()
        .filter(|a| a.ir.families.iter().any(|f| f.torch))
        .collect();
    let mut py = kfam_testenv::python();
    py.env("PYTHONPATH", kfam_testenv::search_path(&[]))
        .arg(root().join("tests/python/accepted_torch.py"))
        .args(with_torch.iter().map(|a| a.dir.join("python")));
    let seeds: Vec<u64> = with_torch.iter().map(|a| a.seed).collect();
    let out = run(
        with_torch.first().map_or(0, |a| a.seed),
        &format!("torch define + opcheck (of seeds {seeds:?})"),
        py,
    );
    let want: Vec<String> = with_torch
        .iter()
        .map(|a| {
            let n = a.ir.families.iter().filter(|f| f.torch).count();
            format!("opcheck: {n}")
        })
        .collect();
    assert_eq!(out.lines().collect::<Vec<_>>(), want, "seeds {seeds:?}");

    rust_tables_compile(&scratch, &accepted);
}

/// The Rust tables of every accepted seed, each in a module of one
/// scratch crate that depends on `kfam-runtime`, checked by cargo (one
/// build for all seeds, in the team crates' target directory).
fn rust_tables_compile(scratch: &Path, accepted: &[Accepted]) {
    let krate = scratch.join("rust");
    team_crate(
        &krate,
        "accepted-tables",
        &format!(
            "[dependencies]\nkfam-runtime = {{ path = {} }}\n",
            member_path("runtime")
        ),
    );
    let mut lib = String::from("#![allow(dead_code)]\n");
    for a in accepted {
        let source = emit::rust::embedded_source(&a.ir, "::kfam_runtime", "");
        let file = format!("seed{}.rs", a.seed);
        std::fs::write(krate.join("src").join(&file), source).unwrap();
        lib.push_str(&format!(
            "pub mod seed{} {{ include!({file:?}); }}\n",
            a.seed
        ));
    }
    std::fs::write(krate.join("src/lib.rs"), lib).unwrap();
    let mut cargo = kfam_testenv::team_cargo();
    cargo
        .current_dir(&krate)
        .args(["check", "--offline", "--quiet"]);
    run(
        accepted.first().map_or(0, |a| a.seed),
        "cargo check of the Rust tables",
        cargo,
    );
}
