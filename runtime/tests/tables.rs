//! The compiled tables answer lookups the way the manifest declares them.

use kfam_catalog::platforms;
use kfam_catalog::{families, CATALOG, FAMILIES, RETIRED};
use kfam_runtime::{DType, Direction, Operation};

#[test]
fn lookup_by_name() {
    let f = CATALOG.find("add_bf16_1024").expect("shipped family");
    assert_eq!(f.params.len(), 3);
    assert_eq!(f.params[2].name, "out");
    assert_eq!(f.params[2].direction, Direction::Out);
    assert_eq!(f.params[0].dtype, DType::Bf16);
    assert_eq!(f.returns, &[2]);
    assert!(matches!(
        f.operation,
        Operation::ElementwiseBinary {
            lhs: 0,
            rhs: 1,
            out: 2,
            ..
        }
    ));
    assert!(CATALOG.find("add_bf16_2048").is_none());
    assert!(
        FAMILIES.windows(2).all(|w| w[0].name < w[1].name),
        "table sorted by name"
    );
    for f in FAMILIES {
        assert_eq!(CATALOG.find(f.name).map(|g| g.name), Some(f.name));
    }
}

/// The retired lookups binary-search: the tables must be sorted, and a
/// retired family is neither approved nor has approved artifacts.
#[test]
fn lookup_of_retired_families() {
    assert!(!RETIRED.is_empty(), "the shipped manifest retires a family");
    assert!(
        RETIRED.windows(2).all(|w| w[0].name < w[1].name),
        "RETIRED sorted by name"
    );
    for r in RETIRED {
        assert!(
            r.receipts.windows(2).all(|w| w[0] < w[1]),
            "{}: receipts sorted",
            r.name
        );
        assert_eq!(CATALOG.find_retired(r.name), Some(r));
        assert!(
            CATALOG.find(r.name).is_none(),
            "{} is both approved and retired",
            r.name
        );
        for d in r.receipts {
            assert_eq!(CATALOG.find_retired_artifact(d), Some(r));
            assert!(
                CATALOG.find_artifact(d).is_none(),
                "{d} is both approved and retired"
            );
        }
    }
    assert!(CATALOG.find_retired("add_bf16_1024").is_none());
    assert!(CATALOG.find_retired_artifact(&"0".repeat(64)).is_none());
}

#[test]
fn lookup_by_artifact_digest() {
    for f in FAMILIES {
        for r in f.receipts {
            let (family, profile, receipt) = CATALOG
                .find_artifact(r.sha256)
                .expect("every receipt is indexed");
            assert_eq!(family.name, f.name);
            assert_eq!(receipt.sha256, r.sha256);
            assert_eq!(profile.name, f.profiles[r.profile as usize].name);
        }
    }
    assert!(CATALOG.find_artifact(&"0".repeat(64)).is_none());
}

#[test]
fn named_constants() {
    use families::matmul_acc_nz_bf16 as m;
    assert_eq!(m::FAMILY.name, "matmul_acc_nz_bf16");
    assert_eq!(m::PARAM_ACC, 2);
    assert_eq!(m::SLOT_ALPHA, 4);
    assert_eq!(m::SLOT_W, 1);
    assert_eq!(m::FAMILY.returns, &[m::PARAM_ACC, m::PARAM_ACC]);
    assert_eq!(m::FAMILY.params[1].lowered_shape, &[1, 8, 4, 16, 16]);
    assert_eq!(m::FAMILY.profiles[0].platform, platforms::A2A3);
    assert_eq!(m::IDENTITY, m::FAMILY.identity);
    assert_eq!(
        kfam_catalog::ABI.status_code(kfam_runtime::Status::NotApproved),
        -1007
    );
    assert_eq!(DType::from_code(6), Some(DType::Bf16));
}

#[test]
fn symbols_of_a_family_and_the_errors_that_name_them() {
    use kfam_runtime::{validate_call, CallRule, DimUse, StorageFormat, Symbol, TensorArg};
    assert!(CATALOG.find("add_bf16_1024").unwrap().symbols.is_empty());
    let f = CATALOG.find("add_bf16_rows").expect("shipped family");
    static USES: [DimUse; 3] = [
        DimUse {
            param: 0,
            tensor: 0,
            axis: 0,
        },
        DimUse {
            param: 1,
            tensor: 1,
            axis: 0,
        },
        DimUse {
            param: 2,
            tensor: 2,
            axis: 0,
        },
    ];
    assert_eq!(
        f.symbols,
        &[Symbol {
            name: "rows",
            min: 16,
            max: None,
            multiple_of: 16,
            uses: &USES,
        }]
    );
    // The plain shape tables keep the anonymous form.
    assert_eq!(f.params[0].shape, &[-1, 256]);
    let t = |shape: &'static [i64], storage| TensorArg {
        dtype: DType::Bf16,
        shape,
        strides: &[256, 1],
        storage_offset: 0,
        storage_bytes: 1 << 20,
        storage,
        format: StorageFormat::Nd,
        device_index: 0,
    };
    let e = validate_call(
        f,
        &[t(&[32, 256], 1), t(&[48, 256], 2), t(&[32, 256], 3)],
        &[],
    )
    .unwrap_err();
    assert_eq!(
        (e.rule, e.param, e.symbol, e.other),
        (CallRule::DimMismatch, Some(1), Some(0), Some(0))
    );
    assert_eq!(
        e.describe(f),
        "argument 1 (`rhs`): dim_mismatch: symbol `rows` differs from its extent in `lhs`"
    );
    let e = validate_call(
        f,
        &[t(&[24, 256], 1), t(&[24, 256], 2), t(&[24, 256], 3)],
        &[],
    )
    .unwrap_err();
    assert_eq!(
        (e.rule, e.param, e.other),
        (CallRule::DimRange, Some(0), None)
    );
    assert_eq!(e.to_string(), "argument 0: dim_range (symbol 0)");
    validate_call(
        f,
        &[t(&[32, 256], 1), t(&[32, 256], 2), t(&[32, 256], 3)],
        &[],
    )
    .unwrap();
}

/// Tables name the runtime they need: the generator prints an assertion of
/// this crate's `TABLES_FORMAT` with its own (docs/compatibility.md), which
/// a runtime of another format fails at compile time with both named.
#[test]
fn tables_assert_the_runtimes_format() {
    assert_eq!(
        kfam_runtime::TABLES_FORMAT,
        kfam_codegen::emit::rust::TABLES_FORMAT
    );
    let tables = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../generated/rust/tables.rs"),
    )
    .unwrap();
    assert!(
        tables.contains(&format!(
            "const _: () = assert!(::kfam_runtime::TABLES_FORMAT == {}, \"these tables were generated by kfam {}",
            kfam_codegen::emit::rust::TABLES_FORMAT,
            env!("CARGO_PKG_VERSION")
        )),
        "generated/rust/tables.rs asserts the format"
    );
}
