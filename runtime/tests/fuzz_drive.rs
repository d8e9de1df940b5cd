//! The fuzz targets of `fuzz/` on stable Rust, in CI: each target body
//! (`fuzz/src/lib.rs`, included here as a module, the same code the
//! libFuzzer targets run) over its checked-in corpus and the built-in seeds,
//! then over mutated inputs (a fixed-seed mutator, no coverage feedback) and
//! over proptest-generated structured inputs. A panic is a finding.
//!
//! `KFAM_FUZZ_ITERATIONS=N` scales the mutation runs (default below); the
//! counts are printed (`cargo test -- --nocapture`). Coverage-guided runs:
//! see `fuzz/README.md`. Each crash found so far is a regression case at
//! the end of this file, and its input is in `fuzz/corpus/<target>/`.

#[path = "../../fuzz/src/lib.rs"]
#[allow(dead_code)]
mod bodies;
#[path = "../../codegen/tests/support/seeded.rs"]
mod seeded;

use kfam_catalog::CATALOG;
use kfam_runtime::{validate_call, CallRule, DType, StorageFormat, TensorArg};
use proptest::prelude::*;
use serde_json::{json, Value};

fn iterations(default: usize) -> usize {
    std::env::var("KFAM_FUZZ_ITERATIONS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn run_target(name: &str, body: fn(&[u8]), default: usize) {
    let mut seeds = bodies::corpus(name);
    let checked_in = seeds.len();
    seeds.extend(bodies::builtin_seeds(name));
    if seeds.is_empty() {
        seeds.push(vec![0u8; 64]);
    }
    let dict = bodies::dictionary(name);
    let n = iterations(default);
    let execs = bodies::drive(body, &seeds, &dict, n, 0x6b66_616d);
    eprintln!(
        "fuzz_drive {name}: {execs} executions ({checked_in} corpus seeds, {} built-in), no crash",
        seeds.len() - checked_in
    );
    assert_eq!(execs, seeds.len() + n);
}

#[test]
fn manifest_target() {
    run_target("manifest", bodies::manifest, 1_500);
}

#[test]
fn manifest_structured_target() {
    run_target("manifest_structured", bodies::manifest_structured, 300);
}

#[test]
fn check_target() {
    run_target("check", bodies::check, 3_000);
}

/// The `check` target parses the shipped documents once; on every input it
/// must decide exactly as `check_sources` does.
#[test]
fn check_target_shortcut_matches_check_sources() {
    run_target("check", bodies::check_light_matches_full, 1_500);
}

#[test]
fn compiled_meta_target() {
    run_target("compiled_meta", bodies::compiled_meta, 20_000);
}

#[test]
fn description_target() {
    run_target("description", bodies::description, 3_000);
}

#[test]
fn call_target() {
    run_target("call", bodies::call, 100_000);
}

// ---------------------------------------------------------------------------
// Structured inputs from proptest.

/// A JSON edit of a valid document: what a broken or hostile producer writes.
#[derive(Clone, Debug)]
enum Edit {
    Remove(prop::sample::Index),
    Set(prop::sample::Index, Value),
    SetParamField(prop::sample::Index, prop::sample::Index, Value),
    AddKey(String, Value),
    Schema(u64),
}

fn odd_value() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        Just(json!(true)),
        Just(json!(1)),
        Just(json!(1.0)),
        Just(json!(-1)),
        Just(json!(4_294_967_296_u64)),
        Just(json!("")),
        Just(json!("kernel")),
        Just(json!("program")),
        Just(json!("nz")),
        Just(json!("\u{202E}")),
        Just(json!([])),
        Just(json!({})),
        Just(json!([0, 0])),
        Just(json!([-1, 64])),
        any::<i64>().prop_map(Value::from),
        "[a-z0-9_]{0,8}".prop_map(Value::from),
    ]
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        any::<prop::sample::Index>().prop_map(Edit::Remove),
        (any::<prop::sample::Index>(), odd_value()).prop_map(|(i, v)| Edit::Set(i, v)),
        (
            any::<prop::sample::Index>(),
            any::<prop::sample::Index>(),
            odd_value()
        )
            .prop_map(|(p, f, v)| Edit::SetParamField(p, f, v)),
        ("[a-z_$]{1,8}", odd_value()).prop_map(|(k, v)| Edit::AddKey(k, v)),
        (0u64..6).prop_map(Edit::Schema),
    ]
}

fn apply(doc: &mut Value, e: &Edit) {
    let obj = doc.as_object_mut().unwrap();
    let keys: Vec<String> = obj.keys().cloned().collect();
    match e {
        Edit::Remove(i) if !keys.is_empty() => {
            obj.remove(&keys[i.index(keys.len())]);
        }
        Edit::Set(i, v) if !keys.is_empty() => {
            obj.insert(keys[i.index(keys.len())].clone(), v.clone());
        }
        Edit::SetParamField(p, f, v) => {
            let list = if p.index(2) == 0 {
                "params"
            } else {
                "lowered_params"
            };
            if let Some(Value::Array(params)) = obj.get_mut(list) {
                if !params.is_empty() {
                    let n = params.len();
                    if let Some(param) = params[p.index(n)].as_object_mut() {
                        let fields: Vec<String> = param.keys().cloned().collect();
                        if !fields.is_empty() {
                            param.insert(fields[f.index(fields.len())].clone(), v.clone());
                        }
                    }
                }
            }
        }
        Edit::AddKey(k, v) => {
            obj.insert(k.clone(), v.clone());
        }
        Edit::Schema(s) => {
            obj.insert("schema".into(), json!(s));
        }
        _ => {}
    }
}

fn config(cases: u32) -> ProptestConfig {
    // Failures are kept as explicit regression tests below, not in a file.
    ProptestConfig {
        failure_persistence: None,
        ..seeded::config(cases)
    }
}

proptest! {
    #![proptest_config(config(1_000))]

    /// The expected document of a shipped receipt with 0..4 JSON edits,
    /// admitted for its own digest or another one.
    #[test]
    fn compiled_meta_edits(
        which in any::<prop::sample::Index>(),
        other_digest in any::<bool>(),
        edits in prop::collection::vec(edit(), 0..4),
        pretty in any::<bool>(),
    ) {
        let s = bodies::shipped();
        let receipts: Vec<_> = s.ir.families.iter()
            .flat_map(|f| f.receipts.iter().map(move |r| (f, r)))
            .collect();
        let i = which.index(receipts.len());
        let (f, r) = receipts[i];
        let mut doc = serde_json::to_value(kfam_codegen::compiled_meta::expected(&s.ir.abi, f, r)).unwrap();
        for e in &edits {
            apply(&mut doc, e);
        }
        let text = if pretty { serde_json::to_string_pretty(&doc) } else { serde_json::to_string(&doc) }.unwrap();
        let sel = if other_digest { (i + 1) % (receipts.len() + 1) } else { i };
        let mut data = vec![sel as u8];
        data.extend_from_slice(text.as_bytes());
        bodies::compiled_meta(&data);
        if edits.is_empty() {
            // The unedited document is admitted for its own digest.
            if !other_digest {
                prop_assert!(kfam_catalog::CATALOG.admit(text.as_bytes(), &r.sha256).is_ok());
            }
        }
    }

}

proptest! {
    #![proptest_config(config(2_000))]

    /// Arbitrary bytes through the call decoder.
    #[test]
    fn call_bytes(data in prop::collection::vec(any::<u8>(), 0..256)) {
        bodies::call(&data);
    }

}

proptest! {
    #![proptest_config(config(300))]

    /// Arbitrary text in every manifest mode.
    #[test]
    fn manifest_text(mode in 0u8..4, text in ".{0,200}") {
        let mut data = vec![mode];
        data.extend_from_slice(text.as_bytes());
        bodies::manifest(&data);
    }
}

// ---------------------------------------------------------------------------
// Regressions: every crash the fuzz targets found.

/// Found by the `call` target (saturating arithmetic): a view whose last
/// byte lies past 2^64 had its span saturated to u64::MAX bits, i.e. 2^61
/// bytes, so a storage of 2^61 bytes "held" it. Overflow is now a
/// storage-bounds refusal.
#[test]
fn regression_call_span_overflow_is_out_of_bounds() {
    let add = CATALOG.find("add_bf16_1024").unwrap();
    let shape = [1024i64];
    let strides = [1i64];
    let good = TensorArg {
        dtype: DType::Bf16,
        shape: &shape,
        strides: &strides,
        storage_offset: 0,
        storage_bytes: 2048,
        storage: 0,
        format: StorageFormat::Nd,
        device_index: 0,
    };
    let other = |storage| TensorArg { storage, ..good };
    assert!(validate_call(add, &[good, other(1), other(2)], &[]).is_ok());
    // Offset near i64::MAX: the true end is ~2^64 bytes.
    let far = TensorArg {
        storage_offset: i64::MAX - 2048,
        storage_bytes: 1 << 61,
        ..good
    };
    let err = validate_call(add, &[far, other(1), other(2)], &[]).unwrap_err();
    assert_eq!((err.rule, err.param), (CallRule::StorageBounds, Some(0)));
    // 2 * (2^63 - 100 + 1024) bytes: past 2^64, so no storage can hold it.
    let far = TensorArg {
        storage_offset: i64::MAX - 100,
        storage_bytes: u64::MAX,
        ..far
    };
    let err = validate_call(add, &[far, other(1), other(2)], &[]).unwrap_err();
    assert_eq!(err.rule, CallRule::StorageBounds);
    // The corpus inputs of the finding.
    for name in [
        "seed-regression-offset-saturation",
        "seed-regression-span-saturation",
    ] {
        let path = bodies::repo_root().join("fuzz/corpus/call").join(name);
        bodies::call(&std::fs::read(path).unwrap());
    }
}

/// Found while writing the `call` oracle: the contiguity check saturated
/// the expected stride at i64::MAX, so a stride of i64::MAX "matched" a
/// dimension whose true contiguous stride does not fit in i64, and the
/// saturated byte span then fit a u64::MAX storage. No shipped family has
/// two dynamic inner extents, so the case uses a table of its own.
#[test]
fn regression_call_contiguity_does_not_saturate() {
    use kfam_runtime::{
        BinaryOp, Contract, Direction, Family, Layout, Operation, Param, ParamKind,
    };
    const SHAPE: &[i64] = &[-1, -1, -1];
    const fn param(name: &'static str, index: u32, direction: Direction) -> Param {
        Param {
            name,
            index,
            kind: ParamKind::Tensor,
            direction,
            dtype: DType::Bf16,
            shape: SHAPE,
            layout: Layout::Nd,
            lowered_shape: SHAPE,
            pool_index: index,
            doc: None,
            alignment: 1,
        }
    }
    static PARAMS: [Param; 3] = [
        param("a", 0, Direction::In),
        param("b", 1, Direction::In),
        param("c", 2, Direction::Out),
    ];
    static FAMILY: Family = Family {
        name: "dynamic_add",
        revision: 1,
        summary: "",
        contract: Contract::Kernel,
        torch: false,
        operation: Operation::ElementwiseBinary {
            op: BinaryOp::Add,
            lhs: 0,
            rhs: 1,
            out: 2,
        },
        params: &PARAMS,
        returns: &[2],
        profiles: &[],
        receipts: &[],
        tensor_count: 3,
        scalar_count: 0,
        identity: "",
        torch_schema: None,
        symbols: &[],
        approval: 1,
    };
    let small_shape = [2i64, 3, 4];
    let small_strides = [12i64, 4, 1];
    let small = |storage| TensorArg {
        dtype: DType::Bf16,
        shape: &small_shape,
        strides: &small_strides,
        storage_offset: 0,
        storage_bytes: 48,
        storage,
        format: StorageFormat::Nd,
        device_index: 0,
    };
    assert!(validate_call(&FAMILY, &[small(0), small(1), small(2)], &[]).is_ok());
    // [2, 2^62, 2]: the contiguous stride of dimension 0 is 2^63.
    let shape = [2i64, 1 << 62, 2];
    let strides = [i64::MAX, 2, 1];
    let huge = TensorArg {
        shape: &shape,
        strides: &strides,
        storage_bytes: u64::MAX,
        ..small(0)
    };
    let err = validate_call(&FAMILY, &[huge, small(1), small(2)], &[]).unwrap_err();
    assert_eq!((err.rule, err.param), (CallRule::NotContiguous, Some(0)));
    assert!(bodies::call_oracle(&FAMILY, &[huge, small(1), small(2)], &[]).is_err());
}

/// Found by the `compiled_meta` target's differential oracle: the runtime
/// read `"$comment": null` (and `null` for any optional key) as an absent
/// key and admitted the document, while the published schema and the
/// reference reader refuse `null`. A `null` is now malformed everywhere.
/// Found by `call_bytes` in CI: an empty view with zero strides. The
/// runtime accepts it (an empty view accesses nothing, so any strides
/// describe it, as in torch and the conformance vector
/// `call_mm_empty_view_any_strides`); the oracle wrongly demanded
/// contiguous strides of it.
#[test]
fn regression_call_oracle_empty_view_any_strides() {
    let family = CATALOG.find("mul_fp4_dequant").unwrap();
    let view = |shape: &'static [i64], strides: &'static [i64], bytes, storage| TensorArg {
        dtype: DType::Fp4,
        shape,
        strides,
        storage_offset: 0,
        storage_bytes: bytes,
        storage,
        format: StorageFormat::Nd,
        device_index: 0,
    };
    let tensors = [
        view(&[1, 256], &[256, 1], 128, 1),
        view(&[0, 256], &[0, 0], 0, 1),
        view(&[25, 256], &[256, 1], 3200, 0),
    ];
    assert!(validate_call(family, &tensors, &[]).is_ok());
    assert_eq!(bodies::call_oracle(family, &tensors, &[]), Ok(()));
}

#[test]
fn regression_admission_refuses_null_for_optional_keys() {
    use kfam_catalog::CATALOG;
    use kfam_runtime::Admission;
    let s = bodies::shipped();
    let f = &s.ir.families[0];
    let r = &f.receipts[0];
    let doc = serde_json::to_value(kfam_codegen::compiled_meta::expected(&s.ir.abi, f, r)).unwrap();
    assert!(CATALOG.admit(doc.to_string().as_bytes(), &r.sha256).is_ok());
    let mut with_null = doc.clone();
    with_null["$comment"] = Value::Null;
    let refused = CATALOG
        .admit(with_null.to_string().as_bytes(), &r.sha256)
        .unwrap_err();
    assert_eq!(refused.outcome, Admission::Malformed);
    assert!(kfam_codegen::compiled_meta::CompiledMeta::parse(&with_null.to_string()).is_err());
    // A legacy document with a kernel key set to null is malformed too.
    let legacy = json!({"schema": 2, "params": [], "return_count": 0, "platform": "a5", "backend": "cce", "family": null});
    let refused = CATALOG
        .admit(legacy.to_string().as_bytes(), &r.sha256)
        .unwrap_err();
    assert_eq!(refused.outcome, Admission::Malformed);
    for name in [
        "seed-regression-null-comment",
        "seed-regression-null-legacy",
    ] {
        let path = bodies::repo_root()
            .join("fuzz/corpus/compiled_meta")
            .join(name);
        bodies::compiled_meta(&std::fs::read(path).unwrap());
    }
}

/// Admission bounds: a document over 1 MiB is malformed even when it is
/// otherwise the exact expected document; deep nesting is refused by the
/// JSON parser's depth limit, never a stack overflow.
#[test]
fn admission_bounds_size_and_depth() {
    use kfam_catalog::CATALOG;
    use kfam_runtime::admission::MAX_DOCUMENT_BYTES;
    use kfam_runtime::Admission;
    assert_eq!(MAX_DOCUMENT_BYTES, 1 << 20);
    let s = bodies::shipped();
    let f = &s.ir.families[0];
    let r = &f.receipts[0];
    let doc = serde_json::to_value(kfam_codegen::compiled_meta::expected(&s.ir.abi, f, r)).unwrap();
    let base = doc.to_string();
    // Trailing whitespace pads it to exactly the limit (`$comment` is
    // bounded at 1024 characters).
    let at = format!("{base}{}", " ".repeat(MAX_DOCUMENT_BYTES - base.len()));
    assert_eq!(at.len(), MAX_DOCUMENT_BYTES);
    assert!(CATALOG.admit(at.as_bytes(), &r.sha256).is_ok());
    let over = format!("{at} ");
    assert_eq!(
        CATALOG
            .admit(over.as_bytes(), &r.sha256)
            .unwrap_err()
            .outcome,
        Admission::Malformed
    );
    let depth = MAX_DOCUMENT_BYTES / 2 - 16;
    let sha = r.sha256.clone();
    let handle = std::thread::Builder::new()
        .stack_size(1 << 20)
        .spawn(move || {
            let deep = format!("{{\"params\":{}{}}}", "[".repeat(depth), "]".repeat(depth));
            CATALOG.admit(deep.as_bytes(), &sha).unwrap_err().outcome
        })
        .unwrap();
    assert_eq!(
        handle.join().expect("no stack overflow"),
        Admission::Malformed
    );
}
