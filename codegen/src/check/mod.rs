//! Check: enforce every manifest rule and, for declarations without errors,
//! lower them into the IR. One walk per family, so each name is resolved once
//! and a rule is stated in one place. All diagnostics of a run are collected.
//!
//! The review gate (`crate::gate`) is the next stage, not part of this one:
//! the entry points (`crate::check_loaded`, `live`) run it over what
//! [`check`] lowered.

use std::collections::HashMap;
use std::ops::Range;

use crate::diag::{Code, Diagnostic, FileId, Report};
use crate::ir;
use crate::load::Loaded;
use crate::model;

mod abi;
mod catalog;
mod dims;
mod evidence;
mod family;
mod operation;
mod params;
mod profiles;
mod receipts;
mod targets;
mod text;

use abi::check_abi;
use catalog::check_catalog;
use family::{FamilyChecker, Limits, DEFAULT_LIMITS};
pub use family::{FamilyOutcome, Reference};
pub use targets::Kind as TargetKind;
use targets::{check_targets, Declared};
// `is_forbidden_char` and the limits live in `crate::limits`; these names
// stay for callers that still spell them here.
pub use crate::limits::{
    is_forbidden_char, ARG_CEILING, MAX_TEXT_CHARS, PREPARED_CEILING, RANK_CEILING,
};
pub use text::{artifact_path_problem, text_problems, MAX_LISTED_NAMES};

/// What [`check`] found besides its diagnostics: the ABI, when `abi.toml`
/// is valid, and every family that lowered without errors of its own.
#[derive(Debug, Default)]
pub struct Checked {
    pub abi: Option<ir::Abi>,
    /// The catalog's identity, when `[catalog]` is valid (or absent).
    pub catalog: Option<ir::Catalog>,
    /// The catalog's platforms, ..., when their declarations are valid.
    pub targets: Option<ir::Targets>,
    /// Unsorted: in file order.
    pub families: Vec<ir::Family>,
}

impl Checked {
    /// The IR, when `report` (load, check and, when it ran, the review
    /// gate) has no errors; `retired` gives the tombstones it carries.
    pub fn into_ir(
        self,
        report: &Report,
        retired: impl FnOnce() -> Vec<ir::Retired>,
    ) -> Option<ir::Ir> {
        // Any error fails the manifest, including those `load` reported for
        // files that never reached the checker (syntax, types, I/O): a lock that
        // did not parse would otherwise be rewritten without its history.
        if report.has_errors() {
            return None;
        }
        let abi = self.abi?;
        let catalog = self.catalog?;
        let targets = self.targets?;
        let mut families = self.families;
        families.sort_by(|a, b| a.name.cmp(&b.name));
        Some(ir::Ir {
            catalog,
            abi,
            targets,
            families,
            retired: retired(),
        })
    }
}

/// Check a loaded manifest: every rule, each family lowered when it has no
/// errors of its own. The IR follows from [`Checked::into_ir`] once the
/// review gate has run.
/// What `abi` declares, its diagnostics dropped (kfam's defaults without
/// an `abi.toml`); the docs it checks need `report`'s sources.
fn quiet_targets(abi: Option<&(FileId, model::AbiFile)>, report: &mut Report) -> Declared {
    abi.map_or_else(Declared::defaults, |(abi_id, a)| {
        let mut quiet = Report {
            sources: std::mem::take(&mut report.sources),
            diagnostics: Vec::new(),
        };
        let declared = check_targets(*abi_id, a, &mut quiet).0;
        report.sources = quiet.sources;
        declared
    })
}

/// The platforms, backends, runtimes and execution modes of `loaded`'s
/// catalog, as far as its `abi.toml` declares them validly (what a profile
/// may name; the language server completes them). `report` holds the
/// sources `loaded` was read into; no diagnostic is added.
pub fn declared_targets(loaded: &Loaded, report: &mut Report) -> ir::Targets {
    quiet_targets(loaded.abi.as_ref(), report).targets
}

pub fn check(loaded: &Loaded, report: &mut Report) -> Checked {
    // What `load` reported stays; the checker's own findings that only
    // repeat a repaired structural mistake are dropped below.
    let loaded_count = report.diagnostics.len();
    // A repaired abi.toml (a missing or mistyped key read as a placeholder)
    // is judged, never lowered, as a repaired family is.
    let abi = loaded.abi.as_ref().and_then(|(id, abi)| {
        let checked = check_abi(*id, abi, report);
        checked.filter(|_| !loaded.recovered.contains_key(id))
    });
    let catalog = loaded.abi.as_ref().and_then(|(id, abi)| {
        let checked = check_catalog(*id, abi.catalog.as_ref(), report);
        checked.filter(|_| !loaded.recovered.contains_key(id))
    });
    let (declared, targets_ok) = match &loaded.abi {
        Some((id, abi)) => {
            let (d, ok) = check_targets(*id, abi, report);
            (d, ok && !loaded.recovered.contains_key(id))
        }
        None => (Declared::defaults(), false),
    };
    // The torch schemas of the families name the catalog's namespace.
    let namespace = catalog
        .as_ref()
        .map_or(crate::limits::DEFAULT_CATALOG_NAME, |c| {
            c.torch_namespace.as_str()
        });
    // Without a valid abi.toml, keep checking families against the documented
    // default limits so one run still reports every mistake (and none that
    // only a placeholder limit would cause).
    let limits = abi.as_ref().map_or(DEFAULT_LIMITS, |a| Limits {
        max_tensor_args: a.max_tensor_args,
        max_scalar_args: a.max_scalar_args,
        max_rank: a.max_rank,
    });

    let mut unique = CrossFile::default();
    let mut jobs = Vec::with_capacity(loaded.families.len());
    for (id, file) in &loaded.families {
        let duplicate = unique.add(*id, file, report);
        jobs.push((*id, file, duplicate));
    }
    // Each family is checked on its own (two threads for large manifests).
    let sources = &report.sources;
    let checked = crate::par::map(&jobs, |&(id, file, duplicate)| {
        FamilyChecker::new(id, file, &limits, sources)
            .duplicate_name(duplicate)
            .tainted(loaded.tainted(id))
            .torch_namespace(namespace)
            .targets(&declared)
            .run()
    });
    let mut families = Vec::with_capacity(checked.len());
    for ((id, _, _), outcome) in jobs.iter().zip(checked) {
        report.diagnostics.extend(outcome.diagnostics);
        // A repaired document is judged, never lowered.
        if !loaded.recovered.contains_key(id) {
            families.extend(outcome.family);
        }
    }

    let own = report.diagnostics.split_off(loaded_count);
    report
        .diagnostics
        .extend(own.into_iter().filter(|d| !loaded.is_cascade(d)));
    Checked {
        abi,
        catalog,
        targets: targets_ok.then_some(declared.targets),
        families,
    }
}

/// One family file checked against the rest of a loaded manifest: the rules
/// of [`check`] that concern this file, and nothing else (the language
/// server's per-keystroke check; `kfam check` runs the same pieces over every
/// file). `others` is the manifest as loaded, in which a family read from
/// `id`'s path is replaced by `file`; `repaired` records what loading `id`
/// repaired (`load::parse_family`); diagnostics go to `report`, whose
/// sources hold every file of `others` and `id`. The review gate's rules for
/// the lowered family ([`crate::gate::Gate::family`]) are the caller's next
/// step, as [`crate::live`] does.
pub fn check_one(
    others: &Loaded,
    id: FileId,
    file: &model::FamilyFile,
    repaired: &Loaded,
    report: &mut Report,
) -> FamilyOutcome {
    // abi.toml's own diagnostics belong to that file; only its limits and
    // the catalog's torch namespace matter here.
    let abi = others
        .abi
        .as_ref()
        .filter(|(abi_id, _)| !others.recovered.contains_key(abi_id));
    let namespace = abi
        .and_then(|(abi_id, a)| check_catalog(*abi_id, a.catalog.as_ref(), &mut Report::default()))
        .map(|c| c.torch_namespace);
    let declared = quiet_targets(abi, report);
    let limits = abi
        .and_then(|(abi_id, a)| check_abi(*abi_id, a, &mut Report::default()))
        .map_or(DEFAULT_LIMITS, |a| Limits {
            max_tensor_args: a.max_tensor_args,
            max_scalar_args: a.max_scalar_args,
            max_rank: a.max_rank,
        });
    let path = report.sources.get(id).path.clone();
    // The cross-file rules in file order, as `check` runs them: a duplicate
    // is reported on the later file, against the first.
    let mut unique = CrossFile::default();
    let mut scratch = Report {
        sources: std::mem::take(&mut report.sources),
        diagnostics: Vec::new(),
    };
    let mut duplicate = false;
    let mut placed = false;
    for (other, f) in &others.families {
        let other_path = &scratch.sources.get(*other).path;
        if *other_path == path {
            continue;
        }
        if !placed && *other_path > path {
            placed = true;
            duplicate = unique.add(id, file, &mut scratch);
        }
        unique.add(*other, f, &mut scratch);
    }
    if !placed {
        duplicate = unique.add(id, file, &mut scratch);
    }
    report.sources = scratch.sources;
    report.diagnostics.extend(
        scratch
            .diagnostics
            .into_iter()
            .filter(|d| d.file() == Some(id)),
    );
    let mut outcome = FamilyChecker::new(id, file, &limits, &report.sources)
        .duplicate_name(duplicate)
        .tainted(repaired.tainted(id))
        .torch_namespace(
            namespace
                .as_deref()
                .unwrap_or(crate::limits::DEFAULT_CATALOG_NAME),
        )
        .targets(&declared)
        .run();
    // As in `check`: findings that only repeat a repaired structural mistake
    // are dropped, and a repaired document is judged, never lowered.
    outcome.diagnostics.retain(|d| !repaired.is_cascade(d));
    if repaired.recovered.contains_key(&id) {
        outcome.family = None;
    }
    report.diagnostics.append(&mut outcome.diagnostics);
    outcome
}

/// Names and digests are unique across files: one pass in file order, so
/// the first declaration is the one the others are reported against.
#[derive(Default)]
struct CrossFile<'a> {
    names: HashMap<&'a str, (FileId, Range<usize>)>,
    digests: HashMap<&'a str, (FileId, Range<usize>)>,
}

impl<'a> CrossFile<'a> {
    /// Record one family file; report its duplicates. True when its name is
    /// declared by an earlier file.
    fn add(&mut self, id: FileId, file: &'a model::FamilyFile, report: &mut Report) -> bool {
        let name = &file.name;
        let duplicate = if let Some((first, span)) = self.names.get(name.value.as_str()) {
            let first_at = position(report, *first, span);
            report.diagnostics.push(
                Diagnostic::error(
                    Code::DuplicateFamily,
                    id,
                    name.span.clone(),
                    format!("family `{}` is declared twice", name.value),
                )
                .label("second declaration")
                .note(format!("first declared at {first_at}"))
                .related(*first, span.clone(), "first declared here")
                .help(
                    "family names are unique; rename one, or bump `revision` in the existing file",
                ),
            );
            true
        } else {
            self.names.insert(&name.value, (id, name.span.clone()));
            false
        };
        for r in &file.receipts {
            let sha = &r.value.sha256;
            if let Some((first_id, first_span)) = self.digests.get(sha.value.as_str()) {
                let first_at = position(report, *first_id, first_span);
                report.diagnostics.push(
                    Diagnostic::error(Code::DuplicateDigest, id, sha.span.clone(), "artifact digest recorded twice")
                        .label("already recorded by another receipt")
                        .note(format!("first recorded at {first_at}"))
                        .related(*first_id, first_span.clone(), "first recorded here")
                        .help("each qualified artifact has its own digest; write the output of `sha256sum ARTIFACT`"),
                );
            } else {
                self.digests.insert(&sha.value, (id, sha.span.clone()));
            }
        }
        duplicate
    }
}

/// `path:line:column` of a span's start, for notes that point at a second place.
fn position(report: &Report, id: FileId, span: &Range<usize>) -> String {
    let (line, column) = report.sources.line_col(id, span.start);
    format!("{}:{line}:{column}", report.sources.get(id).path)
}
