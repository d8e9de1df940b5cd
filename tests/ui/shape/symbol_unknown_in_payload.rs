// Corpus case `tests/diagnostics/shape/symbol_unknown_in_payload.toml`: the macro rejects it with the same diagnostic as `kfam check`.
mod tables {
    kfam_runtime::manifest!("../tests/diagnostics/shape/symbol_unknown_in_payload.toml", abi = "../manifest/abi.toml");
}

fn main() {
    let _ = tables::FAMILIES.len();
}
