// Corpus case `tests/diagnostics/receipt/evidence_qualify_on_nz.toml`: the macro rejects it with the same diagnostic as `kfam check`.
mod tables {
    kfam_runtime::manifest!("../tests/diagnostics/receipt/evidence_qualify_on_nz.toml", abi = "../manifest/abi.toml");
}

fn main() {
    let _ = tables::FAMILIES.len();
}
