//! Positions and file names as the protocol spells them: LSP positions are
//! (line, UTF-16 code unit) pairs, the checker's spans are byte ranges, and
//! documents are named by `file:` URIs.

use std::ops::Range;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use lsp_types::{Position, Uri};

/// Byte offset of every line start of one text.
pub struct LineIndex<'a> {
    text: &'a str,
    starts: Vec<usize>,
}

impl<'a> LineIndex<'a> {
    pub fn new(text: &'a str) -> Self {
        let starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        LineIndex { text, starts }
    }

    pub fn position(&self, offset: usize) -> Position {
        let mut offset = offset.min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.starts.partition_point(|&s| s <= offset) - 1;
        let start = self.starts[line];
        let character = self.text[start..offset].encode_utf16().count();
        Position::new(line as u32, character as u32)
    }

    pub fn range(&self, span: &Range<usize>) -> lsp_types::Range {
        lsp_types::Range::new(self.position(span.start), self.position(span.end))
    }

    /// The byte offset of a position; positions past a line's end clamp to
    /// it, as the protocol asks.
    pub fn offset(&self, p: Position) -> usize {
        let Some(&start) = self.starts.get(p.line as usize) else {
            return self.text.len();
        };
        let end = self
            .starts
            .get(p.line as usize + 1)
            .map_or(self.text.len(), |&e| e - 1);
        let mut units = 0;
        for (i, c) in self.text[start..end].char_indices() {
            if units >= p.character as usize {
                return start + i;
            }
            units += c.len_utf16();
        }
        end
    }
}

/// The file a `file:` URI names.
pub fn uri_path(uri: &Uri) -> Option<PathBuf> {
    if !uri
        .scheme()
        .is_some_and(|s| s.as_str().eq_ignore_ascii_case("file"))
    {
        return None;
    }
    let path = uri.path().as_estr().decode().into_string().ok()?;
    Some(PathBuf::from(path.into_owned()))
}

/// The `file:` URI of an absolute path: every byte outside RFC 3986's
/// unreserved set and `/` is percent-encoded (fluent-uri, which lsp-types
/// builds on, offers encoding only behind an unstable feature).
pub fn path_uri(path: &Path) -> Option<Uri> {
    let mut s = String::from("file://");
    for &b in path.to_string_lossy().as_bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            s.push(b as char);
        } else {
            s.push_str(&format!("%{b:02X}"));
        }
    }
    Uri::from_str(&s).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_count_utf16_units() {
        let text = "a = \"é😀x\"\nb = 1\n";
        let index = LineIndex::new(text);
        let x = text.find('x').unwrap();
        assert_eq!(index.position(x), Position::new(0, 8));
        assert_eq!(index.offset(Position::new(0, 8)), x);
        assert_eq!(index.offset(Position::new(1, 99)), text.len() - 1);
        assert_eq!(index.position(text.len()), Position::new(2, 0));
    }

    #[test]
    fn uris_round_trip() {
        let path = Path::new("/tmp/a b/ü.toml");
        let uri = path_uri(path).unwrap();
        assert_eq!(uri.as_str(), "file:///tmp/a%20b/%C3%BC.toml");
        assert_eq!(uri_path(&uri).unwrap(), path);
    }
}
