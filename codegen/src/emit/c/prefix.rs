//! The catalog's C prefix (`[catalog] c_prefix`, KF1201): `myrt` makes the
//! types `myrt_family`, the macros `MYRT_*`, the tables `myrt_families`,
//! the functions `myrt_*` and the header `myrt/myrt.h`.
//!
//! The emitter writes its C with kfam's own prefix (the record declarations,
//! the vocabularies and `functions.h` spell their C names `kfam_*` and
//! `KFAM_*`), and [`Prefix::apply`] renames the finished text: every
//! identifier that begins with `kfam_` or `KFAM_`, in code and in comments,
//! and the header paths `kfam/` and `kfam.h` of comments. String literals,
//! the only place the manifest's text reaches, are copied unchanged; the
//! generator-written ones that name a C name or a path (`#include`,
//! `#error`) are spelled with the prefix where they are written, and so are
//! the per-family constants, whose comments name the family. With the
//! default prefix nothing is renamed: the output is kfam's, byte for byte.
//!
//! A prefix is a lowercase identifier without `_` (KF1201), so the names
//! of two catalogs never collide in one translation unit: a generated name
//! is `prefix_...` or `PREFIX_...`, and the text before its first `_` is
//! the prefix.

use std::borrow::Cow;

/// The prefix the emitter writes: kfam's own.
const KFAM: &str = "kfam";

/// A catalog's C prefix, in both cases.
pub(super) struct Prefix {
    /// `myrt`: types, tables, functions, the header's directory and files.
    pub(super) lower: String,
    /// `MYRT`: macros and enumerators.
    pub(super) upper: String,
}

impl Prefix {
    pub(super) fn new(c_prefix: &str) -> Self {
        Prefix {
            lower: c_prefix.to_owned(),
            upper: c_prefix.to_ascii_uppercase(),
        }
    }

    /// Whether this is kfam's prefix, which renames nothing.
    pub(super) fn is_kfam(&self) -> bool {
        self.lower == KFAM
    }

    /// `include/myrt/myrt<suffix>.h`, relative to the output directory.
    pub(super) fn path(&self, suffix: &str) -> String {
        format!("include/{p}/{p}{suffix}.h", p = self.lower)
    }

    /// `myrt<suffix>.h`, the file name.
    pub(super) fn file(&self, suffix: &str) -> String {
        format!("{}{suffix}.h", self.lower)
    }

    /// One generated name (`kfam_family`, `KFAM_ABI_MAJOR`) as this prefix
    /// spells it.
    pub(super) fn name<'a>(&self, name: &'a str) -> Cow<'a, str> {
        if self.is_kfam() {
            return Cow::Borrowed(name);
        }
        if let Some(rest) = name.strip_prefix("kfam_") {
            Cow::Owned(format!("{}_{rest}", self.lower))
        } else if let Some(rest) = name.strip_prefix("KFAM_") {
            Cow::Owned(format!("{}_{rest}", self.upper))
        } else {
            Cow::Borrowed(name)
        }
    }

    /// `text` (C written with kfam's prefix) as this prefix spells it:
    /// identifiers renamed in code and comments, string and character
    /// literals copied unchanged.
    pub(super) fn apply<'a>(&self, text: &'a str) -> Cow<'a, str> {
        if self.is_kfam() {
            return Cow::Borrowed(text);
        }
        let b = text.as_bytes();
        let mut out = String::with_capacity(text.len() + text.len() / 64);
        // The start of the text not yet copied; every cut is at an ASCII
        // byte, so on a character boundary.
        let mut copied = 0;
        let mut i = 0;
        let mut comment = Comment::No;
        while i < b.len() {
            let c = b[i];
            match comment {
                Comment::Block if c == b'*' && b.get(i + 1) == Some(&b'/') => {
                    comment = Comment::No;
                    i += 2;
                    continue;
                }
                Comment::Line if c == b'\n' => {
                    comment = Comment::No;
                    i += 1;
                    continue;
                }
                Comment::No if c == b'/' && b.get(i + 1) == Some(&b'*') => {
                    comment = Comment::Block;
                    i += 2;
                    continue;
                }
                Comment::No if c == b'/' && b.get(i + 1) == Some(&b'/') => {
                    comment = Comment::Line;
                    i += 2;
                    continue;
                }
                Comment::No if c == b'"' || c == b'\'' => {
                    i = literal_end(b, i);
                    continue;
                }
                _ => {}
            }
            if !is_ident_byte(c) {
                i += 1;
                continue;
            }
            let start = i;
            while i < b.len() && is_ident_byte(b[i]) {
                i += 1;
            }
            let token = &text[start..i];
            let renamed = if token.starts_with("kfam_") || token.starts_with("KFAM_") {
                Some(&token[KFAM.len()..])
            } else if token == KFAM
                && comment != Comment::No
                && matches!(b.get(i), Some(b'.' | b'/'))
            {
                // `kfam.h`, `<kfam/kfam.h>`: the header's paths, in prose.
                Some("")
            } else {
                None
            };
            if let Some(rest) = renamed {
                out.push_str(&text[copied..start]);
                out.push_str(if token.starts_with('K') {
                    &self.upper
                } else {
                    &self.lower
                });
                out.push_str(rest);
                copied = i;
            }
        }
        out.push_str(&text[copied..]);
        Cow::Owned(out)
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Comment {
    No,
    Block,
    Line,
}

fn is_ident_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// The index after the string or character literal that opens at `start`
/// (its quote), escapes skipped; the end of the line or text when it is not
/// closed there.
fn literal_end(b: &[u8], start: usize) -> usize {
    let quote = b[start];
    let mut i = start + 1;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'\n' => return i,
            c if c == quote => return i + 1,
            _ => i += 1,
        }
    }
    b.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kfam_renames_nothing() {
        let p = Prefix::new("kfam");
        let text = "#define KFAM_A kfam_b /* kfam.h */";
        assert!(matches!(p.apply(text), Cow::Borrowed(_)));
        assert_eq!(p.name("kfam_family"), "kfam_family");
        assert_eq!(p.path(""), "include/kfam/kfam.h");
    }

    #[test]
    fn names_paths_and_literals() {
        let p = Prefix::new("myrt");
        assert_eq!(p.name("kfam_family"), "myrt_family");
        assert_eq!(p.name("KFAM_KFAM_H"), "MYRT_KFAM_H");
        assert_eq!(p.name("size_t"), "size_t");
        assert_eq!(p.path("_tables"), "include/myrt/myrt_tables.h");
        assert_eq!(
            p.apply(
                "#define KFAM_X(t) kfam_gen_##t /* the family's kfam_y, <kfam/kfam.h>, kfam-runtime, kfam::op */\n\
                 static const char *s = \"kfam_z KFAM_Z \\\" kfam_q\"; char c = '\"'; KFAM_ABI_MAJOR;\n\
                 int kfamily; int x_kfam_y; // kfam_w kfam.h\nkfam.h kfam_last"
            ),
            "#define MYRT_X(t) myrt_gen_##t /* the family's myrt_y, <myrt/myrt.h>, kfam-runtime, kfam::op */\n\
             static const char *s = \"kfam_z KFAM_Z \\\" kfam_q\"; char c = '\"'; MYRT_ABI_MAJOR;\n\
             int kfamily; int x_kfam_y; // myrt_w myrt.h\nkfam.h myrt_last"
        );
        // Text that is not C at all is still only renamed, never lost.
        assert_eq!(p.apply("\"open KFAM_A\nKFAM_B"), "\"open KFAM_A\nMYRT_B");
        assert_eq!(p.apply("é kfam_é \"é"), "é myrt_é \"é");
    }
}
