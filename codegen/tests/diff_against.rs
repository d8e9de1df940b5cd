//! `kfam diff --against REV [MANIFEST_DIR]`: the real `kfam` binary on
//! temporary git repositories whose commits are the review fixtures of
//! `tests/review/` (docs/reviewing.md, "Comparing with a git revision").
//!
//! These tests need the `git` binary and fail (never skip) without it. Git
//! runs with no global or system configuration, and never looks for a
//! repository above the temporary directory.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::support::root;
use crate::support::tree;
use tree::copy_dir;

fn fixtures() -> PathBuf {
    root().join("tests/review")
}

/// `git` or `kfam` with an environment that only the test decides: no
/// user or system git configuration, no repository above `ceiling`, none
/// of the variables a git hook sets.
fn isolated(program: &Path, cwd: &Path, ceiling: &Path) -> Command {
    let mut c = Command::new(program);
    c.current_dir(cwd)
        .env("GIT_CONFIG_GLOBAL", ceiling.join("no-global-gitconfig"))
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CEILING_DIRECTORIES", ceiling)
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE")
        .env_remove("GIT_OBJECT_DIRECTORY")
        .env_remove("GIT_COMMON_DIR");
    c
}

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

impl Run {
    fn of(c: &mut Command) -> Run {
        let out = c.output().expect("the program runs");
        Run {
            code: out.status.code().expect("exit code"),
            stdout: String::from_utf8(out.stdout).expect("utf-8 stdout"),
            stderr: String::from_utf8(out.stderr).expect("utf-8 stderr"),
        }
    }
}

/// A scratch git repository in a temporary directory.
struct Repo {
    tmp: tempfile::TempDir,
}

impl Repo {
    /// `git init` with a local identity (a missing `git` fails here).
    fn new() -> Repo {
        let repo = Repo::bare_dir();
        repo.git(&["init", "-q"]);
        repo.git(&["config", "user.name", "kfam tests"]);
        repo.git(&["config", "user.email", "kfam-tests@example.invalid"]);
        repo.git(&["config", "commit.gpgsign", "false"]);
        repo
    }

    /// A temporary directory that is no repository.
    fn bare_dir() -> Repo {
        let tmp = tempfile::tempdir().unwrap();
        fs::create_dir(tmp.path().join("work")).unwrap();
        Repo { tmp }
    }

    fn root(&self) -> PathBuf {
        self.tmp.path().join("work")
    }

    fn git(&self, args: &[&str]) -> String {
        let run = Run::of(isolated(Path::new("git"), &self.root(), self.tmp.path()).args(args));
        assert_eq!(run.code, 0, "git {args:?} failed: {}", run.stderr);
        run.stdout
    }

    /// Make `rel` (a directory of the work tree; `""` for the top, where
    /// only `abi.toml` and `families/` are replaced) a copy of `from`.
    fn put(&self, from: &Path, rel: &str) {
        let to = self.root().join(rel);
        if rel.is_empty() {
            let _ = fs::remove_file(to.join("abi.toml"));
            let _ = fs::remove_dir_all(to.join("families"));
        } else if to.exists() {
            fs::remove_dir_all(&to).unwrap();
        }
        copy_dir(from, &to);
    }

    /// Commit everything in the work tree (even when nothing changed).
    fn commit(&self, message: &str) {
        self.git(&["add", "-A"]);
        self.git(&["commit", "-q", "--allow-empty", "-m", message]);
    }

    /// `kfam ARGS` in `cwd` (relative to the work tree).
    fn kfam_in(&self, cwd: &str, args: &[&str]) -> Run {
        let bin = Path::new(env!("CARGO_BIN_EXE_kfam"));
        Run::of(isolated(bin, &self.root().join(cwd), self.tmp.path()).args(args))
    }

    fn kfam(&self, args: &[&str]) -> Run {
        self.kfam_in("", args)
    }
}

/// The review case `case`'s old tree committed as `manifest/` at `rel`,
/// then its new tree in a second commit.
fn two_commits(case: &str, rel: &str) -> Repo {
    let repo = Repo::new();
    fs::write(repo.root().join("README"), "a repository with a catalog\n").unwrap();
    repo.put(&fixtures().join(case).join("old"), rel);
    repo.commit(&format!("{case}: old"));
    repo.put(&fixtures().join(case).join("new"), rel);
    repo.commit(&format!("{case}: new"));
    repo
}

/// `kfam diff old new` in the review case's directory.
fn two_dirs(case: &str, format: &str) -> Run {
    Run::of(
        Command::new(env!("CARGO_BIN_EXE_kfam"))
            .current_dir(fixtures().join(case))
            .args(["diff", "old", "new", "--message-format", format]),
    )
}

/// Every review case gives the same changes, output and exit code against
/// the commit of its old tree as `kfam diff old new` does: the same
/// classification, in the human and JSON formats.
#[test]
fn every_review_case_classifies_as_with_two_directories() {
    let mut cases: Vec<String> = fs::read_dir(fixtures())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("old").is_dir() && p.join("new").is_dir())
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    cases.sort();
    assert!(cases.len() > 30, "too few review cases: {cases:?}");
    let repo = Repo::new();
    let mut codes = Vec::new();
    for case in &cases {
        repo.put(&fixtures().join(case).join("old"), "manifest");
        repo.commit(&format!("{case}: old"));
        repo.put(&fixtures().join(case).join("new"), "manifest");
        repo.commit(&format!("{case}: new"));
        for format in ["human", "json"] {
            let expected = two_dirs(case, format);
            let actual = repo.kfam(&["diff", "--against", "HEAD~1", "--message-format", format]);
            assert_eq!(
                (actual.code, &actual.stdout, &actual.stderr),
                (expected.code, &expected.stdout, &expected.stderr),
                "{case}, --message-format {format}"
            );
        }
        codes.push(two_dirs(case, "human").code);
    }
    assert!(codes.contains(&0) && codes.contains(&1), "{codes:?}");
}

#[test]
fn a_breaking_change_exits_1_with_its_rule() {
    let repo = two_commits("param-dtype", "manifest");
    let run = repo.kfam(&["diff", "--against", "HEAD~1"]);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout
            .contains("breaking   KD023 add_bf16_1024: param `lhs` dtype `bf16` -> `fp16`"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.ends_with("3 changes, 3 breaking\n"),
        "{}",
        run.stdout
    );
    // MANIFEST_DIR given, and a branch name as the revision.
    repo.git(&["branch", "base", "HEAD~1"]);
    let run = repo.kfam(&[
        "diff",
        "--against",
        "base",
        "manifest",
        "--message-format",
        "json",
    ]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let first: Value = serde_json::from_str(run.stdout.lines().next().unwrap()).unwrap();
    assert_eq!(first["rule"], "KD023");
    assert_eq!(first["class"], "breaking");
}

#[test]
fn a_compatible_change_exits_0() {
    let repo = two_commits("receipt-added", "manifest");
    let run = repo.kfam(&["diff", "--against", "HEAD~1"]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout.contains("compatible KD050 add_bf16_1024"),
        "{}",
        run.stdout
    );
    // Against the commit the work tree matches: nothing changed.
    let run = repo.kfam(&["diff", "--against", "HEAD"]);
    assert_eq!(
        (run.code, run.stdout.as_str()),
        (0, "0 changes, 0 breaking\n")
    );
}

/// The new tree is the work tree, uncommitted edits included.
#[test]
fn the_work_tree_is_compared_uncommitted_edits_included() {
    let repo = Repo::new();
    repo.put(&fixtures().join("param-dtype/old"), "manifest");
    repo.commit("old");
    repo.put(&fixtures().join("param-dtype/new"), "manifest");
    let run = repo.kfam(&["diff", "--against", "HEAD"]);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    assert!(run.stdout.contains("KD023"), "{}", run.stdout);
}

/// A catalog below the top of its repository, run from the top and from
/// the catalog's parent (where `manifest` is the default directory); the
/// revision's files are named `REV:path/from/the/top`.
#[test]
fn a_manifest_in_a_subdirectory_of_the_repository() {
    let rel = "catalogs/team-a/manifest";
    let repo = two_commits("family-removed", rel);
    let expected =
        "breaking   KD002 matmul_bf16_128x64x128: family `matmul_bf16_128x64x128` removed\n\
                    1 changes, 1 breaking\n";
    let run = repo.kfam(&["diff", "--against", "HEAD~1", rel]);
    assert_eq!(
        (run.code, run.stdout.as_str()),
        (1, expected),
        "{}",
        run.stderr
    );
    let run = repo.kfam_in("catalogs/team-a", &["diff", "--against", "HEAD~1"]);
    assert_eq!(
        (run.code, run.stdout.as_str()),
        (1, expected),
        "{}",
        run.stderr
    );

    // The removed family's file exists only at the revision.
    let run = repo.kfam(&[
        "diff",
        "--against",
        "HEAD~1",
        rel,
        "--message-format",
        "github",
    ]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(
        run.stdout,
        "::error file=HEAD~1%3Acatalogs/team-a/manifest/families/matmul_bf16_128x64x128.toml,\
         title=KD002 family-removed (breaking)::family `matmul_bf16_128x64x128` removed\n"
    );
    let run = repo.kfam(&[
        "diff",
        "--against",
        "HEAD~1",
        rel,
        "--message-format",
        "sarif",
    ]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let log = valid_sarif(&run.stdout);
    assert_eq!(
        log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
        "HEAD~1%3Acatalogs/team-a/manifest/families/matmul_bf16_128x64x128.toml",
        "`:` is percent-encoded: the uri is a relative path, not a scheme"
    );
}

/// A manifest at the top of its repository: the revision's files are
/// `REV:families/...`.
#[test]
fn a_manifest_at_the_top_of_the_repository() {
    let repo = Repo::new();
    repo.put(&fixtures().join("family-removed/old"), "");
    repo.commit("old");
    repo.put(&fixtures().join("family-removed/new"), "");
    repo.commit("new");
    let run = repo.kfam(&[
        "diff",
        "--against",
        "HEAD~1",
        ".",
        "--message-format",
        "github",
    ]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stdout
            .starts_with("::error file=HEAD~1%3Afamilies/matmul_bf16_128x64x128.toml,"),
        "{}",
        run.stdout
    );
}

/// An old tree that does not check is reported with its files named at the
/// revision (the snippet read from git), and nothing is compared.
#[test]
fn errors_of_the_revision_name_its_files() {
    let repo = Repo::new();
    let rel = "catalogs/team-a/manifest";
    repo.put(&fixtures().join("param-dtype/old"), rel);
    let family = repo.root().join(rel).join("families/add_bf16_1024.toml");
    let text = fs::read_to_string(&family).unwrap();
    fs::write(
        &family,
        text.replacen("dtype = \"bf16\"", "dtype = \"bf17\"", 1),
    )
    .unwrap();
    repo.commit("a typo");
    repo.put(&fixtures().join("param-dtype/old"), rel);
    repo.commit("fixed");
    let run = repo.kfam_in(
        "catalogs",
        &["diff", "--against", "HEAD~1", "team-a/manifest"],
    );
    assert_eq!(run.code, 2, "{}", run.stdout);
    assert!(run.stderr.contains("error[KF0006]"), "{}", run.stderr);
    assert!(
        run.stderr
            .contains("--> HEAD~1:catalogs/team-a/manifest/families/add_bf16_1024.toml:"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("\"bf17\""),
        "the snippet: {}",
        run.stderr
    );
    assert!(
        run.stderr
            .ends_with("error: both manifests must check cleanly before they can be compared\n"),
        "{}",
        run.stderr
    );
    assert_eq!(run.stdout, "");
}

/// The usage errors: exit 2, one `KF0001` diagnostic with a location and
/// a help, then one line saying nothing was compared.
fn usage_error(run: &Run, rev: &str, message: &str, location: &str) {
    assert_eq!(run.code, 2, "{}{}", run.stdout, run.stderr);
    assert_eq!(run.stdout, "");
    let lines: Vec<&str> = run.stderr.lines().collect();
    assert_eq!(
        lines[0],
        format!("error[KF0001]: {message}"),
        "{}",
        run.stderr
    );
    assert_eq!(lines[1], format!("--> {location}"), "{}", run.stderr);
    assert!(run.stderr.contains(" = help: "), "{}", run.stderr);
    assert_eq!(
        lines.last().copied(),
        Some(
            format!("error: the manifest at `{rev}` cannot be read, so nothing was compared")
                .as_str()
        ),
        "{}",
        run.stderr
    );
}

#[test]
fn an_unknown_revision_is_a_usage_error() {
    let repo = two_commits("param-dtype", "manifest");
    let run = repo.kfam(&["diff", "--against", "no-such-branch"]);
    usage_error(
        &run,
        "no-such-branch",
        "unknown revision `no-such-branch`: no commit of the repository has this name",
        "manifest",
    );
    assert!(
        run.stderr.contains("git fetch origin main"),
        "{}",
        run.stderr
    );
    // Past the first commit; a tree is no commit; an option is no revision.
    for rev in ["HEAD~2", "HEAD^{tree}", "--version"] {
        let run = repo.kfam(&["diff", &format!("--against={rev}")]);
        usage_error(
            &run,
            rev,
            &format!("unknown revision `{rev}`: no commit of the repository has this name"),
            "manifest",
        );
    }
    // JSON: the diagnostic as `kfam check` prints one.
    let run = repo.kfam(&["diff", "--against", "nope", "--message-format", "json"]);
    assert_eq!(run.code, 2);
    let d: Value = serde_json::from_str(run.stderr.lines().next().unwrap()).unwrap();
    assert_eq!(d["code"], "KF0001");
    assert_eq!(d["file"], "manifest");
    assert!(d["help"].as_str().unwrap().contains("git fetch"), "{d}");
    // SARIF: a log, even so.
    let run = repo.kfam(&["diff", "--against", "nope", "--message-format", "sarif"]);
    assert_eq!(run.code, 2);
    let log = valid_sarif(&run.stdout);
    assert_eq!(log["runs"][0]["results"][0]["ruleId"], "KF0001");
}

#[test]
fn outside_a_repository_is_a_usage_error() {
    let dir = Repo::bare_dir();
    dir.put(&fixtures().join("param-dtype/new"), "manifest");
    let run = dir.kfam(&["diff", "--against", "HEAD"]);
    usage_error(
        &run,
        "HEAD",
        "the manifest directory is not in a git work tree",
        "manifest",
    );
    assert!(
        run.stderr
            .contains("= note: git: fatal: not a git repository"),
        "{}",
        run.stderr
    );
}

/// A manifest the revision does not have is an error, not an empty old
/// catalog: a wrong path or revision must not pass as "everything added".
#[test]
fn a_manifest_the_revision_does_not_have_is_a_usage_error() {
    let repo = Repo::new();
    fs::write(repo.root().join("README"), "no catalog yet\n").unwrap();
    repo.commit("before the catalog");
    repo.put(&fixtures().join("param-dtype/old"), "manifest");
    repo.commit("the catalog");
    let run = repo.kfam(&["diff", "--against", "HEAD~1"]);
    usage_error(
        &run,
        "HEAD~1",
        "the manifest directory did not exist at `HEAD~1`",
        "HEAD~1:manifest",
    );
    assert!(
        run.stderr.contains("`kfam check` checks a new catalog"),
        "{}",
        run.stderr
    );
    // The manifest's path was a file at the revision.
    let repo = Repo::new();
    fs::write(repo.root().join("manifest"), "a file\n").unwrap();
    repo.commit("a file named manifest");
    repo.git(&["rm", "-q", "manifest"]);
    repo.put(&fixtures().join("param-dtype/old"), "manifest");
    repo.commit("the catalog");
    let run = repo.kfam(&["diff", "--against", "HEAD~1"]);
    usage_error(
        &run,
        "HEAD~1",
        "expected the manifest directory, found a file or a symbolic link",
        "HEAD~1:manifest",
    );
}

/// Without `git` the command fails and says so.
#[test]
fn without_git_it_is_a_usage_error() {
    let repo = two_commits("param-dtype", "manifest");
    let empty = repo.tmp.path().join("empty-path");
    fs::create_dir(&empty).unwrap();
    let bin = Path::new(env!("CARGO_BIN_EXE_kfam"));
    let run = Run::of(
        isolated(bin, &repo.root(), repo.tmp.path())
            .env("PATH", &empty)
            .args(["diff", "--against", "HEAD~1"]),
    );
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.starts_with("error[KF0001]: cannot run `git`: "),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("install git"), "{}", run.stderr);
}

/// `--against` takes at most the manifest directory; two directories
/// without it, as before.
#[test]
fn against_and_two_directories_exclude_each_other() {
    let repo = two_commits("param-dtype", "manifest");
    let run = repo.kfam(&["diff", "--against", "HEAD~1", "manifest", "manifest"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .contains("the argument '--against <REV>' cannot be used with '[NEW_DIR]'"),
        "{}",
        run.stderr
    );
    let run = repo.kfam(&["diff", "manifest"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("<NEW_DIR>"), "{}", run.stderr);
    let run = repo.kfam(&["diff", "manifest", "manifest"]);
    assert_eq!(
        (run.code, run.stdout.as_str()),
        (0, "0 changes, 0 breaking\n")
    );
}

/// A family file the revision holds as a symbolic link is not followed (its
/// target is another path of the revision): reported like a directory
/// where a file belongs.
#[cfg(unix)]
#[test]
fn a_symbolic_link_at_the_revision_is_reported() {
    let repo = Repo::new();
    repo.put(&fixtures().join("family-removed/old"), "manifest");
    let link = repo
        .root()
        .join("manifest/families/matmul_bf16_128x64x128.toml");
    fs::rename(&link, repo.root().join("matmul.toml")).unwrap();
    std::os::unix::fs::symlink("../../matmul.toml", &link).unwrap();
    repo.commit("a linked family");
    fs::remove_file(&link).unwrap();
    fs::rename(repo.root().join("matmul.toml"), &link).unwrap();
    let run = repo.kfam(&["diff", "--against", "HEAD"]);
    assert_eq!(run.code, 2, "{}", run.stdout);
    assert!(
        run.stderr.starts_with(
            "error[KF0001]: expected a file, found a symbolic link\n\
             --> HEAD:manifest/families/matmul_bf16_128x64x128.toml\n"
        ),
        "{}",
        run.stderr
    );
}

/// Parse a SARIF log and validate it against the SARIF 2.1.0 schema
/// (`tests/ci/sarif/`).
fn valid_sarif(text: &str) -> Value {
    let schema_path = root().join("tests/ci/sarif/sarif-2.1.0.json");
    let schema: Value = serde_json::from_str(&fs::read_to_string(schema_path).unwrap()).unwrap();
    let validator = jsonschema::validator_for(&schema).expect("the SARIF schema compiles");
    let log: Value = serde_json::from_str(text).expect("stdout is one JSON document");
    let errors: Vec<String> = validator
        .iter_errors(&log)
        .map(|e| format!("{} at {}", e, e.instance_path))
        .collect();
    assert!(errors.is_empty(), "invalid SARIF: {errors:#?}");
    log
}
