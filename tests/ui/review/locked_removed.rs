// Corpus case `tests/diagnostics/review/locked_removed`: the macro rejects it with the same diagnostic as `kfam check`.
mod tables {
    kfam_runtime::manifest!("../tests/diagnostics/review/locked_removed");
}

fn main() {
    let _ = tables::FAMILIES.len();
}
