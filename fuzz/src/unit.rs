//! Target `unit`: a catalog's generated C unit as the prebuilt runtime
//! reads it (`kfamrt::descriptor`, docs/description.md): the descriptor's
//! layout fields (the description's length, the array's row count, the
//! format, the descriptor's size), the base64 text in the array's rows,
//! and the description's bytes under a recomputed digest. The array is
//! always exactly the rows the descriptor states (what the unit's
//! `sizeof` gives), allocated to its length, so a read past it is a
//! finding of AddressSanitizer (`cargo fuzz`'s default sanitizer) as well
//! as of the oracle.
//!
//! Oracle: `descriptor::check` never panics, and accepts a descriptor only
//! when its length is at most 1 GiB and needs exactly its rows, its text
//! decodes to bytes whose SHA-256 is the one the unit records, and the
//! description opens; the shipped unit, unedited, is accepted. Nothing is
//! kept between runs (`check` reads and frees), so a campaign runs in
//! constant memory.
//!
//! Input: the first byte selects. Even: layout edits, each 9 bytes (an
//! operation byte and a little-endian u64): 0, the length; 1, the length
//! moved by a signed 16-bit amount; 2, the rows (array and claim, 0 to
//! 64); 3, the format minor; 4, the descriptor's size; 5, one byte of the
//! text (position, then value, in the u64). Odd: the description's bytes
//! edited as the `description` target edits them (3 bytes each), written
//! again as the unit writes them with their SHA-256, so the reader is
//! reached.
//!
//! This file is a module of the fuzz target (`fuzz_targets/unit.rs`), of
//! the `drive` example and of `native/tests/fuzz_unit.rs`, which runs it in
//! CI; it needs only `kfamrt`, `kfam_runtime` and `kfam_codegen`.

use std::ffi::{c_char, CString};
use std::sync::OnceLock;

use kfam_runtime::ffi::{Opaque, RECORD_SIZES};
use kfamrt::descriptor::{self, Descriptor, BASE64_MINOR, MAX_DESCRIPTION, ROW, STRIDE};

/// The shipped catalog, as its unit holds it.
struct Shipped {
    bytes: Vec<u8>,
    sha256: CString,
    /// The families' names and identities, as the unit's C tables hold
    /// them (what the accessors below hand out).
    families: Vec<[CString; 2]>,
    status: [i32; 9],
    sizes: Vec<u32>,
}

fn shipped() -> &'static Shipped {
    static SHIPPED: OnceLock<Shipped> = OnceLock::new();
    SHIPPED.get_or_init(|| {
        let manifest = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../manifest");
        let (ir, report) = kfam_codegen::check_dir(&manifest);
        let ir = ir.unwrap_or_else(|| panic!("the shipped manifest checks: {report:?}"));
        let bytes = kfam_codegen::emit::c::description::description(
            &ir,
            &kfam_codegen::ir::catalog_digest(&ir),
        );
        let text = |s: &str| CString::new(s).expect("no NUL");
        let mut status = [0; 9];
        for (s, (_, code)) in status.iter_mut().zip(&ir.abi.status) {
            *s = *code;
        }
        Shipped {
            sha256: text(&kfam_codegen::ir::sha256_hex(&bytes)),
            bytes,
            families: ir
                .families
                .iter()
                .map(|f| [text(&f.name), text(&f.identity)])
                .collect(),
            status,
            sizes: RECORD_SIZES.iter().map(|(_, n)| *n as u32).collect(),
        }
    })
}

unsafe extern "C" fn table() -> *const Opaque {
    std::ptr::null()
}
unsafe extern "C" fn family(i: usize) -> *const Opaque {
    shipped()
        .families
        .get(i)
        .map_or(std::ptr::null(), |f| (f as *const [CString; 2]).cast())
}
unsafe extern "C" fn child(_: usize, _: usize) -> *const Opaque {
    std::ptr::null()
}
unsafe extern "C" fn schema(_: usize) -> *const c_char {
    std::ptr::null()
}
unsafe extern "C" fn name(f: *const Opaque) -> *const c_char {
    (*f.cast::<[CString; 2]>())[0].as_ptr()
}
unsafe extern "C" fn identity(f: *const Opaque) -> *const c_char {
    (*f.cast::<[CString; 2]>())[1].as_ptr()
}

/// The rows of an array of `rows` rows holding `bytes` as base64, cut at
/// the array's end.
fn rows_of(bytes: &[u8], rows: usize) -> Vec<u8> {
    let mut array = vec![0u8; rows * STRIDE];
    let text = kfam_codegen::emit::c::description::base64(bytes);
    for (i, c) in text.enumerate().take(rows * ROW) {
        array[i / ROW * STRIDE + i % ROW] = c;
    }
    array
}

/// The rows a description of `len` bytes needs.
fn needed(len: usize) -> usize {
    len.div_ceil(3).saturating_mul(4).div_ceil(ROW).max(1)
}

pub fn unit(data: &[u8]) {
    let s = shipped();
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let mut bytes = s.bytes.clone();
    let mut sha = s.sha256.clone();
    let mut len = bytes.len();
    let mut rows = needed(len);
    let (mut minor, mut size) = (descriptor_minor(), std::mem::size_of::<Descriptor>() as u32);
    let mut text_edits = Vec::new();
    if mode % 2 == 1 {
        for edit in rest.chunks_exact(3) {
            let at = usize::from(u16::from_le_bytes([edit[0], edit[1]])) % bytes.len();
            bytes[at] = edit[2];
        }
        sha = CString::new(kfam_codegen::ir::sha256_hex(&bytes)).expect("hex");
    } else {
        for edit in rest.chunks_exact(9) {
            let v = u64::from_le_bytes(edit[1..9].try_into().expect("8 bytes"));
            match edit[0] % 6 {
                0 => len = v as usize,
                1 => len = len.saturating_add_signed(isize::from(v as i16)),
                2 => rows = (v % 65) as usize,
                3 => minor = v as u16,
                4 => size = v as u32,
                _ => text_edits.push(((v >> 8) as usize, v as u8)),
            }
        }
    }
    let mut array = rows_of(&bytes, rows);
    for (at, value) in text_edits {
        if !array.is_empty() {
            let n = array.len();
            array[at % n] = value;
        }
    }
    // The array exactly as large as the descriptor says: a read past it is
    // a read past the allocation.
    let array = array.into_boxed_slice();
    let d = Descriptor {
        struct_size: size,
        format_major: kfam_runtime::description::FORMAT_MAJOR,
        format_minor: minor,
        status: s.status,
        generator: c"kfam fuzz".as_ptr(),
        name: c"kfam".as_ptr(),
        description: if array.is_empty() {
            std::ptr::null()
        } else {
            array.as_ptr()
        },
        description_len: len,
        description_sha256: sha.as_ptr(),
        record_count: s.sizes.len() as u32,
        record_sizes: s.sizes.as_ptr(),
        table: Some(table),
        family: Some(family),
        profile: Some(child),
        receipt: Some(child),
        torch_schema: Some(schema),
        record_name: Some(name),
        record_identity: Some(identity),
        opened: std::ptr::null_mut(),
        description_rows: rows,
    };
    // SAFETY: every pointer of `d` is valid as a unit's would be; `rows`
    // rows of the array exist.
    let answer = unsafe { descriptor::check(&d) };
    let unedited = data.len() == 1 || (mode % 2 == 1 && bytes == s.bytes);
    if unedited {
        assert_eq!(answer, Ok(()), "the shipped unit is refused");
    }
    if answer.is_ok() {
        assert!(len <= MAX_DESCRIPTION, "{len} bytes accepted");
        if minor >= BASE64_MINOR {
            assert_eq!(rows, needed(len), "{len} bytes accepted in {rows} rows");
        }
    }
}

/// The format minor the shipped unit states.
fn descriptor_minor() -> u16 {
    kfam_runtime::description::FORMAT_MINOR
}
