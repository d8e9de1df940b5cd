//! The one source writer every emitter prints through: lines at a fixed
//! indentation, blocks that indent their body, comment lines. Layout is
//! fixed by the emitter's choice of lines (no line breaking, no measuring),
//! so output costs one pass over the bytes it writes; the rules are in
//! `docs/architecture.md` ("Source layout").

use std::fmt::{self, Display, Write as _};

/// A growing source text and its current indentation depth.
#[derive(Debug)]
pub struct Writer {
    out: String,
    depth: usize,
    /// One level of indentation (`"    "` in Rust, C and Python).
    unit: &'static str,
}

impl Writer {
    /// A writer indenting by `unit` per level.
    pub fn new(unit: &'static str) -> Self {
        Self::with_capacity(unit, 0)
    }

    /// [`Writer::new`] with `bytes` reserved up front (emitters that know
    /// their size at scale avoid regrowing a large buffer).
    pub fn with_capacity(unit: &'static str, bytes: usize) -> Self {
        Writer {
            out: String::with_capacity(bytes),
            depth: 0,
            unit,
        }
    }

    /// One line at the current depth; an empty `text` is an empty line
    /// (no trailing spaces).
    pub fn line(&mut self, text: impl Display) {
        let start = self.out.len();
        self.indent();
        let body = self.out.len();
        write!(self.out, "{text}").expect("writing to a String cannot fail");
        if self.out.len() == body {
            self.out.truncate(start);
        }
        self.out.push('\n');
    }

    /// An empty line.
    pub fn blank(&mut self) {
        self.out.push('\n');
    }

    /// `open` as a line, then one level deeper.
    pub fn open(&mut self, open: impl Display) {
        self.line(open);
        self.depth += 1;
    }

    /// One level shallower, then `close` as a line.
    pub fn close(&mut self, close: impl Display) {
        self.depth = self.depth.saturating_sub(1);
        self.line(close);
    }

    /// `open`, the lines `body` writes one level deeper, `close`.
    pub fn block(&mut self, open: impl Display, close: impl Display, body: impl FnOnce(&mut Self)) {
        self.open(open);
        body(self);
        self.close(close);
    }

    /// Each line of `text` as a line starting with `prefix` (`"// "`,
    /// `"# "`, `"/// "`); an empty line of `text` gets the prefix without
    /// its trailing space.
    pub fn comment(&mut self, prefix: &str, text: &str) {
        for line in text.lines() {
            if line.is_empty() {
                self.line(prefix.trim_end());
            } else {
                self.line(format_args!("{prefix}{line}"));
            }
        }
    }

    /// `text` as it is: already laid out lines (a template), each ending in
    /// a newline; not re-indented.
    pub fn raw(&mut self, text: &str) {
        self.out.push_str(text);
        if !text.is_empty() && !text.ends_with('\n') {
            self.out.push('\n');
        }
    }

    /// The text so far, for a line built in pieces (`write!` into it after
    /// [`Writer::start_line`], then [`Writer::end_line`]).
    pub fn buf(&mut self) -> &mut String {
        &mut self.out
    }

    /// Indentation for a line that is written in pieces through [`Writer::buf`].
    pub fn start_line(&mut self) {
        self.indent();
    }

    /// Ends a line started with [`Writer::start_line`].
    pub fn end_line(&mut self) {
        self.out.push('\n');
    }

    /// The finished text.
    pub fn finish(self) -> String {
        self.out
    }

    fn indent(&mut self) {
        for _ in 0..self.depth {
            self.out.push_str(self.unit);
        }
    }
}

impl fmt::Write for Writer {
    /// Raw text (as [`Writer::buf`]); lines and indentation are the caller's.
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.out.push_str(s);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::Writer;

    #[test]
    fn blocks_indent_their_bodies_and_empty_lines_stay_empty() {
        let mut w = Writer::new("    ");
        w.block("fn f() {", "}", |w| {
            w.line("let x = 1;");
            w.line("");
            w.block("if x {", "}", |w| w.line(format_args!("g({});", 2)));
        });
        w.comment("// ", "one\n\ntwo");
        assert_eq!(
            w.finish(),
            "fn f() {\n    let x = 1;\n\n    if x {\n        g(2);\n    }\n}\n// one\n//\n// two\n"
        );
    }

    #[test]
    fn lines_built_in_pieces_are_indented_once() {
        use std::fmt::Write as _;
        let mut w = Writer::new("  ");
        w.open("[");
        w.start_line();
        write!(w.buf(), "{}, {}", 1, 2).unwrap();
        w.end_line();
        w.close("]");
        assert_eq!(w.finish(), "[\n  1, 2\n]\n");
    }
}
