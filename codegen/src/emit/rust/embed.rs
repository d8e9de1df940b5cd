//! A catalog embedded in a crate that depends on `kfam_runtime`, by the
//! `manifest!` macro or a build script ([`crate::build`]): its tables and a
//! `CATALOG` value over them, typed by the runtime's records.

use crate::ir::{Ir, Targets};
use crate::plan::Plan;
use crate::vocab::{self, Member};

use super::tables_source;

/// The `CATALOG` item that follows the tables: every runtime decision over
/// the embedded manifest.
pub fn catalog_item(krate: &str) -> String {
    format!(
        "/// These tables as a catalog: every runtime decision over this manifest.\n\
         pub static CATALOG: {krate}::Catalog = {krate}::Catalog {{\n    \
         abi: &ABI,\n    families: FAMILIES,\n    retired: RETIRED,\n    artifacts: ARTIFACTS,\n    \
         family_index: FAMILY_INDEX,\n    artifact_index: ARTIFACT_INDEX,\n}};\n"
    )
}

/// The tables and the `CATALOG` item, as Rust source after `preamble`.
pub fn embedded_source(ir: &Ir, krate: &str, preamble: &str) -> String {
    let mut text = tables_source(&Plan::new(ir), krate, preamble);
    text.push('\n');
    text.push_str(&catalog_item(krate));
    text
}

/// The declared vocabularies whose members differ from those of
/// `kfam_runtime`'s `Platform`, `Backend`, `Runtime` and `ExecutionMode`
/// (kfam's defaults), each with the catalog's member names: tables typed
/// by the runtime cannot name them.
pub fn foreign_targets(ir: &Ir) -> Vec<(&'static str, Vec<String>)> {
    let runtime = Targets::default();
    let key = |m: &Member<'_>| (m.variant.to_owned(), m.code);
    [
        vocab::PLATFORM,
        vocab::BACKEND,
        vocab::RUNTIME,
        vocab::EXECUTION_MODE,
    ]
    .into_iter()
    .filter_map(|v| {
        let members = ir.members(&v);
        let ours: Vec<_> = members.iter().map(key).collect();
        let mut theirs: Vec<_> = runtime.members(&v)?.iter().map(key).collect();
        theirs.sort_by_key(|t| t.1);
        let names = || members.iter().map(|m| m.spelling.to_owned()).collect();
        (ours != theirs).then(|| (v.name, names()))
    })
    .collect()
}

/// Why tables typed by `kfam_runtime` cannot embed the catalog, or `None`
/// when they can (the one refusal `manifest!` and build scripts share).
pub fn embedding_refusal(ir: &Ir) -> Option<String> {
    let foreign = foreign_targets(ir);
    if foreign.is_empty() {
        return None;
    }
    let list = foreign
        .into_iter()
        .map(|(v, names)| format!("{v} ({})", names.join(", ")))
        .collect::<Vec<_>>()
        .join("; ");
    Some(format!(
        "the manifest declares its own targets: {list}; `kfam_runtime`'s `Platform`, `Backend`, `Runtime` and `ExecutionMode` have kfam's default members, so its tables cannot be embedded in this version\n  = help: use the manifest's generated C or Python outputs, or declare kfam's default members in `abi.toml` (docs/macro.md, \"Catalogs with their own platforms\")"
    ))
}
