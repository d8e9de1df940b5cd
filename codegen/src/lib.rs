//! kfam-codegen: one reviewed manifest of approved kernel families, checked
//! and lowered into one IR that every output language is emitted from.
//!
//! Data flows one way: [`load`] (TOML with spans) -> [`check`] (every rule,
//! all diagnostics; lowers valid declarations into [`ir`]) -> [`gate`] (the
//! review gate over `approved.lock`) -> [`emit`] -> [`write`](mod@write).
//! The entry points below run the stages in that order ([`check_loaded`] is
//! check and gate); no stage calls a later one, and the module graph has no
//! circles (docs/architecture.md, "Module graph").
//!
//! The API is the entry points below ([`check_dir`], [`generate_dir`],
//! ...), [`build`] for build scripts, [`load`] and [`model`] (the manifest
//! as read), [`diag`] (the diagnostics and their renderers), [`ir`] (the
//! checked catalog) and [`record`] (the declarations its records follow),
//! [`emit`], [`write`](mod@write) and [`origin`] (the generated files),
//! [`diff`] and [`vocab`]. The other
//! modules are public for the `kfam` binary, `kfam-macros` and the tests:
//! hidden from these docs and not part of the API semver covers
//! (docs/rust.md, "The generator as a library").

pub mod build;
#[doc(hidden)]
pub mod canonical;
#[doc(hidden)]
pub mod check;
#[doc(hidden)]
pub mod codes;
#[doc(hidden)]
pub mod compiled_meta;
pub mod diag;
pub mod diff;
pub mod emit;
#[doc(hidden)]
pub mod fresh;
#[doc(hidden)]
pub mod gate;
#[doc(hidden)]
pub mod git;
#[doc(hidden)]
pub mod init;
pub mod ir;
#[doc(hidden)]
pub mod limits;
#[doc(hidden)]
pub mod live;
pub mod load;
#[doc(hidden)]
pub mod lookup_hash {
    include!("lookup_hash.rs");
    /// This file's text, which the Rust emitter writes out.
    pub const SOURCE: &str = include_str!("lookup_hash.rs");
}
pub mod model;
#[doc(hidden)]
pub mod names;
pub mod origin;
mod par;
#[doc(hidden)]
pub mod plan;
pub mod record;
#[doc(hidden)]
pub mod synth;
pub mod vocab;
pub mod write;

use std::path::{Path, PathBuf};

use diag::Report;

/// Load and check the manifest in `dir`. Returns the IR when there are no
/// errors; the report holds every diagnostic (warnings included), sorted.
pub fn check_dir(dir: &Path) -> (Option<ir::Ir>, Report) {
    let (ir, report, _) = analyze_dir(dir);
    (ir, report)
}

/// Every generated file (under the banner of the usual layout,
/// `Origin::default()`) and the text of `approved.lock` for a checked
/// manifest: the emitters and the lock are computed concurrently.
pub fn generate_files(loaded: &load::Loaded, ir: &ir::Ir) -> (Vec<emit::GeneratedFile>, String) {
    emit::generate_with(ir, &origin::Origin::default(), || {
        gate::lock_contents(loaded, ir)
    })
}

/// The command that regenerates `out_dir` from `manifest_dir`, with both
/// directories as given (relative to the working directory, or absolute):
/// what `kfam generate --check` tells a user whose outputs are stale.
/// Unlike the banner ([`origin::Origin`]), it is printed, not written, so
/// it may depend on where the user is. A path that a POSIX shell would
/// split or expand is single-quoted.
pub fn regenerate_command(manifest_dir: &Path, out_dir: &Path) -> String {
    format!(
        "kfam generate {} --out {}",
        shell_word(&manifest_dir.to_string_lossy()),
        shell_word(&out_dir.to_string_lossy())
    )
}

/// `text` as one POSIX shell word: as it is when it holds only characters
/// no shell treats specially, else single-quoted.
pub fn shell_word(text: &str) -> String {
    let plain = !text.is_empty()
        && !text.starts_with('~')
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._-+@,=/:%".contains(&b));
    if plain {
        text.to_owned()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

/// The stages after [`load`]: [`check`] (every rule; each clean family
/// lowered), then the review [`gate`] over the lowered families; the IR when
/// neither found an error (nor `load`: `report` holds its diagnostics).
/// Diagnostics are appended unsorted; callers sort the report.
pub fn check_loaded(loaded: &load::Loaded, report: &mut Report) -> Option<ir::Ir> {
    let checked = check::check(loaded, report);
    gate::check(loaded, &checked.families, checked.targets.as_ref(), report);
    let mut ir = checked.into_ir(report, || gate::retired(loaded))?;
    gate::approve(loaded, &mut ir.families);
    c_names_distinct(loaded, &ir, report).then_some(ir)
}

/// [`check_loaded`] without the review gate.
fn check_ungated(loaded: &load::Loaded, report: &mut Report) -> Option<ir::Ir> {
    let ir = check::check(loaded, report).into_ir(report, Vec::new)?;
    c_names_distinct(loaded, &ir, report).then_some(ir)
}

/// The C names the lowered catalog would define are distinct (KF0107): a
/// name two families (or a family and the header) spell alike is known only
/// once the names are spelled, so this runs on the IR, with the C
/// emitter's own naming. One error per family and other definer, at the
/// family that defines the name second.
fn c_names_distinct(loaded: &load::Loaded, ir: &ir::Ir, report: &mut Report) -> bool {
    let clashes = emit::c::c_name_clashes(ir);
    if clashes.is_empty() {
        return true;
    }
    let decl = |i: usize| {
        let name = &ir.families[i].name;
        loaded
            .families
            .iter()
            .find(|(_, f)| f.name.value == *name)
            .map(|(id, f)| (*id, f.name.span.clone()))
    };
    let mut reported: Vec<(usize, Option<usize>)> = Vec::new();
    for clash in &clashes {
        let families: Vec<usize> = clash.owners.iter().flatten().copied().collect();
        let Some(&culprit) = families.last() else {
            continue;
        };
        // The other definer: the header, another family, or the same one.
        let other = if clash.owners.contains(&None) {
            None
        } else {
            Some(families[families.len() - 2])
        };
        if reported.contains(&(culprit, other)) {
            continue;
        }
        reported.push((culprit, other));
        let Some((id, span)) = decl(culprit) else {
            continue;
        };
        let family = &ir.families[culprit].name;
        let name = &clash.name;
        let message = match other {
            None => format!("family `{family}` defines the C name `{name}`, which the header defines for itself"),
            Some(o) if o == culprit => format!("family `{family}` defines the C name `{name}` twice"),
            Some(o) => format!("family `{family}` defines the C name `{name}`, which family `{}` defines too", ir.families[o].name),
        };
        let mut d = diag::Diagnostic::error(diag::Code::CNameClash, id, span, message)
            .label("its C names collide")
            .help("rename the family (or the parameter or profile the name comes from) so that the generated C names differ");
        if let Some((oid, ospan)) = other.filter(|&o| o != culprit).and_then(decl) {
            d = d.related(
                oid,
                ospan,
                format!(
                    "`{}` defines `{name}` too",
                    ir.families[other.unwrap_or(culprit)].name
                ),
            );
        }
        report.diagnostics.push(d);
    }
    false
}

/// [`check_dir`] without the review gate: the lock and tombstones are not
/// consulted. `kfam diff` uses it, so a reviewer can see what a change does
/// before the lock accepts it.
pub fn check_dir_ungated(dir: &Path) -> (Option<ir::Ir>, Report) {
    let mut report = Report::default();
    let loaded = load::load_dir(dir, &mut report);
    let ir = check_ungated(&loaded, &mut report);
    report.sort();
    (ir, report)
}

/// [`check_dir_ungated`] for a manifest directory held in memory (a git
/// revision's, read by [`git::read_tree`]): diagnostics name its files as
/// the tree does (`REV:manifest/abi.toml`).
pub fn check_tree_ungated(tree: &load::Tree) -> (Option<ir::Ir>, Report) {
    let mut report = Report::default();
    let loaded = load::load_tree(tree, &mut report);
    let ir = check_ungated(&loaded, &mut report);
    report.sort();
    (ir, report)
}

/// [`check_dir`], plus what was loaded (for the lock).
fn analyze_dir(dir: &Path) -> (Option<ir::Ir>, Report, load::Loaded) {
    let mut report = Report::default();
    let loaded = load::load_dir(dir, &mut report);
    let ir = check_loaded(&loaded, &mut report);
    report.sort();
    (ir, report, loaded)
}

/// Check one family file against an ABI file (no review gate): the
/// proc-macro's single-family mode.
pub fn check_files(abi: &Path, families: &[std::path::PathBuf]) -> (Option<ir::Ir>, Report) {
    let mut report = Report::default();
    let loaded = load::load_files(abi, families, &mut report);
    let ir = check_ungated(&loaded, &mut report);
    report.sort();
    (ir, report)
}

/// Same as [`check_dir`] for documents already in memory: `abi` and
/// `families` are `(display path, text)` pairs (no lock: the gate has
/// nothing to compare with).
pub fn check_sources(
    abi: Option<(String, String)>,
    families: Vec<(String, String)>,
) -> (Option<ir::Ir>, Report) {
    let mut report = Report::default();
    let loaded = load::load_sources(abi, families, &mut report);
    let ir = check_loaded(&loaded, &mut report);
    report.sort();
    (ir, report)
}

/// Why [`generate_dir`] failed.
#[derive(Debug)]
pub enum GenerateError {
    /// The manifest has errors; the report holds them.
    Manifest(Report),
    Write(write::WriteError),
    /// A locked run ([`GenerateOptions::locked`]): `approved.lock` (the
    /// path) does not record what the manifest approves, and nothing was
    /// written. The report holds the run's warnings.
    LockStale {
        lock: PathBuf,
        report: Report,
    },
}

/// What [`generate_dir`] did or found.
#[derive(Debug)]
pub enum GenerateOutcome {
    Written {
        report: Report,
        outcome: write::Outcome,
    },
    /// `check` mode: the problems found (empty when `out` is up to date).
    Checked {
        report: Report,
        problems: Vec<write::Problem>,
    },
}

/// How [`generate_dir_with`] runs.
#[derive(Clone, Copy, Debug)]
pub struct GenerateOptions {
    /// Compare the outputs with `out_dir` and write nothing.
    pub check: bool,
    /// Answer from the freshness stamp when nothing changed, and record one
    /// after a clean run ([`fresh`]). A caller with a freshness rule of its
    /// own turns it off: cargo reruns the runtime's build script only when
    /// an input changed, so there the stamp would only cost hashing the
    /// generator's executable and the files on every run.
    pub stamp: bool,
    /// Never write `approved.lock`, the review gate (cargo's `--locked`):
    /// when it does not record what the manifest approves, write nothing
    /// and fail ([`GenerateError::LockStale`]). A build runs this way
    /// (`kfam_add_catalog()`): it never writes the source tree.
    pub locked: bool,
}

/// The one entry of generation (rust-analyzer's `generate(check)` shape):
/// load, check, lower and emit the manifest in `manifest_dir`, then write the
/// outputs into `out_dir` or, with `check`, only compare them. The
/// freshness stamp is used ([`GenerateOptions::stamp`]).
pub fn generate_dir(
    manifest_dir: &Path,
    out_dir: &Path,
    check: bool,
) -> Result<GenerateOutcome, GenerateError> {
    generate_dir_with(
        manifest_dir,
        out_dir,
        GenerateOptions {
            check,
            stamp: true,
            locked: false,
        },
    )
}

/// [`generate_dir`] with every option.
pub fn generate_dir_with(
    manifest_dir: &Path,
    out_dir: &Path,
    options: GenerateOptions,
) -> Result<GenerateOutcome, GenerateError> {
    let origin = origin::Origin::of(manifest_dir, out_dir);
    generate_dir_from(manifest_dir, out_dir, options, &origin)
}

/// [`generate_dir_with`] for a build's own tree (`kfam generate --locked
/// --source-dir DIR`): the outputs' first line names the manifest relative
/// to the project's source directory `source_dir`, never the build's
/// output directory ([`origin::Origin::of_build`]), so the headers a build
/// installs say where they come from.
pub fn generate_build_dir(
    manifest_dir: &Path,
    out_dir: &Path,
    source_dir: &Path,
    options: GenerateOptions,
) -> Result<GenerateOutcome, GenerateError> {
    let origin = origin::Origin::of_build(manifest_dir, source_dir);
    generate_dir_from(manifest_dir, out_dir, options, &origin)
}

fn generate_dir_from(
    manifest_dir: &Path,
    out_dir: &Path,
    options: GenerateOptions,
    origin: &origin::Origin,
) -> Result<GenerateOutcome, GenerateError> {
    let GenerateOptions {
        check,
        stamp,
        locked,
    } = options;
    if let Some(unchanged) = stamp
        .then(|| fresh::fresh(manifest_dir, out_dir, origin))
        .flatten()
    {
        let report = Report::default();
        return Ok(if check {
            GenerateOutcome::Checked {
                report,
                problems: Vec::new(),
            }
        } else {
            GenerateOutcome::Written {
                report,
                outcome: write::Outcome {
                    unchanged,
                    ..write::Outcome::default()
                },
            }
        });
    }
    let (ir, mut report, mut loaded) = analyze_dir(manifest_dir);
    let Some(ir) = ir else {
        return Err(GenerateError::Manifest(report));
    };
    // The family documents are lowered into the IR; the emitters and the
    // lock need only the IR and the lock's entries (at 10,000 families the
    // documents are the largest thing left in memory).
    loaded.families = Vec::new();
    // No diagnostic will quote a source text of a clean run: the texts go
    // once the stamp has their digest.
    let clean = report.diagnostics.is_empty();
    let sources = if clean {
        std::mem::take(&mut report.sources)
    } else {
        diag::SourceMap::default()
    };
    // The lock job runs first and lets go of what only it needs (the texts,
    // the old lock) before the emitters' outputs fill memory.
    let (files, (lock, inputs)) = emit::generate_with(&ir, origin, || {
        let pending = if clean && stamp && !check {
            let texts = sources
                .files()
                .map(|(_, f)| (f.path.as_str(), f.text.as_str()));
            fresh::Inputs::begin(manifest_dir, origin, texts)
        } else {
            None
        };
        drop(sources);
        let lock = gate::lock_contents(&loaded, &ir);
        drop(loaded);
        let inputs = pending.map(|p| p.finish(&lock));
        (lock, inputs)
    });
    let lock_path = manifest_dir.join(load::LOCK_FILE);
    // Files no longer produced are looked for in the outputs' own
    // directories only: `--out` may be a directory the team shares.
    let roots = ir.catalog.output_roots();
    let roots: Vec<&str> = roots.iter().map(String::as_str).collect();
    if check {
        let mut problems =
            write::check_in(out_dir, &roots, &files).map_err(GenerateError::Write)?;
        if !write::is_current(&lock_path, &lock).map_err(GenerateError::Write)? {
            problems.push(write::Problem::LockStale(lock_path.display().to_string()));
        }
        Ok(GenerateOutcome::Checked { report, problems })
    } else {
        if locked && !write::is_current(&lock_path, &lock).map_err(GenerateError::Write)? {
            return Err(GenerateError::LockStale {
                lock: lock_path,
                report,
            });
        }
        fresh::forget(out_dir);
        // Only a run without any diagnostic is recorded (a fresh run prints
        // nothing, so warnings must come from a full run every time); the
        // outputs' digests are computed beside the write.
        let (written, digests) = std::thread::scope(|s| {
            let digests = inputs.is_some().then(|| s.spawn(|| fresh::digests(&files)));
            let written = write::write_in(out_dir, &roots, &files);
            // A hashing thread that failed only costs the stamp.
            let digests = digests.and_then(|h| h.join().ok());
            (written, digests)
        });
        let mut outcome = written.map_err(GenerateError::Write)?;
        if !locked {
            outcome.lock_written =
                write::write_if_changed(&lock_path, &lock).map_err(GenerateError::Write)?;
        }
        if let (Some(inputs), Some(digests)) = (inputs, digests) {
            fresh::record(out_dir, &inputs, &files, &digests);
        }
        Ok(GenerateOutcome::Written { report, outcome })
    }
}
