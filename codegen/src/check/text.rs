//! Free text and short values: forbidden characters, lengths, artifact
//! paths, codecs, dates, and how names are listed and suggested.

use std::ops::Range;

use crate::diag::{Code, Diagnostic, FileId, SourceMap};
use crate::limits::{is_forbidden_char, MAX_TEXT_CHARS};
use crate::model::Spanned;
use crate::names::{identifier_problem, is_reserved};

/// `s` with control, bidirectional and invisible characters escaped, for
/// quoting user text in a message (other characters, `\` included, as is).
pub(super) fn printable(s: &str) -> String {
    s.chars()
        .map(|c| {
            if is_forbidden_char(c, false) {
                c.escape_unicode().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// Where `c` is written in the source of a TOML string: literally, or as an
/// escape (`\t`, `\u202E`, ...) that is not itself an escaped backslash.
pub(super) fn find_char_or_escape(src: &str, c: char) -> Option<Range<usize>> {
    if let Some(at) = src.find(c) {
        return Some(at..at + c.len_utf8());
    }
    let short = match c {
        '\t' => Some("\\t"),
        '\r' => Some("\\r"),
        '\u{8}' => Some("\\b"),
        '\u{c}' => Some("\\f"),
        '\u{1b}' => Some("\\e"),
        _ => None,
    };
    let code = c as u32;
    let escapes = [
        format!("\\u{code:04X}"),
        format!("\\u{code:04x}"),
        format!("\\U{code:08X}"),
        format!("\\U{code:08x}"),
        format!("\\x{code:02X}"),
        format!("\\x{code:02x}"),
    ];
    for e in short.into_iter().map(str::to_owned).chain(escapes) {
        for (at, _) in src.match_indices(e.as_str()) {
            let backslashes = src[..at].bytes().rev().take_while(|&b| b == b'\\').count();
            if backslashes % 2 == 0 {
                return Some(at..at + e.len());
            }
        }
    }
    None
}

/// Names of the forbidden characters people actually paste.
pub(super) fn char_name(c: char) -> Option<&'static str> {
    Some(match c {
        '\t' => "TAB",
        '\n' => "LINE FEED",
        '\r' => "CARRIAGE RETURN",
        '\u{200B}' => "ZERO WIDTH SPACE",
        '\u{200C}' => "ZERO WIDTH NON-JOINER",
        '\u{200D}' => "ZERO WIDTH JOINER",
        '\u{200E}' => "LEFT-TO-RIGHT MARK",
        '\u{200F}' => "RIGHT-TO-LEFT MARK",
        '\u{202A}' => "LEFT-TO-RIGHT EMBEDDING",
        '\u{202B}' => "RIGHT-TO-LEFT EMBEDDING",
        '\u{202C}' => "POP DIRECTIONAL FORMATTING",
        '\u{202D}' => "LEFT-TO-RIGHT OVERRIDE",
        '\u{202E}' => "RIGHT-TO-LEFT OVERRIDE",
        '\u{2066}' => "LEFT-TO-RIGHT ISOLATE",
        '\u{2067}' => "RIGHT-TO-LEFT ISOLATE",
        '\u{2068}' => "FIRST STRONG ISOLATE",
        '\u{2069}' => "POP DIRECTIONAL ISOLATE",
        '\u{FEFF}' => "ZERO WIDTH NO-BREAK SPACE",
        _ => return None,
    })
}

/// Most names one message lists: a diagnostic stays proportional to the
/// mistake, not to the file (a list of every name in every one of many
/// errors made a 1 MiB file produce gigabytes of diagnostics).
pub const MAX_LISTED_NAMES: usize = 12;

/// `a, b, c`, or the first [`MAX_LISTED_NAMES`] and how many more.
pub(super) fn name_list(names: &[String]) -> String {
    if names.len() <= MAX_LISTED_NAMES {
        return names.join(", ");
    }
    format!(
        "{} and {} more",
        names[..MAX_LISTED_NAMES].join(", "),
        names.len() - MAX_LISTED_NAMES
    )
}

pub(super) fn join_ticks<T: std::fmt::Display>(items: &[T]) -> String {
    items
        .iter()
        .map(|i| format!("`{i}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The problems of free text `text` (field `field` of file `id`): a
/// forbidden character, or an empty (when `required`) or overlong text.
/// Free text goes into comments and strings of every generated language.
pub fn text_problems(
    sources: &SourceMap,
    id: FileId,
    text: &Spanned<String>,
    field: &str,
    allow_newline: bool,
    required: bool,
) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    if let Some(c) = text
        .value
        .chars()
        .find(|&c| is_forbidden_char(c, allow_newline))
    {
        let name = char_name(c).map_or(String::new(), |n| format!(" ({n})"));
        // Point at the character (it may be invisible) or its escape.
        let src = &sources.get(id).text;
        let literal = src
            .get(text.span.clone())
            .filter(|_| c != '\n')
            .and_then(|s| find_char_or_escape(s, c))
            .map(|r| text.span.start + r.start..text.span.start + r.end);
        out.push(
            Diagnostic::error(Code::ControlCharacter, id, literal.clone().unwrap_or(text.span.clone()), format!("`{field}` contains U+{:04X}{name}", c as u32))
                .label(if literal.is_some() { "this character" } else { "in this text" })
                .help("remove it; free text is copied into comments and strings of every generated language"),
        );
    }
    let chars = text.value.chars().count();
    if (required && text.value.trim().is_empty()) || chars > MAX_TEXT_CHARS {
        let msg = if chars > MAX_TEXT_CHARS {
            format!("`{field}` is {chars} characters, over the limit of {MAX_TEXT_CHARS}")
        } else {
            format!("`{field}` is empty")
        };
        let help = if chars > MAX_TEXT_CHARS {
            "shorten it; longer documentation belongs in `docs/`"
        } else {
            "write a sentence that says what the family computes"
        };
        out.push(
            Diagnostic::error(Code::TextLength, id, text.span.clone(), msg)
                .label("here")
                .help(help),
        );
    }
    out
}

/// Why an artifact path is unsafe, if it is.
pub fn artifact_path_problem(path: &str) -> Option<&'static str> {
    if path.is_empty() {
        return Some("empty path");
    }
    if path.starts_with('/') {
        return Some("absolute path");
    }
    if path.contains('\\') {
        return Some("backslash separator");
    }
    if path.len() >= 2 && path.as_bytes()[1] == b':' {
        return Some("drive prefix");
    }
    if path.chars().any(|c| is_forbidden_char(c, false)) {
        return Some("control character");
    }
    for seg in path.split('/') {
        match seg {
            "" => return Some("empty path segment"),
            "." => return Some("`.` segment"),
            ".." => return Some("climbs out with `..`"),
            _ => {}
        }
    }
    None
}

pub(super) fn is_codec(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 64
        && s.as_bytes()[0].is_ascii_lowercase()
        && s.bytes().all(|b| {
            b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'_' | b'.' | b'-')
        })
}

/// Why `s` is not a real calendar date `YYYY-MM-DD` (proleptic Gregorian:
/// 2024-02-29 is one, 2026-02-29 and 2026-04-31 are not), if it is not.
pub(super) fn date_problem(s: &str) -> Option<&'static str> {
    let b = s.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return Some("expected YYYY-MM-DD");
    }
    let num = |r: Range<usize>| {
        s.get(r)
            .filter(|t| t.bytes().all(|c| c.is_ascii_digit()))
            .and_then(|t| t.parse::<u32>().ok())
    };
    let (Some(y), Some(m), Some(d)) = (num(0..4), num(5..7), num(8..10)) else {
        return Some("expected YYYY-MM-DD");
    };
    let leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
    let days = match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return Some("no such month"),
    };
    (!(1..=days).contains(&d)).then_some("no such day in that month")
}

/// A snake_case spelling of an invalid name, when one exists.
pub(super) fn suggest_identifier(name: &str) -> Option<String> {
    let s = heck::ToSnakeCase::to_snake_case(name);
    let s: String = s
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    (identifier_problem(&s).is_none() && !is_reserved(&s) && s != name).then_some(s)
}
