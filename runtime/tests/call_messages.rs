//! A refused call says what was expected and what was passed
//! (`CallError::explain`), for every rule, without the validation itself
//! allocating (runtime/tests/alloc.rs).

use kfam_catalog::CATALOG;
use kfam_runtime::{validate_call, CallRule, DType, ScalarValue, StorageFormat, TensorArg};

fn t<'a>(dtype: DType, shape: &'a [i64], strides: &'a [i64], storage: u64) -> TensorArg<'a> {
    TensorArg {
        dtype,
        shape,
        strides,
        storage_offset: 0,
        storage_bytes: 1 << 30,
        storage,
        format: StorageFormat::Nd,
        device_index: 0,
    }
}

/// Validate, expect `rule`, and return the explanation.
fn refused(
    family: &str,
    tensors: &[TensorArg<'_>],
    scalars: &[ScalarValue],
    rule: CallRule,
) -> String {
    let f = CATALOG.find(family).unwrap();
    let e = validate_call(f, tensors, scalars).unwrap_err();
    assert_eq!(e.rule, rule, "{e}");
    e.explain(f, tensors, scalars)
}

#[test]
fn every_rule_says_what_was_expected_and_passed() {
    let (v, s1) = ([1024i64], [1i64]);
    let bf16 = |storage| t(DType::Bf16, &v, &s1, storage);
    let ok = [bf16(1 << 20), bf16(2 << 20), bf16(3 << 20)];
    assert_eq!(
        validate_call(CATALOG.find("add_bf16_1024").unwrap(), &ok, &[]),
        Ok(())
    );

    let msg = refused("add_bf16_1024", &ok[..2], &[], CallRule::ArgCount);
    assert_eq!(
        msg,
        "arg_count: `add_bf16_1024` takes 3 tensors and 0 scalars, 2 and 0 were passed"
    );

    let fp16 = t(DType::Fp16, &v, &s1, 2 << 20);
    let msg = refused("add_bf16_1024", &[ok[0], fp16, ok[2]], &[], CallRule::DType);
    assert_eq!(msg, "argument 1 (`rhs`): dtype: dtype fp16, expected bf16");

    let (v2, s2) = ([32i64, 32], [32i64, 1]);
    let msg = refused(
        "add_bf16_1024",
        &[ok[0], ok[1], t(DType::Bf16, &v2, &s2, 3 << 20)],
        &[],
        CallRule::Rank,
    );
    assert_eq!(
        msg,
        "argument 2 (`out`): rank: rank 2 (shape [32, 32]), expected rank 1 (shape [1024])"
    );

    let short = [512i64];
    let msg = refused(
        "add_bf16_1024",
        &[t(DType::Bf16, &short, &s1, 1 << 20), ok[1], ok[2]],
        &[],
        CallRule::Shape,
    );
    assert_eq!(
        msg,
        "argument 0 (`lhs`): shape: shape [512], expected [1024]"
    );

    let gapped = [2i64];
    let msg = refused(
        "add_bf16_1024",
        &[t(DType::Bf16, &v, &gapped, 1 << 20), ok[1], ok[2]],
        &[],
        CallRule::NotContiguous,
    );
    assert!(msg.contains("strides [2] of shape [1024]"), "{msg}");

    let mut small = ok[2];
    small.storage_bytes = 100;
    let msg = refused(
        "add_bf16_1024",
        &[ok[0], ok[1], small],
        &[],
        CallRule::StorageBounds,
    );
    assert!(
        msg.contains("does not fit in 100 bytes of storage"),
        "{msg}"
    );

    let mut far = ok[1];
    far.device_index = 1;
    let msg = refused("add_bf16_1024", &[ok[0], far, ok[2]], &[], CallRule::Device);
    assert_eq!(
        msg,
        "argument 1 (`rhs`): device: device 1, expected device 0 (the first tensor's)"
    );

    // `out` written over half of `lhs`.
    let mut shifted = ok[2];
    shifted.storage = ok[0].storage;
    shifted.storage_offset = 512;
    shifted.storage_bytes = 4096;
    let mut lhs = ok[0];
    lhs.storage_bytes = 4096;
    let msg = refused(
        "add_bf16_1024",
        &[lhs, ok[1], shifted],
        &[],
        CallRule::Overlap,
    );
    assert!(msg.contains("partially overlaps"), "{msg}");
}

#[test]
fn scalars_and_symbols_say_the_values() {
    // matmul_acc_nz_bf16: x [-1, 64] bf16, w [64, 128] nz, acc [-1, 128] fp32;
    // tile_rows int32, alpha fp32.
    let f = CATALOG.find("matmul_acc_nz_bf16").unwrap();
    let (xs, xst) = ([8i64, 64], [64i64, 1]);
    let (ws, wst) = ([64i64, 128], [128i64, 1]);
    let (acs, acst) = ([8i64, 128], [128i64, 1]);
    let mut w = t(DType::Bf16, &ws, &wst, 2 << 20);
    w.format = StorageFormat::FractalNz;
    let tensors = [
        t(DType::Bf16, &xs, &xst, 1 << 20),
        w,
        t(DType::Fp32, &acs, &acst, 3 << 20),
    ];
    let good = [ScalarValue::Int(4), ScalarValue::Float(0.5)];
    assert_eq!(validate_call(f, &tensors, &good), Ok(()));

    let msg = refused(
        "matmul_acc_nz_bf16",
        &tensors,
        &[ScalarValue::Float(4.0), good[1]],
        CallRule::ScalarType,
    );
    assert_eq!(
        msg,
        "argument 3 (`tile_rows`): scalar_type: a float value, expected int32"
    );
    let msg = refused(
        "matmul_acc_nz_bf16",
        &tensors,
        &[ScalarValue::Int(1 << 40), good[1]],
        CallRule::ScalarRange,
    );
    assert_eq!(
        msg,
        "argument 3 (`tile_rows`): scalar_range: 1099511627776 is outside the range of int32"
    );
    let msg = refused(
        "matmul_acc_nz_bf16",
        &tensors,
        &[good[0], ScalarValue::Float(1e300)],
        CallRule::FloatOverflow,
    );
    assert!(
        msg.starts_with("argument 4 (`alpha`): float_overflow: 1000000000"),
        "{msg}"
    );
    assert!(msg.ends_with("is beyond the largest finite fp32"), "{msg}");

    let mut nd_w = w;
    nd_w.format = StorageFormat::Nd;
    let msg = refused(
        "matmul_acc_nz_bf16",
        &[tensors[0], nd_w, tensors[2]],
        &good,
        CallRule::Format,
    );
    assert_eq!(
        msg,
        "argument 1 (`w`): format: storage format nd, not accepted for layout nz"
    );

    // add_bf16_rows: `rows` ties lhs, rhs and out; min 16, a multiple of 16.
    let s = [256i64, 1];
    let (r32, r16, r8) = ([32i64, 256], [16i64, 256], [8i64, 256]);
    let msg = refused(
        "add_bf16_rows",
        &[
            t(DType::Bf16, &r32, &s, 1 << 20),
            t(DType::Bf16, &r32, &s, 2 << 20),
            t(DType::Bf16, &r16, &s, 3 << 20),
        ],
        &[],
        CallRule::DimMismatch,
    );
    assert!(
        msg.contains("symbol `rows` differs from its extent in `lhs` (16 here, 32 there)"),
        "{msg}"
    );
    let msg = refused(
        "add_bf16_rows",
        &[
            t(DType::Bf16, &r8, &s, 1 << 20),
            t(DType::Bf16, &r8, &s, 2 << 20),
            t(DType::Bf16, &r8, &s, 3 << 20),
        ],
        &[],
        CallRule::DimRange,
    );
    assert!(
        msg.contains("symbol `rows` must be at least 16 and a multiple of 16 (passed 8)"),
        "{msg}"
    );
}

/// A symbol bounded on both sides and held to a multiple: the refusal names
/// all three.
#[test]
fn a_range_with_a_multiple_says_both() {
    mod ranged {
        kfam_runtime::manifest!(
            "../tests/calls/add_bf16_rows_within.toml",
            abi = "../manifest/abi.toml"
        );
    }
    let f = ranged::CATALOG.find("add_bf16_rows_within").unwrap();
    let strides = [256i64, 1];
    let msg = |rows: i64| {
        let shape = [rows, 256];
        let tensors = [1u64, 2, 3].map(|i| t(DType::Bf16, &shape, &strides, i << 20));
        let e = validate_call(f, &tensors, &[]).unwrap_err();
        assert_eq!(e.rule, CallRule::DimRange, "{e}");
        e.explain(f, &tensors, &[])
    };
    assert_eq!(
        msg(24),
        "argument 0 (`lhs`): dim_range: symbol `rows` must lie in 16..=256 and be a multiple of 16 (passed 24)"
    );
    assert_eq!(
        msg(272),
        "argument 0 (`lhs`): dim_range: symbol `rows` must lie in 16..=256 and be a multiple of 16 (passed 272)"
    );
}
