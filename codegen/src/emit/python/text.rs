//! The Python text helpers every module of the Python emitter prints with:
//! string and float literals, the first line, `from .. import (..)` lists,
//! vocabulary members, `#:` comments and one-entry-per-line dicts. A leaf:
//! it uses nothing of `emit::python`, and every sibling may use it.

use std::fmt::Write as _;

use crate::emit::needs_no_escape;
use crate::emit::writer::Writer;
use crate::names;

/// A Python `str` literal that evaluates to exactly `text`, whatever it holds.
///
/// Double-quoted, pure printable ASCII and on one line: `"` and `\` are
/// escaped, `\n`, `\r` and `\t` use their short escapes, every other control
/// or non-ASCII character becomes `\xNN`, `\uNNNN` or `\UNNNNNNNN` (fixed
/// widths, so a following digit never extends an escape). Triple quotes,
/// `#`, bidirectional overrides and NUL are therefore inert.
pub fn py_str_literal(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    if needs_no_escape(text) {
        out.push_str(text);
        out.push('"');
        return out;
    }
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            ' '..='~' => out.push(c),
            c if u32::from(c) <= 0xff => {
                let _ = write!(out, "\\x{:02x}", u32::from(c));
            }
            c if u32::from(c) <= 0xffff => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => {
                let _ = write!(out, "\\U{:08x}", u32::from(c));
            }
        }
    }
    out.push('"');
    out
}

/// The first line of every generated file, `banner` as a `#` comment.
pub(super) fn header(banner: &str) -> String {
    format!("# {banner}\n")
}

/// A Python `float` literal that evaluates to exactly `x` (finite).
pub(super) fn py_float(x: f64) -> String {
    assert!(x.is_finite(), "{x}");
    // `Debug` prints the shortest representation that round-trips, always
    // with a `.` or an exponent, which Python reads back exactly.
    format!("{x:?}")
}

/// `from module import (` and the sorted names one per line: a fixed
/// layout, whatever the count.
pub(super) fn import_list(module: &str, mut items: Vec<&str>) -> String {
    items.sort_unstable();
    let mut w = Writer::new("    ");
    w.block(format_args!("from {module} import ("), ")", |w| {
        for i in items {
            w.line(format_args!("{i},"));
        }
    });
    let mut text = w.finish();
    text.pop();
    text
}

/// `Vocab.MEMBER`: the Python spelling of a vocabulary member.
pub(super) fn member(vocab: &str, spelling: &str) -> String {
    format!("{vocab}.{}", names::shouty(spelling))
}

/// Characters a one-line comment drops: controls, bidirectional controls
/// and invisible format characters (the set the checker refuses in free
/// text).
fn unprintable(c: char) -> bool {
    c.is_control()
        || matches!(c,
            '\u{061C}' | '\u{200B}'..='\u{200F}' | '\u{2028}'..='\u{202E}' | '\u{2060}'..='\u{2069}' | '\u{FEFF}')
}

/// Prose (a member's doc) as a one-line `#:` comment: whitespace
/// collapsed, control characters dropped, and any other character outside
/// ASCII written `<U+XXXX>` as in C comments (the package's sources are
/// ASCII); `None` when there is none.
pub(super) fn doc_comment(text: &str) -> Option<String> {
    let mut clean = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            c if unprintable(c) => clean.push(' '),
            c if c.is_ascii() => clean.push(c),
            c => {
                let _ = write!(clean, "<U+{:04X}>", c as u32);
            }
        }
    }
    let words: Vec<&str> = clean.split_whitespace().collect();
    (!words.is_empty()).then(|| format!("#: {}", words.join(" ")))
}

/// `lead{`, one `key: value,` line per item (`item` writes the value), `}`;
/// `lead{}` when there are none.
pub(super) fn dict<T>(
    w: &mut Writer,
    comment: &str,
    lead: &str,
    items: impl IntoIterator<Item = T>,
    mut item: impl FnMut(&mut String, T),
) {
    w.comment("#: ", comment);
    let mut items = items.into_iter().peekable();
    if items.peek().is_none() {
        w.line(format_args!("{lead}{{}}"));
        return;
    }
    w.open(format_args!("{lead}{{"));
    for it in items {
        w.start_line();
        item(w.buf(), it);
        w.buf().push(',');
        w.end_line();
    }
    w.close("}");
}

/// [`dict`] of ready-made `key: value` items, appended to `s`.
pub(super) fn data_dict(s: &mut String, comment: &str, lead: &str, items: Vec<String>) {
    let mut w = Writer::new("    ");
    dict(&mut w, comment, lead, items, |out, item| {
        out.push_str(&item);
    });
    s.push_str(&w.finish());
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write as _;
    use std::process::Stdio;

    const HOSTILE: &[&str] = &[
        "",
        "plain text",
        r#"triple """ double"#,
        "triple ''' single",
        r"back\slash \n \x00 \N{DIGIT ONE} \u0041 trailing \",
        "# not a comment",
        "line one\nline two\r\n\ttabbed",
        "nul \0 then 1",
        "bell \u{7} del \u{7f} nbsp \u{a0}",
        "rtl override \u{202E}gnp.exe",
        "bom \u{feff} ls \u{2028} ps \u{2029}",
        "ünïcödé, CJK 漢字, emoji 😀, math 𝔸",
        "{braces} %s %(name)s f'{x}'",
        "\"\"\"; import os; os.system('x') #",
        "ends with backslash \\",
    ];

    #[test]
    fn literals_are_one_line_printable_ascii() {
        for text in HOSTILE {
            let lit = py_str_literal(text);
            assert!(
                lit.starts_with('"') && lit.ends_with('"') && lit.len() >= 2,
                "{lit}"
            );
            assert!(
                lit.bytes().all(|b| (b' '..=b'~').contains(&b)),
                "not printable ASCII: {lit}"
            );
            // Every quote inside is escaped, so the literal cannot end early.
            let inner = &lit[1..lit.len() - 1];
            let mut escaped = false;
            for c in inner.chars() {
                assert!(escaped || c != '"', "unescaped quote in {lit}");
                escaped = !escaped && c == '\\';
            }
            assert!(!escaped, "dangling backslash in {lit}");
        }
    }

    #[test]
    fn literal_spellings() {
        assert_eq!(py_str_literal(""), r#""""#);
        assert_eq!(py_str_literal(r#"a"""b"#), r#""a\"\"\"b""#);
        assert_eq!(py_str_literal("'''"), r#""'''""#);
        assert_eq!(py_str_literal(r"\"), r#""\\""#);
        assert_eq!(py_str_literal("a\nb"), r#""a\nb""#);
        assert_eq!(py_str_literal("\0"), r#""\x00""#);
        assert_eq!(py_str_literal("\u{0}1"), r#""\x001""#);
        assert_eq!(py_str_literal("\u{202E}"), r#""\u202e""#);
        assert_eq!(py_str_literal("é"), r#""\xe9""#);
        assert_eq!(py_str_literal("😀"), r#""\U0001f600""#);
        assert_eq!(py_str_literal("# x"), r##""# x""##);
    }

    /// The literals evaluate back to the text in a real Python.
    #[test]
    fn literals_round_trip_through_python() {
        let script = "import ast, json, sys\n\
                      print(json.dumps([ast.literal_eval(l) for l in sys.stdin.read().splitlines()]))";
        let mut child = kfam_testenv::python()
            .args(["-c", script])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("the test environment's python runs");
        let input: String = HOSTILE.iter().map(|t| py_str_literal(t) + "\n").collect();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(input.as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "python3 failed on the literals:\n{input}"
        );
        let back: Vec<String> = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(back, HOSTILE);
    }

    #[test]
    fn floats_read_back_exactly() {
        assert_eq!(py_float(f64::from(f32::MAX)), "3.4028234663852886e38");
        assert_eq!(py_float(65504.0), "65504.0");
    }

    #[test]
    fn doc_comments_are_one_clean_line() {
        assert_eq!(doc_comment(" \n "), None);
        assert_eq!(
            doc_comment("two\nlines,\u{202E} bidi\tand tab"),
            Some("#: two lines, bidi and tab".to_owned())
        );
        assert_eq!(doc_comment("¡NPU"), Some("#: <U+00A1>NPU".to_owned()));
    }
}
