// Corpus case `tests/diagnostics/catalog/license_lowercase_or.abi.toml`: the macro rejects it with the same diagnostic as `kfam check`.
mod tables {
    kfam_runtime::manifest!("../manifest/families/add_bf16_1024.toml", abi = "../tests/diagnostics/catalog/license_lowercase_or.abi.toml");
}

fn main() {
    let _ = tables::FAMILIES.len();
}
