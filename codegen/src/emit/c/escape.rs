//! C-specific escaping: any text made safe inside a string literal or a
//! `/* */` comment of C99 and C++17.

use std::fmt::Write as _;

use crate::emit::output::needs_no_escape;

/// A C/C++ narrow string literal, quotes included, holding exactly the UTF-8
/// bytes of `text`. `"` and `\` are escaped, newline and tab use `\n` and
/// `\t`, a `?` that follows a `?` is written `\?` (no trigraph can form in
/// C99), and every other byte outside printable ASCII is a three-digit octal
/// escape (octal escapes stop after three digits, unlike `\x`, so the next
/// character can never be swallowed).
pub fn c_string_literal(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    push_c_string_literal(&mut out, text);
    out
}

/// [`c_string_literal`], appended to `out`.
pub(super) fn push_c_string_literal(out: &mut String, text: &str) {
    out.push('"');
    if needs_no_escape(text) && !text.contains("??") {
        out.push_str(text);
        out.push('"');
        return;
    }
    let mut prev = 0u8;
    for b in text.bytes() {
        match b {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b'\n' => out.push_str("\\n"),
            b'\t' => out.push_str("\\t"),
            b'?' if prev == b'?' => out.push_str("\\?"),
            0x20..=0x7e => out.push(char::from(b)),
            _ => {
                let _ = write!(out, "\\{b:03o}");
            }
        }
        prev = b;
    }
    out.push('"');
}

/// Free text made safe inside a `/* ... */` comment, line breaks kept as
/// `\n`: `*/` and `/*` are split by a space (the text can neither end the
/// comment nor trip `-Wcomment`), `??` becomes `? ?` (no trigraph, in
/// particular no `??/` line splice), a backslash that would end a line (and
/// splice it with the next) is spelled `(backslash)`, trailing whitespace is
/// trimmed, and any character outside printable ASCII is written `<U+XXXX>`.
pub fn c_comment_text(text: &str) -> String {
    let mut lines = Vec::new();
    for raw in text.split('\n') {
        let mut line = String::with_capacity(raw.len());
        for c in raw.chars() {
            let last = line.chars().last();
            match c {
                ' '..='~' => {
                    let split = matches!(
                        (last, c),
                        (Some('*'), '/') | (Some('/'), '*') | (Some('?'), '?')
                    );
                    if split {
                        line.push(' ');
                    }
                    line.push(c);
                }
                '\t' => line.push(' '),
                _ => {
                    let _ = write!(line, "<U+{:04X}>", c as u32);
                }
            }
        }
        let mut line = line.trim_end().to_owned();
        if line.ends_with('\\') {
            line.pop();
            line.push_str("(backslash)");
        }
        lines.push(line);
    }
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn string_literals_escape_hostile_text() {
        assert_eq!(c_string_literal("plain text"), "\"plain text\"");
        assert_eq!(c_string_literal("a \"q\" b"), r#""a \"q\" b""#);
        assert_eq!(c_string_literal(r"back\slash"), r#""back\\slash""#);
        assert_eq!(c_string_literal("two\nlines"), r#""two\nlines""#);
        assert_eq!(c_string_literal("end */ here"), "\"end */ here\"");
        // `??/` would be a trigraph for `\` in C99: the second `?` is escaped.
        assert_eq!(c_string_literal("what??/"), r#""what?\?/""#);
        assert_eq!(c_string_literal("???"), r#""?\?\?""#);
        // Non-ASCII: the UTF-8 bytes as three-digit octal escapes; a digit after
        // one is not swallowed.
        assert_eq!(c_string_literal("é1"), r#""\303\2511""#);
        assert_eq!(c_string_literal("\u{7}\r\t"), r#""\007\015\t""#);
        let hostile = "*/ \" \\ \n ??/ ??= \u{202E} é";
        let lit = c_string_literal(hostile);
        assert!(lit.is_ascii());
        assert!(!lit.contains("??"));
        assert!(!lit[1..lit.len() - 1]
            .replace("\\\\", "")
            .replace("\\\"", "")
            .contains('"'));
        assert!(!lit.contains('\n'));
    }

    #[test]
    fn comment_text_cannot_end_a_comment() {
        assert_eq!(c_comment_text("a */ b"), "a * / b");
        assert_eq!(c_comment_text("a /* b"), "a / * b");
        assert_eq!(c_comment_text("x??/"), "x? ?/");
        assert_eq!(c_comment_text("ends with \\"), "ends with (backslash)");
        assert_eq!(
            c_comment_text("ends with \\   \nnext"),
            "ends with (backslash)\nnext"
        );
        assert_eq!(c_comment_text("mid \\ ok"), "mid \\ ok");
        assert_eq!(c_comment_text("quote \" ok"), "quote \" ok");
        assert_eq!(
            c_comment_text("é\u{202E}\u{7}\ttab"),
            "<U+00E9><U+202E><U+0007> tab"
        );
        assert_eq!(c_comment_text("**/"), "** /");
        assert_eq!(c_comment_text("/*/"), "/ * /");
        let hostile = "*/ \" \\\n??/\n*/*/ /**/ é\\";
        let out = c_comment_text(hostile);
        assert!(out.is_ascii());
        assert!(!out.contains("*/") && !out.contains("/*") && !out.contains("??"));
        assert!(out.lines().all(|l| !l.trim_end().ends_with('\\')));
    }
}
