//! The C ABI's message accessors: the decision of `kfam_admit`,
//! `kfam_validate_call` and `kfam_capability` again, put into the words the
//! Rust API uses (`Refused`, `CallError::explain`, `CapabilityRefused`).
//! The deciding functions build no message; a caller asks for one after a
//! refusal, so the fast paths stay free of formatting and allocation.
//!
//! Every accessor writes a NUL-terminated message into `buf` (at most `cap`
//! bytes, truncated at a character boundary; `buf` may be NULL when `cap` is
//! 0), its full length without the NUL into `*needed` (when not NULL), and
//! returns the status the deciding function returns.

// Each function takes its C signature's arguments and the catalog.
#![allow(clippy::too_many_arguments)]

use std::ffi::c_char;

use super::boundary::{c_str, guard};
use super::catalog::CCatalog;
use super::decisions::{admission_status, capability_status};
use super::decode::{decode_call, Undecoded};
use super::records::{CPairing, CScalarArg, CTensorArg, Opaque, RECORD_SIZES};
use crate::call::arg_count_text;
use crate::pairing::Pairing;
use crate::vocab::{Admission, Capability, Contract, Status};

/// Write `message` as the accessors promise; `false` when `buf` is NULL with
/// a nonzero `cap` (nothing is written then).
///
/// # Safety
/// `buf` is NULL or valid for `cap` bytes; `needed` is NULL or valid for a write.
pub unsafe fn write_message(
    message: &str,
    buf: *mut c_char,
    cap: usize,
    needed: *mut usize,
) -> bool {
    if buf.is_null() && cap > 0 {
        return false;
    }
    if let Some(needed) = needed.as_mut() {
        *needed = message.len();
    }
    if cap > 0 {
        // Truncated to `cap - 1` bytes at a character boundary, then NUL.
        let mut n = message.len().min(cap - 1);
        while !message.is_char_boundary(n) {
            n -= 1;
        }
        std::ptr::copy_nonoverlapping(message.as_ptr(), buf as *mut u8, n);
        *buf.add(n) = 0;
    }
    true
}

/// `status` once `message` is written, `INVALID_ARGUMENT` when it cannot be.
unsafe fn answer(
    c: &CCatalog,
    message: &str,
    status: i32,
    buf: *mut c_char,
    cap: usize,
    needed: *mut usize,
) -> i32 {
    if write_message(message, buf, cap, needed) {
        status
    } else {
        c.invalid()
    }
}

/// # Safety
/// Pointers follow the contract of the declaration in `kfam.h`: NULL or
/// valid for the sizes the caller states (`buf` for `cap` bytes).
pub unsafe fn admit_message(
    c: &CCatalog,
    json: *const c_char,
    len: usize,
    sha256_hex: *const c_char,
    buf: *mut c_char,
    cap: usize,
    needed: *mut usize,
) -> i32 {
    guard(c, || {
        let (Some(sha), false, false) = (
            c_str(sha256_hex),
            json.is_null() && len > 0,
            buf.is_null() && cap > 0,
        ) else {
            return c.invalid();
        };
        let bytes = if len == 0 {
            &[][..]
        } else {
            std::slice::from_raw_parts(json as *const u8, len)
        };
        // The same decision as `kfam_admit`, put into words only here.
        let (message, outcome) = match c.catalog.admit(bytes, sha) {
            Ok(a) => (a.to_string(), Admission::Admitted),
            Err(refused) => (refused.to_string(), refused.outcome),
        };
        answer(
            c,
            &message,
            c.code(admission_status(outcome)),
            buf,
            cap,
            needed,
        )
    })
}

/// # Safety
/// Pointers follow the contract of the declaration in `kfam.h`: NULL or
/// valid for the sizes the caller states (`buf` for `cap` bytes).
pub unsafe fn validate_call_message(
    c: &CCatalog,
    family: *const Opaque,
    tensors: *const CTensorArg,
    n_tensors: usize,
    scalars: *const CScalarArg,
    n_scalars: usize,
    buf: *mut c_char,
    cap: usize,
    needed: *mut usize,
) -> i32 {
    guard(c, || {
        if buf.is_null() && cap > 0 {
            return c.invalid();
        }
        // The same decoding and decision as `kfam_validate_call`.
        let (message, status) = decode_call(
            c,
            family,
            tensors,
            n_tensors,
            scalars,
            n_scalars,
            |call| match call {
                Ok((f, args, values)) => match crate::validate_call(f, args, values) {
                    Ok(()) => ("ok".to_owned(), c.ok()),
                    Err(e) => (e.explain(f, args, values), c.invalid()),
                },
                Err(u) => (undecoded_text(u, n_tensors, n_scalars), u.status(c)),
            },
        );
        answer(c, &message, status, buf, cap, needed)
    })
}

/// Why a C call never reached the rules, in words.
fn undecoded_text(u: Undecoded<'_>, n_tensors: usize, n_scalars: usize) -> String {
    match u {
        Undecoded::Malformed(what, None) => format!("malformed call: {what}"),
        Undecoded::Malformed(what, Some(i)) => {
            format!("malformed call: {what} (descriptor {i})")
        }
        Undecoded::NotFound(name) => format!("not_found: no approved family `{name}`"),
        Undecoded::Incompatible(f, identity) => format!(
            "prepared_incompatible: the record of `{}` has identity {identity}, \
             this library approves {} (another revision of the manifest)",
            f.name, f.identity
        ),
        Undecoded::TooMany(f) => arg_count_text(f, n_tensors, n_scalars),
    }
}

/// # Safety
/// Pointers follow the contract of the declaration in `kfam.h`: NULL or
/// valid for the sizes the caller states (`buf` for `cap` bytes).
pub unsafe fn capability_message(
    c: &CCatalog,
    family: *const c_char,
    platform: i32,
    mode: i32,
    contract: i32,
    buf: *mut c_char,
    cap: usize,
    needed: *mut usize,
) -> i32 {
    guard(c, || {
        let (Some(name), Some(platform), Some(mode), Some(contract)) = (
            c_str(family),
            c.catalog.targets.platform_by_code(platform),
            c.catalog.targets.execution_mode_by_code(mode),
            Contract::from_code(contract),
        ) else {
            let message = format!(
                "{}: a NULL or non-UTF-8 family name, or an unknown platform ({platform}), \
                 execution mode ({mode}) or contract ({contract}) code",
                Capability::InvalidCall
            );
            return answer(c, &message, c.invalid(), buf, cap, needed);
        };
        // The same decision as `kfam_capability`, put into words only here.
        let (message, outcome) = match c.catalog.capability(name, platform, mode, contract) {
            Ok(s) => (s.to_string(), Capability::Supported),
            Err(refused) => (refused.to_string(), refused.outcome),
        };
        answer(
            c,
            &message,
            c.code(capability_status(outcome)),
            buf,
            cap,
            needed,
        )
    })
}

/// # Safety
/// Pointers follow the contract of the declaration in the catalog's
/// header: NULL or valid for the sizes the caller states (`buf` for `cap`
/// bytes).
pub unsafe fn check_catalog(
    c: &CCatalog,
    name: *const c_char,
    digest: *const c_char,
    buf: *mut c_char,
    cap: usize,
    needed: *mut usize,
) -> i32 {
    guard(c, || {
        let (Some(name), Some(digest), false) =
            (c_str(name), c_str(digest), buf.is_null() && cap > 0)
        else {
            return c.invalid();
        };
        let ours = c.catalog;
        if digest == ours.digest {
            let message = format!("ok: the library serves catalog `{name}`");
            return answer(c, &message, c.ok(), buf, cap, needed);
        }
        let (theirs, mine) = crate::pairing::distinct_prefixes(digest, ours.digest);
        let message = format!(
            "prepared_incompatible: the program was compiled with the header of catalog `{name}` \
             (digest {theirs}), but this library serves catalog `{}` (digest {mine}): build both \
             from the same manifest, or link the library of `{name}`",
            ours.name,
        );
        answer(
            c,
            &message,
            c.code(Status::PreparedIncompatible),
            buf,
            cap,
            needed,
        )
    })
}

/// # Safety
/// Pointers follow the contract of the declaration in the catalog's
/// header: `header` NULL or valid for its `struct_size`, its arrays for
/// their counts; `buf` for `cap` bytes.
pub unsafe fn check_pairing(
    c: &CCatalog,
    header: *const CPairing,
    buf: *mut c_char,
    cap: usize,
    needed: *mut usize,
) -> i32 {
    guard(c, || {
        // Read struct_size alone first: a short record is not read past it.
        if header.is_null()
            || ((header as *const u32).read() as usize) < size_of::<CPairing>()
            || (buf.is_null() && cap > 0)
        {
            return c.invalid();
        }
        let h = *header;
        let (
            Some(name),
            Some(digest),
            Some(families),
            Some(targets),
            Some(status),
            Some(record_sizes),
        ) = (
            c_str(h.name),
            c_str(h.digest),
            c_str(h.families),
            c_str(h.targets),
            slice(h.status, h.status_count),
            slice(h.record_sizes, h.record_count),
        )
        else {
            return c.invalid();
        };
        let pairing = Pairing {
            name,
            digest,
            abi_major: h.abi_major,
            families,
            approval: h.approval,
            limits: [
                h.max_tensor_args,
                h.max_scalar_args,
                h.max_rank,
                h.max_prepared,
            ],
            status,
            record_sizes,
            targets,
        };
        let (message, status) = match c.catalog.pair(&pairing, RECORD_SIZES) {
            Ok(()) => (
                format!(
                    "ok: the library pairs with the header of catalog `{name}` (approval {})",
                    h.approval
                ),
                c.ok(),
            ),
            Err(m) => (
                format!("prepared_incompatible: {m}"),
                c.code(Status::PreparedIncompatible),
            ),
        };
        answer(c, &message, status, buf, cap, needed)
    })
}

/// `n` elements at `p`, or none when `p` is NULL with a nonzero count.
unsafe fn slice<'a, T>(p: *const T, n: u32) -> Option<&'a [T]> {
    match (p.is_null(), n) {
        (_, 0) => Some(&[]),
        (true, _) => None,
        (false, n) => Some(std::slice::from_raw_parts(p, n as usize)),
    }
}
