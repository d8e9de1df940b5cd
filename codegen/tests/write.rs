//! The writer's guarantees: write only what changed, atomically; delete and
//! overwrite only files that carry the marker; never follow a symlink out.

use std::fs;
use std::time::{Duration, SystemTime};

use kfam_codegen::emit::{marker_line, GeneratedFile};
use kfam_codegen::write::{check, write, Problem, WriteError};

fn file(path: &str, body: &str) -> GeneratedFile {
    GeneratedFile::new(path, format!("// {}\n{body}\n", marker_line()))
}

fn mtime(p: &std::path::Path) -> SystemTime {
    fs::metadata(p).unwrap().modified().unwrap()
}

#[test]
fn writes_only_changed_files() {
    let dir = tempfile::tempdir().unwrap();
    let files = vec![file("a/x.rs", "one"), file("b.h", "two")];
    let first = write(dir.path(), &files).unwrap();
    assert_eq!(first.written, ["a/x.rs", "b.h"]);
    let before = mtime(&dir.path().join("a/x.rs"));
    std::thread::sleep(Duration::from_millis(20));

    let again = write(dir.path(), &files).unwrap();
    assert!(again.written.is_empty() && again.removed.is_empty());
    assert_eq!(again.unchanged, 2);
    assert_eq!(
        mtime(&dir.path().join("a/x.rs")),
        before,
        "unchanged file was rewritten"
    );
    assert!(check(dir.path(), &files).unwrap().is_empty());

    let changed = vec![file("a/x.rs", "one"), file("b.h", "three")];
    assert_eq!(
        check(dir.path(), &changed).unwrap(),
        [Problem::Stale("b.h".into())]
    );
    assert_eq!(write(dir.path(), &changed).unwrap().written, ["b.h"]);
    // No temporary files are left behind.
    let names: Vec<_> = fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
}

/// Enough files for the writer's threads: every file lands whole, in its
/// directory, with no temporary file left, and the written list keeps the
/// input order.
#[test]
fn many_files_are_written_on_several_threads() {
    let dir = tempfile::tempdir().unwrap();
    let files: Vec<GeneratedFile> = (0..300)
        .map(|i| file(&format!("d{}/f{i:03}.txt", i % 7), &"x".repeat(i * 37)))
        .collect();
    let first = write(dir.path(), &files).unwrap();
    let paths: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(first.written, paths);
    for f in &files {
        assert_eq!(
            fs::read_to_string(dir.path().join(&f.path)).unwrap(),
            f.contents
        );
    }
    assert!(check(dir.path(), &files).unwrap().is_empty());

    let mut changed = files.clone();
    for f in changed.iter_mut().step_by(3) {
        *f = file(&f.path, "changed");
    }
    let again = write(dir.path(), &changed).unwrap();
    assert_eq!(again.written.len(), 100);
    assert_eq!(again.unchanged, 200);
    assert!(check(dir.path(), &changed).unwrap().is_empty());
    let names: Vec<String> = walk(dir.path());
    assert_eq!(names.len(), 300, "temporary files left: {names:?}");
}

fn walk(dir: &std::path::Path) -> Vec<String> {
    let mut out = Vec::new();
    for e in fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p.display().to_string());
        }
    }
    out
}

#[test]
fn crlf_checkouts_are_not_stale() {
    let dir = tempfile::tempdir().unwrap();
    let f = file("x.rs", "body");
    fs::write(dir.path().join("x.rs"), f.contents.replace('\n', "\r\n")).unwrap();
    assert!(check(dir.path(), std::slice::from_ref(&f))
        .unwrap()
        .is_empty());
    assert_eq!(write(dir.path(), &[f]).unwrap().unchanged, 1);
}

#[test]
fn removes_only_marked_leftovers() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        &[file("old.rs", "gone"), file("keep.rs", "kept")],
    )
    .unwrap();
    fs::write(dir.path().join("notes.txt"), "mine, not generated\n").unwrap();
    let files = vec![file("keep.rs", "kept")];
    let problems = check(dir.path(), &files).unwrap();
    assert_eq!(problems, [Problem::Unexpected("old.rs".into())]);
    let outcome = write(dir.path(), &files).unwrap();
    assert_eq!(outcome.removed, ["old.rs"]);
    assert!(
        dir.path().join("notes.txt").exists(),
        "a file without the marker was deleted"
    );
}

#[test]
fn refuses_to_overwrite_unmarked_file() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("x.rs"), "hand written\n").unwrap();
    let err = write(dir.path(), &[file("x.rs", "generated")]).unwrap_err();
    assert!(matches!(err, WriteError::NotGenerated { .. }), "{err}");
    assert_eq!(
        fs::read_to_string(dir.path().join("x.rs")).unwrap(),
        "hand written\n"
    );
    assert_eq!(
        check(dir.path(), &[file("x.rs", "generated")]).unwrap(),
        [Problem::Stale("x.rs".into())]
    );
}

#[test]
fn missing_files_are_reported_by_check() {
    let dir = tempfile::tempdir().unwrap();
    let problems = check(&dir.path().join("nowhere"), &[file("x.rs", "a")]).unwrap();
    assert_eq!(problems, [Problem::Missing("x.rs".into())]);
    assert!(
        !dir.path().join("nowhere").exists(),
        "check wrote something"
    );
}

#[cfg(unix)]
#[test]
fn refuses_symlinks_that_leave_the_output_directory() {
    let out = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(outside.path(), out.path().join("include")).unwrap();
    let err = write(out.path(), &[file("include/kfam.h", "x")]).unwrap_err();
    assert!(matches!(err, WriteError::SymlinkEscape { .. }), "{err}");
    assert!(
        fs::read_dir(outside.path()).unwrap().next().is_none(),
        "wrote outside the output directory"
    );

    // A symlink that stays inside is fine.
    fs::create_dir(out.path().join("real")).unwrap();
    std::os::unix::fs::symlink(out.path().join("real"), out.path().join("alias")).unwrap();
    write(out.path(), &[file("alias/x.h", "y")]).unwrap();
    assert!(out.path().join("real/x.h").exists());
}

#[test]
fn cli_generate_then_check() {
    let out = tempfile::tempdir().unwrap();
    let manifest = concat!(env!("CARGO_MANIFEST_DIR"), "/../manifest");
    let kfam = env!("CARGO_BIN_EXE_kfam");
    let run = |args: &[&str]| {
        std::process::Command::new(kfam)
            .args(args)
            .output()
            .unwrap()
    };
    let out_dir = out.path().to_str().unwrap();

    let check = run(&["generate", manifest, "--out", out_dir, "--check"]);
    assert_eq!(check.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&check.stderr);
    assert!(stderr.contains("missing: rust/tables.rs"), "{stderr}");
    assert!(stderr.contains("kfam -- generate"), "{stderr}");

    assert_eq!(
        run(&["generate", manifest, "--out", out_dir]).status.code(),
        Some(0)
    );
    let again = run(&["generate", manifest, "--out", out_dir]);
    assert!(String::from_utf8_lossy(&again.stdout).contains("0 written, 0 removed"));
    assert_eq!(
        run(&["generate", manifest, "--out", out_dir, "--check"])
            .status
            .code(),
        Some(0)
    );
}

// ---------------------------------------------------------------------------
// Robustness (see docs/security.md): symlinks at the file level, planted
// temporary names, refusals that leave the tree untouched, temporary files
// of other writers.

#[cfg(unix)]
#[test]
fn refuses_file_symlinks_that_leave_the_output_directory() {
    let out = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let victim = outside.path().join("victim.h");
    fs::write(&victim, "precious\n").unwrap();
    fs::create_dir_all(out.path().join("include")).unwrap();
    // A symlinked file, and a dangling one whose target would be created.
    std::os::unix::fs::symlink(&victim, out.path().join("include/kfam.h")).unwrap();
    std::os::unix::fs::symlink(
        outside.path().join("created.h"),
        out.path().join("include/new.h"),
    )
    .unwrap();
    for target in ["include/kfam.h", "include/new.h"] {
        let err = write(out.path(), &[file(target, "x")]).unwrap_err();
        assert!(
            matches!(err, WriteError::SymlinkEscape { .. }),
            "{target}: {err}"
        );
    }
    assert_eq!(fs::read_to_string(&victim).unwrap(), "precious\n");
    assert!(!outside.path().join("created.h").exists());
    // Leftover removal does not follow a symlink out either, even to a marked file.
    let marked = outside.path().join("marked.rs");
    fs::write(&marked, file("m.rs", "outside").contents).unwrap();
    std::os::unix::fs::symlink(&marked, out.path().join("old.rs")).unwrap();
    write(out.path(), &[file("keep.rs", "k")]).unwrap();
    assert!(marked.exists(), "followed a symlink out to delete a file");
}

#[cfg(unix)]
#[test]
fn planted_temporary_names_are_never_followed() {
    let out = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let victim = outside.path().join("victim");
    fs::write(&victim, "precious\n").unwrap();
    // Every temporary name this process could pick for `x.rs` next.
    let pid = std::process::id();
    for n in 0..4000 {
        std::os::unix::fs::symlink(
            &victim,
            out.path().join(format!(".x.rs.{pid}.{n}.kfam-tmp")),
        )
        .unwrap();
    }
    // The writer skips taken names (a bounded number of times) and never
    // opens them: whatever the outcome, the victim is untouched.
    let _ = write(out.path(), &[file("x.rs", "generated")]);
    assert_eq!(fs::read_to_string(&victim).unwrap(), "precious\n");
}

#[test]
fn a_refusal_leaves_the_tree_untouched() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), &[file("a.rs", "old")]).unwrap();
    fs::write(dir.path().join("b.rs"), "hand written\n").unwrap();
    let before = fs::read_to_string(dir.path().join("a.rs")).unwrap();
    // a.rs would change, but b.rs is not kfam's: nothing is written.
    let err = write(dir.path(), &[file("a.rs", "new"), file("b.rs", "gen")]).unwrap_err();
    assert!(matches!(err, WriteError::NotGenerated { .. }), "{err}");
    assert_eq!(fs::read_to_string(dir.path().join("a.rs")).unwrap(), before);
    assert_eq!(
        fs::read_to_string(dir.path().join("b.rs")).unwrap(),
        "hand written\n"
    );
}

#[test]
fn only_abandoned_kfam_temporary_files_are_removed() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, &[file("x.rs", "x")]).unwrap();
    // A writer that is gone (no such process): removed by the next run.
    let dead = ".x.rs.4294967294.0.kfam-tmp";
    fs::write(d.join(dead), "").unwrap();
    // A running writer (a concurrent generator): left alone.
    let mut live = std::process::Command::new("sleep")
        .arg("30")
        .spawn()
        .unwrap();
    let running = format!(".x.rs.{}.3.kfam-tmp", live.id());
    fs::write(d.join(&running), "partial").unwrap();
    // Not kfam's naming, unmarked: never removed, whatever the suffix.
    for other in [
        "notes.kfam-tmp",
        ".x.rs.kfam-tmp",
        ".x.rs.12.kfam-tmp",
        ".x.rs.a.1.kfam-tmp",
    ] {
        fs::write(d.join(other), "mine\n").unwrap();
    }
    assert_eq!(
        check(d, &[file("x.rs", "x")]).unwrap(),
        [Problem::Unexpected(dead.into())]
    );
    let outcome = write(d, &[file("x.rs", "x")]).unwrap();
    assert_eq!(outcome.removed, [dead]);
    assert!(d.join(&running).exists(), "removed a running writer's file");
    for other in [
        "notes.kfam-tmp",
        ".x.rs.kfam-tmp",
        ".x.rs.12.kfam-tmp",
        ".x.rs.a.1.kfam-tmp",
    ] {
        assert!(d.join(other).exists(), "removed {other}");
    }
    let _ = live.kill();
    let _ = live.wait();
    // Its writer is gone now: the next run removes it.
    assert_eq!(write(d, &[file("x.rs", "x")]).unwrap().removed, [running]);
}

#[test]
fn abandoned_lock_temporaries_are_removed_by_the_next_run() {
    let root = tempfile::tempdir().unwrap();
    let manifest = root.path().join("manifest");
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../manifest");
    fs::create_dir_all(manifest.join("families")).unwrap();
    for name in ["abi.toml", "approved.lock", "retired.toml"] {
        fs::copy(repo.join(name), manifest.join(name)).unwrap();
    }
    for e in fs::read_dir(repo.join("families")).unwrap() {
        let p = e.unwrap().path();
        fs::copy(&p, manifest.join("families").join(p.file_name().unwrap())).unwrap();
    }
    let dead = manifest.join(".approved.lock.4294967294.7.kfam-tmp");
    fs::write(&dead, "# half a lock").unwrap();
    let mine = manifest.join(".approved.lock.backup");
    fs::write(&mine, "mine").unwrap();
    kfam_codegen::generate_dir(&manifest, &root.path().join("generated"), false).unwrap();
    assert!(!dead.exists(), "an abandoned lock temporary survived");
    assert!(mine.exists());
}
