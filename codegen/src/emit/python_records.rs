//! `python/kfam/_records.py`: the frozen dataclasses of the records (the
//! same for every manifest), one class per operation kind with the fields of
//! [`operation_fields`].

use std::fmt::Write as _;

use super::python::{header, import_list};
use super::python_tables::operation_fields;
use crate::names;
use crate::vocab::{OperationKind, VOCABULARIES};

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

pub(super) fn records_py() -> String {
    let classes = operation_classes();
    let ops: String = OperationKind::ALL
        .iter()
        .map(|&k| format!("\n\n{}", operation_class(k)))
        .collect();
    // Every fixed vocabulary appears in a record field (`Status` in none).
    let vocab: Vec<&str> = VOCABULARIES.iter().map(|c| c.name).collect();
    format!(
        r#"{header}"""Record types of the kfam tables: frozen dataclasses, shapes as tuples of int (-1 is dynamic)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeAlias, Union

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
"#,
        header = header(),
        vocab = import_list("._vocab", vocab),
        union = classes.join(", "),
    )
}
