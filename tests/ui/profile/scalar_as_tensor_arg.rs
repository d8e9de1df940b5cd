// Corpus case `tests/diagnostics/profile/scalar_as_tensor_arg.toml`: the macro rejects it with the same diagnostic as `kfam check`.
mod tables {
    kfam_runtime::manifest!("../tests/diagnostics/profile/scalar_as_tensor_arg.toml", abi = "../manifest/abi.toml");
}

fn main() {
    let _ = tables::FAMILIES.len();
}
