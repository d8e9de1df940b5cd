//! The review gate (`approved.lock`, `retired.toml`) and `kfam diff`, end to
//! end: the real library functions and the real `kfam` binary, run on copies
//! of the fixtures in `tests/review/` (see `tests/review/README.md`).
//!
//! `SNAPSHOTS=overwrite cargo test -p kfam-codegen --test integration review::` rewrites
//! the `expected.txt` files; review them with `git diff`.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use kfam_codegen::diag::{Code, Report, Severity};
use kfam_codegen::diff::{self, Class, Rule};
use kfam_codegen::write::Problem;
use kfam_codegen::{check_dir, check_dir_ungated, generate_dir, GenerateOutcome};

use crate::support::root;
use crate::support::tree;
use tree::copy_dir;

fn fixtures() -> PathBuf {
    root().join("tests/review")
}

/// Every diff case: a directory of `tests/review/` holding `old/` and `new/`.
fn cases() -> Vec<(String, PathBuf)> {
    let mut cases: Vec<(String, PathBuf)> = fs::read_dir(fixtures())
        .expect("tests/review exists")
        .map(|e| e.expect("readable entry").path())
        .filter(|p| p.join("old").is_dir() && p.join("new").is_dir())
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), p))
        .collect();
    cases.sort();
    assert!(cases.len() >= Rule::ALL.len(), "too few diff cases");
    cases
}

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

/// Run the real binary in `cwd`.
fn kfam(cwd: &Path, args: &[&str]) -> Run {
    let out = Command::new(env!("CARGO_BIN_EXE_kfam"))
        .current_dir(cwd)
        .args(args)
        .output()
        .expect("kfam runs");
    Run {
        code: out.status.code().expect("exit code"),
        stdout: String::from_utf8(out.stdout).expect("utf-8 stdout"),
        stderr: String::from_utf8(out.stderr).expect("utf-8 stderr"),
    }
}

/// A scratch project: `<tmp>/manifest` is a copy of `tests/review/gate-base`
/// (families `add_bf16_1024` r1 and `matmul_bf16_128x64x128` r1, both locked);
/// `kfam generate` writes `<tmp>/generated`.
struct Project {
    tmp: tempfile::TempDir,
}

const ADD: &str = "families/add_bf16_1024.toml";
const MATMUL: &str = "families/matmul_bf16_128x64x128.toml";
const LOCK: &str = "approved.lock";
const RETIRED: &str = "retired.toml";
const ADD_DIGEST: &str = "5c1f0e3c8f0a4a57f0d7a3c2a7e1a4b0f6b3d5d8e2c9a1b7f4e6d3c2b1a09876";
const NEW_DIGEST: &str = "1111111111111111111111111111111111111111111111111111111111111111";
const NEWER_DIGEST: &str = "2222222222222222222222222222222222222222222222222222222222222222";

impl Project {
    fn new() -> Project {
        let tmp = tempfile::tempdir().unwrap();
        copy_dir(&fixtures().join("gate-base"), &tmp.path().join("manifest"));
        Project { tmp }
    }

    fn root(&self) -> &Path {
        self.tmp.path()
    }

    fn manifest(&self) -> PathBuf {
        self.root().join("manifest")
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.manifest().join(rel)
    }

    fn read(&self, rel: &str) -> String {
        fs::read_to_string(self.path(rel)).unwrap()
    }

    fn write(&self, rel: &str, text: &str) {
        fs::write(self.path(rel), text).unwrap();
    }

    fn remove(&self, rel: &str) {
        fs::remove_file(self.path(rel)).unwrap();
    }

    /// Replace every occurrence of `from` (which must occur) in `rel`.
    fn edit(&self, rel: &str, from: &str, to: &str) {
        let text = self.read(rel);
        assert!(text.contains(from), "`{from}` not in {rel}");
        self.write(rel, &text.replace(from, to));
    }

    fn kfam(&self, args: &[&str]) -> Run {
        kfam(self.root(), args)
    }

    /// The error codes of `check_dir` (the gated check), in report order.
    fn errors(&self) -> Vec<Code> {
        let (ir, report) = check_dir(&self.manifest());
        let codes = error_codes(&report);
        assert_eq!(ir.is_some(), codes.is_empty(), "{}", render(&report));
        codes
    }

    /// `kfam generate`, which must succeed.
    fn generate(&self) -> Run {
        let run = self.kfam(&["generate", "manifest"]);
        assert_eq!(run.code, 0, "generate failed:\n{}", run.stderr);
        run
    }

    /// `(name, revision)` of every lock entry, in file order.
    fn lock_entries(&self) -> Vec<(String, i64)> {
        let lock: toml::Table = self.read(LOCK).parse().unwrap();
        lock["family"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| {
                (
                    e["name"].as_str().unwrap().to_owned(),
                    e["revision"].as_integer().unwrap(),
                )
            })
            .collect()
    }

    /// The lock entry of `name`'s highest revision, as a tombstone.
    fn tombstone(&self, name: &str) -> String {
        let lock: toml::Table = self.read(LOCK).parse().unwrap();
        let entry = lock["family"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["name"].as_str() == Some(name))
            .max_by_key(|e| e["revision"].as_integer())
            .expect("locked");
        format!(
            "[[retired]]\nname = \"{name}\"\nrevision = {}\nidentity = \"{}\"\nreason = \"withdrawn\"\n",
            entry["revision"].as_integer().unwrap(),
            entry["identity"].as_str().unwrap()
        )
    }

    /// The contract change every scenario uses: fp16 instead of bf16 (on
    /// all three operands, as elementwise operations require).
    fn change_add_to_fp16(&self) {
        self.edit(ADD, "dtype = \"bf16\"", "dtype = \"fp16\"");
    }

    fn set_add_revision(&self, from: u32, to: u32) {
        self.edit(
            ADD,
            &format!("revision = {from}\n"),
            &format!("revision = {to}\n"),
        );
    }

    fn set_add_digest(&self, from: &str, to: &str) {
        self.edit(ADD, from, to);
    }
}

fn error_codes(report: &Report) -> Vec<Code> {
    report
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| d.code)
        .collect()
}

fn render(report: &Report) -> String {
    report.render_human(&annotate_snippets::Renderer::plain())
}

// ---------------------------------------------------------------------------
// `kfam diff` fixtures

/// What `expected.txt` holds: the command, its stdout and stderr, and the
/// exit code.
fn diff_transcript(case: &Path) -> String {
    let run = kfam(case, &["diff", "old", "new"]);
    let mut out = format!("$ kfam diff old new\n{}", run.stdout);
    if !run.stderr.is_empty() {
        out.push_str("--- stderr\n");
        out.push_str(&run.stderr);
    }
    out.push_str(&format!("exit code: {}\n", run.code));
    out
}

#[test]
fn diff_output_matches_expected() {
    for (_, dir) in cases() {
        snapbox::assert_data_eq!(
            diff_transcript(&dir),
            snapbox::Data::read_from(&dir.join("expected.txt"), None)
        );
    }
}

/// The changes of one case, through the library.
fn case_changes(dir: &Path) -> Vec<diff::Change> {
    let (old, old_report) = check_dir_ungated(&dir.join("old"));
    let (new, new_report) = check_dir_ungated(&dir.join("new"));
    let old = old.unwrap_or_else(|| panic!("{}/old:\n{}", dir.display(), render(&old_report)));
    let new = new.unwrap_or_else(|| panic!("{}/new:\n{}", dir.display(), render(&new_report)));
    diff::diff(&old, &new)
}

#[test]
fn every_diff_rule_has_a_case() {
    let mut produced = BTreeSet::new();
    for (name, dir) in cases() {
        let rules: BTreeSet<&str> = case_changes(&dir).iter().map(|c| c.rule.id()).collect();
        // A case named after a rule must produce that rule.
        if let Some(rule) = Rule::ALL.iter().find(|r| r.name() == name) {
            assert!(
                rules.contains(rule.id()),
                "case `{name}` does not produce {} (it produces {rules:?})",
                rule.id()
            );
        }
        produced.extend(rules);
    }
    let missing: Vec<String> = Rule::ALL
        .iter()
        .filter(|r| !produced.contains(r.id()))
        .map(|r| format!("{} {}", r.id(), r.name()))
        .collect();
    assert!(
        missing.is_empty(),
        "diff rules without a case in tests/review/ (add `tests/review/<rule-name>/{{old,new}}`): {missing:?}"
    );
}

#[test]
fn rule_table_is_consistent() {
    let ids: BTreeSet<&str> = Rule::ALL.iter().map(|r| r.id()).collect();
    let names: BTreeSet<&str> = Rule::ALL.iter().map(|r| r.name()).collect();
    assert_eq!(ids.len(), Rule::ALL.len(), "duplicate rule id");
    assert_eq!(names.len(), Rule::ALL.len(), "duplicate rule name");
    for r in Rule::ALL {
        assert!(r.id().len() == 5 && r.id().starts_with("KD"), "{}", r.id());
        assert!(!r.doc().is_empty());
    }
}

/// Each fixture's `old/approved.lock` is what `kfam generate` writes for
/// `old/`, `new/` carries the same lock (the change as proposed, before
/// generation), and `old/` passes the gate.
#[test]
fn fixture_locks_are_generated() {
    let mut dirs: Vec<PathBuf> = cases().into_iter().map(|(_, d)| d.join("old")).collect();
    dirs.push(fixtures().join("gate-base"));
    for old in dirs {
        let (ir, report) = check_dir(&old);
        assert!(ir.is_some(), "{}:\n{}", old.display(), render(&report));
        let out = tempfile::tempdir().unwrap();
        match generate_dir(&old, out.path(), true) {
            Ok(GenerateOutcome::Checked { problems, .. }) => assert!(
                !problems.iter().any(|p| matches!(p, Problem::LockStale(_))),
                "{}/approved.lock is stale: regenerate the fixture",
                old.display()
            ),
            other => panic!("{}: {other:?}", old.display()),
        }
        let new = old.with_file_name("new");
        if new.is_dir() {
            assert_eq!(
                fs::read_to_string(old.join(LOCK)).unwrap(),
                fs::read_to_string(new.join(LOCK)).unwrap(),
                "{}: new/approved.lock must equal old/approved.lock",
                new.display()
            );
        }
    }
}

#[test]
fn json_diff_is_one_object_per_change() {
    for (name, dir) in cases() {
        let changes = case_changes(&dir);
        let run = kfam(&dir, &["diff", "old", "new", "--message-format", "json"]);
        assert!(run.stderr.is_empty(), "{name}: {}", run.stderr);
        let lines: Vec<&str> = run.stdout.lines().collect();
        assert_eq!(lines.len(), changes.len(), "{name}: {}", run.stdout);
        for (line, change) in lines.iter().zip(&changes) {
            let v: serde_json::Value = serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("{name}: `{line}` is not JSON: {e}"));
            let obj = v.as_object().expect("an object");
            let keys: BTreeSet<&str> = obj.keys().map(String::as_str).collect();
            assert_eq!(
                keys,
                BTreeSet::from(["rule", "name", "class", "family", "message"]),
                "{name}"
            );
            assert_eq!(v["rule"], change.rule.id());
            assert_eq!(v["name"], change.rule.name());
            assert_eq!(v["class"], change.rule.class().to_string());
            assert_eq!(v["message"], change.message.as_str());
            match &change.family {
                Some(f) => assert_eq!(v["family"], f.as_str()),
                None => assert!(v["family"].is_null(), "{name}: ABI change with a family"),
            }
        }
        let breaking = changes.iter().any(|c| c.rule.class() == Class::Breaking);
        assert_eq!(run.code, i32::from(breaking), "{name}: exit code");
    }
}

#[test]
fn diff_refuses_a_manifest_with_errors() {
    let p = Project::new();
    p.edit(ADD, "op = \"add\"", "op = \"nope\"");
    let run = kfam(
        &root(),
        &[
            "diff",
            fixtures().join("gate-base").to_str().unwrap(),
            p.manifest().to_str().unwrap(),
        ],
    );
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("both manifests must check cleanly"));
    assert!(run.stdout.is_empty());
}

/// `kfam diff` is ungated: it compares a proposed change even when the gate
/// would still reject it (here: an unbumped edit of an approved revision).
#[test]
fn diff_ignores_the_gate() {
    let p = Project::new();
    p.change_add_to_fp16();
    assert_eq!(p.errors(), [Code::ApprovedChanged]);
    let base = fixtures().join("gate-base");
    let run = kfam(
        &root(),
        &[
            "diff",
            base.to_str().unwrap(),
            p.manifest().to_str().unwrap(),
        ],
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(run
        .stdout
        .contains("breaking   KD023 add_bf16_1024: param `out` dtype `bf16` -> `fp16`"));
}

// ---------------------------------------------------------------------------
// The gate: approved revisions are immutable

#[test]
fn editing_an_approved_revision_is_kf1101() {
    let p = Project::new();
    let lock = p.read(LOCK);
    p.change_add_to_fp16();

    let run = p.kfam(&["check", "manifest"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let err = &run.stderr;
    assert!(
        err.contains("error[KF1101]: approved revision 1 of `add_bf16_1024` changed"),
        "{err}"
    );
    assert!(
        err.contains("--> manifest/families/add_bf16_1024.toml:2:12"),
        "{err}"
    );
    for param in ["lhs", "rhs", "out"] {
        assert!(
            err.contains(&format!(
                "= note: KD023 param-dtype: param `{param}` dtype `bf16` -> `fp16`"
            )),
            "{err}"
        );
    }
    assert!(err.contains("help: bump to `revision = 2`"), "{err}");

    // The library says the same, and nothing else.
    let (ir, report) = check_dir(&p.manifest());
    assert!(ir.is_none());
    assert_eq!(error_codes(&report), [Code::ApprovedChanged]);
    assert!(report.diagnostics[0]
        .notes
        .contains(&"KD023 param-dtype: param `out` dtype `bf16` -> `fp16`".to_owned()));

    // Generation refuses, and leaves the lock alone.
    let run = p.kfam(&["generate", "manifest"]);
    assert_eq!(run.code, 1);
    assert!(run.stderr.contains("error[KF1101]"));
    assert_eq!(p.read(LOCK), lock);
    assert!(!p.root().join("generated").exists());
}

#[test]
fn kf1101_lists_structural_changes_by_name() {
    let p = Project::new();
    // Swap lhs and rhs in the signature: a change of order, not of fields.
    p.edit(
        ADD,
        "name = \"lhs\"\ndtype = \"bf16\"",
        "name = \"tmp\"\ndtype = \"bf16\"",
    );
    p.edit(
        ADD,
        "name = \"rhs\"\ndtype = \"bf16\"",
        "name = \"lhs\"\ndtype = \"bf16\"",
    );
    p.edit(
        ADD,
        "name = \"tmp\"\ndtype = \"bf16\"",
        "name = \"rhs\"\ndtype = \"bf16\"",
    );
    let (_, report) = check_dir(&p.manifest());
    assert_eq!(error_codes(&report), [Code::ApprovedChanged]);
    let notes = &report.diagnostics[0].notes;
    assert_eq!(
        notes,
        &[
            "KD022 param-moved: param `lhs` index 0 -> 1",
            "KD022 param-moved: param `rhs` index 1 -> 0",
        ],
    );
}

#[test]
fn summary_and_receipt_edits_need_no_bump() {
    let p = Project::new();
    p.edit(
        ADD,
        "summary = \"Elementwise BF16 addition",
        "summary = \"Elementwise bfloat16 addition",
    );
    p.edit(ADD, "note = \"add smoke\"", "note = \"add smoke, rerun\"");
    assert_eq!(p.errors(), []);
}

#[test]
fn bump_with_a_new_receipt_is_accepted_and_locked() {
    let p = Project::new();
    let before = p.read(LOCK);
    p.change_add_to_fp16();
    p.set_add_revision(1, 2);
    p.set_add_digest(ADD_DIGEST, NEW_DIGEST);

    let run = p.kfam(&["check", "manifest"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.contains("add_bf16_1024 r2 kernel"),
        "{}",
        run.stdout
    );

    // The lock is only written by generation.
    assert_eq!(p.read(LOCK), before);
    let run = p.generate();
    assert!(
        run.stdout.contains("wrote manifest/approved.lock"),
        "{}",
        run.stdout
    );
    let after = p.read(LOCK);

    // The new revision is added; the approved one is kept, byte for byte,
    // and entries stay ordered by name, then revision.
    assert_eq!(
        p.lock_entries(),
        [
            ("add_bf16_1024".to_owned(), 1),
            ("add_bf16_1024".to_owned(), 2),
            ("matmul_bf16_128x64x128".to_owned(), 1),
        ]
    );
    for block in before.split("\n\n").skip(1) {
        assert!(after.contains(block), "lost from the lock:\n{block}");
    }
    assert!(after.contains(&format!("receipts = [\"{NEW_DIGEST}\"]")));
    assert!(after.contains("\"dtype\":\"fp16\""));

    // The lock diff a reviewer reads is exactly one added entry.
    let blocks_before: Vec<&str> = before.split("\n\n").collect();
    let added: Vec<&str> = after
        .split("\n\n")
        .filter(|b| !blocks_before.contains(b))
        .collect();
    assert_eq!(added.len(), 1, "{added:#?}");
    assert!(
        added[0].starts_with("[[family]]\nname = \"add_bf16_1024\"\nrevision = 2\n"),
        "{}",
        added[0]
    );

    // Checked again against the new lock, still clean.
    assert_eq!(p.errors(), []);
}

#[test]
fn bump_reusing_the_approved_receipt_is_kf1106() {
    let p = Project::new();
    p.change_add_to_fp16();
    p.set_add_revision(1, 2);

    let run = p.kfam(&["check", "manifest"]);
    assert_eq!(run.code, 1);
    assert!(
        run.stderr.contains(
            "error[KF1106]: receipt of new revision 2 reuses the artifact of approved revision 1"
        ),
        "{}",
        run.stderr
    );
    // It points at the reused digest.
    let text = p.read(ADD);
    let line = text
        .lines()
        .position(|l| l.contains(ADD_DIGEST))
        .expect("digest line")
        + 1;
    assert!(
        run.stderr
            .contains(&format!("--> manifest/families/add_bf16_1024.toml:{line}:")),
        "{}",
        run.stderr
    );
    assert_eq!(p.errors(), [Code::ReceiptReused]);

    // Keeping the old receipt beside a new one is still a reuse.
    p.edit(
        ADD,
        "\n[[receipts]]",
        &format!(
            "\n[[receipts]]\nprofile = \"xdna2_onboard\"\ncodec = \"xdna.generated_add.v1\"\nartifact = \"xdna2/add_r2.elf\"\nsha256 = \"{NEW_DIGEST}\"\nevidence = {{ date = \"2026-12-01\", hardware = \"XDNA2\" }}\n\n[[receipts]]"
        ),
    );
    assert_eq!(p.errors(), [Code::ReceiptReused]);
}

#[test]
fn revision_below_the_locked_one_is_kf1103() {
    let p = Project::new();
    // Approve revision 3 (skipping 2 is allowed: revisions only move forward).
    p.change_add_to_fp16();
    p.set_add_revision(1, 3);
    p.set_add_digest(ADD_DIGEST, NEW_DIGEST);
    p.generate();
    assert_eq!(p.lock_entries()[..2].len(), 2);

    // Revision 2 is below 3 and not approved; the receipt is irrelevant.
    p.set_add_revision(3, 2);
    let run = p.kfam(&["check", "manifest"]);
    assert_eq!(run.code, 1);
    assert!(
        run.stderr
            .contains("error[KF1103]: revision 2 of `add_bf16_1024` is below approved revision 3"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("help: use `revision = 4`"),
        "{}",
        run.stderr
    );
    assert_eq!(p.errors(), [Code::RevisionRegressed]);

    // With a fresh receipt it is still KF1103, not a receipt problem.
    p.set_add_digest(NEW_DIGEST, NEWER_DIGEST);
    assert_eq!(p.errors(), [Code::RevisionRegressed]);

    // Revision 1 is approved: its locked identity is what counts.
    p.set_add_revision(2, 1);
    assert_eq!(p.errors(), [Code::ApprovedChanged]);
}

// ---------------------------------------------------------------------------
// The gate: the ABI surface compiled programs depend on

/// A change of the ABI surface that `kfam diff` classifies as breaking for
/// compiled programs (a renumbered status code, a changed limit, a removed
/// platform) fails `kfam check` and `kfam generate` with KF1110, each at
/// the key that changed, with the approved value beside it and a help that
/// says to raise `major`; raising `major` in the same change passes, and
/// the lock then records the new surface.
#[test]
fn an_abi_break_needs_a_raised_major_kf1110() {
    let p = Project::new();
    p.generate();
    assert!(
        p.read(LOCK).contains("\n[abi]\nmajor = 1\n"),
        "{}",
        p.read(LOCK)
    );

    p.edit(
        "abi.toml",
        "invalid_argument = -1004",
        "invalid_argument = -1014",
    );
    let run = p.kfam(&["check", "manifest"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    for said in [
        "error[KF1110]: status `invalid_argument` renumbered from -1004 to -1014 without raising `major` (1)",
        "--> manifest/abi.toml:18:20",
        "C programs compare the code they compiled in",
        "manifest/approved.lock:",
        "approved here",
        "= note: kfam diff: KD073 status-changed",
        "= help: raise `major = 2` in abi.toml: programs compiled against the catalog's header of major 1 must be rebuilt",
    ] {
        assert!(run.stderr.contains(said), "`{said}` not in:\n{}", run.stderr);
    }
    assert_eq!(p.errors(), [Code::AbiBreakWithoutMajor]);
    let gen = p.kfam(&["generate", "manifest"]);
    assert_eq!(gen.code, 1, "generate passes an ABI break: {}", gen.stderr);
    assert!(gen.stderr.contains("error[KF1110]"), "{}", gen.stderr);

    // Every mistake at once: a limit (either way) and removed platforms too.
    p.edit("abi.toml", "max_rank = 5", "max_rank = 6");
    p.edit("abi.toml", "max_prepared = 64", "max_prepared = 32");
    let declared = "\n[[platforms]]\nname = \"xdna2\"\ncode = 2\ndoc = \"AMD XDNA2 NPU.\"\n\
                    backends = [\"aie\"]\nruntimes = [\"xrt_direct\"]\nlayouts = [\"nd\", \"nchw\"]\n";
    p.write("abi.toml", &(p.read("abi.toml") + declared));
    let run = p.kfam(&["check", "manifest"]);
    for said in [
        "limit `max_rank` changed from 5 to 6 without raising `major` (1)",
        "note: kfam diff: KD072 abi-limit-raised",
        "limit `max_prepared` changed from 64 to 32",
        "note: kfam diff: KD071 abi-limit-lowered",
        "platform `a2a3` was removed without raising `major` (1)",
        "platform `a5` was removed without raising `major` (1)",
        "note: kfam diff: KD094 target-removed",
    ] {
        assert!(
            run.stderr.contains(said),
            "`{said}` not in:\n{}",
            run.stderr
        );
    }
    assert_eq!(p.errors(), [Code::AbiBreakWithoutMajor; 5]);

    // The fix the help offers: `major` raised. It passes, and the lock
    // records the surface it approved.
    p.edit("abi.toml", "major = 1", "major = 2");
    assert_eq!(p.errors(), []);
    p.generate();
    let lock = p.read(LOCK);
    for line in [
        "major = 2\n",
        "max_rank = 6\n",
        "max_prepared = 32\n",
        "invalid_argument = -1014\n",
        "targets = [\"platform xdna2\", ",
    ] {
        assert!(lock.contains(line), "{line}: {lock}");
    }
    // Against it, the same surface passes; lowering `major` again does not.
    assert_eq!(p.errors(), []);
    p.edit("abi.toml", "major = 2", "major = 1");
    let run = p.kfam(&["check", "manifest"]);
    assert!(
        run.stderr
            .contains("error[KF1110]: `major` is 1, below the approved major 2"),
        "{}",
        run.stderr
    );
}

/// A placeholder receipt is recognised by the documented rule (64 hex
/// digits, the first 32 zeros), not only as `kfam new`'s exact value:
/// replacing any such digest by a real receipt withdraws no artifact
/// (KD055 placeholder-receipt, compatible), where it was KD051
/// receipt-removed, breaking.
#[test]
fn any_placeholder_by_the_rule_is_kd055() {
    let p = Project::new();
    let placeholder = format!("{}{}", "0".repeat(32), "ab".repeat(16));
    p.edit(ADD, ADD_DIGEST, &placeholder);
    tree::copy_dir(&p.manifest(), &p.root().join("old"));
    p.edit(ADD, &placeholder, NEW_DIGEST);
    let run = kfam(p.root(), &["diff", "old", "manifest"]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout.contains(
            "compatible KD055 add_bf16_1024: placeholder receipt (profile `xdna2_onboard`) removed"
        ),
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains("KD051"), "{}", run.stdout);
}

/// A lock written before it recorded the ABI surface approves the surface
/// of the next generation, whatever it is.
#[test]
fn a_lock_without_the_abi_surface_approves_it_once() {
    let p = Project::new();
    let lock = p.read(LOCK);
    let start = lock
        .find("\n# The ABI surface")
        .expect("the fixture lock records it");
    let end = lock[start..].find("\n[[").map_or(lock.len(), |i| start + i);
    let mut without = lock.clone();
    without.replace_range(start..end, "\n");
    p.write(LOCK, &without);
    p.edit(
        "abi.toml",
        "invalid_argument = -1004",
        "invalid_argument = -1014",
    );
    assert_eq!(p.errors(), []);
    p.generate();
    assert!(p.read(LOCK).contains("invalid_argument = -1014\n"));
}

// ---------------------------------------------------------------------------
// The gate: removal is explicit

#[test]
fn removing_a_locked_family_is_kf1102() {
    let p = Project::new();
    p.remove(MATMUL);
    let run = p.kfam(&["check", "manifest"]);
    assert_eq!(run.code, 1);
    let err = &run.stderr;
    assert!(
        err.contains(
            "error[KF1102]: approved family `matmul_bf16_128x64x128` has no file in families/"
        ),
        "{err}"
    );
    // It points into the lock, at the last approved entry's name.
    let lock = p.read(LOCK);
    let line = lock
        .lines()
        .position(|l| l == "name = \"matmul_bf16_128x64x128\"")
        .unwrap()
        + 1;
    assert!(
        err.contains(&format!("--> manifest/approved.lock:{line}:8")),
        "{err}"
    );
    // The help is the tombstone to add, with the locked identity.
    let tombstone = p.tombstone("matmul_bf16_128x64x128");
    let identity_line = tombstone.lines().nth(3).unwrap();
    assert!(err.contains("[[retired]]"), "{err}");
    assert!(err.contains(identity_line), "{err}");
    assert_eq!(p.errors(), [Code::LockedFamilyRemoved]);

    // Generation refuses too.
    assert_eq!(p.kfam(&["generate", "manifest"]).code, 1);
    assert_eq!(p.read(LOCK), lock);
}

#[test]
fn retiring_with_a_tombstone_is_accepted() {
    let p = Project::new();
    let lock = p.read(LOCK);
    let tombstone = p.tombstone("matmul_bf16_128x64x128");
    p.remove(MATMUL);
    p.write(RETIRED, &tombstone);

    let run = p.kfam(&["check", "manifest"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.contains("checked 1 families: ok"),
        "{}",
        run.stdout
    );

    // The lock keeps the retired family's entries (its last identity is what
    // the tombstone matches), so generation leaves it unchanged.
    let run = p.generate();
    assert!(!run.stdout.contains("approved.lock"), "{}", run.stdout);
    assert_eq!(p.read(LOCK), lock);
    assert_eq!(p.errors(), []);
}

#[test]
fn wrong_tombstones_are_kf1105() {
    let name = "matmul_bf16_128x64x128";
    let good = |p: &Project| p.tombstone(name);

    // Wrong identity.
    let p = Project::new();
    let t = good(&p);
    p.remove(MATMUL);
    let identity = t.lines().nth(3).unwrap().to_owned();
    p.write(
        RETIRED,
        &t.replace(&identity, &format!("identity = \"{}\"", "ab".repeat(32))),
    );
    let run = p.kfam(&["check", "manifest"]);
    assert_eq!(run.code, 1);
    assert!(
        run.stderr.contains(&format!(
            "error[KF1105]: tombstone of `{name}` does not match the lock"
        )),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("--> manifest/retired.toml:1:1"),
        "{}",
        run.stderr
    );
    assert!(run
        .stderr
        .contains("the last approved revision is 1 with identity"));
    assert_eq!(p.errors(), [Code::BadTombstone]);

    // Wrong revision.
    p.write(RETIRED, &t.replace("revision = 1", "revision = 2"));
    assert_eq!(p.errors(), [Code::BadTombstone]);

    // A tombstone for a family that still has its file: only KF1105 (the
    // file is the approved contract, not a reuse of the name).
    let p = Project::new();
    p.write(RETIRED, &good(&p));
    let run = p.kfam(&["check", "manifest"]);
    assert_eq!(run.code, 1);
    assert!(
        run.stderr
            .contains("the family still has a file in families/"),
        "{}",
        run.stderr
    );
    assert_eq!(p.errors(), [Code::BadTombstone]);

    // A tombstone for a name the lock never approved.
    let p = Project::new();
    p.write(
        RETIRED,
        &good(&p).replace(&format!("name = \"{name}\""), "name = \"never_approved\""),
    );
    let run = p.kfam(&["check", "manifest"]);
    assert_eq!(run.code, 1);
    assert!(
        run.stderr.contains("approved.lock has no such family"),
        "{}",
        run.stderr
    );
    assert_eq!(p.errors(), [Code::BadTombstone]);

    // The same family retired twice.
    let p = Project::new();
    let t = good(&p);
    p.remove(MATMUL);
    p.write(RETIRED, &format!("{t}\n{t}"));
    let (_, report) = check_dir(&p.manifest());
    assert_eq!(error_codes(&report), [Code::BadTombstone]);
    assert_eq!(
        report.diagnostics[0].label.as_deref(),
        Some("retired twice")
    );
}

#[test]
fn reusing_a_retired_name_is_kf1104() {
    let name = "matmul_bf16_128x64x128";
    let p = Project::new();
    let original = p.read(MATMUL);
    p.write(RETIRED, &p.tombstone(name));
    p.remove(MATMUL);
    p.generate();

    // A different contract under the retired name, whatever its revision.
    for revision in ["revision = 1", "revision = 2"] {
        p.write(
            MATMUL,
            &original
                .replace("revision = 1", revision)
                .replace("direction = \"out\"", "direction = \"inout\""),
        );
        let run = p.kfam(&["check", "manifest"]);
        assert_eq!(run.code, 1);
        assert!(
            run.stderr
                .contains(&format!("error[KF1104]: family name `{name}` is retired")),
            "{}",
            run.stderr
        );
        assert!(
            run.stderr
                .contains("--> manifest/families/matmul_bf16_128x64x128.toml:1:8"),
            "{}",
            run.stderr
        );
        assert_eq!(p.errors(), [Code::RetiredNameReused]);
    }

    // Restoring the retired file unchanged is the tombstone's problem.
    p.write(MATMUL, &original);
    assert_eq!(p.errors(), [Code::BadTombstone]);
    // ... and dropping the tombstone un-retires it.
    p.remove(RETIRED);
    assert_eq!(p.errors(), []);
}

// ---------------------------------------------------------------------------
// The gate: the lock is written by generation, deterministically

#[test]
fn generate_check_reports_a_stale_lock() {
    let p = Project::new();
    p.generate();
    let run = p.kfam(&["generate", "manifest", "--check"]);
    assert_eq!(run.code, 0, "{}", run.stderr);

    // A new receipt for the approved revision: no bump needed, but the lock
    // records receipts, so it is stale until generation.
    p.edit(
        ADD,
        "\n[[receipts]]",
        &format!(
            "\n[[receipts]]\nprofile = \"xdna2_onboard\"\ncodec = \"xdna.generated_add.v1\"\nartifact = \"xdna2/add_bf16_1024.rebuild.elf\"\nsha256 = \"{NEW_DIGEST}\"\nevidence = {{ date = \"2026-12-01\", hardware = \"XDNA2\" }}\n\n[[receipts]]"
        ),
    );
    assert_eq!(p.errors(), []);
    let lock = p.read(LOCK);
    let run = p.kfam(&["generate", "manifest", "--check"]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert!(
        run.stderr
            .lines()
            .any(|l| l.starts_with("error: ") && l.contains("manifest/approved.lock")),
        "{}",
        run.stderr
    );
    assert_eq!(p.read(LOCK), lock, "--check wrote the lock");

    let run = p.generate();
    assert!(
        run.stdout.contains("wrote manifest/approved.lock"),
        "{}",
        run.stdout
    );
    let lock = p.read(LOCK);
    let mut sorted = [ADD_DIGEST, NEW_DIGEST];
    sorted.sort();
    assert!(
        lock.contains(&format!(
            "receipts = [\"{}\", \"{}\"]",
            sorted[0], sorted[1]
        )),
        "receipts are recorded sorted:\n{lock}"
    );
    let run = p.kfam(&["generate", "manifest", "--check"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
}

#[test]
fn generate_is_idempotent() {
    let p = Project::new();
    p.change_add_to_fp16();
    p.set_add_revision(1, 2);
    p.set_add_digest(ADD_DIGEST, NEW_DIGEST);
    p.generate();
    let lock = fs::read(p.path(LOCK)).unwrap();
    let run = p.generate();
    assert_eq!(fs::read(p.path(LOCK)).unwrap(), lock);
    assert!(
        run.stdout.contains("0 written, 0 removed"),
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains("approved.lock"), "{}", run.stdout);
}

#[test]
fn a_new_manifest_gets_a_lock() {
    let p = Project::new();
    p.remove(LOCK);
    assert_eq!(p.errors(), []);
    p.generate();
    assert_eq!(
        p.read(LOCK),
        fs::read_to_string(fixtures().join("gate-base").join(LOCK)).unwrap()
    );
}

/// A lock that does not parse must fail the check: otherwise generation
/// would rewrite it from the current families, dropping its history and
/// approving any edited revision.
#[test]
fn a_broken_lock_fails_and_is_not_rewritten() {
    let p = Project::new();
    p.change_add_to_fp16();
    let broken = p
        .read(LOCK)
        .replace("version = 1\n", "version = 1\n[[family\n");
    p.write(LOCK, &broken);
    let run = p.kfam(&["check", "manifest"]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert!(
        run.stderr.contains("manifest/approved.lock"),
        "{}",
        run.stderr
    );
    let run = p.kfam(&["generate", "manifest"]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert_eq!(p.read(LOCK), broken);
}

/// A locked family whose file does not parse gets its parse error, not a
/// claim that the file is missing.
#[test]
fn an_unparsable_locked_family_is_not_reported_as_removed() {
    let p = Project::new();
    p.edit(MATMUL, "m = 128", "m = [");
    let (ir, report) = check_dir(&p.manifest());
    assert!(ir.is_none());
    let codes = error_codes(&report);
    assert!(!codes.is_empty());
    assert!(!codes.contains(&Code::LockedFamilyRemoved), "{codes:?}");
}

/// The lock records every target's code and keeps it after the target is
/// removed: the code is never given to another member, and an approved
/// member is never renumbered.
#[test]
fn approved_target_codes_are_kept() {
    let p = Project::new();
    p.generate();
    let lock: toml::Table = p.read(LOCK).parse().unwrap();
    let targets = lock["target"].as_array().expect("[[target]] in the lock");
    assert!(
        targets
            .iter()
            .any(|t| t["kind"].as_str() == Some("platform")
                && t["name"].as_str() == Some("a5")
                && t["code"].as_integer() == Some(1)),
        "{targets:?}"
    );
    // Declare the platforms without `a5`: a break of compiled programs
    // (kfam diff: KD094), refused unless `major` is raised (KF1110); with it
    // allowed, and the lock keeps `a5`'s code.
    let platforms = |second: &str| {
        format!(
            "\n[[platforms]]\nname = \"a2a3\"\ncode = 0\ndoc = \"Ascend.\"\nbackends = [\"cce\", \"pto\"]\nruntimes = [\"host_build_graph\", \"tensormap_and_ringbuffer\"]\nlayouts = [\"nd\", \"nchw\", \"nz\"]\n\
             \n[[platforms]]\nname = \"xdna2\"\ncode = 2\ndoc = \"XDNA2.\"\nbackends = [\"aie\"]\nruntimes = [\"xrt_direct\"]\n{second}"
        )
    };
    let abi = p.read("abi.toml");
    p.write("abi.toml", &format!("{abi}{}", platforms("")));
    assert_eq!(p.errors(), [Code::AbiBreakWithoutMajor]);
    p.edit("abi.toml", "major = 1", "major = 2");
    let abi = abi.replace("major = 1", "major = 2");
    assert_eq!(p.errors(), []);
    p.generate();
    assert!(
        p.read(LOCK).contains("name = \"a5\"\ncode = 1"),
        "{}",
        p.read(LOCK)
    );
    // Its code for another platform is KF1109; renumbering one is KF1108.
    let b6 = "\n[[platforms]]\nname = \"b6\"\ncode = 1\ndoc = \"B6.\"\nbackends = [\"aie\"]\nruntimes = [\"xrt_direct\"]\n";
    p.write("abi.toml", &format!("{abi}{}", platforms(b6)));
    assert_eq!(p.errors(), [Code::TargetCodeReused]);
    p.write(
        "abi.toml",
        &format!("{abi}{}", platforms(&b6.replace("code = 1", "code = 3"))),
    );
    assert_eq!(p.errors(), []);
    let renumbered = platforms("").replace("code = 2", "code = 4");
    p.write("abi.toml", &format!("{abi}{renumbered}"));
    assert_eq!(p.errors(), [Code::TargetRenumbered]);
}

#[test]
fn check_json_names_review_codes() {
    let p = Project::new();
    p.change_add_to_fp16();
    let run = p.kfam(&["check", "manifest", "--message-format", "json"]);
    assert_eq!(run.code, 1);
    let v: serde_json::Value = serde_json::from_str(run.stderr.lines().next().unwrap()).unwrap();
    assert_eq!(v["code"], "KF1101");
    assert_eq!(v["file"], "manifest/families/add_bf16_1024.toml");
    assert_eq!(v["line"], 2);
    assert!(v["notes"]
        .as_array()
        .unwrap()
        .iter()
        .any(|n| n == "KD023 param-dtype: param `out` dtype `bf16` -> `fp16`"));
}

// ---------------------------------------------------------------------------
// docs/reviewing.md

#[test]
fn reviewing_doc_covers_every_rule_and_review_code() {
    let doc = fs::read_to_string(root().join("docs/reviewing.md")).expect("docs/reviewing.md");
    for r in Rule::ALL {
        let row = doc
            .lines()
            .find(|l| l.starts_with('|') && l.contains(&format!("`{}`", r.id())))
            .unwrap_or_else(|| panic!("docs/reviewing.md has no table row for {}", r.id()));
        assert!(
            row.contains(r.name()) && row.contains(&r.class().to_string()),
            "the row of {} must name `{}` and its class `{}`: {row}",
            r.id(),
            r.name(),
            r.class()
        );
    }
    let review: Vec<Code> = Code::ALL
        .iter()
        .copied()
        .filter(|c| c.as_str().starts_with("KF11"))
        .collect();
    assert!(review.len() >= 6);
    for c in review {
        assert!(
            doc.contains(c.as_str()),
            "docs/reviewing.md does not mention {}",
            c.as_str()
        );
    }
}
