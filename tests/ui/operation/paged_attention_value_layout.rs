// Corpus case `tests/diagnostics/operation/paged_attention_value_layout.toml`: the macro rejects it with the same diagnostic as `kfam check`.
mod tables {
    kfam_runtime::manifest!("../tests/diagnostics/operation/paged_attention_value_layout.toml", abi = "../manifest/abi.toml");
}

fn main() {
    let _ = tables::FAMILIES.len();
}
