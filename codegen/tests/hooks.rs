//! The pre-commit hooks of `.pre-commit-hooks.yaml` run as pre-commit
//! runs them (`entry` split on spaces, from the repository's root, no file
//! names): clean on a fresh catalog, failing once the manifest and the
//! outputs disagree.

use std::path::Path;
use std::process::Command;

/// Each hook's `id` and `entry`, read from the file (one `key: value`
/// per line, as it is written).
fn hooks() -> Vec<(String, Vec<String>)> {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("../.pre-commit-hooks.yaml");
    let text = std::fs::read_to_string(file).unwrap();
    let mut hooks = Vec::new();
    let mut id = None;
    for line in text.lines() {
        if let Some(v) = line.strip_prefix("- id: ") {
            id = Some(v.trim().to_owned());
        } else if let Some(v) = line.trim_start().strip_prefix("entry: ") {
            let words: Vec<String> = v.split_whitespace().map(str::to_owned).collect();
            assert_eq!(words[0], "kfam", "{v}");
            hooks.push((id.take().expect("entry after its id"), words));
        } else if let Some(v) = line.trim_start().strip_prefix("pass_filenames: ") {
            assert_eq!(v.trim(), "false", "the hooks take no file names");
        }
    }
    hooks
}

fn run(root: &Path, args: &[String]) -> (bool, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_kfam"))
        .current_dir(root)
        .args(args)
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

#[test]
fn the_hooks_pass_on_a_fresh_catalog_and_fail_on_a_stale_one() {
    let hooks = hooks();
    let ids: Vec<&str> = hooks.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(ids, ["kfam-check", "kfam-generate-check"]);
    let root = tempfile::tempdir().unwrap();
    let words = |w: &[&str]| w.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
    let (ok, text) = run(root.path(), &words(&["init", "--name", "team"]));
    assert!(ok, "{text}");
    let (ok, text) = run(root.path(), &words(&["generate"]));
    assert!(ok, "{text}");
    for (id, entry) in &hooks {
        let (ok, text) = run(root.path(), &entry[1..]);
        assert!(ok, "{id} fails on a fresh catalog:\n{text}");
    }
    // A summary edited without regenerating: the outputs are stale.
    let family = root.path().join("manifest/families/example_add.toml");
    let old = std::fs::read_to_string(&family).unwrap();
    let new = old.replacen("summary = \"\"\"\n", "summary = \"\"\"\nEdited. ", 1);
    assert_ne!(old, new);
    std::fs::write(&family, new).unwrap();
    let (ok, text) = run(root.path(), &hooks[1].1[1..]);
    assert!(!ok && text.contains("stale"), "{text}");
    // A mistake in the manifest: `kfam check` fails.
    std::fs::write(&family, old.replacen("revision = 1", "revision = 0", 1)).unwrap();
    let (ok, text) = run(root.path(), &hooks[0].1[1..]);
    assert!(!ok && text.contains("error"), "{text}");
}
