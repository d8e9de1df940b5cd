//! A Rust consumer of the generated tables (the example of docs/rust.md and
//! docs/runtime.md). `cargo test` builds it; runtime/tests/examples.rs runs it.
//!
//! Usage: consumer COMPILED_META.json ARTIFACT_SHA256

use kfam_catalog::{execution_modes, platforms};
use kfam_catalog::{families, CATALOG};
use kfam_runtime::{validate_call, Contract, DType, ScalarValue, StorageFormat, TensorArg};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Every approved family, its signature and identity.
    for f in kfam_catalog::FAMILIES {
        let params: Vec<String> = f
            .params
            .iter()
            .map(|p| format!("{}: {} {:?}", p.name, p.dtype, p.shape))
            .collect();
        println!(
            "{} r{} [{}] {}",
            f.name,
            f.revision,
            params.join(", "),
            &f.identity[..12]
        );
    }

    // The native capability check: is the family runnable here?
    match CATALOG.capability(
        "matmul_acc_nz_bf16",
        platforms::A2A3,
        execution_modes::SIM,
        Contract::Kernel,
    ) {
        Ok(s) => println!("supported on {} by {}", s.profile.name, s.receipt.artifact),
        Err(why) => println!("not supported: {why}"),
    }

    // The loader: admit an artifact before building any cache entry for it.
    let mut args = std::env::args().skip(1);
    if let (Some(meta), Some(sha)) = (args.next(), args.next()) {
        match CATALOG.admit(&std::fs::read(&meta)?, &sha) {
            Ok(a) => println!(
                "admitted {} for {} ({})",
                a.family.name, a.profile.name, a.contract
            ),
            Err(refused) => println!("refused: {refused}"),
        }
    }

    // The call path: validate borrowed arguments before launch (no allocation).
    let add = families::add_bf16_1024::FAMILY;
    let (shape, strides) = ([1024i64], [1i64]);
    let tensor = |storage| TensorArg {
        dtype: DType::Bf16,
        shape: &shape,
        strides: &strides,
        storage_offset: 0,
        storage_bytes: 2048,
        storage,
        format: StorageFormat::Nd,
        device_index: 0,
    };
    validate_call(add, &[tensor(0x1000), tensor(0x2000), tensor(0x3000)], &[])?;
    println!("add_bf16_1024 call ok");
    let mm = CATALOG.find("matmul_acc_nz_bf16").ok_or("missing family")?;
    let err = validate_call(mm, &[], &[ScalarValue::Int(4), ScalarValue::Float(0.5)]).unwrap_err();
    println!("matmul_acc_nz_bf16 without tensors: {err}");

    // The binding: the torch dispatcher schema string.
    println!("{}", add.torch_schema.unwrap_or("no torch binding"));
    Ok(())
}
