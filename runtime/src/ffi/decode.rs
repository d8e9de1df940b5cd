//! A C call's descriptors read into the Rust arguments `validate_call`
//! takes: `kfam_validate_call` and `kfam_validate_call_message` share it,
//! so both judge exactly the same arguments.

use super::boundary::{c_str, element};
use super::catalog::CCatalog;
use super::records::{CScalarArg, CTensorArg, Opaque};
use crate::call::{ScalarValue, TensorArg};
use crate::types::Family;
use crate::vocab::{DType, ScalarValueKind, Status, StorageFormat};

/// Descriptors a call may carry on the stack; longer calls are refused by
/// their family's argument count long before this (ABI limits are checked
/// against the tables, which hold at most `max_*_args`).
const STACK_ARGS: usize = 256;
/// Strides computed for descriptors that pass `strides = NULL`.
const MAX_STRIDES: usize = 8;

/// A C call that never reached the Rust rules: its descriptors could not be
/// read, or its family record is not one this library approves.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Undecoded<'a> {
    /// What is malformed, and the index of the descriptor (tensor or scalar)
    /// when one is at fault.
    Malformed(&'static str, Option<usize>),
    /// The record's name, which the library does not approve.
    NotFound(&'a str),
    /// The library's family of the record's name, and the record's identity.
    Incompatible(&'static Family, &'a str),
    /// More descriptors than any family takes: refused as `arg_count`.
    TooMany(&'static Family),
}

impl Undecoded<'_> {
    pub(crate) fn status(self, c: &CCatalog) -> i32 {
        match self {
            Undecoded::Malformed(..) | Undecoded::TooMany(_) => c.invalid(),
            Undecoded::NotFound(_) => c.code(Status::NotFound),
            Undecoded::Incompatible(..) => c.code(Status::PreparedIncompatible),
        }
    }
}

/// A decoded call: the family and the arguments as `validate_call` takes them.
pub(crate) type Decoded<'a> = (&'static Family, &'a [TensorArg<'a>], &'a [ScalarValue]);

/// Read a C call into Rust arguments and hand them (or why they could not be
/// read) to `k`: with small stack arrays for the usual few arguments (a
/// 40 KiB frame costs page probes on every call), the full ones otherwise.
/// `kfam_validate_call` and `kfam_validate_call_message` share it, so both
/// judge exactly the same arguments.
pub(crate) unsafe fn decode_call<R>(
    c: &CCatalog,
    family: *const Opaque,
    tensors: *const CTensorArg,
    n_tensors: usize,
    scalars: *const CScalarArg,
    n_scalars: usize,
    k: impl for<'a> FnOnce(Result<Decoded<'a>, Undecoded<'a>>) -> R,
) -> R {
    if n_tensors <= 16 && n_scalars <= 16 {
        decode_with::<16, R>(c, family, tensors, n_tensors, scalars, n_scalars, k)
    } else {
        decode_large(c, family, tensors, n_tensors, scalars, n_scalars, k)
    }
}

/// [`decode_with`] for long calls, in a frame of its own: inlined, its
/// 40 KiB of arrays would be probed on every call.
#[inline(never)]
unsafe fn decode_large<R>(
    c: &CCatalog,
    family: *const Opaque,
    tensors: *const CTensorArg,
    n_tensors: usize,
    scalars: *const CScalarArg,
    n_scalars: usize,
    k: impl for<'a> FnOnce(Result<Decoded<'a>, Undecoded<'a>>) -> R,
) -> R {
    decode_with::<STACK_ARGS, R>(c, family, tensors, n_tensors, scalars, n_scalars, k)
}

/// [`decode_call`] with room for `N` tensors and `N` scalars on the stack.
unsafe fn decode_with<const N: usize, R>(
    c: &CCatalog,
    family: *const Opaque,
    tensors: *const CTensorArg,
    n_tensors: usize,
    scalars: *const CScalarArg,
    n_scalars: usize,
    k: impl for<'a> FnOnce(Result<Decoded<'a>, Undecoded<'a>>) -> R,
) -> R {
    use std::mem::MaybeUninit;
    if family.is_null() {
        return k(Err(Undecoded::Malformed("the family record is NULL", None)));
    }
    if (tensors.is_null() && n_tensors > 0) || (scalars.is_null() && n_scalars > 0) {
        return k(Err(Undecoded::Malformed(
            "a NULL descriptor array with a nonzero count",
            None,
        )));
    }
    let f = match c.library_family(family) {
        // A record of the library's own table (what kfam_find_family hands
        // out): the family is known without reading its name.
        Some(f) => f,
        // A record of the caller's copy of the header's tables: by name, and
        // it must be the revision this library was built from.
        None => {
            let Some(name) = c_str((c.shim.record_name)(family)) else {
                return k(Err(Undecoded::Malformed(
                    "the family record has no UTF-8 name",
                    None,
                )));
            };
            let Some(f) = c.catalog.find(name) else {
                return k(Err(Undecoded::NotFound(name)));
            };
            let identity = c_str((c.shim.record_identity)(family));
            if identity != Some(f.identity) {
                return k(Err(Undecoded::Incompatible(f, identity.unwrap_or("?"))));
            }
            f
        }
    };
    if n_tensors > STACK_ARGS || n_scalars > STACK_ARGS {
        return k(Err(Undecoded::TooMany(f)));
    }
    // Uninitialised stack storage: only the first `n` entries are written
    // and read, so a call costs nothing for the capacity it does not use.
    let mut strides: [MaybeUninit<[i64; MAX_STRIDES]>; N] = [const { MaybeUninit::uninit() }; N];
    let mut args: [MaybeUninit<TensorArg<'_>>; N] = [const { MaybeUninit::uninit() }; N];
    for i in 0..n_tensors {
        let Some(d) = element(tensors, i) else {
            return k(Err(Undecoded::Malformed(
                "a tensor descriptor's struct_size is too small or misaligned",
                Some(i),
            )));
        };
        let (Some(dtype), Some(format)) = (
            DType::from_code(d.dtype),
            StorageFormat::from_code(d.format),
        ) else {
            return k(Err(Undecoded::Malformed(
                "a tensor descriptor has an unknown dtype or format code",
                Some(i),
            )));
        };
        let rank = d.rank as usize;
        if (rank > 0 && d.shape.is_null()) || (d.strides.is_null() && rank > MAX_STRIDES) {
            return k(Err(Undecoded::Malformed(
                "a tensor descriptor has a NULL shape, or NULL strides above rank 8",
                Some(i),
            )));
        }
        let shape: &[i64] = if rank == 0 {
            &[]
        } else {
            std::slice::from_raw_parts(d.shape, rank)
        };
        let st: &[i64] = if rank == 0 {
            &[]
        } else if !d.strides.is_null() {
            std::slice::from_raw_parts(d.strides, rank)
        } else {
            // NULL strides: contiguous row-major.
            let mut buf = [0i64; MAX_STRIDES];
            let mut acc = 1i64;
            for k in (0..rank).rev() {
                buf[k] = acc;
                acc = acc.saturating_mul(shape[k].max(1));
            }
            let written = strides[i].write(buf);
            // Reborrow with the frame's lifetime: `strides` outlives `args`.
            std::slice::from_raw_parts(written.as_ptr(), rank)
        };
        args[i].write(TensorArg {
            dtype,
            shape,
            strides: st,
            storage_offset: d.storage_offset,
            storage_bytes: d.storage_bytes,
            storage: d.storage,
            format,
            device_index: d.device_index,
        });
    }
    let mut values: [MaybeUninit<ScalarValue>; N] = [const { MaybeUninit::uninit() }; N];
    for (i, slot) in values.iter_mut().enumerate().take(n_scalars) {
        let Some(s) = element(scalars, i) else {
            return k(Err(Undecoded::Malformed(
                "a scalar descriptor's struct_size is too small or misaligned",
                Some(i),
            )));
        };
        let v = match ScalarValueKind::from_code(s.kind) {
            Some(ScalarValueKind::Bool) => ScalarValue::Bool(s.value.i64 != 0),
            Some(ScalarValueKind::Int) => ScalarValue::Int(s.value.i64),
            Some(ScalarValueKind::Uint) => ScalarValue::Uint(s.value.u64),
            Some(ScalarValueKind::Float) => ScalarValue::Float(s.value.f64),
            None => {
                return k(Err(Undecoded::Malformed(
                    "a scalar descriptor has an unknown kind code",
                    Some(i),
                )))
            }
        };
        slot.write(v);
    }
    // SAFETY: exactly the first `n_tensors` / `n_scalars` entries were written.
    let args = std::slice::from_raw_parts(args.as_ptr() as *const TensorArg<'_>, n_tensors);
    let values = std::slice::from_raw_parts(values.as_ptr() as *const ScalarValue, n_scalars);
    k(Ok((f, args, values)))
}
