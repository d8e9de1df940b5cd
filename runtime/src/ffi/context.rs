//! The kernel context through the C ABI (`PREFIX_context_*` in a catalog's
//! header): an opaque handle over [`Context`] on the catalog, with the
//! embedding runtime's launcher as a function pointer and a user pointer.

// Each function takes its C signature's arguments and the catalog.
#![allow(clippy::too_many_arguments)]

use std::ffi::{c_char, c_void};
use std::sync::Arc;

use super::boundary::{c_str, element, guard};
use super::catalog::CCatalog;
use super::records::{CContextOptions, CScalarArg, CScalarValue, CTensorArg};
use crate::context::{Context, Launch, Launcher};
use crate::vocab::{Contract, DType, ScalarValueKind, StorageFormat};
use crate::{OwnedTensorArg, ScalarValue, TensorArg};

/// `kfam_launch_fn`.
pub type LaunchFn = unsafe extern "C" fn(
    user: *mut c_void,
    callable: u64,
    generation: u64,
    tensors: *const CTensorArg,
    n_tensors: usize,
    scalars: *const CScalarArg,
    n_scalars: usize,
    stream: u64,
) -> i32;

/// `kfam_context`: opaque to C.
pub struct KfamContext(Context);

struct CLauncher {
    launch: LaunchFn,
    user: *mut c_void,
}

// The embedding runtime promises (kfam.h) that its launcher may be called
// from any thread that calls kfam_context_launch.
unsafe impl Send for CLauncher {}
unsafe impl Sync for CLauncher {}

impl Launcher for CLauncher {
    fn launch(&self, call: &Launch<'_>) -> i32 {
        let tensors: Vec<CTensorArg> = call
            .tensors
            .iter()
            .map(|t| CTensorArg {
                struct_size: size_of::<CTensorArg>() as u32,
                dtype: t.dtype.code(),
                format: t.format.code(),
                rank: t.shape.len() as u32,
                shape: t.shape.as_ptr(),
                strides: t.strides.as_ptr(),
                storage_offset: t.storage_offset,
                storage_bytes: t.storage_bytes,
                storage: t.storage,
                device_index: t.device_index,
            })
            .collect();
        let scalars: Vec<CScalarArg> = call
            .scalars
            .iter()
            .map(|s| CScalarArg {
                struct_size: size_of::<CScalarArg>() as u32,
                kind: s.kind().code(),
                value: match *s {
                    ScalarValue::Bool(b) => CScalarValue { i64: b as i64 },
                    ScalarValue::Int(i) => CScalarValue { i64: i },
                    ScalarValue::Uint(u) => CScalarValue { u64: u },
                    ScalarValue::Float(f) => CScalarValue { f64: f },
                },
            })
            .collect();
        unsafe {
            (self.launch)(
                self.user,
                call.callable,
                call.generation,
                tensors.as_ptr(),
                tensors.len(),
                scalars.as_ptr(),
                scalars.len(),
                call.stream,
            )
        }
    }
}

unsafe fn context_of<'a>(p: *mut KfamContext) -> Option<&'a Context> {
    p.as_ref().map(|c| &c.0)
}

/// # Safety
/// `out` is NULL or valid for a write.
pub unsafe fn context_new(c: &CCatalog, out: *mut *mut KfamContext) -> i32 {
    guard(c, || {
        let Some(out) = out.as_mut() else {
            return c.invalid();
        };
        *out = Box::into_raw(Box::new(KfamContext(Context::new(c.catalog))));
        c.ok()
    })
}

/// # Safety
/// `options` is NULL or valid for `options->struct_size` bytes; `out` is
/// NULL or valid for a write.
pub unsafe fn context_new_with(
    c: &CCatalog,
    options: *const CContextOptions,
    out: *mut *mut KfamContext,
) -> i32 {
    guard(c, || {
        let Some(out) = out.as_mut() else {
            return c.invalid();
        };
        // Read struct_size alone first: a short struct is not read past it.
        if options.is_null() || (*(options as *const u32) as usize) < size_of::<CContextOptions>() {
            return c.invalid();
        }
        let o = *options;
        let limit = match o.max_prepared {
            0 => c.catalog.abi.max_prepared,
            n => n,
        };
        *out = Box::into_raw(Box::new(KfamContext(Context::with_limit(
            c.catalog,
            limit as usize,
        ))));
        c.ok()
    })
}

/// `kfam_context_init` and `kfam_context_init_generation`: `generation`
/// `None` takes the process-wide counter.
unsafe fn init(
    c: &CCatalog,
    ctx: *mut KfamContext,
    platform: i32,
    execution_mode: i32,
    contract: i32,
    generation: Option<u64>,
    launch: Option<LaunchFn>,
    user: *mut c_void,
) -> i32 {
    guard(c, || {
        let (Some(cx), Some(p), Some(m), Some(k), Some(launch)) = (
            context_of(ctx),
            c.catalog.targets.platform_by_code(platform),
            c.catalog.targets.execution_mode_by_code(execution_mode),
            Contract::from_code(contract),
            launch,
        ) else {
            return c.invalid();
        };
        let launcher = Arc::new(CLauncher { launch, user });
        match cx.init(p, m, k, launcher, generation) {
            Ok(_) => c.ok(),
            Err(r) => c.code(r.status),
        }
    })
}

/// # Safety
/// `ctx` is NULL or from `kfam_context_new` and not freed.
pub unsafe fn context_init(
    c: &CCatalog,
    ctx: *mut KfamContext,
    platform: i32,
    execution_mode: i32,
    contract: i32,
    generation: u64,
    launch: Option<LaunchFn>,
    user: *mut c_void,
) -> i32 {
    // 0 takes the process-wide counter.
    let generation = (generation != 0).then_some(generation);
    init(
        c,
        ctx,
        platform,
        execution_mode,
        contract,
        generation,
        launch,
        user,
    )
}

/// # Safety
/// As `kfam_context_init`.
pub unsafe fn context_init_generation(
    c: &CCatalog,
    ctx: *mut KfamContext,
    platform: i32,
    execution_mode: i32,
    contract: i32,
    generation: u64,
    launch: Option<LaunchFn>,
    user: *mut c_void,
) -> i32 {
    // The caller's own number: 0 is refused by `Context::init`.
    init(
        c,
        ctx,
        platform,
        execution_mode,
        contract,
        Some(generation),
        launch,
        user,
    )
}

/// # Safety
/// As `kfam_context_init`; `out` NULL or valid for a write.
pub unsafe fn context_generation(c: &CCatalog, ctx: *mut KfamContext, out: *mut u64) -> i32 {
    guard(c, || {
        let (Some(cx), Some(out)) = (context_of(ctx), out.as_mut()) else {
            return c.invalid();
        };
        match cx.latched() {
            Ok(id) => {
                *out = id.generation;
                c.ok()
            }
            Err(r) => c.code(r.status),
        }
    })
}

/// # Safety
/// As `kfam_context_init`; `family` NULL or NUL-terminated.
pub unsafe fn context_supported(c: &CCatalog, ctx: *mut KfamContext, family: *const c_char) -> i32 {
    guard(c, || {
        let (Some(cx), Some(name)) = (context_of(ctx), c_str(family)) else {
            return c.invalid();
        };
        match cx.supported(name) {
            Ok(()) => c.ok(),
            Err(r) => c.code(r.status),
        }
    })
}

/// # Safety
/// As `kfam_context_init`; `compiled_meta` valid for `len` bytes; `callable` NULL or
/// valid for a write.
pub unsafe fn context_prepare(
    c: &CCatalog,
    ctx: *mut KfamContext,
    compiled_meta: *const c_char,
    len: usize,
    sha256: *const c_char,
    callable: *mut u64,
) -> i32 {
    guard(c, || {
        let (Some(cx), Some(sha), Some(out)) = (context_of(ctx), c_str(sha256), callable.as_mut())
        else {
            return c.invalid();
        };
        if compiled_meta.is_null() {
            return c.invalid();
        }
        let json = std::slice::from_raw_parts(compiled_meta as *const u8, len);
        match cx.prepare(json, sha) {
            Ok(id) => {
                *out = id;
                c.ok()
            }
            Err(r) => c.code(r.status),
        }
    })
}

/// # Safety
/// As `kfam_context_init`; the argument arrays as for `kfam_validate_call`.
pub unsafe fn context_launch(
    c: &CCatalog,
    ctx: *mut KfamContext,
    callable: u64,
    tensors: *const CTensorArg,
    n_tensors: usize,
    scalars: *const CScalarArg,
    n_scalars: usize,
    stream: u64,
) -> i32 {
    guard(c, || {
        let Some(cx) = context_of(ctx) else {
            return c.invalid();
        };
        if (tensors.is_null() && n_tensors > 0) || (scalars.is_null() && n_scalars > 0) {
            return c.invalid();
        }
        let mut owned = Vec::with_capacity(n_tensors);
        for i in 0..n_tensors {
            let Some(d) = element(tensors, i) else {
                return c.invalid();
            };
            let (Some(dtype), Some(format)) = (
                DType::from_code(d.dtype),
                StorageFormat::from_code(d.format),
            ) else {
                return c.invalid();
            };
            let rank = d.rank as usize;
            if rank > 0 && d.shape.is_null() {
                return c.invalid();
            }
            let shape = if rank == 0 {
                Vec::new()
            } else {
                std::slice::from_raw_parts(d.shape, rank).to_vec()
            };
            let strides = if rank > 0 && !d.strides.is_null() {
                std::slice::from_raw_parts(d.strides, rank).to_vec()
            } else {
                // NULL strides: contiguous row-major.
                let mut s = vec![1i64; rank];
                for k in (0..rank.saturating_sub(1)).rev() {
                    s[k] = s[k + 1].saturating_mul(shape[k + 1].max(1));
                }
                s
            };
            owned.push(OwnedTensorArg {
                dtype,
                shape,
                strides,
                storage_offset: d.storage_offset,
                storage_bytes: d.storage_bytes,
                storage: d.storage,
                format,
                device_index: d.device_index,
            });
        }
        let mut values = Vec::with_capacity(n_scalars);
        for i in 0..n_scalars {
            let Some(s) = element(scalars, i) else {
                return c.invalid();
            };
            values.push(match ScalarValueKind::from_code(s.kind) {
                Some(ScalarValueKind::Bool) => ScalarValue::Bool(s.value.i64 != 0),
                Some(ScalarValueKind::Int) => ScalarValue::Int(s.value.i64),
                Some(ScalarValueKind::Uint) => ScalarValue::Uint(s.value.u64),
                Some(ScalarValueKind::Float) => ScalarValue::Float(s.value.f64),
                None => return c.invalid(),
            });
        }
        let args: Vec<TensorArg<'_>> = owned.iter().map(|t| t.as_arg()).collect();
        match cx.launch(callable, &args, &values, stream) {
            Ok(status) => status,
            Err(r) => c.code(r.status),
        }
    })
}

/// # Safety
/// As `kfam_context_init`.
pub unsafe fn context_close(c: &CCatalog, ctx: *mut KfamContext) -> i32 {
    guard(c, || {
        let Some(cx) = context_of(ctx) else {
            return c.invalid();
        };
        cx.close();
        c.ok()
    })
}

/// # Safety
/// `ctx` NULL or from `kfam_context_new`, not used afterwards.
pub unsafe fn context_free(c: &CCatalog, ctx: *mut KfamContext) -> i32 {
    guard(c, || {
        if ctx.is_null() {
            return c.invalid();
        }
        drop(Box::from_raw(ctx));
        c.ok()
    })
}
