//! The records, each declared once. The order of a record's fields is its
//! order everywhere: the C struct (whose layout is the C ABI: fields are
//! only ever appended), the Rust record and row constructor, the Python
//! dataclass and row, and the docs. Fields typed [`Ty::C`] or [`Ty::Raw`]
//! are C's alone.

use super::{
    c_only, field, raw, Attr, AttrRule, CForm, CValue, Field, Fixed, Larger, Manifest, Record,
    Role, Shorthand, Ty,
};
use crate::vocab::{
    BinaryOp, BindingKind, CacheLayout, Contract, DType, Direction, Layout, NormKind,
    OperationKind, ParamKind, ReduceOp, UnaryOp, Vocabulary, BACKEND, EXECUTION_MODE, PLATFORM,
    RUNTIME,
};

const fn table(
    c: &'static str,
    name: &'static str,
    ctor: Option<&'static str>,
    doc: &'static str,
    fields: &'static [Field],
) -> Record {
    Record {
        name,
        doc,
        fields,
        c: CForm::Struct {
            c,
            union: false,
            mirror: None,
        },
        ctor,
        shorthands: &[],
        methods: None,
        manifest: None,
    }
}

const fn vocab(v: &'static Vocabulary) -> Ty {
    Ty::Vocab(v)
}

const SIZE: &str = "`sizeof` of this struct as the producer compiled it (see KFAM_HAS_FIELD).";

const fn struct_size() -> Field {
    c_only("struct_size", CValue::StructSize, SIZE)
}

pub static PARAM: Record = Record {
    methods: Some("_ParamMethods"),
    manifest: None,
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
    manifest: None,
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

// ------------------------------------------------------------ operations
//
// An operation kind is declared here once: its payload record (the fields
// every language holds, C's layout) and, with [`Manifest`] and each
// field's [`Key`], its table in the manifest. The manifest model, its JSON
// Schema, the lowering, the identity and the rows follow from it.

/// A payload that is a C struct of its own.
const fn payload(
    c: &'static str,
    name: &'static str,
    doc: &'static str,
    manifest: Manifest,
    fields: &'static [Field],
) -> Record {
    Record {
        manifest: Some(manifest),
        ..table(c, name, None, doc, fields)
    }
}

/// A payload held in `kfam_family`'s own fields.
const fn flat(
    name: &'static str,
    doc: &'static str,
    manifest: Manifest,
    fields: &'static [Field],
) -> Record {
    Record {
        name,
        doc,
        fields,
        c: CForm::Flat,
        ctor: None,
        shorthands: &[],
        methods: None,
        manifest: Some(manifest),
    }
}

/// A tensor operand: the manifest names the parameter (`key`), the records
/// hold its signature index (`doc`).
const fn operand(name: &'static str, doc: &'static str, key: &'static str) -> Field {
    field(name, Ty::Param, doc).key(key)
}

const SCALE: &str =
    "The softmax scale: a positive constant, or the name of a float scalar parameter.";

pub static ELEMENTWISE_BINARY: Record = flat(
    "ElementwiseBinary",
    "`out = op(lhs, rhs)` element by element: equal shapes, no broadcast.",
    Manifest {
        summary: "`out = lhs <op> rhs`, same shape and dtype, no broadcasting.",
        table: "`[operation.elementwise_binary]`: `out = lhs <op> rhs`, no broadcasting.",
    },
    &[
        field("op", vocab(&BinaryOp::VOCABULARY), "The operator.")
            .key("The operator.")
            .flat("binary_op", 0),
        operand(
            "lhs",
            "Signature index of the left operand.",
            "Name of the left input tensor (`in` or `inout`).",
        )
        .flat("operands", 0),
        operand(
            "rhs",
            "Signature index of the right operand.",
            "Name of the right input tensor (`in` or `inout`).",
        )
        .flat("operands", 1),
        operand(
            "out",
            "Signature index of the result.",
            "Name of the result tensor (`out` or `inout`).",
        )
        .flat("operands", 2),
    ],
);

pub static MATMUL: Record = flat(
    "Matmul",
    "`c = a @ b` (`c += a @ b` when `accumulate`) with `a: [m, k]`, `b: [k, n]`, `c: [m, n]`.",
    Manifest {
        summary: "`c = a @ b` (`c += a @ b` when `accumulate`).",
        table: "`[operation.matmul]`: `[.., M, K] @ [K, N] -> [.., M, N]`.",
    },
    &[
        field("m", Ty::Extent, "Rows of `a` and `c`.")
            .key("Rows of `a` and `c` (`-1` when dynamic, or a symbol name).")
            .flat("m", 0),
        field("k", Ty::Extent, "Columns of `a`, rows of `b`.")
            .key("Columns of `a`, rows of `b`.")
            .flat("k", 0),
        field("n", Ty::Extent, "Columns of `b` and `c`.")
            .key("Columns of `b` and `c`.")
            .flat("n", 0),
        operand(
            "a",
            "Signature index of `a`.",
            "Name of the left input tensor.",
        )
        .flat("operands", 0),
        operand(
            "b",
            "Signature index of `b`.",
            "Name of the right input tensor (same dtype as `a`).",
        )
        .flat("operands", 1),
        operand(
            "c",
            "Signature index of the result `c`.",
            "Name of the result tensor (`out`, or `inout` when accumulating).",
        )
        .flat("operands", 2),
        field(
            "accumulate",
            Ty::Bool,
            "Whether the product is added to `c` (`c += a @ b`).",
        )
        .optional_key("`c += a @ b`; `c` must then be `inout`.")
        .flat("accumulate", 0),
    ],
);

pub static ELEMENTWISE_UNARY: Record = payload(
    "kfam_elementwise_unary",
    "ElementwiseUnary",
    "`out = op(input)` element by element: equal shapes; equal dtypes unless `op` is `cast`.",
    Manifest {
        summary: "`out = op(input)`, same shape; same dtype unless `op = \"cast\"`.",
        table: "`[operation.elementwise_unary]`: `out = op(input)`, no broadcasting.",
    },
    &[
        struct_size(),
        field("op", vocab(&UnaryOp::VOCABULARY), "The operator.")
            .key("The operator; only `cast` changes the dtype."),
        operand(
            "input",
            "Signature index of the input tensor.",
            "Name of the input tensor.",
        ),
        operand(
            "out",
            "Signature index of the result (same shape; same dtype unless the op is cast).",
            "Name of the result tensor (same shape as `input`).",
        ),
    ],
);

pub static REDUCE: Record = payload(
    "kfam_reduce",
    "Reduce",
    "`out = op(input)` over `axes`, dropped or kept with extent 1 (`keepdim`).",
    Manifest {
        summary: "`out = op(input)` over `axes`.",
        table: "`[operation.reduce]`: reduce `input` over `axes` into `out`.",
    },
    &[
        struct_size(),
        field("op", vocab(&ReduceOp::VOCABULARY), "The reduction.").key("The reduction."),
        operand(
            "input",
            "Signature index of the input tensor.",
            "Name of the input tensor.",
        ),
        operand(
            "out",
            "Signature index of the result tensor.",
            "Name of the result tensor.",
        ),
        field(
            "keepdim",
            Ty::Bool,
            "Whether reduced axes are kept with extent 1 (else dropped).",
        )
        .optional_key("Keep reduced axes as extent 1 (default false: drop them)."),
        c_only(
            "axis_count",
            CValue::Count("axes"),
            "Entries of `axes` (at least 1).",
        ),
        field(
            "axes",
            Ty::Indices,
            "The reduced axes of the input, sorted and distinct.",
        )
        .key("Reduced axes of `input`, counted from 0, each at most once."),
    ],
);

pub static SOFTMAX: Record = payload(
    "kfam_softmax",
    "Softmax",
    "`out = softmax(input)` along `axis`: equal dtypes and shapes.",
    Manifest {
        summary: "`out = softmax(input)` along `axis`.",
        table: "`[operation.softmax]`: `out = softmax(input)` along `axis`.",
    },
    &[
        struct_size(),
        operand(
            "input",
            "Signature index of the input tensor.",
            "Name of the (float) input tensor.",
        ),
        operand(
            "out",
            "Signature index of the result (same dtype and shape).",
            "Name of the result tensor (same dtype and shape).",
        ),
        field("axis", Ty::U32, "The normalized axis of the input.")
            .key("The normalized axis of `input`, counted from 0."),
    ],
);

pub static NORM: Record = payload(
    "kfam_norm",
    "Norm",
    "RMSNorm or LayerNorm of `input` along `axis` into `out`; `weight` (and `bias`, LayerNorm\n\
     only) have the extent of `input` along `axis`.",
    Manifest {
        summary: "RMSNorm or LayerNorm along `axis`.",
        table: "`[operation.norm]`: RMSNorm or LayerNorm along `axis`.",
    },
    &[
        struct_size(),
        field("op", vocab(&NormKind::VOCABULARY), "Which norm.").key("`rms_norm` or `layer_norm`."),
        operand(
            "input",
            "Signature index of the input tensor.",
            "Name of the (float) input tensor.",
        ),
        operand(
            "weight",
            "Signature index of the weight tensor `[extent of input along axis]`.",
            "Name of the scale tensor, shape `[input extent along axis]`.",
        ),
        field(
            "bias",
            Ty::OptParam,
            "Signature index of the bias tensor (layer_norm only).",
        )
        .optional_key("Name of the shift tensor (`layer_norm` only), shaped like `weight`."),
        operand(
            "out",
            "Signature index of the result (same dtype and shape as input).",
            "Name of the result tensor (same dtype and shape as `input`).",
        ),
        field("axis", Ty::U32, "The normalized axis of the input.")
            .key("The normalized axis of `input`, counted from 0."),
        field("eps", Ty::ScalarRef, "Epsilon.")
            .key("A positive constant, or the name of a float scalar parameter."),
    ],
);

pub static PAGED_ATTENTION_DECODE: Record = payload(
    "kfam_paged_attention_decode",
    "PagedAttentionDecode",
    "Decode attention over a paged KV cache: `query` and `out` `[B, H, D]`, caches in\n\
     `layout` (`nhd`: `[num_blocks, block_size, H_kv, D]`), int32 `block_table`\n\
     `[B, max_blocks]` and `context_lens` `[B]`.",
    Manifest {
        summary: "Single-query attention over a paged key/value cache.",
        table: "`[operation.paged_attention_decode]`: one query token per sequence attends over its context, read from a block-paged key/value cache.",
    },
    &[
        struct_size(),
        operand(
            "query",
            "Signature index of the query `[B, H, D]`.",
            "Name of the query tensor `[B, H, D]`.",
        ),
        operand(
            "key_cache",
            "Signature index of the key cache (in a combined layout, of the one cache).",
            "Name of the key cache, `[num_blocks, block_size, H_kv, D]` in the default layout.",
        ),
        operand(
            "value_cache",
            "Signature index of the value cache (in a combined layout, key_cache's).",
            "Name of the value cache; in a combined layout, the key cache's name.",
        ),
        operand(
            "block_table",
            "Signature index of the int32 block table `[B, max_blocks]`.",
            "Name of the int32 block table `[B, max_blocks]`.",
        ),
        operand(
            "context_lens",
            "Signature index of the int32 context lengths `[B]`.",
            "Name of the int32 context lengths `[B]`.",
        ),
        operand(
            "out",
            "Signature index of the result `[B, H, D]`.",
            "Name of the result tensor `[B, H, D]`.",
        ),
        field("scale", Ty::ScalarRef, "The softmax scale.").key(SCALE),
        field(
            "layout",
            vocab(&CacheLayout::VOCABULARY),
            "How the caches lay out their blocks.",
        )
        .optional_key(
            "How the caches lay out their blocks: `nhd` (the default), `hnd`, `x_packed` or, keys and values in one tensor, `combined_nhd` or `combined_hnd`.",
        )
        .since(2),
    ],
);

pub static PACKED_ATTENTION_PREFILL: Record = payload(
    "kfam_packed_attention_prefill",
    "PackedAttentionPrefill",
    "Prefill attention over sequences packed along the token axis: `query` and `out`\n\
     `[T_q, H, D]`, `key` and `value` `[T_k, H_kv, D]`, sequence `b` at rows\n\
     `cu_seqlens[b]..cu_seqlens[b + 1]` of int32 offsets `[B + 1]`.",
    Manifest {
        summary: "Prefill attention over variable-length sequences packed into one tensor.",
        table: "`[operation.packed_attention_prefill]`: the sequences of a batch packed one after another along the token axis, each attending over its own keys (flash-attn's variable-length interface).",
    },
    &[
        struct_size(),
        operand(
            "query",
            "Signature index of the packed queries `[T_q, H, D]`.",
            "Name of the packed queries `[T_q, H, D]`.",
        ),
        operand(
            "key",
            "Signature index of the packed keys `[T_k, H_kv, D]`.",
            "Name of the packed keys `[T_k, H_kv, D]`.",
        ),
        operand(
            "value",
            "Signature index of the packed values `[T_k, H_kv, D]`.",
            "Name of the packed values `[T_k, H_kv, D]`.",
        ),
        operand(
            "cu_seqlens_q",
            "Signature index of the int32 query offsets `[B + 1]`.",
            "Name of the int32 offsets of each sequence's queries `[B + 1]`.",
        ),
        operand(
            "cu_seqlens_k",
            "Signature index of the int32 key offsets `[B + 1]`.",
            "Name of the int32 offsets of each sequence's keys `[B + 1]`.",
        ),
        operand(
            "out",
            "Signature index of the result `[T_q, H, D]`.",
            "Name of the result tensor `[T_q, H, D]`.",
        ),
        field(
            "max_seqlen_q",
            Ty::OptParam,
            "Signature index of the integer scalar carrying the longest query sequence.",
        )
        .optional_key("Name of an integer scalar parameter carrying the longest query sequence."),
        field(
            "max_seqlen_k",
            Ty::OptParam,
            "Signature index of the integer scalar carrying the longest key sequence.",
        )
        .optional_key("Name of an integer scalar parameter carrying the longest key sequence."),
        field(
            "causal",
            Ty::Bool,
            "Each query attends to keys at or before its position (aligned at the sequence's end).",
        )
        .key("Whether each query attends only to keys at or before its position (aligned at the end of the sequence when it has more keys than queries)."),
        field("scale", Ty::ScalarRef, "The softmax scale.").key(SCALE),
    ],
);

pub static CUSTOM: Record = flat(
    "Custom",
    "A fused kernel described by its signature and `semantics` alone (not cross-checked).",
    Manifest {
        summary: "A fused kernel described by its signature and `semantics` text alone.",
        table: "`[operation.custom]`: a fused kernel no closed vocabulary describes. kfam checks its signature like any other, and no relation between operands.",
    },
    &[field(
        "semantics",
        Ty::Str,
        "What the fused kernel computes (kfam checked its signature only).",
    )
    .key("What the kernel computes, for reviewers and generated docs (part of the identity).")
    .flat("semantics", 0)],
);

/// The payload of each operation kind, in the kinds' code order.
pub static OPERATIONS: &[(OperationKind, &Record)] = &[
    (OperationKind::ElementwiseBinary, &ELEMENTWISE_BINARY),
    (OperationKind::Matmul, &MATMUL),
    (OperationKind::ElementwiseUnary, &ELEMENTWISE_UNARY),
    (OperationKind::Reduce, &REDUCE),
    (OperationKind::Softmax, &SOFTMAX),
    (OperationKind::Norm, &NORM),
    (OperationKind::PagedAttentionDecode, &PAGED_ATTENTION_DECODE),
    (OperationKind::Custom, &CUSTOM),
    (
        OperationKind::PackedAttentionPrefill,
        &PACKED_ATTENTION_PREFILL,
    ),
];

/// The payload record of `kind`.
pub fn operation(kind: OperationKind) -> &'static Record {
    OPERATIONS
        .iter()
        .find(|(k, _)| *k == kind)
        .map(|(_, r)| *r)
        .expect("every operation kind has a payload record")
}

// -------------------------------------------------------------- families

const fn flat_c(
    name: &'static str,
    ty: &'static str,
    extent: Option<&'static str>,
    default: &'static str,
    doc: &'static str,
) -> Field {
    c_only(
        name,
        CValue::Flat {
            ty,
            extent,
            default,
        },
        doc,
    )
}

const fn payload_c(name: &'static str, record: &'static Record) -> Field {
    c_only(name, CValue::Payload(record), "")
}

pub static FAMILY: Record = Record {
    methods: Some("_FamilyMethods[Param, Profile, Receipt]"),
    manifest: None,
    ..table(
    "kfam_family",
    "Family",
    Some("f"),
    "One approved kernel family revision.",
    &[
        struct_size(),
        c_only(
            "abi_major",
            CValue::AbiMajor,
            "KFAM_ABI_MAJOR of the producer of this record.",
        ),
        c_only(
            "abi_minor",
            CValue::AbiMinor,
            "KFAM_ABI_MINOR of the producer of this record.",
        ),
        c_only(
            "index",
            CValue::Position,
            "Position in kfam_families (families are sorted by name).",
        ),
        field(
            "revision",
            Ty::U32,
            "Approved revision of the family contract.",
        ),
        field("name", Ty::Str, "Family name (snake_case identifier, unique).")
            .role(Role::Key),
        field(
            "identity",
            Ty::Digest,
            "Identity digest of this revision: 64 lowercase hex digits (as in approved.lock).",
        ),
        field(
            "summary",
            Ty::Str,
            "One-paragraph description (not part of the identity).",
        ),
        field(
            "torch_schema",
            Ty::OptStr,
            "The torch dispatcher schema (`kfam::NAME(...) -> ...`); absent when the signature has no torch spelling (a uint64 scalar).",
        ),
        field("contract", vocab(&Contract::VOCABULARY), "Program or kernel."),
        field(
            "torch",
            Ty::Bool,
            "Whether the family offers a torch dispatcher binding (manifest `torch = true`).",
        ),
        field(
            "operation",
            Ty::Operation,
            "The typed operation payload; its operands are indices into `params`.",
        )
        .spread(),
        c_only(
            "operation_kind",
            CValue::OperationKind,
            "A kfam_operation_kind code.",
        ),
        flat_c(
            "binary_op",
            "int32_t",
            None,
            "-1",
            "A kfam_binary_op code for KFAM_OPERATION_KIND_ELEMENTWISE_BINARY, else -1.",
        ),
        flat_c(
            "operands",
            "uint32_t",
            Some("KFAM_OPERAND_COUNT"),
            "0",
            "Signature indices of the operands: lhs, rhs, out (elementwise_binary) or a, b, c (matmul); 0 for other kinds (see their payload).",
        ),
        flat_c(
            "accumulate",
            "int32_t",
            None,
            "0",
            "Matmul: 1 when c += a @ b, 0 when c = a @ b; 0 otherwise.",
        ),
        flat_c(
            "m",
            "int64_t",
            None,
            "0",
            "Matmul M (KFAM_DIM_DYNAMIC when dynamic); 0 otherwise.",
        ),
        flat_c("k", "int64_t", None, "0", "Matmul K; 0 otherwise."),
        flat_c("n", "int64_t", None, "0", "Matmul N; 0 otherwise."),
        c_only(
            "param_count",
            CValue::Count("params"),
            "Entries of `params`.",
        ),
        field(
            "tensor_count",
            Ty::Count,
            "Tensor parameters among `params`.",
        ),
        field(
            "scalar_count",
            Ty::Count,
            "Scalar parameters among `params`.",
        ),
        c_only(
            "return_count",
            CValue::Count("returns"),
            "Entries of `returns`.",
        ),
        field(
            "params",
            Ty::List(&PARAM),
            "The ordered logical signature (ParamInfo).",
        ),
        field(
            "returns",
            Ty::Indices,
            "Return aliases: signature indices of out/inout tensors, repeats kept.",
        ),
        c_only(
            "profile_count",
            CValue::Count("profiles"),
            "Entries of `profiles`.",
        ),
        c_only(
            "receipt_count",
            CValue::Count("receipts"),
            "Entries of `receipts`.",
        ),
        field(
            "profiles",
            Ty::List(&PROFILE),
            "Artifact profiles, in declaration order.",
        ),
        field(
            "receipts",
            Ty::List(&RECEIPT),
            "Qualification receipts, in declaration order.",
        ),
        c_only(
            "symbol_count",
            CValue::Count("symbols"),
            "Entries of `symbols` (appended for named symbolic dimensions).",
        ),
        field(
            "symbols",
            Ty::List(&SYMBOL),
            "Named symbolic dimensions, in order of first use.",
        ),
        // Appended in ABI 2.0: the payloads of the kinds after matmul.
        payload_c("elementwise_unary", &ELEMENTWISE_UNARY),
        payload_c("reduce", &REDUCE),
        payload_c("softmax", &SOFTMAX),
        payload_c("norm", &NORM),
        payload_c("paged_attention_decode", &PAGED_ATTENTION_DECODE),
        flat_c(
            "semantics",
            "const char *",
            None,
            "NULL",
            "KFAM_OPERATION_KIND_CUSTOM: what the fused kernel computes (kfam checked its signature only); else NULL.",
        ),
        field(
            "approval",
            Ty::U32,
            "The approval this revision entered approved.lock with: later generations' approvals are larger (docs/compatibility.md).",
        ),
        payload_c("packed_attention_prefill", &PACKED_ATTENTION_PREFILL),
    ],
)
};

pub static RETIRED: Record = table(
    "kfam_retired",
    "Retired",
    None,
    "A family that was approved and then retired (manifest/retired.toml): its name and\n\
     artifacts are refused as retired (KFAM_STATUS_INVALID_STATE), not as unknown.",
    &[
        struct_size(),
        field("revision", Ty::U32, "The last approved revision."),
        field(
            "name",
            Ty::Str,
            "The retired family's name, reserved from now on.",
        )
        .role(Role::Key),
        field(
            "identity",
            Ty::Digest,
            "Identity digest of the last approved revision (64 lowercase hex digits).",
        ),
        field("reason", Ty::Str, "Why the family was retired."),
        c_only(
            "receipt_count",
            CValue::Count("receipts"),
            "Entries of `receipts`.",
        ),
        field(
            "receipts",
            Ty::Strs,
            "Every artifact digest ever approved for the family, sorted.",
        ),
    ],
);

pub static TABLE: Record = table(
    "kfam_table",
    "Table",
    None,
    "The table header: ABI version, limits and every family.",
    &[
        struct_size(),
        c_only(
            "abi_major",
            CValue::Macro("KFAM_ABI_MAJOR", "uint16_t"),
            "KFAM_ABI_MAJOR of the producer of the tables.",
        ),
        c_only(
            "abi_minor",
            CValue::Macro("KFAM_ABI_MINOR", "uint16_t"),
            "KFAM_ABI_MINOR of the producer of the tables.",
        ),
        c_only(
            "abi_revision",
            CValue::Macro("KFAM_ABI_REVISION", "const char *"),
            "KFAM_ABI_REVISION: the native runtime commit the artifacts target.",
        ),
        c_only(
            "max_tensor_args",
            CValue::Macro("KFAM_MAX_TENSOR_ARGS", "uint32_t"),
            "KFAM_MAX_TENSOR_ARGS.",
        ),
        c_only(
            "max_scalar_args",
            CValue::Macro("KFAM_MAX_SCALAR_ARGS", "uint32_t"),
            "KFAM_MAX_SCALAR_ARGS.",
        ),
        c_only(
            "max_rank",
            CValue::Macro("KFAM_MAX_RANK", "uint32_t"),
            "KFAM_MAX_RANK.",
        ),
        c_only(
            "family_count",
            CValue::Macro("KFAM_FAMILY_COUNT", "uint32_t"),
            "Entries of `families`.",
        ),
        c_only(
            "families",
            CValue::Macro("kfam_families", "const kfam_family *"),
            "Every approved family, sorted by name.",
        ),
        c_only(
            "max_prepared",
            CValue::Macro("KFAM_MAX_PREPARED", "uint32_t"),
            "KFAM_MAX_PREPARED.",
        ),
    ],
);

/// The table records, in header order (a record names only earlier ones).
pub static TABLE_RECORDS: &[&Record] = &[
    &PARAM,
    &BINDING,
    &PROFILE,
    &OUTPUT_ERROR,
    &RECEIPT,
    &ELEMENTWISE_UNARY,
    &REDUCE,
    &SOFTMAX,
    &NORM,
    &PAGED_ATTENTION_DECODE,
    &PACKED_ATTENTION_PREFILL,
    &DIM_USE,
    &SYMBOL,
    &FAMILY,
    &RETIRED,
    &TABLE,
];

/// The records Rust and Python hold, in the order their types are written
/// (a record names only earlier ones, operation payloads before the
/// operation, which [`OPERATIONS`] lists).
pub static LOGICAL_RECORDS: &[&Record] = &[
    &PARAM,
    &BINDING,
    &PROFILE,
    &OUTPUT_ERROR,
    &EVIDENCE,
    &RECEIPT,
    &DIM_USE,
    &SYMBOL,
    &FAMILY,
    &RETIRED,
];

/// The latest description format minor any field was appended in: the
/// format's minor ([`crate::emit::c::description::FORMAT_MINOR`]), raised by
/// declaring a field `.since(next)`.
pub const fn latest_since() -> u16 {
    const fn of(fields: &[Field], mut latest: u16) -> u16 {
        let mut i = 0;
        while i < fields.len() {
            if fields[i].since > latest {
                latest = fields[i].since;
            }
            i += 1;
        }
        latest
    }
    let mut latest = 0;
    let mut i = 0;
    while i < LOGICAL_RECORDS.len() {
        latest = of(LOGICAL_RECORDS[i].fields, latest);
        i += 1;
    }
    let mut i = 0;
    while i < OPERATIONS.len() {
        latest = of(OPERATIONS[i].1.fields, latest);
        i += 1;
    }
    latest
}

// ------------------------------------------------- C ABI arguments, results

const fn call(
    c: &'static str,
    mirror: &'static str,
    doc: &'static str,
    fields: &'static [Field],
) -> Record {
    Record {
        name: mirror,
        doc,
        fields,
        c: CForm::Struct {
            c,
            union: false,
            mirror: Some(mirror),
        },
        ctor: None,
        shorthands: &[],
        methods: None,
        manifest: None,
    }
}

/// The arguments and results of the runtime library's functions, in header
/// order.
pub static CALL_RECORDS: &[&Record] = &[
    &ARTIFACT_MATCH,
    &CAPABILITY_RESULT,
    &ADMISSION,
    &TENSOR_ARG,
    &SCALAR_VALUE,
    &SCALAR_ARG,
    &CALL_ERROR,
    &CONTEXT_OPTIONS,
    &PAIRING,
];

pub static ARTIFACT_MATCH: Record = call(
    "kfam_artifact_match",
    "ArtifactMatch",
    "Result of kfam_find_artifact. Pointers are library-owned.",
    &[
        raw(
            "uint32_t",
            "struct_size",
            "In: sizeof(kfam_artifact_match) as the caller compiled it.",
        ),
        raw(
            "uint32_t",
            "family_index",
            "Out: index of the family in the library's table.",
        ),
        raw(
            "uint32_t",
            "profile_index",
            "Out: index of the profile in family->profiles.",
        ),
        raw(
            "uint32_t",
            "receipt_index",
            "Out: index of the receipt in family->receipts.",
        ),
        raw(
            "const kfam_family *",
            "family",
            "Out: the family (library-owned, valid for the life of the process).",
        ),
        raw(
            "const kfam_profile *",
            "profile",
            "Out: the profile the receipt qualifies.",
        ),
        raw(
            "const kfam_receipt *",
            "receipt",
            "Out: the receipt that records the digest.",
        ),
    ],
);

pub static CAPABILITY_RESULT: Record = call(
    "kfam_capability_result",
    "CapabilityResult",
    "Result of kfam_capability.",
    &[
        raw(
            "uint32_t",
            "struct_size",
            "In: sizeof(kfam_capability_result) as the caller compiled it.",
        ),
        raw(
            "int32_t",
            "outcome",
            "Out: a kfam_capability_outcome code; KFAM_CAPABILITY_SUPPORTED when supported, KFAM_CAPABILITY_INVALID_CALL (0) when the call itself was refused.",
        ),
        raw(
            "uint32_t",
            "family_index",
            "Out: index of the family in the library's table (when the family is known).",
        ),
        raw(
            "uint32_t",
            "profile_index",
            "Out: index of the matching profile (when supported).",
        ),
        raw(
            "uint32_t",
            "receipt_index",
            "Out: index of the matching receipt (when supported).",
        ),
        raw(
            "const kfam_family *",
            "family",
            "Out: the family, or NULL when unknown.",
        ),
        raw(
            "const kfam_profile *",
            "profile",
            "Out: the matching profile, or NULL.",
        ),
        raw(
            "const kfam_receipt *",
            "receipt",
            "Out: the receipt that qualifies the profile, or NULL.",
        ),
    ],
);

pub static ADMISSION: Record = call(
    "kfam_admission",
    "AdmissionResult",
    "Result of kfam_admit.",
    &[
        raw("uint32_t", "struct_size", "In: sizeof(kfam_admission) as the caller compiled it."),
        raw("int32_t", "outcome", "Out: a kfam_admission_outcome code; KFAM_ADMISSION_ADMITTED when admitted, KFAM_ADMISSION_INVALID_CALL (0) when the call itself was refused."),
        raw("int32_t", "contract", "Out: kfam_contract the artifact may be loaded with (schema 1 and 2: always program); -1 when refused."),
        raw("uint32_t", "family_index", "Out: index of the admitted family in the library's table."),
        raw("uint32_t", "profile_index", "Out: index of the matching profile."),
        raw("uint32_t", "receipt_index", "Out: index of the matching receipt."),
        raw("const kfam_family *", "family", "Out: the admitted family, or NULL when refused."),
        raw("const kfam_profile *", "profile", "Out: the matching profile, or NULL."),
        raw("const kfam_receipt *", "receipt", "Out: the matching receipt, or NULL."),
        raw(
            "const char *",
            "field",
            "Out: for KFAM_ADMISSION_NOT_APPROVED, the first field that differs (e.g. \"params\", \"artifact.sha256\"); else NULL. Library-owned.",
        ),
    ],
);

pub static TENSOR_ARG: Record = call(
    "kfam_tensor_arg",
    "CTensorArg",
    "Descriptor of one tensor argument of a call, DLPack-like; no data is read\n\
     through it. Offsets and strides count elements (fp4: two per byte).",
    &[
        raw("uint32_t", "struct_size", "sizeof(kfam_tensor_arg) as the caller compiled it; equal in every element of an array."),
        raw("int32_t", "dtype", "A kfam_dtype code."),
        raw("int32_t", "format", "Physical storage format, a kfam_storage_format code (KFAM_STORAGE_FORMAT_ND for plain strided tensors)."),
        raw("uint32_t", "rank", "Entries of `shape` and `strides`."),
        raw("const int64_t *", "shape", "Logical extents of the view (what kfam_param.shape describes; for NZ too), `rank` entries."),
        raw(
            "const int64_t *",
            "strides",
            "Strides in elements, `rank` entries; NULL means contiguous row-major. Ignored for KFAM_STORAGE_FORMAT_FRACTAL_NZ.",
        ),
        raw("int64_t", "storage_offset", "Offset of the view's first element into its storage, in elements (0 for NZ)."),
        raw("uint64_t", "storage_bytes", "Capacity of the underlying storage in bytes."),
        raw(
            "uint64_t",
            "storage",
            "Identity of the underlying storage (its base address, host or device): views of one storage share it.",
        ),
        raw("int32_t", "device_index", "Device ordinal of the storage; every tensor of a call is on the same one."),
    ],
);

pub static SCALAR_VALUE: Record = Record {
    c: CForm::Struct {
        c: "kfam_scalar_value",
        union: true,
        mirror: Some("CScalarValue"),
    },
    ..call(
        "kfam_scalar_value",
        "CScalarValue",
        "The value of a scalar argument; kfam_scalar_arg.kind names the member.",
        &[
            raw(
                "int64_t",
                "i64",
                "KFAM_SCALAR_VALUE_KIND_INT, and KFAM_SCALAR_VALUE_KIND_BOOL (0 false, 1 true).",
            ),
            raw("uint64_t", "u64", "KFAM_SCALAR_VALUE_KIND_UINT."),
            raw("double", "f64", "KFAM_SCALAR_VALUE_KIND_FLOAT."),
        ],
    )
};

pub static SCALAR_ARG: Record = call(
    "kfam_scalar_arg",
    "CScalarArg",
    "Descriptor of one scalar argument of a call.",
    &[
        raw(
            "uint32_t",
            "struct_size",
            "sizeof(kfam_scalar_arg) as the caller compiled it; equal in every element of an array.",
        ),
        raw(
            "int32_t",
            "kind",
            "A kfam_scalar_value_kind code: the caller's host type, which names the member of `value`.",
        ),
        raw(
            "kfam_scalar_value",
            "value",
            "The value, in the member named by `kind`.",
        ),
    ],
);

pub static CALL_ERROR: Record = call(
    "kfam_call_error",
    "CCallError",
    "Why kfam_validate_call rejected a call (the first problem found).",
    &[
        raw("uint32_t", "struct_size", "In: sizeof(kfam_call_error) as the caller compiled it."),
        raw(
            "int32_t",
            "rule",
            "Out: the kfam_call_rule the call broke (KFAM_CALL_RULE_OK when valid), or KFAM_CALL_RULE_INVALID_CALL (0) when the call itself was refused (NULL pointer, bad struct_size, unknown code, unknown family or identity).",
        ),
        raw("int32_t", "param_index", "Out: signature index of the parameter concerned, or -1 (argument counts)."),
        raw(
            "int32_t",
            "symbol_index",
            "Out (appended; written when struct_size covers it): for dim_mismatch and dim_range, the named symbol (an index into kfam_family.symbols), otherwise -1.",
        ),
        raw(
            "int32_t",
            "other_param_index",
            "Out (appended; written when struct_size covers it): for dim_mismatch, the parameter whose extent the symbol took first, otherwise -1.",
        ),
    ],
);

pub static CONTEXT_OPTIONS: Record = call(
    "kfam_context_options",
    "CContextOptions",
    "Options of kfam_context_new_with. Zero it and set struct_size to\n\
     sizeof(kfam_context_options); a field left 0 takes its default.",
    &[
        raw(
            "uint32_t",
            "struct_size",
            "In: sizeof(kfam_context_options) as the caller compiled it.",
        ),
        raw(
            "uint32_t",
            "max_prepared",
            "Most callables the context holds prepared; 0 takes the library's KFAM_MAX_PREPARED.",
        ),
    ],
);

pub static PAIRING: Record = call(
    "kfam_pairing",
    "CPairing",
    "What a program compiled in from this header, for kfam_check_pairing: the\n\
     header's own, filled in by kfam_gen_pairing() (KFAM_CHECK_CATALOG passes it).",
    &[
        raw(
            "uint32_t",
            "struct_size",
            "sizeof(kfam_pairing) as the program compiled it.",
        ),
        raw("uint16_t", "abi_major", "KFAM_ABI_MAJOR."),
        raw("uint16_t", "abi_minor", "KFAM_ABI_MINOR."),
        raw("const char *", "name", "KFAM_CATALOG_NAME."),
        raw("const char *", "digest", "KFAM_CATALOG_DIGEST."),
        raw(
            "const char *",
            "families",
            "KFAM_CATALOG_FAMILIES: the digest of the header's families.",
        ),
        raw(
            "uint32_t",
            "approval",
            "KFAM_CATALOG_APPROVAL: the newest approval among the header's families.",
        ),
        raw("uint32_t", "max_tensor_args", "KFAM_MAX_TENSOR_ARGS."),
        raw("uint32_t", "max_scalar_args", "KFAM_MAX_SCALAR_ARGS."),
        raw("uint32_t", "max_rank", "KFAM_MAX_RANK."),
        raw("uint32_t", "max_prepared", "KFAM_MAX_PREPARED."),
        raw("uint32_t", "status_count", "Entries of `status`."),
        raw(
            "const int32_t *",
            "status",
            "The header's status codes, in kfam_status's order of names (ok, internal, ...).",
        ),
        raw("uint32_t", "record_count", "Entries of `record_sizes`."),
        raw(
            "const uint32_t *",
            "record_sizes",
            "sizeof each argument and result record of the functions, in the header's order.",
        ),
        raw(
            "const char *",
            "targets",
            "The header's declared targets, one `kind name code` line each.",
        ),
    ],
);
