// Corpus case `tests/diagnostics/unknown_key/two_unknown_keys_and_bad_alias.toml`: the macro rejects it with the same diagnostic as `kfam check`.
mod tables {
    kfam_runtime::manifest!("../tests/diagnostics/unknown_key/two_unknown_keys_and_bad_alias.toml", abi = "../manifest/abi.toml");
}

fn main() {
    let _ = tables::FAMILIES.len();
}
