//! The records of a family's signature and review: its parameters, the
//! artifact profiles and their bindings, the receipts and their evidence,
//! and its named dimensions.

use super::{
    c_only, field, struct_size, table, vocab, Attr, AttrRule, CForm, CValue, Fixed, Larger, Record,
    Role, Shorthand, Ty,
};
use crate::vocab::{
    BindingKind, DType, Direction, Layout, ParamKind, BACKEND, EXECUTION_MODE, PLATFORM, RUNTIME,
};

pub static PARAM: Record = Record {
    methods: Some("_ParamMethods"),
    kind: None,
    shorthands: &[
        Shorthand {
            name: "t",
            fixed: &[("kind", Fixed::Member("tensor"))],
            same: &[("lowered_shape", "shape")],
        },
        Shorthand {
            name: "s",
            fixed: &[
                ("kind", Fixed::Member("scalar")),
                ("direction", Fixed::Member("in")),
                ("layout", Fixed::Member("nd")),
                ("shape", Fixed::Empty),
                ("lowered_shape", Fixed::Empty),
            ],
            same: &[],
        },
    ],
    ..table(
        "kfam_param",
        "Param",
        Some("p"),
        "One parameter of a family's logical signature.",
        &[
            struct_size(),
            field(
                "index",
                Ty::Index,
                "Position in the complete signature (scalars included).",
            )
            .role(Role::Position),
            field("name", Ty::Str, "Declared name (snake_case identifier)."),
            field("doc", Ty::OptStr, "Declared documentation."),
            field("kind", vocab(&ParamKind::VOCABULARY), "Tensor or scalar."),
            field(
                "direction",
                vocab(&Direction::VOCABULARY),
                "How the kernel uses it (always `in` for scalars).",
            ),
            field("dtype", vocab(&DType::VOCABULARY), "Element type."),
            field("layout", vocab(&Layout::VOCABULARY), "Memory layout."),
            field(
                "pool_index",
                Ty::Index,
                "Index among the family's tensors (a tensor) or scalars (a scalar).",
            ),
            c_only(
                "rank",
                CValue::Rank("shape"),
                "Number of used entries of `shape`; 0 for scalars.",
            ),
            c_only(
                "lowered_rank",
                CValue::Rank("lowered_shape"),
                "Number of used entries of `lowered_shape`; 0 for scalars.",
            ),
            field(
                "shape",
                Ty::Dims {
                    c_extent: "KFAM_MAX_RANK",
                },
                "Logical shape; empty for scalars.",
            ),
            field(
                "lowered_shape",
                Ty::Dims {
                    c_extent: "KFAM_MAX_LOWERED_RANK",
                },
                "Assembly (lowered) shape: NZ blocked, fp4 packed, otherwise the logical shape.",
            )
            .role(Role::SameAs("shape")),
            field(
                "alignment",
                Ty::U32,
                "Byte alignment of every call's data: the address of the view's first element is a multiple of it (1: any; 1 for scalars).",
            )
            .since(3)
            .attr(Attr {
                default: 1,
                rule: AttrRule::PowerOfTwo { max: 4096 },
                larger: Larger::Narrows,
                tensors_only: true,
            }),
        ],
    )
};

pub static BINDING: Record = table(
    "kfam_binding",
    "Binding",
    Some("b"),
    "A final-ABI launch slot: which parameter sits where.",
    &[
        struct_size(),
        field(
            "param",
            Ty::Param,
            "Signature index of the bound parameter (an index into the family's params).",
        ),
        field(
            "slot",
            Ty::U32,
            "Launch slot (argument position or buffer-object index).",
        ),
        field("kind", vocab(&BindingKind::VOCABULARY), "What the slot is."),
    ],
);

pub static PROFILE: Record = table(
    "kfam_profile",
    "Profile",
    Some("pr"),
    "Where and how an artifact of the family runs, with its final-ABI bindings.",
    &[
        struct_size(),
        c_only(
            "index",
            CValue::Position,
            "Position in kfam_family.profiles.",
        ),
        field("name", Ty::Str, "Declared name (snake_case identifier)."),
        field("platform", vocab(&PLATFORM), "Target platform."),
        field("backend", vocab(&BACKEND), "Code-generation backend."),
        field("runtime", vocab(&RUNTIME), "Native runtime."),
        field(
            "execution_mode",
            vocab(&EXECUTION_MODE),
            "Simulator or device.",
        ),
        c_only(
            "binding_count",
            CValue::Count("bindings"),
            "Entries of `bindings`.",
        ),
        field(
            "bindings",
            Ty::List(&BINDING),
            "Final-ABI bindings, sorted by slot.",
        ),
    ],
);

pub static OUTPUT_ERROR: Record = table(
    "kfam_output_error",
    "OutputError",
    Some("oe"),
    "The worst difference a qualification run saw between one written tensor and the reference.",
    &[
        struct_size(),
        field(
            "output",
            Ty::Param,
            "Signature index of the written (out or inout) tensor.",
        ),
        field(
            "max_abs",
            Ty::F64,
            "Largest absolute difference from the reference over every case.",
        ),
        field(
            "max_rel",
            Ty::F64,
            "Largest difference relative to the reference's magnitude over every case.",
        ),
    ],
);

pub static EVIDENCE: Record = Record {
    name: "Evidence",
    doc:
        "When and on what hardware an artifact qualified, and what the qualification run measured\n\
          (`tool` set: structured evidence, docs/qualify.md; absent: free text alone).",
    fields: &[
        field("date", Ty::Str, "Qualification date, YYYY-MM-DD."),
        field("hardware", Ty::Str, "Hardware the artifact qualified on."),
        field("note", Ty::OptStr, "Free-text note on the qualification."),
        field(
            "tool",
            Ty::OptStr,
            "The qualification tool (`kfam.qualify`); absent for free-text evidence.",
        ),
        c_only(
            "version_count",
            CValue::Count("versions"),
            "Entries of `versions`.",
        ),
        field(
            "versions",
            Ty::Strs,
            "Tool versions of the run, `name version` (`torch 2.9.1`).",
        ),
        field(
            "cases",
            Ty::Count,
            "Cases the run passed (0 for free-text evidence).",
        ),
        field("seed", Ty::I64, "Seed of the run's first case."),
        c_only(
            "shape_count",
            CValue::Count("shapes"),
            "Entries of `shapes`.",
        ),
        field(
            "shapes",
            Ty::Strs,
            "Extents covered, one entry per symbol: `name = v1, v2, ...`.",
        ),
        c_only(
            "error_count",
            CValue::Count("errors"),
            "Entries of `errors`.",
        ),
        field(
            "errors",
            Ty::List(&OUTPUT_ERROR),
            "The worst error per written tensor, in signature order.",
        ),
        field(
            "runs",
            Ty::Count,
            "Runs of the kernel per case: 2 or more measured determinism; 0 when not recorded.",
        )
        .since(1),
        field(
            "deterministic",
            Ty::Bool,
            "Every run of each case wrote bitwise identical outputs (`runs` >= 2).",
        )
        .since(1),
        field(
            "run_max_abs",
            Ty::F64,
            "Largest absolute difference between two runs of one case (0 when deterministic).",
        )
        .since(1),
    ],
    c: CForm::Inline,
    ctor: None,
    shorthands: &[],
    methods: None,
    kind: None,
};

pub static RECEIPT: Record = table(
    "kfam_receipt",
    "Receipt",
    Some("rc"),
    "One artifact, identified by its SHA-256, that qualified for the family on a profile.",
    &[
        struct_size(),
        field(
            "profile",
            Ty::Index,
            "Index of the qualified profile in the family's profiles.",
        ),
        field("codec", Ty::Str, "Wire-format id of the artifact."),
        field(
            "artifact",
            Ty::Str,
            "Artifact path, relative to the artifact root, `/`-separated.",
        ),
        field(
            "sha256",
            Ty::Digest,
            "SHA-256 of the artifact: 64 lowercase hex digits.",
        ),
        field(
            "evidence",
            Ty::Nested(&EVIDENCE),
            "When and on what hardware it qualified.",
        ),
    ],
);

pub static DIM_USE: Record = table(
    "kfam_dim_use",
    "DimUse",
    Some("du"),
    "One extent that is a named symbol: axis `axis` of parameter `param`.",
    &[
        struct_size(),
        field(
            "param",
            Ty::Param,
            "Signature index of the parameter (an index into the family's params).",
        ),
        field(
            "tensor",
            Ty::Index,
            "The parameter's index among the family's tensors (its argument).",
        ),
        field("axis", Ty::U32, "Axis of the parameter's logical shape."),
    ],
);

pub static SYMBOL: Record = table(
    "kfam_symbol",
    "Symbol",
    Some("sy"),
    "A named symbolic dimension (`shape = [\"rows\", 256]`) and its `[dims]` constraints: a call\n\
     passes every extent in `uses` equal (dim_mismatch), within `min..=max` and a multiple of\n\
     `multiple_of` (dim_range).",
    &[
        struct_size(),
        field("name", Ty::Str, "Symbol name (snake_case identifier)."),
        field(
            "min",
            Ty::I64,
            "Smallest accepted extent (0 when unconstrained).",
        ),
        field("max", Ty::Bound, "Largest accepted extent."),
        field(
            "multiple_of",
            Ty::I64,
            "Accepted extents are multiples of this (1 when unconstrained).",
        ),
        c_only(
            "use_count",
            CValue::Count("uses"),
            "Entries of `uses` (at least 1).",
        ),
        field(
            "uses",
            Ty::List(&DIM_USE),
            "Every extent that is this symbol, in signature order.",
        ),
    ],
);
