//! Literal decoders for the generated outputs (what a compiler or
//! interpreter reads back from each string literal) and the per-language
//! well-formedness check. Shared by the
//! robustness and injection tests.

use std::collections::BTreeSet;

/// The values of every string literal (and `#[doc]` text) in Rust source.
pub fn rust_strings(src: &str) -> BTreeSet<String> {
    fn walk(ts: proc_macro2::TokenStream, out: &mut BTreeSet<String>) {
        for tt in ts {
            match tt {
                proc_macro2::TokenTree::Group(g) => walk(g.stream(), out),
                proc_macro2::TokenTree::Literal(l) => {
                    if let Ok(s) = syn::parse_str::<syn::LitStr>(&l.to_string()) {
                        out.insert(s.value());
                    }
                }
                _ => {}
            }
        }
    }
    let mut out = BTreeSet::new();
    walk(src.parse().expect("Rust tokens"), &mut out);
    out
}

/// The bytes of every C string literal (adjacent literals are separate).
pub fn c_strings(src: &str) -> BTreeSet<Vec<u8>> {
    let b = src.as_bytes();
    let mut out = BTreeSet::new();
    let mut i = 0;
    while i < b.len() {
        if src[i..].starts_with("/*") {
            i += 2 + src[i + 2..].find("*/").expect("closed comment") + 2;
        } else if src[i..].starts_with("//") {
            i += src[i..].find('\n').unwrap_or(b.len() - i);
        } else if b[i] == b'\'' {
            i += 1;
            while b[i] != b'\'' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
        } else if b[i] == b'"' {
            i += 1;
            let mut s = Vec::new();
            while b[i] != b'"' {
                if b[i] == b'\\' {
                    let e = b[i + 1];
                    i += 2;
                    match e {
                        b'n' => s.push(b'\n'),
                        b't' => s.push(b'\t'),
                        b'r' => s.push(b'\r'),
                        b'0'..=b'7' => {
                            let mut v = u32::from(e - b'0');
                            for _ in 0..2 {
                                if matches!(b[i], b'0'..=b'7') {
                                    v = v * 8 + u32::from(b[i] - b'0');
                                    i += 1;
                                }
                            }
                            s.push(v as u8);
                        }
                        b'x' => panic!("\\x escape in generated C (unbounded length)"),
                        other => s.push(other),
                    }
                } else {
                    s.push(b[i]);
                    i += 1;
                }
            }
            i += 1;
            out.insert(s);
        } else {
            i += 1;
        }
    }
    out
}

/// The values of every Python double-quoted string literal, and every
/// string inside the JSON rows that `_tables.py` holds as raw literals
/// (`r'[...]'`, decoded as `kfam._lookup` does).
pub fn py_strings(src: &str) -> BTreeSet<String> {
    let chars: Vec<char> = src.chars().collect();
    let mut out = BTreeSet::new();
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '#' => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            }
            '"' if chars.get(i + 1) == Some(&'"') && chars.get(i + 2) == Some(&'"') => {
                // Docstrings: generator text, skipped whole.
                i += 3;
                while !(chars[i] == '"' && chars[i + 1] == '"' && chars[i + 2] == '"') {
                    i += 1;
                }
                i += 3;
            }
            'r' if chars.get(i + 1) == Some(&'\'') => {
                // A raw literal: its text is exactly the characters up to the closing quote.
                i += 2;
                let start = i;
                while chars[i] != '\'' {
                    i += if chars[i] == '\\' { 2 } else { 1 };
                }
                let raw: String = chars[start..i].iter().collect();
                i += 1;
                out.extend(json_strings(&raw));
            }
            '"' => {
                i += 1;
                let mut s = String::new();
                while chars[i] != '"' {
                    if chars[i] == '\\' {
                        let e = chars[i + 1];
                        i += 2;
                        let hex = |i: &mut usize, n: usize| {
                            let h: String = chars[*i..*i + n].iter().collect();
                            *i += n;
                            char::from_u32(u32::from_str_radix(&h, 16).unwrap()).unwrap()
                        };
                        match e {
                            'n' => s.push('\n'),
                            'r' => s.push('\r'),
                            't' => s.push('\t'),
                            'x' => s.push(hex(&mut i, 2)),
                            'u' => s.push(hex(&mut i, 4)),
                            'U' => s.push(hex(&mut i, 8)),
                            other => s.push(other),
                        }
                    } else {
                        s.push(chars[i]);
                        i += 1;
                    }
                }
                i += 1;
                out.insert(s);
            }
            _ => i += 1,
        }
    }
    out
}

/// Every string value of a JSON document (`kfam resolve`'s output).
pub fn json_strings(src: &str) -> BTreeSet<String> {
    fn walk(v: &serde_json::Value, out: &mut BTreeSet<String>) {
        match v {
            serde_json::Value::String(s) => {
                out.insert(s.clone());
            }
            serde_json::Value::Array(a) => a.iter().for_each(|v| walk(v, out)),
            serde_json::Value::Object(o) => o.values().for_each(|v| walk(v, out)),
            _ => {}
        }
    }
    let mut out = BTreeSet::new();
    walk(&serde_json::from_str(src).expect("valid JSON"), &mut out);
    out
}

/// Whether one generated file is well-formed in its language: Rust parses
/// with syn, JSON with serde_json, and the C header and Python sources are
/// ASCII and pass `crate::wellformed` (which every test including this
/// module also includes, from `fuzz/src/wellformed.rs`).
pub fn well_formed(path: &str, contents: &str) -> Result<(), String> {
    match path.rsplit('.').next().unwrap_or("") {
        "rs" => syn::parse_file(contents)
            .map(drop)
            .map_err(|e| format!("{path} does not parse as Rust: {e}")),
        "json" => serde_json::from_str::<serde_json::Value>(contents)
            .map(drop)
            .map_err(|e| format!("{path}: invalid JSON: {e}")),
        "h" if !contents.is_ascii() => Err(format!("{path} is not ASCII")),
        "h" => super::wellformed::c_well_formed(contents).map_err(|e| format!("{path}: {e}")),
        "py" | "pyi" if !contents.is_ascii() => Err(format!("{path} is not ASCII")),
        "py" | "pyi" => {
            super::wellformed::py_well_formed(contents).map_err(|e| format!("{path}: {e}"))
        }
        _ => Ok(()),
    }
}
