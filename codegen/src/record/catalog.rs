//! The records of a catalog's tables beside its families (the retired
//! families, the table descriptor), the lists of records and vocabularies
//! the emitters walk, and the description format's minor they make.

use super::{
    c_only, field, struct_size, table, CForm, CValue, Field, OperationKind, Record, Role, Ty,
    BINDING, DIM_USE, EVIDENCE, FAMILY, OPERATIONS, OUTPUT_ERROR, PARAM, PROFILE, RECEIPT, SYMBOL,
};
use crate::vocab::{
    Admission, BinaryOp, BindingKind, CacheLayout, CallRule, Capability, Contract, DType,
    Direction, Layout, NormKind, ParamKind, ReduceOp, ScalarValueKind, StorageFormat, UnaryOp,
    Vocabulary, WeightLayout, BACKEND, EXECUTION_MODE, PLATFORM, RUNTIME,
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
        field(
            "approval",
            Ty::U32,
            "The approval its last revision entered approved.lock with: a program's header of\n\
             that approval or later compiled the family in (0: not recorded).",
        )
        .since(5),
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

/// The table records, in header order (a record names only earlier ones):
/// the operation payloads that are C structs among them, in kind order.
pub fn table_records() -> impl Iterator<Item = &'static Record> {
    let before: [&'static Record; 5] = [&PARAM, &BINDING, &PROFILE, &OUTPUT_ERROR, &RECEIPT];
    let after: [&'static Record; 5] = [&DIM_USE, &SYMBOL, &FAMILY, &RETIRED, &TABLE];
    let payloads = OPERATIONS
        .iter()
        .map(|&(_, r)| r)
        .filter(|r| matches!(r.c, CForm::Struct { .. }));
    before.into_iter().chain(payloads).chain(after)
}

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
        let record = OPERATIONS[i].1;
        latest = of(record.fields, latest);
        if let Some(kind) = record.kind {
            if kind.since > latest {
                latest = kind.since;
            }
        }
        i += 1;
    }
    latest
}

/// Every vocabulary whose codes are fixed by kfam, in the order emitters
/// write them. `Status` is separate: its values come from `abi.toml`.
pub const VOCABULARIES: &[Vocabulary] = &[
    DType::VOCABULARY,
    Direction::VOCABULARY,
    ParamKind::VOCABULARY,
    Layout::VOCABULARY,
    PLATFORM,
    BACKEND,
    RUNTIME,
    EXECUTION_MODE,
    Contract::VOCABULARY,
    BindingKind::VOCABULARY,
    OperationKind::VOCABULARY,
    BinaryOp::VOCABULARY,
    UnaryOp::VOCABULARY,
    ReduceOp::VOCABULARY,
    NormKind::VOCABULARY,
    StorageFormat::VOCABULARY,
    ScalarValueKind::VOCABULARY,
    CallRule::VOCABULARY,
    Capability::VOCABULARY,
    Admission::VOCABULARY,
    CacheLayout::VOCABULARY,
    WeightLayout::VOCABULARY,
];
