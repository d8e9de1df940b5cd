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

            /// `KDnnn` (any case).
            pub fn parse(s: &str) -> Option<Rule> {
                let s = s.trim();
                Rule::ALL.iter().copied().find(|r| r.id().eq_ignore_ascii_case(s))
            }
        }
    };
}

impl Rule {
    /// Why the rule classes a change as it does: what a consumer sees
    /// (`kfam explain KDnnn`).
    pub const fn explanation(self) -> &'static str {
        match self {
            Rule::FamilyAdded => "A family is approved that the old manifest did not have. Nothing a consumer\nalready uses changes: programs, loaders and Python code that never named it keep\nworking, and a C program built against the old header still pairs with a library\nthat has it (it was approved later).",
            Rule::FamilyRemoved => "A family the old manifest approved is gone, deleted or retired. Loaders refuse its\nartifacts from now on (as `retired` when a tombstone says so), capability answers\nno, and a C program compiled against a header that named it is refused by the\nlibrary's pairing check. Retire a family explicitly (`retired.toml`) so that its\nname stays reserved and its artifacts are evicted rather than unknown.",
            Rule::RevisionChanged => "The family's revision number moved. The number alone breaks nothing: what changed\nin the contract is reported by its own rules beside this one. An approved revision\nis immutable, so any change of its identity needs a new revision (KF1101).",
            Rule::ContractChanged => "The family moved between the `program` and `kernel` contracts. The calling rules\nare different (who allocates, who launches, what metadata an artifact carries), so\nevery loader and caller of the old contract is wrong for the new one.",
            Rule::OperationChanged => "The operation payload changed: its kind, an operand, a matmul extent or\n`accumulate`. What the kernel computes is its contract: a caller or a reference\nthat relied on the old computation silently gets another one.",
            Rule::TorchRemoved => "The family no longer offers a torch dispatcher schema (`torch = false`, or a\nsignature torch cannot spell). Python code that registered or called it through\ntorch stops working.",
            Rule::TorchAdded => "The family now offers a torch dispatcher schema. Nothing existing changes;\nPyTorch users can register it.",
            Rule::OperatorChanged => "The operator of a binary, unary, reduce or norm operation changed (`add` to `mul`,\n`rms_norm` to `layer_norm`): the same operands, another computation.",
            Rule::OperationAxesChanged => "The axes a reduce, softmax or norm runs over, or `keepdim`, changed: the result\nhas other values, and for `keepdim` another shape.",
            Rule::OperationScalarChanged => "`eps` or `scale` changed: a constant's value, or a constant replaced by a scalar\nparameter passed at call time (or the reverse). The results differ, and a\nparameter added or removed changes every call.",
            Rule::SemanticsChanged => "A `custom` operation's `semantics` text is that kernel's whole contract: kfam\nchecked nothing else of what it computes. Any rewording is therefore a new\ncontract, and breaking.",
            Rule::ParamAdded => "The signature gained a parameter: every caller must now pass it, and every\nposition after it moves (also reported as KD022).",
            Rule::ParamRemoved => "The signature lost a parameter: every caller passes one argument too many, and\nevery position after it moves.",
            Rule::ParamMoved => "A parameter's position changed: callers pass arguments by position (the C ABI,\nthe launch slots, torch), so every call of the old order binds the wrong\nargument.",
            Rule::ParamDType => "A parameter's element type changed: data of the old dtype is misread, and call\nvalidation refuses the old callers' tensors.",
            Rule::ParamShape => "A parameter's shape changed (a static extent, a static extent made dynamic or the\nreverse, or the rank): call validation refuses calls shaped as before, and a\nkernel compiled for the old shape reads the wrong bytes.",
            Rule::ParamDirection => "A parameter's direction changed (`in`, `out`, `inout`): callers that expected the\nkernel to leave an input alone, or to write an output, are wrong, and aliasing\nrules change.",
            Rule::ParamLayout => "A parameter's memory layout changed (`nd`, `nz`, `nchw`): data laid out as before\nis read in another order.",
            Rule::ParamKind => "A parameter changed between tensor and scalar: it is passed in another pool,\nwith another descriptor, at another position among the tensors or scalars.",
            Rule::ParamNarrowed => "A declared parameter attribute now refuses calls it accepted (a stricter\n`alignment`): callers whose data met the old value are refused.",
            Rule::ParamWidened => "A declared parameter attribute now accepts calls it refused (a looser\n`alignment`): every call accepted before still is.",
            Rule::ReturnsChanged => "The return aliases changed (which out or inout tensors the call returns, by\nname): code that reads the results by position reads other tensors.",
            Rule::ProfileAdded => "A new artifact profile (platform, backend, runtime, execution mode). Nothing\nexisting changes; artifacts for it need receipts before they are admitted.",
            Rule::ProfileRemoved => "A profile is gone: its artifacts are no longer admitted, and capability on its\nplatform and mode answers no.",
            Rule::ProfileTarget => "A profile now names another platform, backend, runtime or execution mode under\nthe same name: artifacts built for the old target would be admitted for the\nnew one.",
            Rule::BindingChanged => "A final-ABI binding slot or kind changed, or a binding was added or removed: the\nlauncher puts a parameter in another launch slot than the artifact expects.",
            Rule::ReceiptAdded => "A new qualified artifact: loaders admit it from now on. Nothing admitted before is\nwithdrawn.",
            Rule::ReceiptRemoved => "A qualified artifact was withdrawn: loaders refuse it from now on, and a cache\nentry built from it must be evicted. (A placeholder receipt, which approves no\nartifact, is KD055 instead.)",
            Rule::ReceiptChanged => "A receipt kept its digest but changed its profile, codec or artifact path: the\nsame artifact is now approved for something else, or read as another wire\nformat.",
            Rule::EvidenceRequalified => "A receipt's structured evidence changed: a new qualification run (more cases, new\ntool versions, other shapes, other worst errors, determinism measured anew).\nThe artifact and what it is approved for are unchanged.",
            Rule::EvidenceWeakened => "A receipt's evidence got weaker: structured evidence replaced by free text, fewer\ncases passed, or a kernel shown deterministic no longer is (or is no longer\nmeasured). Consumers that relied on the evidence (a determinism requirement, a\ncase count) no longer have it.",
            Rule::PlaceholderReceipt => "A placeholder receipt (a digest whose first 32 hex digits are zeros, as `kfam\nnew` and `kfam init` write) was removed, replaced by a real receipt, or added.\nIt approves no artifact (admission refuses placeholder digests, and capability\nanswers `unqualified` for a family with only placeholders), so nothing a loader\naccepted is withdrawn.",
            Rule::TextChanged => "A summary, a parameter doc or the wording of qualification evidence changed.\nOnly documentation strings differ; nothing a program can observe.",
            Rule::AbiRevision => "The native ABI revision pin changed: artifacts are built against another commit\nof the native runtime, and a loader holding artifacts of the old pin must\nrecompile them.",
            Rule::AbiLimitLowered => "An ABI limit (`max_tensor_args`, `max_scalar_args`, `max_rank`, `max_prepared`)\nwas lowered: families or contexts that fit the old limit may not fit the new\none, and C programs compiled with the old value are refused by the library's\npairing check. `kfam check` refuses it unless `major` is raised (KF1110).",
            Rule::AbiLimitRaised => "An ABI limit was raised. Artifacts and Python callers keep working; a C program\ncompiled with the old value is refused by the library's pairing check (C\ncompiles limits in, and `max_rank` lays out the records), so `kfam check`\nrefuses it unless `major` is raised (KF1110).",
            Rule::StatusChanged => "A C status code has another value. C programs compare the codes they compiled in\nfrom the header: a program of the old header reads the new code as another\nstatus, or as none (a refused call taken for success, a retry taken for a\nrefusal), and the library's pairing check refuses it. `kfam check` refuses the\nchange unless `major` is raised in the same change (KF1110), which gives the\ncatalog library a new SONAME so that old programs keep the old library.",
            Rule::AbiMajor => "The ABI major version changed: the catalog library's SONAME changes with it, and\nevery program must be rebuilt against the new header. Raising it is how a\nbreaking ABI change is approved (KF1110).",
            Rule::AbiMinor => "The ABI minor version changed: compatible additions only (struct fields appended,\nnew functions).",
            Rule::DimTied => "A named symbol now ties dynamic extents that were independent (a `-1` became a\nsymbol, or two symbols merged): calls that passed unequal extents are refused.",
            Rule::DimUntied => "Dynamic extents a symbol tied are now independent: every call accepted before\nstill is.",
            Rule::DimNarrowed => "A symbol's `[dims]` constraints now refuse extents they accepted (a constraint\nadded, `min` raised, `max` lowered or added, `multiple_of` changed to a\nnon-divisor).",
            Rule::DimLoosened => "A symbol's constraints now accept extents they refused (a constraint removed or\nwidened): every call accepted before still is.",
            Rule::DimRenamed => "A symbol was renamed; it ties the same extents with the same constraints. Only\nmessages and docs change.",
            Rule::CatalogRenamed => "A name of the catalog's identity that consumers import, install, link or define\ninto changed (`name`, `python_distribution`, `python_package`,\n`torch_namespace`, `c_prefix`): imports, link lines, C identifiers and torch\noperator names of every consumer stop resolving.",
            Rule::CatalogRelease => "The catalog's declared `version` or `license` changed: the release metadata of\nits packages, nothing they decide.",
            Rule::OutputMoved => "An output's location below `--out` changed (`[catalog.outputs]`): paths in the\nrepository, not names consumers use.",
            Rule::TargetAdded => "A platform, backend, runtime, execution mode or codec was declared: something new\nis offered, nothing existing changes (its code is new, KF1109).",
            Rule::TargetRemoved => "A platform, backend, runtime, execution mode or codec was removed: profiles,\nartifacts and programs that name it stop resolving. `kfam check` refuses removing\na platform, backend, runtime or execution mode unless `major` is raised (KF1110).",
            Rule::TargetRenumbered => "A platform, backend, runtime or execution mode has another code: C, Rust and\nPython programs compare the number, so an old program takes it for another\nmember. `kfam check` refuses it outright (KF1108).",
            Rule::PlatformNarrowed => "A platform no longer accepts a backend, runtime, layout or dtype, or the catalog\nnow restricts its codecs (`[[codecs]]`): profiles and artifacts that used what\nwas dropped are refused.",
            Rule::PlatformWidened => "A platform accepts another backend, runtime, layout or dtype, or the catalog no\nlonger restricts its codecs: everything accepted before still is.",
            Rule::TargetDoc => "The `doc` of a platform, backend, runtime, execution mode or codec changed:\ndocumentation only.",
        }
    }
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
