//! The result of checking one document, kept in the protocol's terms until
//! the next edit: diagnostics with their fixes, the parsed file, the lowered
//! family and the checker's parameter references.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use kfam_codegen::check::Reference;
use kfam_codegen::diag::{Code, Diagnostic, Fix, Location, Severity, SourceMap};
use kfam_codegen::ir;
use kfam_codegen::live::{FileCheck, Manifest};
use kfam_codegen::model::FamilyFile;
use lsp_types::{
    CodeDescription, DiagnosticRelatedInformation, DiagnosticSeverity, NumberOrString, Uri,
};

use super::cursor;
use super::text::{path_uri, LineIndex};

/// Most family files of a manifest read to learn where references sit.
const LEARN_FROM: usize = 16;

#[derive(Default)]
pub struct Analysis {
    /// The document as parsed (`None` while it does not parse).
    pub file: Option<FamilyFile>,
    /// The lowered family, when the document has no errors.
    pub family: Option<ir::Family>,
    pub references: Vec<Reference>,
    pub diagnostics: Vec<Shown>,
    /// Parameters of the last version of the document that parsed:
    /// completion offers them while the current text does not parse.
    pub params: Vec<ParamSummary>,
    /// Approved revisions of this family name in `approved.lock`.
    pub approved: Vec<(u32, String)>,
}

/// A diagnostic as published, with the fixes the checker attached.
pub struct Shown {
    pub lsp: lsp_types::Diagnostic,
    pub code: Code,
    pub fixes: Vec<Fix>,
}

#[derive(Clone)]
pub struct ParamSummary {
    pub name: String,
    /// e.g. "`in` tensor `bf16` [-1, 64]".
    pub detail: String,
    pub doc: Option<String>,
}

impl Analysis {
    pub fn new(
        uri: &Uri,
        text: &str,
        previous: &Analysis,
        manifest: &Manifest,
        checked: FileCheck,
        learned: &mut BTreeSet<String>,
    ) -> Self {
        let index = LineIndex::new(text);
        let explain = explain_doc(manifest.root());
        let diagnostics = checked
            .diagnostics
            .iter()
            .map(|d| Shown {
                lsp: to_lsp(d, uri, &index, manifest.sources(), explain.as_deref()),
                code: d.code,
                fixes: d.fixes.clone(),
            })
            .collect();
        let (family, references) = match checked.outcome {
            Some(o) => (o.family, o.references),
            None => (None, Vec::new()),
        };
        learn(text, &references, learned);
        let params = match &checked.file {
            Some(f) => f.params.iter().map(|p| summarize(&p.value)).collect(),
            None => previous.params.clone(),
        };
        let approved = checked
            .file
            .as_ref()
            .map(|f| {
                manifest
                    .approved(&f.name.value)
                    .iter()
                    .map(|e| (e.value.revision.value, e.value.identity.value.clone()))
                    .collect()
            })
            .unwrap_or_default();
        Analysis {
            file: checked.file,
            family,
            references,
            diagnostics,
            params,
            approved,
        }
    }

    pub fn lsp_diagnostics(&self) -> Vec<lsp_types::Diagnostic> {
        self.diagnostics.iter().map(|d| d.lsp.clone()).collect()
    }
}

pub fn summarize(p: &kfam_codegen::model::Param) -> ParamSummary {
    let kind = p
        .kind
        .as_ref()
        .map_or("tensor".to_owned(), |k| k.value.to_string());
    let direction = p
        .direction
        .as_ref()
        .map_or("in".to_owned(), |d| d.value.to_string());
    let mut detail = format!("`{direction}` {kind} `{}`", p.dtype.value);
    if let Some(shape) = &p.shape {
        let dims: Vec<String> = shape.value.iter().map(|d| d.value.to_string()).collect();
        detail.push_str(&format!(" [{}]", dims.join(", ")));
    }
    if let Some(l) = &p.layout {
        detail.push_str(&format!(", layout `{}`", l.value));
    }
    ParamSummary {
        name: p.name.value.clone(),
        detail,
        doc: p.doc.as_ref().map(|d| d.value.clone()),
    }
}

/// Record the value paths of `references` (see `Server::reference_paths`).
fn learn(text: &str, references: &[Reference], learned: &mut BTreeSet<String>) {
    for r in references {
        // Inside the value (past an opening quote), where completion asks.
        let inside = (r.span.start + 1).min(r.span.end);
        if let Some(path) = cursor::at(text, inside).value_path() {
            learned.insert(path);
        }
    }
}

/// Learn reference paths from a few family files on disk, so completion
/// knows them before the open document parses.
pub fn learn_reference_paths(manifest: &mut Manifest, learned: &mut BTreeSet<String>) {
    let files: Vec<(PathBuf, String)> = manifest
        .families()
        .iter()
        .take(LEARN_FROM)
        .map(|(id, _)| {
            let f = manifest.sources().get(*id);
            (PathBuf::from(&f.path), f.text.clone())
        })
        .collect();
    for (path, text) in files {
        if let Some(outcome) = manifest.check_file(&path, text.clone()).outcome {
            learn(&text, &outcome.references, learned);
        }
    }
}

/// The generated reference of every diagnostic code, beside the manifest.
fn explain_doc(root: &Path) -> Option<String> {
    let doc = root.parent()?.join("generated/docs/diagnostics.md");
    let doc = doc.canonicalize().ok()?;
    Some(path_uri(&doc)?.as_str().to_owned())
}

fn to_lsp(
    d: &Diagnostic,
    uri: &Uri,
    index: &LineIndex,
    sources: &SourceMap,
    explain: Option<&str>,
) -> lsp_types::Diagnostic {
    let range = match &d.location {
        Location::Span { span, .. } => index.range(span),
        Location::Path(_) => lsp_types::Range::default(),
    };
    let mut message = d.message.clone();
    if let Some(label) = &d.label {
        message.push_str(&format!(" ({label})"));
    }
    for note in &d.notes {
        message.push_str(&format!("\nnote: {note}"));
    }
    if let Some(help) = &d.help {
        message.push_str(&format!("\nhelp: {help}"));
    }
    let related: Vec<DiagnosticRelatedInformation> = d
        .related
        .iter()
        .filter_map(|r| {
            let file = sources.get(r.file);
            let location_uri = if Some(r.file) == d.file() {
                uri.clone()
            } else {
                let path = Path::new(&file.path);
                path_uri(&path.canonicalize().unwrap_or_else(|_| path.to_path_buf()))?
            };
            Some(DiagnosticRelatedInformation {
                location: lsp_types::Location::new(
                    location_uri,
                    LineIndex::new(&file.text).range(&r.span),
                ),
                message: r.message.clone(),
            })
        })
        .collect();
    let href = explain.and_then(|doc| {
        Uri::from_str(&format!("{doc}#{}", d.code.as_str().to_ascii_lowercase())).ok()
    });
    lsp_types::Diagnostic {
        range,
        severity: Some(match d.severity {
            Severity::Error => DiagnosticSeverity::ERROR,
            Severity::Warning => DiagnosticSeverity::WARNING,
        }),
        code: Some(NumberOrString::String(d.code.as_str().to_owned())),
        code_description: href.map(|href| CodeDescription { href }),
        source: Some("kfam".to_owned()),
        message,
        related_information: (!related.is_empty()).then_some(related),
        tags: None,
        data: None,
    }
}
