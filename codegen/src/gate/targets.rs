//! The lock's record of the catalog's platforms, backends, runtimes and
//! execution modes: a code, once approved, keeps its member (KF1108) and is
//! never given to another (KF1109), removed members included. Codecs have
//! no code and are not recorded; `kfam diff` classifies every change.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::ops::Range;

use crate::diag::{Code, Diagnostic, Report};
use crate::ir::{Target, Targets};
use crate::load::Loaded;
use crate::model::targets::Member;
use crate::model::{AbiFile, Spanned};

/// The kinds of recorded members, in the lock's order.
const KINDS: [&str; 4] = ["platform", "backend", "runtime", "execution_mode"];

/// A recorded member: its kind's position in `KINDS`, its code, its name.
type Row<'a> = (usize, u32, &'a str);

fn declared(targets: &Targets) -> Vec<Row<'_>> {
    let lists: [Vec<&Target>; 4] = [
        targets.platforms.iter().map(|p| &p.target).collect(),
        targets.backends.iter().collect(),
        targets.runtimes.iter().collect(),
        targets.execution_modes.iter().collect(),
    ];
    let mut rows = Vec::new();
    for (kind, list) in lists.iter().enumerate() {
        for t in list {
            // Codes are checked to be 0..=32767 before the IR exists.
            rows.push((
                kind,
                u32::try_from(t.code).unwrap_or_default(),
                t.name.as_str(),
            ));
        }
    }
    rows
}

fn locked(loaded: &Loaded) -> Vec<(Row<'_>, Range<usize>)> {
    let Some((_, lock)) = &loaded.lock else {
        return Vec::new();
    };
    lock.target
        .iter()
        .filter_map(|t| {
            let t = &t.value;
            let kind = KINDS.iter().position(|k| *k == t.kind.value)?;
            Some((
                (kind, t.code.value, t.name.value.as_str()),
                t.code.span.clone(),
            ))
        })
        .collect()
}

/// The span of `code = ...` of the declaration of `name` (kind `kind`),
/// when `abi.toml` declares it.
fn declaration(abi: &AbiFile, kind: usize, name: &str) -> Option<Range<usize>> {
    let find = |list: &Option<Spanned<Vec<Spanned<Member>>>>| {
        list.iter()
            .flat_map(|l| &l.value)
            .find(|m| m.value.name.value == name)
            .map(|m| m.value.code.span.clone())
    };
    match kind {
        0 => abi
            .platforms
            .iter()
            .flat_map(|l| &l.value)
            .find(|p| p.value.name.value == name)
            .map(|p| p.value.code.span.clone()),
        1 => find(&abi.backends),
        2 => find(&abi.runtimes),
        _ => find(&abi.execution_modes),
    }
}

/// KF1108 and KF1109 for the declared `targets` against the lock.
pub fn check(loaded: &Loaded, targets: &Targets, report: &mut Report) {
    let (Some((abi_id, abi)), Some((lock_id, _))) = (&loaded.abi, &loaded.lock) else {
        return;
    };
    let locked = locked(loaded);
    // At the declaration's `code`, with a fix to `fixed`; at the top of
    // `abi.toml` for kfam's default members, which have no declaration.
    let at = |kind: usize, name: &str, code: Code, msg: String, fixed: u32| {
        let span = declaration(abi, kind, name);
        let d = Diagnostic::error(code, *abi_id, span.clone().unwrap_or(0..0), msg);
        d.fix_if(span.is_some(), || {
            (
                format!("use code {fixed}"),
                span.unwrap_or(0..0),
                fixed.to_string(),
            )
        })
    };
    for (kind, code, name) in declared(targets) {
        let what = KINDS[kind].replace('_', " ");
        if let Some(((_, old, _), span)) = locked
            .iter()
            .find(|((k, _, n), _)| *k == kind && *n == name)
        {
            if *old != code {
                report.diagnostics.push(
                    at(kind, name, Code::TargetRenumbered, format!("{what} `{name}` was approved with code {old}"), *old)
                        .label(format!("approved as {old}"))
                        .related(*lock_id, span.clone(), "approved here")
                        .help(format!("restore `code = {old}`: programs compiled against the catalog compare the code")),
                );
            }
            continue;
        }
        if let Some(((_, _, owner), span)) = locked
            .iter()
            .find(|((k, c, _), _)| *k == kind && *c == code)
        {
            let taken: BTreeSet<u32> = locked
                .iter()
                .filter(|((k, _, _), _)| *k == kind)
                .map(|((_, c, _), _)| *c)
                .chain(
                    declared(targets)
                        .iter()
                        .filter(|r| r.0 == kind)
                        .map(|r| r.1),
                )
                .collect();
            let free = (0..).find(|c| !taken.contains(c)).unwrap_or_default();
            report.diagnostics.push(
                at(
                    kind,
                    name,
                    Code::TargetCodeReused,
                    format!("code {code} was approved for {what} `{owner}`"),
                    free,
                )
                .label(format!("the code of `{owner}`"))
                .related(*lock_id, span.clone(), "approved here")
                .help(format!(
                    "give `{name}` a code the lock does not hold, e.g. `code = {free}`"
                )),
            );
        }
    }
}

/// The `[[target]]` tables of the lock after approving `targets`: every
/// recorded member, and every declared one, by kind, code and name.
pub fn lock_rows(loaded: &Loaded, targets: &Targets, out: &mut String) {
    let rows: BTreeSet<Row<'_>> = locked(loaded)
        .into_iter()
        .map(|(r, _)| r)
        .chain(declared(targets))
        .collect();
    let q = |s: &str| toml::Value::String(s.to_owned()).to_string();
    for (kind, code, name) in rows {
        let _ = writeln!(
            out,
            "\n[[target]]\nkind = \"{}\"\nname = {}\ncode = {code}",
            KINDS[kind],
            q(name)
        );
    }
}
