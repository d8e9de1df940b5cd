//! Input as editors write it: UTF-8 with or without a byte-order mark, LF or
//! CRLF line endings. Every document is normalized once, when it is read, so
//! a checkout with CRLF line endings checks and digests exactly as with LF.

use std::ops::Range;

/// `text` without a leading byte-order mark and with every CRLF turned into
/// LF. Inside a multi-line string a CRLF is a line break (TOML lets parsers
/// normalize it); anywhere else it is whitespace. A lone CR is kept, so it
/// is still reported where it is not allowed.
pub fn normalize(text: String) -> String {
    let stripped = text.strip_prefix('\u{FEFF}');
    if stripped.is_none() && !text.contains("\r\n") {
        return text;
    }
    stripped.unwrap_or(&text).replace("\r\n", "\n")
}

/// A file that is not UTF-8: its lossy text (for the snippet) and where the
/// first bad byte is.
pub struct NotUtf8 {
    pub lossy: String,
    pub span: Range<usize>,
    pub message: String,
}

/// Decode and [`normalize`] a file's bytes.
pub fn decode(bytes: Vec<u8>) -> Result<String, NotUtf8> {
    match String::from_utf8(bytes) {
        Ok(text) => Ok(normalize(text)),
        Err(e) => {
            let at = e.utf8_error().valid_up_to();
            let bytes = e.into_bytes();
            let byte = bytes[at];
            // The valid prefix decodes identically, so `at` is the offset of
            // the replacement character in the lossy text.
            let lossy = String::from_utf8_lossy(&bytes).into_owned();
            let prefix = &lossy[..at];
            let line = prefix.matches('\n').count() + 1;
            let column = prefix[prefix.rfind('\n').map_or(0, |i| i + 1)..]
                .chars()
                .count()
                + 1;
            Err(NotUtf8 {
                span: at..at + '\u{FFFD}'.len_utf8(),
                lossy,
                message: format!(
                    "file is not UTF-8: byte 0x{byte:02X} at line {line}, column {column}"
                ),
            })
        }
    }
}

/// The Unicode name of a C0 control character or DEL (`U+0001` is START OF
/// HEADING), for messages about characters nobody can see.
pub fn control_name(c: char) -> Option<&'static str> {
    const C0: [&str; 32] = [
        "NULL",
        "START OF HEADING",
        "START OF TEXT",
        "END OF TEXT",
        "END OF TRANSMISSION",
        "ENQUIRY",
        "ACKNOWLEDGE",
        "BELL",
        "BACKSPACE",
        "CHARACTER TABULATION",
        "LINE FEED",
        "LINE TABULATION",
        "FORM FEED",
        "CARRIAGE RETURN",
        "SHIFT OUT",
        "SHIFT IN",
        "DATA LINK ESCAPE",
        "DEVICE CONTROL ONE",
        "DEVICE CONTROL TWO",
        "DEVICE CONTROL THREE",
        "DEVICE CONTROL FOUR",
        "NEGATIVE ACKNOWLEDGE",
        "SYNCHRONOUS IDLE",
        "END OF TRANSMISSION BLOCK",
        "CANCEL",
        "END OF MEDIUM",
        "SUBSTITUTE",
        "ESCAPE",
        "INFORMATION SEPARATOR FOUR",
        "INFORMATION SEPARATOR THREE",
        "INFORMATION SEPARATOR TWO",
        "INFORMATION SEPARATOR ONE",
    ];
    match c as u32 {
        n @ 0..=0x1F => Some(C0[n as usize]),
        0x7F => Some("DELETE"),
        0x80..=0x9F => Some("C1 CONTROL"),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crlf_and_bom_normalize_to_lf() {
        assert_eq!(
            normalize("\u{FEFF}a = 1\r\nb = \"\"\"x\r\ny\"\"\"\r\n".into()),
            "a = 1\nb = \"\"\"x\ny\"\"\"\n"
        );
        assert_eq!(normalize("a\rb".into()), "a\rb");
    }

    #[test]
    fn first_bad_byte_has_line_and_column() {
        let Err(bad) = decode(b"a = 1\nb = \"\xB5s\"\n".to_vec()) else {
            panic!("not UTF-8");
        };
        assert_eq!(
            bad.message,
            "file is not UTF-8: byte 0xB5 at line 2, column 6"
        );
        assert_eq!(&bad.lossy[bad.span], "\u{FFFD}");
    }

    #[test]
    fn control_names() {
        assert_eq!(control_name('\u{1}'), Some("START OF HEADING"));
        assert_eq!(control_name('\u{7F}'), Some("DELETE"));
        assert_eq!(control_name('a'), None);
    }
}
