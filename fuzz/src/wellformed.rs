//! Lexer-level well-formedness of generated C and Python: the checks that
//! show free text cannot end a comment or a string early. No dependencies:
//! included by `fuzz/src/lib.rs` and by `codegen/tests/robustness.rs` and
//! `codegen/tests/injection.rs`.

/// A C lexer's view of `text`: every `/* */` comment closes and contains
/// no `/*`; `//` comments do not end in a backslash (line splice); every
/// string and character literal closes on its line and ends with no
/// dangling escape; no trigraph (`??x`) anywhere. This is what makes free
/// text unable to end a comment or string early.
pub fn c_well_formed(text: &str) -> Result<(), String> {
    let b = text.as_bytes();
    let mut i = 0;
    let line_of = |i: usize| text[..i].matches('\n').count() + 1;
    if let Some(at) = text.find("??") {
        return Err(format!("trigraph-like `??` at line {}", line_of(at)));
    }
    while i < b.len() {
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'*') => {
                let Some(end) = text[i + 2..].find("*/") else {
                    return Err(format!("unclosed comment from line {}", line_of(i)));
                };
                let body = &text[i + 2..i + 2 + end];
                if body.contains("/*") {
                    return Err(format!("`/*` inside a comment at line {}", line_of(i)));
                }
                i += 2 + end + 2;
            }
            b'/' if b.get(i + 1) == Some(&b'/') => {
                let end = text[i..].find('\n').map_or(b.len(), |e| i + e);
                if text[i..end].trim_end().ends_with('\\') {
                    return Err(format!("line comment spliced at line {}", line_of(i)));
                }
                i = end;
            }
            q @ (b'"' | b'\'') => {
                let start = i;
                i += 1;
                loop {
                    match b.get(i) {
                        None | Some(b'\n') => {
                            return Err(format!(
                                "literal not closed on its line at line {}",
                                line_of(start)
                            ))
                        }
                        Some(b'\\') => i += 2,
                        Some(&c) if c == q => {
                            i += 1;
                            break;
                        }
                        Some(_) => i += 1,
                    }
                }
            }
            b'\\' if b.get(i + 1) == Some(&b'\n') => {
                // A splice outside literals is legitimate only in a
                // multi-line `#define` (its own line starts with `#`, or
                // continues one that ends in a splice).
                let start = text[..i].rfind('\n').map_or(0, |s| s + 1);
                let prev_end = start.saturating_sub(1);
                let prev_start = text[..prev_end].rfind('\n').map_or(0, |s| s + 1);
                let in_macro = text[start..i].trim_start().starts_with('#')
                    || (start > 0 && text[prev_start..prev_end].ends_with('\\'));
                if !in_macro {
                    return Err(format!("line splice at line {}", line_of(i)));
                }
                i += 2;
            }
            _ => i += 1,
        }
    }
    Ok(())
}

/// A Python lexer's view of `text` (only what free text could break):
/// every single-quoted or double-quoted string closes on its line, every
/// triple-quoted string closes; `#` comments run to the end of the line.
pub fn py_well_formed(text: &str) -> Result<(), String> {
    let b = text.as_bytes();
    let mut i = 0;
    let line_of = |i: usize| text[..i].matches('\n').count() + 1;
    while i < b.len() {
        match b[i] {
            b'#' => i = text[i..].find('\n').map_or(b.len(), |e| i + e),
            q @ (b'"' | b'\'') => {
                let start = i;
                let triple = b.get(i + 1) == Some(&q) && b.get(i + 2) == Some(&q);
                if triple {
                    let close = if q == b'"' { "\"\"\"" } else { "'''" };
                    i += 3;
                    loop {
                        match b.get(i) {
                            None => {
                                return Err(format!(
                                    "unclosed triple quote from line {}",
                                    line_of(start)
                                ))
                            }
                            Some(b'\\') => i += 2,
                            Some(_) if text[i..].starts_with(close) => {
                                i += 3;
                                break;
                            }
                            Some(_) => i += 1,
                        }
                    }
                } else {
                    i += 1;
                    loop {
                        match b.get(i) {
                            None | Some(b'\n') => {
                                return Err(format!(
                                    "string not closed on its line at line {}",
                                    line_of(start)
                                ))
                            }
                            Some(b'\\') => i += 2,
                            Some(&c) if c == q => {
                                i += 1;
                                break;
                            }
                            Some(_) => i += 1,
                        }
                    }
                }
            }
            _ => i += 1,
        }
    }
    Ok(())
}
