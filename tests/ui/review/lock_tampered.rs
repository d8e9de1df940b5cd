// Corpus case `tests/diagnostics/review/lock_tampered`: the macro rejects it with the same diagnostic as `kfam check`.
mod tables {
    kfam_runtime::manifest!("../tests/diagnostics/review/lock_tampered");
}

fn main() {
    let _ = tables::FAMILIES.len();
}
