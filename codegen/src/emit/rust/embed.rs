//! A catalog embedded in a crate that depends on `kfam_runtime`, by the
//! `manifest!` macro or a build script ([`crate::build`]): its tables and a
//! `CATALOG` value over them, typed by the runtime's records.

use crate::ir::Ir;
use crate::plan::Plan;

use super::tables::push_str_lit;
use super::tables_source;

/// The `CATALOG` item that follows the tables of the catalog `name` whose
/// content has `digest` ([`crate::ir::catalog_digest`]): every runtime
/// decision over the embedded manifest.
pub fn catalog_item(krate: &str, catalog_name: &str, digest: &str) -> String {
    let mut name = String::new();
    push_str_lit(&mut name, catalog_name);
    format!(
        "/// These tables as a catalog: every runtime decision over this manifest.\n\
         pub static CATALOG: {krate}::Catalog = {krate}::Catalog {{\n    \
         name: {name},\n    digest: {digest:?},\n    \
         abi: &ABI,\n    targets: &TARGETS,\n    families: FAMILIES,\n    retired: RETIRED,\n    artifacts: ARTIFACTS,\n    \
         family_index: FAMILY_INDEX,\n    artifact_index: ARTIFACT_INDEX,\n}};\n",
    )
}

/// The tables and the `CATALOG` item, as Rust source after `preamble`.
pub fn embedded_source(ir: &Ir, krate: &str, preamble: &str) -> String {
    planned_source(&Plan::new(ir), krate, preamble)
}

/// [`embedded_source`] of a plan made already (`kfam generate`'s).
pub(super) fn planned_source(plan: &Plan<'_>, krate: &str, preamble: &str) -> String {
    let ir = plan.ir;
    let mut text = tables_source(plan, krate, preamble);
    text.push('\n');
    text.push_str(&catalog_item(
        krate,
        &ir.catalog.name,
        &crate::ir::catalog_digest(ir),
    ));
    text
}
