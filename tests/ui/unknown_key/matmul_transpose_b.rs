// Corpus case `tests/diagnostics/unknown_key/matmul_transpose_b.toml`: the macro rejects it with the same diagnostic as `kfam check`.
mod tables {
    kfam_runtime::manifest!("../tests/diagnostics/unknown_key/matmul_transpose_b.toml", abi = "../manifest/abi.toml");
}

fn main() {
    let _ = tables::FAMILIES.len();
}
