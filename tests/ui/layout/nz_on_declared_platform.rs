// Corpus case `tests/diagnostics/layout/nz_on_declared_platform`: the macro rejects it with the same diagnostic as `kfam check`.
mod tables {
    kfam_runtime::manifest!("../tests/diagnostics/layout/nz_on_declared_platform");
}

fn main() {
    let _ = tables::FAMILIES.len();
}
