//! The C emitter's output: the shared [`Writer`] plus what only C needs, doc
//! comments made safe by [`c_comment_text`], string literals checked
//! against the C99 length limit, and every name the output defines, so a
//! name defined twice can turn into an `#error` ([`collisions`]).

use std::fmt::{Display, Write as _};
use std::ops::Range;

use super::escape::{c_comment_text, c_string_literal};
use crate::emit::writer::Writer;

pub(super) use crate::limits::C_MAX_STRING_BYTES as C99_MAX_STRING_BYTES;

/// One C output file being written.
pub(super) struct Out {
    pub(super) w: Writer,
    /// Where each `#define`d macro name sits in the text: a large manifest
    /// defines hundreds of thousands, so they are counted once at the end
    /// ([`collisions`]) instead of each being copied as it is written.
    defined: Vec<Range<usize>>,
    /// Every other name defined (types, enumerators, tables, functions).
    named: Vec<String>,
    /// String literals over the C99 length limit (emitter-side guard; the
    /// checker's text limits keep real manifests below it).
    pub(super) overlong: Vec<String>,
}

impl Out {
    pub(super) fn new(bytes: usize) -> Self {
        Out {
            w: Writer::with_capacity("    ", bytes),
            defined: Vec::new(),
            named: Vec::new(),
            overlong: Vec::new(),
        }
    }

    pub(super) fn line(&mut self, text: impl Display) {
        self.w.line(text);
    }

    /// An empty line, unless the text already ends in one.
    pub(super) fn blank(&mut self) {
        if !self.w.buf().ends_with("\n\n") {
            self.w.blank();
        }
    }

    /// A `/** */` doc comment at the current depth; nothing when `text` is
    /// blank.
    pub(super) fn doc(&mut self, text: &str) {
        let clean = c_comment_text(text);
        let lines: Vec<&str> = clean.lines().collect();
        let first = lines.iter().position(|l| !l.trim().is_empty());
        let last = lines.iter().rposition(|l| !l.trim().is_empty());
        let (Some(first), Some(last)) = (first, last) else {
            return;
        };
        match &lines[first..=last] {
            [one] => self.w.line(format_args!("/** {} */", one.trim())),
            lines => {
                self.w.line("/**");
                for l in lines {
                    if l.is_empty() {
                        self.w.line(" *");
                    } else {
                        self.w.line(format_args!(" * {l}"));
                    }
                }
                self.w.line(" */");
            }
        }
    }

    /// A plain one-line `/* */` comment (generator-written text).
    pub(super) fn comment(&mut self, text: &str) {
        let text = c_comment_text(text).replace('\n', " ");
        self.w.line(format_args!("/* {text} */"));
    }

    /// Records a name this file defines (other than through [`Out::define`]).
    pub(super) fn record(&mut self, name: &str) {
        self.named.push(name.to_owned());
    }

    /// `#define name value`; both are written straight into the output.
    pub(super) fn define(&mut self, name: impl Display, value: impl Display) {
        self.w.start_line();
        let buf = self.w.buf();
        buf.push_str("#define ");
        let start = buf.len();
        let _ = write!(buf, "{name}");
        let end = buf.len();
        let _ = write!(buf, " {value}");
        self.defined.push(start..end);
        self.w.end_line();
    }

    /// Every name recorded or defined so far (the text must not change
    /// before they are read).
    pub(super) fn names(&mut self) -> Vec<&str> {
        let Out {
            w, defined, named, ..
        } = self;
        let text: &str = w.buf();
        defined
            .iter()
            .map(|r| &text[r.clone()])
            .chain(named.iter().map(String::as_str))
            .collect()
    }

    /// A string literal for `text`, checked against the C99 length limit.
    pub(super) fn string(&mut self, text: &str) -> String {
        check_length(&mut self.overlong, text);
        c_string_literal(text)
    }
}

/// Notes `text` in `overlong` when no C99 string literal can hold it.
pub(super) fn check_length(overlong: &mut Vec<String>, text: &str) {
    if text.len() > C99_MAX_STRING_BYTES {
        overlong.push(text.chars().take(40).collect());
    }
}

/// Every name in `names` more than once, sorted. By sorting the names'
/// hashes and comparing only names whose hashes are equal: a hash map of the
/// hundreds of thousands of names a large manifest defines was slower, each
/// insertion a cache miss.
pub(super) fn collisions(names: &[&str]) -> Vec<String> {
    use std::hash::BuildHasher as _;
    let state = std::hash::RandomState::new();
    let mut hashed: Vec<(u64, usize)> = names
        .iter()
        .enumerate()
        .map(|(i, n)| (state.hash_one(n), i))
        .collect();
    hashed.sort_unstable();
    let mut twice = std::collections::BTreeSet::new();
    for run in hashed
        .chunk_by(|a, b| a.0 == b.0)
        .filter(|run| run.len() > 1)
    {
        let mut same: Vec<&str> = run.iter().map(|&(_, i)| names[i]).collect();
        same.sort_unstable();
        for pair in same.windows(2).filter(|pair| pair[0] == pair[1]) {
            twice.insert(pair[0].to_owned());
        }
    }
    twice.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc_at(depth: usize, text: &str) -> String {
        let mut o = Out::new(0);
        for _ in 0..depth {
            o.w.open("");
        }
        let start = o.w.buf().len();
        o.doc(text);
        o.w.finish()[start..].to_owned()
    }

    #[test]
    fn doc_comments_are_well_formed() {
        assert_eq!(
            doc_at(1, "\n  first */\nsecond \\\n\n"),
            "    /**\n     *   first * /\n     * second (backslash)\n     */\n"
        );
        assert_eq!(doc_at(0, " one line "), "/** one line */\n");
        assert_eq!(doc_at(0, " \n "), "");
    }

    #[test]
    fn names_defined_twice_are_found() {
        let mut o = Out::new(0);
        o.define("KFAM_A", 1);
        o.define("KFAM_B", 2);
        o.record("KFAM_A");
        o.record("kfam_c");
        assert_eq!(collisions(&o.names()), ["KFAM_A"]);
    }
}
