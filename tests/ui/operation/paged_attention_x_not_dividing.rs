// Corpus case `tests/diagnostics/operation/paged_attention_x_not_dividing.toml`: the macro rejects it with the same diagnostic as `kfam check`.
mod tables {
    kfam_runtime::manifest!("../tests/diagnostics/operation/paged_attention_x_not_dividing.toml", abi = "../manifest/abi.toml");
}

fn main() {
    let _ = tables::FAMILIES.len();
}
