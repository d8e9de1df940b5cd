//! `kfamrt_catalog`: a catalog as its generated C unit hands it over, and
//! its opening: once per descriptor, on the first call, checked against
//! this runtime and against the unit before any decision is made over it.

use std::ffi::{c_char, c_void, CStr};
use std::sync::atomic::{AtomicPtr, Ordering};
use std::sync::Mutex;

use kfam_runtime::description::{self, FORMAT_MAJOR, FORMAT_MINOR};
use kfam_runtime::ffi::{CCatalog, Opaque, Shim, RECORD_SIZES};
use kfam_runtime::targets::Targets;
use kfam_runtime::{Abi, Catalog, Status};
use sha2::{Digest, Sha256};

/// The mirror of `kfamrt_catalog` (`codegen/c/kfamrt.h`, whose layout
/// assertions state the same size and offsets as the ones below).
#[repr(C)]
pub struct Descriptor {
    pub struct_size: u32,
    pub format_major: u16,
    pub format_minor: u16,
    pub status: [i32; 9],
    pub generator: *const c_char,
    pub name: *const c_char,
    pub description: *const u8,
    pub description_len: usize,
    pub description_sha256: *const c_char,
    pub record_count: u32,
    pub record_sizes: *const u32,
    pub table: Option<unsafe extern "C" fn() -> *const Opaque>,
    pub family: Option<unsafe extern "C" fn(usize) -> *const Opaque>,
    pub profile: Option<unsafe extern "C" fn(usize, usize) -> *const Opaque>,
    pub receipt: Option<unsafe extern "C" fn(usize, usize) -> *const Opaque>,
    pub torch_schema: Option<unsafe extern "C" fn(usize) -> *const c_char>,
    pub record_name: Option<unsafe extern "C" fn(*const Opaque) -> *const c_char>,
    pub record_identity: Option<unsafe extern "C" fn(*const Opaque) -> *const c_char>,
    pub opened: *mut c_void,
    /// Appended with format 1.5: the rows of the description's array, as
    /// the unit's `sizeof` counts them. A unit of an earlier format has no
    /// such field (its `struct_size` is [`SIZE_1_4`]): it is never read
    /// there.
    pub description_rows: usize,
}

#[cfg(target_pointer_width = "64")]
const _: () = {
    assert!(size_of::<Descriptor>() == 176);
    assert!(std::mem::offset_of!(Descriptor, status) == 8);
    assert!(std::mem::offset_of!(Descriptor, generator) == 48);
    assert!(std::mem::offset_of!(Descriptor, record_count) == 88);
    assert!(std::mem::offset_of!(Descriptor, table) == 104);
    assert!(std::mem::offset_of!(Descriptor, opened) == 160);
    assert!(std::mem::offset_of!(Descriptor, description_rows) == SIZE_1_4);
};

/// The descriptor of a unit of format 1.4 or earlier: everything up to and
/// including `opened`.
pub const SIZE_1_4: usize = std::mem::offset_of!(Descriptor, description_rows);

/// The first format whose unit holds its description as base64 text with
/// the array's row count.
pub const BASE64_MINOR: u16 = 5;

/// The longest description this runtime opens: 1 GiB (a catalog of about
/// 500,000 families), so that no length a damaged unit states is
/// allocated before it is checked.
pub const MAX_DESCRIPTION: usize = 1 << 30;

/// A descriptor once opened: the catalog, or why it was refused (with an
/// empty catalog in the descriptor's own status codes, over which a refused
/// call still writes its out-records as a refused call must).
pub enum Opened {
    Ready(CCatalog),
    Refused { empty: CCatalog, message: String },
}

/// Serializes openings, so no descriptor is opened (and leaked) twice.
static OPENING: Mutex<()> = Mutex::new(());

/// The catalog `d` describes, opened on first use.
///
/// # Safety
/// `d` is NULL or a `kfamrt_catalog` of a generated unit, valid for the
/// life of the process (a static object of the unit).
pub unsafe fn opened(d: *mut Descriptor) -> Option<&'static Opened> {
    if d.is_null() {
        return None;
    }
    // Only this runtime ever writes `opened`, with release stores: the
    // unit's C code initializes it and never touches it again.
    let slot = AtomicPtr::from_ptr((&raw mut (*d).opened).cast::<*mut Opened>());
    let current = slot.load(Ordering::Acquire);
    if !current.is_null() {
        return Some(&*current);
    }
    let _lock = OPENING.lock().unwrap_or_else(|e| e.into_inner());
    let current = slot.load(Ordering::Acquire);
    if !current.is_null() {
        return Some(&*current);
    }
    let copy = read_descriptor(d);
    let opened = match std::panic::catch_unwind(|| open(&copy)) {
        Ok(Ok(c)) => Opened::Ready(c),
        Ok(Err(reason)) => refused(&copy, reason),
        Err(_) => refused(&copy, "an internal error while opening it".to_owned()),
    };
    let opened: &'static mut Opened = Box::leak(Box::new(opened));
    slot.store(opened, Ordering::Release);
    Some(opened)
}

/// A copy of the descriptor `d` as far as its unit laid it out: a unit of
/// an earlier format has a shorter one (`struct_size`), whose missing
/// fields read as zero. The copy is read, never `d` itself, so no
/// reference ever spans past the unit's object.
///
/// # Safety
/// `d` is a `kfamrt_catalog` of a generated unit, at least
/// `min(struct_size, size_of::<Descriptor>())` bytes.
unsafe fn read_descriptor(d: *const Descriptor) -> Descriptor {
    let size = (&raw const (*d).struct_size).read() as usize;
    let n = size.min(size_of::<Descriptor>());
    let mut copy = std::mem::MaybeUninit::<Descriptor>::zeroed();
    // A descriptor shorter than its first fields is refused by its size
    // before anything else is read (`open`).
    std::ptr::copy_nonoverlapping(d.cast::<u8>(), copy.as_mut_ptr().cast::<u8>(), n);
    // Every field of the mirror is valid all-zero (NULL pointers, `None`
    // accessors, zero numbers).
    copy.assume_init()
}

/// The status code `status` of the descriptor's header.
///
/// # Safety
/// `d` is a `kfamrt_catalog` of a generated unit.
pub unsafe fn code(d: *const Descriptor, status: Status) -> i32 {
    (&raw const (*d).status).read()[status as usize]
}

unsafe fn text<'a>(p: *const c_char) -> Option<&'a str> {
    (!p.is_null())
        .then(|| CStr::from_ptr(p).to_str().ok())
        .flatten()
}

fn refused(d: &Descriptor, reason: String) -> Opened {
    let name = unsafe { text(d.name) }.unwrap_or("?");
    let generator = unsafe { text(d.generator) }.unwrap_or("an unknown generator");
    let message = format!(
        "prepared_incompatible: the library of catalog `{name}` (generated by {generator}) \
         cannot be opened by this runtime (kfam {}): {reason}",
        env!("CARGO_PKG_VERSION")
    );
    let empty = Box::leak(Box::new(Catalog {
        name: Box::leak(name.to_owned().into_boxed_str()),
        digest: "",
        abi: Box::leak(Box::new(Abi {
            revision: "",
            major: 0,
            minor: 0,
            max_tensor_args: 0,
            max_scalar_args: 0,
            max_rank: 0,
            max_prepared: 0,
            status: d.status,
        })),
        targets: &Targets {
            platforms: &[],
            backends: &[],
            runtimes: &[],
            execution_modes: &[],
        },
        families: &[],
        retired: &[],
        artifacts: &[],
        family_index: &[],
        artifact_index: &[],
    }));
    Opened::Refused {
        empty: CCatalog::new(empty, Shim::NONE),
        message,
    }
}

/// Open the descriptor: every check, then the catalog over the unit's C
/// tables; or what differs, in words.
fn open(d: &Descriptor) -> Result<CCatalog, String> {
    let (bytes, shim) = verified(d)?;
    let catalog = description::open(&bytes).map_err(|e| e.to_string())?;
    agrees(d, catalog, &shim)?;
    Ok(CCatalog::new(catalog, shim))
}

/// Every check [`opened`] makes of the descriptor `d`, keeping nothing
/// (its description is read and freed, opened or not): what the fuzz
/// target `unit` runs.
///
/// # Safety
/// As for [`opened`]: `d`'s pointers are what a generated unit holds.
pub unsafe fn check(d: &Descriptor) -> Result<(), String> {
    let (bytes, shim) = verified(d)?;
    // SAFETY: `agrees` keeps nothing of the catalog.
    unsafe { description::inspect(&bytes, |c| agrees(d, c, &shim)) }.map_err(|e| e.to_string())?
}

/// The checks before the description is read: the descriptor's size, the
/// format, the record sizes, the accessors, the description's length
/// against its rows, its text and its SHA-256. The description's bytes and
/// the accessors of the unit's C tables.
fn verified(d: &Descriptor) -> Result<(Vec<u8>, Shim), String> {
    let size = d.struct_size as usize;
    if size < SIZE_1_4 || (size < size_of::<Descriptor>() && d.format_minor >= BASE64_MINOR) {
        return Err(format!(
            "its descriptor is {} bytes, this runtime's is {}",
            d.struct_size,
            size_of::<Descriptor>()
        ));
    }
    if d.format_major != FORMAT_MAJOR || d.format_minor > FORMAT_MINOR {
        return Err(format!(
            "its description is format {}.{}, this runtime reads {FORMAT_MAJOR}.0 to \
             {FORMAT_MAJOR}.{FORMAT_MINOR}: install a kfam runtime at least as new as the kfam \
             that generated the catalog, or regenerate the catalog with this kfam",
            d.format_major, d.format_minor
        ));
    }
    // The count is checked before the list is read.
    let count = if d.record_sizes.is_null() {
        0
    } else {
        d.record_count as usize
    };
    if count != RECORD_SIZES.len() {
        return Err(format!(
            "its header declares {count} C ABI records, this runtime {}",
            RECORD_SIZES.len()
        ));
    }
    let sizes = unsafe { std::slice::from_raw_parts(d.record_sizes, count) };
    for (&theirs, &(c_name, ours)) in sizes.iter().zip(RECORD_SIZES) {
        if theirs as usize != ours {
            let record = c_name.strip_prefix("kfam_").unwrap_or(c_name);
            return Err(format!(
                "record `{record}` is {theirs} bytes in the header the catalog was compiled \
                 with, {ours} in this runtime: the header is not the one kfam generated for \
                 this runtime, or was compiled with another layout (packing, a 32-bit target)"
            ));
        }
    }
    let (
        Some(table),
        Some(family),
        Some(profile),
        Some(receipt),
        Some(torch_schema),
        Some(record_name),
        Some(record_identity),
    ) = (
        d.table,
        d.family,
        d.profile,
        d.receipt,
        d.torch_schema,
        d.record_name,
        d.record_identity,
    )
    else {
        return Err("its descriptor lacks an accessor of its C tables".to_owned());
    };
    if d.description.is_null() {
        return Err("its descriptor holds no description".to_owned());
    }
    let bytes = unsafe { description_bytes(d) }?;
    let expected = unsafe { text(d.description_sha256) }.unwrap_or("");
    let actual = hex(&Sha256::digest(&bytes));
    if actual != expected {
        return Err(format!(
            "its description ({} bytes) is damaged: its SHA-256 is {actual}, the unit records \
             `{}`",
            bytes.len(),
            expected.escape_debug()
        ));
    }
    let shim = Shim {
        table,
        family,
        profile,
        receipt,
        torch_schema,
        record_name,
        record_identity,
    };
    Ok((bytes, shim))
}

/// The checks of an opened description against the unit: the header's
/// status codes, and the C tables family by family.
fn agrees(d: &Descriptor, catalog: &Catalog, shim: &Shim) -> Result<(), String> {
    if catalog.abi.status != d.status {
        return Err(format!(
            "its header's status codes {:?} are not its description's {:?}",
            d.status, catalog.abi.status
        ));
    }
    tables_agree(catalog, shim)
}

/// The unit's C tables hold the description's families, in its order.
fn tables_agree(catalog: &Catalog, shim: &Shim) -> Result<(), String> {
    for (i, f) in catalog.families.iter().enumerate() {
        let record = unsafe { (shim.family)(i) };
        let (name, identity) = if record.is_null() {
            (None, None)
        } else {
            unsafe {
                (
                    text((shim.record_name)(record)),
                    text((shim.record_identity)(record)),
                )
            }
        };
        if name == Some(f.name) && identity != Some(f.identity) {
            // One family, two generations: the identities differ.
            return Err(format!(
                "family `{}` at position {i} has identity {} in its C tables, {} in its \
                 description: the tables and the description are of different generations of \
                 the catalog (regenerate the unit with `kfam generate`)",
                f.name,
                identity.unwrap_or("(none)"),
                f.identity
            ));
        }
        if name != Some(f.name) {
            return Err(format!(
                "its C tables hold {} at position {i}, its description family `{}` \
                 (identity {}): the tables and the description are of different generations \
                 of the catalog (regenerate the unit with `kfam generate`)",
                name.map_or("no family".to_owned(), |n| format!("family `{n}`")),
                f.name,
                f.identity
            ));
        }
    }
    if !unsafe { (shim.family)(catalog.families.len()) }.is_null() {
        return Err(format!(
            "its C tables hold more families than its description's {}",
            catalog.families.len()
        ));
    }
    Ok(())
}

/// `KFAMRT_DESCRIPTION_ROW` and `KFAMRT_DESCRIPTION_STRIDE` of `kfamrt.h`.
pub const ROW: usize = 4095;
pub const STRIDE: usize = 4096;

/// The description of `d`: of format 1.5 and later, the base64 text of
/// its rows decoded, after its length was checked against the rows the
/// unit's array holds; of an earlier format, the bytes of its rows, its
/// length bounded by [`MAX_DESCRIPTION`] (such a unit states no row
/// count). No length is used before it is checked.
///
/// # Safety
/// `d.description` points to `d.description_rows` rows of [`STRIDE`]
/// bytes (format 1.5), or to the rows of `d.description_len` bytes.
unsafe fn description_bytes(d: &Descriptor) -> Result<Vec<u8>, String> {
    let len = d.description_len;
    if len > MAX_DESCRIPTION {
        return Err(format!(
            "its description's length is {len} bytes, past the {MAX_DESCRIPTION} this runtime \
             opens: the unit was edited (regenerate it with `kfam generate`)"
        ));
    }
    if d.format_minor < BASE64_MINOR {
        return Ok(raw_rows(d.description, len));
    }
    let text = len.div_ceil(3) * 4;
    let needed = text.div_ceil(ROW).max(1);
    if d.description_rows != needed {
        return Err(format!(
            "its description's length, {len} bytes ({text} characters of base64), needs {needed} \
             rows of {ROW}, and its array holds {}: the unit was edited (regenerate it with \
             `kfam generate`)",
            d.description_rows
        ));
    }
    decode_rows(d.description, len, text)
}

/// The `len` bytes of a description held in rows of [`ROW`] bytes, one
/// row every [`STRIDE`] bytes from `first` (format 1.4 and earlier).
///
/// # Safety
/// `first` points to `len.div_ceil(ROW)` rows.
unsafe fn raw_rows(first: *const u8, len: usize) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(len);
    let mut at = 0;
    while bytes.len() < len {
        let n = ROW.min(len - bytes.len());
        bytes.extend_from_slice(std::slice::from_raw_parts(first.add(at), n));
        at += STRIDE;
    }
    bytes
}

/// The value of a base64 character, or 64 for padding, or none.
fn sextet(c: u8) -> Option<u8> {
    match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        b'=' => Some(64),
        _ => None,
    }
}

/// The `len` bytes whose base64 text of `text` characters fills rows of
/// [`ROW`] characters from `first`, one every [`STRIDE`] bytes; a
/// character that is not base64, or padding anywhere but at the end, is
/// named by its row and column.
///
/// # Safety
/// `first` points to `text.div_ceil(ROW)` rows of [`STRIDE`] bytes.
unsafe fn decode_rows(first: *const u8, len: usize, text: usize) -> Result<Vec<u8>, String> {
    let mut bytes = Vec::with_capacity(len);
    let mut group = [0u8; 4];
    // Each row is copied out whole before it is read (a `memcpy` of the
    // row's length, which a sanitizer's interceptor checks against the
    // unit's array).
    let mut line = [0u8; ROW];
    for i in 0..text {
        let (row, column) = (i / ROW, i % ROW);
        if column == 0 {
            let n = ROW.min(text - i);
            std::ptr::copy_nonoverlapping(first.add(row * STRIDE), line.as_mut_ptr(), n);
        }
        let c = line[column];
        let bad = |what: &str| {
            format!(
                "its description's text holds {what} (byte {c:#04x}) at row {row}, column \
                 {column}: the unit was edited (regenerate it with `kfam generate`)"
            )
        };
        let v = sextet(c).ok_or_else(|| bad("a character that is not base64"))?;
        // Padding: only the last one or two characters of the text, as the
        // length says.
        let padding = i >= text - (3 - len % 3) % 3;
        if (v == 64) != padding {
            return Err(bad(if v == 64 {
                "padding before the end"
            } else {
                "a character where padding belongs"
            }));
        }
        group[i % 4] = v & 63;
        if i % 4 == 3 {
            let n = (u32::from(group[0]) << 18)
                | (u32::from(group[1]) << 12)
                | (u32::from(group[2]) << 6)
                | u32::from(group[3]);
            let three = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
            let keep = (len - bytes.len()).min(3);
            bytes.extend_from_slice(&three[..keep]);
        }
    }
    Ok(bytes)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A catalog of no family, as a unit would describe it.
    fn empty_catalog() -> Vec<u8> {
        let abi = "revision = \"0123456789abcdef0123456789abcdef01234567\"\nmajor = 1\nminor = 0\n\
                   [limits]\nmax_tensor_args = 8\nmax_scalar_args = 8\nmax_rank = 4\nmax_prepared = 4\n\
                   [status]\nok = 0\ninternal = -1000\nunsupported = -1001\n\
                   prepared_incompatible = -1002\ninvalid_state = -1003\ninvalid_argument = -1004\n\
                   not_found = -1005\nrecompile_required = -1006\nnot_approved = -1007\n";
        let (ir, report) =
            kfam_codegen::check_sources(Some(("abi.toml".into(), abi.into())), vec![]);
        let ir = ir.unwrap_or_else(|| panic!("{report:?}"));
        kfam_codegen::emit::c::description::description(&ir, "digest")
    }

    /// `bytes` as a unit holds them: base64 text in rows of [`STRIDE`].
    fn rows_of(bytes: &[u8]) -> (&'static [u8], usize) {
        let text: Vec<u8> = kfam_codegen::emit::c::description::base64(bytes).collect();
        let rows = text.len().div_ceil(ROW).max(1);
        let mut array = vec![0u8; rows * STRIDE];
        for (i, row) in text.chunks(ROW).enumerate() {
            array[i * STRIDE..i * STRIDE + row.len()].copy_from_slice(row);
        }
        (Box::leak(array.into_boxed_slice()), rows)
    }

    fn descriptor(bytes: &'static [u8], sha: &'static std::ffi::CStr) -> Descriptor {
        let sizes: Vec<u32> = RECORD_SIZES.iter().map(|(_, n)| *n as u32).collect();
        let (array, rows) = rows_of(bytes);
        Descriptor {
            struct_size: size_of::<Descriptor>() as u32,
            format_major: FORMAT_MAJOR,
            format_minor: FORMAT_MINOR,
            status: [0, -1000, -1001, -1002, -1003, -1004, -1005, -1006, -1007],
            generator: c"kfam test".as_ptr(),
            name: c"kfam".as_ptr(),
            description: array.as_ptr(),
            description_len: bytes.len(),
            description_sha256: sha.as_ptr(),
            record_count: sizes.len() as u32,
            record_sizes: Box::leak(sizes.into_boxed_slice()).as_ptr(),
            table: Some(Shim::NONE.table),
            family: Some(Shim::NONE.family),
            profile: Some(Shim::NONE.profile),
            receipt: Some(Shim::NONE.receipt),
            torch_schema: Some(Shim::NONE.torch_schema),
            record_name: Some(Shim::NONE.record_name),
            record_identity: Some(Shim::NONE.record_identity),
            opened: std::ptr::null_mut(),
            description_rows: rows,
        }
    }

    #[test]
    fn a_descriptor_is_opened_once_and_its_refusal_kept() {
        let bytes: &'static [u8] = Box::leak(empty_catalog().into_boxed_slice());
        assert!(bytes.len() <= ROW, "one row");
        let sha = std::ffi::CString::new(hex(&Sha256::digest(bytes))).unwrap();
        let d = Box::leak(Box::new(descriptor(
            bytes,
            Box::leak(sha.into_boxed_c_str()),
        )));
        let first = unsafe { opened(d) }.expect("a descriptor") as *const Opened;
        assert!(matches!(unsafe { &*first }, Opened::Ready(_)));
        let again = unsafe { opened(d) }.unwrap() as *const Opened;
        assert_eq!(first, again, "opened once, then read from the descriptor");

        let short = Box::leak(Box::new(descriptor(bytes, c"00")));
        short.struct_size = 8;
        let Some(Opened::Refused { message, .. }) = (unsafe { opened(short) }) else {
            panic!("a short descriptor opens");
        };
        assert!(
            message.contains("its descriptor is 8 bytes, this runtime's is 176"),
            "{message}"
        );
        assert!(unsafe { opened(std::ptr::null_mut()) }.is_none());
    }

    /// The message `d` is refused with.
    fn refusal(d: Descriptor) -> String {
        match unsafe { opened(Box::leak(Box::new(d))) } {
            Some(Opened::Refused { message, .. }) => message.clone(),
            _ => panic!("opened"),
        }
    }

    /// A length that disagrees with the rows the descriptor states is
    /// refused before a byte is read (the array holds one row here: reading
    /// as the length says would run past it); so is a character that is not
    /// base64, and a length past what this runtime opens.
    #[test]
    fn lengths_are_checked_against_the_rows_before_reading() {
        let bytes: &'static [u8] = Box::leak(empty_catalog().into_boxed_slice());
        let sha: &'static std::ffi::CStr = Box::leak(
            std::ffi::CString::new(hex(&Sha256::digest(bytes)))
                .unwrap()
                .into_boxed_c_str(),
        );
        for len in [bytes.len() + 8192, 1 << 20, (1 << 30) - 1] {
            let mut d = descriptor(bytes, sha);
            d.description_len = len;
            let message = refusal(d);
            assert!(
                message.contains(&format!("its description's length, {len} bytes"))
                    && message.contains("and its array holds 1: the unit was edited"),
                "{len}: {message}"
            );
        }
        for len in [1usize << 32, 1 << 40, usize::MAX] {
            let mut d = descriptor(bytes, sha);
            d.description_len = len;
            let message = refusal(d);
            assert!(
                message.contains(&format!(
                    "its description's length is {len} bytes, past the 1073741824 this runtime opens"
                )),
                "{len}: {message}"
            );
        }
        // Shorter, within its row: read, and refused by its text (padding
        // where the length puts it) or its digest.
        for less in 1..=3 {
            let mut d = descriptor(bytes, sha);
            d.description_len -= less;
            let message = refusal(d);
            assert!(
                message.contains("is damaged: its SHA-256 is")
                    || message.contains("a character where padding belongs"),
                "{message}"
            );
        }
        // A character of the row edited.
        let mut d = descriptor(bytes, sha);
        let mut row = unsafe { std::slice::from_raw_parts(d.description, STRIDE) }.to_vec();
        row[5] = b'*';
        d.description = Box::leak(row.into_boxed_slice()).as_ptr();
        let message = refusal(d);
        assert!(
            message.contains(
                "its description's text holds a character that is not base64 (byte 0x2a) at row 0, column 5"
            ),
            "{message}"
        );
        // A unit of format 1.4 or earlier: a descriptor without the row
        // count, and the bytes themselves in its rows.
        let mut d = descriptor(bytes, sha);
        let mut raw = bytes.to_vec();
        raw.resize(STRIDE, 0);
        d.description = Box::leak(raw.into_boxed_slice()).as_ptr();
        d.struct_size = SIZE_1_4 as u32;
        d.format_minor = BASE64_MINOR - 1;
        d.description_rows = usize::MAX;
        assert!(matches!(
            unsafe { opened(Box::leak(Box::new(d))) },
            Some(Opened::Ready(_))
        ));
    }
}
