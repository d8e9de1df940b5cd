//! The review gate: `approved.lock` makes approved revisions immutable and
//! removals explicit. It is the stage after `check`: the entry points
//! (`crate::check_loaded`, `live`) run [`check`] over the families `check`
//! lowered; generation writes [`lock_contents`] back so the lock diff is
//! what a reviewer reads.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt::Write as _;

use crate::diag::{Code, Diagnostic, FileId, Report};
use crate::ir;
use crate::load::Loaded;
use crate::model::{FamilyFile, LockEntry, Spanned};

pub mod abi;
pub mod targets;

/// Lock format version.
pub const LOCK_VERSION: u32 = 1;
/// Most field changes listed under one KF1101.
const MAX_LISTED_CHANGES: usize = 12;

/// The lock and the tombstones, indexed by family name.
pub struct Gate<'a> {
    tombstones: HashMap<&'a str, &'a Spanned<crate::model::Tombstone>>,
    locked: BTreeMap<&'a str, Vec<&'a Spanned<LockEntry>>>,
}

impl<'a> Gate<'a> {
    pub fn new(loaded: &'a Loaded) -> Self {
        // The first tombstone of a name counts; a repeated one is KF1105.
        let mut tombstones: HashMap<&str, &Spanned<crate::model::Tombstone>> = HashMap::new();
        for t in loaded.retired.iter().flat_map(|(_, r)| r.retired.iter()) {
            tombstones.entry(t.value.name.value.as_str()).or_insert(t);
        }
        let mut locked: BTreeMap<&str, Vec<&Spanned<LockEntry>>> = BTreeMap::new();
        if let Some((_, lock)) = &loaded.lock {
            if lock.version.value == LOCK_VERSION {
                for e in &lock.family {
                    locked
                        .entry(e.value.name.value.as_str())
                        .or_default()
                        .push(e);
                }
            }
        }
        Gate { tombstones, locked }
    }

    /// The lock entries of a family name.
    pub fn entries(&self, name: &str) -> &[&'a Spanned<LockEntry>] {
        self.locked.get(name).map(Vec::as_slice).unwrap_or_default()
    }

    /// The review rules of one lowered family declared by `file` (in file
    /// `fid`). True when it reuses a retired name.
    pub fn family(
        &self,
        fid: FileId,
        file: &FamilyFile,
        f: &ir::Family,
        report: &mut Report,
    ) -> bool {
        let entries = self.entries(&f.name);
        // A tombstoned name that still declares one of its approved
        // revisions is a tombstone added without deleting the file (KF1105,
        // below); any other contract under it reuses the retired name. A
        // tombstone for a name the lock never approved is itself invalid
        // (KF1105) and reserves nothing.
        if self.tombstones.contains_key(f.name.as_str())
            && !entries.is_empty()
            && !entries.iter().any(|e| {
                e.value.revision.value == f.revision && e.value.identity.value == f.identity
            })
        {
            report.diagnostics.push(
                Diagnostic::error(
                    Code::RetiredNameReused,
                    fid,
                    file.name.span.clone(),
                    format!("family name `{}` is retired", f.name),
                )
                .label("retired in retired.toml")
                .help("choose a new name for the new contract"),
            );
            return true;
        }
        if let Some(e) = entries
            .iter()
            .find(|e| e.value.revision.value == f.revision)
        {
            if e.value.identity.value != f.identity {
                let next = entries
                    .iter()
                    .map(|e| e.value.revision.value)
                    .max()
                    .unwrap_or(f.revision)
                    + 1;
                let mut d = Diagnostic::error(
                    Code::ApprovedChanged,
                    fid,
                    file.revision.span.clone(),
                    format!("approved revision {} of `{}` changed", f.revision, f.name),
                )
                .label("this revision is locked in approved.lock");
                for change in identity_changes(&e.value.canonical.value, f) {
                    d = d.note(change);
                }
                d = d
                    .help(format!(
                        "bump to `revision = {next}` and attach a new receipt for an artifact qualified against it",
                    ))
                    .fix(
                        format!("bump to revision {next}"),
                        file.revision.span.clone(),
                        next.to_string(),
                    );
                report.diagnostics.push(d);
            }
        } else if let Some(max) = entries
            .iter()
            .map(|e| e.value.revision.value)
            .max()
            .filter(|&m| m > f.revision)
        {
            report.diagnostics.push(
                Diagnostic::error(
                    Code::RevisionRegressed,
                    fid,
                    file.revision.span.clone(),
                    format!(
                        "revision {} of `{}` is below approved revision {max}",
                        f.revision, f.name
                    ),
                )
                .label("revisions only move forward")
                .help(format!("use `revision = {}`", max + 1))
                .fix(
                    format!("use revision {}", max + 1),
                    file.revision.span.clone(),
                    (max + 1).to_string(),
                ),
            );
        } else if let Some((r, e)) = receipt_reused(f, &self.locked) {
            // Lowered receipts keep declaration order (a family lowers only without errors).
            let receipt = &file.receipts[r].value;
            report.diagnostics.push(
                Diagnostic::error(
                    Code::ReceiptReused,
                    fid,
                    receipt.sha256.span.clone(),
                    format!(
                        "receipt of new revision {} reuses the artifact of approved revision {} of `{}`",
                        f.revision, e.value.revision.value, e.value.name.value
                    ),
                )
                .label("qualified against another contract")
                .help("record the digest of an artifact qualified against this revision"),
            );
        }
        false
    }
}

/// Check the lowered families against the lock and the tombstones: the
/// stage after `check` (see [`crate::check_loaded`]). As in `check`,
/// findings that only repeat a mistake `load` repaired are dropped.
pub fn check(
    loaded: &Loaded,
    families: &[ir::Family],
    declared: Option<&ir::Targets>,
    report: &mut Report,
) {
    let before = report.diagnostics.len();
    rules(loaded, families, report);
    if let Some(declared) = declared {
        targets::check(loaded, declared, report);
    }
    abi::check(loaded, declared, report);
    let own = report.diagnostics.split_off(before);
    report
        .diagnostics
        .extend(own.into_iter().filter(|d| !loaded.is_cascade(d)));
}

fn rules(loaded: &Loaded, families: &[ir::Family], report: &mut Report) {
    let declared: HashMap<&str, usize> = loaded
        .families
        .iter()
        .enumerate()
        .map(|(i, (_, f))| (f.name.value.as_str(), i))
        .collect();
    if let Some((id, lock)) = &loaded.lock {
        if lock.version.value != LOCK_VERSION {
            report.diagnostics.push(
                Diagnostic::error(
                    Code::OutOfRange,
                    *id,
                    lock.version.span.clone(),
                    "unsupported lock version",
                )
                .label(format!("expected {LOCK_VERSION}")),
            );
            return;
        }
        for e in &lock.family {
            if crate::ir::sha256_hex(e.value.canonical.value.as_bytes()) != e.value.identity.value {
                report.diagnostics.push(
                    Diagnostic::error(
                        Code::LockTampered,
                        *id,
                        e.value.identity.span.clone(),
                        format!(
                            "lock entry for revision {} of `{}` does not match its canonical form",
                            e.value.revision.value, e.value.name.value
                        ),
                    )
                    .label("not the SHA-256 of `canonical`")
                    .help("restore approved.lock from version control; only `kfam generate` writes it"),
                );
            }
        }
    }
    let gate = Gate::new(loaded);
    let (tombstones, locked) = (&gate.tombstones, &gate.locked);

    let mut reused: HashSet<&str> = HashSet::new();
    for f in families {
        let Some(&i) = declared.get(f.name.as_str()) else {
            continue;
        };
        let (fid, file) = &loaded.families[i];
        if gate.family(*fid, file, f, report) {
            reused.insert(f.name.as_str());
        }
    }

    let lock_id = loaded.lock.as_ref().map(|(id, _)| *id);
    for (name, entries) in locked {
        if declared.contains_key(name) {
            continue;
        }
        let last = entries
            .iter()
            .max_by_key(|e| e.value.revision.value)
            .expect("non-empty group");
        match tombstones.get(name) {
            Some(t) => {
                let (rid, _) = loaded
                    .retired
                    .as_ref()
                    .expect("tombstone came from retired.toml");
                if t.value.revision.value != last.value.revision.value
                    || t.value.identity.value != last.value.identity.value
                {
                    report.diagnostics.push(
                        Diagnostic::error(
                            Code::BadTombstone,
                            *rid,
                            t.span.clone(),
                            format!("tombstone of `{name}` does not match the lock"),
                        )
                        .label("revision or identity differs")
                        .help(format!(
                            "the last approved revision is {} with identity {}",
                            last.value.revision.value, last.value.identity.value
                        )),
                    );
                }
            }
            None => {
                let Some(lid) = lock_id else { continue };
                // A file that exists but did not load has its own diagnostic.
                let path = loaded.root.join("families").join(format!("{name}.toml"));
                if !loaded.root.as_os_str().is_empty() && path.exists() {
                    continue;
                }
                report.diagnostics.push(
                    Diagnostic::error(Code::LockedFamilyRemoved, lid, last.value.name.span.clone(), format!("approved family `{name}` has no file in families/"))
                        .label("approved here")
                        .help(format!(
                            "restore `families/{name}.toml`, or retire it by adding to retired.toml:\n[[retired]]\nname = \"{name}\"\nrevision = {}\nidentity = \"{}\"\nreason = \"...\"",
                            last.value.revision.value, last.value.identity.value
                        )),
                );
            }
        }
    }

    if let Some((rid, retired)) = &loaded.retired {
        let mut seen: HashSet<&str> = HashSet::new();
        for t in &retired.retired {
            // The reason is copied into the generated tables and docs.
            let found = crate::check::text_problems(
                &report.sources,
                *rid,
                &t.value.reason,
                "reason",
                true,
                true,
            );
            report.diagnostics.extend(found);
            let name = t.value.name.value.as_str();
            let (problem, help) = if !seen.insert(name) {
                ("retired twice", "keep one tombstone per family")
            } else if !locked.contains_key(name) {
                (
                    "approved.lock has no such family",
                    "only an approved family (one recorded in approved.lock) can be retired",
                )
            } else if declared.contains_key(name) && !reused.contains(name) {
                (
                    "the family still has a file in families/",
                    "delete the family's file to retire it, or drop the tombstone to keep it",
                )
            } else {
                continue;
            };
            report.diagnostics.push(
                Diagnostic::error(
                    Code::BadTombstone,
                    *rid,
                    t.value.name.span.clone(),
                    format!("tombstone of `{name}` is not valid"),
                )
                .label(problem)
                .help(help),
            );
        }
    }
}

/// A receipt of a new (unlocked) revision whose digest the lock records for
/// another revision of the same family: `(receipt index, that entry)`.
fn receipt_reused<'a>(
    f: &ir::Family,
    locked: &BTreeMap<&str, Vec<&'a Spanned<LockEntry>>>,
) -> Option<(usize, &'a Spanned<LockEntry>)> {
    // Any approved revision of any family: an artifact qualifies one contract.
    f.receipts.iter().enumerate().find_map(|(i, r)| {
        locked
            .values()
            .flatten()
            .find(|e| e.value.receipts.iter().any(|d| d.value == r.sha256))
            .map(|e| (i, *e))
    })
}

/// What changed from the approved revision recorded as `old` (the lock's
/// canonical form) to `new`, through the change engine of `kfam diff` over
/// the same typed records: one line per change with its rule, e.g.
/// ``KD023 param-dtype: param `out` dtype `bf16` -> `fp16` ``.
pub fn identity_changes(old: &str, new: &ir::Family) -> Vec<String> {
    let old = match crate::canonical::Canonical::parse(old).and_then(|c| c.to_family()) {
        Ok(f) => f,
        Err(_) => {
            return vec![
                "the recorded canonical form cannot be read; compare the files in version control"
                    .to_owned(),
            ]
        }
    };
    let mut out: Vec<String> = crate::diff::identity_changes(&old, new)
        .iter()
        .map(|c| format!("{} {}: {}", c.rule.id(), c.rule.name(), c.message))
        .collect();
    if out.len() > MAX_LISTED_CHANGES {
        let more = out.len() - MAX_LISTED_CHANGES;
        out.truncate(MAX_LISTED_CHANGES);
        out.push(format!("... and {more} more changes"));
    }
    out
}

/// The retired families of a manifest whose gate check passed: each
/// tombstone with the artifact digests the lock recorded for its name.
pub fn retired(loaded: &Loaded) -> Vec<ir::Retired> {
    let lock = loaded.lock.iter().flat_map(|(_, l)| l.family.iter());
    let mut retired: Vec<ir::Retired> = loaded
        .retired
        .iter()
        .flat_map(|(_, r)| r.retired.iter())
        .map(|t| {
            let t = &t.value;
            let mut receipts: Vec<String> = lock
                .clone()
                .filter(|e| e.value.name.value == t.name.value)
                .flat_map(|e| e.value.receipts.iter().map(|r| r.value.clone()))
                .collect();
            receipts.sort();
            receipts.dedup();
            let approval = lock
                .clone()
                .find(|e| {
                    e.value.name.value == t.name.value && e.value.revision.value == t.revision.value
                })
                .map_or(0, |e| approved(&e.value));
            ir::Retired {
                name: t.name.value.clone(),
                revision: t.revision.value,
                identity: t.identity.value.clone(),
                reason: t.reason.value.clone(),
                receipts,
                approval,
            }
        })
        .collect();
    retired.sort_by(|a, b| a.name.cmp(&b.name));
    retired
}

/// The lock after approving `ir`: every previously locked revision is kept
/// (history, and the last digest of retired families), each current family
/// revision is recorded with its receipts. Stable order: name, revision.
pub fn lock_contents(loaded: &Loaded, ir: &ir::Ir) -> String {
    // Rows borrow from the old lock and the IR: nothing is copied but the text.
    struct Row<'a> {
        identity: &'a str,
        receipts: Vec<&'a str>,
        canonical: &'a str,
        approved: u32,
    }
    let mut rows: BTreeMap<(&str, u32), Row> = BTreeMap::new();
    if let Some((_, lock)) = &loaded.lock {
        for e in &lock.family {
            let e = &e.value;
            rows.insert(
                (&e.name.value, e.revision.value),
                Row {
                    identity: &e.identity.value,
                    receipts: e.receipts.iter().map(|r| r.value.as_str()).collect(),
                    canonical: &e.canonical.value,
                    approved: approved(e),
                },
            );
        }
    }
    for f in &ir.families {
        // Every digest ever recorded for this revision stays: a withdrawn
        // receipt's artifact can then never be reused by a later revision.
        let mut receipts: Vec<&str> = f.receipts.iter().map(|r| r.sha256.as_str()).collect();
        if let Some(old) = rows.get(&(f.name.as_str(), f.revision)) {
            receipts.extend(old.receipts.iter().copied());
        }
        receipts.sort_unstable();
        receipts.dedup();
        rows.insert(
            (&f.name, f.revision),
            Row {
                identity: &f.identity,
                receipts,
                canonical: &f.canonical,
                approved: f.approval,
            },
        );
    }
    let q = |s: &str| toml::Value::String(s.to_owned()).to_string();
    // A digest (lowercase hex) is a basic string as it stands, with no need
    // for the TOML writer's choice of quoting (most of the lock's strings; at
    // 10,000 families a fifth of the time spent writing it). An old lock's
    // receipt is not checked as hex: anything else goes through the writer.
    let hex = |out: &mut String, d: &str| {
        if d.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
            out.push('"');
            out.push_str(d);
            out.push('"');
        } else {
            out.push_str(&q(d));
        }
    };
    // About 2 KiB per family (the canonical form is most of it).
    let mut out = String::with_capacity(512 + rows.len() * 2560);
    out.push_str(
        "# approved.lock: every approved kernel-family revision (the kfam review gate).\n\
         # Written by `kfam generate`; review its diff, do not edit it.\n\
         # An approved revision is immutable: change a contract by bumping `revision`.\n\
         # An approved platform, backend, runtime or execution mode keeps its code.\n",
    );
    let _ = writeln!(out, "version = {LOCK_VERSION}");
    abi::lock_rows(loaded, &ir.targets, &mut out);
    targets::lock_rows(loaded, &ir.targets, &mut out);
    for ((name, revision), r) in &rows {
        let _ = writeln!(out, "\n[[family]]\nname = {}", q(name));
        let _ = writeln!(out, "revision = {revision}");
        out.push_str("identity = ");
        hex(&mut out, r.identity);
        out.push_str("\nreceipts = [");
        for (i, d) in r.receipts.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            hex(&mut out, d);
        }
        out.push_str("]\n");
        let _ = writeln!(out, "canonical = {}", q(r.canonical));
        let _ = writeln!(out, "approved = {}", r.approved);
    }
    out
}

/// The approval of a lock entry: 1 in a lock written before approvals were
/// numbered.
fn approved(e: &LockEntry) -> u32 {
    e.approved.as_ref().map_or(1, |a| a.value)
}

/// Number the families' approvals (`ir::Family::approval`): a revision the
/// lock holds keeps its approval; the revisions this generation approves
/// share the next number (1 when there is no lock yet).
pub fn approve(loaded: &Loaded, families: &mut [ir::Family]) {
    let entries: Vec<&LockEntry> = loaded
        .lock
        .iter()
        .filter(|(_, lock)| lock.version.value == LOCK_VERSION)
        .flat_map(|(_, lock)| lock.family.iter().map(|e| &e.value))
        .collect();
    let next = entries.iter().map(|e| approved(e)).max().unwrap_or(0) + 1;
    for f in families {
        f.approval = entries
            .iter()
            .find(|e| e.name.value == f.name && e.revision.value == f.revision)
            .map_or(next, |e| approved(e));
    }
}
