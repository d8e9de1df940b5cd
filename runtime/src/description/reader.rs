//! The cursor a description is read with, the memory it is read into
//! ([`Arena`]) and the reads of the field types the generated decoder
//! (`generated/rust/description.rs`) uses: numbers, texts, lists, options,
//! the declared targets, parameter references, scalar references,
//! extents and declared attributes.
//!
//! Every length is checked against the bytes left before anything is
//! allocated, every value range as it is read (an extent, an attribute's
//! rule, an option's tag); references into a family's lists are recorded
//! with the field that holds them and checked once the family is read
//! (`super::verify`).

use crate::targets::{Backend, ExecutionMode, Platform, Runtime, Targets};
use crate::types::ScalarRef;

/// A malformation, before it is reported as a
/// [`DescriptionError`](super::DescriptionError).
#[derive(Debug)]
pub struct Malformed {
    pub(super) offset: usize,
    pub(super) what: String,
}

/// A value a description holds.
pub trait Read: Sized {
    fn read(r: &mut Reader) -> Result<Self, Malformed>;
}

/// The memory a catalog is read into: the copy of the description its
/// texts borrow, and every list. The records are typed with `'static`
/// borrows (the generated tables' types), which holds only because an
/// arena is either kept for the rest of the process ([`Arena::keep`],
/// once the catalog opened) or dropped after every value read from it is
/// gone (a refused description, or [`super::inspect`]'s catalog): then it
/// frees everything it holds.
#[derive(Default)]
pub struct Arena(Vec<Held>);

/// One allocation of an [`Arena`]: a boxed slice, by its parts.
struct Held {
    ptr: *mut u8,
    len: usize,
    free: unsafe fn(*mut u8, usize),
}

/// Frees a `Box<[T]>` of `len` entries at `ptr`.
///
/// # Safety
/// `ptr` and `len` are those of a `Box<[T]>` leaked with `Box::into_raw`,
/// freed once.
unsafe fn free<T>(ptr: *mut u8, len: usize) {
    drop(Box::from_raw(std::ptr::slice_from_raw_parts_mut(
        ptr.cast::<T>(),
        len,
    )));
}

impl Arena {
    /// `v`'s entries, held by the arena.
    pub fn slice<T: 'static>(&mut self, v: Vec<T>) -> &'static [T] {
        if v.is_empty() {
            return &[];
        }
        let len = v.len();
        let ptr = Box::into_raw(v.into_boxed_slice()).cast::<T>();
        self.0.push(Held {
            ptr: ptr.cast(),
            len,
            free: free::<T>,
        });
        // SAFETY: the allocation lives until the arena is dropped, after
        // every borrow of it (the type's contract above).
        unsafe { std::slice::from_raw_parts(ptr, len) }
    }

    /// `v`, held by the arena.
    pub fn value<T: 'static>(&mut self, v: T) -> &'static T {
        &self.slice(vec![v])[0]
    }

    /// Keep everything for the rest of the process: the allocations stay,
    /// reachable through the catalog read into them; only the list of them
    /// goes.
    pub fn keep(mut self) {
        self.0.clear();
    }
}

impl Drop for Arena {
    fn drop(&mut self) {
        for h in self.0.drain(..).rev() {
            // SAFETY: each was leaked by `slice`, and is freed once, here.
            unsafe { (h.free)(h.ptr, h.len) }
        }
    }
}

/// What a recorded reference must name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Names {
    /// Any parameter.
    Param,
    /// A scalar parameter (a scalar reference's).
    Scalar,
}

/// A parameter reference read while reading a family, checked once the
/// family's parameters are known.
#[derive(Clone, Copy, Debug)]
pub struct Ref {
    pub record: &'static str,
    pub field: &'static str,
    pub value: u32,
    pub at: usize,
    pub names: Names,
}

/// A cursor over a description.
pub struct Reader {
    pub(super) bytes: &'static [u8],
    pub(super) pos: usize,
    /// Where the innermost record being read ends.
    end: usize,
    pub(super) targets: Option<&'static Targets>,
    pub(super) arena: Arena,
    /// The parameter references read since the family being read began.
    pub(super) refs: Vec<Ref>,
}

/// The largest static extent (the manifest's bound, docs/manifest.md).
pub const MAX_EXTENT: i64 = u32::MAX as i64;

impl Reader {
    /// A reader of `bytes`, held by `arena`.
    pub fn new(bytes: &'static [u8], arena: Arena) -> Reader {
        Reader {
            bytes,
            pos: 0,
            end: bytes.len(),
            targets: None,
            arena,
            refs: Vec::new(),
        }
    }

    pub(super) fn malformed(&self, what: impl Into<String>) -> Malformed {
        self.malformed_at(self.pos, what)
    }

    pub(super) fn malformed_at(&self, offset: usize, what: impl Into<String>) -> Malformed {
        Malformed {
            offset,
            what: what.into(),
        }
    }

    /// An unknown code of the vocabulary `what`.
    pub fn unknown(&self, what: &str, code: i32) -> Malformed {
        self.malformed_at(
            self.pos.saturating_sub(4),
            format!("unknown {what} code {code}"),
        )
    }

    fn left(&self) -> usize {
        self.end - self.pos
    }

    fn take(&mut self, n: usize) -> Result<&'static [u8], Malformed> {
        if n > self.left() {
            return Err(self.malformed(format!("{n} bytes expected, {} left", self.left())));
        }
        let bytes = &self.bytes[self.pos..self.pos + n];
        self.pos += n;
        Ok(bytes)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], Malformed> {
        let mut a = [0; N];
        a.copy_from_slice(self.take(N)?);
        Ok(a)
    }

    pub fn read<T: Read>(&mut self) -> Result<T, Malformed> {
        T::read(self)
    }

    /// A record: its byte length, then `fields`, which must read exactly
    /// that many bytes.
    pub fn record<T>(
        &mut self,
        fields: impl FnOnce(&mut Reader) -> Result<T, Malformed>,
    ) -> Result<T, Malformed> {
        let len = self.read::<u32>()? as usize;
        if len > self.left() {
            return Err(self.malformed(format!("a record of {len} bytes, {} left", self.left())));
        }
        let outer = std::mem::replace(&mut self.end, self.pos + len);
        let value = fields(self)?;
        if self.pos != self.end {
            return Err(self.malformed(format!(
                "{} bytes left over at the end of a record",
                self.end - self.pos
            )));
        }
        self.end = outer;
        Ok(value)
    }

    /// Whether the record being read ends here: a field appended in a
    /// later minor, which an earlier writer did not write.
    fn at_end(&self) -> bool {
        self.pos == self.end
    }

    /// A field appended in a later minor of the format: its type's default
    /// when the record, written by an earlier generator, ends before it.
    pub fn appended<T: Read + Default>(&mut self) -> Result<T, Malformed> {
        if self.at_end() {
            return Ok(T::default());
        }
        self.read()
    }

    /// [`Reader::appended`] for a type whose absent value is `absent`
    /// (a vocabulary's member of code 0).
    pub fn appended_or<T: Read>(&mut self, absent: T) -> Result<T, Malformed> {
        if self.at_end() {
            return Ok(absent);
        }
        self.read()
    }

    /// A parameter's signature index held by `record.field`, checked once
    /// the family is read.
    pub fn param(&mut self, record: &'static str, field: &'static str) -> Result<u32, Malformed> {
        self.reference(record, field, Names::Param)
    }

    fn reference(
        &mut self,
        record: &'static str,
        field: &'static str,
        names: Names,
    ) -> Result<u32, Malformed> {
        let at = self.pos;
        let value = self.read::<u32>()?;
        self.refs.push(Ref {
            record,
            field,
            value,
            at,
            names,
        });
        Ok(value)
    }

    /// A parameter's signature index, or none.
    pub fn opt_param(
        &mut self,
        record: &'static str,
        field: &'static str,
    ) -> Result<Option<u32>, Malformed> {
        match self.read::<u8>()? {
            0 => Ok(None),
            1 => self.param(record, field).map(Some),
            tag => Err(self.tag(record, field, tag)),
        }
    }

    /// A constant (finite) or a scalar parameter.
    pub fn scalar_ref(
        &mut self,
        record: &'static str,
        field: &'static str,
    ) -> Result<ScalarRef, Malformed> {
        match self.read::<u8>()? {
            0 => {
                let at = self.pos;
                let x: f64 = self.read()?;
                if !x.is_finite() {
                    return Err(self.malformed_at(
                        at,
                        format!("`{record}.{field}` is the constant {x}: a finite number expected"),
                    ));
                }
                Ok(ScalarRef::Constant(x))
            }
            1 => self
                .reference(record, field, Names::Scalar)
                .map(ScalarRef::Param),
            tag => Err(self.tag(record, field, tag)),
        }
    }

    fn tag(&self, record: &str, field: &str, tag: u8) -> Malformed {
        self.malformed_at(
            self.pos - 1,
            format!("`{record}.{field}` has the tag {tag}: 0 or 1 expected"),
        )
    }

    /// An extent: `-1` (dynamic) or 1 ..= 2^32 - 1.
    pub fn extent(&mut self, record: &'static str, field: &'static str) -> Result<i64, Malformed> {
        let at = self.pos;
        let e: i64 = self.read()?;
        if e == -1 || (1..=MAX_EXTENT).contains(&e) {
            return Ok(e);
        }
        Err(self.malformed_at(
            at,
            format!(
                "`{record}.{field}` holds the extent {e}: an extent is -1 (dynamic) or 1 to {MAX_EXTENT}"
            ),
        ))
    }

    /// A shape: a list of extents.
    pub fn dims(
        &mut self,
        record: &'static str,
        field: &'static str,
    ) -> Result<&'static [i64], Malformed> {
        let n = self.count(8)?;
        let dims = (0..n)
            .map(|_| self.extent(record, field))
            .collect::<Result<Vec<i64>, Malformed>>()?;
        Ok(self.arena.slice(dims))
    }

    /// A declared attribute whose values are powers of two up to `max`;
    /// `default` when it was appended in a later minor and the record ends
    /// before it.
    pub fn power_of_two(
        &mut self,
        record: &'static str,
        field: &'static str,
        default: Option<u32>,
        max: u32,
    ) -> Result<u32, Malformed> {
        if let (Some(d), true) = (default, self.at_end()) {
            return Ok(d);
        }
        let at = self.pos;
        let v: u32 = self.read()?;
        if v == 0 || v > max || !v.is_power_of_two() {
            return Err(self.malformed_at(
                at,
                format!("`{record}.{field}` is {v}: a power of two from 1 to {max} expected"),
            ));
        }
        Ok(v)
    }

    pub(super) fn targets(&self) -> Result<&'static Targets, Malformed> {
        self.targets
            .ok_or_else(|| self.malformed("a target before the targets"))
    }

    /// A list's count, bounded by the bytes left (every entry takes at
    /// least `least` bytes), so no count allocates more than the
    /// description holds.
    pub(super) fn count(&mut self, least: usize) -> Result<usize, Malformed> {
        let at = self.pos;
        let n = self.read::<u32>()? as usize;
        if n.saturating_mul(least) > self.left() {
            return Err(self.malformed_at(
                at,
                format!(
                    "a list of {n} entries of at least {least} bytes each, {} bytes left",
                    self.left()
                ),
            ));
        }
        Ok(n)
    }

    pub(super) fn list<T: Read>(&mut self) -> Result<Vec<T>, Malformed> {
        let n = self.count(1)?;
        (0..n).map(|_| self.read()).collect()
    }
}

macro_rules! number {
    ($($t:ty),*) => {$(
        impl Read for $t {
            fn read(r: &mut Reader) -> Result<Self, Malformed> {
                Ok(<$t>::from_le_bytes(r.array()?))
            }
        }
    )*};
}
number!(u8, u16, u32, i32, i64, f64);

impl Read for bool {
    fn read(r: &mut Reader) -> Result<Self, Malformed> {
        match r.read::<u8>()? {
            0 => Ok(false),
            1 => Ok(true),
            b => Err(r.malformed_at(r.pos - 1, format!("boolean {b}"))),
        }
    }
}

impl Read for &'static str {
    fn read(r: &mut Reader) -> Result<Self, Malformed> {
        let n = r.read::<u32>()? as usize;
        let at = r.pos;
        let bytes = r.take(n)?;
        std::str::from_utf8(bytes)
            .map_err(|e| r.malformed_at(at, format!("a text that is not UTF-8: {e}")))
    }
}

impl<T: Read> Read for Option<T> {
    fn read(r: &mut Reader) -> Result<Self, Malformed> {
        match r.read::<u8>()? {
            0 => Ok(None),
            1 => r.read().map(Some),
            tag => Err(r.malformed_at(r.pos - 1, format!("option tag {tag}"))),
        }
    }
}

impl<T: Read + 'static> Read for &'static [T] {
    fn read(r: &mut Reader) -> Result<Self, Malformed> {
        let list = r.list::<T>()?;
        Ok(r.arena.slice(list))
    }
}

macro_rules! declared {
    ($($t:ident $list:ident $what:literal),*) => {$(
        impl Read for $t {
            fn read(r: &mut Reader) -> Result<Self, Malformed> {
                let code = r.read::<i32>()?;
                let targets = r.targets()?;
                targets.$list.iter().copied().find(|m| m.code() == code)
                    .ok_or_else(|| r.unknown($what, code))
            }
        }
    )*};
}
declared!(
    Platform platforms "platform",
    Backend backends "backend",
    Runtime runtimes "runtime",
    ExecutionMode execution_modes "execution mode"
);
