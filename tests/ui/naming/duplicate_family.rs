// Corpus case `tests/diagnostics/naming/duplicate_family`: the macro rejects it with the same diagnostic as `kfam check`.
mod tables {
    kfam_runtime::manifest!("../tests/diagnostics/naming/duplicate_family");
}

fn main() {
    let _ = tables::FAMILIES.len();
}
