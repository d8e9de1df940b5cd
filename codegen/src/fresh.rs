//! Freshness: `kfam generate` over a manifest, a generator and an output
//! directory that are all as the last clean run left them has nothing to
//! write, and says so without loading and checking the manifest again, as
//! cargo does for a fresh crate.
//!
//! A clean run (no diagnostic at all) records a stamp in
//! `<out>/.kfam-cache/fresh`: one digest over the generator (its executable's
//! bytes), the manifest directory, the origin the outputs' first line names
//! (the manifest and output directories relative to each other, which moving
//! either changes) and every manifest file the loader reads
//! (paths and normalized text, sorted by path, then the lock as written:
//! last, so a run can digest the rest before it has written the lock),
//! then the digest of each generated file. The next run recomputes the
//! first digest from the files; when it matches and every generated file
//! (and no other marker file) is there with the recorded digest, the run
//! is fresh. Anything else, or any
//! error reading the stamp, is a full run. A full run removes the stamp
//! before it writes, so a run that fails halfway leaves none. Decision and
//! figures: docs/performance.md ("Nothing to write").

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use xxhash_rust::xxh3::{xxh3_128, Xxh3};

use crate::emit::GeneratedFile;
use crate::load;
use crate::origin::Origin;

/// The cache directory inside the output directory; it carries a
/// `.gitignore` of `*`, so it is never committed with `generated/`.
pub const CACHE_DIR: &str = ".kfam-cache";
const STAMP: &str = "fresh";
const FORMAT: &str = "kfam-fresh 4";

/// The stamp's digests are XXH3-128, not SHA-256: the stamp detects change,
/// not tampering (whoever can rewrite the stamp can rewrite the outputs it
/// vouches for), and at 10,000 families a run digests about 140 MB, which
/// SHA-256 spent about 7% of the run's CPU time on.
fn digest(bytes: &[u8]) -> String {
    format!("{:032x}", xxh3_128(bytes))
}

/// The digest of everything a run's outputs depend on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Inputs(String);

/// Digest of the running generator: its executable (the `kfam` binary, or
/// the build script that links the generator). `None` when unreadable.
fn generator() -> Option<&'static str> {
    static DIGEST: OnceLock<Option<String>> = OnceLock::new();
    DIGEST
        .get_or_init(|| {
            let exe = std::env::current_exe().ok()?;
            Some(digest(&fs::read(exe).ok()?))
        })
        .as_deref()
}

/// The input digest being computed: files must come sorted by path.
struct InputHasher(Xxh3);

impl InputHasher {
    fn new(manifest_dir: &Path, origin: &Origin) -> Option<Self> {
        let mut h = Xxh3::new();
        h.update(FORMAT.as_bytes());
        h.update(generator()?.as_bytes());
        let dir = fs::canonicalize(manifest_dir).ok()?;
        h.update(dir.to_string_lossy().as_bytes());
        h.update(b"\0");
        h.update(origin.banner().as_bytes());
        Some(InputHasher(h))
    }

    fn file(&mut self, path: &str, text: &str) {
        self.0.update(b"\0");
        self.0.update(path.as_bytes());
        self.0.update(&(text.len() as u64).to_le_bytes());
        self.0.update(text.as_bytes());
    }

    fn finish(self) -> Inputs {
        Inputs(format!("{:032x}", self.0.digest128()))
    }
}

/// An input digest waiting for the lock: every other manifest file is in.
pub struct Pending {
    hasher: InputHasher,
    lock: PathBuf,
}

impl Pending {
    /// The digest, with the lock's normalized text as this run leaves it.
    pub fn finish(mut self, lock: &str) -> Inputs {
        self.hasher.file(&load::display(&self.lock), lock);
        self.hasher.finish()
    }
}

impl Inputs {
    /// Begin the digest of a run whose outputs come from `origin` from
    /// `(display path, normalized text)` of every manifest file it read, in
    /// any order; the lock, which the run rewrites, is left for
    /// [`Pending::finish`].
    pub fn begin<'a>(
        manifest_dir: &Path,
        origin: &Origin,
        files: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Option<Pending> {
        let mut hasher = InputHasher::new(manifest_dir, origin)?;
        let lock = manifest_dir.join(load::LOCK_FILE);
        let lock_display = load::display(&lock);
        let files: BTreeMap<&str, &str> = files
            .into_iter()
            .filter(|&(path, _)| path != lock_display)
            .collect();
        for (path, text) in files {
            hasher.file(path, text);
        }
        Some(Pending { hasher, lock })
    }

    /// Read every file the loader would read in `manifest_dir` and digest
    /// them (with `origin`), one at a time; `None` when one cannot be read
    /// or decoded (then the full run reports it).
    pub fn read(manifest_dir: &Path, origin: &Origin) -> Option<Self> {
        let mut h = InputHasher::new(manifest_dir, origin)?;
        let lock = manifest_dir.join(load::LOCK_FILE);
        let (lock, rest): (Vec<PathBuf>, Vec<PathBuf>) = load::input_paths(manifest_dir)?
            .into_iter()
            .partition(|p| *p == lock);
        let rest: BTreeMap<String, PathBuf> =
            rest.into_iter().map(|p| (load::display(&p), p)).collect();
        let lock = lock.into_iter().map(|p| (load::display(&p), p));
        for (display, path) in rest.into_iter().chain(lock) {
            let text = load::text::decode(fs::read(&path).ok()?).ok()?;
            h.file(&display, &text);
        }
        Some(h.finish())
    }
}

/// The [`digest`] of a file's bytes.
fn file_digest(path: &Path) -> Option<String> {
    Some(digest(&fs::read(path).ok()?))
}

fn stamp_path(out: &Path) -> PathBuf {
    out.join(CACHE_DIR).join(STAMP)
}

/// The number of generated files when `out` is fresh for the manifest in
/// `manifest_dir` and outputs of `origin` ([`fresh_outputs`]). Without a
/// stamp (a first run, an empty directory) the inputs are not read at all.
pub fn fresh(manifest_dir: &Path, out: &Path, origin: &Origin) -> Option<usize> {
    if !stamp_path(out).is_file() {
        return None;
    }
    fresh_outputs(out, &Inputs::read(manifest_dir, origin)?)
}

/// The number of generated files when `out` is fresh for `inputs`: the
/// stamp matches, every recorded file is there with its digest, and no
/// other file under `out` carries the generator's marker (a full run would
/// remove it).
pub fn fresh_outputs(out: &Path, inputs: &Inputs) -> Option<usize> {
    let stamp = fs::read_to_string(stamp_path(out)).ok()?;
    let mut lines = stamp.lines();
    if lines.next()? != FORMAT || lines.next()? != inputs.0 {
        return None;
    }
    let mut recorded = BTreeMap::new();
    for line in lines {
        let (digest, path) = line.split_once(' ')?;
        recorded.insert(path.to_owned(), digest.to_owned());
    }
    let mut found = Vec::new();
    walk(out, "", &mut found)?;
    let mut matched = 0;
    for path in &found {
        match recorded.get(path) {
            Some(digest) => {
                if file_digest(&out.join(path))? != *digest {
                    return None;
                }
                matched += 1;
            }
            None if crate::write::has_marker(&out.join(path)).ok()? => return None,
            None => {}
        }
    }
    (matched == recorded.len()).then_some(matched)
}

/// Every file under `dir` (relative, `/`-separated), skipping the cache;
/// `None` on a symlink or an unreadable directory (the full run decides).
fn walk(root: &Path, rel: &str, found: &mut Vec<String>) -> Option<()> {
    for entry in fs::read_dir(root.join(rel)).ok()? {
        let entry = entry.ok()?;
        let name = entry.file_name().into_string().ok()?;
        let path = if rel.is_empty() {
            name.clone()
        } else {
            format!("{rel}/{name}")
        };
        let kind = entry.file_type().ok()?;
        if kind.is_symlink() {
            return None;
        } else if kind.is_dir() {
            if path != CACHE_DIR {
                walk(root, &path, found)?;
            }
        } else {
            found.push(path);
        }
    }
    Some(())
}

/// Forget the stamp: a full run is about to change `out`.
pub fn forget(out: &Path) {
    let _ = fs::remove_file(stamp_path(out));
}

/// The `digest` of each file's contents, in order, for [`record`].
pub fn digests(files: &[GeneratedFile]) -> Vec<String> {
    files
        .iter()
        .map(|f| digest(f.contents.as_bytes()))
        .collect()
}

/// Record that `out` holds exactly `files`, whose contents have `digests`
/// ([`digests`]), generated from `inputs`. Best effort: a stamp that cannot
/// be written only costs the next run a full check.
pub fn record(out: &Path, inputs: &Inputs, files: &[GeneratedFile], digests: &[String]) {
    let dir = out.join(CACHE_DIR);
    if fs::create_dir_all(&dir).is_err() {
        return;
    }
    let _ = fs::write(dir.join(".gitignore"), "*\n");
    let mut text = format!("{FORMAT}\n{}\n", inputs.0);
    for (f, digest) in files.iter().zip(digests) {
        text.push_str(digest);
        text.push(' ');
        text.push_str(&f.path);
        text.push('\n');
    }
    let tmp = dir.join(format!(".{STAMP}.{}.tmp", std::process::id()));
    if fs::write(&tmp, text).is_err() || fs::rename(&tmp, stamp_path(out)).is_err() {
        let _ = fs::remove_file(tmp);
    }
}
