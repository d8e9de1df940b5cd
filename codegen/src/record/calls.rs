//! The arguments and results of the runtime library's C functions: C
//! structs, mirrored in Rust, that no table holds.

use super::{raw, CForm, Field, Record};

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
        kind: None,
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
