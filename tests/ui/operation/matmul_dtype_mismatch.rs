// Corpus case `tests/diagnostics/operation/matmul_dtype_mismatch.toml`: the macro rejects it with the same diagnostic as `kfam check`.
mod tables {
    kfam_runtime::manifest!("../tests/diagnostics/operation/matmul_dtype_mismatch.toml", abi = "../manifest/abi.toml");
}

fn main() {
    let _ = tables::FAMILIES.len();
}
