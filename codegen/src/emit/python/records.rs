//! `kfam/_records.py`: the frozen dataclasses of the records, one class per
//! operation kind with the fields of [`operation_fields`], and the decoders
//! of the operation payloads' rows (`_OPERATIONS`, read by `kfam/_lookup.py`
//! with the primitives of `kfam/_decode.py`). The same for every catalog of
//! one kfam version: the text is committed as `python/kfam/_records.py`
//! (`codegen/tests/sourcegen.rs` keeps the copy current).
//!
//! The row layout of an operation is defined once, here: the class, the row
//! ([`super::tables`] writes it in the same field order) and the decoder
//! follow [`operation_fields`]. The package tests compare every decoded
//! record with the IR field by field.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use crate::emit::writer::Writer;
use crate::names;
use crate::vocab::OperationKind;

use super::text::{dict, import_list};

/// The vocabularies the record classes name, besides the operations' own.
const RECORD_VOCABULARIES: &[&str] = &[
    "Backend",
    "BindingKind",
    "Contract",
    "DType",
    "Direction",
    "ExecutionMode",
    "Layout",
    "OperationKind",
    "ParamKind",
    "Platform",
    "Runtime",
];

/// The Python type of an operation field, and so how its row encodes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Field {
    /// `int` (an operand index or an extent).
    Int,
    Bool,
    /// `tuple[int, ...]`, a JSON array.
    Ints,
    /// A vocabulary member, by its code.
    Vocab(&'static str),
    /// `int | None`.
    OptInt,
    /// `ScalarRef`, as `[constant, param]` (one of them `null`).
    ScalarRef,
    Str,
}

impl Field {
    /// The field's annotation in the record class.
    pub(super) fn annotation(self) -> &'static str {
        match self {
            Field::Int => "int",
            Field::Bool => "bool",
            Field::Ints => "tuple[int, ...]",
            Field::Vocab(name) => name,
            Field::OptInt => "int | None",
            Field::ScalarRef => "ScalarRef",
            Field::Str => "str",
        }
    }

    /// The function of `kfam/_decode.py` that reads the field's value.
    fn reader(self) -> &'static str {
        match self {
            Field::Int | Field::Vocab(_) => "_int",
            Field::Bool => "_bool",
            Field::Ints => "_ints",
            Field::OptInt => "_opt_int",
            Field::ScalarRef => "_scalar_ref",
            Field::Str => "_str",
        }
    }

    /// The Python expression decoding `v` (an `object` from the row).
    fn decoder(self, v: &str) -> String {
        match self {
            Field::Int => format!("_int({v})"),
            Field::Bool => format!("_bool({v})"),
            Field::Ints => format!("_ints({v})"),
            Field::Vocab(name) => format!("{name}(_int({v}))"),
            Field::OptInt => format!("_opt_int({v})"),
            Field::ScalarRef => format!("ScalarRef(*_scalar_ref({v}))"),
            Field::Str => format!("_str({v})"),
        }
    }
}

/// The fields of each operation kind's record, in order: the dataclass,
/// the row and the decoder follow it. Exhaustive: a new kind does not
/// compile until it has fields here (and a row in [`operation_row`]).
pub(super) fn operation_fields(kind: OperationKind) -> &'static [(&'static str, Field)] {
    use Field::*;
    match kind {
        OperationKind::ElementwiseBinary => &[
            ("op", Vocab("BinaryOp")),
            ("lhs", Int),
            ("rhs", Int),
            ("out", Int),
        ],
        OperationKind::Matmul => &[
            ("m", Int),
            ("k", Int),
            ("n", Int),
            ("a", Int),
            ("b", Int),
            ("c", Int),
            ("accumulate", Bool),
        ],
        OperationKind::ElementwiseUnary => {
            &[("op", Vocab("UnaryOp")), ("input", Int), ("out", Int)]
        }
        OperationKind::Reduce => &[
            ("op", Vocab("ReduceOp")),
            ("input", Int),
            ("out", Int),
            ("axes", Ints),
            ("keepdim", Bool),
        ],
        OperationKind::Softmax => &[("input", Int), ("out", Int), ("axis", Int)],
        OperationKind::Norm => &[
            ("op", Vocab("NormKind")),
            ("input", Int),
            ("weight", Int),
            ("bias", OptInt),
            ("out", Int),
            ("axis", Int),
            ("eps", ScalarRef),
        ],
        OperationKind::PagedAttentionDecode => &[
            ("query", Int),
            ("key_cache", Int),
            ("value_cache", Int),
            ("block_table", Int),
            ("context_lens", Int),
            ("out", Int),
            ("scale", ScalarRef),
        ],
        OperationKind::Custom => &[("semantics", Str)],
    }
}

/// The Python class of each operation kind (the IR variant's name).
pub(super) fn operation_classes() -> Vec<&'static str> {
    OperationKind::ALL
        .iter()
        .map(|k| k.variant_name())
        .collect()
}

/// The dataclass of one operation kind. Exhaustive: a new kind does not
/// compile until it has a Python record.
fn operation_class(kind: OperationKind) -> String {
    let doc = match kind {
        OperationKind::ElementwiseBinary => "``out = op(lhs, rhs)`` element by element: equal shapes, no broadcast.",
        OperationKind::Matmul => "``c = a @ b`` (``c += a @ b`` when ``accumulate``) with ``a: [m, k]``, ``b: [k, n]``, ``c: [m, n]``.\n\n    Extents of -1 are dynamic.",
        OperationKind::ElementwiseUnary => "``out = op(input)`` element by element: equal shapes; equal dtypes unless ``op`` is ``CAST``.",
        OperationKind::Reduce => "``out = op(input)`` over ``axes`` (sorted, distinct), dropped or kept as 1 (``keepdim``).",
        OperationKind::Softmax => "``out = softmax(input)`` along ``axis``: equal dtypes and shapes.",
        OperationKind::Norm => "RMSNorm or LayerNorm of ``input`` along ``axis`` into ``out``.\n\n    ``weight`` (and ``bias``, LayerNorm only) have the extent of ``input`` along ``axis``.",
        OperationKind::PagedAttentionDecode => "Decode attention over a paged KV cache.\n\n    ``query`` and ``out`` ``[B, H, D]``, caches ``[num_blocks, block_size, H_kv, D]``,\n    int32 ``block_table`` ``[B, max_blocks]`` and ``context_lens`` ``[B]``.",
        OperationKind::Custom => "A fused kernel described by its signature and ``semantics`` alone (not cross-checked).",
    };
    let mut fields = String::new();
    for (name, field) in operation_fields(kind) {
        let _ = writeln!(fields, "    {name}: {}", field.annotation());
    }
    format!(
        r#"@dataclass(frozen=True, slots=True)
class {name}:
    """{doc}

    Operands are indices into ``Family.params``.
    """

{fields}
    @property
    def kind(self) -> OperationKind:
        return OperationKind.{member}
"#,
        name = kind.variant_name(),
        member = names::shouty(kind.as_str()),
    )
}

/// `_records.py` after its first line `first_line` (which ends in `\n`).
pub(super) fn records_py(first_line: &str) -> String {
    let classes = operation_classes();
    let ops: String = OperationKind::ALL
        .iter()
        .map(|&k| format!("\n\n{}", operation_class(k)))
        .collect();
    let mut vocab: BTreeSet<&str> = RECORD_VOCABULARIES.iter().copied().collect();
    let mut readers = BTreeSet::new();
    for &kind in OperationKind::ALL {
        for (_, field) in operation_fields(kind) {
            if let Field::Vocab(name) = field {
                vocab.insert(name);
            }
            readers.insert(field.reader());
        }
    }
    format!(
        r#"{first_line}"""Record types of the kfam tables: frozen dataclasses, shapes as tuples of int (-1 is dynamic).

``_OPERATIONS`` decodes the row of each operation kind (``kfam._lookup`` reads the rest).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Final, TypeAlias, Union

{readers}
{vocab}


@dataclass(frozen=True, slots=True)
class Param:
    """One parameter of the complete (logical) signature."""

    name: str
    #: Position in the complete signature, scalars included.
    index: int
    kind: ParamKind
    direction: Direction
    dtype: DType
    #: Logical shape; ``()`` for scalars, -1 for a dynamic extent.
    shape: tuple[int, ...]
    layout: Layout
    #: Assembly shape: NZ blocked, FP4 packed, otherwise equal to ``shape``.
    lowered_shape: tuple[int, ...]
    #: Index among the tensors (for a tensor) or among the scalars (for a scalar).
    pool_index: int
    doc: str | None

    @property
    def is_tensor(self) -> bool:
        return self.kind == ParamKind.TENSOR


@dataclass(frozen=True, slots=True)
class Binding:
    """A final-ABI launch slot: which parameter (index into ``Family.params``) sits where."""

    param: int
    slot: int
    kind: BindingKind


@dataclass(frozen=True, slots=True)
class Profile:
    """Where and how an artifact runs, with its named final-ABI bindings (sorted by slot)."""

    name: str
    platform: Platform
    backend: Backend
    runtime: Runtime
    execution_mode: ExecutionMode
    bindings: tuple[Binding, ...]


@dataclass(frozen=True, slots=True)
class Evidence:
    """When and on what hardware an artifact qualified."""

    date: str
    hardware: str
    note: str | None


@dataclass(frozen=True, slots=True)
class Receipt:
    """One qualified artifact: its codec, path, SHA-256 and evidence.

    ``profile`` is an index into ``Family.profiles``.
    """

    profile: int
    codec: str
    artifact: str
    sha256: str
    evidence: Evidence


@dataclass(frozen=True, slots=True)
class DimUse:
    """One extent that is a named symbol: axis ``axis`` of ``Family.params[param]``.

    ``tensor`` is the parameter's index among the family's tensors (its argument).
    """

    param: int
    tensor: int
    axis: int


@dataclass(frozen=True, slots=True)
class Symbol:
    """A named symbolic dimension (``shape = ["rows", 256]``) and its ``[dims]`` constraints.

    A call passes every extent in ``uses`` equal (``dim_mismatch``), and that extent lies in
    ``min..=max`` and is a multiple of ``multiple_of`` (``dim_range``).
    """

    name: str
    #: Smallest accepted extent (0 when unconstrained).
    min: int
    #: Largest accepted extent; ``None`` when unbounded.
    max: int | None
    #: Accepted extents are multiples of this (1 when unconstrained).
    multiple_of: int
    uses: tuple[DimUse, ...]


@dataclass(frozen=True, slots=True)
class Retired:
    """A family that was approved and then retired (``manifest/retired.toml``).

    ``revision`` and ``identity`` are those of its last approved revision; ``receipts`` holds
    every artifact digest ever approved for it. Its name and artifacts are refused as retired.
    """

    name: str
    revision: int
    identity: str
    reason: str
    receipts: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ScalarRef:
    """A scalar operand of an operation (``eps``, ``scale``).

    Either ``constant`` (fixed by the family) or ``param`` (an index into ``Family.params`` of
    the scalar passed at call time) is set, never both.
    """

    constant: float | None
    param: int | None
{ops}

#: The typed operation payload of a family; narrow it with ``isinstance``.
Operation: TypeAlias = Union[{union}]


@dataclass(frozen=True, slots=True)
class Family:
    """One approved kernel family revision."""

    name: str
    revision: int
    summary: str
    contract: Contract
    #: Whether a torch dispatcher binding is requested.
    torch: bool
    operation: Operation
    params: tuple[Param, ...]
    #: Return aliases: indices into ``params`` (repeats kept).
    returns: tuple[int, ...]
    profiles: tuple[Profile, ...]
    receipts: tuple[Receipt, ...]
    tensor_count: int
    scalar_count: int
    #: SHA-256 (lowercase hex) of the canonical identity, as in ``manifest/approved.lock``.
    identity: str
    #: The torch dispatcher schema; ``None`` when torch cannot spell the signature.
    torch_schema: str | None
    #: Named symbolic dimensions, in order of first use; ``()`` when there are none.
    symbols: tuple[Symbol, ...]

    @property
    def return_params(self) -> tuple[Param, ...]:
        """The parameters the return aliases name, in order."""
        return tuple(self.params[i] for i in self.returns)

    def param(self, name: str) -> Param:
        """The parameter called ``name``; ``KeyError`` when there is none."""
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(f"family {{self.name!r}} has no parameter {{name!r}}")

    def profile(self, name: str) -> Profile:
        """The profile called ``name``; ``KeyError`` when there is none."""
        for p in self.profiles:
            if p.name == name:
                return p
        raise KeyError(f"family {{self.name!r}} has no profile {{name!r}}")

    def receipts_for(self, profile: str) -> tuple[Receipt, ...]:
        """The receipts of the profile called ``profile`` (empty: not supported there)."""
        return tuple(r for r in self.receipts if self.profiles[r.profile].name == profile)


{decoders}"#,
        readers = import_list("._decode", readers.into_iter().collect()),
        vocab = import_list("._vocab", vocab.into_iter().collect()),
        union = classes.join(", "),
        decoders = operation_decoders(),
    )
}

/// `_OPERATIONS`, the decoders of the operation rows: for each kind, the
/// length of its row and the function building its record.
fn operation_decoders() -> String {
    let mut w = Writer::new("    ");
    dict(
        &mut w,
        "Each operation kind: the length of its row (code and fields) and its decoder.",
        "_OPERATIONS: Final[dict[OperationKind, tuple[int, Callable[[list[object]], Operation]]]] = ",
        OperationKind::ALL,
        |out, &kind| {
            let fields = operation_fields(kind);
            let args: Vec<String> = fields
                .iter()
                .enumerate()
                .map(|(i, (_, f))| f.decoder(&format!("v[{}]", i + 1)))
                .collect();
            let _ = write!(
                out,
                "OperationKind.{}: ({}, lambda v: {}({}))",
                names::shouty(kind.as_str()),
                fields.len() + 1,
                kind.variant_name(),
                args.join(", ")
            );
        },
    );
    w.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operation_decoders_cover_every_kind() {
        let text = operation_decoders();
        for &k in OperationKind::ALL {
            assert!(
                text.contains(&format!("lambda v: {}(", k.variant_name())),
                "{text}"
            );
        }
    }
}
