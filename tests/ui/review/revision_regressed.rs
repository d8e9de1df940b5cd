// Corpus case `tests/diagnostics/review/revision_regressed`: the macro rejects it with the same diagnostic as `kfam check`.
mod tables {
    kfam_runtime::manifest!("../tests/diagnostics/review/revision_regressed");
}

fn main() {
    let _ = tables::FAMILIES.len();
}
