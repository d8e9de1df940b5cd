//! The `compiled_meta.json` reader: strict JSON for exactly the document
//! shape of [`super::Doc`], zero-copy (a string borrows from the document
//! unless it has escapes).
//!
//! Hand-written because serde_json's generic tokenising was ~70% of `admit`
//! and kept it under the 5x-jsonschema target (docs/performance.md). It
//! accepts exactly what serde_json reads into the former serde-derived
//! document type: the unit tests in `parser_tests.rs` keep that reader as
//! the oracle. The shape is fixed and unknown keys are errors, so no value
//! is ever skipped and nesting is at most four containers deep (document,
//! `params`, a parameter, its `shape`), read without recursion.

use std::borrow::Cow;

use super::{ArtifactDoc, CapabilityDoc, Doc, ParamDoc, Small};

/// The document is not one the strict reader accepts, and why: the key
/// whose value was being read (when known), the document key it sits under,
/// and what is wrong with it. Built only on refusal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Invalid {
    pub key: Option<&'static str>,
    pub within: Option<&'static str>,
    pub why: &'static str,
}

impl Invalid {
    const fn because(why: &'static str) -> Self {
        Invalid {
            key: None,
            within: None,
            why,
        }
    }
    pub(super) const SYNTAX: Invalid = Invalid::because("is not strict JSON");
    const WRONG_TYPE: Invalid = Invalid::because("has the wrong type");
    const DUPLICATE_KEY: Invalid = Invalid::because("appears twice");
    const UNKNOWN_KEY: Invalid = Invalid::because("has an unknown key");
    const OUT_OF_RANGE: Invalid = Invalid::because("is out of range");
    const TOO_LONG: Invalid = Invalid::because("is too long");

    fn missing(key: &'static str) -> Self {
        Invalid {
            key: Some(key),
            ..Invalid::because("is missing")
        }
    }

    /// Name `key` as where the error is: the innermost key, then the
    /// document key above it.
    fn under(mut self, key: &'static str) -> Self {
        if self.key.is_none() {
            self.key = Some(key);
        } else if self.key != Some(key) {
            self.within = Some(key);
        }
        self
    }
}

type R<T> = Result<T, Invalid>;

/// Read `text` (the whole document) into a [`Doc`].
pub(super) fn parse(text: &str) -> R<Doc<'_>> {
    let mut r = Reader {
        text,
        bytes: text.as_bytes(),
        at: 0,
    };
    let doc = r.doc()?;
    r.ws();
    if r.at != r.bytes.len() {
        return Err(Invalid::SYNTAX);
    }
    Ok(doc)
}

/// A key that is set twice is refused, as serde's derived visitors do.
#[inline(always)]
fn set<T>(slot: &mut Option<T>, value: T) -> R<()> {
    if slot.is_some() {
        return Err(Invalid::DUPLICATE_KEY);
    }
    *slot = Some(value);
    Ok(())
}

const ONES: u64 = 0x0101_0101_0101_0101;

/// Non-zero when a byte of `chunk` is `"`, `\` or below 0x20 (the lowest
/// flagged byte is the first such byte; bit tricks as in "Determine if a
/// word has a zero byte", Bit Twiddling Hacks).
pub(super) fn special(chunk: u64) -> u64 {
    let zero = |v: u64| v.wrapping_sub(ONES) & !v;
    let quote = zero(chunk ^ (ONES * u64::from(b'"')));
    let backslash = zero(chunk ^ (ONES * u64::from(b'\\')));
    let control = chunk.wrapping_sub(ONES * 0x20) & !chunk;
    (quote | backslash | control) & (ONES * 0x80)
}

/// A key of the document and its quoted spelling (at most 16 bytes), as
/// two little-endian words and masks, to compare it in place.
struct Key {
    name: &'static [u8],
    word: [u64; 2],
    mask: [u64; 2],
}

/// Bytes `8 * half ..` of `b` as a little-endian word.
const fn word(b: [u8; 16], half: usize) -> u64 {
    let mut w = [0u8; 8];
    let mut i = 0;
    while i < 8 {
        w[i] = b[half * 8 + i];
        i += 1;
    }
    u64::from_le_bytes(w)
}

const fn key(name: &'static [u8]) -> Key {
    assert!(
        name.len() <= 14,
        "a key is compared as at most 16 quoted bytes"
    );
    let mut bytes = [0u8; 16];
    let mut mask = [0u8; 16];
    let mut i = 0;
    while i < name.len() + 2 {
        bytes[i] = if i == 0 || i == name.len() + 1 {
            b'"'
        } else {
            name[i - 1]
        };
        mask[i] = 0xff;
        i += 1;
    }
    Key {
        name,
        word: [word(bytes, 0), word(bytes, 1)],
        mask: [word(mask, 0), word(mask, 1)],
    }
}

/// The keys of each object, in the order `kfam` writes them.
const DOC_KEYS: &[Key] = &[
    key(b"$comment"),
    key(b"schema"),
    key(b"family"),
    key(b"revision"),
    key(b"contract"),
    key(b"params"),
    key(b"lowered_params"),
    key(b"return_count"),
    key(b"return_aliases"),
    key(b"platform"),
    key(b"backend"),
    key(b"runtime"),
    key(b"execution_mode"),
    key(b"abi_revision"),
    key(b"capabilities"),
    key(b"artifact"),
];
const PARAM_KEYS: &[Key] = &[
    key(b"name"),
    key(b"kind"),
    key(b"direction"),
    key(b"dtype"),
    key(b"shape"),
    key(b"layout"),
];
const CAPABILITY_KEYS: &[Key] = &[key(b"contract"), key(b"execution_mode")];
const ARTIFACT_KEYS: &[Key] = &[key(b"path"), key(b"sha256")];

#[derive(Clone, Copy)]
struct Reader<'a> {
    text: &'a str,
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    #[inline(always)]
    fn ws(&mut self) {
        loop {
            match self.peek() {
                Some(b' ') => self.spaces(),
                Some(b'\t' | b'\n' | b'\r') => self.at += 1,
                _ => return,
            }
        }
    }

    /// A run of spaces (a pretty-printed document's indentation), eight
    /// bytes at a time.
    #[inline(always)]
    fn spaces(&mut self) {
        while let Some(chunk) = self.chunk() {
            let other = chunk ^ (ONES * u64::from(b' '));
            if other != 0 {
                self.at += (other.trailing_zeros() / 8) as usize;
                return;
            }
            self.at += 8;
        }
        while self.peek() == Some(b' ') {
            self.at += 1;
        }
    }

    /// The next eight bytes, little-endian, if there are eight.
    #[inline(always)]
    fn chunk(&self) -> Option<u64> {
        let bytes = self.bytes.get(self.at..)?.first_chunk::<8>()?;
        Some(u64::from_le_bytes(*bytes))
    }

    /// Skip string bytes that need no attention, eight at a time: stop at
    /// the first `"`, `\` or control character, or near the end.
    #[inline(always)]
    fn plain(&mut self) {
        while let Some(chunk) = self.chunk() {
            let found = special(chunk);
            if found != 0 {
                self.at += (found.trailing_zeros() / 8) as usize;
                return;
            }
            self.at += 8;
        }
    }

    #[inline(always)]
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    /// Whitespace, then `byte` opening a value: another value there is of
    /// the wrong type.
    #[inline(always)]
    fn open(&mut self, byte: u8) -> R<()> {
        self.eat(byte).map_err(|_| self.mismatch())
    }

    /// The error for a value that is not the one expected here.
    #[cold]
    fn mismatch(&self) -> Invalid {
        match self.peek() {
            Some(b'"' | b'{' | b'[' | b'-' | b'0'..=b'9' | b't' | b'f' | b'n') => {
                Invalid::WRONG_TYPE
            }
            _ => Invalid::SYNTAX,
        }
    }

    /// Whitespace, then `byte`.
    #[inline(always)]
    fn eat(&mut self, byte: u8) -> R<()> {
        self.ws();
        if self.peek() != Some(byte) {
            return Err(Invalid::SYNTAX);
        }
        self.at += 1;
        Ok(())
    }

    /// An object whose keys are among `keys`: `field` reads the value of
    /// each key, given its index in `keys` (it must refuse a repeated key).
    /// Required keys are the caller's check.
    #[inline(always)]
    fn object(&mut self, keys: &[Key], mut field: impl FnMut(&mut Self, usize) -> R<()>) -> R<()> {
        self.open(b'{')?;
        self.ws();
        if self.peek() == Some(b'}') {
            self.at += 1;
            return Ok(());
        }
        // Producers write the keys in the order of `keys`: the expected one
        // is compared in place first, without scanning and unescaping it.
        let mut next = 0;
        loop {
            self.ws();
            let i = match keys.get(next) {
                Some(key) if self.at_key(key) => {
                    self.at += key.name.len() + 2;
                    next
                }
                _ => {
                    let name = self.string()?;
                    let name = name.as_bytes();
                    keys.iter()
                        .position(|k| k.name == name)
                        .ok_or(Invalid::UNKNOWN_KEY)?
                }
            };
            next = i + 1;
            self.eat(b':')?;
            field(self, i)
                .map_err(|e| e.under(core::str::from_utf8(keys[i].name).unwrap_or("")))?;
            self.ws();
            match self.peek() {
                Some(b',') => self.at += 1,
                Some(b'}') => {
                    self.at += 1;
                    return Ok(());
                }
                _ => return Err(Invalid::SYNTAX),
            }
        }
    }

    /// The next bytes are `key` as a string without escapes.
    #[inline(always)]
    fn at_key(&self, key: &Key) -> bool {
        let Some(bytes) = self
            .bytes
            .get(self.at..)
            .and_then(|b| b.first_chunk::<16>())
        else {
            return false;
        };
        let (low, high) = bytes.split_at(8);
        let word = |b: &[u8]| u64::from_le_bytes(b.try_into().unwrap_or_default());
        ((word(low) ^ key.word[0]) & key.mask[0]) | ((word(high) ^ key.word[1]) & key.mask[1]) == 0
    }

    /// An array: `item` reads each element.
    #[inline(always)]
    fn array(&mut self, mut item: impl FnMut(&mut Self) -> R<()>) -> R<()> {
        self.open(b'[')?;
        self.ws();
        if self.peek() == Some(b']') {
            self.at += 1;
            return Ok(());
        }
        loop {
            item(self)?;
            self.ws();
            match self.peek() {
                Some(b',') => self.at += 1,
                Some(b']') => {
                    self.at += 1;
                    return Ok(());
                }
                _ => return Err(Invalid::SYNTAX),
            }
        }
    }

    /// An array whose elements `item` reads, appended to `into`.
    #[inline(always)]
    fn list<T, C: Extend<T>>(
        &mut self,
        mut into: C,
        mut item: impl FnMut(&mut Self) -> R<T>,
    ) -> R<C> {
        self.array(|r| {
            into.extend(Some(item(r)?));
            Ok(())
        })?;
        Ok(into)
    }

    /// A string: borrowed when it has no escape, else unescaped and owned.
    #[inline(always)]
    fn string(&mut self) -> R<Cow<'a, str>> {
        self.open(b'"')?;
        let start = self.at;
        loop {
            self.plain();
            match self.peek() {
                Some(b'"') => {
                    let s = self.text.get(start..self.at).ok_or(Invalid::SYNTAX)?;
                    self.at += 1;
                    return Ok(Cow::Borrowed(s));
                }
                Some(b'\\') => {
                    // A copy, so that `self` stays in registers here.
                    let mut rest = *self;
                    let s = rest.escaped(start)?;
                    self.at = rest.at;
                    return Ok(Cow::Owned(s));
                }
                Some(0x20..) => self.at += 1,
                // A raw control character, or the end of the document.
                _ => return Err(Invalid::SYNTAX),
            }
        }
    }

    /// The rest of a string from its first escape (`start` is its first
    /// byte). Runs between escapes start and end at ASCII bytes, so they are
    /// whole UTF-8 sequences.
    #[cold]
    #[inline(never)]
    fn escaped(&mut self, start: usize) -> R<String> {
        let mut out = String::with_capacity(self.at - start + 16);
        let mut run = start;
        loop {
            match self.peek() {
                Some(b'"') => {
                    out.push_str(self.text.get(run..self.at).ok_or(Invalid::SYNTAX)?);
                    self.at += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    out.push_str(self.text.get(run..self.at).ok_or(Invalid::SYNTAX)?);
                    self.at += 1;
                    let c = match self.peek().ok_or(Invalid::SYNTAX)? {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'b' => '\x08',
                        b'f' => '\x0c',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'u' => {
                            self.at += 1;
                            let c = self.unicode()?;
                            out.push(c);
                            run = self.at;
                            continue;
                        }
                        _ => return Err(Invalid::SYNTAX),
                    };
                    self.at += 1;
                    out.push(c);
                    run = self.at;
                }
                Some(0x20..) => self.at += 1,
                _ => return Err(Invalid::SYNTAX),
            }
        }
    }

    /// The code point of a `\u` escape (after `\u`): a surrogate must be a
    /// leading one followed by `\u` and a trailing one, as serde_json
    /// requires when it reads a string.
    fn unicode(&mut self) -> R<char> {
        let n = self.hex4()?;
        let code = match n {
            0xDC00..=0xDFFF => return Err(Invalid::SYNTAX),
            0xD800..=0xDBFF => {
                if self.bytes.get(self.at..self.at + 2) != Some(b"\\u") {
                    return Err(Invalid::SYNTAX);
                }
                self.at += 2;
                let n2 = self.hex4()?;
                if !(0xDC00..=0xDFFF).contains(&n2) {
                    return Err(Invalid::SYNTAX);
                }
                0x1_0000 + ((u32::from(n) - 0xD800) << 10 | (u32::from(n2) - 0xDC00))
            }
            _ => u32::from(n),
        };
        char::from_u32(code).ok_or(Invalid::SYNTAX)
    }

    fn hex4(&mut self) -> R<u16> {
        let digits = self
            .bytes
            .get(self.at..self.at + 4)
            .ok_or(Invalid::SYNTAX)?;
        let mut n = 0u16;
        for &d in digits {
            let v = (d as char).to_digit(16).ok_or(Invalid::SYNTAX)?;
            n = n << 4 | v as u16;
        }
        self.at += 4;
        Ok(n)
    }

    /// An integer as serde_json reads one: JSON number grammar; a fraction
    /// or exponent makes it a float, which no integer field accepts; so do
    /// `-0` and a magnitude over `u64::MAX` (both floats to serde_json).
    /// Returns the sign (true if negative) and the magnitude.
    #[inline(always)]
    fn integer(&mut self) -> R<(bool, u64)> {
        self.ws();
        let negative = self.peek() == Some(b'-');
        if negative {
            self.at += 1;
        }
        let n: u64 = match self.peek() {
            Some(b'0') => {
                self.at += 1;
                0
            }
            Some(d @ b'1'..=b'9') => {
                self.at += 1;
                let mut n = u64::from(d - b'0');
                while let Some(d @ b'0'..=b'9') = self.peek() {
                    self.at += 1;
                    n = n
                        .checked_mul(10)
                        .and_then(|n| n.checked_add(u64::from(d - b'0')))
                        .ok_or(Invalid::OUT_OF_RANGE)?;
                }
                n
            }
            _ => return Err(self.mismatch()),
        };
        // `01`: a leading zero; `1.0`, `1e0`: floats.
        if matches!(self.peek(), Some(b'0'..=b'9' | b'.' | b'e' | b'E')) {
            return Err(Invalid::WRONG_TYPE);
        }
        if negative && n == 0 {
            return Err(Invalid::WRONG_TYPE);
        }
        Ok((negative, n))
    }

    #[inline(always)]
    fn u32(&mut self) -> R<u32> {
        match self.integer()? {
            (false, n) => u32::try_from(n).map_err(|_| Invalid::OUT_OF_RANGE),
            (true, _) => Err(Invalid::OUT_OF_RANGE),
        }
    }

    #[inline(always)]
    fn i64(&mut self) -> R<i64> {
        match self.integer()? {
            (false, n) => i64::try_from(n).map_err(|_| Invalid::OUT_OF_RANGE),
            // Down to i64::MIN, whose magnitude is 2^63.
            (true, n) => 0i64.checked_sub_unsigned(n).ok_or(Invalid::OUT_OF_RANGE),
        }
    }

    #[inline(always)]
    fn doc(&mut self) -> R<Doc<'a>> {
        let mut comment = None;
        let mut schema = None;
        let mut family = None;
        let mut revision = None;
        let mut contract = None;
        let mut params = None;
        let mut lowered_params = None;
        let mut return_count = None;
        let mut return_aliases = None;
        let mut platform = None;
        let mut backend = None;
        let mut runtime = None;
        let mut execution_mode = None;
        let mut capabilities = None;
        let mut artifact = None;
        let mut abi_revision = None;
        // `key` indexes DOC_KEYS.
        self.object(DOC_KEYS, |r, key| match key {
            0 => set(&mut comment, r.comment()?),
            1 => set(&mut schema, r.u32()?),
            2 => set(&mut family, r.string()?),
            3 => set(&mut revision, r.u32()?),
            4 => set(&mut contract, r.string()?),
            5 => set(&mut params, r.params()?),
            6 => set(&mut lowered_params, r.params()?),
            7 => set(&mut return_count, r.u32()?),
            8 => set(&mut return_aliases, r.list(Small::new(), Self::u32)?),
            9 => set(&mut platform, r.string()?),
            10 => set(&mut backend, r.string()?),
            11 => set(&mut runtime, r.string()?),
            12 => set(&mut execution_mode, r.string()?),
            14 => set(&mut capabilities, r.list(Small::new(), Self::capability)?),
            15 => set(&mut artifact, r.artifact()?),
            13 => set(&mut abi_revision, r.string()?),
            _ => Err(Invalid::SYNTAX),
        })?;
        Ok(Doc {
            _comment: comment,
            schema: schema.ok_or(Invalid::missing("schema"))?,
            family,
            revision,
            contract,
            params: params.ok_or(Invalid::missing("params"))?,
            lowered_params,
            return_count,
            return_aliases,
            platform: platform.ok_or(Invalid::missing("platform"))?,
            backend: backend.ok_or(Invalid::missing("backend"))?,
            runtime,
            execution_mode,
            capabilities,
            artifact,
            abi_revision,
        })
    }

    /// `$comment`: free text of at most [`super::MAX_COMMENT_CHARS`]
    /// characters, the bound the published schema states.
    fn comment(&mut self) -> R<Cow<'a, str>> {
        let s = self.string()?;
        if s.chars().count() > super::MAX_COMMENT_CHARS {
            return Err(Invalid::TOO_LONG);
        }
        Ok(s)
    }

    #[inline(always)]
    fn params(&mut self) -> R<Vec<ParamDoc<'a>>> {
        // One allocation for a typical signature.
        self.list(Vec::with_capacity(8), Self::param)
    }

    #[inline(always)]
    fn param(&mut self) -> R<ParamDoc<'a>> {
        let (mut name, mut kind, mut direction, mut dtype, mut shape, mut layout) =
            (None, None, None, None, None, None);
        // `key` indexes PARAM_KEYS.
        self.object(PARAM_KEYS, |r, key| match key {
            0 => set(&mut name, r.string()?),
            1 => set(&mut kind, r.string()?),
            2 => set(&mut direction, r.string()?),
            3 => set(&mut dtype, r.string()?),
            4 => set(&mut shape, r.list(Small::new(), Self::i64)?),
            5 => set(&mut layout, r.string()?),
            _ => Err(Invalid::SYNTAX),
        })?;
        Ok(ParamDoc {
            name: name.ok_or(Invalid::missing("name"))?,
            kind: kind.ok_or(Invalid::missing("kind"))?,
            direction: direction.ok_or(Invalid::missing("direction"))?,
            dtype: dtype.ok_or(Invalid::missing("dtype"))?,
            shape: shape.ok_or(Invalid::missing("shape"))?,
            layout: layout.ok_or(Invalid::missing("layout"))?,
        })
    }

    #[inline(always)]
    fn capability(&mut self) -> R<CapabilityDoc<'a>> {
        let (mut contract, mut execution_mode) = (None, None);
        // `key` indexes CAPABILITY_KEYS.
        self.object(CAPABILITY_KEYS, |r, key| match key {
            0 => set(&mut contract, r.string()?),
            1 => set(&mut execution_mode, r.string()?),
            _ => Err(Invalid::SYNTAX),
        })?;
        Ok(CapabilityDoc {
            contract: contract.ok_or(Invalid::missing("contract"))?,
            execution_mode: execution_mode.ok_or(Invalid::missing("execution_mode"))?,
        })
    }

    #[inline(always)]
    fn artifact(&mut self) -> R<ArtifactDoc<'a>> {
        let (mut path, mut sha256) = (None, None);
        // `key` indexes ARTIFACT_KEYS.
        self.object(ARTIFACT_KEYS, |r, key| match key {
            0 => set(&mut path, r.string()?),
            1 => set(&mut sha256, r.string()?),
            _ => Err(Invalid::SYNTAX),
        })?;
        Ok(ArtifactDoc {
            path: path.ok_or(Invalid::missing("path"))?,
            sha256: sha256.ok_or(Invalid::missing("sha256"))?,
        })
    }
}
