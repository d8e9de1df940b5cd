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

#[test]
fn crlf_checkouts_are_not_stale() {
    let dir = tempfile::tempdir().unwrap();
    let f = file("x.rs", "body");
    fs::write(dir.path().join("x.rs"), f.contents.replace('\n', "\r\n")).unwrap();
    assert!(check(dir.path(), &[f.clone()]).unwrap().is_empty());
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
