//! `kfam diff OLD NEW`: every change between two checked manifests,
//! classified by a rule as breaking, compatible or cosmetic.

use std::fmt;

use serde::Serialize;

use crate::ir::{Abi, Family, Ir, Param, Profile};

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
    ReturnsChanged = "KD030", "returns-changed", Breaking, "the return aliases changed";
    ProfileAdded = "KD040", "profile-added", Compatible, "a new artifact profile";
    ProfileRemoved = "KD041", "profile-removed", Breaking, "an artifact profile was removed";
    ProfileTarget = "KD042", "profile-target", Breaking, "a profile's platform, backend, runtime or execution mode changed";
    BindingChanged = "KD043", "binding-changed", Breaking, "a final-ABI binding slot or kind changed";
    ReceiptAdded = "KD050", "receipt-added", Compatible, "a new qualified artifact";
    ReceiptRemoved = "KD051", "receipt-removed", Breaking, "a qualified artifact was withdrawn";
    ReceiptChanged = "KD052", "receipt-changed", Breaking, "a receipt's profile, codec or artifact path changed";
    TextChanged = "KD060", "text-changed", Cosmetic, "summary, parameter doc or qualification evidence wording changed";
    AbiRevision = "KD070", "abi-revision", Breaking, "the native ABI revision pin changed";
    AbiLimitLowered = "KD071", "abi-limit-lowered", Breaking, "an ABI limit was lowered";
    AbiLimitRaised = "KD072", "abi-limit-raised", Compatible, "an ABI limit was raised";
    StatusChanged = "KD073", "status-changed", Breaking, "a C status code value changed";
    AbiMajor = "KD074", "abi-major", Breaking, "the ABI major version changed";
    AbiMinor = "KD075", "abi-minor", Compatible, "the ABI minor version changed";
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
    let op = |x: &Family| {
        serde_json::from_str::<serde_json::Value>(&x.canonical)
            .ok()
            .map(|v| v["operation"].clone())
    };
    diff_operation(d, op(f).unwrap_or_default(), op(g).unwrap_or_default());
    if f.summary != g.summary {
        d.push(Rule::TextChanged, "summary reworded".to_owned());
    }
    for p in &f.params {
        match g.params.iter().find(|q| q.name == p.name) {
            Some(q) => diff_param(d, p, q),
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
            }
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
        d.push(
            Rule::ReceiptAdded,
            format!(
                "receipt {} (profile `{}`) added",
                &s.sha256[..12],
                g.profiles[s.profile].name
            ),
        );
    }
}

fn diff_param(d: &mut Diff, p: &Param, q: &Param) {
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
            format!("param `{n}` shape {:?} -> {:?}", p.shape, q.shape),
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
    if p.doc != q.doc {
        d.push(Rule::TextChanged, format!("param `{n}` doc reworded"));
    }
}

fn diff_profile(d: &mut Diff, f: &Family, g: &Family, p: &Profile, q: &Profile) {
    let n = &p.name;
    let target = |x: &Profile| (x.platform, x.backend, x.runtime, x.execution_mode);
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

/// The operation payloads (canonical JSON objects) of two revisions. A
/// change of kind, or of any operand, is `operation-changed`; within one
/// kind, each changed payload field of its own rule is reported by that
/// rule, the rest together as `operation-changed`.
fn diff_operation(d: &mut Diff, old: serde_json::Value, new: serde_json::Value) {
    if old == new {
        return;
    }
    let (Some(o), Some(n)) = (old.as_object(), new.as_object()) else {
        d.push(Rule::OperationChanged, format!("operation {old} -> {new}"));
        return;
    };
    if o.get("kind") != n.get("kind") {
        d.push(Rule::OperationChanged, format!("operation {old} -> {new}"));
        return;
    }
    let rule_of = |key: &str| match key {
        "op" => Rule::OperatorChanged,
        "axes" | "axis" | "keepdim" => Rule::OperationAxesChanged,
        "eps" | "scale" => Rule::OperationScalarChanged,
        "semantics" => Rule::SemanticsChanged,
        _ => Rule::OperationChanged,
    };
    let null = serde_json::Value::Null;
    let mut keys: Vec<&String> = o.keys().chain(n.keys()).collect();
    keys.sort_unstable();
    keys.dedup();
    let mut rest = Vec::new();
    for key in keys {
        let (a, b) = (o.get(key).unwrap_or(&null), n.get(key).unwrap_or(&null));
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
