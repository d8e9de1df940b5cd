//! The C ABI's record layouts: one field list per struct, the one authority
//! for it. The C emitter prints from it each typedef in `kfam.h` and every
//! record of it in the data file, so they cannot disagree (C++17 has no
//! designated initializers, and `-Wextra` wants every field initialized);
//! the Rust emitter prints from it the `#[repr(C)]` types of the arguments
//! and results the runtime library reads and writes
//! (`generated/rust/ffi_records.rs`). [`Layout`] computes every struct's
//! size and field offsets from the same list, and both outputs assert them
//! (`static_assert` / `_Static_assert` with `offsetof` in the header,
//! `offset_of!` in const items in Rust), so each compiler checks it lays the
//! struct out as the other does. These layouts are the C ABI: fields are
//! only ever appended.

pub(crate) struct Field {
    /// The C type before the name (`const char *`, `uint32_t`).
    pub(crate) ty: &'static str,
    pub(crate) name: &'static str,
    /// Array extent (a macro name or number), for array fields.
    pub(crate) array: Option<&'static str>,
    pub(crate) doc: &'static str,
}

/// One struct (or union) of the header.
pub(crate) struct Record {
    /// The C name (`kfam_call_error`), also its typedef.
    pub(crate) name: &'static str,
    pub(crate) doc: &'static str,
    pub(crate) fields: &'static [Field],
    /// A union (every field at offset 0) rather than a struct.
    pub(crate) union: bool,
    /// The Rust `#[repr(C)]` type the runtime declares for it, for the
    /// arguments and results it reads or writes; the table records are
    /// opaque to Rust (it reaches them through the C shim).
    pub(crate) rust: Option<&'static str>,
}

const fn record(name: &'static str, doc: &'static str, fields: &'static [Field]) -> Record {
    Record {
        name,
        doc,
        fields,
        union: false,
        rust: None,
    }
}

const fn mirrored(
    name: &'static str,
    rust: &'static str,
    doc: &'static str,
    fields: &'static [Field],
) -> Record {
    Record {
        name,
        doc,
        fields,
        union: false,
        rust: Some(rust),
    }
}

/// The table records, in header order (a record names only earlier ones).
pub(crate) const TABLE_RECORDS: &[Record] = &[
    record(
        "kfam_param",
        "One parameter of a family's logical signature.",
        PARAM_FIELDS,
    ),
    record(
        "kfam_binding",
        "Which parameter sits in which final-ABI launch slot.",
        BINDING_FIELDS,
    ),
    record(
        "kfam_profile",
        "Where and how an artifact of the family runs, with its final-ABI bindings.",
        PROFILE_FIELDS,
    ),
    record(
        "kfam_receipt",
        "One artifact, identified by its SHA-256, that qualified for the family on a profile.",
        RECEIPT_FIELDS,
    ),
    record(
        "kfam_elementwise_unary",
        "Payload of KFAM_OPERATION_KIND_ELEMENTWISE_UNARY: out = op(input).",
        UNARY_FIELDS,
    ),
    record(
        "kfam_reduce",
        "Payload of KFAM_OPERATION_KIND_REDUCE: out = op(input) over axes.",
        REDUCE_FIELDS,
    ),
    record(
        "kfam_softmax",
        "Payload of KFAM_OPERATION_KIND_SOFTMAX: out = softmax(input) along axis.",
        SOFTMAX_FIELDS,
    ),
    record(
        "kfam_norm",
        "Payload of KFAM_OPERATION_KIND_NORM: rms_norm or layer_norm along axis.",
        NORM_FIELDS,
    ),
    record(
        "kfam_paged_attention_decode",
        "Payload of KFAM_OPERATION_KIND_PAGED_ATTENTION_DECODE: decode attention over a paged KV cache.",
        PAGED_ATTENTION_FIELDS,
    ),
    record(
        "kfam_dim_use",
        "One extent that is a named symbol: axis `axis` of parameter `param`.",
        DIM_USE_FIELDS,
    ),
    record(
        "kfam_symbol",
        "A named symbolic dimension and its [dims] constraints: kfam_validate_call\n\
         refuses a call whose extents of it differ (dim_mismatch) or break them (dim_range).",
        SYMBOL_FIELDS,
    ),
    record(
        "kfam_family",
        "One approved kernel family revision.",
        FAMILY_FIELDS,
    ),
    record(
        "kfam_retired",
        "A family that was approved and then retired (manifest/retired.toml): the\n\
         runtime library refuses its name and artifacts as retired (KFAM_STATUS_INVALID_STATE).",
        RETIRED_FIELDS,
    ),
    record(
        "kfam_table",
        "The table header: ABI version, limits and every family.",
        TABLE_FIELDS,
    ),
];

/// The arguments and results of the runtime library's functions, in header
/// order.
pub(crate) const CALL_RECORDS: &[Record] = &[
    mirrored(
        "kfam_artifact_match",
        "ArtifactMatch",
        "Result of kfam_find_artifact. Pointers are library-owned.",
        ARTIFACT_MATCH_FIELDS,
    ),
    mirrored(
        "kfam_capability_result",
        "CapabilityResult",
        "Result of kfam_capability.",
        CAPABILITY_FIELDS,
    ),
    mirrored(
        "kfam_admission",
        "AdmissionResult",
        "Result of kfam_admit.",
        ADMISSION_FIELDS,
    ),
    mirrored(
        "kfam_tensor_arg",
        "CTensorArg",
        "Descriptor of one tensor argument of a call, DLPack-like; no data is read\n\
         through it. Offsets and strides count elements (fp4: two per byte).",
        TENSOR_ARG_FIELDS,
    ),
    Record {
        name: "kfam_scalar_value",
        doc: "The value of a scalar argument; kfam_scalar_arg.kind names the member.",
        fields: SCALAR_VALUE_FIELDS,
        union: true,
        rust: Some("CScalarValue"),
    },
    mirrored(
        "kfam_scalar_arg",
        "CScalarArg",
        "Descriptor of one scalar argument of a call.",
        SCALAR_ARG_FIELDS,
    ),
    mirrored(
        "kfam_call_error",
        "CCallError",
        "Why kfam_validate_call rejected a call (the first problem found).",
        CALL_ERROR_FIELDS,
    ),
    mirrored(
        "kfam_context_options",
        "CContextOptions",
        "Options of kfam_context_new_with. Zero it and set struct_size to\n\
         sizeof(kfam_context_options); a field left 0 takes its default.",
        CONTEXT_OPTIONS_FIELDS,
    ),
];

/// A record's size and its fields' offsets on a 64-bit target (LP64 and
/// LLP64: pointers of 8 bytes, every scalar aligned to its size), the
/// targets the header and the Rust types assert them on.
pub(crate) struct Layout {
    pub(crate) size: usize,
    pub(crate) offsets: Vec<usize>,
}

impl Layout {
    /// `extent` gives the value of an array extent's macro
    /// (`KFAM_MAX_RANK`, ...).
    pub(crate) fn of(record: &Record, extent: &dyn Fn(&str) -> usize) -> Layout {
        let (mut end, mut align) = (0usize, 1usize);
        let mut offsets = Vec::with_capacity(record.fields.len());
        for f in record.fields {
            let (size, a) = scalar(f.ty);
            let size = size * f.array.map_or(1, extent);
            let at = if record.union {
                0
            } else {
                end.next_multiple_of(a)
            };
            offsets.push(at);
            end = end.max(at + size);
            align = align.max(a);
        }
        Layout {
            size: end.next_multiple_of(align),
            offsets,
        }
    }
}

/// Size and alignment of a field's C type on a 64-bit target.
fn scalar(ty: &str) -> (usize, usize) {
    match ty {
        _ if ty.ends_with('*') => (8, 8),
        "uint16_t" => (2, 2),
        "int32_t" | "uint32_t" => (4, 4),
        "int64_t" | "uint64_t" | "double" => (8, 8),
        // The one union: three 8-byte members.
        "kfam_scalar_value" => (8, 8),
        other => panic!("no layout for the C type `{other}`: add it to emit::layout::scalar"),
    }
}

const fn f(ty: &'static str, name: &'static str, doc: &'static str) -> Field {
    Field {
        ty,
        name,
        array: None,
        doc,
    }
}

const fn fa(ty: &'static str, name: &'static str, array: &'static str, doc: &'static str) -> Field {
    Field {
        ty,
        name,
        array: Some(array),
        doc,
    }
}

pub(crate) const STRUCT_SIZE_DOC: &str =
    "`sizeof` of this struct as the producer compiled it (see KFAM_HAS_FIELD).";

pub(crate) const PARAM_FIELDS: &[Field] = &[
    f("uint32_t", "struct_size", STRUCT_SIZE_DOC),
    f("uint32_t", "index", "Position in the complete signature (scalars included)."),
    f("const char *", "name", "Declared name (snake_case identifier)."),
    f("const char *", "doc", "Declared documentation, or NULL."),
    f("int32_t", "kind", "A kfam_param_kind code."),
    f("int32_t", "direction", "A kfam_direction code (always KFAM_DIRECTION_IN for scalars)."),
    f("int32_t", "dtype", "A kfam_dtype code."),
    f("int32_t", "layout", "A kfam_layout code."),
    f("uint32_t", "pool_index", "Index among the family's tensors (tensors) or scalars (scalars)."),
    f("uint32_t", "rank", "Number of used entries of `shape`; 0 for scalars."),
    f("uint32_t", "lowered_rank", "Number of used entries of `lowered_shape`; 0 for scalars."),
    fa("int64_t", "shape", "KFAM_MAX_RANK", "Logical shape; KFAM_DIM_DYNAMIC is a dynamic extent; unused entries are 0."),
    fa(
        "int64_t",
        "lowered_shape",
        "KFAM_MAX_LOWERED_RANK",
        "Assembly (lowered) shape: NZ blocked, fp4 packed, otherwise the logical shape; unused entries are 0.",
    ),
];

pub(crate) const BINDING_FIELDS: &[Field] = &[
    f("uint32_t", "struct_size", STRUCT_SIZE_DOC),
    f(
        "uint32_t",
        "param",
        "Signature index of the bound parameter (kfam_family.params).",
    ),
    f(
        "uint32_t",
        "slot",
        "Launch slot (argument position or buffer-object index).",
    ),
    f("int32_t", "kind", "A kfam_binding_kind code."),
];

pub(crate) const PROFILE_FIELDS: &[Field] = &[
    f("uint32_t", "struct_size", STRUCT_SIZE_DOC),
    f("uint32_t", "index", "Position in kfam_family.profiles."),
    f(
        "const char *",
        "name",
        "Declared name (snake_case identifier).",
    ),
    f("int32_t", "platform", "A kfam_platform code."),
    f("int32_t", "backend", "A kfam_backend code."),
    f("int32_t", "runtime", "A kfam_runtime code."),
    f("int32_t", "execution_mode", "A kfam_execution_mode code."),
    f("uint32_t", "binding_count", "Entries of `bindings`."),
    f(
        "const kfam_binding *",
        "bindings",
        "Final-ABI bindings, sorted by slot; NULL when binding_count is 0.",
    ),
];

pub(crate) const RECEIPT_FIELDS: &[Field] = &[
    f("uint32_t", "struct_size", STRUCT_SIZE_DOC),
    f(
        "uint32_t",
        "profile",
        "Index of the qualified profile in kfam_family.profiles.",
    ),
    f("const char *", "codec", "Wire-format id of the artifact."),
    f(
        "const char *",
        "artifact",
        "Artifact path, relative to the artifact root, `/`-separated.",
    ),
    f(
        "const char *",
        "sha256",
        "SHA-256 of the artifact: 64 lowercase hex digits.",
    ),
    f(
        "const char *",
        "evidence_date",
        "Qualification date, YYYY-MM-DD.",
    ),
    f(
        "const char *",
        "evidence_hardware",
        "Hardware the artifact qualified on.",
    ),
    f(
        "const char *",
        "evidence_note",
        "Free-text note on the qualification, or NULL.",
    ),
];

pub(crate) const FAMILY_FIELDS: &[Field] = &[
    f("uint32_t", "struct_size", STRUCT_SIZE_DOC),
    f("uint16_t", "abi_major", "KFAM_ABI_MAJOR of the producer of this record."),
    f("uint16_t", "abi_minor", "KFAM_ABI_MINOR of the producer of this record."),
    f("uint32_t", "index", "Position in kfam_families (families are sorted by name)."),
    f("uint32_t", "revision", "Approved revision of the family contract."),
    f("const char *", "name", "Family name (snake_case identifier, unique)."),
    f("const char *", "identity", "Identity digest of this revision: 64 lowercase hex digits (as in approved.lock)."),
    f("const char *", "summary", "One-paragraph description (not part of the identity)."),
    f(
        "const char *",
        "torch_schema",
        "The torch dispatcher schema (`kfam::NAME(...) -> ...`), or NULL when the signature has no torch spelling (a uint64 scalar).",
    ),
    f("int32_t", "contract", "A kfam_contract code."),
    f("int32_t", "torch", "1 when the family offers a torch dispatcher binding (manifest `torch = true`), else 0."),
    f("int32_t", "operation_kind", "A kfam_operation_kind code."),
    f("int32_t", "binary_op", "A kfam_binary_op code for KFAM_OPERATION_KIND_ELEMENTWISE_BINARY, else -1."),
    fa(
        "uint32_t",
        "operands",
        "KFAM_OPERAND_COUNT",
        "Signature indices of the operands: lhs, rhs, out (elementwise_binary) or a, b, c (matmul); 0 for other kinds (see their payload).",
    ),
    f("int32_t", "accumulate", "Matmul: 1 when c += a @ b, 0 when c = a @ b; 0 otherwise."),
    f("int64_t", "m", "Matmul M (KFAM_DIM_DYNAMIC when dynamic); 0 otherwise."),
    f("int64_t", "k", "Matmul K; 0 otherwise."),
    f("int64_t", "n", "Matmul N; 0 otherwise."),
    f("uint32_t", "param_count", "Entries of `params`."),
    f("uint32_t", "tensor_count", "Tensor parameters among `params`."),
    f("uint32_t", "scalar_count", "Scalar parameters among `params`."),
    f("uint32_t", "return_count", "Entries of `returns`."),
    f("const kfam_param *", "params", "The ordered logical signature."),
    f(
        "const uint32_t *",
        "returns",
        "Return aliases: signature indices of out/inout tensors, repeats kept; NULL when return_count is 0.",
    ),
    f("uint32_t", "profile_count", "Entries of `profiles`."),
    f("uint32_t", "receipt_count", "Entries of `receipts`."),
    f("const kfam_profile *", "profiles", "Artifact profiles, in declaration order; NULL when profile_count is 0."),
    f("const kfam_receipt *", "receipts", "Qualification receipts, in declaration order; NULL when receipt_count is 0."),
    f("uint32_t", "symbol_count", "Entries of `symbols` (appended for named symbolic dimensions)."),
    f(
        "const kfam_symbol *",
        "symbols",
        "Named symbolic dimensions, in order of first use; NULL when symbol_count is 0.",
    ),
    // Appended in ABI 2.0: the payloads of the operation kinds after matmul.
    f("const kfam_elementwise_unary *", "elementwise_unary", "The payload of KFAM_OPERATION_KIND_ELEMENTWISE_UNARY, else NULL."),
    f("const kfam_reduce *", "reduce", "The payload of KFAM_OPERATION_KIND_REDUCE, else NULL."),
    f("const kfam_softmax *", "softmax", "The payload of KFAM_OPERATION_KIND_SOFTMAX, else NULL."),
    f("const kfam_norm *", "norm", "The payload of KFAM_OPERATION_KIND_NORM, else NULL."),
    f(
        "const kfam_paged_attention_decode *",
        "paged_attention_decode",
        "The payload of KFAM_OPERATION_KIND_PAGED_ATTENTION_DECODE, else NULL.",
    ),
    f(
        "const char *",
        "semantics",
        "KFAM_OPERATION_KIND_CUSTOM: what the fused kernel computes (kfam checked its signature only); else NULL.",
    ),
];

pub(crate) const DIM_USE_FIELDS: &[Field] = &[
    f("uint32_t", "struct_size", STRUCT_SIZE_DOC),
    f(
        "uint32_t",
        "param",
        "Signature index of the parameter (kfam_family.params).",
    ),
    f(
        "uint32_t",
        "tensor",
        "The parameter's index among the family's tensors (its argument).",
    ),
    f("uint32_t", "axis", "Axis of the parameter's logical shape."),
];

pub(crate) const SYMBOL_FIELDS: &[Field] = &[
    f("uint32_t", "struct_size", STRUCT_SIZE_DOC),
    f(
        "const char *",
        "name",
        "Symbol name (snake_case identifier).",
    ),
    f(
        "int64_t",
        "min",
        "Smallest accepted extent (0 when unconstrained).",
    ),
    f(
        "int64_t",
        "max",
        "Largest accepted extent (INT64_MAX when unbounded).",
    ),
    f(
        "int64_t",
        "multiple_of",
        "Accepted extents are multiples of this (1 when unconstrained).",
    ),
    f("uint32_t", "use_count", "Entries of `uses` (at least 1)."),
    f(
        "const kfam_dim_use *",
        "uses",
        "Every extent that is this symbol, in signature order: a call passes them equal.",
    ),
];

pub(crate) const UNARY_FIELDS: &[Field] = &[
    f("uint32_t", "struct_size", STRUCT_SIZE_DOC),
    f("int32_t", "op", "A kfam_unary_op code."),
    f("uint32_t", "input", "Signature index of the input tensor."),
    f(
        "uint32_t",
        "out",
        "Signature index of the result (same shape; same dtype unless the op is cast).",
    ),
];

pub(crate) const REDUCE_FIELDS: &[Field] = &[
    f("uint32_t", "struct_size", STRUCT_SIZE_DOC),
    f("int32_t", "op", "A kfam_reduce_op code."),
    f("uint32_t", "input", "Signature index of the input tensor."),
    f("uint32_t", "out", "Signature index of the result tensor."),
    f(
        "int32_t",
        "keepdim",
        "1 when reduced axes are kept with extent 1, 0 when they are dropped.",
    ),
    f("uint32_t", "axis_count", "Entries of `axes` (at least 1)."),
    f(
        "const uint32_t *",
        "axes",
        "The reduced axes of the input, sorted and distinct.",
    ),
];

pub(crate) const SOFTMAX_FIELDS: &[Field] = &[
    f("uint32_t", "struct_size", STRUCT_SIZE_DOC),
    f("uint32_t", "input", "Signature index of the input tensor."),
    f(
        "uint32_t",
        "out",
        "Signature index of the result (same dtype and shape).",
    ),
    f("uint32_t", "axis", "The normalized axis of the input."),
];

pub(crate) const NORM_FIELDS: &[Field] = &[
    f("uint32_t", "struct_size", STRUCT_SIZE_DOC),
    f("int32_t", "op", "A kfam_norm_kind code."),
    f("uint32_t", "input", "Signature index of the input tensor."),
    f(
        "uint32_t",
        "weight",
        "Signature index of the weight tensor [extent of input along axis].",
    ),
    f(
        "int32_t",
        "bias",
        "Signature index of the bias tensor (layer_norm), or -1 (rms_norm).",
    ),
    f(
        "uint32_t",
        "out",
        "Signature index of the result (same dtype and shape as input).",
    ),
    f("uint32_t", "axis", "The normalized axis of the input."),
    f(
        "double",
        "eps",
        "The constant epsilon when eps_param is -1, else 0.",
    ),
    f(
        "int32_t",
        "eps_param",
        "Signature index of the float scalar carrying epsilon, or -1 for the constant.",
    ),
];

pub(crate) const PAGED_ATTENTION_FIELDS: &[Field] = &[
    f("uint32_t", "struct_size", STRUCT_SIZE_DOC),
    f(
        "uint32_t",
        "query",
        "Signature index of the query [B, H, D].",
    ),
    f(
        "uint32_t",
        "key_cache",
        "Signature index of the key cache [num_blocks, block_size, H_kv, D].",
    ),
    f(
        "uint32_t",
        "value_cache",
        "Signature index of the value cache (shaped like key_cache).",
    ),
    f(
        "uint32_t",
        "block_table",
        "Signature index of the int32 block table [B, max_blocks].",
    ),
    f(
        "uint32_t",
        "context_lens",
        "Signature index of the int32 context lengths [B].",
    ),
    f(
        "uint32_t",
        "out",
        "Signature index of the result [B, H, D].",
    ),
    f(
        "double",
        "scale",
        "The constant softmax scale when scale_param is -1, else 0.",
    ),
    f(
        "int32_t",
        "scale_param",
        "Signature index of the float scalar carrying the scale, or -1 for the constant.",
    ),
];

pub(crate) const RETIRED_FIELDS: &[Field] = &[
    f("uint32_t", "struct_size", STRUCT_SIZE_DOC),
    f("uint32_t", "revision", "The last approved revision."),
    f(
        "const char *",
        "name",
        "The retired family's name, reserved from now on.",
    ),
    f(
        "const char *",
        "identity",
        "Identity digest of the last approved revision (64 lowercase hex digits).",
    ),
    f("const char *", "reason", "Why the family was retired."),
    f("uint32_t", "receipt_count", "Entries of `receipts`."),
    f(
        "const char *const *",
        "receipts",
        "Every artifact digest ever approved for the family, sorted; NULL when receipt_count is 0.",
    ),
];

pub(crate) const TABLE_FIELDS: &[Field] = &[
    f("uint32_t", "struct_size", STRUCT_SIZE_DOC),
    f(
        "uint16_t",
        "abi_major",
        "KFAM_ABI_MAJOR of the producer of the tables.",
    ),
    f(
        "uint16_t",
        "abi_minor",
        "KFAM_ABI_MINOR of the producer of the tables.",
    ),
    f(
        "const char *",
        "abi_revision",
        "KFAM_ABI_REVISION: the native runtime commit the artifacts target.",
    ),
    f("uint32_t", "max_tensor_args", "KFAM_MAX_TENSOR_ARGS."),
    f("uint32_t", "max_scalar_args", "KFAM_MAX_SCALAR_ARGS."),
    f("uint32_t", "max_rank", "KFAM_MAX_RANK."),
    f("uint32_t", "family_count", "Entries of `families`."),
    f(
        "const kfam_family *",
        "families",
        "Every approved family, sorted by name.",
    ),
    f("uint32_t", "max_prepared", "KFAM_MAX_PREPARED."),
];

pub(crate) const ARTIFACT_MATCH_FIELDS: &[Field] = &[
    f(
        "uint32_t",
        "struct_size",
        "In: sizeof(kfam_artifact_match) as the caller compiled it.",
    ),
    f(
        "uint32_t",
        "family_index",
        "Out: index of the family in the library's table.",
    ),
    f(
        "uint32_t",
        "profile_index",
        "Out: index of the profile in family->profiles.",
    ),
    f(
        "uint32_t",
        "receipt_index",
        "Out: index of the receipt in family->receipts.",
    ),
    f(
        "const kfam_family *",
        "family",
        "Out: the family (library-owned, valid for the life of the process).",
    ),
    f(
        "const kfam_profile *",
        "profile",
        "Out: the profile the receipt qualifies.",
    ),
    f(
        "const kfam_receipt *",
        "receipt",
        "Out: the receipt that records the digest.",
    ),
];

pub(crate) const CAPABILITY_FIELDS: &[Field] = &[
    f(
        "uint32_t",
        "struct_size",
        "In: sizeof(kfam_capability_result) as the caller compiled it.",
    ),
    f(
        "int32_t",
        "outcome",
        "Out: a kfam_capability_outcome code; KFAM_CAPABILITY_SUPPORTED when supported, KFAM_CAPABILITY_INVALID_CALL (0) when the call itself was refused.",
    ),
    f(
        "uint32_t",
        "family_index",
        "Out: index of the family in the library's table (when the family is known).",
    ),
    f(
        "uint32_t",
        "profile_index",
        "Out: index of the matching profile (when supported).",
    ),
    f(
        "uint32_t",
        "receipt_index",
        "Out: index of the matching receipt (when supported).",
    ),
    f(
        "const kfam_family *",
        "family",
        "Out: the family, or NULL when unknown.",
    ),
    f(
        "const kfam_profile *",
        "profile",
        "Out: the matching profile, or NULL.",
    ),
    f(
        "const kfam_receipt *",
        "receipt",
        "Out: the receipt that qualifies the profile, or NULL.",
    ),
];

pub(crate) const ADMISSION_FIELDS: &[Field] = &[
    f("uint32_t", "struct_size", "In: sizeof(kfam_admission) as the caller compiled it."),
    f("int32_t", "outcome", "Out: a kfam_admission_outcome code; KFAM_ADMISSION_ADMITTED when admitted, KFAM_ADMISSION_INVALID_CALL (0) when the call itself was refused."),
    f("int32_t", "contract", "Out: kfam_contract the artifact may be loaded with (schema 1 and 2: always program); -1 when refused."),
    f("uint32_t", "family_index", "Out: index of the admitted family in the library's table."),
    f("uint32_t", "profile_index", "Out: index of the matching profile."),
    f("uint32_t", "receipt_index", "Out: index of the matching receipt."),
    f("const kfam_family *", "family", "Out: the admitted family, or NULL when refused."),
    f("const kfam_profile *", "profile", "Out: the matching profile, or NULL."),
    f("const kfam_receipt *", "receipt", "Out: the matching receipt, or NULL."),
    f(
        "const char *",
        "field",
        "Out: for KFAM_ADMISSION_NOT_APPROVED, the first field that differs (e.g. \"params\", \"artifact.sha256\"); else NULL. Library-owned.",
    ),
];

pub(crate) const TENSOR_ARG_FIELDS: &[Field] = &[
    f("uint32_t", "struct_size", "sizeof(kfam_tensor_arg) as the caller compiled it; equal in every element of an array."),
    f("int32_t", "dtype", "A kfam_dtype code."),
    f("int32_t", "format", "Physical storage format, a kfam_storage_format code (KFAM_STORAGE_FORMAT_ND for plain strided tensors)."),
    f("uint32_t", "rank", "Entries of `shape` and `strides`."),
    f("const int64_t *", "shape", "Logical extents of the view (what kfam_param.shape describes; for NZ too), `rank` entries."),
    f(
        "const int64_t *",
        "strides",
        "Strides in elements, `rank` entries; NULL means contiguous row-major. Ignored for KFAM_STORAGE_FORMAT_FRACTAL_NZ.",
    ),
    f("int64_t", "storage_offset", "Offset of the view's first element into its storage, in elements (0 for NZ)."),
    f("uint64_t", "storage_bytes", "Capacity of the underlying storage in bytes."),
    f(
        "uint64_t",
        "storage",
        "Identity of the underlying storage (its base address, host or device): views of one storage share it.",
    ),
    f("int32_t", "device_index", "Device ordinal of the storage; every tensor of a call is on the same one."),
];

pub(crate) const SCALAR_VALUE_FIELDS: &[Field] = &[
    f(
        "int64_t",
        "i64",
        "KFAM_SCALAR_VALUE_KIND_INT, and KFAM_SCALAR_VALUE_KIND_BOOL (0 false, 1 true).",
    ),
    f("uint64_t", "u64", "KFAM_SCALAR_VALUE_KIND_UINT."),
    f("double", "f64", "KFAM_SCALAR_VALUE_KIND_FLOAT."),
];

pub(crate) const SCALAR_ARG_FIELDS: &[Field] = &[
    f(
        "uint32_t",
        "struct_size",
        "sizeof(kfam_scalar_arg) as the caller compiled it; equal in every element of an array.",
    ),
    f(
        "int32_t",
        "kind",
        "A kfam_scalar_value_kind code: the caller's host type, which names the member of `value`.",
    ),
    f(
        "kfam_scalar_value",
        "value",
        "The value, in the member named by `kind`.",
    ),
];

pub(crate) const CONTEXT_OPTIONS_FIELDS: &[Field] = &[
    f(
        "uint32_t",
        "struct_size",
        "In: sizeof(kfam_context_options) as the caller compiled it.",
    ),
    f(
        "uint32_t",
        "max_prepared",
        "Most callables the context holds prepared; 0 takes the library's KFAM_MAX_PREPARED.",
    ),
];

pub(crate) const CALL_ERROR_FIELDS: &[Field] = &[
    f("uint32_t", "struct_size", "In: sizeof(kfam_call_error) as the caller compiled it."),
    f(
        "int32_t",
        "rule",
        "Out: the kfam_call_rule the call broke (KFAM_CALL_RULE_OK when valid), or KFAM_CALL_RULE_INVALID_CALL (0) when the call itself was refused (NULL pointer, bad struct_size, unknown code, unknown family or identity).",
    ),
    f("int32_t", "param_index", "Out: signature index of the parameter concerned, or -1 (argument counts)."),
    f(
        "int32_t",
        "symbol_index",
        "Out (appended; written when struct_size covers it): for dim_mismatch and dim_range, the named symbol (an index into kfam_family.symbols), otherwise -1.",
    ),
    f(
        "int32_t",
        "other_param_index",
        "Out (appended; written when struct_size covers it): for dim_mismatch, the parameter whose extent the symbol took first, otherwise -1.",
    ),
];
