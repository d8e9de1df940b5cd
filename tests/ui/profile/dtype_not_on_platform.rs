// Corpus case `tests/diagnostics/profile/dtype_not_on_platform`: the macro rejects it with the same diagnostic as `kfam check`.
mod tables {
    kfam_runtime::manifest!("../tests/diagnostics/profile/dtype_not_on_platform");
}

fn main() {
    let _ = tables::FAMILIES.len();
}
