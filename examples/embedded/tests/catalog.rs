//! A foreign manifest (this crate's `manifest/`: its own families, digests
//! and lock) gets capability, admission and call validation through the
//! `CATALOG` its `manifest!` expansion defines, independently of
//! kfam-runtime's own catalog.

use std::path::Path;

use kfam_example_embedded::{kernels, RELU_META};
use kfam_runtime::{Admission, CallRule, Contract, DType, StorageFormat, TensorArg};

fn manifest_dir() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/manifest"))
}

fn fp16<'a>(shape: &'a [i64], strides: &'a [i64], storage: u64) -> TensorArg<'a> {
    TensorArg {
        dtype: DType::Fp16,
        shape,
        strides,
        storage_offset: 0,
        storage_bytes: 1 << 28,
        storage,
        format: StorageFormat::Nd,
        device_index: 0,
    }
}

#[test]
fn the_catalog_is_this_manifest_and_its_lock() {
    let (ir, report) = kfam_codegen::check_dir(manifest_dir());
    let ir = ir.unwrap_or_else(|| panic!("{report:?}"));
    let catalog = &kernels::CATALOG;
    let names: Vec<&str> = catalog.families.iter().map(|f| f.name).collect();
    assert_eq!(names, ["relu_fp16", "scale_fp32"]);
    for (f, g) in catalog.families.iter().zip(&ir.families) {
        assert_eq!(f.identity, g.identity, "{}", f.name);
    }
    // The lock approves exactly these revisions (the gated check passed).
    let lock = std::fs::read_to_string(manifest_dir().join("approved.lock")).unwrap();
    for f in catalog.families {
        assert!(lock.contains(f.identity), "{} is not in the lock", f.name);
    }
    // The two catalogs are independent.
    for f in catalog.families {
        assert!(kfam_catalog::CATALOG.find(f.name).is_none(), "{}", f.name);
    }
    for f in kfam_catalog::CATALOG.families {
        assert!(catalog.find(f.name).is_none(), "{}", f.name);
    }
}

#[test]
fn capability_over_the_foreign_catalog() {
    let c = &kernels::CATALOG;
    let ok = c
        .capability(
            "relu_fp16",
            kernels::platforms::A5,
            kernels::execution_modes::SIM,
            Contract::Kernel,
        )
        .unwrap();
    assert_eq!(ok.profile.name, "a5_sim");
    assert_eq!(ok.receipt.artifact, "a5/sim/relu_fp16.so");
    assert!(c
        .capability(
            "relu_fp16",
            kernels::platforms::A5,
            kernels::execution_modes::ONBOARD,
            Contract::Kernel
        )
        .is_err());
    // A program-contract family is not loadable as a kernel.
    assert!(c
        .capability(
            "scale_fp32",
            kernels::platforms::A5,
            kernels::execution_modes::ONBOARD,
            Contract::Kernel
        )
        .is_err());
    assert!(c
        .capability(
            "scale_fp32",
            kernels::platforms::A5,
            kernels::execution_modes::ONBOARD,
            Contract::Program
        )
        .is_ok());
    // A family of kfam-runtime's own catalog is unknown here.
    assert!(c
        .capability(
            "silu_bf16",
            kernels::platforms::A2A3,
            kernels::execution_modes::SIM,
            Contract::Kernel
        )
        .is_err());
}

#[test]
fn admission_over_the_foreign_catalog() {
    let c = &kernels::CATALOG;
    let (ir, _) = kfam_codegen::check_dir(manifest_dir());
    let ir = ir.unwrap();
    // The shipped artifact file is what `kfam example` prints for it.
    let relu = &ir.families[0];
    let expected = kfam_codegen::emit::schema::printed_example(&ir, relu, 0);
    assert_eq!(std::str::from_utf8(RELU_META).unwrap(), expected);
    let sha = relu.receipts[0].sha256.as_str();
    let a = c.admit(RELU_META, sha).unwrap();
    assert_eq!((a.family.name, a.profile.name), ("relu_fp16", "a5_sim"));
    assert_eq!(a.contract, Contract::Kernel);
    // kfam-runtime's own catalog knows neither the family nor the digest.
    assert!(kfam_catalog::CATALOG.admit(RELU_META, sha).is_err());
    // A document that differs from the approved one is refused.
    let tampered = String::from_utf8(RELU_META.to_vec())
        .unwrap()
        .replace("\"fp16\"", "\"bf16\"");
    let refused = c.admit(tampered.as_bytes(), sha).unwrap_err();
    assert_eq!(refused.outcome, Admission::NotApproved);
}

#[test]
fn call_validation_over_the_foreign_catalog() {
    let c = &kernels::CATALOG;
    let relu = c.find("relu_fp16").unwrap();
    let strides = [4096i64, 1];
    let rows = |n: i64| [n, 4096i64];
    let (r32, r16, big) = (rows(32), rows(16), rows(8193));
    assert_eq!(
        c.validate_call(
            relu,
            &[fp16(&r32, &strides, 0), fp16(&r32, &strides, 1 << 30)],
            &[]
        ),
        Ok(())
    );
    let e = c
        .validate_call(
            relu,
            &[fp16(&r32, &strides, 0), fp16(&r16, &strides, 1 << 30)],
            &[],
        )
        .unwrap_err();
    assert_eq!(e.rule, CallRule::DimMismatch);
    // `[dims.n] max = 8192`.
    let e = c
        .validate_call(
            relu,
            &[fp16(&big, &strides, 0), fp16(&big, &strides, 1 << 30)],
            &[],
        )
        .unwrap_err();
    assert_eq!(e.rule, CallRule::DimRange);
}

#[test]
fn the_example_runs() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_kfam-example-embedded"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    for line in [
        "relu_fp16: supported on a5_sim by a5/sim/relu_fp16.so",
        "admitted relu_fp16 for a5_sim",
        "relu_fp16 call with 32 rows: ok",
        "relu_fp16 call with 32 and 16 rows: ",
    ] {
        assert!(text.contains(line), "{line:?} missing from:\n{text}");
    }
}

#[test]
fn a_context_over_the_foreign_catalog_takes_its_limit() {
    // This manifest's abi.toml declares `max_prepared = 16`, kfam-runtime's
    // own another.
    assert_eq!(kernels::CATALOG.abi.max_prepared, 16);
    let ours = kfam_runtime::Context::new(&kernels::CATALOG);
    assert_eq!(ours.max_prepared(), 16);
    let theirs = kfam_runtime::Context::new(&kfam_catalog::CATALOG);
    assert_eq!(
        theirs.max_prepared(),
        kfam_catalog::ABI.max_prepared as usize
    );
    assert_ne!(kfam_catalog::ABI.max_prepared, 16);
}
