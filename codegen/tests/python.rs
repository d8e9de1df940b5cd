//! The generated Python package from its users' side: generated into a
//! temporary directory, imported by real Python (with kfam's runtime, the
//! repository's `python/`, after it on the path) and checked by pytest
//! (`tests/python/test_tables.py`) against a JSON dump of the Rust IR,
//! type-checked with `mypy --strict`, its example consumer run, and its
//! packaging metadata validated.
//!
//! Python (>= 3.11, for `tomllib`) with `pytest` and `mypy` comes from the
//! test environment (`kfam-testenv`, provisioned on first use); when it
//! cannot be had the test fails saying why, nothing is skipped.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use kfam_codegen::emit::{python, Origin};
use kfam_codegen::ir::{sha256_hex, Ir};
use kfam_codegen::record::VOCABULARIES;
use kfam_codegen::vocab::{DType, Status};
use serde_json::json;
use tempfile::TempDir;

use crate::support::root;
use crate::support::tree;

fn tests_dir() -> PathBuf {
    root().join("tests").join("python")
}

/// The shared conformance vectors (`docs/conformance.md`).
fn conformance_dir() -> PathBuf {
    root().join("tests").join("conformance")
}

/// The test environment's Python (pytest, mypy; provisioned on first use by
/// `kfam-testenv`), with no bytecode written into the source tree.
fn python() -> Command {
    kfam_testenv::python()
}

fn run(cmd: &mut Command) -> Output {
    cmd.output()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"))
}

fn text(out: &Output) -> String {
    format!(
        "--- stdout\n{}\n--- stderr\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
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

/// The Python package of `ir` written into a fresh directory; the package
/// root (holding `pyproject.toml` and `kfam/`) is `dir/python`.
struct Generated {
    dir: TempDir,
    ir: Ir,
}

impl Generated {
    fn new(ir: Ir) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let files = python::emit(&ir, &Origin::default().banner());
        kfam_codegen::write::write(dir.path(), &files).unwrap();
        Generated { dir, ir }
    }

    fn root(&self) -> PathBuf {
        self.dir.path().join("python")
    }

    /// Write the IR and vocabulary dumps the pytest suite compares against.
    fn dumps(&self) -> (PathBuf, PathBuf) {
        let ir_path = self.dir.path().join("ir.json");
        std::fs::write(&ir_path, serde_json::to_string(&self.ir).unwrap()).unwrap();
        let mut codes = serde_json::Map::new();
        for c in VOCABULARIES {
            // Declared vocabularies have the catalog's members.
            let pairs: Vec<_> = self
                .ir
                .members(c)
                .iter()
                .map(|m| json!([m.spelling, m.code]))
                .collect();
            codes.insert(c.name.to_owned(), pairs.into());
        }
        let status: Vec<_> = Status::ALL
            .iter()
            .map(|s| json!([s.as_str(), self.ir.abi.status(*s)]))
            .collect();
        codes.insert(Status::NAME.to_owned(), status.into());
        let bits: serde_json::Map<_, _> = DType::ALL
            .iter()
            .map(|d| (d.as_str().to_owned(), json!(d.bits())))
            .collect();
        let vocab = json!({
            "codes": codes,
            "dtype_bits": bits,
            "identity_format": kfam_codegen::ir::IDENTITY_FORMAT,
        });
        let vocab_path = self.dir.path().join("vocab.json");
        std::fs::write(&vocab_path, vocab.to_string()).unwrap();
        (ir_path, vocab_path)
    }

    /// `python3` with this package and the runtime importable.
    fn python(&self) -> Command {
        let mut c = python();
        c.env("PYTHONPATH", kfam_testenv::search_path(&[&self.root()]));
        c
    }

    /// Run the pytest suite against this package; `extra` selects tests.
    fn pytest(&self, extra: &[&str]) {
        self.pytest_file("test_tables.py", extra);
    }

    /// Run `tests/python/{file}` with pytest against this package: it must
    /// pass with nothing skipped.
    fn pytest_file(&self, file: &str, extra: &[&str]) {
        self.pytest_over(file, extra, &conformance_dir());
    }

    /// [`Self::pytest_file`] with the conformance vectors of `vectors`.
    fn pytest_over(&self, file: &str, extra: &[&str], vectors: &Path) {
        self.pytest_env(file, extra, vectors, &[]);
    }

    /// [`Self::pytest_over`] with more environment variables.
    fn pytest_env(&self, file: &str, extra: &[&str], vectors: &Path, env: &[(&str, &Path)]) {
        let (ir_path, vocab_path) = self.dumps();
        let out = run(self
            .python()
            .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
            .arg(tests_dir().join(file))
            .args(extra)
            .envs(env.iter().copied())
            .env("KFAM_IR_JSON", ir_path)
            .env("KFAM_VOCAB_JSON", vocab_path)
            .env("KFAM_PYTHON_DIR", self.root())
            .env("KFAM_CONFORMANCE_DIR", vectors));
        assert!(
            out.status.success(),
            "pytest {file} failed on the generated package:\n{}",
            text(&out)
        );
        // Nothing may be skipped: the summary line is `N passed[, M deselected] in ...`.
        let stdout = String::from_utf8_lossy(&out.stdout);
        let summary = stdout
            .lines()
            .rev()
            .find(|l| l.contains(" in "))
            .unwrap_or("");
        assert!(
            summary.contains(" passed")
                && !summary.contains("skipped")
                && !summary.contains("xfail"),
            "unexpected pytest summary `{summary}`:\n{}",
            text(&out)
        );
        eprintln!("pytest: {summary}");
    }
}

#[test]
fn pytest_checks_the_package_against_the_ir() {
    Generated::new(shipped_ir()).pytest(&[]);
}

/// Every shared conformance vector reaches exactly its expected outcome
/// through the generated package's `capability`, `admit`, `validate_call`
/// and `Family.torch_schema` (`tests/python/test_conformance.py`). No vectors
/// is a failure.
#[test]
fn conformance_vectors_pass_in_python() {
    let vectors = std::fs::read_dir(conformance_dir())
        .map(|d| {
            d.filter_map(Result::ok)
                .filter(|e| e.path().extension().is_some_and(|x| x == "json"))
                .count()
        })
        .unwrap_or(0);
    assert!(
        vectors > 0,
        "no conformance vectors in {}",
        conformance_dir().display()
    );
    Generated::new(shipped_ir()).pytest_file("test_conformance.py", &[]);
}

/// The vectors written for a second catalog (`tests/catalogs/npuops`: its
/// own platform, backends, runtime and status codes) through its generated
/// package. The runner imports `kfam`, so the package is generated under
/// that import name; everything else in it is the second catalog's.
#[test]
fn second_catalog_vectors_pass_in_python() {
    let (ir, report) = kfam_codegen::check_dir(&root().join("tests/catalogs/npuops"));
    let mut ir = ir.unwrap_or_else(|| {
        panic!(
            "the second catalog has errors:\n{}",
            report.render_human(&annotate_snippets::Renderer::plain())
        )
    });
    assert_eq!(ir.catalog.name, "npuops");
    ir.catalog.python_package = "kfam".to_owned();
    Generated::new(ir).pytest_over(
        "test_conformance.py",
        &[
            "-k",
            "test_vector or test_the_conformance_directory_has_vectors",
        ],
        &root().join("tests/conformance/npuops"),
    );
}

/// The runtime serves older generated code of its series and refuses, at
/// import and naming both versions, generated code newer than itself or of
/// another series (`tests/python/test_compat.py`, docs/compatibility.md).
#[test]
fn the_runtime_refuses_generated_code_it_does_not_serve() {
    Generated::new(shipped_ir()).pytest_file("test_compat.py", &[]);
}

/// A generated package serves only the data kfam generate wrote: its data
/// files edited at random, truncated, emptied or deleted raise
/// `kfam_runtime.CorruptError` naming the file, at import or at the first
/// lookup (`tests/python/test_integrity.py`, docs/python.md).
#[test]
fn the_package_serves_only_the_data_kfam_generate_wrote() {
    Generated::new(shipped_ir()).pytest_file("test_integrity.py", &[]);
}

#[test]
fn mypy_strict_accepts_the_package_and_a_typed_consumer() {
    let g = Generated::new(shipped_ir());
    let consumer = tests_dir().join("consumer.py");
    let lazy = tests_dir().join("lazy_consumer.py");
    let context = tests_dir().join("context_example.py");
    // `--disallow-any-expr` for the package and the consumers, set per
    // module (tests/python/mypy_no_any.ini) so that PyTorch's modules keep
    // the options of every other `--strict --python-version 3.10` run, and
    // their cache entries (kfam_testenv::Mypy).
    let mypy_excluding_torch = |search: &Path, targets: &[&Path]| {
        run(kfam_testenv::mypy(kfam_testenv::Mypy::Strict310)
            .arg("--config-file")
            .arg(tests_dir().join("mypy_no_any.ini"))
            .args(["--exclude", "kfam/torch\\.py$"])
            .args(targets)
            .env("MYPYPATH", kfam_testenv::search_path(&[search])))
    };
    // `kfam.torch` is checked with real PyTorch's annotations, which are full of
    // `Any`, by `pytorch_integration`.
    let out = mypy_excluding_torch(
        &g.root(),
        &[&g.root().join("kfam"), &consumer, &lazy, &context],
    );
    assert!(
        out.status.success(),
        "mypy --strict rejects the generated package, tests/python/consumer.py, lazy_consumer.py or context_example.py:\n{}",
        text(&out)
    );
    // The conformance runner reads JSON, so `Any` is allowed there; the rest of
    // `--strict` holds.
    let out = run(kfam_testenv::mypy(kfam_testenv::Mypy::Strict310)
        .arg(tests_dir().join("kfam_conformance.py"))
        .arg(tests_dir().join("test_conformance.py"))
        .env("MYPYPATH", kfam_testenv::search_path(&[&g.root()])));
    assert!(
        out.status.success(),
        "mypy --strict rejects the Python conformance runner:\n{}",
        text(&out)
    );

    // Control: the same consumer against a package whose every name is
    // `Any` must fail, so the check above really depends on kfam's types.
    let any = g.dir.path().join("any");
    std::fs::create_dir_all(any.join("kfam")).unwrap();
    std::fs::write(
        any.join("kfam/__init__.py"),
        "from typing import Any\n\ndef __getattr__(name: str) -> Any: ...\n",
    )
    .unwrap();
    std::fs::write(any.join("kfam/py.typed"), "").unwrap();
    let out = mypy_excluding_torch(&any, &[&consumer]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.code() == Some(1) && stdout.contains("consumer.py") && stdout.contains("Any"),
        "mypy should reject the consumer when kfam is untyped:\n{}",
        text(&out)
    );
}

/// `mypy --strict -p kfam` as a user runs it passes whether or not PyTorch
/// is installed (it is an optional extra): once with the test environment's
/// interpreter, which has torch, and once with `--python-executable` of a
/// bare virtual environment, where mypy finds no torch (the control below
/// proves it), so `kfam.torch` must type-check with torch missing too.
#[test]
fn mypy_strict_passes_with_and_without_torch() {
    let g = Generated::new(shipped_ir());
    let bare = Path::new(env!("CARGO_TARGET_TMPDIR")).join("bare-venv");
    let bare_python = bare.join("bin/python");
    if !bare_python.exists() {
        let out = run(python().args(["-m", "venv", "--without-pip"]).arg(&bare));
        assert!(out.status.success(), "python -m venv: {}", text(&out));
    }
    let control = run(Command::new(&bare_python).args(["-c", "import torch"]));
    assert!(
        !control.status.success(),
        "the bare environment must not have torch"
    );
    let mypy = |extra: &[&std::ffi::OsStr]| {
        run(kfam_testenv::mypy(kfam_testenv::Mypy::Strict)
            .current_dir(g.root())
            .args(["-p", "kfam"])
            .args(extra)
            .env("MYPYPATH", kfam_testenv::runtime_dir()))
    };
    let with_torch = mypy(&[]);
    assert!(
        with_torch.status.success(),
        "mypy --strict -p kfam with torch:\n{}",
        text(&with_torch)
    );
    let without = mypy(&["--python-executable".as_ref(), bare_python.as_os_str()]);
    assert!(
        without.status.success(),
        "mypy --strict -p kfam without torch:\n{}",
        text(&without)
    );
}

/// `import kfam` builds no record and imports no torch; a lookup builds its
/// family alone; `FAMILIES` is built on first access, typed as before
/// (`tests/python/lazy_consumer.py`, in a fresh interpreter).
#[test]
fn tables_are_built_on_demand() {
    let g = Generated::new(shipped_ir());
    let out = run(g.python().arg(tests_dir().join("lazy_consumer.py")));
    assert!(
        out.status.success(),
        "lazy_consumer.py failed:\n{}",
        text(&out)
    );
    let expected = format!("lazy: {} families", g.ir.families.len());
    assert!(
        String::from_utf8_lossy(&out.stdout).contains(&expected),
        "{}",
        text(&out)
    );
}

#[test]
fn consumer_example_runs() {
    let g = Generated::new(shipped_ir());
    let consumer = tests_dir().join("consumer.py");
    let out = run(g.python().arg(&consumer));
    assert!(out.status.success(), "consumer.py failed:\n{}", text(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    for f in &g.ir.families {
        assert!(stdout.contains(&f.name), "{} not listed:\n{stdout}", f.name);
    }
    // The runtime decisions: every shipped profile has a receipt, every
    // sample call is valid, and views of one storage that partially overlap
    // a written tensor are refused.
    assert!(
        stdout.contains("capability: supported by ") && !stdout.contains("capability: refused"),
        "{stdout}"
    );
    assert!(
        !stdout.contains("sample call refused")
            && stdout.contains("on one storage: overlap at acc"),
        "{stdout}"
    );

    let artifact = g.dir.path().join("unapproved.bin");
    std::fs::write(&artifact, b"not an approved artifact").unwrap();
    let out = run(g.python().arg(&consumer).arg(&artifact));
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not approved"));
}

/// `kfam.torch` with real PyTorch (`tests/python/test_torch.py`, docs/torch.md):
/// schemas, fake kernels, registration lifetime, `opcheck` and `torch.compile`
/// over the shipped families; the backend example runs and, with `kfam.torch`,
/// passes `mypy --strict`. PyTorch's own `Library` is unannotated, so calls
/// into `torch.library` are exempt from `--disallow-untyped-calls`.
#[test]
fn pytorch_integration() {
    let g = Generated::new(shipped_ir());
    g.pytest_file("test_torch.py", &[]);

    let backend = tests_dir().join("torch_backend.py");
    let out = run(g.python().arg(&backend));
    assert!(
        out.status.success(),
        "torch_backend.py failed:\n{}",
        text(&out)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    for f in g.ir.families.iter().filter(|f| f.torch) {
        assert!(
            stdout.contains(&format!("kfam_example::{}(", f.name))
                && stdout.contains(&format!("launched {}:", f.name)),
            "{} not registered and launched:\n{stdout}",
            f.name
        );
    }

    let out = run(kfam_testenv::mypy(kfam_testenv::Mypy::RuntimeConfig)
        .arg(g.root().join("kfam"))
        .arg(&backend)
        .env("MYPYPATH", kfam_testenv::search_path(&[&g.root()])));
    assert!(
        out.status.success(),
        "mypy --strict rejects kfam.torch or tests/python/torch_backend.py:\n{}",
        text(&out)
    );
}

/// `pip wheel` would need the network (build isolation) or the `wheel`
/// package, so the metadata is validated offline: always with `tomllib`, and
/// by building the sdist with setuptools (pinned in the test environment).
#[test]
fn pyproject_is_valid() {
    let g = Generated::new(shipped_ir());
    let script = r#"
import ast, pathlib, sys, tarfile, tomllib
from packaging.requirements import Requirement
root = pathlib.Path(sys.argv[1])
# Read before the build, which rewrites `sys.argv`.
wanted = sys.argv[5]
runtime = Requirement(wanted)
data = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
build, project = data["build-system"], data["project"]
assert build["build-backend"] == "setuptools.build_meta", build
assert [r for r in build["requires"] if r.startswith("setuptools")], build
assert project["name"] == "kfam", project
# kfam's runtime, in the range of the generating kfam's series, and nothing else.
assert project["dependencies"] == [wanted], project["dependencies"]
assert project["requires-python"] == ">=3.10", project
assert data["tool"]["setuptools"]["packages"] == ["kfam"], data["tool"]
assert data["tool"]["setuptools"]["package-data"]["kfam"] == ["py.typed"], data["tool"]
assert (root / "kfam" / "py.typed").is_file()
abi = ast.parse((root / "kfam" / "_abi.py").read_text(encoding="utf-8"))
versions = [ast.literal_eval(n.value) for n in abi.body
            if isinstance(n, ast.AnnAssign) and getattr(n.target, "id", "") == "__version__"]
assert versions == [project["version"]], (versions, project["version"])
sys.path[:0] = [str(root), sys.argv[6]]
import kfam, kfam_runtime
from kfam_runtime._compat import requirement
assert requirement(kfam_runtime.__version__) == wanted, (kfam_runtime.__version__, wanted)
assert kfam.__version__ == project["version"], kfam.__version__
assert kfam.CATALOG_NAME == "kfam" and kfam.TORCH_NAMESPACE == "kfam", kfam.CATALOG_NAME
assert kfam.CATALOG_DIGEST == sys.argv[4], (kfam.CATALOG_DIGEST, sys.argv[4])
assert project["version"] == sys.argv[3], (project["version"], sys.argv[3])
assert project["license"] == "Apache-2.0", project
from setuptools import build_meta
import os, warnings
warnings.simplefilter("ignore")
out = pathlib.Path(sys.argv[2])
os.chdir(root)
name = build_meta.build_sdist(str(out))
with tarfile.open(out / name) as tar:
    names = set(tar.getnames())
    top = name.removesuffix(".tar.gz")
    pkg_info = tar.extractfile(f"{top}/PKG-INFO").read().decode()
# The catalog's data and its own names; the runtime is a distribution of its own.
package = sorted(n.removeprefix(f"{top}/kfam/") for n in names if n.startswith(f"{top}/kfam/"))
assert package == ["__init__.py", "_abi.py", "_tables.py", "context.py", "py.typed", "torch.py"], package
# The runtime, and with the `torch` extra the runtime's: nothing else.
requires = [Requirement(l.removeprefix("Requires-Dist: ")) for l in pkg_info.splitlines() if l.startswith("Requires-Dist:")]
assert [(r.name, r.extras, r.specifier, str(r.marker)) for r in requires] == [
    ("kfam-runtime", set(), runtime.specifier, "None"),
    ("kfam-runtime", {"torch"}, runtime.specifier, 'extra == "torch"'),
], requires
assert "Name: kfam\n" in pkg_info, pkg_info
assert "License-Expression: Apache-2.0\n" in pkg_info, pkg_info
assert f"Version: {project['version']}\n" in pkg_info, pkg_info
print("built", name)
"#;
    let sdist = g.dir.path().join("sdist");
    std::fs::create_dir_all(&sdist).unwrap();
    // The catalog's declared release (the shipped manifest declares none:
    // the generator's), without a local label; the digest is a constant.
    let version = g.ir.catalog.version.clone();
    assert_eq!(version, env!("CARGO_PKG_VERSION"));
    let out = run(python()
        .args(["-c", script])
        .arg(g.root())
        .arg(&sdist)
        .arg(&version)
        .arg(kfam_codegen::ir::catalog_digest(&g.ir))
        .arg(python::runtime_requirement(env!("CARGO_PKG_VERSION")))
        .arg(kfam_testenv::runtime_dir()));
    assert!(
        out.status.success(),
        "pyproject.toml is not valid:\n{}",
        text(&out)
    );
    eprintln!("{}", String::from_utf8_lossy(&out.stdout).trim());
}

#[test]
fn every_file_is_marked_and_output_is_deterministic() {
    let ir = shipped_ir();
    let banner = Origin::default().banner();
    let a = python::emit(&ir, &banner);
    assert_eq!(a, python::emit(&ir, &banner));
    let first = format!("# {banner}");
    let paths: Vec<&str> = a.iter().map(|f| f.path.as_str()).collect();
    for must in [
        "python/pyproject.toml",
        "python/README.md",
        "python/kfam/__init__.py",
        "python/kfam/py.typed",
    ] {
        assert!(paths.contains(&must), "{must} missing from {paths:?}");
    }
    for f in &a {
        assert!(f.path.starts_with("python/"), "{}", f.path);
        // The README's first line is the banner as a Markdown comment.
        let first = if f.path.ends_with(".md") {
            format!("<!-- {banner} -->")
        } else {
            first.clone()
        };
        assert_eq!(
            f.contents.lines().next(),
            Some(first.as_str()),
            "{}",
            f.path
        );
        assert!(
            f.contents.ends_with('\n') && !f.contents.contains('\r'),
            "{}",
            f.path
        );
    }
}

/// Free text with every troublesome character the checker lets through
/// reaches Python unchanged; declared names that look like the package's own
/// API stay data. An artifact whose digest has a receipt is admitted.
#[test]
fn hostile_text_and_names_survive() {
    let artifact_bytes = b"kfam test artifact\n";
    let digest = sha256_hex(artifact_bytes);
    let family = format!(
        r#"name = "hostile_text"
revision = 3
summary = """
Triple \"\"\" double, ''' single, back\\slash \\n \\x00 \\N{{DIGIT ONE}}, # not a comment,
ünïcödé 漢字 😀 𝔸, {{braces}} %s f'{{x}}'; trailing backslash \\"""
contract = "program"
returns = ["families"]

[operation.elementwise_binary]
op = "sub"
lhs = "kfam"
rhs = "find_family"
out = "families"

[[params]]
name = "kfam"
dtype = "fp16"
shape = [-1, 32]
doc = "\"\"\"\n'''\\ #"

[[params]]
name = "find_family"
dtype = "fp16"
shape = [-1, 32]

[[params]]
name = "families"
direction = "out"
dtype = "fp16"
shape = [-1, 32]

[[params]]
name = "status"
kind = "scalar"
dtype = "int64"

[[profiles]]
name = "a5_sim"
platform = "a5"
backend = "pto"
runtime = "host_build_graph"
execution_mode = "sim"
bindings = [
  {{ param = "kfam", slot = 0, kind = "tensor_arg" }},
  {{ param = "find_family", slot = 1, kind = "tensor_arg" }},
  {{ param = "families", slot = 2, kind = "tensor_arg" }},
  {{ param = "status", slot = 3, kind = "scalar_arg" }},
]

[[profiles]]
name = "a5_onboard"
platform = "a5"
backend = "pto"
runtime = "host_build_graph"
execution_mode = "onboard"
bindings = [
  {{ param = "kfam", slot = 0, kind = "tensor_arg" }},
  {{ param = "find_family", slot = 1, kind = "tensor_arg" }},
  {{ param = "families", slot = 2, kind = "tensor_arg" }},
  {{ param = "status", slot = 3, kind = "scalar_arg" }},
]

[[receipts]]
profile = "a5_sim"
codec = "x.y-z_1"
artifact = "a5/sim/hostile text.so"
sha256 = "{digest}"

[receipts.evidence]
date = "2026-01-02"
hardware = "\"quoted\" \\ board #1 — ü"
note = "line\n'''two'''"
tool = "kfam.qualify"
versions = ["kfam 0.1.0", "torch \"2.9.1\" ''' \\"]
cases = 17
seed = 9007199254740993
shapes = []
errors = [{{ output = "families", max_abs = 0.1, max_rel = 5e-324 }}]
runs = 2
deterministic = false
run_max_abs = 8.98846567431158e307
"#
    );
    let abi = std::fs::read_to_string(root().join("manifest/abi.toml")).unwrap();
    let (ir, report) = kfam_codegen::check_sources(
        Some(("manifest/abi.toml".into(), abi)),
        vec![("manifest/families/hostile_text.toml".into(), family)],
    );
    let ir = ir.unwrap_or_else(|| {
        panic!(
            "synthetic manifest rejected:\n{}",
            report.render_human(&annotate_snippets::Renderer::plain())
        )
    });
    let f = &ir.families[0];
    assert!(f.summary.contains(r#"""""#) && f.summary.contains('\\') && f.summary.contains('😀'));

    let g = Generated::new(ir.clone());
    // The generic checks of the suite (everything but the shipped-manifest
    // expectations) hold for this manifest too.
    g.pytest(&["-m", "not shipped"]);

    let script = r#"
import json, kfam
f = kfam.family("hostile_text")
r = f.receipts[0]
ev = r.evidence
print(json.dumps({"summary": f.summary, "doc": f.param("kfam").doc,
                  "hardware": ev.hardware, "note": ev.note,
                  "artifact": r.artifact, "names": [p.name for p in f.params],
                  "run": [ev.tool, list(ev.versions), ev.cases, ev.seed, list(ev.shapes),
                          [[f.params[e.output].name, e.max_abs.hex(), e.max_rel.hex()]
                           for e in ev.errors], ev.runs, ev.deterministic, ev.run_max_abs.hex()]}))
"#;
    let out = run(g.python().args(["-c", script]));
    assert!(out.status.success(), "{}", text(&out));
    let got: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let r = &f.receipts[0];
    assert_eq!(
        got,
        json!({
            "summary": f.summary, "doc": f.params[0].doc,
            "hardware": r.evidence.hardware, "note": r.evidence.note,
            "artifact": r.artifact, "names": ["kfam", "find_family", "families", "status"],
            "run": [
                "kfam.qualify", r.evidence.versions, 17, 9007199254740993_i64, r.evidence.shapes,
                [["families", "0x1.999999999999ap-4", "0x0.0000000000001p-1022"]],
                2, false, "0x1.0000000000000p+1023",
            ],
        })
    );

    // Admission through the example consumer: the approved artifact passes.
    let path = g.dir.path().join("artifact.so");
    std::fs::write(&path, artifact_bytes).unwrap();
    let out = run(g.python().arg(tests_dir().join("consumer.py")).arg(&path));
    assert!(out.status.success(), "{}", text(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("hostile_text r3 on a5_sim (x.y-z_1)"));

    // Admission of its compiled_meta.json (schema 3), then of a tampered one.
    let params = |lowered: bool| -> Vec<serde_json::Value> {
        f.params
            .iter()
            .map(|p| {
                json!({
                    "name": p.name, "kind": p.kind.as_str(), "direction": p.direction.as_str(),
                    "dtype": p.dtype.as_str(), "layout": p.layout.as_str(),
                    "shape": if lowered { &p.lowered_shape } else { &p.shape },
                })
            })
            .collect()
    };
    let mut meta = json!({
        "$comment": "written by a test: \"quoted\" ü",
        "schema": 3, "family": f.name, "revision": f.revision, "contract": "program",
        "params": params(false), "lowered_params": params(true),
        "return_count": f.returns.len(), "return_aliases": f.returns,
        "platform": "a5", "backend": "pto", "runtime": "host_build_graph", "execution_mode": "sim",
        "capabilities": [{"contract": "program", "execution_mode": "sim"}],
        "artifact": {"path": r.artifact, "sha256": digest},
        "abi_revision": ir.abi.revision,
    });
    let meta_path = g.dir.path().join("compiled_meta.json");
    let consumer = tests_dir().join("consumer.py");
    std::fs::write(&meta_path, serde_json::to_vec_pretty(&meta).unwrap()).unwrap();
    let out = run(g
        .python()
        .arg(&consumer)
        .arg("--meta")
        .arg(&meta_path)
        .arg(&path));
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("hostile_text r3 on a5_sim as program"),
        "{}",
        text(&out)
    );
    meta["artifact"]["path"] = json!("a5/sim/other.so");
    std::fs::write(&meta_path, serde_json::to_vec(&meta).unwrap()).unwrap();
    let out = run(g
        .python()
        .arg(&consumer)
        .arg("--meta")
        .arg(&meta_path)
        .arg(&path));
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("refused, not_approved (`artifact.path` differs) (status not_approved)"),
        "{}",
        text(&out)
    );
}

/// Compile-time routing (`tests/python/test_route.py`, docs/torch.md,
/// "Routing a model") over the routing fixture `tests/route/manifest`: a
/// transformer block compiled with the router and exported through
/// AOTInductor; for the compile cache key, the same catalog with one
/// family at a new revision (with the new receipt a revision needs); and
/// this repository's catalog, as generated into `generated/python`.
#[test]
fn routing() {
    let fixture = root().join("tests/route/manifest");
    let read = |rel: &str| std::fs::read_to_string(fixture.join(rel)).unwrap();
    let check = |changed: bool| {
        let families = std::fs::read_dir(fixture.join("families"))
            .unwrap()
            .map(|e| {
                let name = e.unwrap().file_name().into_string().unwrap();
                let mut text = read(&format!("families/{name}"));
                if changed && name == "r_silu_bf16.toml" {
                    text = text
                        .replace("revision = 1", "revision = 2")
                        .replace("sha256 = \"4a", "sha256 = \"4b");
                }
                (format!("manifest/families/{name}"), text)
            })
            .collect();
        let abi = Some(("manifest/abi.toml".into(), read("abi.toml")));
        let (ir, report) = kfam_codegen::check_sources(abi, families);
        ir.unwrap_or_else(|| {
            panic!(
                "the routing fixture has errors:\n{}",
                report.render_human(&annotate_snippets::Renderer::plain())
            )
        })
    };
    let changed = Generated::new(check(true));
    let silu = |g: &Generated| {
        g.ir.families
            .iter()
            .find(|f| f.name == "r_silu_bf16")
            .map(|f| f.revision)
    };
    assert_eq!(silu(&changed), Some(2));
    let g = Generated::new(check(false));
    g.pytest_env(
        "test_route.py",
        &[],
        &conformance_dir(),
        &[
            ("KFAM_ROUTE_CHANGED", &changed.root()),
            ("KFAM_ROUTE_SHIPPED", &root().join("generated/python")),
        ],
    );
}

/// Routing Hugging Face models (`tests/python/test_models.py`, docs/torch.md,
/// "Routing a Hugging Face model"): Llama, Qwen2 and GPT-2 from small
/// configs (transformers is pinned in the test environment; nothing is
/// downloaded) over the model fixture `tests/route/models/manifest`, through
/// `torch.compile`, `dynamic=True`, `torch.export` and AOTInductor; and a
/// catalog proposed for a model, started with this `kfam init`, checked and
/// generated with this `kfam`.
#[test]
fn models() {
    let fixture = root().join("tests/route/models/manifest");
    let (ir, report) = kfam_codegen::check_dir(&fixture);
    let ir = ir.unwrap_or_else(|| {
        panic!(
            "the model fixture has errors:\n{}",
            report.render_human(&annotate_snippets::Renderer::plain())
        )
    });
    let g = Generated::new(ir);
    g.pytest_env(
        "test_models.py",
        &[],
        &conformance_dir(),
        &[("KFAM_BIN", Path::new(env!("CARGO_BIN_EXE_kfam")))],
    );
}

/// `kfam.torch.reference` and `kfam.qualify` over the fixture catalog
/// `tests/qualify/manifest`, a family of every operation kind
/// (`tests/python/test_qualify.py`, docs/qualify.md); then the evidence of a
/// passing run, pasted into a receipt as docs/qualify.md says, checks clean
/// and shows in the generated docs.
#[test]
fn qualification() {
    let fixture = root().join("tests/qualify/manifest");
    let (ir, report) = kfam_codegen::check_dir(&fixture);
    let ir = ir.unwrap_or_else(|| {
        panic!(
            "the qualification fixture has errors:\n{}",
            report.render_human(&annotate_snippets::Renderer::plain())
        )
    });
    let g = Generated::new(ir);
    g.pytest_file("test_qualify.py", &[]);

    // A run of the correct SiLU kernel, printed as a receipt's entry.
    let script = r#"
import sys
sys.path.insert(0, sys.argv[1])
import kfam
from qualify_kernels import CORRECT
q = kfam.qualify(kfam.family("q_silu_bf16"), CORRECT["q_silu_bf16"], cases=8,
                 hardware="x86_64 CPU (reference kernel)", artifact_sha256="5e" * 32)
print(q.receipt_toml("a2a3_sim", "simpler.kernel.v1", "a2a3/sim/q_silu_bf16.so"))
"#;
    let out = run(g
        .python()
        .args(["-W", "ignore", "-c", script])
        .arg(tests_dir()));
    assert!(out.status.success(), "{}", text(&out));
    let receipt = String::from_utf8(out.stdout).unwrap();

    let dir = tempfile::tempdir().unwrap();
    let manifest = dir.path().join("manifest");
    tree::copy_dir(&fixture, &manifest);
    let family = manifest.join("families/q_silu_bf16.toml");
    let mut toml = std::fs::read_to_string(&family).unwrap();
    toml.push('\n');
    toml.push_str(&receipt);
    std::fs::write(&family, &toml).unwrap();
    let check = run(Command::new(env!("CARGO_BIN_EXE_kfam"))
        .arg("check")
        .arg(&manifest));
    assert!(
        check.status.success() && !String::from_utf8_lossy(&check.stderr).contains("warning"),
        "{}\n{toml}",
        text(&check)
    );
    let out = run(Command::new(env!("CARGO_BIN_EXE_kfam"))
        .arg("generate")
        .arg(&manifest)
        .arg("--out")
        .arg(dir.path().join("generated")));
    assert!(out.status.success(), "{}", text(&out));
    let docs = std::fs::read_to_string(dir.path().join("generated/docs/families.md")).unwrap();
    assert!(
        docs.contains("`kfam.qualify`: 8 cases from seed 0")
            && docs.contains("worst error of `y`")
            && docs.contains("determinism: 2 runs per case, outputs bitwise identical"),
        "{docs}"
    );
    // The generated package reads the receipt back, the run's new fields included.
    let script = "import kfam\n\
                  e = kfam.family('q_silu_bf16').receipts[-1].evidence\n\
                  print(e.tool, e.cases, e.runs, e.deterministic, e.run_max_abs)";
    let out = run(python().args(["-c", script]).env(
        "PYTHONPATH",
        kfam_testenv::search_path(&[&dir.path().join("generated/python")]),
    ));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "kfam.qualify 8 2 True 0.0\n",
        "{}",
        text(&out)
    );
}
