// Corpus case `tests/diagnostics/operation/rope_anonymous_tokens.toml`: the macro rejects it with the same diagnostic as `kfam check`.
mod tables {
    kfam_runtime::manifest!("../tests/diagnostics/operation/rope_anonymous_tokens.toml", abi = "../manifest/abi.toml");
}

fn main() {
    let _ = tables::FAMILIES.len();
}
