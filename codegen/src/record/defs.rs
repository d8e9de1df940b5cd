//! A family's record, its operation kinds and the lists the emitters walk.
//! The order of a record's fields is its order everywhere: the C struct
//! (whose layout is the C ABI: fields are only ever appended), the Rust
//! record and row constructor, the Python dataclass and row, and the docs.
//! Fields typed [`Ty::C`] or [`Ty::Raw`] are C's alone.
//!
//! An operation kind is declared here, once: its member of
//! [`OperationKind`], its payload record (the fields every language holds,
//! each with its manifest [`Key`](super::Key)), what it declares beside
//! them ([`Kind`]: its table's docs, its `kfam new` template, the format
//! minor that added it) and its entry in [`OPERATIONS`] (and, for a payload
//! that is a C struct, its pointer in `kfam_family` and its place among the
//! [`super::table_records`]). The manifest model and its JSON Schema, the
//! lowering, the identity, `kfam diff` and every output follow from it; its
//! rules are `check::operation`'s, its reference `_reference.py`'s.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::operands::{Divides, DtypeClass, Dtypes, Letter, Operand, Operands, Shape, UNCHECKED};
use super::{
    c_only, field, struct_size, table, vocab, CForm, CValue, Field, KeyChange, Kind, Record, Role,
    Ty, PARAM, PROFILE, RECEIPT, SYMBOL,
};
use crate::codes::Code;
use crate::vocab::{
    vocab, BinaryOp, CacheLayout, Contract, Member, NormKind, ReduceOp, UnaryOp, Vocabulary,
    WeightLayout,
};

vocab! {
    /// The closed set of operation kinds. A new kind needs reviewed generator code.
    OperationKind {
        ElementwiseBinary = 0 => "elementwise_binary",
        Matmul = 1 => "matmul",
        ElementwiseUnary = 2 => "elementwise_unary",
        Reduce = 3 => "reduce",
        Softmax = 4 => "softmax",
        Norm = 5 => "norm",
        PagedAttentionDecode = 6 => "paged_attention_decode",
        /// A fused kernel described only by its signature and `semantics`
        /// text: kfam checks no shape or dtype relation between its operands.
        Custom = 7 => "custom",
        PackedAttentionPrefill = 8 => "packed_attention_prefill",
        Rope = 9 => "rope",
        Linear = 10 => "linear",
        DenseAttention = 11 => "dense_attention",
    }
}

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
    kind: Kind,
    fields: &'static [Field],
) -> Record {
    Record {
        kind: Some(kind),
        ..table(c, name, None, doc, fields)
    }
}

/// A payload held in `kfam_family`'s own fields.
const fn flat(
    name: &'static str,
    doc: &'static str,
    kind: Kind,
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
        kind: Some(kind),
    }
}

/// A tensor operand: the manifest names the parameter (`key`), the records
/// hold its signature index (`doc`).
const fn operand(name: &'static str, doc: &'static str, key: &'static str) -> Field {
    field(name, Ty::Param, doc).key(key)
}

/// A `linear` operand of activations (`Rows`, `K` or `N` last), or of one
/// batch of them per weight with a batched weight (`enk`, `ekn`).
const BATCHED_ROWS_K: &[(&str, Shape)] = &[
    ("nk", Shape::Rows(&["K"])),
    ("kn", Shape::Rows(&["K"])),
    ("enk", Shape::Axes(&["E", "T", "K"])),
    ("ekn", Shape::Axes(&["E", "T", "K"])),
];
const BATCHED_ROWS_N: &[(&str, Shape)] = &[
    ("nk", Shape::Rows(&["N"])),
    ("kn", Shape::Rows(&["N"])),
    ("enk", Shape::Axes(&["E", "T", "N"])),
    ("ekn", Shape::Axes(&["E", "T", "N"])),
];

/// Grouped-query heads: each KV head serves H / H_kv query heads.
const GQA: Divides = Divides {
    multiple: "H",
    divisor: "H_kv",
    counts: "heads",
    why: "grouped-query attention shares each KV head among H / H_kv query heads",
};

const SCALE: &str =
    "The softmax scale: a positive constant, or the name of a float scalar parameter.";

pub static ELEMENTWISE_BINARY: Record = flat(
    "ElementwiseBinary",
    "`out = op(lhs, rhs)` element by element: equal shapes, no broadcast.",
    Kind {
        summary: "`out = lhs <op> rhs`, same shape and dtype, no broadcasting.",
        table: "`[operation.elementwise_binary]`: `out = lhs <op> rhs`, no broadcasting.",
        template: include_str!("../init/kinds/elementwise_binary.toml"),
        since: 0,
        operands: &Operands {
            code: Code::ElementwiseMismatch,
            help: "elementwise operations do not broadcast; declare equal shapes and one dtype",
            tensors: &[
                Operand {
                    key: "lhs",
                    written: false,
                    shape: Shape::Any,
                },
                Operand {
                    key: "rhs",
                    written: false,
                    shape: Shape::Like("lhs"),
                },
                Operand {
                    key: "out",
                    written: true,
                    shape: Shape::Like("lhs"),
                },
            ],
            extents: &[],
            dtypes: &[Dtypes {
                members: &["lhs", "rhs", "out"],
                class: DtypeClass::Same,
                unless: None,
            }],
            divides: &[],
            rules: &["`op` is defined on the operands' dtype (\"Operators and dtypes\")"],
        },
    },
    &[
        field("op", vocab(&BinaryOp::VOCABULARY), "The operator.")
            .key("The operator.")
            .changes(KeyChange::Operator)
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
    Kind {
        summary: "`c = a @ b` (`c += a @ b` when `accumulate`).",
        table: "`[operation.matmul]`: `[.., M, K] @ [K, N] -> [.., M, N]`.",
        template: include_str!("../init/kinds/matmul.toml"),
        since: 0,
        operands: &Operands {
            code: Code::MatmulMismatch,
            help: "a matmul is [.., M, K] @ [K, N] -> [.., M, N]; use -1 where the extent is dynamic",
            tensors: &[
                Operand { key: "a", written: false, shape: Shape::Rows(&["M", "K"]) },
                Operand { key: "b", written: false, shape: Shape::Axes(&["K", "N"]) },
                Operand { key: "c", written: true, shape: Shape::Rows(&["M", "N"]) },
            ],
            extents: &[
                Letter { letter: "M", subject: "the rows M", tie: None },
                Letter { letter: "K", subject: "the inner extent K", tie: None },
                Letter { letter: "N", subject: "the columns N", tie: None },
            ],
            dtypes: &[Dtypes { members: &["a", "b"], class: DtypeClass::Same, unless: None }],
            divides: &[],
            rules: &[
                "the payload's `m`, `k` and `n` equal the operands' extents",
                "`b` may instead carry the leading extents of `a` (`[.., K, N]`: a batched product)",
                "`c` is `inout` when `accumulate = true`",
            ],
        },
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
    Kind {
        summary: "`out = op(input)`, same shape; same dtype unless `op = \"cast\"`.",
        table: "`[operation.elementwise_unary]`: `out = op(input)`, no broadcasting.",
        template: include_str!("../init/kinds/elementwise_unary.toml"),
        since: 0,
        operands: &Operands {
            code: Code::UnaryMismatch,
            help: "`out` has the shape of `input`, and its dtype unless `op = \"cast\"`",
            tensors: &[
                Operand {
                    key: "input",
                    written: false,
                    shape: Shape::Any,
                },
                Operand {
                    key: "out",
                    written: true,
                    shape: Shape::Like("input"),
                },
            ],
            extents: &[],
            dtypes: &[Dtypes {
                members: &["input", "out"],
                class: DtypeClass::Same,
                unless: Some(("op", "cast")),
            }],
            divides: &[],
            rules: &["`op` is defined on the dtype of `input` (\"Operators and dtypes\")"],
        },
    },
    &[
        struct_size(),
        field("op", vocab(&UnaryOp::VOCABULARY), "The operator.")
            .key("The operator; only `cast` changes the dtype.")
            .changes(KeyChange::Operator),
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
    Kind {
        summary: "`out = op(input)` over `axes`.",
        table: "`[operation.reduce]`: reduce `input` over `axes` into `out`.",
        template: include_str!("../init/kinds/reduce.toml"),
        since: 0,
        operands: &Operands {
            code: Code::ReduceMismatch,
            help: "reduced axes are dropped (extent 1 with `keepdim = true`); the others keep their extent",
            tensors: &[
                Operand { key: "input", written: false, shape: Shape::Any },
                Operand { key: "out", written: true, shape: Shape::Any },
            ],
            extents: &[],
            dtypes: &[Dtypes { members: &["input", "out"], class: DtypeClass::Same, unless: None }],
            divides: &[],
            rules: &[
                "`out` is the shape of `input` with each of `axes` dropped (extent 1 with `keepdim = true`)",
                "`op` is defined on the dtype of `input` (\"Operators and dtypes\")",
            ],
        },
    },
    &[
        struct_size(),
        field("op", vocab(&ReduceOp::VOCABULARY), "The reduction.")
            .key("The reduction.")
            .changes(KeyChange::Operator),
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
        .optional_key("Keep reduced axes as extent 1 (default false: drop them).")
        .changes(KeyChange::Axes),
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
        .key("Reduced axes of `input`, counted from 0, each at most once.")
        .changes(KeyChange::Axes),
    ],
);

pub static SOFTMAX: Record = payload(
    "kfam_softmax",
    "Softmax",
    "`out = softmax(input)` along `axis`: equal dtypes and shapes.",
    Kind {
        summary: "`out = softmax(input)` along `axis`.",
        table: "`[operation.softmax]`: `out = softmax(input)` along `axis`.",
        template: include_str!("../init/kinds/softmax.toml"),
        since: 0,
        operands: &Operands {
            code: Code::SoftmaxMismatch,
            help: "softmax keeps the float dtype and the shape of its input",
            tensors: &[
                Operand {
                    key: "input",
                    written: false,
                    shape: Shape::Any,
                },
                Operand {
                    key: "out",
                    written: true,
                    shape: Shape::Like("input"),
                },
            ],
            extents: &[],
            dtypes: &[Dtypes {
                members: &["input", "out"],
                class: DtypeClass::Float,
                unless: None,
            }],
            divides: &[],
            rules: &["`axis` is an axis of `input`"],
        },
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
            .key("The normalized axis of `input`, counted from 0.")
            .changes(KeyChange::Axes),
    ],
);

pub static NORM: Record = payload(
    "kfam_norm",
    "Norm",
    "RMSNorm or LayerNorm of `input` along `axis` into `out`; `weight` (and `bias`, LayerNorm\n\
     only) have the extent of `input` along `axis`.",
    Kind {
        summary: "RMSNorm or LayerNorm along `axis`.",
        table: "`[operation.norm]`: RMSNorm or LayerNorm along `axis`.",
        template: include_str!("../init/kinds/norm.toml"),
        since: 0,
        operands: &Operands {
            code: Code::NormMismatch,
            help: "`out` has the dtype and shape of `input`; `weight` and `bias` are [extent of `input` along `axis`]",
            tensors: &[
                Operand { key: "input", written: false, shape: Shape::Any },
                Operand { key: "weight", written: false, shape: Shape::Axes(&["E"]) },
                Operand { key: "bias", written: false, shape: Shape::Axes(&["E"]) },
                Operand { key: "out", written: true, shape: Shape::Like("input") },
            ],
            // E follows the payload's `axis`: the kind's own rule.
            extents: &[],
            dtypes: &[
                Dtypes { members: &["input", "out"], class: DtypeClass::Float, unless: None },
                Dtypes { members: &["weight"], class: DtypeClass::Float, unless: None },
                Dtypes { members: &["bias"], class: DtypeClass::Float, unless: None },
            ],
            divides: &[],
            rules: &[
                "E is the extent of `input` along `axis`; `weight` and `bias` are float",
                "`layer_norm` takes a `bias`, `rms_norm` none",
            ],
        },
    },
    &[
        struct_size(),
        field("op", vocab(&NormKind::VOCABULARY), "Which norm.")
            .key("`rms_norm` or `layer_norm`.")
            .changes(KeyChange::Operator),
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
            .key("The normalized axis of `input`, counted from 0.")
            .changes(KeyChange::Axes),
        field("eps", Ty::ScalarRef, "Epsilon.")
            .key("A positive constant, or the name of a float scalar parameter.")
            .changes(KeyChange::Scalar),
    ],
);

pub static PAGED_ATTENTION_DECODE: Record = payload(
    "kfam_paged_attention_decode",
    "PagedAttentionDecode",
    "Decode attention over a paged KV cache: `query` and `out` `[B, H, D]`, caches in\n\
     `layout` (`nhd`: `[num_blocks, block_size, H_kv, D]`), int32 `block_table`\n\
     `[B, max_blocks]` and `context_lens` `[B]`.",
    Kind {
        summary: "Single-query attention over a paged key/value cache.",
        table: "`[operation.paged_attention_decode]`: one query token per sequence attends over its context, read from a block-paged key/value cache.",
        template: include_str!("../init/kinds/paged_attention_decode.toml"),
        since: 0,
        operands: &Operands {
            code: Code::PagedAttentionMismatch,
            help: "query [B, H, D], caches [num_blocks, block_size, H_kv, D] (in `layout`), block_table [B, max_blocks] int32, context_lens [B] int32, out [B, H, D]",
            tensors: &[
                Operand { key: "query", written: false, shape: Shape::Axes(&["B", "H", "D"]) },
                Operand { key: "key_cache", written: false, shape: Shape::Rule("in the declared `layout` (\"Cache layouts\")") },
                Operand { key: "value_cache", written: false, shape: Shape::Rule("in the declared `layout` (\"Cache layouts\")") },
                Operand { key: "block_table", written: false, shape: Shape::Axes(&["B", "max_blocks"]) },
                Operand { key: "context_lens", written: false, shape: Shape::Axes(&["B"]) },
                Operand { key: "out", written: true, shape: Shape::Like("query") },
            ],
            extents: &[
                Letter { letter: "B", subject: "the batch B", tie: Some("batch") },
                Letter { letter: "H", subject: "the head count H", tie: None },
                Letter { letter: "D", subject: "the head size D", tie: None },
                Letter { letter: "max_blocks", subject: "the block table's width", tie: None },
            ],
            dtypes: &[
                Dtypes { members: &["query", "key_cache", "value_cache", "out"], class: DtypeClass::Float, unless: None },
                Dtypes { members: &["block_table", "context_lens"], class: DtypeClass::Int32, unless: None },
            ],
            divides: &[],
            rules: &[
                "the caches are shaped by `layout` (`nhd`: `[num_blocks, block_size, H_kv, D]`), sharing their extents, D with `query`",
                "H is a multiple of H_kv",
                "a combined layout names one tensor as both caches",
            ],
        },
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
        field("scale", Ty::ScalarRef, "The softmax scale.")
            .key(SCALE)
            .changes(KeyChange::Scalar),
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
    Kind {
        summary: "Prefill attention over variable-length sequences packed into one tensor.",
        table: "`[operation.packed_attention_prefill]`: the sequences of a batch packed one after another along the token axis, each attending over its own keys (flash-attn's variable-length interface).",
        template: include_str!("../init/kinds/packed_attention_prefill.toml"),
        since: 0,
        operands: &Operands {
            code: Code::PackedAttentionMismatch,
            help: "query [T_q, H, D], key and value [T_k, H_kv, D], cu_seqlens_q and cu_seqlens_k [B + 1] int32, out [T_q, H, D]",
            tensors: &[
                Operand { key: "query", written: false, shape: Shape::Axes(&["T_q", "H", "D"]) },
                Operand { key: "key", written: false, shape: Shape::Axes(&["T_k", "H_kv", "D"]) },
                Operand { key: "value", written: false, shape: Shape::Like("key") },
                Operand { key: "cu_seqlens_q", written: false, shape: Shape::Axes(&["B+1"]) },
                Operand { key: "cu_seqlens_k", written: false, shape: Shape::Like("cu_seqlens_q") },
                Operand { key: "out", written: true, shape: Shape::Like("query") },
            ],
            extents: &[
                Letter { letter: "T_q", subject: "the query tokens T_q", tie: Some("tokens") },
                Letter { letter: "T_k", subject: "the key tokens T_k", tie: Some("kv_tokens") },
                Letter { letter: "B+1", subject: "the offsets' length B + 1", tie: Some("batch_plus_one") },
                Letter { letter: "H", subject: "the head count H", tie: None },
                Letter { letter: "H_kv", subject: "the KV head count H_kv", tie: None },
                Letter { letter: "D", subject: "the head size D", tie: None },
            ],
            dtypes: &[
                Dtypes { members: &["query", "key", "value", "out"], class: DtypeClass::Float, unless: None },
                Dtypes { members: &["cu_seqlens_q", "cu_seqlens_k"], class: DtypeClass::Int32, unless: None },
            ],
            divides: &[GQA],
            rules: &[
                "B + 1 is at least 2 in every call (`min = 2` of its symbol)",
                "one offsets tensor for queries and keys makes T_q and T_k one extent",
                "`max_seqlen_q` and `max_seqlen_k` name integer scalar parameters",
            ],
        },
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
        field("scale", Ty::ScalarRef, "The softmax scale.")
            .key(SCALE)
            .changes(KeyChange::Scalar),
    ],
);

pub static CUSTOM: Record = flat(
    "Custom",
    "A fused kernel described by its signature and `semantics` alone (not cross-checked).",
    Kind {
        summary: "A fused kernel described by its signature and `semantics` text alone.",
        table: "`[operation.custom]`: a fused kernel no closed vocabulary describes. kfam checks its signature like any other, and no relation between operands.",
        template: include_str!("../init/kinds/custom.toml"),
        since: 0,
        operands: &UNCHECKED,
    },
    &[field(
        "semantics",
        Ty::Str,
        "What the fused kernel computes (kfam checked its signature only).",
    )
    .key("What the kernel computes, for reviewers and generated docs (part of the identity).")
    .changes(KeyChange::Semantics)
    .flat("semantics", 0)],
);

pub static ROPE: Record = payload(
    "kfam_rope",
    "Rope",
    "Rotary position embedding: the first `rotary_dim` entries of each head of `query`\n\
     `[T, H, D]` and `key` `[T, H_kv, D]` rotated by per-token angles (`cos`, `sin`\n\
     `[T, rotary_dim / 2]`) into `query_out` and `key_out`; the other entries copied.",
    Kind {
        summary: "Rotary position embedding of queries and keys by per-token cos and sin tables.",
        table: "`[operation.rope]`: rotate the first `rotary_dim` entries of each head of `query` and `key` by per-token angles, given as `cos` and `sin` tables `[T, rotary_dim / 2]` (one row per token, already taken at its position); the pairs are `(i, i + rotary_dim / 2)` (GPT-NeoX, Llama) or, `interleaved`, `(2i, 2i + 1)` (GPT-J).",
        template: include_str!("../init/kinds/rope.toml"),
        since: 4,
        operands: &Operands {
            code: Code::RopeMismatch,
            help: "query [T, H, D] and key [T, H_kv, D] of one float dtype; cos and sin [T, rotary_dim / 2] of one float dtype; query_out and key_out shaped and typed like query and key",
            tensors: &[
                Operand { key: "query", written: false, shape: Shape::Axes(&["T", "H", "D"]) },
                Operand { key: "key", written: false, shape: Shape::Axes(&["T", "H_kv", "D"]) },
                Operand { key: "cos", written: false, shape: Shape::Axes(&["T", "R"]) },
                Operand { key: "sin", written: false, shape: Shape::Like("cos") },
                Operand { key: "query_out", written: true, shape: Shape::Like("query") },
                Operand { key: "key_out", written: true, shape: Shape::Like("key") },
            ],
            extents: &[
                Letter { letter: "T", subject: "the token count T", tie: Some("tokens") },
                Letter { letter: "H", subject: "the head count H", tie: None },
                Letter { letter: "H_kv", subject: "the KV head count H_kv", tie: None },
                Letter { letter: "R", subject: "the table width R", tie: None },
                Letter { letter: "D", subject: "the head size D", tie: None },
            ],
            dtypes: &[
                Dtypes { members: &["query", "key", "query_out", "key_out"], class: DtypeClass::Float, unless: None },
                Dtypes { members: &["cos", "sin"], class: DtypeClass::Float, unless: None },
            ],
            divides: &[],
            rules: &["`rotary_dim` is even and at most D, which is static; R = `rotary_dim / 2`, static"],
        },
    },
    &[
        struct_size(),
        operand(
            "query",
            "Signature index of the queries `[T, H, D]`.",
            "Name of the query tensor `[T, H, D]`.",
        ),
        operand(
            "key",
            "Signature index of the keys `[T, H_kv, D]`.",
            "Name of the key tensor `[T, H_kv, D]`.",
        ),
        operand(
            "cos",
            "Signature index of the cosines `[T, rotary_dim / 2]`.",
            "Name of the cosine table `[T, rotary_dim / 2]`.",
        ),
        operand(
            "sin",
            "Signature index of the sines `[T, rotary_dim / 2]`.",
            "Name of the sine table, shaped like `cos`.",
        ),
        operand(
            "query_out",
            "Signature index of the rotated queries (shape and dtype of query).",
            "Name of the rotated queries, shaped like `query` (`query` itself when it is `inout`).",
        ),
        operand(
            "key_out",
            "Signature index of the rotated keys (shape and dtype of key).",
            "Name of the rotated keys, shaped like `key` (`key` itself when it is `inout`).",
        ),
        field(
            "rotary_dim",
            Ty::U32,
            "Entries of each head rotated, from the first (even, at most D).",
        )
        .key("Entries of each head that are rotated, from the first: even, at most `D`."),
        field(
            "interleaved",
            Ty::Bool,
            "Whether the rotated pairs are adjacent entries (GPT-J) rather than halves.",
        )
        .optional_key(
            "Rotate adjacent pairs `(2i, 2i + 1)` (GPT-J); default false: `(i, i + rotary_dim / 2)` (GPT-NeoX, Llama).",
        ),
    ],
);

pub static LINEAR: Record = payload(
    "kfam_linear",
    "Linear",
    "A linear layer: `out = input @ weight^T + bias` with `weight` `[N, K]` as checkpoints\n\
     store it (`weight_layout = \"nk\"`), or `input @ weight + bias` with `weight` `[K, N]`\n\
     (`\"kn\"`); `input` `[.., K]` and `out` `[.., N]` share their leading extents.",
    Kind {
        summary: "A linear layer: activations `[.., K]` times a weight stored `[N, K]` or `[K, N]`, plus an optional bias `[N]`.",
        table: "`[operation.linear]`: `out = input @ weight^T + bias` (`weight_layout = \"nk\"`, `nn.Linear` and checkpoints) or `input @ weight + bias` (`\"kn\"`, GPT-2's `Conv1D`), over activations with any leading extents `[.., K]`.",
        template: include_str!("../init/kinds/linear.toml"),
        since: 5,
        operands: &Operands {
            code: Code::LinearMismatch,
            help: "input [.., K], weight [N, K] (weight_layout = \"nk\") or [K, N] (\"kn\"), bias [N], out [.., N] with input's leading extents; one float dtype",
            tensors: &[
                Operand { key: "input", written: false, shape: Shape::ByKey("weight_layout", BATCHED_ROWS_K) },
                Operand {
                    key: "weight",
                    written: false,
                    shape: Shape::ByKey(
                        "weight_layout",
                        &[
                            ("nk", Shape::Axes(&["N", "K"])),
                            ("kn", Shape::Axes(&["K", "N"])),
                            ("enk", Shape::Axes(&["E", "N", "K"])),
                            ("ekn", Shape::Axes(&["E", "K", "N"])),
                        ],
                    ),
                },
                Operand {
                    key: "bias",
                    written: false,
                    shape: Shape::ByKey(
                        "weight_layout",
                        &[
                            ("nk", Shape::Axes(&["N"])),
                            ("kn", Shape::Axes(&["N"])),
                            ("enk", Shape::Axes(&["E", "N"])),
                            ("ekn", Shape::Axes(&["E", "N"])),
                        ],
                    ),
                },
                Operand { key: "out", written: true, shape: Shape::ByKey("weight_layout", BATCHED_ROWS_N) },
            ],
            extents: &[
                Letter { letter: "E", subject: "the batch of weights E", tie: Some("experts") },
                Letter { letter: "T", subject: "the rows of each batch T", tie: Some("rows") },
                Letter { letter: "K", subject: "the input features K", tie: Some("in_features") },
                Letter { letter: "N", subject: "the output features N", tie: Some("out_features") },
            ],
            dtypes: &[Dtypes {
                members: &["input", "weight", "bias", "out"],
                class: DtypeClass::Float,
                unless: None,
            }],
            divides: &[],
            rules: &[],
        },
    },
    &[
        struct_size(),
        operand(
            "input",
            "Signature index of the activations `[.., K]`.",
            "Name of the activations `[.., K]`: any leading extents, then the input features.",
        ),
        operand(
            "weight",
            "Signature index of the weight (`[N, K]` or `[K, N]`, by `weight_layout`).",
            "Name of the weight: `[N, K]` (`weight_layout = \"nk\"`) or `[K, N]` (`\"kn\"`).",
        ),
        field(
            "bias",
            Ty::OptParam,
            "Signature index of the bias `[N]`, if any.",
        )
        .optional_key("Name of the bias `[N]`, added to every row; leave it out for none."),
        operand(
            "out",
            "Signature index of the result `[.., N]`.",
            "Name of the result `[.., N]`, with the leading extents of `input`.",
        ),
        field(
            "weight_layout",
            vocab(&WeightLayout::VOCABULARY),
            "How the weight stores its axes.",
        )
        .optional_key("`nk` (the default: `[N, K]`, as `nn.Linear` and checkpoints store it) or `kn` (`[K, N]`: GPT-2's `Conv1D`, `x @ w`).")
        .changes(KeyChange::Operator),
    ],
);

pub static DENSE_ATTENTION: Record = payload(
    "kfam_dense_attention",
    "DenseAttention",
    "Scaled dot-product attention over dense tensors, as `F.scaled_dot_product_attention`\n\
     computes it: `query` and `out` `[B, H, S, D]`, `key` and `value` `[B, H_kv, S_kv, D]`,\n\
     `H` a multiple of `H_kv` (grouped-query heads); `causal` masks as `is_causal` does.",
    Kind {
        summary: "Scaled dot-product attention over dense query, key and value tensors (prefill).",
        table: "`[operation.dense_attention]`: `out = softmax(query @ key^T * scale (+ causal mask)) @ value` per batch and head, as `F.scaled_dot_product_attention` computes it; query head `h` reads key/value head `h / (H / H_kv)` (grouped-query attention); `causal` lets query `i` see keys `j <= i` (the mask's top-left alignment, as `is_causal`).",
        template: include_str!("../init/kinds/dense_attention.toml"),
        since: 5,
        operands: &Operands {
            code: Code::DenseAttentionMismatch,
            help: "query [B, H, S, D], key and value [B, H_kv, S_kv, D], out [B, H, S, D]; one float dtype; H a multiple of H_kv",
            tensors: &[
                Operand { key: "query", written: false, shape: Shape::Axes(&["B", "H", "S", "D"]) },
                Operand { key: "key", written: false, shape: Shape::Axes(&["B", "H_kv", "S_kv", "D"]) },
                Operand { key: "value", written: false, shape: Shape::Like("key") },
                Operand { key: "out", written: true, shape: Shape::Like("query") },
            ],
            extents: &[
                Letter { letter: "B", subject: "the batch B", tie: Some("batch") },
                Letter { letter: "H", subject: "the head count H", tie: Some("heads") },
                Letter { letter: "S", subject: "the query length S", tie: Some("seq") },
                Letter { letter: "H_kv", subject: "the KV head count H_kv", tie: Some("kv_heads") },
                Letter { letter: "S_kv", subject: "the key length S_kv", tie: Some("kv_seq") },
                Letter { letter: "D", subject: "the head size D", tie: Some("head_size") },
            ],
            dtypes: &[Dtypes {
                members: &["query", "key", "value", "out"],
                class: DtypeClass::Float,
                unless: None,
            }],
            divides: &[GQA],
            rules: &[],
        },
    },
    &[
        struct_size(),
        operand(
            "query",
            "Signature index of the queries `[B, H, S, D]`.",
            "Name of the queries `[B, H, S, D]`.",
        ),
        operand(
            "key",
            "Signature index of the keys `[B, H_kv, S_kv, D]`.",
            "Name of the keys `[B, H_kv, S_kv, D]`.",
        ),
        operand(
            "value",
            "Signature index of the values `[B, H_kv, S_kv, D]`.",
            "Name of the values, shaped like `key`.",
        ),
        operand(
            "out",
            "Signature index of the result `[B, H, S, D]`.",
            "Name of the result, shaped like `query`.",
        ),
        field(
            "causal",
            Ty::Bool,
            "Query `i` attends to keys `j <= i` only (top-left aligned, as `is_causal`).",
        )
        .key("Whether query `i` attends only to keys `j <= i` (the top-left aligned mask of `F.scaled_dot_product_attention(is_causal=True)`)."),
        field("scale", Ty::ScalarRef, "The softmax scale.")
            .key("The softmax scale: a positive constant (`1 / sqrt(D)` is SDPA's default), or the name of a float scalar parameter.")
            .changes(KeyChange::Scalar),
    ],
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
    (OperationKind::Rope, &ROPE),
    (OperationKind::Linear, &LINEAR),
    (OperationKind::DenseAttention, &DENSE_ATTENTION),
];

/// The payload record of `kind`.
pub fn operation(kind: OperationKind) -> &'static Record {
    OPERATIONS
        .iter()
        .find(|(k, _)| *k == kind)
        .map(|(_, r)| *r)
        .expect("every operation kind has a payload record")
}

/// What `kind` requires of its tensor operands.
pub fn operands(kind: OperationKind) -> &'static Operands {
    operation(kind).kind.map_or(&UNCHECKED, |k| k.operands)
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
    kind: None,
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
        payload_c("rope", &ROPE),
        payload_c("linear", &LINEAR),
        payload_c("dense_attention", &DENSE_ATTENTION),
    ],
)
};
