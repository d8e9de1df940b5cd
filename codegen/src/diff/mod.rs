//! `kfam diff OLD NEW`: every change between two checked manifests,
//! classified by a rule as breaking, compatible or cosmetic.

use crate::ir::{Abi, Catalog, Family, Ir, Target, Targets};

mod family;
mod rules;

use family::diff_family;
use rules::Diff;
pub use rules::{Change, Class, Rule};

/// Every change from `old` to `new`: ABI first, then families by name.
pub fn diff(old: &Ir, new: &Ir) -> Vec<Change> {
    let mut d = Diff {
        changes: Vec::new(),
        family: None,
    };
    diff_catalog(&mut d, &old.catalog, &new.catalog);
    diff_targets(&mut d, &old.targets, &new.targets);
    diff_abi(&mut d, &old.abi, &new.abi);
    for f in &old.families {
        d.family = Some(f.name.clone());
        match new.families.iter().find(|g| g.name == f.name) {
            Some(g) => diff_family(&mut d, f, g),
            None => d.push(Rule::FamilyRemoved, format!("family `{}` removed", f.name)),
        }
    }
    for g in new
        .families
        .iter()
        .filter(|g| !old.families.iter().any(|f| f.name == g.name))
    {
        d.family = Some(g.name.clone());
        d.push(
            Rule::FamilyAdded,
            format!("family `{}` added (revision {})", g.name, g.revision),
        );
    }
    d.changes
}

/// The identity's changes, reported in the `abi` scope (the catalog as a
/// whole).
fn diff_catalog(d: &mut Diff, a: &Catalog, b: &Catalog) {
    let (o, n) = (&a.outputs, &b.outputs);
    for (rule, key, x, y) in [
        (Rule::CatalogRenamed, "name", &a.name, &b.name),
        (
            Rule::CatalogRenamed,
            "python_distribution",
            &a.python_distribution,
            &b.python_distribution,
        ),
        (
            Rule::CatalogRenamed,
            "python_package",
            &a.python_package,
            &b.python_package,
        ),
        (
            Rule::CatalogRenamed,
            "torch_namespace",
            &a.torch_namespace,
            &b.torch_namespace,
        ),
        (Rule::CatalogRenamed, "c_prefix", &a.c_prefix, &b.c_prefix),
        (Rule::CatalogRelease, "version", &a.version, &b.version),
        (Rule::CatalogRelease, "license", &a.license, &b.license),
        (Rule::OutputMoved, "outputs.c", &o.c, &n.c),
        (Rule::OutputMoved, "outputs.rust", &o.rust, &n.rust),
        (Rule::OutputMoved, "outputs.python", &o.python, &n.python),
        (Rule::OutputMoved, "outputs.schema", &o.schema, &n.schema),
        (Rule::OutputMoved, "outputs.docs", &o.docs, &n.docs),
    ] {
        if x != y {
            d.push(rule, format!("catalog `{key}` `{x}` -> `{y}`"));
        }
    }
}

/// The declared targets' changes: members by name (added, removed,
/// renumbered, reworded), each platform's rules, and the codecs.
fn diff_targets(d: &mut Diff, a: &Targets, b: &Targets) {
    let platforms =
        |t: &Targets| -> Vec<Target> { t.platforms.iter().map(|p| p.target.clone()).collect() };
    let codecs = |t: &Targets| -> Vec<Target> {
        t.codecs
            .iter()
            .flatten()
            .map(|c| Target::new(&c.name, 0, &c.doc))
            .collect()
    };
    for (what, x, y) in [
        ("platform", platforms(a), platforms(b)),
        ("backend", a.backends.clone(), b.backends.clone()),
        ("runtime", a.runtimes.clone(), b.runtimes.clone()),
        (
            "execution mode",
            a.execution_modes.clone(),
            b.execution_modes.clone(),
        ),
        ("codec", codecs(a), codecs(b)),
    ] {
        for m in &x {
            match y.iter().find(|n| n.name == m.name) {
                None => d.push(Rule::TargetRemoved, format!("{what} `{}` removed", m.name)),
                Some(n) => {
                    if n.code != m.code {
                        d.push(
                            Rule::TargetRenumbered,
                            format!("{what} `{}` code {} -> {}", m.name, m.code, n.code),
                        );
                    }
                    if n.doc != m.doc {
                        d.push(Rule::TargetDoc, format!("{what} `{}` doc reworded", m.name));
                    }
                }
            }
        }
        for n in y.iter().filter(|n| !x.iter().any(|m| m.name == n.name)) {
            d.push(Rule::TargetAdded, format!("{what} `{}` declared", n.name));
        }
    }
    match (&a.codecs, &b.codecs) {
        (None, Some(_)) => d.push(
            Rule::PlatformNarrowed,
            "codecs declared: receipts may name only these".to_owned(),
        ),
        (Some(_), None) => d.push(
            Rule::PlatformWidened,
            "codecs no longer declared: receipts may name any codec".to_owned(),
        ),
        _ => {}
    }
    for p in &a.platforms {
        let Some(q) = b.platform(&p.target.name) else {
            continue;
        };
        let name = &p.target.name;
        let words = |l: Vec<String>| l.join("`, `");
        let rules: [(&str, Vec<String>, Vec<String>); 4] = [
            ("backends", p.backends.clone(), q.backends.clone()),
            ("runtimes", p.runtimes.clone(), q.runtimes.clone()),
            (
                "layouts",
                p.layouts.iter().map(|l| l.to_string()).collect(),
                q.layouts.iter().map(|l| l.to_string()).collect(),
            ),
            (
                "dtypes",
                p.dtypes.iter().map(|l| l.to_string()).collect(),
                q.dtypes.iter().map(|l| l.to_string()).collect(),
            ),
        ];
        for (key, x, y) in rules {
            let lost: Vec<String> = x.iter().filter(|v| !y.contains(v)).cloned().collect();
            let gained: Vec<String> = y.iter().filter(|v| !x.contains(v)).cloned().collect();
            if !lost.is_empty() {
                d.push(
                    Rule::PlatformNarrowed,
                    format!("platform `{name}` {key}: `{}` removed", words(lost)),
                );
            }
            if !gained.is_empty() {
                d.push(
                    Rule::PlatformWidened,
                    format!("platform `{name}` {key}: `{}` added", words(gained)),
                );
            }
        }
    }
}

fn diff_abi(d: &mut Diff, a: &Abi, b: &Abi) {
    if a.revision != b.revision {
        d.push(
            Rule::AbiRevision,
            format!("revision `{}` -> `{}`", a.revision, b.revision),
        );
    }
    if a.major != b.major {
        d.push(Rule::AbiMajor, format!("major {} -> {}", a.major, b.major));
    }
    if a.minor != b.minor {
        d.push(Rule::AbiMinor, format!("minor {} -> {}", a.minor, b.minor));
    }
    for (key, x, y) in [
        ("max_tensor_args", a.max_tensor_args, b.max_tensor_args),
        ("max_scalar_args", a.max_scalar_args, b.max_scalar_args),
        ("max_rank", a.max_rank, b.max_rank),
        ("max_prepared", a.max_prepared, b.max_prepared),
    ] {
        if y < x {
            d.push(Rule::AbiLimitLowered, format!("`{key}` {x} -> {y}"));
        } else if y > x {
            d.push(Rule::AbiLimitRaised, format!("`{key}` {x} -> {y}"));
        }
    }
    for ((s, x), (_, y)) in a.status.iter().zip(&b.status) {
        if x != y {
            d.push(Rule::StatusChanged, format!("status `{s}` {x} -> {y}"));
        }
    }
}

/// The changes from an approved revision's identity to a declaration of
/// the same revision that no longer matches it: the review gate's report
/// (`KF1101`'s notes). `old` comes from the lock (`Canonical::to_family`:
/// no review record), so only the rules the identity covers apply.
pub fn identity_changes(old: &Family, new: &Family) -> Vec<Change> {
    let mut d = Diff {
        changes: Vec::new(),
        family: Some(new.name.clone()),
    };
    diff_family(&mut d, old, new);
    d.changes.retain(|c| {
        !matches!(
            c.rule,
            Rule::TextChanged
                | Rule::RevisionChanged
                | Rule::ReceiptAdded
                | Rule::ReceiptRemoved
                | Rule::ReceiptChanged
        )
    });
    d.changes
}
