// Corpus case `tests/diagnostics/review/bad_tombstone`: the macro rejects it with the same diagnostic as `kfam check`.
mod tables {
    kfam_runtime::manifest!("../tests/diagnostics/review/bad_tombstone");
}

fn main() {
    let _ = tables::FAMILIES.len();
}
