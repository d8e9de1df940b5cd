//! The calls the `call` benchmark measures and `tests/alloc.rs` proves
//! allocation-free, defined once so the two always speak of the same calls.
//! Every call here is valid.

use kfam_catalog::CATALOG;
use kfam_runtime::ffi::{CScalarArg, CScalarValue, CTensorArg};
use kfam_runtime::{DType, Family, ScalarValue, ScalarValueKind, StorageFormat, TensorArg};

/// A 12-parameter family embedded as a downstream crate would.
pub mod fixture {
    kfam_runtime::manifest!(
        "benches/fixtures/scaled_matmul_bias_bf16.toml",
        abi = "../manifest/abi.toml"
    );
}

fn bytes(dtype: DType, shape: &[i64]) -> u64 {
    let elems: i64 = shape.iter().product();
    (elems as u64 * kfam_runtime::call::dtype_bits(dtype)).div_ceil(8)
}

/// A contiguous view of its own storage, exactly as large as the view.
pub fn tensor(
    dtype: DType,
    shape: &'static [i64],
    strides: &'static [i64],
    storage: u64,
) -> TensorArg<'static> {
    TensorArg {
        dtype,
        shape,
        strides,
        storage_offset: 0,
        storage_bytes: bytes(dtype, shape),
        storage,
        format: StorageFormat::Nd,
        device_index: 0,
    }
}

/// `add_bf16_1024`: three 1024-element bf16 tensors.
pub fn add() -> (&'static Family, [TensorArg<'static>; 3]) {
    let t = |storage| tensor(DType::Bf16, &[1024], &[1], storage);
    let family = CATALOG.find("add_bf16_1024").expect("shipped family");
    (family, [t(0x1000), t(0x2000), t(0x3000)])
}

/// `add_bf16_rows`: three bf16 `["rows", 256]` tensors of 64 rows (the
/// symbol `rows` tied across them, a multiple of 16).
pub fn add_rows() -> (&'static Family, [TensorArg<'static>; 3]) {
    let t = |storage| tensor(DType::Bf16, &[64, 256], &[256, 1], storage);
    let family = CATALOG.find("add_bf16_rows").expect("shipped family");
    (family, [t(0x1000), t(0x2000), t(0x3000)])
}

/// The fixture's 12 parameters: 4 tensors (one NZ) and 8 scalars of 7 dtypes.
pub fn wide() -> (&'static Family, [TensorArg<'static>; 4], [ScalarValue; 8]) {
    let mut w = tensor(DType::Bf16, &[256, 512], &[512, 1], 0x2000);
    w.format = StorageFormat::FractalNz;
    let tensors = [
        tensor(DType::Bf16, &[64, 256], &[256, 1], 0x1000),
        w,
        tensor(DType::Fp32, &[512], &[1], 0x3000),
        tensor(DType::Fp32, &[64, 512], &[512, 1], 0x4000),
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
    (
        fixture::families::scaled_matmul_bias_bf16::FAMILY,
        tensors,
        scalars,
    )
}

/// The C descriptor of [`tensor`], NZ storage when `nz`.
pub fn c_tensor(
    dtype: DType,
    shape: &'static [i64],
    strides: &'static [i64],
    storage: u64,
    nz: bool,
) -> CTensorArg {
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
        storage_bytes: bytes(dtype, shape),
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

/// [`add`] through the C ABI (family `add_bf16_1024`).
pub fn c_add() -> [CTensorArg; 3] {
    let t = |storage| c_tensor(DType::Bf16, &[1024], &[1], storage, false);
    [t(0x1000), t(0x2000), t(0x3000)]
}

/// `matmul_acc_nz_bf16` through the C ABI: 3 tensors (one NZ), 2 scalars.
pub fn c_matmul() -> ([CTensorArg; 3], [CScalarArg; 2]) {
    let tensors = [
        c_tensor(DType::Bf16, &[32, 64], &[64, 1], 0x1000, false),
        c_tensor(DType::Bf16, &[64, 128], &[128, 1], 0x2000, true),
        c_tensor(DType::Fp32, &[32, 128], &[128, 1], 0x3000, false),
    ];
    let scalars = [
        c_scalar(ScalarValueKind::Int, CScalarValue { i64: 32 }),
        c_scalar(ScalarValueKind::Float, CScalarValue { f64: 0.5 }),
    ];
    (tensors, scalars)
}
