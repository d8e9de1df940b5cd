// Corpus case `tests/diagnostics/profile/a2a3_with_xrt_direct.toml`: the macro rejects it with the same diagnostic as `kfam check`.
mod tables {
    kfam_runtime::manifest!("../tests/diagnostics/profile/a2a3_with_xrt_direct.toml", abi = "../manifest/abi.toml");
}

fn main() {
    let _ = tables::FAMILIES.len();
}
