//! Load: read `abi.toml` and `families/*.toml` into the serde model, keeping
//! every source text for diagnostics. Syntax and type errors become
//! diagnostics here; semantic rules are `check`'s job. A document with
//! structural mistakes is repaired by `recover` so that `check` still
//! judges everything that parsed.

mod recover;
pub(crate) mod text;

use std::collections::HashMap;
use std::fs;
use std::ops::Range;
use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde::de::DeserializeOwned;

use crate::diag::{Code, Diagnostic, FileId, Report, SourceMap};
use crate::model::{AbiFile, FamilyFile, LockFile, RetiredFile};

pub use recover::Repairs;
pub use text::normalize;

/// Largest manifest file kfam reads. Real family files are a few KiB.
pub const MAX_FILE_BYTES: u64 = 1 << 20;
/// Largest `approved.lock` kfam reads. The lock holds about 2 KiB per
/// approved revision (its canonical identity), so it outgrows
/// [`MAX_FILE_BYTES`] at a few hundred families; this bound admits ~30,000.
pub const MAX_LOCK_BYTES: u64 = 64 << 20;

/// The manifest as read, before checking.
#[derive(Debug, Default)]
pub struct Loaded {
    pub root: PathBuf,
    pub abi: Option<(FileId, AbiFile)>,
    pub families: Vec<(FileId, FamilyFile)>,
    /// `approved.lock`; `None` when absent (a new manifest) or unreadable.
    pub lock: Option<(FileId, LockFile)>,
    /// `retired.toml`; `None` when absent.
    pub retired: Option<(FileId, RetiredFile)>,
    /// Per document repaired after structural mistakes (already reported):
    /// where. `check` judges the rest of such a document but nothing that
    /// touches a repair, and never lowers it.
    pub recovered: HashMap<FileId, Repairs>,
}

impl Loaded {
    /// The repaired spans of document `id` (empty when it parsed as written).
    pub fn poisoned(&self, id: FileId) -> &[Range<usize>] {
        self.recovered
            .get(&id)
            .map_or(&[], |r| r.poisoned.as_slice())
    }

    /// The spans of the tables of document `id` that hold a repair.
    pub fn tainted(&self, id: FileId) -> &[Range<usize>] {
        self.recovered
            .get(&id)
            .map_or(&[], |r| r.tainted.as_slice())
    }

    /// Whether `d` (a diagnostic of `check`) touches a repaired span, so
    /// that it would only repeat a mistake already reported.
    pub fn is_cascade(&self, d: &Diagnostic) -> bool {
        match &d.location {
            crate::diag::Location::Span { file, span } => {
                self.poisoned(*file).iter().any(|p| touches(p, span))
            }
            crate::diag::Location::Path(_) => false,
        }
    }
}

/// Whether two spans share a byte; an empty span counts as its first byte.
pub fn touches(a: &Range<usize>, b: &Range<usize>) -> bool {
    let a_end = a.end.max(a.start + 1);
    let b_end = b.end.max(b.start + 1);
    a.start < b_end && b.start < a_end
}

/// The review lock's file name inside the manifest directory.
pub const LOCK_FILE: &str = "approved.lock";
/// The tombstone file's name inside the manifest directory.
pub const RETIRED_FILE: &str = "retired.toml";

/// Read the manifest directory `root`. Files that fail to read or parse are
/// reported in `report` and left out of the result, so the remaining files
/// are still checked and every mistake of a run is reported together.
pub fn load_dir(root: &Path, report: &mut Report) -> Loaded {
    let mut loaded = Loaded {
        root: root.to_path_buf(),
        ..Loaded::default()
    };
    if !root.is_dir() {
        report.diagnostics.push(
            Diagnostic::at_path(Code::Io, display(root), "manifest directory not found")
                .help("pass the directory that holds `abi.toml` and `families/`"),
        );
        return loaded;
    }
    let abi_path = root.join("abi.toml");
    if let Some(text) = read_file(&abi_path, report) {
        let id = report.sources.add(display(&abi_path), text);
        loaded.abi = parse::<AbiFile>(id, MAX_FILE_BYTES, report, &mut loaded).map(|a| (id, a));
    }

    let mut lock_id = None;
    for (name, is_lock) in [(LOCK_FILE, true), (RETIRED_FILE, false)] {
        let path = root.join(name);
        if !path.exists() {
            continue;
        }
        let limit = if is_lock {
            MAX_LOCK_BYTES
        } else {
            MAX_FILE_BYTES
        };
        if let Some(text) = read_file_limited(&path, limit, report) {
            let id = report.sources.add(display(&path), text);
            if is_lock {
                lock_id = Some(id);
            } else {
                loaded.retired =
                    parse::<RetiredFile>(id, limit, report, &mut loaded).map(|r| (id, r));
            }
        }
    }

    let paths = family_files(&root.join("families"), report);
    // Thousands of small files: the reads are mostly system calls, which two
    // threads overlap.
    let reads = crate::par::map(&paths, |p| read_text(p, MAX_FILE_BYTES));
    let mut ids = Vec::with_capacity(paths.len());
    for (path, read) in paths.iter().zip(reads) {
        if let Some(text) = admit(display(path), read, report) {
            ids.push(report.sources.add(display(path), text));
        }
    }
    // The lock (as large as all family files together at scale) is parsed
    // beside the families rather than before them.
    let sources = &report.sources;
    let (lock, families) = std::thread::scope(|s| {
        let lock = lock_id.map(|id| {
            s.spawn(move || {
                let file = sources.get(id);
                (
                    id,
                    parse_text::<LockFile>(id, &file.path, &file.text, MAX_LOCK_BYTES),
                )
            })
        });
        let families = parse_families(&ids, sources);
        (
            lock.map(|h| h.join().expect("the lock parser does not panic")),
            families,
        )
    });
    if let Some((id, parsed)) = lock {
        loaded.lock = parsed.absorb(id, report, &mut loaded).map(|l| (id, l));
    }
    absorb_families(families, report, &mut loaded);
    loaded
}

fn absorb_families(
    parsed: Vec<(FileId, Parsed<FamilyFile>)>,
    report: &mut Report,
    loaded: &mut Loaded,
) {
    loaded.families.reserve(parsed.len());
    for (id, parsed) in parsed {
        if let Some(family) = parsed.absorb(id, report, loaded) {
            loaded.families.push((id, family));
        }
    }
}

/// Parse the family documents `ids` (already in `sources`), on two threads
/// when there are many; results in `ids` order.
fn parse_families(ids: &[FileId], sources: &SourceMap) -> Vec<(FileId, Parsed<FamilyFile>)> {
    crate::par::map(ids, |&id| {
        let file = sources.get(id);
        (
            id,
            parse_text::<FamilyFile>(id, &file.path, &file.text, MAX_FILE_BYTES),
        )
    })
}

/// Parse the family document `id` (already in `report.sources`); what
/// recovery repaired is recorded in `loaded.recovered`, as when a whole
/// manifest is loaded.
pub fn parse_family(id: FileId, report: &mut Report, loaded: &mut Loaded) -> Option<FamilyFile> {
    parse::<FamilyFile>(id, MAX_FILE_BYTES, report, loaded)
}

/// Read one ABI file and the given family files (no lock, no tombstones):
/// the proc-macro's single-family mode.
pub fn load_files(abi: &Path, families: &[PathBuf], report: &mut Report) -> Loaded {
    let mut loaded = Loaded {
        root: abi.parent().map(Path::to_path_buf).unwrap_or_default(),
        ..Loaded::default()
    };
    if let Some(text) = read_file(abi, report) {
        let id = report.sources.add(display(abi), text);
        loaded.abi = parse::<AbiFile>(id, MAX_FILE_BYTES, report, &mut loaded).map(|a| (id, a));
    }
    let mut ids = Vec::new();
    for path in families {
        if let Some(text) = read_file(path, report) {
            ids.push(report.sources.add(display(path), text));
        }
    }
    absorb_families(parse_families(&ids, &report.sources), report, &mut loaded);
    loaded
}

/// Load one in-memory document set (used by tests and the proc-macro, which
/// read files themselves). Texts are normalized as files are
/// ([`normalize`]: no byte-order mark, LF line endings).
pub fn load_sources(
    abi: Option<(String, String)>,
    families: Vec<(String, String)>,
    report: &mut Report,
) -> Loaded {
    let mut loaded = Loaded::default();
    if let Some((path, text)) = abi {
        let id = report.sources.add(path, normalize(text));
        loaded.abi = parse::<AbiFile>(id, MAX_FILE_BYTES, report, &mut loaded).map(|a| (id, a));
    }
    let ids: Vec<FileId> = families
        .into_iter()
        .map(|(path, text)| report.sources.add(path, normalize(text)))
        .collect();
    absorb_families(parse_families(&ids, &report.sources), report, &mut loaded);
    loaded
}

/// A manifest directory held in memory instead of on disk: what
/// [`load_tree`] reads where [`load_dir`] reads files. `kfam diff --against
/// REV` fills one from a git revision (the `git` module).
#[derive(Debug, Default)]
pub struct Tree {
    /// How diagnostics name the directory. A file's name is `root/rel`, or
    /// `root` followed by `rel` when `root` is empty or ends with `/` or `:`
    /// (git's `REV:` names the top of a revision's tree).
    pub root: String,
    /// The entries [`Tree::holds`] selects, keyed by their path relative to
    /// the directory (`/`-separated).
    pub entries: std::collections::BTreeMap<String, Entry>,
}

/// One entry of a [`Tree`].
#[derive(Debug)]
pub enum Entry {
    /// A regular file's bytes.
    File(Vec<u8>),
    /// A regular file of this many bytes, over [`MAX_FILE_BYTES`]: not read.
    TooLarge(u64),
    /// A directory.
    Dir,
    /// Anything else (a symbolic link, a submodule): what it is.
    Other(&'static str),
}

impl Tree {
    /// Whether the entry at `rel` is one [`load_tree`] reads (`abi.toml`,
    /// `families/` and its direct entries; not the lock or the tombstones,
    /// which nothing ungated reads), so a reader can skip the others.
    pub fn holds(rel: &str) -> bool {
        rel == "abi.toml"
            || rel == "families"
            || rel
                .strip_prefix("families/")
                .is_some_and(|name| !name.is_empty() && !name.contains('/'))
    }

    /// How diagnostics name the entry at `rel`.
    pub fn display(&self, rel: &str) -> String {
        if self.root.is_empty() || self.root.ends_with(['/', ':']) {
            format!("{}{rel}", self.root)
        } else {
            format!("{}/{rel}", self.root)
        }
    }

    /// The text of the file at `rel`, read as [`read_text`] reads a file.
    fn text(&self, rel: &str, limit: u64) -> Result<String, ReadFailure> {
        match self.entries.get(rel) {
            None => Err(ReadFailure::io("cannot read file: not found", LAYOUT)),
            Some(Entry::File(bytes)) if bytes.len() as u64 > limit => {
                Err(ReadFailure::too_large(bytes.len() as u64, limit))
            }
            Some(Entry::File(bytes)) => text::decode(bytes.clone()).map_err(ReadFailure::NotUtf8),
            Some(Entry::TooLarge(len)) => Err(ReadFailure::too_large(*len, limit)),
            Some(Entry::Dir) => Err(ReadFailure::io(
                "expected a file, found a directory",
                LAYOUT,
            )),
            Some(Entry::Other(what)) => Err(ReadFailure::io(
                format!("expected a file, found {what}"),
                LAYOUT,
            )),
        }
    }
}

/// [`load_dir`] over a [`Tree`]: `abi.toml` and `families/*.toml` (by the
/// same rules: hidden files and other extensions are not declarations, the
/// same size limit, UTF-8 and normalization), without the lock and the
/// tombstones. A tree without `families/` has no families (git keeps no
/// empty directory).
pub fn load_tree(tree: &Tree, report: &mut Report) -> Loaded {
    let mut loaded = Loaded {
        root: PathBuf::from(&tree.root),
        ..Loaded::default()
    };
    let abi = tree.text("abi.toml", MAX_FILE_BYTES);
    if let Some(text) = admit(tree.display("abi.toml"), abi, report) {
        let id = report.sources.add(tree.display("abi.toml"), text);
        loaded.abi = parse::<AbiFile>(id, MAX_FILE_BYTES, report, &mut loaded).map(|a| (id, a));
    }
    if let Some(entry @ (Entry::File(_) | Entry::TooLarge(_) | Entry::Other(_))) =
        tree.entries.get("families")
    {
        let what = match entry {
            Entry::Other(what) => what,
            _ => "a file",
        };
        report.diagnostics.push(
            Diagnostic::at_path(
                Code::Io,
                tree.display("families"),
                format!("cannot read directory: found {what}"),
            )
            .help("a manifest keeps one file per family in `families/`"),
        );
    }
    // BTreeMap order is byte order of the names, as `family_files` sorts.
    let mut ids = Vec::new();
    for rel in tree.entries.keys() {
        let Some(name) = rel.strip_prefix("families/") else {
            continue;
        };
        if name.starts_with('.') || !name.ends_with(".toml") {
            continue;
        }
        if let Some(text) = admit(tree.display(rel), tree.text(rel, MAX_FILE_BYTES), report) {
            ids.push(report.sources.add(tree.display(rel), text));
        }
    }
    absorb_families(parse_families(&ids, &report.sources), report, &mut loaded);
    loaded
}

/// Every file [`load_dir`] reads in `root` (`abi.toml`, the lock and
/// `retired.toml` when present, `families/*.toml`), or `None` when the
/// directory cannot be listed. The freshness stamp digests exactly these.
pub(crate) fn input_paths(root: &Path) -> Option<Vec<PathBuf>> {
    let mut paths = vec![root.join("abi.toml")];
    for name in [LOCK_FILE, RETIRED_FILE] {
        let path = root.join(name);
        if path.exists() {
            paths.push(path);
        }
    }
    let mut report = Report::default();
    paths.extend(family_files(&root.join("families"), &mut report));
    report.diagnostics.is_empty().then_some(paths)
}

/// `families/*.toml`, sorted by name; hidden files and other extensions are
/// not family declarations.
fn family_files(dir: &Path, report: &mut Report) -> Vec<PathBuf> {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) => {
            report.diagnostics.push(
                Diagnostic::at_path(
                    Code::Io,
                    display(dir),
                    format!("cannot read directory: {e}"),
                )
                .help("a manifest keeps one file per family in `families/`"),
            );
            return Vec::new();
        }
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            !name.starts_with('.') && p.extension().is_some_and(|x| x == "toml")
        })
        .collect();
    files.sort();
    files
}

/// Read one manifest file. The diagnostics name the path in their location,
/// so their messages do not repeat it.
fn read_file(path: &Path, report: &mut Report) -> Option<String> {
    read_file_limited(path, MAX_FILE_BYTES, report)
}

fn read_file_limited(path: &Path, limit: u64, report: &mut Report) -> Option<String> {
    admit(display(path), read_text(path, limit), report)
}

/// Why a file could not be read as text.
enum ReadFailure {
    Io { message: String, help: &'static str },
    NotUtf8(text::NotUtf8),
}

const LAYOUT: &str = "a manifest directory holds `abi.toml` and `families/*.toml`";

impl ReadFailure {
    fn io(message: impl Into<String>, help: &'static str) -> Self {
        ReadFailure::Io {
            message: message.into(),
            help,
        }
    }

    fn too_large(len: u64, limit: u64) -> Self {
        ReadFailure::io(
            format!("file is {len} bytes, over the limit of {limit}"),
            "manifest files are a few KiB; split or shorten it",
        )
    }
}

/// Read a file of at most `limit` bytes as normalized UTF-8 text
/// ([`normalize`]). Touches no shared state, so many files can be read at
/// once; [`admit`] records the outcome.
fn read_text(path: &Path, limit: u64) -> Result<String, ReadFailure> {
    let io = ReadFailure::io;
    let meta = fs::metadata(path).map_err(|e| io(format!("cannot read file: {e}"), LAYOUT))?;
    if !meta.is_file() {
        return Err(io(
            "expected a file, found a directory or special file".to_owned(),
            LAYOUT,
        ));
    }
    if meta.len() > limit {
        return Err(ReadFailure::too_large(meta.len(), limit));
    }
    let bytes = fs::read(path).map_err(|e| {
        io(
            format!("cannot read file: {e}"),
            "check the file's permissions",
        )
    })?;
    text::decode(bytes).map_err(ReadFailure::NotUtf8)
}

/// The text [`read_text`] read, or `None` with the failure reported. A file
/// that is not UTF-8 is added to the source map (lossily decoded) so the
/// error can point at its first bad byte.
fn admit(path: String, read: Result<String, ReadFailure>, report: &mut Report) -> Option<String> {
    match read {
        Ok(text) => Some(text),
        Err(ReadFailure::Io { message, help }) => {
            report
                .diagnostics
                .push(Diagnostic::at_path(Code::Io, path, message).help(help));
            None
        }
        Err(ReadFailure::NotUtf8(bad)) => {
            let id = report.sources.add(path, bad.lossy);
            report.diagnostics.push(
                Diagnostic::error(Code::Io, id, bad.span, bad.message)
                    .label("not UTF-8")
                    .help("TOML files are UTF-8; re-save the file with UTF-8 encoding"),
            );
            None
        }
    }
}

pub(crate) fn display(path: &Path) -> String {
    path.to_string_lossy().replace('\\', "/")
}

/// One document, parsed: the value (absent when it could not be read or
/// repaired), every diagnostic, and the repaired spans.
struct Parsed<T> {
    value: Option<T>,
    diagnostics: Vec<Diagnostic>,
    repairs: Repairs,
}

impl<T> Parsed<T> {
    fn failed(d: Diagnostic) -> Self {
        Parsed {
            value: None,
            diagnostics: vec![d],
            repairs: Repairs::default(),
        }
    }

    /// Move the diagnostics into `report` and the repairs into `loaded`.
    fn absorb(self, id: FileId, report: &mut Report, loaded: &mut Loaded) -> Option<T> {
        if self.value.is_some() && !self.diagnostics.is_empty() {
            loaded.recovered.insert(id, self.repairs);
        }
        report.diagnostics.extend(self.diagnostics);
        self.value
    }
}

/// Parse document `id` of `report.sources` into `T`.
fn parse<T: DeserializeOwned + JsonSchema>(
    id: FileId,
    limit: u64,
    report: &mut Report,
    loaded: &mut Loaded,
) -> Option<T> {
    let file = report.sources.get(id);
    parse_text::<T>(id, &file.path, &file.text, limit).absorb(id, report, loaded)
}

/// Parse one document's text: syntax first, then the serde model. A
/// document serde refuses is walked again against `T`'s schema, which
/// reports every structural mistake and repairs the document
/// ([`recover`]); serde's own error is the last resort.
fn parse_text<T: DeserializeOwned + JsonSchema>(
    id: FileId,
    path: &str,
    text: &str,
    limit: u64,
) -> Parsed<T> {
    if text.len() as u64 > limit {
        return Parsed::failed(
            Diagnostic::at_path(
                Code::Io,
                path.to_owned(),
                format!("file is {} bytes, over the limit of {limit}", text.len()),
            )
            .help("manifest files are a few KiB; split or shorten it"),
        );
    }
    let de = match toml::de::Deserializer::parse(text) {
        Ok(de) => de,
        Err(e) => return Parsed::failed(syntax_diagnostic(id, text, &e)),
    };
    let serde_error = match T::deserialize(de) {
        Ok(value) => {
            return Parsed {
                value: Some(value),
                diagnostics: Vec::new(),
                repairs: Repairs::default(),
            }
        }
        Err(e) => e,
    };
    let Ok(mut doc) = toml::de::DeTable::parse(text) else {
        return Parsed::failed(serde_diagnostic(id, text, &serde_error));
    };
    let recovery = recover::recover(id, text, recover::schema_of::<T>(), &mut doc);
    if recovery.diagnostics.is_empty() {
        // The schema accepts what serde refused: serde's words, then.
        return Parsed::failed(serde_diagnostic(id, text, &serde_error));
    }
    Parsed {
        value: T::deserialize(toml::de::Deserializer::from(doc)).ok(),
        diagnostics: recovery.diagnostics,
        repairs: recovery.repairs,
    }
}

/// A TOML syntax error, made specific for the mistakes people make most: an
/// unquoted string value (the parser's own message then talks about booleans
/// or floats) and a key or table defined twice.
fn syntax_diagnostic(id: FileId, text: &str, e: &toml::de::Error) -> Diagnostic {
    let span = e.span().unwrap_or(0..0);
    let msg = first_line(e.message());
    // The parser names what it expected; a character nobody can see needs
    // its name.
    if let Some(c) = text
        .get(span.start..)
        .and_then(|rest| rest.chars().next())
        .filter(|&c| c != '\n' && text::control_name(c).is_some())
    {
        let name = text::control_name(c).unwrap_or("control character");
        let code = c as u32;
        return Diagnostic::error(
            Code::Syntax,
            id,
            span.start..span.start + c.len_utf8(),
            format!("invalid TOML: raw control character U+{code:04X} ({name})"),
        )
        .label("control character")
        .help(format!(
            "remove it: TOML allows no raw control character but tab and newline{}",
            if c == '\r' {
                " (a line ends with CR LF or LF)"
            } else {
                ""
            }
        ));
    }
    if let Some(q) = text
        .get(span.start..)
        .and_then(|rest| rest.chars().next())
        .filter(|c| matches!(c, '\u{201C}' | '\u{201D}' | '\u{2018}' | '\u{2019}'))
    {
        return Diagnostic::error(
            Code::Syntax,
            id,
            span,
            format!("invalid TOML: string quoted with the typographic quote `{q}`"),
        )
        .label("typographic quotes")
        .help("quote strings with straight quotes `\"`; an editor's smart quotes replaced them");
    }
    if let Some(word) = bare_word(text, &span) {
        return Diagnostic::error(
            Code::Syntax,
            id,
            word.clone(),
            format!(
                "invalid TOML: string value `{}` is not quoted",
                &text[word.clone()]
            ),
        )
        .label("unquoted string")
        .help(format!("quote it: `\"{}\"`", &text[word]));
    }
    if msg == "duplicate key" {
        let key = text
            .get(span.clone())
            .map(|k| k.trim().trim_matches(['"', '\'']).to_owned())
            .filter(|k| !k.is_empty());
        let message = match &key {
            Some(k) => format!("invalid TOML: `{k}` is defined twice"),
            None => "invalid TOML: duplicate key".to_owned(),
        };
        return Diagnostic::error(Code::Syntax, id, span, message)
            .label("defined again here")
            .help("a key or table is defined once; `[[name]]` (double brackets) starts another entry of an array of tables");
    }
    let d = Diagnostic::error(Code::Syntax, id, span, format!("invalid TOML: {msg}")).label("here");
    if msg.starts_with("missing comma between array elements") {
        // The parser only notices an unclosed array at the next line.
        return d.help("if the array was meant to end before this point, add its closing `]`");
    }
    d.help("the TOML syntax is at https://toml.io/en/v1.0.0")
}

/// The span of an unquoted word in value position (`key = word`, `[word`,
/// `, word`) that is not a TOML literal, if the error points at one.
fn bare_word(text: &str, span: &std::ops::Range<usize>) -> Option<std::ops::Range<usize>> {
    let is_word = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
    let start = span.start;
    let rest = text.get(start..)?;
    if !rest.starts_with(|c: char| c.is_ascii_alphabetic()) {
        return None;
    }
    let end = start + rest.find(|c: char| !is_word(c)).unwrap_or(rest.len());
    let word = &text[start..end];
    if matches!(word, "true" | "false" | "inf" | "nan") {
        return None;
    }
    // `[params]`: a table header, not an array value.
    let line = text[..start].rfind('\n').map_or(0, |i| i + 1);
    let prefix = text[line..start].trim_start();
    if prefix.starts_with('[') && !prefix.contains('=') {
        return None;
    }
    let before = text[..start].trim_end_matches([' ', '\t']);
    before.ends_with(['=', '[', ',']).then_some(start..end)
}

fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or(s).trim_end()
}

/// Classify a serde error by its (stable, serde-generated) message.
fn serde_diagnostic(id: FileId, text: &str, e: &toml::de::Error) -> Diagnostic {
    let span = e.span().unwrap_or(0..0);
    let msg = first_line(e.message());
    let mut fix = None;
    let (code, message, label, help) = if let Some(rest) = msg.strip_prefix("unknown field ") {
        let (field, expected) = split_expected(rest);
        fix = closest_fix(text, &span, rest);
        (
            Code::UnknownKey,
            format!("unknown key {}", ticks(field)),
            "unknown key".to_owned(),
            expected,
        )
    } else if let Some(rest) = msg.strip_prefix("missing field ") {
        (
            Code::MissingKey,
            format!("missing key {}", ticks(rest)),
            // The top-level table spans no key of its own: toml reports 0..0.
            if span.end == 0 {
                "in the top-level table of this file"
            } else {
                "in this table"
            }
            .to_owned(),
            None,
        )
    } else if let Some(rest) = msg.strip_prefix("unknown variant ") {
        let (value, expected) = split_expected(rest);
        fix = closest_fix(text, &span, rest);
        (
            Code::UnknownVariant,
            format!("unknown value {}", ticks(value)),
            "not a member of this vocabulary".to_owned(),
            expected,
        )
    } else {
        let label = if msg.starts_with("invalid type") {
            "wrong type"
        } else {
            "invalid value"
        };
        (
            Code::WrongType,
            plain_types(msg),
            label.to_owned(),
            quoted_number_help(msg),
        )
    };
    let mut d = Diagnostic::error(code, id, span, message).label(label);
    if let Some(h) = help {
        d = d.help(h);
    }
    if let Some((title, span, replacement)) = fix {
        d = d.fix(title, span, replacement);
    }
    d
}

/// The fix for a misspelt key or vocabulary value: the accepted spelling
/// closest to it (serde's "`x`, expected one of `a`, `b`"), when one is
/// close enough to be what was meant. The replacement keeps the quotes of
/// the text under `span`.
fn closest_fix(
    text: &str,
    span: &std::ops::Range<usize>,
    rest: &str,
) -> Option<(String, std::ops::Range<usize>, String)> {
    let (written, expected) = rest.split_once(", expected ")?;
    let written = written.trim().trim_matches('`');
    let best = crate::names::did_you_mean(written, expected.split('`').skip(1).step_by(2))?;
    let under = text.get(span.clone())?;
    let quote = under.chars().next().filter(|c| matches!(c, '"' | '\''));
    let replacement = match quote {
        Some(q) => format!("{q}{best}{q}"),
        None => best.to_owned(),
    };
    Some((
        format!("replace `{written}` with `{best}`"),
        span.clone(),
        replacement,
    ))
}

/// serde names Rust types (`u32`, `a sequence`); say what a TOML author writes.
fn plain_types(msg: &str) -> String {
    if msg == "invalid type: unit variant, expected newtype variant" {
        return "invalid type: string, expected a table such as `[operation.matmul]`".to_owned();
    }
    let Some((head, expected)) = msg.rsplit_once(", expected ") else {
        return msg.to_owned();
    };
    let expected = match expected {
        "i64" => "an integer",
        "i32" => "an integer from -2147483648 to 2147483647",
        "u32" => "an integer from 0 to 4294967295",
        "u16" => "an integer from 0 to 65535",
        "a sequence" => "an array",
        "a map" => "a table",
        e if e.starts_with("struct ") => "a table",
        e => e,
    };
    let head = head
        .replacen("floating point", "float", 1)
        .replacen("sequence", "array", 1)
        .replacen(": map", ": table", 1);
    format!("{head}, expected {expected}")
}

/// `slot = "0"`: a number in quotes.
fn quoted_number_help(msg: &str) -> Option<String> {
    let rest = msg.strip_prefix("invalid type: string \"")?;
    let (value, _) = rest.split_once('"')?;
    value.parse::<i64>().ok()?;
    let expected = msg.rsplit_once(", expected ").map_or("", |(_, e)| e);
    if expected == "a sequence" {
        Some(format!("write an array of extents: `[{value}]`"))
    } else {
        Some(format!("write the number without quotes: `{value}`"))
    }
}

/// Split serde's "`x`, expected one of `a`, `b`" into the value and a help.
fn split_expected(rest: &str) -> (&str, Option<String>) {
    match rest.split_once(", expected ") {
        Some((value, expected)) => (value, Some(format!("expected {expected}"))),
        None => (rest, None),
    }
}

/// serde quotes names with backticks already; normalise to one pair.
fn ticks(s: &str) -> String {
    format!("`{}`", s.trim().trim_matches('`'))
}
