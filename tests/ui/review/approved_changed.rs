// Corpus case `tests/diagnostics/review/approved_changed`: the macro rejects it with the same diagnostic as `kfam check`.
mod tables {
    kfam_runtime::manifest!("../tests/diagnostics/review/approved_changed");
}

fn main() {
    let _ = tables::FAMILIES.len();
}
