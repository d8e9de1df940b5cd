// Corpus case `tests/diagnostics/operation/packed_attention_offsets_dtype.toml`: the macro rejects it with the same diagnostic as `kfam check`.
mod tables {
    kfam_runtime::manifest!("../tests/diagnostics/operation/packed_attention_offsets_dtype.toml", abi = "../manifest/abi.toml");
}

fn main() {
    let _ = tables::FAMILIES.len();
}
