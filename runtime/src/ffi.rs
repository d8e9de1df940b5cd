//! The C ABI over any catalog: the bodies of the functions a catalog's
//! header declares (`PREFIX_capability`, ...), each taking the
//! [`CCatalog`] it serves. [`c_abi!`](crate::c_abi) exports them under the
//! catalog's prefix from the crate that holds its tables. Each one checks
//! its pointers and `struct_size`s, never unwinds (a panic becomes the
//! catalog's `internal` status), never allocates on the success path of
//! call validation, and hands out records of the C tables compiled from the
//! catalog's own header (`codegen/c/shim.c`). The argument and result
//! records are generated from the header's field lists (`emit::layout` of
//! kfam-codegen), so record layout has one authority.

use std::ffi::{c_char, CStr};
use std::mem::size_of;
use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::call::{ScalarValue, TensorArg};
use crate::types::Family;
use crate::vocab::{
    Admission, CallRule, Capability, Contract, DType, ScalarValueKind, Status, StorageFormat,
};

pub use crate::ffi_context::{
    context_close, context_free, context_generation, context_init, context_init_generation,
    context_launch, context_new, context_new_with, context_prepare, context_supported, KfamContext,
    LaunchFn,
};
pub use crate::ffi_message::{
    admit_message, capability_message, check_catalog, check_pairing, validate_call_message,
};

use crate::ffi_catalog::index_of;
pub use crate::ffi_catalog::{CCatalog, Opaque, Shim};

// The argument and result records (`ArtifactMatch`, `CapabilityResult`,
// `AdmissionResult`, `CTensorArg`, `CScalarValue`, `CScalarArg`,
// `CCallError`, `CContextOptions`): printed by the generator from the field lists of the
// header's structs, with const assertions of the size and offsets the
// header asserts too.
include!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/generated/rust/ffi_records.rs"
));

/// `sizeof(kfam_call_error)` before the symbol fields were appended.
const CALL_ERROR_1_0: u32 = std::mem::offset_of!(CCallError, symbol_index) as u32;

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

fn is_digest(s: &str) -> bool {
    s.len() == 64
        && s.bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// An out-struct the caller sized for at least the current layout.
unsafe fn out_struct<'a, T>(p: *mut T) -> Option<&'a mut T> {
    let r = p.as_mut()?;
    // Every result struct starts with `uint32_t struct_size`.
    let size = *(p as *const u32);
    (size as usize >= size_of::<T>()).then_some(r)
}

/// # Safety
/// Pointers follow the contract of the declaration in `kfam.h`: NULL or
/// valid for the sizes the caller states.
pub unsafe fn library_table(c: &CCatalog, out: *mut *const Opaque) -> i32 {
    guard(c, || match out.as_mut() {
        Some(out) => {
            *out = (c.shim.table)();
            c.ok()
        }
        None => c.invalid(),
    })
}

/// # Safety
/// Pointers follow the contract of the declaration in `kfam.h`: NULL or
/// valid for the sizes the caller states.
pub unsafe fn find_family(c: &CCatalog, name: *const c_char, out: *mut *const Opaque) -> i32 {
    guard(c, || {
        let (Some(name), Some(out)) = (c_str(name), out.as_mut()) else {
            return c.invalid();
        };
        match c.catalog.find(name) {
            Some(f) => {
                *out = c.family(c.family_index(f));
                c.ok()
            }
            None => {
                *out = std::ptr::null();
                c.code(Status::NotFound)
            }
        }
    })
}

/// # Safety
/// Pointers follow the contract of the declaration in `kfam.h`: NULL or
/// valid for the sizes the caller states.
pub unsafe fn find_artifact(c: &CCatalog, sha256: *const c_char, out: *mut ArtifactMatch) -> i32 {
    guard(c, || {
        let (Some(sha), Some(out)) = (c_str(sha256), out_struct(out)) else {
            return c.invalid();
        };
        if !is_digest(sha) {
            return c.invalid();
        }
        let Some((f, p, r)) = c.catalog.find_artifact(sha) else {
            return c.code(Status::NotFound);
        };
        let (fi, pi, ri) = (
            c.family_index(f),
            index_of(f.profiles, p),
            index_of(f.receipts, r),
        );
        out.family_index = fi as u32;
        out.profile_index = pi as u32;
        out.receipt_index = ri as u32;
        out.family = c.family(fi);
        out.profile = c.profile(fi, pi);
        out.receipt = c.receipt(fi, ri);
        c.ok()
    })
}

/// The status a capability outcome is reported with (see docs/conformance.md).
pub fn capability_status(c: Capability) -> Status {
    c.status()
}

/// The status an admission outcome is reported with.
pub fn admission_status(a: Admission) -> Status {
    a.status()
}

/// # Safety
/// Pointers follow the contract of the declaration in `kfam.h`: NULL or
/// valid for the sizes the caller states.
pub unsafe fn capability(
    c: &CCatalog,
    family: *const c_char,
    platform: i32,
    mode: i32,
    contract: i32,
    out: *mut CapabilityResult,
) -> i32 {
    guard(c, || {
        let Some(out) = out_struct(out) else {
            return c.invalid();
        };
        // Every field is written before anything can refuse the call, so
        // the result never holds stale or uninitialised data.
        *out = CapabilityResult {
            struct_size: out.struct_size,
            outcome: Capability::InvalidCall.code(),
            family_index: 0,
            profile_index: 0,
            receipt_index: 0,
            family: std::ptr::null(),
            profile: std::ptr::null(),
            receipt: std::ptr::null(),
        };
        let (Some(name), Some(platform), Some(mode), Some(contract)) = (
            c_str(family),
            c.catalog.targets.platform_by_code(platform),
            c.catalog.targets.execution_mode_by_code(mode),
            Contract::from_code(contract),
        ) else {
            return c.invalid();
        };
        if let Some(f) = c.catalog.find(name) {
            out.family_index = c.family_index(f) as u32;
            out.family = c.family(c.family_index(f));
        }
        let outcome = match c.catalog.capability(name, platform, mode, contract) {
            Ok(s) => {
                let fi = c.family_index(s.family);
                let (pi, ri) = (
                    index_of(s.family.profiles, s.profile),
                    index_of(s.family.receipts, s.receipt),
                );
                out.profile_index = pi as u32;
                out.receipt_index = ri as u32;
                out.profile = c.profile(fi, pi);
                out.receipt = c.receipt(fi, ri);
                Capability::Supported
            }
            Err(refusal) => refusal.outcome,
        };
        out.outcome = outcome.code();
        c.code(capability_status(outcome))
    })
}

/// NUL-terminated spellings of the fields admission may name.
fn field_c_str(field: &str) -> *const c_char {
    let s: &'static CStr = match field {
        "revision" => c"revision",
        "contract" => c"contract",
        "params" => c"params",
        "lowered_params" => c"lowered_params",
        "return_count" => c"return_count",
        "return_aliases" => c"return_aliases",
        "platform" => c"platform",
        "backend" => c"backend",
        "runtime" => c"runtime",
        "execution_mode" => c"execution_mode",
        "artifact.sha256" => c"artifact.sha256",
        "artifact.path" => c"artifact.path",
        _ => c"unknown",
    };
    s.as_ptr()
}

/// # Safety
/// Pointers follow the contract of the declaration in `kfam.h`: NULL or
/// valid for the sizes the caller states.
pub unsafe fn admit(
    c: &CCatalog,
    json: *const c_char,
    len: usize,
    sha256: *const c_char,
    out: *mut AdmissionResult,
) -> i32 {
    guard(c, || {
        let Some(out) = out_struct(out) else {
            return c.invalid();
        };
        // Every field is written before anything can refuse the call.
        *out = AdmissionResult {
            struct_size: out.struct_size,
            outcome: Admission::InvalidCall.code(),
            contract: -1,
            family_index: 0,
            profile_index: 0,
            receipt_index: 0,
            family: std::ptr::null(),
            profile: std::ptr::null(),
            receipt: std::ptr::null(),
            field: std::ptr::null(),
        };
        // A digest that is not 64 lowercase hex digits is refused by `admit`.
        let (Some(sha), false) = (c_str(sha256), json.is_null() && len > 0) else {
            return c.invalid();
        };
        let bytes = if len == 0 {
            &[][..]
        } else {
            std::slice::from_raw_parts(json as *const u8, len)
        };
        let outcome = match c.catalog.admit(bytes, sha) {
            Ok(a) => {
                let fi = c.family_index(a.family);
                let (pi, ri) = (
                    index_of(a.family.profiles, a.profile),
                    index_of(a.family.receipts, a.receipt),
                );
                out.family_index = fi as u32;
                out.profile_index = pi as u32;
                out.receipt_index = ri as u32;
                out.family = c.family(fi);
                out.profile = c.profile(fi, pi);
                out.receipt = c.receipt(fi, ri);
                out.contract = a.contract.code();
                Admission::Admitted
            }
            Err(refused) => {
                if let Some(field) = refused.field {
                    out.field = field_c_str(field);
                }
                refused.outcome
            }
        };
        out.outcome = outcome.code();
        c.code(admission_status(outcome))
    })
}

/// # Safety
/// Pointers follow the contract of the declaration in `kfam.h`: NULL or
/// valid for the sizes the caller states.
pub unsafe fn torch_schema(c: &CCatalog, family: *const c_char, out: *mut *const c_char) -> i32 {
    guard(c, || {
        let (Some(name), Some(out)) = (c_str(family), out.as_mut()) else {
            return c.invalid();
        };
        *out = std::ptr::null();
        let Some(f) = c.catalog.find(name) else {
            return c.code(Status::NotFound);
        };
        if !f.torch || f.torch_schema.is_none() {
            return c.code(Status::Unsupported);
        }
        *out = (c.shim.torch_schema)(c.family_index(f));
        c.ok()
    })
}

/// Descriptors a call may carry on the stack; longer calls are refused by
/// their family's argument count long before this (ABI limits are checked
/// against the tables, which hold at most `max_*_args`).
const STACK_ARGS: usize = 256;
/// Strides computed for descriptors that pass `strides = NULL`.
const MAX_STRIDES: usize = 8;

/// Read element `i` of a caller's descriptor array, whose stride is its
/// first element's `struct_size`.
pub(crate) unsafe fn element<T: Copy>(base: *const T, i: usize) -> Option<T> {
    let stride = *(base as *const u32) as usize;
    if stride < size_of::<T>() || stride % std::mem::align_of::<T>() != 0 {
        return None;
    }
    Some(*((base as *const u8).add(i * stride) as *const T))
}

/// # Safety
/// Pointers follow the contract of the declaration in `kfam.h`: NULL or
/// valid for the sizes the caller states.
pub unsafe fn validate_call(
    c: &CCatalog,
    family: *const Opaque,
    tensors: *const CTensorArg,
    n_tensors: usize,
    scalars: *const CScalarArg,
    n_scalars: usize,
    err: *mut CCallError,
) -> i32 {
    guard(c, || {
        // A caller built before the symbol fields passes the shorter struct: its
        // fields are written, the symbol fields are not. Only raw pointers
        // reach it, since a reference would claim the whole current struct.
        if !err.is_null() && (err as *const u32).read() < CALL_ERROR_1_0 {
            return c.invalid();
        }
        validate(c, family, tensors, n_tensors, scalars, n_scalars, err)
    })
}

/// The body of `kfam_validate_call`, with `err` resolved.
unsafe fn validate(
    c: &CCatalog,
    family: *const Opaque,
    tensors: *const CTensorArg,
    n_tensors: usize,
    scalars: *const CScalarArg,
    n_scalars: usize,
    err: *mut CCallError,
) -> i32 {
    let report = |rule: i32, param: i32, symbol: i32, other: i32, status: i32| {
        if !err.is_null() {
            let e = err;
            (&raw mut (*e).rule).write(rule);
            (&raw mut (*e).param_index).write(param);
            if (*e).struct_size as usize >= size_of::<CCallError>() {
                (&raw mut (*e).symbol_index).write(symbol);
                (&raw mut (*e).other_param_index).write(other);
            }
        }
        status
    };
    let index = |i: Option<u32>| i.map_or(-1, |i| i as i32);
    decode_call(
        c,
        family,
        tensors,
        n_tensors,
        scalars,
        n_scalars,
        |call| match call {
            Ok((f, args, values)) => match crate::validate_call(f, args, values) {
                Ok(()) => report(CallRule::Ok.code(), -1, -1, -1, c.ok()),
                Err(e) => report(
                    e.rule.code(),
                    index(e.param),
                    index(e.symbol),
                    index(e.other),
                    c.invalid(),
                ),
            },
            Err(u) => match u {
                Undecoded::TooMany(_) => report(CallRule::ArgCount.code(), -1, -1, -1, u.status(c)),
                // The call itself is refused: no rule was judged, and the rule
                // reads `invalid_call` (0), as a zeroed error the library could
                // not write does.
                _ => report(CallRule::InvalidCall.code(), -1, -1, -1, u.status(c)),
            },
        },
    )
}

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

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    use crate::catalog::Catalog;
    use crate::targets::Targets;
    use crate::types::Abi;

    /// A catalog of no family whose status codes are not kfam's.
    static CATALOG: Catalog = Catalog {
        name: "tiny",
        digest: "0000000000000000000000000000000000000000000000000000000000000000",
        abi: &Abi {
            revision: "0123456789abcdef0123456789abcdef01234567",
            major: 1,
            minor: 0,
            max_tensor_args: 4,
            max_scalar_args: 4,
            max_rank: 4,
            max_prepared: 4,
            status: [0, -1, -2, -3, -4, -5, -6, -7, -8],
        },
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
    };
    static C: CCatalog = CCatalog::new(&CATALOG, Shim::NONE);

    /// `internal` is what a panic inside an exported function returns, in
    /// the catalog's own code. No input produces one (the fuzz targets look
    /// for them), so the mapping is tested here, and
    /// `every_export_is_guarded` shows it covers every entry.
    #[test]
    fn a_panic_becomes_internal() {
        let quiet = std::panic::take_hook();
        std::panic::set_hook(Box::new(|_| {}));
        let got = guard(&C, || panic!("a defect"));
        std::panic::set_hook(quiet);
        assert_eq!(got, -1);
        assert_eq!(guard(&C, || C.ok()), 0);
    }

    /// Every status the C ABI returns is the catalog's code: an unknown
    /// family is this catalog's `not_found` (-6), not kfam's (-1005).
    #[test]
    fn statuses_are_the_catalogs() {
        let mut out: *const Opaque = std::ptr::null();
        let got = unsafe { find_family(&C, c"add".as_ptr(), &mut out) };
        assert_eq!(got, -6);
        let got = unsafe { find_family(&C, std::ptr::null(), &mut out) };
        assert_eq!(got, -5);
    }

    /// The number of functions of the C ABI (public, `unsafe`, taking the
    /// `&CCatalog` they serve first) in the Rust source `src`, asserting
    /// that each body is one `guard(...)` call, so no panic unwinds into C
    /// (which would be undefined behaviour).
    pub(crate) fn guarded_exports(src: &str) -> usize {
        let file: syn::File = syn::parse_str(src).expect("the source parses");
        let mut exports = 0;
        for item in &file.items {
            let syn::Item::Fn(f) = item else { continue };
            let serves = f
                .sig
                .inputs
                .first()
                .is_some_and(|a| matches!(a, syn::FnArg::Typed(t) if serves_catalog(&t.ty)));
            if !(matches!(f.vis, syn::Visibility::Public(_)) && f.sig.unsafety.is_some() && serves)
            {
                continue;
            }
            exports += 1;
            let guarded = match f.block.stmts.as_slice() {
                [syn::Stmt::Expr(syn::Expr::Call(call), None)] => {
                    matches!(&*call.func, syn::Expr::Path(p) if p.path.is_ident("guard"))
                }
                _ => false,
            };
            assert!(guarded, "`{}` is not one `guard(...)` call", f.sig.ident);
        }
        exports
    }

    /// `&CCatalog`.
    fn serves_catalog(ty: &syn::Type) -> bool {
        let syn::Type::Reference(r) = ty else {
            return false;
        };
        matches!(&*r.elem, syn::Type::Path(p) if p.path.is_ident("CCatalog"))
    }

    #[test]
    fn every_export_is_guarded() {
        let exports = guarded_exports(include_str!("ffi.rs"));
        assert_eq!(exports, 7, "ffi.rs has seven functions of the C ABI");
    }
}
