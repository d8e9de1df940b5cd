//! `kfam diff OLD NEW`: every change between two checked manifests,
//! classified by a rule as breaking, compatible or cosmetic.

use std::fmt;

use serde::Serialize;

use crate::canonical::Op;
use crate::ir::{Abi, Catalog, Extent, Family, Ir, Param, Profile, Symbol, Target, Targets};
use crate::record::{self, KeyChange, Larger, PARAM};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Class {
    Breaking,
    Compatible,
    Cosmetic,
}

impl fmt::Display for Class {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Class::Breaking => "breaking",
            Class::Compatible => "compatible",
            Class::Cosmetic => "cosmetic",
        })
    }
}

macro_rules! rules {
    ( $( $variant:ident = $id:literal, $name:literal, $class:ident, $doc:literal; )+ ) => {
        /// The one list of diff rules (documented in `docs/reviewing.md`).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
        pub enum Rule { $( $variant, )+ }

        impl Rule {
            pub const ALL: &'static [Rule] = &[$(Rule::$variant),+];
            pub const fn id(self) -> &'static str { match self { $(Rule::$variant => $id,)+ } }
            pub const fn name(self) -> &'static str { match self { $(Rule::$variant => $name,)+ } }
            pub const fn class(self) -> Class { match self { $(Rule::$variant => Class::$class,)+ } }
            pub const fn doc(self) -> &'static str { match self { $(Rule::$variant => $doc,)+ } }
        }
    };
}

rules! {
    FamilyAdded = "KD001", "family-added", Compatible, "a new family is approved";
    FamilyRemoved = "KD002", "family-removed", Breaking, "a family is no longer approved";
    RevisionChanged = "KD003", "revision-changed", Compatible, "a family's revision number changed";
    ContractChanged = "KD010", "contract-changed", Breaking, "program/kernel calling rules changed";
    OperationChanged = "KD011", "operation-changed", Breaking, "the operation payload changed (its kind or operands)";
    TorchRemoved = "KD012", "torch-removed", Breaking, "the torch dispatcher schema is no longer offered";
    TorchAdded = "KD013", "torch-added", Compatible, "a torch dispatcher schema is now offered";
    OperatorChanged = "KD014", "operator-changed", Breaking, "the operation's operator (`op`) changed";
    OperationAxesChanged = "KD015", "operation-axes-changed", Breaking, "an operation's axes or `keepdim` changed";
    OperationScalarChanged = "KD016", "operation-scalar-changed", Breaking, "an operation's `eps` or `scale` changed (a constant's value, or constant and parameter swapped)";
    SemanticsChanged = "KD017", "semantics-changed", Breaking, "a custom operation's `semantics` text changed: it is that kernel's whole contract";
    ParamAdded = "KD020", "param-added", Breaking, "the signature gained a parameter";
    ParamRemoved = "KD021", "param-removed", Breaking, "the signature lost a parameter";
    ParamMoved = "KD022", "param-moved", Breaking, "a parameter's position in the signature changed";
    ParamDType = "KD023", "param-dtype", Breaking, "a parameter's dtype changed";
    ParamShape = "KD024", "param-shape", Breaking, "a parameter's shape changed";
    ParamDirection = "KD025", "param-direction", Breaking, "a parameter's direction changed";
    ParamLayout = "KD026", "param-layout", Breaking, "a parameter's layout changed";
    ParamKind = "KD027", "param-kind", Breaking, "a parameter changed between tensor and scalar";
    ParamNarrowed = "KD028", "param-narrowed", Breaking, "a parameter's declared value now refuses calls it accepted (a stricter `alignment`)";
    ParamWidened = "KD029", "param-widened", Compatible, "a parameter's declared value now accepts calls it refused (a looser `alignment`)";
    ReturnsChanged = "KD030", "returns-changed", Breaking, "the return aliases changed";
    ProfileAdded = "KD040", "profile-added", Compatible, "a new artifact profile";
    ProfileRemoved = "KD041", "profile-removed", Breaking, "an artifact profile was removed";
    ProfileTarget = "KD042", "profile-target", Breaking, "a profile's platform, backend, runtime or execution mode changed";
    BindingChanged = "KD043", "binding-changed", Breaking, "a final-ABI binding slot or kind changed";
    ReceiptAdded = "KD050", "receipt-added", Compatible, "a new qualified artifact";
    ReceiptRemoved = "KD051", "receipt-removed", Breaking, "a qualified artifact was withdrawn";
    ReceiptChanged = "KD052", "receipt-changed", Breaking, "a receipt's profile, codec or artifact path changed";
    EvidenceRequalified = "KD053", "evidence-requalified", Compatible, "a receipt's structured evidence changed: a new qualification run (cases, tool versions, shapes, worst errors or determinism)";
    EvidenceWeakened = "KD054", "evidence-weakened", Breaking, "a receipt's structured evidence was dropped, its run passed fewer cases, or a kernel shown deterministic no longer is (or is no longer measured)";
    PlaceholderReceipt = "KD055", "placeholder-receipt", Compatible, "a placeholder receipt (the one `kfam new` and `kfam init` write, which approves no artifact) was removed, replaced or added";
    TextChanged = "KD060", "text-changed", Cosmetic, "summary, parameter doc or qualification evidence wording changed";
    AbiRevision = "KD070", "abi-revision", Breaking, "the native ABI revision pin changed";
    AbiLimitLowered = "KD071", "abi-limit-lowered", Breaking, "an ABI limit was lowered";
    AbiLimitRaised = "KD072", "abi-limit-raised", Compatible, "an ABI limit was raised";
    StatusChanged = "KD073", "status-changed", Breaking, "a C status code value changed";
    AbiMajor = "KD074", "abi-major", Breaking, "the ABI major version changed";
    AbiMinor = "KD075", "abi-minor", Compatible, "the ABI minor version changed";
    DimTied = "KD080", "dim-tied", Breaking, "a named symbol now ties extents that were independent";
    DimUntied = "KD081", "dim-untied", Compatible, "extents a named symbol tied are now independent";
    DimNarrowed = "KD082", "dim-narrowed", Breaking, "a symbol's constraints now refuse extents they accepted (added or tightened `[dims]`)";
    DimLoosened = "KD083", "dim-loosened", Compatible, "a symbol's constraints now accept extents they refused (removed or widened `[dims]`)";
    DimRenamed = "KD084", "dim-renamed", Cosmetic, "a named symbol was renamed; it ties the same extents with the same constraints";
    CatalogRenamed = "KD090", "catalog-renamed", Breaking, "a name of the catalog's identity that consumers import, install, link or define into changed (`name`, `python_distribution`, `python_package`, `torch_namespace`, `c_prefix`)";
    CatalogRelease = "KD091", "catalog-release", Compatible, "the catalog's declared `version` or `license` changed";
    OutputMoved = "KD092", "output-moved", Compatible, "an output's location below `--out` changed (`[catalog.outputs]`)";
    TargetAdded = "KD093", "target-added", Compatible, "a platform, backend, runtime, execution mode or codec was declared";
    TargetRemoved = "KD094", "target-removed", Breaking, "a platform, backend, runtime, execution mode or codec was removed";
    TargetRenumbered = "KD095", "target-renumbered", Breaking, "a platform, backend, runtime or execution mode has another code";
    PlatformNarrowed = "KD096", "platform-narrowed", Breaking, "a platform no longer offers a backend, runtime, layout or dtype, or the catalog now restricts its codecs";
    PlatformWidened = "KD097", "platform-widened", Compatible, "a platform offers another backend, runtime, layout or dtype, or the catalog no longer restricts its codecs";
    TargetDoc = "KD098", "target-doc", Cosmetic, "the doc of a platform, backend, runtime, execution mode or codec changed";
}

/// One classified change.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Change {
    pub rule: Rule,
    /// The family concerned; `None` for ABI changes.
    pub family: Option<String>,
    pub message: String,
}

impl Change {
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "rule": self.rule.id(),
            "name": self.rule.name(),
            "class": self.rule.class(),
            "family": self.family,
            "message": self.message,
        })
    }
}

impl fmt::Display for Change {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let scope = self.family.as_deref().unwrap_or("abi");
        write!(
            f,
            "{:<10} {} {scope}: {}",
            self.rule.class().to_string(),
            self.rule.id(),
            self.message
        )
    }
}

struct Diff {
    changes: Vec<Change>,
    family: Option<String>,
}

impl Diff {
    fn push(&mut self, rule: Rule, message: String) {
        self.changes.push(Change {
            rule,
            family: self.family.clone(),
            message,
        });
    }
}

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

fn diff_family(d: &mut Diff, f: &Family, g: &Family) {
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
            None if crate::init::is_placeholder_sha256(&f.name, &r.sha256) => d.push(
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
        if crate::init::is_placeholder_sha256(&g.name, &s.sha256) {
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
