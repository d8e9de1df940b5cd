// Corpus case `tests/diagnostics/review/target_code_reused`: the macro rejects it with the same diagnostic as `kfam check`.
mod tables {
    kfam_runtime::manifest!("../tests/diagnostics/review/target_code_reused");
}

fn main() {
    let _ = tables::FAMILIES.len();
}
