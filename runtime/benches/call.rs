//! Call validation per call (`cargo bench -p kfam-runtime --bench call`).
//!
//! - `validate_call/rust/3_tensors`: `kfam_runtime::validate_call` for the
//!   shipped `add_bf16_1024` (three 1024-element bf16 tensors). Target <= 30 ns.
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

mod common;
use kfam_runtime::ffi::{
    kfam_find_family, kfam_validate_call, CCallError, CScalarArg, CScalarValue, CTensorArg, Opaque,
};
use kfam_runtime::{
    find_family, validate_call, DType, ScalarValue, ScalarValueKind, Status, StorageFormat,
    TensorArg,
};

mod fixture {
    kfam_runtime::manifest!(
        "benches/fixtures/scaled_matmul_bias_bf16.toml",
        abi = "../manifest/abi.toml"
    );
}

fn tensor<'a>(dtype: DType, shape: &'a [i64], strides: &'a [i64], storage: u64) -> TensorArg<'a> {
    let elems: i64 = shape.iter().product();
    TensorArg {
        dtype,
        shape,
        strides,
        storage_offset: 0,
        storage_bytes: (elems as u64 * kfam_runtime::call::dtype_bits(dtype)).div_ceil(8),
        storage,
        format: StorageFormat::Nd,
        device_index: 0,
    }
}

fn bench_rust(c: &mut Criterion<common::Clock>) {
    let mut group = c.benchmark_group("validate_call/rust");

    let add = find_family("add_bf16_1024").unwrap();
    let (shape, strides) = ([1024i64], [1i64]);
    let tensors = [
        tensor(DType::Bf16, &shape, &strides, 0x1000),
        tensor(DType::Bf16, &shape, &strides, 0x2000),
        tensor(DType::Bf16, &shape, &strides, 0x3000),
    ];
    validate_call(add, &tensors, &[]).unwrap();
    group.bench_function("3_tensors", |b| {
        b.iter(|| validate_call(black_box(add), black_box(&tensors), black_box(&[])))
    });

    let wide = fixture::families::scaled_matmul_bias_bf16::FAMILY;
    let (xs, xst) = ([64i64, 256], [256i64, 1]);
    let (ws, wst) = ([256i64, 512], [512i64, 1]);
    let (bs, bst) = ([512i64], [1i64]);
    let (ys, yst) = ([64i64, 512], [512i64, 1]);
    let mut w = tensor(DType::Bf16, &ws, &wst, 0x2000);
    w.format = StorageFormat::FractalNz;
    let tensors = [
        tensor(DType::Bf16, &xs, &xst, 0x1000),
        w,
        tensor(DType::Fp32, &bs, &bst, 0x3000),
        tensor(DType::Fp32, &ys, &yst, 0x4000),
    ];
    let scalars = [
        ScalarValue::Float(0.5),
        ScalarValue::Float(1.0),
        ScalarValue::Float(6.0),
        ScalarValue::Int(64),
        ScalarValue::Int(128),
        ScalarValue::Int(1 << 40),
        ScalarValue::Bool(true),
        ScalarValue::Uint(1),
    ];
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

fn c_tensor(dtype: DType, shape: &[i64], strides: &[i64], storage: u64, nz: bool) -> CTensorArg {
    let elems: i64 = shape.iter().product();
    CTensorArg {
        struct_size: std::mem::size_of::<CTensorArg>() as u32,
        dtype: dtype.code(),
        format: if nz {
            StorageFormat::FractalNz
        } else {
            StorageFormat::Nd
        }
        .code(),
        rank: shape.len() as u32,
        shape: shape.as_ptr(),
        strides: strides.as_ptr(),
        storage_offset: 0,
        storage_bytes: (elems as u64 * kfam_runtime::call::dtype_bits(dtype)).div_ceil(8),
        storage,
        device_index: 0,
    }
}

fn c_scalar(kind: ScalarValueKind, value: CScalarValue) -> CScalarArg {
    CScalarArg {
        struct_size: std::mem::size_of::<CScalarArg>() as u32,
        kind: kind.code(),
        value,
    }
}

fn bench_c(c: &mut Criterion<common::Clock>) {
    let mut group = c.benchmark_group("validate_call/c_abi");
    let mut err = CCallError {
        struct_size: std::mem::size_of::<CCallError>() as u32,
        rule: 0,
        param_index: 0,
    };

    let add = c_family(c"add_bf16_1024");
    let (shape, strides) = ([1024i64], [1i64]);
    let tensors = [
        c_tensor(DType::Bf16, &shape, &strides, 0x1000, false),
        c_tensor(DType::Bf16, &shape, &strides, 0x2000, false),
        c_tensor(DType::Bf16, &shape, &strides, 0x3000, false),
    ];
    let call = |f, t: &[CTensorArg], s: &[CScalarArg], err: &mut CCallError| unsafe {
        kfam_validate_call(f, t.as_ptr(), t.len(), s.as_ptr(), s.len(), err)
    };
    assert_eq!(call(add, &tensors, &[], &mut err), Status::Ok.code());
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
    let (xs, xst) = ([32i64, 64], [64i64, 1]);
    let (ws, wst) = ([64i64, 128], [128i64, 1]);
    let (acs, acst) = ([32i64, 128], [128i64, 1]);
    let tensors = [
        c_tensor(DType::Bf16, &xs, &xst, 0x1000, false),
        c_tensor(DType::Bf16, &ws, &wst, 0x2000, true),
        c_tensor(DType::Fp32, &acs, &acst, 0x3000, false),
    ];
    let scalars = [
        c_scalar(ScalarValueKind::Int, CScalarValue { i64: 32 }),
        c_scalar(ScalarValueKind::Float, CScalarValue { f64: 0.5 }),
    ];
    assert_eq!(call(mm, &tensors, &scalars, &mut err), Status::Ok.code());
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
