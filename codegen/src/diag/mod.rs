//! Diagnostics: what went wrong, where, and how to fix it.
//!
//! Checks produce [`Diagnostic`]s pointing at byte spans of source files held
//! in a [`SourceMap`]; rendering (rustc style via annotate-snippets, or JSON)
//! happens once, at the edge.

pub mod ci;

pub use crate::codes::Code;

use std::ops::Range;
use std::sync::OnceLock;

use annotate_snippets::{AnnotationKind, Level, Origin, Renderer, Snippet};
use serde::Serialize;

/// Index of a file in a [`SourceMap`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FileId(pub usize);

#[derive(Debug, Clone)]
pub struct SourceFile {
    /// The path as shown to the user (as given on the command line, joined).
    pub path: String,
    pub text: String,
}

/// Every file read during one run, kept so diagnostics can show snippets.
#[derive(Debug, Default, Clone)]
pub struct SourceMap {
    files: Vec<SourceFile>,
    /// Byte offset of every line start, per file: positions and snippets
    /// cost a binary search, not a scan of the file, so rendering many
    /// diagnostics of a large file stays linear. Computed on the first
    /// position asked of a file: a clean run of thousands of files asks none.
    line_starts: Vec<OnceLock<Vec<usize>>>,
}

impl SourceMap {
    pub fn add(&mut self, path: String, text: String) -> FileId {
        self.files.push(SourceFile { path, text });
        self.line_starts.push(OnceLock::new());
        FileId(self.files.len() - 1)
    }

    /// 0-based index of the line holding byte `offset`, and its start.
    fn line_of(&self, id: FileId, offset: usize) -> (usize, usize) {
        let starts = self.line_starts[id.0].get_or_init(|| {
            let text = &self.files[id.0].text;
            std::iter::once(0)
                .chain(text.match_indices('\n').map(|(i, _)| i + 1))
                .collect()
        });
        let line = starts.partition_point(|&s| s <= offset).saturating_sub(1);
        (line, starts.get(line).copied().unwrap_or(0))
    }

    /// Show paths under `from` as under `to` (the proc-macro reads absolute
    /// paths but reports them as the user wrote them).
    pub fn rebase(&mut self, from: &str, to: &str) {
        for f in &mut self.files {
            if let Some(rest) = f.path.strip_prefix(from) {
                f.path = format!("{to}{rest}");
            }
        }
    }

    /// Forget the files added after the first `len` (a language server adds
    /// the unsaved text of a file for one check, then drops it).
    pub fn truncate(&mut self, len: usize) {
        self.files.truncate(len);
        self.line_starts.truncate(len);
    }

    pub fn len(&self) -> usize {
        self.files.len()
    }

    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    pub fn get(&self, id: FileId) -> &SourceFile {
        &self.files[id.0]
    }

    pub fn files(&self) -> impl Iterator<Item = (FileId, &SourceFile)> {
        self.files.iter().enumerate().map(|(i, f)| (FileId(i), f))
    }

    /// 1-based line and column (in characters) of a byte offset.
    pub fn line_col(&self, id: FileId, offset: usize) -> (usize, usize) {
        let text = &self.get(id).text;
        let mut offset = offset.min(text.len());
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let (line, start) = self.line_of(id, offset);
        (line + 1, text[start..offset].chars().count() + 1)
    }
}

pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = text[line_start..offset].chars().count() + 1;
    (line, column)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
}

/// Where a diagnostic points: a byte span of a file, or a whole path that
/// could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Location {
    Span { file: FileId, span: Range<usize> },
    Path(String),
}

#[derive(Clone, Debug)]
pub struct Diagnostic {
    pub code: Code,
    pub severity: Severity,
    pub message: String,
    pub location: Location,
    /// Text under the caret.
    pub label: Option<String>,
    pub help: Option<String>,
    pub notes: Vec<String>,
    /// Other places the diagnostic involves (the first declaration of a
    /// duplicate): editors link them, SARIF lists them as related locations.
    pub related: Vec<Related>,
    /// Edits that fix the mistake, when the checker knows the fix: the
    /// language server offers them as code actions, SARIF as `fixes`.
    pub fixes: Vec<Fix>,
}

/// A second place a diagnostic points at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Related {
    pub file: FileId,
    pub span: Range<usize>,
    pub message: String,
}

/// A machine-applicable fix: replace `span` of the diagnostic's file with
/// `replacement`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fix {
    /// What the edit does, e.g. "replace `dtpye` with `dtype`".
    pub title: String,
    pub span: Range<usize>,
    pub replacement: String,
}

impl Diagnostic {
    pub fn error(code: Code, file: FileId, span: Range<usize>, message: impl Into<String>) -> Self {
        Diagnostic {
            code,
            severity: Severity::Error,
            message: message.into(),
            location: Location::Span { file, span },
            label: None,
            help: None,
            notes: Vec::new(),
            related: Vec::new(),
            fixes: Vec::new(),
        }
    }

    pub fn warning(
        code: Code,
        file: FileId,
        span: Range<usize>,
        message: impl Into<String>,
    ) -> Self {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(code, file, span, message)
        }
    }

    pub fn at_path(code: Code, path: impl Into<String>, message: impl Into<String>) -> Self {
        Diagnostic {
            code,
            severity: Severity::Error,
            message: message.into(),
            location: Location::Path(path.into()),
            label: None,
            help: None,
            notes: Vec::new(),
            related: Vec::new(),
            fixes: Vec::new(),
        }
    }

    pub fn label(mut self, label: impl Into<String>) -> Self {
        self.label = Some(label.into());
        self
    }

    pub fn help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    pub fn note(mut self, note: impl Into<String>) -> Self {
        self.notes.push(note.into());
        self
    }

    pub fn related(mut self, file: FileId, span: Range<usize>, message: impl Into<String>) -> Self {
        self.related.push(Related {
            file,
            span,
            message: message.into(),
        });
        self
    }

    pub fn fix(
        mut self,
        title: impl Into<String>,
        span: Range<usize>,
        replacement: impl Into<String>,
    ) -> Self {
        self.fixes.push(Fix {
            title: title.into(),
            span,
            replacement: replacement.into(),
        });
        self
    }

    /// [`Diagnostic::fix`] when `applies`; the fix is built only then.
    pub fn fix_if(
        self,
        applies: bool,
        fix: impl FnOnce() -> (String, Range<usize>, String),
    ) -> Self {
        if !applies {
            return self;
        }
        let (title, span, replacement) = fix();
        self.fix(title, span, replacement)
    }

    /// The file the diagnostic points into, if it points at a span.
    pub fn file(&self) -> Option<FileId> {
        match self.location {
            Location::Span { file, .. } => Some(file),
            Location::Path(_) => None,
        }
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// Sort key: file path, then position, then code.
    fn sort_key(&self, sources: &SourceMap) -> (String, usize, Code) {
        match &self.location {
            Location::Span { file, span } => {
                (sources.get(*file).path.clone(), span.start, self.code)
            }
            Location::Path(p) => (p.clone(), 0, self.code),
        }
    }

    /// `(path, line, column)` of the diagnostic's start.
    pub fn position(&self, sources: &SourceMap) -> (String, usize, usize) {
        match &self.location {
            Location::Span { file, span } => {
                let (l, c) = sources.line_col(*file, span.start);
                (sources.get(*file).path.clone(), l, c)
            }
            Location::Path(p) => (p.clone(), 0, 0),
        }
    }

    /// Render in the rustc style.
    pub fn render(&self, sources: &SourceMap, renderer: &Renderer) -> String {
        let level = match self.severity {
            Severity::Error => Level::ERROR,
            Severity::Warning => Level::WARNING,
        };
        let title = level
            .primary_title(self.message.as_str())
            .id(self.code.as_str());
        let mut group = match &self.location {
            Location::Span { file, span } => title.element(snippet(
                sources,
                *file,
                span.clone(),
                AnnotationKind::Primary,
                self.label.as_deref(),
            )),
            // No source to show: just ` --> path`.
            Location::Path(p) => title.element(Origin::path(p.as_str())),
        };
        // Each other place the diagnostic involves (a parameter's
        // declaration, a first declaration) is shown with its own label.
        for r in &self.related {
            group = group.element(snippet(
                sources,
                r.file,
                r.span.clone(),
                AnnotationKind::Context,
                Some(&r.message),
            ));
        }
        for note in &self.notes {
            group = group.element(Level::NOTE.message(note.as_str()));
        }
        if let Some(help) = &self.help {
            group = group.element(Level::HELP.message(help.as_str()));
        }
        renderer.render(&[group])
    }

    pub fn to_json(&self, sources: &SourceMap) -> serde_json::Value {
        let (file, line, column) = self.position(sources);
        serde_json::json!({
            "code": self.code.as_str(),
            "severity": self.severity,
            "message": self.message,
            "file": file,
            "line": line,
            "column": column,
            "label": self.label,
            "help": self.help,
            "notes": self.notes,
        })
    }
}

/// Zero-width and out-of-range spans would render without a caret; widen to
/// one character, staying on a char boundary.
/// The lines `span` of `file` touches, annotated. Only those lines go to
/// the renderer (with their line number): the cost of a diagnostic does
/// not grow with the file.
fn snippet<'s>(
    sources: &'s SourceMap,
    file: FileId,
    span: Range<usize>,
    kind: AnnotationKind,
    label: Option<&'s str>,
) -> Snippet<'s, annotate_snippets::Annotation<'s>> {
    let src = sources.get(file);
    let span = visible_span(&src.text, span);
    let (line, start) = sources.line_of(file, span.start);
    let end = src.text[span.end..]
        .find('\n')
        .map_or(src.text.len(), |i| span.end + i);
    let (lines, span) = show_invisible(&src.text[start..end], span.start - start..span.end - start);
    let mut ann = kind.span(span);
    if let Some(label) = label {
        ann = ann.label(label);
    }
    Snippet::source(lines)
        .line_start(line + 1)
        .path(src.path.as_str())
        .annotation(ann)
}

fn visible_span(text: &str, span: Range<usize>) -> Range<usize> {
    let mut start = span.start.min(text.len());
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    let mut end = span.end.clamp(start, text.len());
    while !text.is_char_boundary(end) {
        end += 1;
    }
    if end == start {
        end = text[start..]
            .chars()
            .next()
            .map_or(start, |c| start + c.len_utf8());
        if end == start && start > 0 {
            // At end of file: point at the last character instead.
            let prev = text[..start].chars().next_back().map_or(0, char::len_utf8);
            return start - prev..start;
        }
    }
    start..end
}

/// `lines` with every invisible character (zero-width, line and paragraph
/// separators, bidi marks and overrides: what the checker refuses in text)
/// shown as U+FFFD, and `span` moved to match: a snippet must not hide what
/// a hostile file holds, nor break its line on screen. annotate-snippets
/// already shows control characters as control pictures (`␛`).
fn show_invisible(lines: &str, span: Range<usize>) -> (std::borrow::Cow<'_, str>, Range<usize>) {
    let invisible = |c: char| !c.is_control() && crate::limits::is_forbidden_char(c, true);
    if !lines.contains(invisible) {
        return (lines.into(), span);
    }
    let mut out = String::with_capacity(lines.len() + 8);
    let (mut start, mut end) = (None, None);
    for (i, c) in lines.char_indices() {
        if i == span.start {
            start = Some(out.len());
        }
        if i == span.end {
            end = Some(out.len());
        }
        out.push(if invisible(c) { '\u{FFFD}' } else { c });
    }
    let start = start.unwrap_or(out.len());
    let end = end.unwrap_or(out.len());
    (out.into(), start..end)
}

/// All diagnostics of a run, with the sources they point into.
#[derive(Debug, Default)]
pub struct Report {
    pub sources: SourceMap,
    pub diagnostics: Vec<Diagnostic>,
}

impl Report {
    /// Sort by file and position, and give every error a help line: one
    /// without a specific fix points at the rule's explanation.
    pub fn sort(&mut self) {
        let sources = &self.sources;
        self.diagnostics.sort_by_cached_key(|d| d.sort_key(sources));
        for d in &mut self.diagnostics {
            if d.help.is_none() && d.is_error() {
                d.help = Some(format!("`kfam explain {}` describes this rule", d.code));
            }
        }
    }

    /// See [`SourceMap::rebase`]; also rewrites path-only locations.
    pub fn rebase_paths(&mut self, from: &str, to: &str) {
        self.sources.rebase(from, to);
        for d in &mut self.diagnostics {
            if let Location::Path(p) = &mut d.location {
                if let Some(rest) = p.strip_prefix(from) {
                    *p = format!("{to}{rest}");
                }
            }
            d.message = d.message.replace(from, to);
            d.label = d.label.as_deref().map(|l| l.replace(from, to));
            d.help = d.help.as_deref().map(|h| h.replace(from, to));
            for n in &mut d.notes {
                *n = n.replace(from, to);
            }
        }
    }

    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }

    pub fn error_count(&self) -> usize {
        self.diagnostics.iter().filter(|d| d.is_error()).count()
    }

    /// Whether the failure is about reading input rather than its content
    /// (the CLI exits 2 for those).
    pub fn has_io_errors(&self) -> bool {
        self.diagnostics.iter().any(|d| d.code == Code::Io)
    }

    pub fn render_human(&self, renderer: &Renderer) -> String {
        let mut out = String::new();
        for d in &self.diagnostics {
            out.push_str(&d.render(&self.sources, renderer));
            out.push_str("\n\n");
        }
        out
    }

    pub fn render_json(&self) -> String {
        let mut out = String::new();
        for d in &self.diagnostics {
            out.push_str(&d.to_json(&self.sources).to_string());
            out.push('\n');
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::show_invisible;

    #[test]
    fn invisible_characters_are_shown_and_spans_follow() {
        let line = "a\u{200b}b \u{2028}\u{202e}cd\u{feff}";
        let at = |s: &str| line.find(s).unwrap();
        let (shown, span) = show_invisible(line, at("cd")..at("cd") + 2);
        assert_eq!(shown, "a\u{fffd}b \u{fffd}\u{fffd}cd\u{fffd}");
        assert_eq!(&shown[span], "cd");
        // A span to the end of the text, and text without invisible characters.
        let (shown, span) = show_invisible(line, at("\u{feff}")..line.len());
        assert_eq!(&shown[span], "\u{fffd}");
        let (shown, span) = show_invisible("plain\ttext", 1..3);
        assert_eq!((&*shown, span), ("plain\ttext", 1..3));
    }
}
