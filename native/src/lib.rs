//! libkfamrt: kfam's native runtime, built once and shipped prebuilt (in
//! the `kfam-cli` wheel), for every catalog. It holds no catalog: each
//! function takes the descriptor of the catalog it serves (`kfamrt_catalog`
//! of `codegen/c/kfamrt.h`), which the catalog's generated C unit defines
//! with the catalog's description embedded, and whose functions
//! (`PREFIX_capability`, ...) are each one call of the function of the
//! same name here. The decisions are `kfam_runtime::ffi`'s, the same code
//! every catalog's Rust-built library runs (docs/description.md).
//!
//! The first call opens the descriptor ([`descriptor::opened`]); a
//! descriptor that cannot be opened answers every call with the catalog's
//! `PREPARED_INCOMPATIBLE` status, and the message functions say why.

// Each export takes its C signature's arguments and the descriptor.
#![allow(clippy::too_many_arguments, clippy::missing_safety_doc)]

pub mod descriptor;

use std::ffi::{c_char, c_void};

use descriptor::{code, opened, Descriptor, Opened};
use kfam_runtime::ffi::write_message;
use kfam_runtime::ffi::{
    self, AdmissionResult, ArtifactMatch, CCallError, CCatalog, CContextOptions, CPairing,
    CScalarArg, CTensorArg, CapabilityResult, KfamContext, LaunchFn, Opaque,
};
use kfam_runtime::Status;

/// What a call returns when it passes no descriptor at all (a generated
/// unit never does): no catalog's status codes are known then.
pub const NO_CATALOG: i32 = i32::MIN;

/// `kfamrt_version`: this runtime's version, NUL-terminated.
#[unsafe(no_mangle)]
pub extern "C" fn kfamrt_version() -> *const c_char {
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast()
}

/// The launcher as the descriptor's functions pass it (`kfamrt_fn`).
pub type AnyFn = unsafe extern "C" fn();

/// The catalog's launcher, from the `kfamrt_fn` the unit cast it to.
fn launcher(f: Option<AnyFn>) -> Option<LaunchFn> {
    // SAFETY: the unit casts the catalog's `PREFIX_launch_fn`, whose C
    // signature is `LaunchFn`'s, to `kfamrt_fn`; this casts it back.
    f.map(|f| unsafe { std::mem::transmute::<AnyFn, LaunchFn>(f) })
}

/// How a refused catalog answers a call.
enum Refusal<'a> {
    /// The call runs over the empty catalog, which decides nothing (no
    /// family, no target), so its out-records read as a refused call's;
    /// the status is `PREPARED_INCOMPATIBLE`.
    Empty,
    /// As `Empty`, with this call instead.
    Run(&'a dyn Fn(&CCatalog) -> i32),
    /// A message function: the refusal, in words.
    Message(*mut c_char, usize, *mut usize),
    /// A constructor: `*out` is NULL.
    Creates(*mut *mut KfamContext),
    /// A call on a context, which no refused catalog makes.
    Context,
}

/// The exports: `kfamrt_NAME(descriptor, args...)`, each `ffi::NAME` over
/// the descriptor's catalog.
macro_rules! exports {
    ($(
        $name:ident($($arg:ident: $ty:ty),* $(,)?) [$refusal:expr] => $call:expr;
    )*) => {$(
        /// # Safety
        /// As the catalog header's declaration of the same function; `d` is
        /// the unit's descriptor.
        #[unsafe(export_name = concat!("kfamrt_", stringify!($name)))]
        pub unsafe extern "C" fn $name(d: *mut Descriptor, $($arg: $ty),*) -> i32 {
            let Some(o) = opened(d) else {
                return NO_CATALOG;
            };
            match o {
                Opened::Ready(c) => $call(c),
                Opened::Refused { empty, message } => {
                    let incompatible = code(d, Status::PreparedIncompatible);
                    match $refusal {
                        Refusal::Empty => {
                            $call(empty);
                            incompatible
                        }
                        Refusal::Run(call) => {
                            call(empty);
                            incompatible
                        }
                        Refusal::Message(buf, cap, needed) => {
                            if write_message(message, buf, cap, needed) {
                                incompatible
                            } else {
                                code(d, Status::InvalidArgument)
                            }
                        }
                        Refusal::Creates(out) => {
                            if let Some(out) = out.as_mut() {
                                *out = std::ptr::null_mut();
                            }
                            incompatible
                        }
                        Refusal::Context => incompatible,
                    }
                }
            }
        }
    )*};
}

exports! {
    library_table(out: *mut *const Opaque) [Refusal::Empty]
        => |c| ffi::library_table(c, out);
    check_catalog(name: *const c_char, digest: *const c_char, buf: *mut c_char, cap: usize,
        needed: *mut usize) [Refusal::Message(buf, cap, needed)]
        => |c| ffi::check_catalog(c, name, digest, buf, cap, needed);
    check_pairing(header: *const CPairing, buf: *mut c_char, cap: usize, needed: *mut usize)
        [Refusal::Message(buf, cap, needed)]
        => |c| ffi::check_pairing(c, header, buf, cap, needed);
    find_family(name: *const c_char, out: *mut *const Opaque) [Refusal::Empty]
        => |c| ffi::find_family(c, name, out);
    find_artifact(sha256_hex: *const c_char, out: *mut ArtifactMatch) [Refusal::Empty]
        => |c| ffi::find_artifact(c, sha256_hex, out);
    capability(family: *const c_char, platform: i32, mode: i32, contract: i32,
        out: *mut CapabilityResult) [Refusal::Empty]
        => |c| ffi::capability(c, family, platform, mode, contract, out);
    capability_message(family: *const c_char, platform: i32, mode: i32, contract: i32,
        buf: *mut c_char, cap: usize, needed: *mut usize) [Refusal::Message(buf, cap, needed)]
        => |c| ffi::capability_message(c, family, platform, mode, contract, buf, cap, needed);
    // Without a digest, admission refuses the call before reading the
    // document: its result reads `invalid_call`, as a refused call's.
    admit(json: *const c_char, len: usize, sha256_hex: *const c_char, out: *mut AdmissionResult)
        [Refusal::Run(&|c| ffi::admit(c, json, len, std::ptr::null(), out))]
        => |c| ffi::admit(c, json, len, sha256_hex, out);
    admit_message(json: *const c_char, len: usize, sha256_hex: *const c_char, buf: *mut c_char,
        cap: usize, needed: *mut usize) [Refusal::Message(buf, cap, needed)]
        => |c| ffi::admit_message(c, json, len, sha256_hex, buf, cap, needed);
    torch_schema(family: *const c_char, out: *mut *const c_char) [Refusal::Empty]
        => |c| ffi::torch_schema(c, family, out);
    validate_call(family: *const Opaque, tensors: *const CTensorArg, n_tensors: usize,
        scalars: *const CScalarArg, n_scalars: usize, err: *mut CCallError) [Refusal::Empty]
        => |c| ffi::validate_call(c, family, tensors, n_tensors, scalars, n_scalars, err);
    validate_call_message(family: *const Opaque, tensors: *const CTensorArg, n_tensors: usize,
        scalars: *const CScalarArg, n_scalars: usize, buf: *mut c_char, cap: usize,
        needed: *mut usize) [Refusal::Message(buf, cap, needed)]
        => |c| ffi::validate_call_message(c, family, tensors, n_tensors, scalars, n_scalars, buf,
            cap, needed);
    context_new(out: *mut *mut KfamContext) [Refusal::Creates(out)]
        => |c| ffi::context_new(c, out);
    context_new_with(options: *const CContextOptions, out: *mut *mut KfamContext)
        [Refusal::Creates(out)]
        => |c| ffi::context_new_with(c, options, out);
    context_init(ctx: *mut KfamContext, platform: i32, execution_mode: i32, contract: i32,
        generation: u64, launch: Option<AnyFn>, user: *mut c_void) [Refusal::Context]
        => |c| ffi::context_init(c, ctx, platform, execution_mode, contract, generation,
            launcher(launch), user);
    context_init_generation(ctx: *mut KfamContext, platform: i32, execution_mode: i32,
        contract: i32, generation: u64, launch: Option<AnyFn>, user: *mut c_void)
        [Refusal::Context]
        => |c| ffi::context_init_generation(c, ctx, platform, execution_mode, contract,
            generation, launcher(launch), user);
    context_generation(ctx: *mut KfamContext, out: *mut u64) [Refusal::Context]
        => |c| ffi::context_generation(c, ctx, out);
    context_supported(ctx: *mut KfamContext, family: *const c_char) [Refusal::Context]
        => |c| ffi::context_supported(c, ctx, family);
    context_prepare(ctx: *mut KfamContext, compiled_meta: *const c_char, len: usize,
        sha256: *const c_char, callable: *mut u64) [Refusal::Context]
        => |c| ffi::context_prepare(c, ctx, compiled_meta, len, sha256, callable);
    context_launch(ctx: *mut KfamContext, callable: u64, tensors: *const CTensorArg,
        n_tensors: usize, scalars: *const CScalarArg, n_scalars: usize, stream: u64)
        [Refusal::Context]
        => |c| ffi::context_launch(c, ctx, callable, tensors, n_tensors, scalars, n_scalars,
            stream);
    context_close(ctx: *mut KfamContext) [Refusal::Context]
        => |c| ffi::context_close(c, ctx);
    context_free(ctx: *mut KfamContext) [Refusal::Context]
        => |c| ffi::context_free(c, ctx);
}
