//! Freshness (`codegen/src/fresh.rs`): a generate run over unchanged inputs
//! is answered from the stamp, and every change that a full run would act
//! on (a manifest edit, an edited, missing or leftover generated file, the
//! lock, a broken stamp) makes the next run a full one that repairs it.

use std::fs;
use std::path::Path;

use kfam_codegen::fresh::{fresh_outputs, Inputs, CACHE_DIR};
use kfam_codegen::origin::Origin;
use kfam_codegen::{generate_dir, GenerateOutcome};

fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), target).unwrap();
        }
    }
}

struct Tree {
    _dir: tempfile::TempDir,
    manifest: std::path::PathBuf,
    out: std::path::PathBuf,
}

impl Tree {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let manifest = dir.path().join("manifest");
        copy_dir(
            &Path::new(env!("CARGO_MANIFEST_DIR")).join("../manifest"),
            &manifest,
        );
        let out = dir.path().join("generated");
        Tree {
            _dir: dir,
            manifest,
            out,
        }
    }

    /// `(written, removed, unchanged)` of one generate run.
    fn generate(&self) -> (Vec<String>, Vec<String>, usize) {
        match generate_dir(&self.manifest, &self.out, false) {
            Ok(GenerateOutcome::Written { outcome, .. }) => {
                (outcome.written, outcome.removed, outcome.unchanged)
            }
            Ok(_) => panic!("not a write run"),
            Err(e) => panic!("generate failed: {:?}", error_messages(e)),
        }
    }

    /// Edit a family's summary (a change every output reflects); its path.
    fn edit_summary(&self) -> std::path::PathBuf {
        let family = self.manifest.join("families/silu_bf16.toml");
        let text = fs::read_to_string(&family).unwrap();
        fs::write(
            &family,
            text.replacen("summary = \"\"\"\n", "summary = \"\"\"\nEdited. ", 1),
        )
        .unwrap();
        family
    }

    fn fresh(&self) -> Option<usize> {
        let origin = Origin::of(&self.manifest, &self.out);
        let fresh = kfam_codegen::fresh::fresh(&self.manifest, &self.out, &origin);
        assert_eq!(
            fresh,
            fresh_outputs(&self.out, &Inputs::read(&self.manifest, &origin)?)
        );
        fresh
    }
}

fn error_messages(e: kfam_codegen::GenerateError) -> Vec<String> {
    match e {
        kfam_codegen::GenerateError::Manifest(r) => {
            r.diagnostics.iter().map(|d| d.message.clone()).collect()
        }
        other => vec![format!("{other:?}")],
    }
}

#[test]
fn unchanged_inputs_are_answered_from_the_stamp() {
    let t = Tree::new();
    let (written, _, _) = t.generate();
    assert!(!written.is_empty());
    let count = written.len();
    assert_eq!(t.fresh(), Some(count));
    assert_eq!(t.generate(), (vec![], vec![], count));
    // The cache ignores itself, so it is never committed with the output.
    assert_eq!(
        fs::read_to_string(t.out.join(CACHE_DIR).join(".gitignore")).unwrap(),
        "*\n"
    );
    // Files without the marker (bytecode caches, a README) do not matter.
    fs::create_dir_all(t.out.join("python/kfam/__pycache__")).unwrap();
    fs::write(t.out.join("python/kfam/__pycache__/x.pyc"), [0u8, 1, 2]).unwrap();
    assert_eq!(t.fresh(), Some(count));
    // `--check` agrees.
    match generate_dir(&t.manifest, &t.out, true) {
        Ok(GenerateOutcome::Checked { problems, .. }) => assert!(problems.is_empty()),
        _ => panic!("check run"),
    }
}

#[test]
fn a_manifest_edit_is_a_full_run() {
    let t = Tree::new();
    t.generate();
    let family = t.edit_summary();
    assert_eq!(t.fresh(), None);
    let (written, _, _) = t.generate();
    assert!(written.iter().any(|p| p == "rust/tables.rs"), "{written:?}");
    assert!(t.fresh().is_some());
    // CRLF line endings normalize to the same input: still fresh.
    let text = fs::read_to_string(&family).unwrap();
    fs::write(&family, text.replace('\n', "\r\n")).unwrap();
    assert!(t.fresh().is_some());
}

#[test]
fn edited_missing_and_leftover_outputs_are_repaired() {
    let t = Tree::new();
    let (all, _, _) = t.generate();
    let vocab = t.out.join("rust/vocab.rs");
    let good = fs::read_to_string(&vocab).unwrap();
    fs::write(&vocab, format!("{good}// edited\n")).unwrap();
    assert_eq!(t.fresh(), None);
    assert_eq!(t.generate().0, ["rust/vocab.rs"]);
    assert_eq!(fs::read_to_string(&vocab).unwrap(), good);

    fs::remove_file(&vocab).unwrap();
    assert_eq!(t.fresh(), None);
    assert_eq!(t.generate().0, ["rust/vocab.rs"]);

    // A leftover of an older kfam, under the banner it wrote then.
    let leftover = t.out.join("rust/old.rs");
    fs::write(
        &leftover,
        "// @generated by kfam: edit manifest/ and run `cargo run --bin kfam -- generate` \
         (or `cargo build`); do not edit\n",
    )
    .unwrap();
    assert_eq!(t.fresh(), None);
    assert_eq!(t.generate().1, ["rust/old.rs"]);
    assert_eq!(t.fresh(), Some(all.len()));
}

/// The banner names the output directory, so a moved output directory is
/// not fresh: the next run rewrites every banner.
#[test]
fn a_moved_output_directory_is_regenerated() {
    let mut t = Tree::new();
    let all = t.generate().0;
    let moved = t.out.with_file_name("out");
    fs::rename(&t.out, &moved).unwrap();
    t.out = moved;
    assert_eq!(t.fresh(), None);
    assert_eq!(t.generate().0, all);
    let first = fs::read_to_string(t.out.join("docs/families.md")).unwrap();
    assert!(
        first.starts_with(
            "<!-- @generated by kfam from manifest: do not edit; change the manifest and run \
             `kfam generate manifest --out out` -->\n"
        ),
        "{first}"
    );
    assert_eq!(t.fresh(), Some(all.len()));
}

#[test]
fn the_lock_and_a_broken_stamp_are_inputs() {
    let t = Tree::new();
    t.generate();
    let lock = t.manifest.join("approved.lock");
    let text = fs::read_to_string(&lock).unwrap();
    fs::write(&lock, format!("{text}# edited\n")).unwrap();
    assert_eq!(t.fresh(), None);
    t.generate();
    assert_eq!(fs::read_to_string(&lock).unwrap(), text);
    assert!(t.fresh().is_some());

    let stamp = t.out.join(CACHE_DIR).join("fresh");
    for broken in ["", "kfam-fresh 1\n", "not a stamp\n\n"] {
        fs::write(&stamp, broken).unwrap();
        assert_eq!(t.fresh(), None, "{broken:?}");
    }
    t.generate();
    assert!(t.fresh().is_some());
}

/// A run with warnings is never recorded: a fresh run prints nothing, and
/// the warnings must be printed every time.
#[test]
fn runs_with_warnings_are_not_recorded() {
    let t = Tree::new();
    // A new family with a profile no receipt names: a warning.
    let text = fs::read_to_string(t.manifest.join("families/add_bf16_1024.toml")).unwrap();
    let spare = text
        .replace("name = \"add_bf16_1024\"", "name = \"add_bf16_spare\"")
        .replace("sha256 = \"5c1f", "sha256 = \"6c1f")
        .replace(
            "[[receipts]]",
            "[[profiles]]\nname = \"xdna2_spare\"\nplatform = \"xdna2\"\nbackend = \"aie\"\n\
             runtime = \"xrt_direct\"\nexecution_mode = \"onboard\"\nbindings = [\n\
             { param = \"lhs\", slot = 0, kind = \"buffer_object\" },\n\
             { param = \"rhs\", slot = 1, kind = \"buffer_object\" },\n\
             { param = \"out\", slot = 2, kind = \"buffer_object\" },\n]\n\n[[receipts]]",
        );
    fs::write(t.manifest.join("families/add_bf16_spare.toml"), spare).unwrap();
    match generate_dir(&t.manifest, &t.out, false) {
        Ok(GenerateOutcome::Written { report, .. }) => {
            assert_eq!(report.error_count(), 0);
            assert!(!report.diagnostics.is_empty());
        }
        _ => panic!("a warning does not fail generate"),
    }
    assert_eq!(t.fresh(), None);
    assert!(!t.out.join(CACHE_DIR).join("fresh").exists());
}

#[test]
fn a_run_without_the_stamp_neither_reads_nor_leaves_one() {
    // The runtime's build script: cargo decides when it runs, so the
    // generator neither answers from a stamp nor records one.
    let t = Tree::new();
    let count = t.generate().0.len();
    assert_eq!(t.fresh(), Some(count));
    let no_stamp = kfam_codegen::GenerateOptions {
        check: false,
        stamp: false,
    };
    // Unchanged inputs: a full run all the same (nothing to write), which
    // removes the stamp it found, as every full run does, and records none.
    match kfam_codegen::generate_dir_with(&t.manifest, &t.out, no_stamp) {
        Ok(GenerateOutcome::Written { outcome, .. }) => {
            assert!(outcome.written.is_empty(), "{:?}", outcome.written);
            assert_eq!(outcome.unchanged, count);
        }
        _ => panic!("write run"),
    }
    assert_eq!(t.fresh(), None);
    // The next stamped run records one again; an edit run without the
    // stamp writes and leaves none.
    assert_eq!(t.generate(), (vec![], vec![], count));
    assert_eq!(t.fresh(), Some(count));
    t.edit_summary();
    match kfam_codegen::generate_dir_with(&t.manifest, &t.out, no_stamp) {
        Ok(GenerateOutcome::Written { outcome, .. }) => assert!(!outcome.written.is_empty()),
        _ => panic!("write run"),
    }
    assert_eq!(t.fresh(), None);
    assert!(!t.out.join(CACHE_DIR).join("fresh").exists());
}
