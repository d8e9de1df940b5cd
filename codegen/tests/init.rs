//! `kfam init` and `kfam new`: the real `kfam` binary in temporary
//! directories. What they write checks clean, without a warning, and
//! generates; every skeleton kind (`OperationKind::ALL`) does; and a refusal
//! (a file that exists, a bad name) exits 2 and writes nothing.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use kfam_codegen::record::OperationKind;

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

impl Run {
    fn all(&self) -> String {
        format!("{}{}", self.stdout, self.stderr)
    }
}

fn kfam(cwd: &Path, args: &[&str]) -> Run {
    let out = Command::new(env!("CARGO_BIN_EXE_kfam"))
        .args(args)
        .current_dir(cwd)
        .env_remove("CI")
        .output()
        .expect("run kfam");
    Run {
        code: out.status.code().expect("kfam exited by a signal"),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Runs `kfam` and requires exit `code`, printing its output otherwise.
fn expect(cwd: &Path, args: &[&str], code: i32) -> Run {
    let run = kfam(cwd, args);
    assert_eq!(
        run.code,
        code,
        "kfam {}\n--- stdout\n{}--- stderr\n{}",
        args.join(" "),
        run.stdout,
        run.stderr
    );
    run
}

/// Every file below `dir`, relative, with its contents.
fn tree(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut files = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = fs::read_dir(&d) else {
            continue;
        };
        for e in entries {
            let path = e.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let rel = path.strip_prefix(dir).unwrap().to_path_buf();
                files.insert(rel, fs::read(&path).unwrap());
            }
        }
    }
    files
}

/// `kfam check` exits 0 and warns about nothing.
fn check_clean(cwd: &Path, manifest: &str) -> Run {
    let run = expect(cwd, &["check", manifest], 0);
    assert!(
        !run.all().to_lowercase().contains("warning"),
        "a warning:\n{}",
        run.all()
    );
    run
}

/// The path a `#:schema` first line names, resolved from its file.
fn schema_of(file: &Path) -> PathBuf {
    let text = fs::read_to_string(file).unwrap();
    let first = text.lines().next().unwrap();
    let rel = first
        .strip_prefix("#:schema ")
        .expect("a #:schema first line");
    file.parent().unwrap().join(rel.trim())
}

#[test]
fn init_writes_a_manifest_that_checks_clean_and_generates() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let run = expect(root, &["init", "My Team-Kernels.v2"], 0);
    let dir = root.join("My Team-Kernels.v2");
    let files: Vec<PathBuf> = tree(&dir).into_keys().collect();
    assert_eq!(
        files,
        [
            Path::new("manifest/abi.toml"),
            Path::new("manifest/families/example_add.toml")
        ],
        "init writes the ABI and one family, nothing else"
    );
    assert!(
        run.stdout
            .contains("kfam generate 'My Team-Kernels.v2/manifest'"),
        "the next command, as a shell word:\n{}",
        run.stdout
    );
    let abi = fs::read_to_string(dir.join("manifest/abi.toml")).unwrap();
    assert!(abi.contains("name = \"my_team_kernels_v2\""), "{abi}");
    assert!(
        abi.contains("license = \"LicenseRef-Proprietary\""),
        "{abi}"
    );

    let check = check_clean(root, "My Team-Kernels.v2/manifest");
    assert!(
        check.stdout.contains("example_add r1 kernel"),
        "{}",
        check.stdout
    );
    assert!(
        check.stdout.contains("1 profiles, 1 receipts"),
        "{}",
        check.stdout
    );
    expect(
        root,
        &[
            "generate",
            "My Team-Kernels.v2/manifest",
            "--out",
            "My Team-Kernels.v2/generated",
        ],
        0,
    );
    assert!(dir.join("manifest/approved.lock").is_file());
    // The `#:schema` lines name the schemas `generate` wrote.
    for file in ["manifest/abi.toml", "manifest/families/example_add.toml"] {
        let schema = schema_of(&dir.join(file));
        assert!(
            schema.is_file(),
            "{file}: {} is not there",
            schema.display()
        );
    }
    let pyproject = fs::read_to_string(dir.join("generated/python/pyproject.toml")).unwrap();
    assert!(pyproject.contains("my_team_kernels_v2"), "{pyproject}");
    // Generated with its lock, the manifest still checks clean, and the
    // default output directory is the one `init` named.
    check_clean(&dir, "manifest");
    expect(&dir, &["generate", "manifest", "--check"], 0);
}

#[test]
fn init_in_the_current_directory_with_a_name_and_license() {
    let tmp = tempfile::tempdir().unwrap();
    let run = expect(
        tmp.path(),
        &[
            "init",
            "--name",
            "acme_ops",
            "--license",
            "MIT OR Apache-2.0",
        ],
        0,
    );
    assert!(
        run.stdout.contains("kfam check manifest\n"),
        "{}",
        run.stdout
    );
    let abi = fs::read_to_string(tmp.path().join("manifest/abi.toml")).unwrap();
    assert!(abi.contains("name = \"acme_ops\""), "{abi}");
    assert!(abi.contains("license = \"MIT OR Apache-2.0\""), "{abi}");
    // A C prefix is one word: a name with `_` gets its own.
    assert!(abi.contains("\nc_prefix = \"acmeops\"\n"), "{abi}");
    check_clean(tmp.path(), "manifest");
}

#[test]
fn init_falls_back_to_my_catalog() {
    let tmp = tempfile::tempdir().unwrap();
    // `tools`: C reserves names beginning with `to` and a letter.
    for dir in ["2024", "tools", "json"] {
        let run = expect(tmp.path(), &["init", dir], 0);
        assert!(run.stderr.contains("`my_catalog`"), "{}", run.stderr);
        let abi = fs::read_to_string(tmp.path().join(dir).join("manifest/abi.toml")).unwrap();
        assert!(abi.contains("name = \"my_catalog\""), "{abi}");
        check_clean(tmp.path(), &format!("{dir}/manifest"));
    }
}

#[test]
fn new_writes_every_kind_and_the_manifest_checks_clean() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    expect(root, &["init", "team"], 0);
    for kind in OperationKind::ALL {
        let family = format!("new_{kind}");
        let run = expect(
            root,
            &["new", &family, "--kind", kind.as_str(), "team/manifest"],
            0,
        );
        let path = format!("team/manifest/families/{family}.toml");
        assert!(
            run.stdout.contains(&format!("wrote {path}")),
            "{}",
            run.stdout
        );
        assert!(
            run.stdout.contains("`kfam generate team/manifest`"),
            "{}",
            run.stdout
        );
        let text = fs::read_to_string(root.join(&path)).unwrap();
        assert!(
            text.starts_with("#:schema ../../generated/schema/family.schema.json\n"),
            "{text}"
        );
        assert!(text.contains(&format!("[operation.{kind}]")), "{text}");
    }
    let check = check_clean(root, "team/manifest");
    for kind in OperationKind::ALL {
        assert!(
            check.stdout.contains(&format!("new_{kind} r1 kernel")),
            "{}",
            check.stdout
        );
    }
    let families = OperationKind::ALL.len() + 1;
    assert!(
        check
            .stdout
            .contains(&format!("checked {families} families: ok")),
        "{}",
        check.stdout
    );
    expect(root, &["generate", "team/manifest"], 0);
    check_clean(root, "team/manifest");
}

/// Each skeleton alone, in memory, beside the ABI `init` writes: no
/// diagnostic at all.
#[test]
fn every_skeleton_checks_without_a_diagnostic() {
    let abi = kfam_codegen::init::abi_toml("team", kfam_codegen::init::DEFAULT_LICENSE);
    for kind in OperationKind::ALL {
        let skeleton = kfam_codegen::init::Skeleton::of(&abi);
        let family = kfam_codegen::init::family_toml(*kind, "skeleton", "2026-01-31", &skeleton);
        let (ir, report) = kfam_codegen::check_sources(
            Some(("abi.toml".into(), abi.clone())),
            vec![("families/skeleton.toml".into(), family)],
        );
        assert!(
            ir.is_some() && report.diagnostics.is_empty(),
            "{kind}: {:?}",
            report.diagnostics
        );
    }
}

#[test]
fn new_defaults_to_the_manifest_directory() {
    let tmp = tempfile::tempdir().unwrap();
    expect(tmp.path(), &["init", "--name", "team"], 0);
    let run = expect(
        tmp.path(),
        &["new", "gelu_bf16", "--kind", "elementwise_unary"],
        0,
    );
    assert!(
        run.stdout
            .contains("wrote manifest/families/gelu_bf16.toml"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("`kfam generate`"), "{}", run.stdout);
    check_clean(tmp.path(), "manifest");
}

#[test]
fn init_refuses_an_existing_manifest() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    expect(root, &["init", "team"], 0);
    fs::write(root.join("team/manifest/abi.toml"), "# edited\n").unwrap();
    let before = tree(root);
    let run = expect(root, &["init", "team"], 2);
    assert!(run.stderr.contains("already exists"), "{}", run.stderr);
    assert_eq!(tree(root), before, "a refused init writes nothing");

    // Only the example family is there: still nothing written.
    let other = root.join("other/manifest/families");
    fs::create_dir_all(&other).unwrap();
    fs::write(other.join("example_add.toml"), "# mine\n").unwrap();
    let before = tree(root);
    let run = expect(root, &["init", "other"], 2);
    assert!(run.stderr.contains("example_add.toml"), "{}", run.stderr);
    assert_eq!(tree(root), before, "a refused init writes nothing");
}

#[test]
fn init_refuses_a_bad_name_or_license() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    for (args, expected) in [
        (&["init", "team", "--name", "Team"][..], "KF1201"),
        (&["init", "team", "--name", "json"][..], "KF1201"),
        (&["init", "team", "--name", "class"][..], "KF1201"),
        (&["init", "team", "--license", "MIT OR"][..], "KF1204"),
    ] {
        let run = expect(root, args, 2);
        assert!(run.stderr.contains(expected), "{args:?}: {}", run.stderr);
        assert!(run.stderr.contains("error"), "{}", run.stderr);
        assert!(tree(root).is_empty(), "{args:?} wrote something");
        assert!(
            !root.join("team").exists(),
            "{args:?} created the directory"
        );
    }
}

#[test]
fn new_refuses_an_existing_family_a_bad_name_and_no_manifest() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    expect(root, &["init", "team"], 0);
    fs::write(
        root.join("team/manifest/retired.toml"),
        "[[retired]]\nname = \"old_add\"\nrevision = 1\nidentity = \"00\"\nreason = \"gone\"\n",
    )
    .unwrap();
    let before = tree(root);
    for (family, expected) in [
        ("example_add", "already exists"),
        ("Gelu", "KF0101"),
        ("1gelu", "KF0101"),
        ("gelu__bf16", "KF0101"),
        ("gelu_", "KF0101"),
        ("", "KF0101"),
        ("class", "KF0102"),
        ("old_add", "KF1104"),
    ] {
        let run = expect(
            root,
            &["new", family, "--kind", "matmul", "team/manifest"],
            2,
        );
        assert!(run.stderr.contains(expected), "{family:?}: {}", run.stderr);
        assert_eq!(
            tree(root),
            before,
            "{family:?}: a refused new writes nothing"
        );
    }
    // Not a manifest directory.
    let run = expect(root, &["new", "gelu", "--kind", "custom", "team"], 2);
    assert!(run.stderr.contains("kfam init"), "{}", run.stderr);
    // An unknown kind: clap lists the kinds.
    let run = expect(root, &["new", "gelu", "--kind", "conv", "team/manifest"], 2);
    assert!(
        run.stderr.contains("paged_attention_decode"),
        "{}",
        run.stderr
    );
    assert_eq!(tree(root), before);
}
