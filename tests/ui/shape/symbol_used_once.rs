// Corpus case `tests/diagnostics/shape/symbol_used_once.toml`: the macro rejects it with the same diagnostic as `kfam check`.
// A warning alone does not fail a build; denying `deprecated` makes it visible here.
#![deny(deprecated)]
mod tables {
    kfam_runtime::manifest!("../tests/diagnostics/shape/symbol_used_once.toml", abi = "../manifest/abi.toml");
}

fn main() {
    let _ = tables::FAMILIES.len();
}
