//! The line-breaking printer behind the generated Rust tables.
//!
//! A port of prettyplease 0.2's `algorithm.rs` (MIT OR Apache-2.0, by David
//! Tolnay), itself adapted from rustc's `rustc_ast_pretty::pp` (Oppen's
//! algorithm). The Rust emitter feeds it the same begin/break/string tokens
//! that prettyplease produces for the tables' syntax, so the output is byte
//! for byte what `prettyplease::unparse` printed, without building a token
//! stream, parsing it with syn and walking the syntax tree (at 10,000
//! families that took over 20 s; a unit test compares the two on varied
//! manifests). Changes from the original: strings borrow from the IR, and
//! string literals and integers are tokens of their own, escaped and
//! formatted straight into the output instead of into temporary `String`s.

use std::borrow::Cow;
use std::collections::VecDeque;

use super::needs_no_escape;

/// prettyplease's line width, indentation step and minimum line space.
pub const MARGIN: isize = 89;
pub const INDENT: isize = 4;
const MIN_SPACE: isize = 60;
const SIZE_INFINITY: isize = 0xffff;

#[derive(Clone, Copy, PartialEq)]
enum Breaks {
    Consistent,
    Inconsistent,
}

#[derive(Clone, Copy, Default)]
struct BreakToken {
    offset: isize,
    blank_space: usize,
    pre_break: Option<char>,
    if_nonempty: bool,
    never_break: bool,
}

#[derive(Clone, Copy)]
struct BeginToken {
    offset: isize,
    breaks: Breaks,
}

enum Token<'a> {
    String(Cow<'a, str>),
    /// A Rust string literal of this text, escaped as proc-macro2 does.
    StrLit(&'a str),
    Int(i64),
    Break(BreakToken),
    Begin(BeginToken),
    End,
}

#[derive(Copy, Clone)]
enum PrintFrame {
    Fits,
    Broken(usize, Breaks),
}

struct BufEntry<'a> {
    token: Token<'a>,
    size: isize,
}

/// A ring buffer addressed by ever-increasing indices.
struct Ring<'a> {
    data: VecDeque<BufEntry<'a>>,
    offset: usize,
}

impl<'a> Ring<'a> {
    fn push(&mut self, value: BufEntry<'a>) -> usize {
        let index = self.offset + self.data.len();
        self.data.push_back(value);
        index
    }
    fn get(&self, index: usize) -> &BufEntry<'a> {
        &self.data[index - self.offset]
    }
    fn get_mut(&mut self, index: usize) -> &mut BufEntry<'a> {
        &mut self.data[index - self.offset]
    }
    fn start(&self) -> usize {
        self.offset
    }
    fn pop_first(&mut self) -> BufEntry<'a> {
        self.offset += 1;
        self.data.pop_front().expect("non-empty ring")
    }
}

pub struct Printer<'a> {
    out: String,
    space: isize,
    buf: Ring<'a>,
    left_total: isize,
    right_total: isize,
    scan_stack: VecDeque<usize>,
    print_stack: Vec<PrintFrame>,
    indent: usize,
    pending_indentation: usize,
}

/// Length of `s` as a Rust string literal (quotes included), in bytes.
pub fn str_lit_len(s: &str) -> usize {
    if needs_no_escape(s) {
        return s.len() + 2;
    }
    let mut n = 2;
    let mut chars = s.chars();
    while let Some(ch) = chars.next() {
        n += match ch {
            '\0' if chars
                .as_str()
                .starts_with(|c: char| ('0'..='7').contains(&c)) =>
            {
                4
            }
            '\0' => 2,
            '\'' => 1,
            // Printed as itself (counted in bytes, as prettyplease does) or
            // as an ASCII escape.
            ch => match ch.escape_debug().len() {
                1 => ch.len_utf8(),
                n => n,
            },
        };
    }
    n
}

/// Write `s` as a Rust string literal, escaped exactly as proc-macro2's
/// `Literal::string` does (the spelling prettyplease printed).
pub fn push_str_lit(out: &mut String, s: &str) {
    out.push('"');
    if needs_no_escape(s) {
        out.push_str(s);
    } else {
        let mut chars = s.chars();
        while let Some(ch) = chars.next() {
            if ch == '\0' {
                out.push_str(
                    if chars
                        .as_str()
                        .starts_with(|c: char| ('0'..='7').contains(&c))
                    {
                        r"\x00"
                    } else {
                        r"\0"
                    },
                );
            } else if ch == '\'' {
                out.push(ch);
            } else {
                out.extend(ch.escape_debug());
            }
        }
    }
    out.push('"');
}

fn int_len(n: i64) -> usize {
    let mut len = usize::from(n < 0);
    let mut v = n.unsigned_abs();
    loop {
        len += 1;
        v /= 10;
        if v == 0 {
            return len;
        }
    }
}

impl<'a> Printer<'a> {
    /// A printer that appends to `out` (which ends a line, or is empty).
    pub fn new(out: String) -> Self {
        Printer {
            out,
            space: MARGIN,
            buf: Ring {
                data: VecDeque::with_capacity(256),
                offset: 0,
            },
            left_total: 0,
            right_total: 0,
            scan_stack: VecDeque::with_capacity(64),
            print_stack: Vec::with_capacity(32),
            indent: 0,
            pending_indentation: 0,
        }
    }

    pub fn eof(mut self) -> String {
        if !self.scan_stack.is_empty() {
            self.check_stack(0);
            self.advance_left();
        }
        self.out
    }

    // --- The convenience layer (prettyplease's convenience.rs). ---

    pub fn ibox(&mut self, indent: isize) {
        self.scan_begin(BeginToken {
            offset: indent,
            breaks: Breaks::Inconsistent,
        });
    }

    pub fn cbox(&mut self, indent: isize) {
        self.scan_begin(BeginToken {
            offset: indent,
            breaks: Breaks::Consistent,
        });
    }

    pub fn end(&mut self) {
        self.scan_end();
    }

    pub fn word(&mut self, s: impl Into<Cow<'a, str>>) {
        let s = s.into();
        let len = s.len() as isize;
        self.scan_token(Token::String(s), len);
    }

    pub fn str_lit(&mut self, s: &'a str) {
        let len = str_lit_len(s) as isize;
        self.scan_token(Token::StrLit(s), len);
    }

    pub fn int(&mut self, n: i64) {
        let len = int_len(n) as isize;
        self.scan_token(Token::Int(n), len);
    }

    fn spaces(&mut self, n: usize) {
        self.scan_break(BreakToken {
            blank_space: n,
            ..BreakToken::default()
        });
    }

    pub fn zerobreak(&mut self) {
        self.spaces(0);
    }

    pub fn space(&mut self) {
        self.spaces(1);
    }

    pub fn hardbreak(&mut self) {
        self.spaces(SIZE_INFINITY as usize);
    }

    pub fn space_if_nonempty(&mut self) {
        self.scan_break(BreakToken {
            blank_space: 1,
            if_nonempty: true,
            ..BreakToken::default()
        });
    }

    pub fn hardbreak_if_nonempty(&mut self) {
        self.scan_break(BreakToken {
            blank_space: SIZE_INFINITY as usize,
            if_nonempty: true,
            ..BreakToken::default()
        });
    }

    pub fn trailing_comma(&mut self, is_last: bool) {
        if is_last {
            self.scan_break(BreakToken {
                pre_break: Some(','),
                ..BreakToken::default()
            });
        } else {
            self.word(",");
            self.space();
        }
    }

    pub fn trailing_comma_or_space(&mut self, is_last: bool) {
        if is_last {
            self.scan_break(BreakToken {
                blank_space: 1,
                pre_break: Some(','),
                ..BreakToken::default()
            });
        } else {
            self.word(",");
            self.space();
        }
    }

    pub fn neverbreak(&mut self) {
        self.scan_break(BreakToken {
            never_break: true,
            ..BreakToken::default()
        });
    }

    // --- The algorithm (prettyplease's algorithm.rs). ---

    fn scan_begin(&mut self, token: BeginToken) {
        if self.scan_stack.is_empty() {
            self.left_total = 1;
            self.right_total = 1;
            self.buf.data.clear();
        }
        let right = self.buf.push(BufEntry {
            token: Token::Begin(token),
            size: -self.right_total,
        });
        self.scan_stack.push_back(right);
    }

    fn scan_end(&mut self) {
        if self.scan_stack.is_empty() {
            self.print_end();
            return;
        }
        let n = self.buf.data.len();
        if n > 0 {
            if let Token::Break(break_token) = self.buf.data[n - 1].token {
                if n >= 2 {
                    if let Token::Begin(_) = self.buf.data[n - 2].token {
                        self.buf.data.pop_back();
                        self.buf.data.pop_back();
                        self.scan_stack.pop_back();
                        self.scan_stack.pop_back();
                        self.right_total -= break_token.blank_space as isize;
                        return;
                    }
                }
                if break_token.if_nonempty {
                    self.buf.data.pop_back();
                    self.scan_stack.pop_back();
                    self.right_total -= break_token.blank_space as isize;
                }
            }
        }
        let right = self.buf.push(BufEntry {
            token: Token::End,
            size: -1,
        });
        self.scan_stack.push_back(right);
    }

    fn scan_break(&mut self, token: BreakToken) {
        if self.scan_stack.is_empty() {
            self.left_total = 1;
            self.right_total = 1;
            self.buf.data.clear();
        } else {
            self.check_stack(0);
        }
        let right = self.buf.push(BufEntry {
            token: Token::Break(token),
            size: -self.right_total,
        });
        self.scan_stack.push_back(right);
        self.right_total += token.blank_space as isize;
    }

    fn scan_token(&mut self, token: Token<'a>, len: isize) {
        if self.scan_stack.is_empty() {
            self.print_string(&token, len);
        } else {
            self.buf.push(BufEntry { token, size: len });
            self.right_total += len;
            self.check_stream();
        }
    }

    /// Shift the indentation of the break just scanned.
    pub fn offset(&mut self, offset: isize) {
        match &mut self.buf.data.back_mut().expect("a token to offset").token {
            Token::Break(token) => token.offset += offset,
            Token::Begin(_) => {}
            _ => unreachable!("offset applies to a break"),
        }
    }

    pub fn end_with_max_width(&mut self, max: isize) {
        let mut depth = 1;
        for &index in self.scan_stack.iter().rev() {
            let entry = self.buf.get(index);
            match entry.token {
                Token::Begin(_) => {
                    depth -= 1;
                    if depth == 0 {
                        if entry.size < 0 {
                            let actual_width = entry.size + self.right_total;
                            if actual_width > max {
                                self.buf.push(BufEntry {
                                    token: Token::String(Cow::Borrowed("")),
                                    size: SIZE_INFINITY,
                                });
                                self.right_total += SIZE_INFINITY;
                            }
                        }
                        break;
                    }
                }
                Token::End => depth += 1,
                Token::Break(_) => {}
                _ => unreachable!(),
            }
        }
        self.scan_end();
    }

    fn check_stream(&mut self) {
        while self.right_total - self.left_total > self.space {
            if *self.scan_stack.front().expect("scan stack") == self.buf.start() {
                self.scan_stack.pop_front();
                self.buf.data[0].size = SIZE_INFINITY;
            }
            self.advance_left();
            if self.buf.data.is_empty() {
                break;
            }
        }
    }

    fn advance_left(&mut self) {
        while self.buf.data[0].size >= 0 {
            let left = self.buf.pop_first();
            match left.token {
                Token::Break(token) => {
                    self.left_total += token.blank_space as isize;
                    self.print_break(token, left.size);
                }
                Token::Begin(token) => self.print_begin(token, left.size),
                Token::End => self.print_end(),
                token => {
                    self.left_total += left.size;
                    self.print_string(&token, left.size);
                }
            }
            if self.buf.data.is_empty() {
                break;
            }
        }
    }

    fn check_stack(&mut self, mut depth: usize) {
        while let Some(&index) = self.scan_stack.back() {
            let right_total = self.right_total;
            let entry = self.buf.get_mut(index);
            match entry.token {
                Token::Begin(_) => {
                    if depth == 0 {
                        break;
                    }
                    self.scan_stack.pop_back();
                    entry.size += right_total;
                    depth -= 1;
                }
                Token::End => {
                    self.scan_stack.pop_back();
                    entry.size = 1;
                    depth += 1;
                }
                Token::Break(_) => {
                    self.scan_stack.pop_back();
                    entry.size += right_total;
                    if depth == 0 {
                        break;
                    }
                }
                _ => unreachable!(),
            }
        }
    }

    fn get_top(&self) -> PrintFrame {
        self.print_stack
            .last()
            .copied()
            .unwrap_or(PrintFrame::Broken(0, Breaks::Inconsistent))
    }

    fn print_begin(&mut self, token: BeginToken, size: isize) {
        if size > self.space {
            self.print_stack
                .push(PrintFrame::Broken(self.indent, token.breaks));
            self.indent = usize::try_from(self.indent as isize + token.offset).unwrap_or(0);
        } else {
            self.print_stack.push(PrintFrame::Fits);
        }
    }

    fn print_end(&mut self) {
        if let Some(PrintFrame::Broken(indent, _)) = self.print_stack.pop() {
            self.indent = indent;
        }
    }

    fn print_break(&mut self, token: BreakToken, size: isize) {
        let fits = token.never_break
            || match self.get_top() {
                PrintFrame::Fits => true,
                PrintFrame::Broken(.., Breaks::Consistent) => false,
                PrintFrame::Broken(.., Breaks::Inconsistent) => size <= self.space,
            };
        if fits {
            self.pending_indentation += token.blank_space;
            self.space -= token.blank_space as isize;
        } else {
            if let Some(pre_break) = token.pre_break {
                self.print_indent();
                self.out.push(pre_break);
            }
            self.out.push('\n');
            let indent = self.indent as isize + token.offset;
            self.pending_indentation = usize::try_from(indent).unwrap_or(0);
            self.space = std::cmp::max(MARGIN - indent, MIN_SPACE);
        }
    }

    fn print_string(&mut self, token: &Token<'a>, len: isize) {
        self.print_indent();
        match token {
            // Not `len`: the empty string `end_with_max_width` pushes has
            // an infinite size but prints nothing.
            Token::String(s) => {
                self.out.push_str(s);
                self.space -= s.len() as isize;
            }
            Token::StrLit(s) => {
                push_str_lit(&mut self.out, s);
                self.space -= len;
            }
            Token::Int(n) => {
                self.out.push_str(itoa::Buffer::new().format(*n));
                self.space -= len;
            }
            _ => unreachable!(),
        }
    }

    fn print_indent(&mut self) {
        if self.pending_indentation > 0 {
            let n = self.pending_indentation;
            push_spaces(&mut self.out, n);
            self.pending_indentation = 0;
        }
    }
}

/// `n` spaces, a slice at a time (indentation is written on every line).
pub fn push_spaces(out: &mut String, mut n: usize) {
    const SPACES: &str = "                                                                ";
    while n > 0 {
        let k = n.min(SPACES.len());
        out.push_str(&SPACES[..k]);
        n -= k;
    }
}
