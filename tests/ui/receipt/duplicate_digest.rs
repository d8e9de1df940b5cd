// Corpus case `tests/diagnostics/receipt/duplicate_digest`: the macro rejects it with the same diagnostic as `kfam check`.
mod tables {
    kfam_runtime::manifest!("../tests/diagnostics/receipt/duplicate_digest");
}

fn main() {
    let _ = tables::FAMILIES.len();
}
