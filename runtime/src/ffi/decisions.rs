//! The deciding functions of the C ABI (`PREFIX_find_family`,
//! `PREFIX_capability`, `PREFIX_admit`, `PREFIX_validate_call`, ...): each
//! takes the [`CCatalog`] it serves, checks its pointers and `struct_size`s,
//! never unwinds (a panic becomes the catalog's `internal` status), never
//! allocates on the success path of call validation, and hands out records
//! of the C tables compiled from the catalog's own header
//! (`codegen/c/shim.c`).

use std::ffi::{c_char, CStr};

use super::boundary::{c_str, guard, out_struct};
use super::catalog::{index_of, CCatalog};
use super::decode::{decode_call, Undecoded};
use super::records::{
    AdmissionResult, ArtifactMatch, CCallError, CScalarArg, CTensorArg, CapabilityResult, Opaque,
};
use crate::vocab::{Admission, CallRule, Capability, Contract, Status};

/// `sizeof(kfam_call_error)` before the symbol fields were appended.
const CALL_ERROR_1_0: u32 = std::mem::offset_of!(CCallError, symbol_index) as u32;

fn is_digest(s: &str) -> bool {
    s.len() == 64
        && s.bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
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
pub unsafe fn find_artifact(
    c: &CCatalog,
    sha256_hex: *const c_char,
    out: *mut ArtifactMatch,
) -> i32 {
    guard(c, || {
        let (Some(sha), Some(out)) = (c_str(sha256_hex), out_struct(out)) else {
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
    sha256_hex: *const c_char,
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
        let (Some(sha), false) = (c_str(sha256_hex), json.is_null() && len > 0) else {
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
