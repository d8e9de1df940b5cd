//! kfam's Python runtime where it lives (`python/kfam_runtime/`, docs/python.md,
//! "Sources"): ruff and `mypy --strict` pass on the sources themselves, with
//! the configuration of `python/pyproject.toml`, which is also the runtime's
//! distribution (kfam's version and license); and since the runtime is not
//! part of a generated package, a manifest edit changes only the catalog's
//! data files there.
//!
//! ruff and mypy come from the test environment (`kfam-testenv`,
//! provisioned on first use); a missing tool fails the test, nothing is
//! skipped.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Output};

use kfam_codegen::GenerateOptions;

use crate::support::root;
use crate::support::tree;
use tree::copy_dir;

/// `python -m <tool> <args>` in the test environment, run in `python/`
/// (where `pyproject.toml` configures both tools).
fn tool(args: &[&str]) -> Output {
    let mut cmd: Command = kfam_testenv::python();
    cmd.current_dir(root().join("python")).args(args);
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

#[test]
fn ruff_accepts_the_python_sources() {
    let out = tool(&["-m", "ruff", "check", "--no-cache", "."]);
    assert!(
        out.status.success(),
        "ruff check python/ failed (fix the sources; `ruff check --fix` sorts imports):\n{}",
        text(&out)
    );
    let out = tool(&["-m", "ruff", "format", "--check", "--no-cache", "."]);
    assert!(
        out.status.success(),
        "ruff format --check python/ failed (run `ruff format` in python/):\n{}",
        text(&out)
    );
}

#[test]
fn mypy_strict_accepts_the_python_sources() {
    let out = kfam_testenv::mypy(kfam_testenv::Mypy::RuntimeConfig)
        .current_dir(root().join("python"))
        .arg("kfam_runtime")
        .output()
        .expect("run mypy");
    assert!(
        out.status.success(),
        "mypy --strict python/kfam_runtime failed:\n{}",
        text(&out)
    );
    // Every module was checked, the stubs of the data modules included.
    let modules = std::fs::read_dir(root().join("python/kfam_runtime"))
        .unwrap()
        .filter_map(|e| e.ok()?.path().extension().map(|x| x == "py" || x == "pyi"))
        .filter(|&m| m)
        .count();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains(&format!(
            "Success: no issues found in {modules} source files"
        )),
        "{}",
        text(&out)
    );
}

/// `python/pyproject.toml` is the distribution `kfam-runtime`, versioned
/// (there and in `kfam_runtime/_version.py`) and licensed as kfam, with no
/// dependency but the `torch` extra.
#[test]
fn the_runtime_distribution_is_kfams() {
    let text = std::fs::read_to_string(root().join("python/pyproject.toml")).unwrap();
    let doc: toml::Table = text.parse().unwrap();
    let project = doc["project"].as_table().unwrap();
    assert_eq!(project["name"].as_str(), Some("kfam-runtime"));
    assert_eq!(project["version"].as_str(), Some(env!("CARGO_PKG_VERSION")));
    assert_eq!(project["license"].as_str(), Some(env!("CARGO_PKG_LICENSE")));
    assert_eq!(project["dependencies"].as_array().map(Vec::len), Some(0));
    let torch = format!("torch>={}", kfam_codegen::emit::python::MIN_TORCH);
    assert_eq!(
        project["optional-dependencies"]["torch"]
            .as_array()
            .and_then(|a| a[0].as_str()),
        Some(torch.as_str())
    );
    assert!(root().join("python/README.md").is_file() && root().join("python/LICENSE").is_file());
    let version = std::fs::read_to_string(root().join("python/kfam_runtime/_version.py")).unwrap();
    let line = format!(
        "__version__: Final[str] = \"{}\"",
        env!("CARGO_PKG_VERSION")
    );
    assert!(
        version.lines().any(|l| l == line),
        "_version.py lacks `{line}`"
    );
}

/// Every file below `dir` (`.kfam-cache` aside), by `/`-separated path.
fn tree(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let rel = path.strip_prefix(root).unwrap();
            if rel.starts_with(".kfam-cache") {
                continue;
            }
            if path.is_dir() {
                walk(root, &path, out);
            } else {
                let key = rel
                    .components()
                    .map(|c| c.as_os_str().to_str().unwrap())
                    .collect::<Vec<_>>()
                    .join("/");
                out.insert(key, std::fs::read(&path).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

/// The shipped manifest, edited by `edit` (given the copy's directory),
/// generated into a fresh directory: every output file.
fn generate(edit: impl FnOnce(&Path)) -> BTreeMap<String, Vec<u8>> {
    let dir = tempfile::tempdir().unwrap();
    let manifest = dir.path().join("manifest");
    copy_dir(&root().join("manifest"), &manifest);
    edit(&manifest);
    let out = dir.path().join("generated");
    let options = GenerateOptions {
        check: false,
        stamp: false,
        locked: false,
    };
    match kfam_codegen::generate_dir_with(&manifest, &out, options) {
        Ok(kfam_codegen::GenerateOutcome::Written { .. }) => {}
        Ok(other) => panic!("unexpected outcome {other:?}"),
        Err(e) => panic!("generation failed: {e:?}"),
    }
    tree(&out)
}

/// The paths whose contents differ (or exist on one side only).
fn differing(a: &BTreeMap<String, Vec<u8>>, b: &BTreeMap<String, Vec<u8>>) -> Vec<String> {
    let mut paths: Vec<String> = a.keys().chain(b.keys()).cloned().collect();
    paths.sort();
    paths.dedup();
    paths.retain(|p| a.get(p) != b.get(p));
    paths
}

fn edit_file(path: &Path, from: &str, to: &str) {
    let text = std::fs::read_to_string(path).unwrap();
    assert!(text.contains(from), "{} lacks {from:?}", path.display());
    std::fs::write(path, text.replacen(from, to, 1)).unwrap();
}

const SUMMARY: &str = "Elementwise BF16 addition of two 1024-element vectors";

/// A family edit regenerates only the catalog's data in the Python
/// package: the rows (`_tables.py`) and `_abi.py`, which records their
/// digest (`TABLES_SHA256`, and its own checksum line), and when the
/// catalog's identity changes (a new family), the digest in `_abi.py`
/// (`CATALOG_DIGEST`) and the family table of the distribution's
/// `README.md`. The metadata
/// (`pyproject.toml`: the catalog's declared version) and the catalog's own
/// modules are the same bytes.
#[test]
fn a_family_edit_changes_only_python_data_files() {
    let shipped = generate(|_| {});
    let python = |paths: Vec<String>| -> (Vec<String>, Vec<String>) {
        paths.into_iter().partition(|p| p.starts_with("python/"))
    };

    // A summary is not part of the identity: the rows change, nothing else.
    let summary = generate(|m| {
        edit_file(
            &m.join("families/add_bf16_1024.toml"),
            SUMMARY,
            "Elementwise BF16 sum of two vectors of 1024 elements",
        );
    });
    let (py, other) = python(differing(&shipped, &summary));
    assert_eq!(
        py,
        ["python/kfam/_abi.py", "python/kfam/_tables.py"],
        "a changed summary"
    );
    eprintln!("a changed summary also changes: {other:?}");

    // A new family changes the catalog digest too.
    let added = generate(|m| {
        let text = std::fs::read_to_string(m.join("families/add_bf16_1024.toml")).unwrap();
        let copy = text
            .replacen("name = \"add_bf16_1024\"", "name = \"sub_bf16_1024\"", 1)
            .replacen("op = \"add\"", "op = \"sub\"", 1)
            .replacen(SUMMARY, "Elementwise BF16 subtraction", 1)
            .replacen("sha256 = \"5c1f", "sha256 = \"6c1f", 1);
        std::fs::write(m.join("families/sub_bf16_1024.toml"), copy).unwrap();
    });
    let (py, other) = python(differing(&shipped, &added));
    assert_eq!(
        py,
        [
            "python/README.md",
            "python/kfam/_abi.py",
            "python/kfam/_tables.py"
        ],
        "a new family"
    );
    eprintln!("a new family also changes: {other:?}");
}
