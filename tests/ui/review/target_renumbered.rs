// Corpus case `tests/diagnostics/review/target_renumbered`: the macro rejects it with the same diagnostic as `kfam check`.
mod tables {
    kfam_runtime::manifest!("../tests/diagnostics/review/target_renumbered");
}

fn main() {
    let _ = tables::FAMILIES.len();
}
