//! The rules of `kfam diff`, each with its id, name, class and meaning,
//! and the change a rule reports.

use std::fmt;

use serde::Serialize;

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

/// The changes found so far, while one run of `diff` walks the two sides.
pub(super) struct Diff {
    pub(super) changes: Vec<Change>,
    /// The family the changes being found are of.
    pub(super) family: Option<String>,
}

impl Diff {
    pub(super) fn push(&mut self, rule: Rule, message: String) {
        self.changes.push(Change {
            rule,
            family: self.family.clone(),
            message,
        });
    }
}
