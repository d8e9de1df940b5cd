// Corpus case `tests/diagnostics/receipt/undeclared_codec`: the macro rejects it with the same diagnostic as `kfam check`.
mod tables {
    kfam_runtime::manifest!("../tests/diagnostics/receipt/undeclared_codec");
}

fn main() {
    let _ = tables::FAMILIES.len();
}
