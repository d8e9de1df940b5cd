//! What every emitter produces and shares: a generated file and the test
//! for text that is its own string literal. A leaf: the emitters use it,
//! and `emit` re-exports it. The first line every file carries is
//! [`crate::origin`]'s.

/// Whether `text` is printable ASCII without `"` or `\`: then it is its own
/// string literal body in C, Python and Rust alike, copied whole (most text
/// is; the literal writers escape the rest character by character).
pub(crate) fn needs_no_escape(text: &str) -> bool {
    text.bytes()
        .all(|b| (0x20..=0x7e).contains(&b) && b != b'"' && b != b'\\')
}

/// One output file: a `/`-separated path relative to the output directory,
/// and its complete contents (LF line endings).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GeneratedFile {
    pub path: String,
    pub contents: String,
}

impl GeneratedFile {
    pub fn new(path: impl Into<String>, contents: impl Into<String>) -> Self {
        GeneratedFile {
            path: path.into(),
            contents: contents.into(),
        }
    }
}
