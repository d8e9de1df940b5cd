// Corpus case `tests/diagnostics/receipt/receipt_for_retired_profile.toml`: the macro rejects it with the same diagnostic as `kfam check`.
mod tables {
    kfam_runtime::manifest!("../tests/diagnostics/receipt/receipt_for_retired_profile.toml", abi = "../manifest/abi.toml");
}

fn main() {
    let _ = tables::FAMILIES.len();
}
