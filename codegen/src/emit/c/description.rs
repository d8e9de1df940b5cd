//! The catalog's description: every record the runtime decides over,
//! serialized into bytes that the catalog's C unit embeds and the prebuilt
//! runtime (`libkfamrt`) opens once at run time, as protobuf's generated
//! code embeds its descriptor (docs/description.md).
//!
//! The records are written by walking their declarations
//! (`crate::record`) with their values, so a new field needs no edit here;
//! the runtime reads them back with a decoder printed from the same
//! declarations (`generated/rust/description.rs`).
//!
//! Layout, all integers little-endian and fixed-width:
//!
//! ```text
//! description := MAGIC u16:major u16:minor catalog
//! catalog     := str:name str:digest abi targets list<Family> list<Retired>
//! abi         := str:revision u16:major u16:minor u32:max_tensor_args
//!                u32:max_scalar_args u32:max_rank u32:max_prepared list<i32:status>
//! targets     := 4 x list<(i32:code, str:name)>   platforms, backends, runtimes, modes
//! record      := u32:byte_length field*           in declaration order
//! str         := u32:byte_length UTF-8 bytes
//! list<T>     := u32:count T*
//! option<T>   := u8:0 | u8:1 T
//! bool        := u8:0 | u8:1
//! scalar_ref  := u8:0 f64 | u8:1 u32
//! operation   := i32:kind record                   the kind's payload
//! ```

use crate::ir::{Ir, ScalarRef};
use crate::record::values::{Row, Value};
use crate::record::{Record, Ty, OPERATIONS};
use crate::vocab::{Vocabulary, BACKEND, EXECUTION_MODE, PLATFORM, RUNTIME};

/// The first bytes of every description.
pub const MAGIC: &[u8; 8] = b"kfamdesc";
/// The format this generator writes: a runtime reads a description of its
/// own major and of any minor up to its own.
pub const FORMAT_MAJOR: u16 = 1;
/// The latest minor a record field was appended in: a field declared
/// `.since(n)` raises it (docs/description.md lists what each minor added).
pub const FORMAT_MINOR: u16 = crate::record::latest_since();

/// The description of `ir`'s catalog, whose content digest is `digest`
/// ([`crate::ir::catalog_digest`]).
pub fn description(ir: &Ir, digest: &str) -> Vec<u8> {
    description_of_minor(ir, digest, FORMAT_MINOR)
}

/// [`description`] as the generator of format `1.minor` wrote it: the
/// fields appended after that minor left out. A runtime reads every minor
/// up to its own (`runtime/tests/description.rs` opens the earlier ones).
pub fn description_of_minor(ir: &Ir, digest: &str, minor: u16) -> Vec<u8> {
    let mut w = Bytes(Vec::with_capacity(4096 + ir.families.len() * 2048), minor);
    w.0.extend_from_slice(MAGIC);
    w.u16(FORMAT_MAJOR);
    w.u16(minor);
    w.str(&ir.catalog.name);
    w.str(digest);

    let abi = &ir.abi;
    w.str(&abi.revision);
    w.u16(abi.major);
    w.u16(abi.minor);
    for n in [
        abi.max_tensor_args,
        abi.max_scalar_args,
        abi.max_rank,
        abi.max_prepared,
    ] {
        w.u32(n);
    }
    w.count(abi.status.len());
    for (_, code) in &abi.status {
        w.i32(*code);
    }

    for vocab in DECLARED {
        let members = ir.members(vocab);
        w.count(members.len());
        for m in members {
            w.i32(m.code);
            w.str(m.spelling);
        }
    }

    w.count(ir.families.len());
    for f in &ir.families {
        w.row(f);
    }
    w.count(ir.retired.len());
    for r in &ir.retired {
        w.row(r);
    }
    w.0
}

/// The bytes written so far, and the format minor whose fields they hold.
struct Bytes(Vec<u8>, u16);

impl Bytes {
    fn u8(&mut self, n: u8) {
        self.0.push(n);
    }

    fn u16(&mut self, n: u16) {
        self.0.extend_from_slice(&n.to_le_bytes());
    }

    fn u32(&mut self, n: u32) {
        self.0.extend_from_slice(&n.to_le_bytes());
    }

    fn i32(&mut self, n: i32) {
        self.0.extend_from_slice(&n.to_le_bytes());
    }

    fn i64(&mut self, n: i64) {
        self.0.extend_from_slice(&n.to_le_bytes());
    }

    fn f64(&mut self, x: f64) {
        self.0.extend_from_slice(&x.to_le_bytes());
    }

    /// A count or a length: the checker bounds every list and text far
    /// below `u32::MAX`.
    fn count(&mut self, n: usize) {
        self.u32(u32::try_from(n).expect("a list or text of the catalog fits u32"));
    }

    fn str(&mut self, s: &str) {
        self.count(s.len());
        self.0.extend_from_slice(s.as_bytes());
    }

    /// A record: its length, then its logical fields in declaration order.
    fn row(&mut self, row: &dyn Row) {
        let start = self.0.len();
        self.u32(0);
        for (field, value) in row.record().logical().zip(row.values()) {
            if field.since <= self.1 {
                self.value(field.ty, value);
            }
        }
        let len = self.0.len() - start - 4;
        self.0[start..start + 4].copy_from_slice(&(len as u32).to_le_bytes());
    }

    fn value(&mut self, ty: Ty, value: Value<'_>) {
        match (ty, value) {
            (Ty::OptStr | Ty::OptParam | Ty::Bound, Value::Absent) => self.u8(0),
            (Ty::OptStr, v) => {
                self.u8(1);
                self.value(Ty::Str, v);
            }
            (Ty::OptParam, v) => {
                self.u8(1);
                self.value(Ty::Param, v);
            }
            (Ty::Bound, v) => {
                self.u8(1);
                self.value(Ty::I64, v);
            }
            (Ty::Bool, Value::Bool(b)) => self.u8(u8::from(b)),
            (Ty::U32 | Ty::Index | Ty::Param | Ty::Count, Value::Int(n)) => {
                self.u32(u32::try_from(n).expect("an index or count fits u32"))
            }
            (Ty::I64 | Ty::Extent, Value::Int(n)) => self.i64(n),
            (Ty::I64 | Ty::Extent, Value::Extent(e)) => self.i64(e.as_i64()),
            (Ty::F64, Value::F64(x)) => self.f64(x),
            (Ty::Str | Ty::Digest, Value::Str(s)) => self.str(s),
            (Ty::Vocab(_), Value::Vocab(c)) => self.i32(c.code),
            (Ty::Dims { .. }, Value::Ints(items)) => {
                self.count(items.len());
                items.iter().for_each(|n| self.i64(n));
            }
            (Ty::Indices, Value::Ints(items)) => {
                self.count(items.len());
                for n in items.iter() {
                    self.u32(u32::try_from(n).expect("an index fits u32"));
                }
            }
            (Ty::Strs, Value::Strs(list)) => {
                self.count(list.len());
                list.iter().for_each(|s| self.str(s));
            }
            (Ty::List(_), Value::List(rows)) => {
                self.count(rows.len());
                (0..rows.len()).for_each(|i| self.row(rows.row(i)));
            }
            (Ty::Nested(_), Value::Nested(row)) => self.row(row),
            (Ty::ScalarRef, Value::ScalarRef(ScalarRef::Constant(x))) => {
                self.u8(0);
                self.f64(x);
            }
            (Ty::ScalarRef, Value::ScalarRef(ScalarRef::Param(i))) => {
                self.u8(1);
                self.u32(u32::try_from(i).expect("a parameter index fits u32"));
            }
            (Ty::Operation, Value::Operation(row)) => {
                self.i32(operation_code(row.record()));
                self.row(row);
            }
            (ty, _) => unreachable!("a value that does not fit its declared type {ty:?}"),
        }
    }
}

/// The code of the operation kind whose payload record is `record`.
fn operation_code(record: &Record) -> i32 {
    OPERATIONS
        .iter()
        .find(|(_, r)| std::ptr::eq(*r, record))
        .map(|(k, _)| k.code())
        .expect("every payload record is an operation kind's")
}

/// Characters of the description's text per string literal: the longest
/// C99 requires compilers to accept (`-pedantic` warns past it). Each
/// literal fills one row of a `[ROWS][4096]` array; the runtime reads 4095
/// characters of each (`KFAMRT_DESCRIPTION_ROW` of `kfamrt.h`). As string
/// literals rather than a list of numbers, 10,000 families' description
/// compiles in about a second instead of 30 s and 2.9 GB
/// (docs/performance.md).
pub const ROW: usize = 4095;

/// The characters of base64 (RFC 4648), by value.
const BASE64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Characters of the base64 text of `len` bytes (with padding):
/// `KFAMRT_DESCRIPTION_TEXT` of `kfamrt.h`.
pub const fn text_len(len: usize) -> usize {
    len.div_ceil(3) * 4
}

/// Rows of the unit's array for a description of `len` bytes:
/// `KFAMRT_DESCRIPTION_ROWS` of `kfamrt.h` (one, empty, for no bytes).
pub const fn rows(len: usize) -> usize {
    let rows = text_len(len).div_ceil(ROW);
    if rows == 0 {
        1
    } else {
        rows
    }
}

/// The base64 text of `bytes` (RFC 4648, with padding), character by
/// character: what the unit's rows hold.
pub fn base64(bytes: &[u8]) -> impl Iterator<Item = u8> + '_ {
    bytes.chunks(3).flat_map(|chunk| {
        let n = (u32::from(chunk[0]) << 16)
            | (u32::from(*chunk.get(1).unwrap_or(&0)) << 8)
            | u32::from(*chunk.get(2).unwrap_or(&0));
        (0..4).map(move |i| {
            if i <= chunk.len() {
                BASE64[(n >> (18 - 6 * i)) as usize & 63]
            } else {
                b'='
            }
        })
    })
}

/// `bytes` as base64, in string literals of [`ROW`] characters, one a
/// line. Base64 costs 4 characters for 3 bytes and needs no escape in a
/// C string (none of its characters is `"`, `\\` or `?`), where the
/// octal escapes of format 1.4 cost about 2.6 characters a byte.
pub fn c_rows(text: &mut String, bytes: &[u8]) {
    text.push_str("    \"");
    for (i, c) in base64(bytes).enumerate() {
        if i > 0 && i % ROW == 0 {
            text.push_str("\",\n    \"");
        }
        text.push(char::from(c));
    }
    text.push('"');
}

/// The declared vocabularies, in the order the description lists them.
pub const DECLARED: [&Vocabulary; 4] = [&PLATFORM, &BACKEND, &RUNTIME, &EXECUTION_MODE];
