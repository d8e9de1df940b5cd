//! kfam-codegen: one reviewed manifest of approved kernel families, checked
//! and lowered into one IR that every output language is emitted from.
//!
//! Data flows one way: [`load`] (TOML with spans) -> [`check`] (every rule,
//! all diagnostics; lowers valid declarations into [`ir`]) -> emit.

pub mod check;
pub mod diag;
pub mod ir;
pub mod load;
pub mod model;
pub mod names;
pub mod vocab;

use std::path::Path;

use diag::Report;

/// Load and check the manifest in `dir`. Returns the IR when there are no
/// errors; the report holds every diagnostic (warnings included), sorted.
pub fn check_dir(dir: &Path) -> (Option<ir::Ir>, Report) {
    let mut report = Report::default();
    let loaded = load::load_dir(dir, &mut report);
    let ir = check::check(&loaded, &mut report);
    report.sort();
    (ir, report)
}

/// Same as [`check_dir`] for documents already in memory: `abi` and
/// `families` are `(display path, text)` pairs.
pub fn check_sources(abi: Option<(String, String)>, families: Vec<(String, String)>) -> (Option<ir::Ir>, Report) {
    let mut report = Report::default();
    let loaded = load::load_sources(abi, families, &mut report);
    let ir = check::check(&loaded, &mut report);
    report.sort();
    (ir, report)
}
