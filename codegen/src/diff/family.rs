//! The changes within one family: its contract and operation, each
//! parameter (the declared attributes by their declaration), profiles,
//! symbols and receipts' evidence.

use super::rules::{Diff, Rule};
use crate::canonical::Op;
use crate::ir::{Extent, Family, Param, Profile, Symbol};
use crate::record::{self, KeyChange, Larger, PARAM};

/// Every change between two revisions (or two declarations) of one family.
pub(super) fn diff_family(d: &mut Diff, f: &Family, g: &Family) {
    if f.revision != g.revision {
        d.push(
            Rule::RevisionChanged,
            format!("revision {} -> {}", f.revision, g.revision),
        );
    }
    if f.contract != g.contract {
        d.push(
            Rule::ContractChanged,
            format!("contract `{}` -> `{}`", f.contract, g.contract),
        );
    }
    if f.torch != g.torch {
        let rule = if f.torch {
            Rule::TorchRemoved
        } else {
            Rule::TorchAdded
        };
        d.push(rule, format!("torch {} -> {}", f.torch, g.torch));
    }
    diff_operation(d, &Op::of(f), &Op::of(g));
    if f.summary != g.summary {
        d.push(Rule::TextChanged, "summary reworded".to_owned());
    }
    for p in &f.params {
        match g.params.iter().find(|q| q.name == p.name) {
            Some(q) => diff_param(d, (f, p), (g, q)),
            None => d.push(Rule::ParamRemoved, format!("param `{}` removed", p.name)),
        }
    }
    for q in g
        .params
        .iter()
        .filter(|q| !f.params.iter().any(|p| p.name == q.name))
    {
        d.push(
            Rule::ParamAdded,
            format!("param `{}` added at index {}", q.name, q.index),
        );
    }
    let names = |x: &Family| {
        x.returns
            .iter()
            .map(|&i| x.params[i].name.clone())
            .collect::<Vec<_>>()
    };
    if names(f) != names(g) {
        d.push(
            Rule::ReturnsChanged,
            format!("returns {:?} -> {:?}", names(f), names(g)),
        );
    }
    for p in &f.profiles {
        match g.profiles.iter().find(|q| q.name == p.name) {
            Some(q) => diff_profile(d, f, g, p, q),
            None => d.push(
                Rule::ProfileRemoved,
                format!("profile `{}` removed", p.name),
            ),
        }
    }
    for q in g
        .profiles
        .iter()
        .filter(|q| !f.profiles.iter().any(|p| p.name == q.name))
    {
        d.push(Rule::ProfileAdded, format!("profile `{}` added", q.name));
    }
    diff_symbols(d, f, g);
    for r in &f.receipts {
        match g.receipts.iter().find(|s| s.sha256 == r.sha256) {
            Some(s) => {
                let (pr, ps) = (&f.profiles[r.profile].name, &g.profiles[s.profile].name);
                if pr != ps || r.codec != s.codec || r.artifact != s.artifact {
                    d.push(
                        Rule::ReceiptChanged,
                        format!("receipt {} changed", &r.sha256[..12]),
                    );
                }
                if r.evidence.date != s.evidence.date
                    || r.evidence.hardware != s.evidence.hardware
                    || r.evidence.note != s.evidence.note
                {
                    d.push(
                        Rule::TextChanged,
                        format!("evidence of receipt {} reworded", &r.sha256[..12]),
                    );
                }
                diff_evidence(d, f, g, &r.sha256[..12], &r.evidence, &s.evidence);
            }
            // A placeholder approved no artifact: replacing it with the
            // first real receipt withdraws nothing.
            None if crate::init::is_placeholder_digest(&r.sha256) => d.push(
                Rule::PlaceholderReceipt,
                format!(
                    "placeholder receipt (profile `{}`) removed",
                    f.profiles[r.profile].name
                ),
            ),
            None => d.push(
                Rule::ReceiptRemoved,
                format!(
                    "receipt {} (profile `{}`) removed",
                    &r.sha256[..12],
                    f.profiles[r.profile].name
                ),
            ),
        }
    }
    for s in g
        .receipts
        .iter()
        .filter(|s| !f.receipts.iter().any(|r| r.sha256 == s.sha256))
    {
        let profile = &g.profiles[s.profile].name;
        if crate::init::is_placeholder_digest(&s.sha256) {
            d.push(
                Rule::PlaceholderReceipt,
                format!("placeholder receipt (profile `{profile}`) added"),
            );
        } else {
            d.push(
                Rule::ReceiptAdded,
                format!("receipt {} (profile `{profile}`) added", &s.sha256[..12]),
            );
        }
    }
}

/// A parameter's shape as its manifest writes it: `[rows, 4096]`, with
/// `-1` for an anonymous dynamic extent.
fn declared_shape(f: &Family, p: &Param) -> String {
    // An IR read back from JSON has no `dims`: its anonymous shape then.
    let extents: Vec<String> = if p.dims.len() == p.shape.len() {
        p.dims
            .iter()
            .map(|e| match e {
                Extent::Symbol(s) => f
                    .symbols
                    .get(*s)
                    .map_or("-1".to_owned(), |s| s.name.clone()),
                e => e.as_i64().to_string(),
            })
            .collect()
    } else {
        p.shape.iter().map(i64::to_string).collect()
    };
    format!("[{}]", extents.join(", "))
}

fn diff_param(d: &mut Diff, (f, p): (&Family, &Param), (g, q): (&Family, &Param)) {
    let n = &p.name;
    if p.index != q.index {
        d.push(
            Rule::ParamMoved,
            format!("param `{n}` index {} -> {}", p.index, q.index),
        );
    }
    if p.kind != q.kind {
        d.push(
            Rule::ParamKind,
            format!("param `{n}` kind `{}` -> `{}`", p.kind, q.kind),
        );
    }
    if p.dtype != q.dtype {
        d.push(
            Rule::ParamDType,
            format!("param `{n}` dtype `{}` -> `{}`", p.dtype, q.dtype),
        );
    }
    if p.shape != q.shape {
        d.push(
            Rule::ParamShape,
            format!(
                "param `{n}` shape {} -> {}",
                declared_shape(f, p),
                declared_shape(g, q)
            ),
        );
    }
    if p.direction != q.direction {
        d.push(
            Rule::ParamDirection,
            format!(
                "param `{n}` direction `{}` -> `{}`",
                p.direction, q.direction
            ),
        );
    }
    if p.layout != q.layout {
        d.push(
            Rule::ParamLayout,
            format!("param `{n}` layout `{}` -> `{}`", p.layout, q.layout),
        );
    }
    // The declared attributes, each classified by its declaration.
    for (field, attr) in PARAM.attrs() {
        let value = |x: &Param| x.attrs.get(field.name).unwrap_or(attr.default);
        let (a, b) = (value(p), value(q));
        if a != b {
            let narrows = (b > a) == (attr.larger == Larger::Narrows);
            d.push(
                if narrows {
                    Rule::ParamNarrowed
                } else {
                    Rule::ParamWidened
                },
                format!("param `{n}` {} {a} -> {b}", field.name),
            );
        }
    }
    if p.doc != q.doc {
        d.push(Rule::TextChanged, format!("param `{n}` doc reworded"));
    }
}

fn diff_profile(d: &mut Diff, f: &Family, g: &Family, p: &Profile, q: &Profile) {
    let n = &p.name;
    let target = |x: &Profile| {
        [&x.platform, &x.backend, &x.runtime, &x.execution_mode].map(|t| t.name.clone())
    };
    if target(p) != target(q) {
        d.push(
            Rule::ProfileTarget,
            format!(
                "profile `{n}` {}/{}/{}/{} -> {}/{}/{}/{}",
                p.platform,
                p.backend,
                p.runtime,
                p.execution_mode,
                q.platform,
                q.backend,
                q.runtime,
                q.execution_mode
            ),
        );
    }
    let slots = |fam: &Family, x: &Profile| {
        x.bindings
            .iter()
            .map(|b| (fam.params[b.param].name.clone(), b.slot, b.kind))
            .collect::<Vec<_>>()
    };
    let (a, b) = (slots(f, p), slots(g, q));
    for (name, slot, kind) in &a {
        match b.iter().find(|(m, _, _)| m == name) {
            Some((_, s2, k2)) if (s2, k2) != (slot, kind) => d.push(
                Rule::BindingChanged,
                format!(
                    "profile `{n}` binding of `{name}` slot {slot} `{kind}` -> slot {s2} `{k2}`"
                ),
            ),
            Some(_) => {}
            None => d.push(
                Rule::BindingChanged,
                format!("profile `{n}` binding of `{name}` removed"),
            ),
        }
    }
    for (name, slot, kind) in b
        .iter()
        .filter(|(m, _, _)| !a.iter().any(|(x, _, _)| x == m))
    {
        d.push(
            Rule::BindingChanged,
            format!("profile `{n}` binding of `{name}` added at slot {slot} `{kind}`"),
        );
    }
}

/// The operation payloads of two revisions, as the identity records them
/// (operands by name). A change of kind, or of any operand, is
/// `operation-changed`; within one kind, each changed payload field of its
/// own rule is reported by that rule, the rest together as
/// `operation-changed`.
fn diff_operation(d: &mut Diff, old: &Op<'_>, new: &Op<'_>) {
    if old == new {
        return;
    }
    let (o, n) = (old.fields(), new.fields());
    if old.kind() != new.kind() {
        let show = |op: &Op<'_>, fields: &[(&str, String)]| {
            let f: Vec<String> = fields.iter().map(|(k, v)| format!("{k} {v}")).collect();
            format!("`{}` ({})", op.kind(), f.join(", "))
        };
        d.push(
            Rule::OperationChanged,
            format!("operation {} -> {}", show(old, &o), show(new, &n)),
        );
        return;
    }
    // Each key's class is declared with it (`record::Key::change`).
    let record = record::operation(old.kind());
    let rule_of = |key: &str| match record.field(key).and_then(|f| f.key).map(|k| k.change) {
        Some(KeyChange::Operator) => Rule::OperatorChanged,
        Some(KeyChange::Axes) => Rule::OperationAxesChanged,
        Some(KeyChange::Scalar) => Rule::OperationScalarChanged,
        Some(KeyChange::Semantics) => Rule::SemanticsChanged,
        Some(KeyChange::Operands) | None => Rule::OperationChanged,
    };
    let mut rest = Vec::new();
    // One kind: the same keys, in the same order.
    for ((key, a), (_, b)) in o.iter().zip(&n) {
        if a == b {
            continue;
        }
        match rule_of(key) {
            Rule::OperationChanged => rest.push(format!("`{key}` {a} -> {b}")),
            Rule::SemanticsChanged => {
                d.push(Rule::SemanticsChanged, "semantics reworded".to_owned())
            }
            rule => d.push(rule, format!("operation `{key}` {a} -> {b}")),
        }
    }
    if !rest.is_empty() {
        d.push(
            Rule::OperationChanged,
            format!("operation {}", rest.join(", ")),
        );
    }
}

/// An extent's place: the parameter's name and the axis.
type Place<'a> = (&'a str, usize);

/// A dynamic extent of a family, by place, and the symbol there (`None` for
/// `-1`).
type Position<'a> = (Place<'a>, Option<&'a Symbol>);

/// The dynamic extents of `f`, by position.
fn dynamic_positions(f: &Family) -> Vec<Position<'_>> {
    let mut out = Vec::new();
    for p in &f.params {
        for (axis, &e) in p.dims.iter().enumerate() {
            match e {
                Extent::Dynamic => out.push(((p.name.as_str(), axis), None)),
                Extent::Symbol(i) => out.push(((p.name.as_str(), axis), Some(&f.symbols[i]))),
                Extent::Static(_) => {}
            }
        }
    }
    out
}

/// `[min, max, multiple_of]` of a dynamic extent; a `-1` is unconstrained.
fn bounds(s: Option<&Symbol>) -> (u32, Option<u32>, u32) {
    s.map_or((0, None, 1), |s| (s.min, s.max, s.multiple_of))
}

/// Whether `a`'s accepted extents include one `b` refuses (bound by bound).
fn refuses_some(
    (amin, amax, am): (u32, Option<u32>, u32),
    (bmin, bmax, bm): (u32, Option<u32>, u32),
) -> bool {
    bmin > amin
        || match (amax, bmax) {
            (None, Some(_)) => true,
            (Some(x), Some(y)) => y < x,
            _ => false,
        }
        || am % bm != 0
}

/// Symbol changes between two revisions of a family, over the extents that
/// are dynamic in both (a static extent that changes is `param-shape`).
fn diff_symbols(d: &mut Diff, f: &Family, g: &Family) {
    let (old, new) = (dynamic_positions(f), dynamic_positions(g));
    let both: Vec<(Position<'_>, Position<'_>)> = old
        .iter()
        .filter_map(|&(at, s)| new.iter().find(|(bt, _)| *bt == at).map(|&n| ((at, s), n)))
        .collect();
    let show = |(p, axis): (&str, usize)| format!("`{p}`[{axis}]");
    let name = |s: Option<&Symbol>| s.map_or("-1".to_owned(), |s| format!("`{}`", s.name));
    // Newly tied (or untied) extents, gathered per symbol in signature order.
    let mut ties: Vec<(Rule, String, Vec<Place<'_>>)> = Vec::new();
    for (i, &((at, s0), (_, t0))) in both.iter().enumerate() {
        for &((bt, s1), (_, t1)) in &both[i + 1..] {
            let tied_old = matches!((s0, s1), (Some(a), Some(b)) if a.name == b.name);
            let tied_new = matches!((t0, t1), (Some(a), Some(b)) if a.name == b.name);
            let (rule, by) = match (tied_old, tied_new) {
                (false, true) => (Rule::DimTied, name(t0)),
                (true, false) => (Rule::DimUntied, name(s0)),
                _ => continue,
            };
            let k = match ties.iter().position(|(r, b, _)| *r == rule && *b == by) {
                Some(k) => k,
                None => {
                    ties.push((rule, by, Vec::new()));
                    ties.len() - 1
                }
            };
            for p in [at, bt] {
                if !ties[k].2.contains(&p) {
                    ties[k].2.push(p);
                }
            }
        }
    }
    for (rule, by, at) in ties {
        let at: Vec<String> = at.into_iter().map(show).collect();
        let text = if rule == Rule::DimTied {
            format!("symbol {by} now ties {}", at.join(", "))
        } else {
            format!("{} no longer tied by symbol {by}", at.join(", "))
        };
        d.push(rule, text);
    }
    let mut seen = std::collections::BTreeSet::new();
    for &((at, s), (_, t)) in &both {
        let (a, b) = (bounds(s), bounds(t));
        for (rule, happened) in [
            (Rule::DimNarrowed, refuses_some(a, b)),
            (Rule::DimLoosened, refuses_some(b, a)),
        ] {
            if happened && seen.insert((rule, name(s), name(t))) {
                let text = |(min, max, m): (u32, Option<u32>, u32)| {
                    let max = max.map_or("unbounded".to_owned(), |m| m.to_string());
                    format!("min {min}, max {max}, multiple_of {m}")
                };
                let which = if name(s) == name(t) {
                    format!("symbol {}", name(s))
                } else {
                    format!("{} ({} -> {})", show(at), name(s), name(t))
                };
                d.push(rule, format!("{which}: {} -> {}", text(a), text(b)));
            }
        }
    }
    // Renamed: the same extents and constraints under another name.
    for s in &f.symbols {
        let at = |fam: &Family, sym: &Symbol| {
            sym.uses
                .iter()
                .map(|u| (fam.params[u.param].name.clone(), u.axis))
                .collect::<Vec<_>>()
        };
        let renamed = g.symbols.iter().find(|t| {
            t.name != s.name
                && at(g, t) == at(f, s)
                && (t.min, t.max, t.multiple_of) == (s.min, s.max, s.multiple_of)
        });
        if let Some(t) = renamed {
            d.push(
                Rule::DimRenamed,
                format!("symbol `{}` renamed `{}`", s.name, t.name),
            );
        }
    }
}

/// A receipt's structured evidence from `old` to `new` (same digest): a
/// run that passed fewer cases, or none at all, weakens the receipt's
/// claim; any other new run is a requalification, its numbers named.
fn diff_evidence(
    d: &mut Diff,
    f: &Family,
    g: &Family,
    receipt: &str,
    old: &crate::ir::Evidence,
    new: &crate::ir::Evidence,
) {
    if old.tool.is_none() {
        if new.tool.is_some() {
            d.push(
                Rule::EvidenceRequalified,
                format!(
                    "receipt {receipt}: structured evidence from `{}`, {} cases",
                    new.tool.as_deref().unwrap_or_default(),
                    new.cases
                ),
            );
        }
        return;
    }
    if new.tool.is_none() {
        d.push(
            Rule::EvidenceWeakened,
            format!(
                "receipt {receipt}: structured evidence ({} cases) replaced by free text",
                old.cases
            ),
        );
        return;
    }
    if new.cases < old.cases {
        d.push(
            Rule::EvidenceWeakened,
            format!(
                "receipt {receipt}: the run passed {} cases, {} before",
                new.cases, old.cases
            ),
        );
    }
    let shown = |e: &crate::ir::Evidence| e.runs >= 2 && e.deterministic;
    let lost = shown(old) && !shown(new);
    if lost {
        d.push(
            Rule::EvidenceWeakened,
            if new.runs >= 2 {
                format!(
                    "receipt {receipt}: the kernel is no longer deterministic (runs differ by up \
                     to {:e})",
                    new.run_max_abs
                )
            } else {
                format!("receipt {receipt}: determinism is no longer measured")
            },
        );
    }
    let mut changed: Vec<String> = Vec::new();
    if (old.runs, old.deterministic, old.run_max_abs)
        != (new.runs, new.deterministic, new.run_max_abs)
        && !lost
    {
        changed.push(match (new.runs >= 2, new.deterministic) {
            (false, _) => format!("runs per case {} -> {}", old.runs, new.runs),
            (true, true) => format!("{} runs per case, deterministic", new.runs),
            (true, false) => format!(
                "{} runs per case, runs differ by up to {:e}",
                new.runs, new.run_max_abs
            ),
        });
    }
    if new.cases > old.cases {
        changed.push(format!("cases {} -> {}", old.cases, new.cases));
    }
    if old.tool != new.tool || old.versions != new.versions {
        changed.push(format!("tools {}", new.versions.join(", ")));
    }
    if old.seed != new.seed || old.shapes != new.shapes {
        changed.push("cases drawn anew (seed or shapes)".to_owned());
    }
    for e in &new.errors {
        let name = &g.params[e.output].name;
        let before = old
            .errors
            .iter()
            .find(|o| f.params.get(o.output).is_some_and(|p| &p.name == name));
        match before {
            Some(o) if o.max_abs == e.max_abs && o.max_rel == e.max_rel => {}
            Some(o) => changed.push(format!(
                "worst error of `{name}` abs {:e} -> {:e}, rel {:e} -> {:e}",
                o.max_abs, e.max_abs, o.max_rel, e.max_rel
            )),
            None => changed.push(format!("`{name}` measured")),
        }
    }
    if !changed.is_empty() {
        d.push(
            Rule::EvidenceRequalified,
            format!("receipt {receipt} requalified: {}", changed.join("; ")),
        );
    }
}
