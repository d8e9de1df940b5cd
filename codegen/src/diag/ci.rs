//! Diagnostics and diff changes where CI reads them: GitHub Actions
//! workflow commands (`::error file=..,line=..::message`, shown as
//! annotations on a pull request) and SARIF 2.1.0 logs (code scanning).
//! Both render the same [`Report`] and [`Change`]s as the human and JSON
//! formats, at the edge.

use std::path::Path;

use serde_json::{json, Value};

use super::{Code, Diagnostic, Location, Report, Severity, SourceMap};
use crate::diff::{Change, Class, Rule};

const SARIF_SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";
const TOOL: &str = "kfam";

/// One workflow command per diagnostic.
pub fn github_report(report: &Report) -> String {
    let mut out = String::new();
    for d in &report.diagnostics {
        let command = match d.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        let mut props = vec![("file", location_path(d, &report.sources))];
        if let Location::Span { file, span } = &d.location {
            let (line, col) = report.sources.line_col(*file, span.start);
            let (end_line, end_col) = report.sources.line_col(*file, span.end);
            props.push(("line", line.to_string()));
            props.push(("col", col.to_string()));
            props.push(("endLine", end_line.to_string()));
            props.push(("endColumn", end_col.to_string()));
        }
        props.push(("title", format!("{} {}", d.code.as_str(), d.code.title())));
        out.push_str(&workflow_command(command, &props, &full_message(d)));
    }
    out
}

/// One workflow command per change: breaking changes are errors, the others
/// notices, on the family's file (or `abi.toml`) in the new tree when it is
/// there, else in the old one.
pub fn github_changes(changes: &[Change], old: &Path, new: &Path) -> String {
    let mut out = String::new();
    for c in changes {
        let command = match c.rule.class() {
            Class::Breaking => "error",
            Class::Compatible | Class::Cosmetic => "notice",
        };
        let props = [
            ("file", change_path(c, old, new)),
            (
                "title",
                format!("{} {} ({})", c.rule.id(), c.rule.name(), c.rule.class()),
            ),
        ];
        out.push_str(&workflow_command(command, &props, &c.message));
    }
    out
}

/// `::command key=value,..::message` with GitHub's escapes (`%`, CR and LF
/// everywhere; `:` and `,` in values too).
fn workflow_command(command: &str, props: &[(&str, String)], message: &str) -> String {
    let escape = |s: &str| {
        s.replace('%', "%25")
            .replace('\r', "%0D")
            .replace('\n', "%0A")
    };
    let props: Vec<String> = props
        .iter()
        .map(|(k, v)| format!("{k}={}", escape(v).replace(':', "%3A").replace(',', "%2C")))
        .collect();
    format!("::{command} {}::{}\n", props.join(","), escape(message))
}

/// The message with its label, notes and help, as one text.
fn full_message(d: &Diagnostic) -> String {
    let mut m = d.message.clone();
    if let Some(label) = &d.label {
        m.push_str(&format!(" ({label})"));
    }
    for n in &d.notes {
        m.push_str(&format!("\nnote: {n}"));
    }
    if let Some(h) = &d.help {
        m.push_str(&format!("\nhelp: {h}"));
    }
    m
}

fn location_path(d: &Diagnostic, sources: &SourceMap) -> String {
    match &d.location {
        Location::Span { file, .. } => sources.get(*file).path.clone(),
        Location::Path(p) => p.clone(),
    }
}

fn change_path(c: &Change, old: &Path, new: &Path) -> String {
    let rel = match &c.family {
        Some(f) => format!("families/{f}.toml"),
        None => "abi.toml".to_owned(),
    };
    let dir = if new.join(&rel).is_file() { new } else { old };
    let dir = dir.to_string_lossy().replace('\\', "/");
    // `REV:` (`kfam diff --against` on a manifest at the top of its
    // repository) is followed by the path itself, as git spells it.
    if dir.is_empty() || dir.ends_with(['/', ':']) {
        format!("{dir}{rel}")
    } else {
        format!("{dir}/{rel}")
    }
}

/// A path as a SARIF `uri` (an RFC 3986 relative reference): every byte
/// outside the unreserved and sub-delimiter characters and `/` and `@` is
/// percent-encoded, `:` included, so a revision's file
/// (`origin/main:manifest/abi.toml`, `kfam diff --against`) is a path and
/// not a scheme. Plain paths are unchanged.
fn uri(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=/@".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// A SARIF 2.1.0 log of the given runs.
pub fn sarif_log(runs: Vec<Value>) -> Value {
    json!({
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": runs,
    })
}

fn driver(rules: Vec<Value>) -> Value {
    json!({
        "name": TOOL,
        "semanticVersion": env!("CARGO_PKG_VERSION"),
        "rules": rules,
    })
}

/// One SARIF run of a check: every diagnostic code as a rule (with its
/// `kfam explain` text), every diagnostic as a result with its related
/// locations and fixes.
pub fn sarif_report(report: &Report) -> Value {
    let rules: Vec<Value> = Code::ALL
        .iter()
        .map(|c| {
            json!({
                "id": c.as_str(),
                "name": c.category(),
                "shortDescription": { "text": c.title() },
                "fullDescription": { "text": c.explanation() },
                "help": { "text": format!("kfam explain {}", c.as_str()) },
            })
        })
        .collect();
    let results: Vec<Value> = report
        .diagnostics
        .iter()
        .map(|d| sarif_result(d, &report.sources))
        .collect();
    json!({
        "tool": { "driver": driver(rules) },
        // Columns count characters, as in every kfam format.
        "columnKind": "unicodeCodePoints",
        "results": results,
    })
}

fn region(sources: &SourceMap, file: super::FileId, span: &std::ops::Range<usize>) -> Value {
    let (line, col) = sources.line_col(file, span.start);
    let (end_line, end_col) = sources.line_col(file, span.end);
    json!({
        "startLine": line,
        "startColumn": col,
        "endLine": end_line,
        "endColumn": end_col,
    })
}

fn physical(sources: &SourceMap, file: super::FileId, span: &std::ops::Range<usize>) -> Value {
    json!({
        "artifactLocation": { "uri": uri(&sources.get(file).path) },
        "region": region(sources, file, span),
    })
}

fn sarif_result(d: &Diagnostic, sources: &SourceMap) -> Value {
    let rule_index = Code::ALL.iter().position(|c| *c == d.code).unwrap_or(0);
    let level = match d.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
    };
    let location = match &d.location {
        Location::Span { file, span } => {
            json!({ "physicalLocation": physical(sources, *file, span) })
        }
        Location::Path(p) => {
            json!({ "physicalLocation": { "artifactLocation": { "uri": uri(p) } } })
        }
    };
    let mut result = json!({
        "ruleId": d.code.as_str(),
        "ruleIndex": rule_index,
        "level": level,
        "message": { "text": full_message(d) },
        "locations": [location],
    });
    if !d.related.is_empty() {
        result["relatedLocations"] = d
            .related
            .iter()
            .enumerate()
            .map(|(i, r)| {
                json!({
                    "id": i,
                    "physicalLocation": physical(sources, r.file, &r.span),
                    "message": { "text": r.message },
                })
            })
            .collect();
    }
    if let (false, Location::Span { file, .. }) = (d.fixes.is_empty(), &d.location) {
        result["fixes"] = d
            .fixes
            .iter()
            .map(|f| {
                json!({
                    "description": { "text": f.title },
                    "artifactChanges": [{
                        "artifactLocation": { "uri": uri(&sources.get(*file).path) },
                        "replacements": [{
                            "deletedRegion": region(sources, *file, &f.span),
                            "insertedContent": { "text": f.replacement },
                        }],
                    }],
                })
            })
            .collect();
    }
    result
}

/// One SARIF run of a diff: every diff rule, every change as a result on
/// its family's file (breaking: `error`, otherwise `note`).
pub fn sarif_changes(changes: &[Change], old: &Path, new: &Path) -> Value {
    let rules: Vec<Value> = Rule::ALL
        .iter()
        .map(|r| {
            json!({
                "id": r.id(),
                "name": r.name(),
                "shortDescription": { "text": r.doc() },
                "properties": { "class": r.class() },
            })
        })
        .collect();
    let results: Vec<Value> = changes
        .iter()
        .map(|c| {
            json!({
                "ruleId": c.rule.id(),
                "ruleIndex": Rule::ALL.iter().position(|r| *r == c.rule).unwrap_or(0),
                "level": if c.rule.class() == Class::Breaking { "error" } else { "note" },
                "message": { "text": c.message },
                "locations": [{
                    "physicalLocation": { "artifactLocation": { "uri": uri(&change_path(c, old, new)) } },
                }],
            })
        })
        .collect();
    json!({
        "tool": { "driver": driver(rules) },
        "results": results,
    })
}
