//! Crash-safe output, shown with the real binary:
//!
//! - `kfam generate` killed (SIGKILL) after random short delays, many times,
//!   switching the manifest between two states each time: every file in
//!   `generated/` (and `approved.lock`) is always byte-identical to either
//!   its old or its new version, no file is ever missing, leftover
//!   temporary files are only kfam's own `.kfam-tmp` files, and the next
//!   complete run removes them and leaves exactly the new output;
//! - two `kfam generate` runs at once on the same tree (cargo and an
//!   editor's build script do this) both succeed and leave exactly the
//!   expected tree, also when one of them is killed.
//!
//! The expected trees are computed in-process by the same library
//! (`generate_dir` on scratch copies). Symlink and marker guarantees are in
//! `write.rs`.

use crate::support::root;
use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Kill iterations (each one run of the generator, killed at a random time).
const KILLS: usize = 80;
/// Concurrent pairs (each two generators started together).
const PAIRS: usize = 16;

const KFAM: &str = env!("CARGO_BIN_EXE_kfam");

/// The manifest inputs of one state: family files and the lock as found.
#[derive(Clone)]
struct Inputs {
    families: Vec<(String, String)>,
    lock: String,
}

fn shipped_inputs() -> Inputs {
    let dir = root().join("manifest");
    let mut families: Vec<(String, String)> = fs::read_dir(dir.join("families"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                fs::read_to_string(&p).unwrap(),
            )
        })
        .collect();
    families.sort();
    Inputs {
        families,
        lock: fs::read_to_string(dir.join("approved.lock")).unwrap(),
    }
}

/// Families `changed_inputs` adds.
const EXTRA_FAMILIES: usize = 70;

/// The shipped manifest with one summary reworded and families added: every
/// output and the lock change, and more than 64 files are written.
fn changed_inputs(base: &Inputs) -> Inputs {
    let mut families = base.families.clone();
    // A summary is not part of the identity: the lock does not change for it.
    let (_, text) = families
        .iter_mut()
        .find(|(n, _)| n == "matmul_bf16_128x64x128.toml")
        .expect("matmul_bf16_128x64x128.toml");
    let reworded = text.replacen("BF16 matrix multiplication", "Reworded: BF16 matmul", 1);
    assert_ne!(&reworded, text, "the summary to reword moved");
    *text = reworded;
    let (_, template) = base
        .families
        .iter()
        .find(|(n, _)| n == "add_bf16_1024.toml")
        .expect("add_bf16_1024.toml")
        .clone();
    // Enough new families (one example document each) that the run writes
    // more than `write::BATCH_FILES` files: the batched writer is killed too.
    for i in 0..EXTRA_FAMILIES {
        let name = format!("crash_safety_extra_{i:02}");
        let extra = template
            .replace("name = \"add_bf16_1024\"", &format!("name = \"{name}\""))
            .replace(
                "5c1f0e3c8f0a4a57f0d7a3c2a7e1a4b0f6b3d5d8e2c9a1b7f4e6d3c2b1a09876",
                &format!("ab{i:062x}"),
            );
        assert_ne!(extra, template);
        families.push((format!("{name}.toml"), extra));
    }
    families.sort();
    Inputs {
        families,
        lock: base.lock.clone(),
    }
}

/// Make `dir/manifest` hold exactly `inputs` (abi from the repository).
fn install(dir: &Path, inputs: &Inputs) {
    let m = dir.join("manifest");
    let fams = m.join("families");
    fs::create_dir_all(&fams).unwrap();
    fs::copy(root().join("manifest/abi.toml"), m.join("abi.toml")).unwrap();
    fs::copy(root().join("manifest/retired.toml"), m.join("retired.toml")).unwrap();
    for e in fs::read_dir(&fams).unwrap() {
        fs::remove_file(e.unwrap().path()).unwrap();
    }
    for (name, text) in &inputs.families {
        fs::write(fams.join(name), text).unwrap();
    }
    fs::write(m.join("approved.lock"), &inputs.lock).unwrap();
}

/// Every regular file below `dir`, by `/`-separated relative path, but the
/// freshness stamp's cache (`.kfam-cache/`, not an output: it names the
/// generator and the manifest directory that made it).
fn snapshot(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = fs::read_dir(&d) else {
            continue;
        };
        for e in entries {
            let e = e.unwrap();
            let ft = e.file_type().unwrap();
            if ft.is_dir() {
                if e.file_name() != kfam_codegen::fresh::CACHE_DIR {
                    stack.push(e.path());
                }
            } else if ft.is_file() {
                let rel = e
                    .path()
                    .strip_prefix(dir)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                if let Ok(bytes) = fs::read(e.path()) {
                    out.insert(rel, bytes);
                }
            }
        }
    }
    out
}

/// What a complete run on `inputs` leaves: `generated/` and the lock.
struct Expected {
    generated: BTreeMap<String, Vec<u8>>,
    lock: Vec<u8>,
}

fn expected(inputs: &Inputs) -> Expected {
    let scratch = tempfile::tempdir().unwrap();
    install(scratch.path(), inputs);
    let m = scratch.path().join("manifest");
    if let Err(e) = kfam_codegen::generate_dir(&m, &scratch.path().join("generated"), false) {
        panic!("reference generation failed: {e:?}");
    }
    Expected {
        generated: snapshot(&scratch.path().join("generated")),
        lock: fs::read(m.join("approved.lock")).unwrap(),
    }
}

fn is_kfam_tmp(rel: &str) -> bool {
    let name = rel.rsplit('/').next().unwrap();
    name.starts_with('.') && name.ends_with(kfam_codegen::write::TMP_SUFFIX)
}

fn spawn(root: &Path) -> Child {
    Command::new(KFAM)
        .arg("generate")
        .arg(root.join("manifest"))
        .arg("--out")
        .arg(root.join("generated"))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn kfam")
}

/// Every file whole-old or whole-new, none missing; returns how many files
/// were new and how many temporary files were left.
fn assert_whole(root: &Path, old: &Expected, new: &Expected, context: &str) -> (usize, usize) {
    let tree = snapshot(&root.join("generated"));
    let (mut fresh, mut tmp) = (0, 0);
    for (rel, bytes) in &tree {
        if is_kfam_tmp(rel) {
            tmp += 1;
            continue;
        }
        let is_old = old.generated.get(rel) == Some(bytes);
        let is_new = new.generated.get(rel) == Some(bytes);
        assert!(
            is_old || is_new,
            "{context}: generated/{rel} is neither the old nor the new version ({} bytes)",
            bytes.len()
        );
        if is_new && !is_old {
            fresh += 1;
        }
    }
    for rel in old.generated.keys() {
        if new.generated.contains_key(rel) {
            assert!(
                tree.contains_key(rel),
                "{context}: generated/{rel} was lost"
            );
        }
    }
    let m = root.join("manifest");
    let lock = fs::read(m.join("approved.lock")).expect("approved.lock lost");
    assert!(
        lock == old.lock || lock == new.lock,
        "{context}: approved.lock is neither old nor new"
    );
    for rel in snapshot(&m).keys() {
        assert!(
            rel == "abi.toml"
                || rel == "approved.lock"
                || rel == "retired.toml"
                || rel.starts_with("families/")
                || is_kfam_tmp(rel),
            "{context}: unexpected file manifest/{rel}"
        );
    }
    (fresh, tmp)
}

fn assert_exact(root: &Path, want: &Expected, context: &str) {
    let tree = snapshot(&root.join("generated"));
    let leftovers: Vec<&String> = tree.keys().filter(|r| is_kfam_tmp(r)).collect();
    assert!(
        leftovers.is_empty(),
        "{context}: temporary files left: {leftovers:?}"
    );
    let paths: BTreeSet<&String> = tree.keys().collect();
    let want_paths: BTreeSet<&String> = want.generated.keys().collect();
    assert_eq!(paths, want_paths, "{context}: generated/ file set");
    for (rel, bytes) in &tree {
        assert!(
            &want.generated[rel] == bytes,
            "{context}: generated/{rel} differs"
        );
    }
    let m = root.join("manifest");
    assert!(
        fs::read(m.join("approved.lock")).unwrap() == want.lock,
        "{context}: approved.lock differs"
    );
    let tmp: Vec<String> = snapshot(&m)
        .into_keys()
        .filter(|r| is_kfam_tmp(r))
        .collect();
    assert!(
        tmp.is_empty(),
        "{context}: temporary files in manifest/: {tmp:?}"
    );
}

fn run_to_completion(root: &Path, context: &str) {
    let out = spawn(root).wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{context}: kfam generate failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Modification times of the files below `generated/` and of the lock.
fn mtimes(root: &Path) -> BTreeMap<PathBuf, std::time::SystemTime> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.join("generated")];
    while let Some(d) = stack.pop() {
        let Ok(entries) = fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let Ok(m) = e.metadata() else { continue };
            if m.is_dir() {
                stack.push(e.path());
            } else if let Ok(t) = m.modified() {
                out.insert(e.path(), t);
            }
        }
    }
    out
}

/// Wait until the generator has started writing (a file below
/// `generated/` appeared or changed); `None` when it exited first.
fn first_write(
    root: &Path,
    child: &mut Child,
    before: &BTreeMap<PathBuf, std::time::SystemTime>,
) -> Option<Instant> {
    let deadline = Instant::now() + Duration::from_secs(30);
    while Instant::now() < deadline {
        if child.try_wait().unwrap().is_some() {
            return None;
        }
        if mtimes(root) != *before {
            return Some(Instant::now());
        }
        std::thread::sleep(Duration::from_micros(100));
    }
    None
}

/// A deterministic delay source (xorshift).
struct Rng(u64);
impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n.max(1)
    }
}

#[test]
fn generator_killed_at_any_point_leaves_whole_files() {
    let old_inputs = shipped_inputs();
    let new_inputs = changed_inputs(&old_inputs);
    let (old, new) = (expected(&old_inputs), expected(&new_inputs));
    assert_ne!(old.lock, new.lock, "the change must reach the lock");
    let changed = old
        .generated
        .iter()
        .filter(|(k, v)| new.generated.get(*k) != Some(v))
        .count();
    assert!(
        changed >= 5,
        "the change must reach most outputs ({changed})"
    );

    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    install(root, &old_inputs);
    run_to_completion(root, "initial run");
    assert_exact(root, &old, "initial run");

    // How long a complete run takes here, and how long its writing phase
    // (from the first file written to the exit) takes.
    install(root, &new_inputs);
    let before = mtimes(root);
    let start = Instant::now();
    let mut child = spawn(root);
    let first = first_write(root, &mut child, &before);
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "timing run failed");
    let full = start.elapsed();
    let writing = first
        .map_or(full / 4, |t| t.elapsed())
        .max(Duration::from_millis(1));
    let full_us = full.as_micros() as u64;
    let writing_us = writing.as_micros() as u64;

    let mut rng = Rng(0x5eed_1234_abcd_0001);
    let (mut mixed, mut with_tmp, mut finished, mut in_writing) = (0, 0, 0, 0);
    for i in 0..KILLS {
        // Alternate the direction; the lock is the one a developer has
        // before approving (the new family's entry is added by the run).
        let inputs = if i % 2 == 0 { &old_inputs } else { &new_inputs };
        install(
            root,
            &Inputs {
                lock: old_inputs.lock.clone(),
                ..inputs.clone()
            },
        );
        let before = mtimes(root);
        let mut child = spawn(root);
        if i % 3 == 0 {
            // Anywhere in the run.
            std::thread::sleep(Duration::from_micros(rng.below(full_us * 12 / 10)));
        } else if first_write(root, &mut child, &before).is_some() {
            // Within the writing phase.
            in_writing += 1;
            std::thread::sleep(Duration::from_micros(rng.below(writing_us * 8 / 10)));
        }
        if child.try_wait().unwrap().is_some() {
            finished += 1;
        }
        let _ = child.kill(); // SIGKILL
        let _ = child.wait();
        let context = format!("kill {i}");
        let (fresh, tmp) = assert_whole(root, &old, &new, &context);
        let total = old.generated.len();
        if fresh > 0 && fresh < changed.min(total) {
            mixed += 1;
        }
        if tmp > 0 {
            with_tmp += 1;
        }
    }
    eprintln!(
        "crash_safety: {KILLS} kills over a {}ms run ({}ms writing; {in_writing} aimed at it): \
         {mixed} left a mix of old and new files, {with_tmp} left temporary files, \
         {finished} had already finished",
        full.as_millis(),
        writing.as_millis()
    );
    // The next complete run cleans up and leaves exactly the new output.
    install(
        root,
        &Inputs {
            lock: old_inputs.lock.clone(),
            ..new_inputs.clone()
        },
    );
    run_to_completion(root, "final run");
    assert_exact(root, &new, "final run");
    assert!(
        finished < KILLS,
        "no kill landed before the end of a run; the test shows nothing"
    );
}

#[test]
fn concurrent_generators_leave_a_consistent_tree() {
    let old_inputs = shipped_inputs();
    let new_inputs = changed_inputs(&old_inputs);
    let (old, new) = (expected(&old_inputs), expected(&new_inputs));
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    install(root, &old_inputs);
    run_to_completion(root, "initial run");
    let mut rng = Rng(0xc0c0_2b2b_0000_0007);
    for i in 0..PAIRS {
        let (inputs, want) = if i % 2 == 0 {
            (&new_inputs, &new)
        } else {
            (&old_inputs, &old)
        };
        install(
            root,
            &Inputs {
                lock: old_inputs.lock.clone(),
                ..inputs.clone()
            },
        );
        let a = spawn(root);
        let b = spawn(root);
        let kill_one = i % 4 == 3;
        let (a, b) = if kill_one {
            // One of the pair dies mid-run; the other must still succeed.
            let mut a = a;
            std::thread::sleep(Duration::from_millis(rng.below(40)));
            let _ = a.kill();
            let _ = a.wait();
            (None, b)
        } else {
            (Some(a), b)
        };
        for (name, child) in [("first", a), ("second", Some(b))] {
            let Some(child) = child else { continue };
            let out = child.wait_with_output().unwrap();
            assert!(
                out.status.success(),
                "pair {i}: the {name} generator failed: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        if kill_one {
            // Whole files at once; the killed run's leftovers go with the next run.
            assert_whole(root, &old, &new, &format!("pair {i}"));
            run_to_completion(root, &format!("pair {i}, rerun"));
        }
        assert_exact(root, want, &format!("pair {i}"));
    }
}
