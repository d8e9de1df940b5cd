//! The `compiled_meta.json` reader: strict JSON for exactly the document
//! shape of [`super::Doc`], zero-copy (a string borrows from the document
//! unless it has escapes).
//!
//! Hand-written because serde_json's generic tokenising was ~70% of `admit`
//! and kept it under the 5x-jsonschema target (docs/performance.md). It
//! accepts exactly what serde_json reads into the former serde-derived
//! document type: the unit tests in `parser_tests.rs` keep that reader as
//! the oracle. The shape is fixed and unknown keys are errors, so no value
//! is ever skipped and nesting is at most four levels (no recursion).

use std::borrow::Cow;

use super::{ArtifactDoc, CapabilityDoc, Doc, ParamDoc, Small};

/// The document is not one the strict reader accepts.
#[derive(Debug)]
pub(super) struct Invalid;

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
        return Err(Invalid);
    }
    Ok(doc)
}

/// A key that is set twice is refused, as serde's derived visitors do.
fn set<T>(slot: &mut Option<T>, value: T) -> R<()> {
    if slot.is_some() {
        return Err(Invalid);
    }
    *slot = Some(value);
    Ok(())
}

struct Reader<'a> {
    text: &'a str,
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.bytes.get(self.at) {
            self.at += 1;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    /// Whitespace, then `byte`.
    fn eat(&mut self, byte: u8) -> R<()> {
        self.ws();
        if self.peek() != Some(byte) {
            return Err(Invalid);
        }
        self.at += 1;
        Ok(())
    }

    /// An object: `field` reads the value of each key (it must refuse an
    /// unknown or repeated key). Required keys are the caller's check.
    fn object(&mut self, mut field: impl FnMut(&mut Self, &str) -> R<()>) -> R<()> {
        self.eat(b'{')?;
        self.ws();
        if self.peek() == Some(b'}') {
            self.at += 1;
            return Ok(());
        }
        loop {
            let key = self.string()?;
            self.eat(b':')?;
            field(self, &key)?;
            self.ws();
            match self.peek() {
                Some(b',') => self.at += 1,
                Some(b'}') => {
                    self.at += 1;
                    return Ok(());
                }
                _ => return Err(Invalid),
            }
        }
    }

    /// An array: `item` reads each element.
    fn array(&mut self, mut item: impl FnMut(&mut Self) -> R<()>) -> R<()> {
        self.eat(b'[')?;
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
                _ => return Err(Invalid),
            }
        }
    }

    /// A string: borrowed when it has no escape, else unescaped and owned.
    fn string(&mut self) -> R<Cow<'a, str>> {
        self.eat(b'"')?;
        let start = self.at;
        loop {
            match self.peek() {
                Some(b'"') => {
                    let s = self.text.get(start..self.at).ok_or(Invalid)?;
                    self.at += 1;
                    return Ok(Cow::Borrowed(s));
                }
                Some(b'\\') => return self.escaped(start).map(Cow::Owned),
                Some(0x20..) => self.at += 1,
                // A raw control character, or the end of the document.
                _ => return Err(Invalid),
            }
        }
    }

    /// The rest of a string from its first escape (`start` is its first
    /// byte). Runs between escapes start and end at ASCII bytes, so they are
    /// whole UTF-8 sequences.
    #[cold]
    fn escaped(&mut self, start: usize) -> R<String> {
        let mut out = String::with_capacity(self.at - start + 16);
        let mut run = start;
        loop {
            match self.peek() {
                Some(b'"') => {
                    out.push_str(self.text.get(run..self.at).ok_or(Invalid)?);
                    self.at += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    out.push_str(self.text.get(run..self.at).ok_or(Invalid)?);
                    self.at += 1;
                    let c = match self.peek().ok_or(Invalid)? {
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
                        _ => return Err(Invalid),
                    };
                    self.at += 1;
                    out.push(c);
                    run = self.at;
                }
                Some(0x20..) => self.at += 1,
                _ => return Err(Invalid),
            }
        }
    }

    /// The code point of a `\u` escape (after `\u`): a surrogate must be a
    /// leading one followed by `\u` and a trailing one, as serde_json
    /// requires when it reads a string.
    fn unicode(&mut self) -> R<char> {
        let n = self.hex4()?;
        let code = match n {
            0xDC00..=0xDFFF => return Err(Invalid),
            0xD800..=0xDBFF => {
                if self.bytes.get(self.at..self.at + 2) != Some(b"\\u") {
                    return Err(Invalid);
                }
                self.at += 2;
                let n2 = self.hex4()?;
                if !(0xDC00..=0xDFFF).contains(&n2) {
                    return Err(Invalid);
                }
                0x1_0000 + ((u32::from(n) - 0xD800) << 10 | (u32::from(n2) - 0xDC00))
            }
            _ => u32::from(n),
        };
        char::from_u32(code).ok_or(Invalid)
    }

    fn hex4(&mut self) -> R<u16> {
        let digits = self.bytes.get(self.at..self.at + 4).ok_or(Invalid)?;
        let mut n = 0u16;
        for &d in digits {
            let v = (d as char).to_digit(16).ok_or(Invalid)?;
            n = n << 4 | v as u16;
        }
        self.at += 4;
        Ok(n)
    }

    /// An integer as serde_json reads one: JSON number grammar; a fraction
    /// or exponent makes it a float, which no integer field accepts; so do
    /// `-0` and a magnitude over `u64::MAX` (both floats to serde_json).
    /// Returns the sign (true if negative) and the magnitude.
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
                        .ok_or(Invalid)?;
                }
                n
            }
            _ => return Err(Invalid),
        };
        // `01`: a leading zero; `1.0`, `1e0`: floats.
        if matches!(self.peek(), Some(b'0'..=b'9' | b'.' | b'e' | b'E')) {
            return Err(Invalid);
        }
        if negative && n == 0 {
            return Err(Invalid);
        }
        Ok((negative, n))
    }

    fn u32(&mut self) -> R<u32> {
        match self.integer()? {
            (false, n) => u32::try_from(n).map_err(|_| Invalid),
            (true, _) => Err(Invalid),
        }
    }

    fn i64(&mut self) -> R<i64> {
        match self.integer()? {
            (false, n) => i64::try_from(n).map_err(|_| Invalid),
            // Down to i64::MIN, whose magnitude is 2^63.
            (true, n) => 0i64.checked_sub_unsigned(n).ok_or(Invalid),
        }
    }

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
        self.object(|r, key| match key {
            "$comment" => set(&mut comment, r.string()?),
            "schema" => set(&mut schema, r.u32()?),
            "family" => set(&mut family, r.string()?),
            "revision" => set(&mut revision, r.u32()?),
            "contract" => set(&mut contract, r.string()?),
            "params" => set(&mut params, r.params()?),
            "lowered_params" => set(&mut lowered_params, r.params()?),
            "return_count" => set(&mut return_count, r.u32()?),
            "return_aliases" => {
                let mut aliases = Small::default();
                r.array(|r| {
                    aliases.push(r.u32()?);
                    Ok(())
                })?;
                set(&mut return_aliases, aliases)
            }
            "platform" => set(&mut platform, r.string()?),
            "backend" => set(&mut backend, r.string()?),
            "runtime" => set(&mut runtime, r.string()?),
            "execution_mode" => set(&mut execution_mode, r.string()?),
            "capabilities" => {
                let mut caps = Small::default();
                r.array(|r| {
                    caps.push(r.capability()?);
                    Ok(())
                })?;
                set(&mut capabilities, caps)
            }
            "artifact" => set(&mut artifact, r.artifact()?),
            "abi_revision" => set(&mut abi_revision, r.string()?),
            _ => Err(Invalid),
        })?;
        Ok(Doc {
            _comment: comment,
            schema: schema.ok_or(Invalid)?,
            family,
            revision,
            contract,
            params: params.ok_or(Invalid)?,
            lowered_params,
            return_count,
            return_aliases,
            platform: platform.ok_or(Invalid)?,
            backend: backend.ok_or(Invalid)?,
            runtime,
            execution_mode,
            capabilities,
            artifact,
            abi_revision,
        })
    }

    fn params(&mut self) -> R<Vec<ParamDoc<'a>>> {
        let mut params = Vec::new();
        self.array(|r| {
            params.push(r.param()?);
            Ok(())
        })?;
        Ok(params)
    }

    fn param(&mut self) -> R<ParamDoc<'a>> {
        let (mut name, mut kind, mut direction, mut dtype, mut shape, mut layout) =
            (None, None, None, None, None, None);
        self.object(|r, key| match key {
            "name" => set(&mut name, r.string()?),
            "kind" => set(&mut kind, r.string()?),
            "direction" => set(&mut direction, r.string()?),
            "dtype" => set(&mut dtype, r.string()?),
            "shape" => {
                let mut dims = Small::default();
                r.array(|r| {
                    dims.push(r.i64()?);
                    Ok(())
                })?;
                set(&mut shape, dims)
            }
            "layout" => set(&mut layout, r.string()?),
            _ => Err(Invalid),
        })?;
        Ok(ParamDoc {
            name: name.ok_or(Invalid)?,
            kind: kind.ok_or(Invalid)?,
            direction: direction.ok_or(Invalid)?,
            dtype: dtype.ok_or(Invalid)?,
            shape: shape.ok_or(Invalid)?,
            layout: layout.ok_or(Invalid)?,
        })
    }

    fn capability(&mut self) -> R<CapabilityDoc<'a>> {
        let (mut contract, mut execution_mode) = (None, None);
        self.object(|r, key| match key {
            "contract" => set(&mut contract, r.string()?),
            "execution_mode" => set(&mut execution_mode, r.string()?),
            _ => Err(Invalid),
        })?;
        Ok(CapabilityDoc {
            contract: contract.ok_or(Invalid)?,
            execution_mode: execution_mode.ok_or(Invalid)?,
        })
    }

    fn artifact(&mut self) -> R<ArtifactDoc<'a>> {
        let (mut path, mut sha256) = (None, None);
        self.object(|r, key| match key {
            "path" => set(&mut path, r.string()?),
            "sha256" => set(&mut sha256, r.string()?),
            _ => Err(Invalid),
        })?;
        Ok(ArtifactDoc {
            path: path.ok_or(Invalid)?,
            sha256: sha256.ok_or(Invalid)?,
        })
    }
}
