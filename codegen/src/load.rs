//! Load: read `abi.toml` and `families/*.toml` into the serde model, keeping
//! every source text for diagnostics. Syntax and type errors become
//! diagnostics here; semantic rules are `check`'s job.

use std::fs;
use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;

use crate::diag::{Code, Diagnostic, FileId, Report};
use crate::model::{AbiFile, FamilyFile};

/// Largest manifest file kfam reads. Real family files are a few KiB.
pub const MAX_FILE_BYTES: u64 = 1 << 20;

/// The manifest as read, before checking.
#[derive(Debug)]
pub struct Loaded {
    pub root: PathBuf,
    pub abi: Option<(FileId, AbiFile)>,
    pub families: Vec<(FileId, FamilyFile)>,
}

/// Read the manifest directory `root`. Files that fail to read or parse are
/// reported in `report` and left out of the result, so the remaining files
/// are still checked and every mistake of a run is reported together.
pub fn load_dir(root: &Path, report: &mut Report) -> Loaded {
    let mut loaded = Loaded {
        root: root.to_path_buf(),
        abi: None,
        families: Vec::new(),
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
        loaded.abi = parse::<AbiFile>(id, report).map(|a| (id, a));
    }

    let dir = root.join("families");
    for path in family_files(&dir, report) {
        if let Some(text) = read_file(&path, report) {
            let id = report.sources.add(display(&path), text);
            if let Some(family) = parse::<FamilyFile>(id, report) {
                loaded.families.push((id, family));
            }
        }
    }
    loaded
}

/// Load one in-memory document set (used by tests and the proc-macro, which
/// read files themselves).
pub fn load_sources(
    abi: Option<(String, String)>,
    families: Vec<(String, String)>,
    report: &mut Report,
) -> Loaded {
    let mut loaded = Loaded {
        root: PathBuf::new(),
        abi: None,
        families: Vec::new(),
    };
    if let Some((path, text)) = abi {
        let id = report.sources.add(path, text);
        loaded.abi = parse::<AbiFile>(id, report).map(|a| (id, a));
    }
    for (path, text) in families {
        let id = report.sources.add(path, text);
        if let Some(family) = parse::<FamilyFile>(id, report) {
            loaded.families.push((id, family));
        }
    }
    loaded
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

fn read_file(path: &Path, report: &mut Report) -> Option<String> {
    let fail = |report: &mut Report, msg: String| {
        report
            .diagnostics
            .push(Diagnostic::at_path(Code::Io, display(path), msg));
        None
    };
    let meta = match fs::metadata(path) {
        Ok(m) => m,
        Err(e) => return fail(report, format!("cannot read `{}`: {e}", display(path))),
    };
    if !meta.is_file() {
        return fail(report, format!("`{}` is not a file", display(path)));
    }
    if meta.len() > MAX_FILE_BYTES {
        return fail(
            report,
            format!(
                "`{}` is {} bytes, over the limit of {MAX_FILE_BYTES}",
                display(path),
                meta.len()
            ),
        );
    }
    match fs::read(path) {
        Ok(bytes) => match String::from_utf8(bytes) {
            Ok(text) => Some(text),
            Err(e) => fail(report, format!("`{}` is not UTF-8: {e}", display(path))),
        },
        Err(e) => fail(report, format!("cannot read `{}`: {e}", display(path))),
    }
}

fn display(path: &Path) -> String {
    path.to_string_lossy().replace('\\', "/")
}

/// Parse one document: syntax first, then the serde model.
fn parse<T: DeserializeOwned>(id: FileId, report: &mut Report) -> Option<T> {
    let text = report.sources.get(id).text.clone();
    if text.len() as u64 > MAX_FILE_BYTES {
        report.diagnostics.push(Diagnostic::at_path(
            Code::Io,
            report.sources.get(id).path.clone(),
            format!(
                "file is {} bytes, over the limit of {MAX_FILE_BYTES}",
                text.len()
            ),
        ));
        return None;
    }
    let de = match toml::de::Deserializer::parse(&text) {
        Ok(de) => de,
        Err(e) => {
            let span = e.span().unwrap_or(0..0);
            report.diagnostics.push(
                Diagnostic::error(
                    Code::Syntax,
                    id,
                    span,
                    format!("invalid TOML: {}", first_line(e.message())),
                )
                .label("here"),
            );
            return None;
        }
    };
    match T::deserialize(de) {
        Ok(v) => Some(v),
        Err(e) => {
            report.diagnostics.push(serde_diagnostic(id, &e));
            None
        }
    }
}

fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or(s).trim_end()
}

/// Classify a serde error by its (stable, serde-generated) message.
fn serde_diagnostic(id: FileId, e: &toml::de::Error) -> Diagnostic {
    let span = e.span().unwrap_or(0..0);
    let msg = first_line(e.message());
    let (code, message, label, help) = if let Some(rest) = msg.strip_prefix("unknown field ") {
        let (field, expected) = split_expected(rest);
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
            "in this table".to_owned(),
            None,
        )
    } else if let Some(rest) = msg.strip_prefix("unknown variant ") {
        let (value, expected) = split_expected(rest);
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
        (Code::WrongType, msg.to_owned(), label.to_owned(), None)
    };
    let mut d = Diagnostic::error(code, id, span, message).label(label);
    if let Some(h) = help {
        d = d.help(h);
    }
    d
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
