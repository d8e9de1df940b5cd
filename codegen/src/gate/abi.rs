//! The lock's record of the ABI surface compiled programs depend on (the
//! status codes, the limits, which also lay out the C records, and the
//! declared targets), as the catalog's `major` approved it: a change that
//! `kfam diff` classifies as breaking for compiled programs (KD071, KD072's
//! refusal by pairing, KD073, KD094) is refused unless `major` is raised in
//! the same change (KF1110), as cargo-semver-checks refuses an API break
//! without a major version and a library's SONAME moves with its ABI
//! (docs/reviewing.md, "The ABI surface").

use std::fmt::Write as _;
use std::ops::Range;

use crate::diag::{Code, Diagnostic, Report};
use crate::ir::{Target, Targets};
use crate::load::Loaded;
use crate::model::{AbiFile, LockAbi, Spanned};
use crate::vocab::Status;

/// The limits, by name, with their spans in `abi.toml` (`max_prepared`
/// may be left out: its default, at the `[limits]` table) and values.
fn limits(abi: &AbiFile) -> [(&'static str, u32, Range<usize>); 4] {
    let l = &abi.limits.value;
    let prepared = l.max_prepared.as_ref().map_or(
        (crate::limits::DEFAULT_MAX_PREPARED, abi.limits.span.clone()),
        |p| (p.value, p.span.clone()),
    );
    [
        (
            "max_tensor_args",
            l.max_tensor_args.value,
            l.max_tensor_args.span.clone(),
        ),
        (
            "max_scalar_args",
            l.max_scalar_args.value,
            l.max_scalar_args.span.clone(),
        ),
        ("max_rank", l.max_rank.value, l.max_rank.span.clone()),
        ("max_prepared", prepared.0, prepared.1),
    ]
}

/// The status codes, in vocabulary order, with their spans.
fn status(abi: &AbiFile) -> [(&'static str, i32, Range<usize>); 9] {
    let s = &abi.status.value;
    let one = |name: &'static str, v: &Spanned<i32>| (name, v.value, v.span.clone());
    [
        one("ok", &s.ok),
        one("internal", &s.internal),
        one("unsupported", &s.unsupported),
        one("prepared_incompatible", &s.prepared_incompatible),
        one("invalid_state", &s.invalid_state),
        one("invalid_argument", &s.invalid_argument),
        one("not_found", &s.not_found),
        one("recompile_required", &s.recompile_required),
        one("not_approved", &s.not_approved),
    ]
}

/// `kind name` of every declared target.
fn declared(targets: &Targets) -> Vec<String> {
    let lists: [(&str, Vec<&Target>); 4] = [
        (
            "platform",
            targets.platforms.iter().map(|p| &p.target).collect(),
        ),
        ("backend", targets.backends.iter().collect()),
        ("runtime", targets.runtimes.iter().collect()),
        ("execution_mode", targets.execution_modes.iter().collect()),
    ];
    lists
        .iter()
        .flat_map(|(kind, list)| list.iter().map(move |t| format!("{kind} {}", t.name)))
        .collect()
}

/// The span of the list in `abi.toml` that declares members of `kind`
/// (the file's start when the list is kfam's default, not declared).
fn list_span(abi: &AbiFile, kind: &str) -> Range<usize> {
    let span = match kind {
        "platform" => abi.platforms.as_ref().map(|l| l.span.clone()),
        "backend" => abi.backends.as_ref().map(|l| l.span.clone()),
        "runtime" => abi.runtimes.as_ref().map(|l| l.span.clone()),
        _ => abi.execution_modes.as_ref().map(|l| l.span.clone()),
    };
    span.unwrap_or(0..0)
}

/// KF1110 for the declared ABI against the surface the lock approved.
pub fn check(loaded: &Loaded, targets: Option<&Targets>, report: &mut Report) {
    let (Some((abi_id, abi)), Some((lock_id, lock))) = (&loaded.abi, &loaded.lock) else {
        return;
    };
    // A lock written before it recorded the surface approves it now.
    let Some(locked) = &lock.abi else {
        return;
    };
    let (abi_id, lock_id) = (*abi_id, *lock_id);
    let l = &locked.value;
    let (major, approved) = (abi.major.value, l.major.value);
    if major > approved {
        // Raised in this change: the new surface is approved with it.
        return;
    }
    let next = approved.saturating_add(1);
    let raise = |d: Diagnostic| {
        d.help(format!(
            "raise `major = {next}` in abi.toml: programs compiled against the catalog's header of \
             major {approved} must be rebuilt (the catalog library's SONAME becomes \
             lib{}_catalog.so.{next}); or undo the change",
            loaded
                .abi
                .as_ref()
                .and_then(|(_, a)| a.catalog.as_ref())
                .map_or("kfam", |c| c.value.name.value.as_str())
        ))
        .fix(
            format!("raise major to {next}"),
            abi.major.span.clone(),
            next.to_string(),
        )
    };
    if major < approved {
        report.diagnostics.push(
            Diagnostic::error(
                Code::AbiBreakWithoutMajor,
                abi_id,
                abi.major.span.clone(),
                format!("`major` is {major}, below the approved major {approved}"),
            )
            .label("the ABI major moves only forward")
            .related(lock_id, l.major.span.clone(), "approved here")
            .help(format!(
                "restore `major = {approved}`, or raise it to {next}"
            )),
        );
        return;
    }
    let mut found: Vec<Diagnostic> = Vec::new();
    let related =
        |d: Diagnostic, span: &Range<usize>| d.related(lock_id, span.clone(), "approved here");
    for (name, value, span) in limits(abi) {
        let Some(old) = l.limit(name) else { continue };
        if old.value == value {
            continue;
        }
        let rule = if value < old.value {
            "KD071 abi-limit-lowered"
        } else {
            "KD072 abi-limit-raised"
        };
        let d = Diagnostic::error(
            Code::AbiBreakWithoutMajor,
            abi_id,
            span,
            format!(
                "limit `{name}` changed from {} to {value} without raising `major` ({approved})",
                old.value
            ),
        )
        .label(if name == "max_rank" {
            "compiled programs lay out the C records with this extent"
        } else {
            "compiled programs have the approved limit compiled in"
        })
        .note(format!(
            "kfam diff: {rule}; a program compiled with the approved value is refused by the \
             library's pairing check (docs/compatibility.md)"
        ));
        found.push(raise(related(d, &old.span)));
    }
    for (name, value, span) in status(abi) {
        let Some(old) = l.status.value.iter().find(|(n, _)| n.as_str() == name) else {
            continue;
        };
        if old.1.value == value {
            continue;
        }
        let d = Diagnostic::error(
            Code::AbiBreakWithoutMajor,
            abi_id,
            span,
            format!(
                "status `{name}` renumbered from {} to {value} without raising `major` ({approved})",
                old.1.value
            ),
        )
        .label("C programs compare the code they compiled in")
        .note("kfam diff: KD073 status-changed");
        found.push(raise(related(d, &old.1.span)));
    }
    if let Some(targets) = targets {
        let now = declared(targets);
        for t in &l.targets.value {
            if now.contains(&t.value) {
                continue;
            }
            let (kind, name) = t.value.split_once(' ').unwrap_or(("platform", &t.value));
            let d = Diagnostic::error(
                Code::AbiBreakWithoutMajor,
                abi_id,
                list_span(abi, kind),
                format!(
                    "{} `{name}` was removed without raising `major` ({approved})",
                    kind.replace('_', " ")
                ),
            )
            .label(format!("no longer declares `{name}`"))
            .note(
                "kfam diff: KD094 target-removed; programs compiled against the catalog name its \
                 code",
            );
            found.push(raise(related(d, &t.span)));
        }
    }
    report.diagnostics.extend(found);
}

/// The `[abi]` table of the lock after approving `abi.toml`'s ABI
/// (empty without a clean `abi.toml`).
pub fn lock_rows(loaded: &Loaded, targets: &Targets, out: &mut String) {
    let Some((_, abi)) = &loaded.abi else {
        return;
    };
    let _ = writeln!(
        out,
        "\n# The ABI surface compiled programs depend on, as `major` approved it: a change to it\n\
         # is refused (KF1110) unless `major` is raised in the same change.\n[abi]\nmajor = {}",
        abi.major.value
    );
    for (name, value, _) in limits(abi) {
        let _ = writeln!(out, "{name} = {value}");
    }
    let q = |s: &str| toml::Value::String(s.to_owned()).to_string();
    out.push_str("targets = [");
    for (i, t) in declared(targets).iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(&q(t));
    }
    out.push_str("]\n\n[abi.status]\n");
    for (name, value, _) in status(abi) {
        let _ = writeln!(out, "{name} = {value}");
    }
    debug_assert_eq!(Status::ALL.len(), 9);
}

impl LockAbi {
    /// The approved value of the limit `name`.
    pub fn limit(&self, name: &str) -> Option<&Spanned<u32>> {
        match name {
            "max_tensor_args" => Some(&self.max_tensor_args),
            "max_scalar_args" => Some(&self.max_scalar_args),
            "max_rank" => Some(&self.max_rank),
            "max_prepared" => Some(&self.max_prepared),
            _ => None,
        }
    }
}
