//! Call validation per call (`cargo bench -p kfam-runtime --bench call`).
//!
//! - `validate_call/rust/3_tensors`: `kfam_runtime::validate_call` for the
//!   shipped `add_bf16_1024` (three 1024-element bf16 tensors). Target <= 30 ns.
//! - `validate_call/rust/3_tensors_symbol`: the shipped `add_bf16_rows`
//!   (three `["rows", 256]` bf16 tensors, the symbol tied and constrained).
//! - `validate_call/rust/12_params`: the `scaled_matmul_bias_bf16` fixture
//!   (4 tensors, one NZ, and 8 scalars of 7 dtypes), embedded with
//!   `kfam_runtime::manifest!` exactly as a downstream crate would.
//! - `validate_call/c_abi/...`: `kfam_validate_call` through the exported C
//!   function, with the header's descriptor structs, for `add_bf16_1024` and
//!   for `matmul_acc_nz_bf16` (3 tensors, one NZ, 2 scalars), the shipped
//!   family with scalars (the C ABI serves the shipped tables only). Target
//!   <= 50 ns.
//!
//! Every call is valid; the benchmark asserts it before measuring.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};

#[path = "common/calls.rs"]
mod calls;
mod common;

use kfam_catalog::c_abi::{find_family as kfam_find_family, validate_call as kfam_validate_call};
use kfam_runtime::ffi::{CCallError, CScalarArg, CTensorArg, Opaque};
use kfam_runtime::{validate_call, Status};

fn bench_rust(c: &mut Criterion<common::Clock>) {
    let mut group = c.benchmark_group("validate_call/rust");

    let (add, tensors) = calls::add();
    validate_call(add, &tensors, &[]).unwrap();
    group.bench_function("3_tensors", |b| {
        b.iter(|| validate_call(black_box(add), black_box(&tensors), black_box(&[])))
    });

    let (rows, tensors) = calls::add_rows();
    validate_call(rows, &tensors, &[]).unwrap();
    group.bench_function("3_tensors_symbol", |b| {
        b.iter(|| validate_call(black_box(rows), black_box(&tensors), black_box(&[])))
    });

    let (wide, tensors, scalars) = calls::wide();
    validate_call(wide, &tensors, &scalars).unwrap();
    group.bench_function("12_params", |b| {
        b.iter(|| validate_call(black_box(wide), black_box(&tensors), black_box(&scalars)))
    });
    group.finish();
}

fn c_family(name: &std::ffi::CStr) -> *const Opaque {
    let mut f = std::ptr::null();
    assert_eq!(unsafe { kfam_find_family(name.as_ptr(), &mut f) }, 0);
    f
}

fn bench_c(c: &mut Criterion<common::Clock>) {
    let mut group = c.benchmark_group("validate_call/c_abi");
    let mut err = CCallError {
        struct_size: std::mem::size_of::<CCallError>() as u32,
        rule: 0,
        param_index: 0,
        symbol_index: 0,
        other_param_index: 0,
    };

    let add = c_family(c"add_bf16_1024");
    let tensors = calls::c_add();
    let call = |f, t: &[CTensorArg], s: &[CScalarArg], err: &mut CCallError| unsafe {
        kfam_validate_call(f, t.as_ptr(), t.len(), s.as_ptr(), s.len(), err)
    };
    assert_eq!(
        call(add, &tensors, &[], &mut err),
        kfam_catalog::ABI.status_code(Status::Ok)
    );
    group.bench_function("3_tensors", |b| {
        b.iter(|| {
            call(
                black_box(add),
                black_box(&tensors),
                black_box(&[]),
                &mut err,
            )
        })
    });

    let mm = c_family(c"matmul_acc_nz_bf16");
    let (tensors, scalars) = calls::c_matmul();
    assert_eq!(
        call(mm, &tensors, &scalars, &mut err),
        kfam_catalog::ABI.status_code(Status::Ok)
    );
    group.bench_function("3_tensors_2_scalars", |b| {
        b.iter(|| {
            call(
                black_box(mm),
                black_box(&tensors),
                black_box(&scalars),
                &mut err,
            )
        })
    });
    group.finish();
}

criterion_group!(name = benches; config = common::criterion(); targets = bench_rust, bench_c);
criterion_main!(benches);
