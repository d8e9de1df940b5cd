//! What every function of the C ABI does at the boundary: run its body
//! without letting a panic unwind into C, and read what a C caller passes
//! (strings, result structs sized by the caller, descriptor arrays whose
//! stride is their first element's `struct_size`).

use std::ffi::{c_char, CStr};
use std::mem::size_of;
use std::panic::{catch_unwind, AssertUnwindSafe};

use super::catalog::CCatalog;
use crate::vocab::Status;

/// Run an exported function body; a panic must not cross the C boundary.
pub(crate) fn guard(c: &CCatalog, body: impl FnOnce() -> i32) -> i32 {
    catch_unwind(AssertUnwindSafe(body)).unwrap_or(c.code(Status::Internal))
}

/// A NUL-terminated UTF-8 string, or `None` for NULL / invalid UTF-8.
pub(crate) unsafe fn c_str<'a>(p: *const c_char) -> Option<&'a str> {
    if p.is_null() {
        return None;
    }
    CStr::from_ptr(p).to_str().ok()
}

/// An out-struct the caller sized for at least the current layout.
pub(crate) unsafe fn out_struct<'a, T>(p: *mut T) -> Option<&'a mut T> {
    let r = p.as_mut()?;
    // Every result struct starts with `uint32_t struct_size`.
    let size = *(p as *const u32);
    (size as usize >= size_of::<T>()).then_some(r)
}

/// Read element `i` of a caller's descriptor array, whose stride is its
/// first element's `struct_size`.
pub(crate) unsafe fn element<T: Copy>(base: *const T, i: usize) -> Option<T> {
    let stride = *(base as *const u32) as usize;
    if stride < size_of::<T>() || stride % std::mem::align_of::<T>() != 0 {
        return None;
    }
    Some(*((base as *const u8).add(i * stride) as *const T))
}
