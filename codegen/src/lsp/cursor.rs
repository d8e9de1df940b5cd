//! Where the cursor is in a TOML document that may not parse (it is being
//! typed): the table it is in and whether it is on a key or on the value of
//! a key. A small scanner over the text before the cursor, tolerant of
//! anything unfinished; the checker's spans answer everything else.

use std::ops::Range;

/// The cursor's place in the document.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cursor {
    /// Keys from the document root to the innermost table or array the
    /// cursor is in: the header's keys, then the key of each open array and
    /// inline table (`[[profiles]]` then `bindings = [{` gives
    /// `["profiles", "bindings"]`).
    pub path: Vec<String>,
    pub at: At,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum At {
    /// On a key (possibly dotted: the parts before the cursor's part are
    /// appended to `path`); `typed` is the part typed so far.
    Key { typed: Range<usize> },
    /// On the value of `key` (the last key of the path to the value);
    /// `typed` is the value typed so far, inside its quotes when `quoted`.
    Value {
        key: String,
        typed: Range<usize>,
        quoted: bool,
    },
    /// In a `[table]` header or a comment.
    Elsewhere,
}

impl Cursor {
    /// The dotted path of the value under the cursor (`operation.matmul.a`,
    /// `returns`, `profiles.bindings.param`), if it is on a value.
    pub fn value_path(&self) -> Option<String> {
        match &self.at {
            At::Value { key, .. } => {
                let mut parts = self.path.clone();
                parts.push(key.clone());
                Some(parts.join("."))
            }
            _ => None,
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Root,
    Array,
    Inline,
}

#[derive(Debug)]
struct Frame {
    kind: Kind,
    /// Keys this frame adds to the path (the key that opened it).
    keys: Vec<String>,
    /// Root and inline tables: after `=`, on a value.
    in_value: bool,
    /// Root and inline tables: the dotted key read so far, or of the value.
    key: Vec<String>,
}

impl Frame {
    fn new(kind: Kind, keys: Vec<String>) -> Self {
        Frame {
            kind,
            keys,
            in_value: false,
            key: Vec::new(),
        }
    }
    fn expects_key(&self) -> bool {
        self.kind != Kind::Array && !self.in_value
    }
}

/// The cursor context at byte `offset` of `text`.
pub fn at(text: &str, offset: usize) -> Cursor {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let bytes = text.as_bytes();
    let mut header: Vec<String> = Vec::new();
    let mut frames = vec![Frame::new(Kind::Root, Vec::new())];
    let mut i = 0;
    // The token the cursor is in or right after: (start, quoted).
    let mut current: Option<(usize, bool)> = None;
    let mut in_header = false;
    while i < offset {
        let b = bytes[i];
        current = None;
        match b {
            b'\n' => {
                in_header = false;
                let top = frames.last_mut().expect("root frame");
                if top.kind == Kind::Root {
                    top.in_value = false;
                    top.key.clear();
                }
                i += 1;
            }
            b' ' | b'\t' | b'\r' => i += 1,
            b'#' => {
                let end = text[i..].find('\n').map_or(text.len(), |n| i + n);
                if end >= offset {
                    return elsewhere(header, &frames);
                }
                i = end;
            }
            b'"' | b'\'' => {
                let (end, closed) = string_end(text, i);
                if !closed || end > offset {
                    let quote_len =
                        if text[i..].starts_with("\"\"\"") || text[i..].starts_with("'''") {
                            3
                        } else {
                            1
                        };
                    current = Some((i + quote_len, true));
                    break;
                }
                let value = unquote(&text[i..end]);
                if in_header {
                    header.push(value);
                } else {
                    token(&mut frames, value);
                }
                if end == offset {
                    current = Some((offset, false));
                }
                i = end;
            }
            b'[' if frames.len() == 1 && frames[0].expects_key() && frames[0].key.is_empty() => {
                in_header = true;
                header.clear();
                i += if text[i..].starts_with("[[") { 2 } else { 1 };
            }
            b']' if in_header => {
                in_header = false;
                i += if text[i..].starts_with("]]") { 2 } else { 1 };
            }
            b'[' | b'{' => {
                let kind = if b == b'[' { Kind::Array } else { Kind::Inline };
                let top = frames.last_mut().expect("root frame");
                let keys = if top.kind == Kind::Array {
                    Vec::new()
                } else {
                    top.key.clone()
                };
                frames.push(Frame::new(kind, keys));
                i += 1;
            }
            b']' | b'}' => {
                if frames.len() > 1 {
                    frames.pop();
                }
                i += 1;
            }
            b'=' => {
                let top = frames.last_mut().expect("root frame");
                top.in_value = true;
                i += 1;
            }
            b',' => {
                let top = frames.last_mut().expect("root frame");
                if top.kind == Kind::Inline {
                    top.in_value = false;
                    top.key.clear();
                }
                i += 1;
            }
            b'.' if !frames.last().expect("root frame").in_value => i += 1,
            _ => {
                let start = i;
                while i < text.len()
                    && !matches!(
                        bytes[i],
                        b' ' | b'\t'
                            | b'\r'
                            | b'\n'
                            | b'='
                            | b','
                            | b'['
                            | b']'
                            | b'{'
                            | b'}'
                            | b'#'
                            | b'"'
                            | b'\''
                    )
                    && !(bytes[i] == b'.' && frames.last().expect("root frame").expects_key())
                {
                    i += 1;
                }
                if i >= offset {
                    current = Some((start, false));
                    break;
                }
                let word = text[start..i].to_owned();
                if in_header {
                    header.push(word);
                } else {
                    token(&mut frames, word);
                }
            }
        }
    }
    if in_header {
        return elsewhere(header, &frames);
    }
    let typed = current.map_or(offset..offset, |(s, _)| s.min(offset)..offset);
    let quoted = current.is_some_and(|(_, q)| q);
    let mut path = header;
    for f in &frames[1..] {
        path.extend(f.keys.iter().cloned());
    }
    let top = frames.last().expect("root frame");
    if top.expects_key() {
        path.extend(top.key.iter().cloned());
        return Cursor {
            path,
            at: At::Key { typed },
        };
    }
    let key = if top.kind == Kind::Array {
        path.pop()
    } else {
        let mut k = top.key.clone();
        let last = k.pop();
        path.extend(k);
        last
    };
    match key {
        Some(key) => Cursor {
            path,
            at: At::Value { key, typed, quoted },
        },
        None => Cursor {
            path,
            at: At::Elsewhere,
        },
    }
}

fn elsewhere(mut path: Vec<String>, frames: &[Frame]) -> Cursor {
    for f in &frames[1..] {
        path.extend(f.keys.iter().cloned());
    }
    Cursor {
        path,
        at: At::Elsewhere,
    }
}

/// A complete key part or value token in the innermost frame.
fn token(frames: &mut [Frame], word: String) {
    let top = frames.last_mut().expect("root frame");
    if top.expects_key() {
        top.key.push(word);
    }
}

/// The end of the string starting at `start`, and whether it is closed.
fn string_end(text: &str, start: usize) -> (usize, bool) {
    let rest = &text[start..];
    for delim in ["\"\"\"", "'''"] {
        if let Some(body) = rest.strip_prefix(delim) {
            return match find_close(body, delim, delim == "\"\"\"") {
                Some(n) => (start + 3 + n + 3, true),
                None => (text.len(), false),
            };
        }
    }
    let quote = &rest[..1];
    let line_end = rest.find('\n').unwrap_or(rest.len());
    match find_close(&rest[1..line_end], quote, quote == "\"") {
        Some(n) => (start + 1 + n + 1, true),
        None => (start + line_end, false),
    }
}

fn find_close(body: &str, delim: &str, escapes: bool) -> Option<usize> {
    let mut i = 0;
    while i < body.len() {
        if escapes && body.as_bytes()[i] == b'\\' {
            i += 2;
            continue;
        }
        if body[i..].starts_with(delim) {
            return Some(i);
        }
        i += body[i..].chars().next().map_or(1, char::len_utf8);
    }
    None
}

fn unquote(s: &str) -> String {
    let n = if s.starts_with("\"\"\"") || s.starts_with("'''") {
        3
    } else {
        1
    };
    s.get(n..s.len().saturating_sub(n)).unwrap_or("").to_owned()
}

/// The whole token (word, or string contents) around byte `offset`: the
/// value or key under the cursor, for hover.
pub fn word_at(text: &str, offset: usize) -> Range<usize> {
    let is_word = |c: char| c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | '+');
    let mut start = offset.min(text.len());
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    let mut end = start;
    while let Some(c) = text[..start].chars().next_back().filter(|&c| is_word(c)) {
        start -= c.len_utf8();
    }
    while let Some(c) = text[end..].chars().next().filter(|&c| is_word(c)) {
        end += c.len_utf8();
    }
    start..end
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cursor(marked: &str) -> (Cursor, String) {
        let offset = marked.find('|').expect("a cursor mark");
        let text = marked.replacen('|', "", 1);
        (at(&text, offset), text)
    }

    fn value(marked: &str) -> (String, String, bool) {
        let (c, text) = cursor(marked);
        let path = c.value_path().unwrap_or_else(|| panic!("{c:?}"));
        match c.at {
            At::Value { typed, quoted, .. } => (path, text[typed].to_owned(), quoted),
            _ => unreachable!(),
        }
    }

    #[test]
    fn values_in_tables_arrays_and_inline_tables() {
        assert_eq!(
            value("name = \"x\"\n[operation.matmul]\na = \"q|"),
            ("operation.matmul.a".into(), "q".into(), true)
        );
        assert_eq!(
            value("returns = [\"out\", \"|\"]"),
            ("returns".into(), "".into(), true)
        );
        assert_eq!(
            value("[[profiles]]\nbindings = [\n  { param = \"lhs\", slot = 0 },\n  { param = \"r|"),
            ("profiles.bindings.param".into(), "r".into(), true)
        );
        assert_eq!(
            value("[[params]]\ndtype = bf|"),
            ("params.dtype".into(), "bf".into(), false)
        );
        assert_eq!(
            value("evidence = { date = \"2026\", hardware = \"|\" }"),
            ("evidence.hardware".into(), "".into(), true)
        );
        assert_eq!(
            value("[[profiles.bindings]]\nparam = |"),
            ("profiles.bindings.param".into(), "".into(), false)
        );
    }

    #[test]
    fn keys_and_elsewhere() {
        let (c, text) = cursor("summary = \"\"\"\nmany [lines]\n\"\"\"\n[[params]]\nna|");
        assert_eq!(c.path, ["params"]);
        assert!(
            matches!(&c.at, At::Key { typed } if &text[typed.clone()] == "na"),
            "{c:?}"
        );
        let (c, _) = cursor("[[profiles]]\nbindings = [{ param = \"a\", |");
        assert_eq!(c.path, ["profiles", "bindings"]);
        assert!(matches!(c.at, At::Key { .. }));
        let (c, _) = cursor("[operation.|]");
        assert_eq!(c.at, At::Elsewhere);
        let (c, _) = cursor("# a comment |");
        assert_eq!(c.at, At::Elsewhere);
        let (c, text) = cursor("[[params]]\nname = \"x\"\n|");
        assert_eq!(
            (c.path, c.at),
            (
                vec!["params".to_owned()],
                At::Key {
                    typed: text.len()..text.len()
                }
            )
        );
    }
}
