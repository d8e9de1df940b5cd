//! Every runtime decision over an embedded catalog of one's own.

use kfam_example_embedded::{kernels, RELU_META};
use kfam_runtime::{Contract, DType, StorageFormat, TensorArg};

/// A row-major FP16 tensor in its own 16 MiB allocation at `storage`.
fn fp16<'a>(shape: &'a [i64], strides: &'a [i64], storage: u64) -> TensorArg<'a> {
    TensorArg {
        dtype: DType::Fp16,
        shape,
        strides,
        storage_offset: 0,
        storage_bytes: 1 << 24,
        storage,
        format: StorageFormat::Nd,
        device_index: 0,
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let catalog = &kernels::CATALOG;
    for f in catalog.families {
        println!(
            "{} r{} {} identity {}",
            f.name,
            f.revision,
            f.contract,
            &f.identity[..12]
        );
    }

    // The native capability check, over this catalog.
    let relu = catalog.capability(
        "relu_fp16",
        kernels::platforms::A5,
        kernels::execution_modes::SIM,
        Contract::Kernel,
    )?;
    println!(
        "relu_fp16: supported on {} by {}",
        relu.profile.name, relu.receipt.artifact
    );
    if let Err(why) = catalog.capability(
        "relu_fp16",
        kernels::platforms::A5,
        kernels::execution_modes::ONBOARD,
        Contract::Kernel,
    ) {
        println!("relu_fp16 onboard: {why}");
    }

    // The loader: admit the artifact before building any cache entry for it.
    let admitted = catalog
        .admit(RELU_META, relu.receipt.sha256)
        .map_err(|r| format!("refused: {r}"))?;
    println!(
        "admitted {} for {}",
        admitted.family.name, admitted.profile.name
    );

    // The call path: `n` rows, the same for both tensors.
    let strides = [4096i64, 1];
    let (rows32, rows16) = ([32i64, 4096], [16i64, 4096]);
    let relu_fp16 = admitted.family;
    catalog.validate_call(
        relu_fp16,
        &[
            fp16(&rows32, &strides, 0x100_0000),
            fp16(&rows32, &strides, 0x200_0000),
        ],
        &[],
    )?;
    println!("relu_fp16 call with 32 rows: ok");
    let refused = catalog
        .validate_call(
            relu_fp16,
            &[
                fp16(&rows32, &strides, 0x100_0000),
                fp16(&rows16, &strides, 0x200_0000),
            ],
            &[],
        )
        .unwrap_err();
    println!("relu_fp16 call with 32 and 16 rows: {refused}");
    Ok(())
}
