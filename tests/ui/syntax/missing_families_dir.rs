// Corpus case `tests/diagnostics/syntax/missing_families_dir`: the macro rejects it with the same diagnostic as `kfam check`.
mod tables {
    kfam_runtime::manifest!("../tests/diagnostics/syntax/missing_families_dir");
}

fn main() {
    let _ = tables::FAMILIES.len();
}
