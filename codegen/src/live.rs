//! Checking one family file as it is edited: the manifest on disk is loaded
//! once, and each check parses only the edited text and runs the rules that
//! concern that file ([`check::check_one`]: the same rules `kfam check` runs,
//! the cross-file ones against the other files as loaded), then the review
//! gate's rules for it ([`Gate::family`]).

use std::path::{Path, PathBuf};

use crate::check::{self, FamilyOutcome};
use crate::diag::{Diagnostic, FileId, Location, Report, SourceMap};
use crate::gate::Gate;
use crate::load::{self, Loaded};
use crate::model::{FamilyFile, LockEntry, Spanned};

/// A manifest loaded from disk, for checking edited family files against.
pub struct Manifest {
    loaded: Loaded,
    /// Every file read, and the diagnostics of loading them.
    report: Report,
    /// Files in `report.sources` that belong to the manifest on disk; a
    /// check adds the edited text after them.
    on_disk: usize,
}

/// One check of an edited family file.
#[derive(Debug)]
pub struct FileCheck {
    /// The edited text's id in [`Manifest::sources`] (until the next check).
    pub id: FileId,
    /// Every diagnostic `kfam check` reports for this file, sorted.
    pub diagnostics: Vec<Diagnostic>,
    /// The file as parsed, when it parses.
    pub file: Option<FamilyFile>,
    /// What the checker found: the lowered family and parameter references
    /// (empty when the file does not parse).
    pub outcome: Option<FamilyOutcome>,
}

impl Manifest {
    /// Load the manifest directory `root` (`abi.toml`, `families/`, the lock
    /// and tombstones). Problems of other files stay with those files.
    pub fn open(root: &Path) -> Self {
        let mut report = Report::default();
        let loaded = load::load_dir(root, &mut report);
        let on_disk = report.sources.len();
        Manifest {
            loaded,
            report,
            on_disk,
        }
    }

    pub fn root(&self) -> &Path {
        &self.loaded.root
    }

    /// The catalog's platforms, backends, runtimes and execution modes.
    pub fn targets(&mut self) -> crate::ir::Targets {
        crate::check::declared_targets(&self.loaded, &mut self.report)
    }

    pub fn sources(&self) -> &SourceMap {
        &self.report.sources
    }

    /// The lock entries of a family name (approved revisions).
    pub fn approved(&self, name: &str) -> Vec<&Spanned<LockEntry>> {
        Gate::new(&self.loaded).entries(name).to_vec()
    }

    /// The families on disk, with their files.
    pub fn families(&self) -> &[(FileId, FamilyFile)] {
        &self.loaded.families
    }

    /// Check `text` as the content of the family file `path` (a path under
    /// this manifest's `families/`, spelled as the loader spells it: the root
    /// joined with `families/<file>`).
    pub fn check_file(&mut self, path: &Path, text: String) -> FileCheck {
        self.report.sources.truncate(self.on_disk);
        let shown = path.to_string_lossy().replace('\\', "/");
        let mut report = Report {
            sources: std::mem::take(&mut self.report.sources),
            diagnostics: Vec::new(),
        };
        let id = report.sources.add(shown.clone(), text);
        let mut repaired = load::Loaded::default();
        let file = load::parse_family(id, &mut report, &mut repaired);
        // load -> check -> gate, as `kfam check` runs them, for this file.
        let outcome = file.as_ref().map(|f| {
            let outcome = check::check_one(&self.loaded, id, f, &repaired, &mut report);
            if let Some(family) = &outcome.family {
                Gate::new(&self.loaded).family(id, f, family, &mut report);
            }
            outcome
        });
        // A file that did not read when the manifest was loaded (too large)
        // has a path-only diagnostic.
        report.diagnostics.extend(
            self.report
                .diagnostics
                .iter()
                .filter(|d| matches!(&d.location, Location::Path(p) if *p == shown))
                .cloned(),
        );
        report.sort();
        self.report.sources = report.sources;
        FileCheck {
            id,
            diagnostics: report.diagnostics,
            file,
            outcome,
        }
    }
}

/// The manifest directory a family file belongs to: the parent of its
/// `families/` directory, when that holds `abi.toml`.
pub fn manifest_root(file: &Path) -> Option<PathBuf> {
    // The loader's rule for which files of `families/` are declarations.
    let name = file.file_name()?.to_str()?;
    if name.starts_with('.') || !name.ends_with(".toml") {
        return None;
    }
    let dir = file.parent()?;
    if dir.file_name()? != "families" {
        return None;
    }
    let root = dir.parent()?;
    root.join("abi.toml").is_file().then(|| root.to_path_buf())
}
