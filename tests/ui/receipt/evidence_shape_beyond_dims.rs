// Corpus case `tests/diagnostics/receipt/evidence_shape_beyond_dims.toml`: the macro rejects it with the same diagnostic as `kfam check`.
mod tables {
    kfam_runtime::manifest!("../tests/diagnostics/receipt/evidence_shape_beyond_dims.toml", abi = "../manifest/abi.toml");
}

fn main() {
    let _ = tables::FAMILIES.len();
}
