//! What the server holds: the open documents and the manifests they belong
//! to. The request handlers (`features.rs`) read it; `mod.rs` drives it.

use std::collections::{BTreeSet, HashMap};
use std::path::PathBuf;

use kfam_codegen::live::Manifest;
use lsp_types::Uri;

use super::analysis::Analysis;
use super::keys::Schema;

/// One open document.
pub struct Doc {
    pub uri: Uri,
    pub text: String,
    pub version: i32,
    /// The manifest directory it belongs to.
    pub root: PathBuf,
    pub path: PathBuf,
    pub analysis: Analysis,
}

pub struct Server {
    /// The schema of a catalog without declared targets.
    pub(super) schema: Schema,
    /// Per manifest directory, the schema of its catalog's family files.
    pub(super) schemas: HashMap<PathBuf, Schema>,
    pub(super) manifests: HashMap<PathBuf, Manifest>,
    pub(super) docs: HashMap<Uri, Doc>,
    /// Dotted paths of the values the checker resolved as parameter
    /// references (`returns`, `operation.matmul.a`, ...), learned from its
    /// spans: completion offers parameter names there.
    pub(super) reference_paths: BTreeSet<String>,
}

impl Server {
    /// The schema of the family files of `doc`'s catalog.
    pub(super) fn schema_of(&self, doc: &Doc) -> &Schema {
        self.schemas.get(&doc.root).unwrap_or(&self.schema)
    }
}
