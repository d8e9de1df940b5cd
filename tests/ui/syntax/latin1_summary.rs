// Corpus case `tests/diagnostics/syntax/latin1_summary`: the macro rejects it with the same diagnostic as `kfam check`.
mod tables {
    kfam_runtime::manifest!("../tests/diagnostics/syntax/latin1_summary");
}

fn main() {
    let _ = tables::FAMILIES.len();
}
