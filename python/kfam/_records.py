# @generated from codegen/src/emit/python/records.rs: rebuild with `KFAM_BLESS=1 cargo test -p kfam-codegen --test sourcegen`; do not edit
"""Record types of the kfam tables: frozen dataclasses, shapes as tuples of int (-1 is dynamic).

``_OPERATIONS`` decodes the row of each operation kind (``kfam._lookup`` reads the rest).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Final, TypeAlias, Union

from ._decode import (
    _bool,
    _int,
    _ints,
    _opt_int,
    _scalar_ref,
    _str,
)
from ._vocab import (
    Backend,
    BinaryOp,
    BindingKind,
    Contract,
    DType,
    Direction,
    ExecutionMode,
    Layout,
    NormKind,
    OperationKind,
    ParamKind,
    Platform,
    ReduceOp,
    Runtime,
    UnaryOp,
)


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


@dataclass(frozen=True, slots=True)
class ElementwiseBinary:
    """``out = op(lhs, rhs)`` element by element: equal shapes, no broadcast.

    Operands are indices into ``Family.params``.
    """

    op: BinaryOp
    lhs: int
    rhs: int
    out: int

    @property
    def kind(self) -> OperationKind:
        return OperationKind.ELEMENTWISE_BINARY


@dataclass(frozen=True, slots=True)
class Matmul:
    """``c = a @ b`` (``c += a @ b`` when ``accumulate``) with ``a: [m, k]``, ``b: [k, n]``, ``c: [m, n]``.

    Extents of -1 are dynamic.

    Operands are indices into ``Family.params``.
    """

    m: int
    k: int
    n: int
    a: int
    b: int
    c: int
    accumulate: bool

    @property
    def kind(self) -> OperationKind:
        return OperationKind.MATMUL


@dataclass(frozen=True, slots=True)
class ElementwiseUnary:
    """``out = op(input)`` element by element: equal shapes; equal dtypes unless ``op`` is ``CAST``.

    Operands are indices into ``Family.params``.
    """

    op: UnaryOp
    input: int
    out: int

    @property
    def kind(self) -> OperationKind:
        return OperationKind.ELEMENTWISE_UNARY


@dataclass(frozen=True, slots=True)
class Reduce:
    """``out = op(input)`` over ``axes`` (sorted, distinct), dropped or kept as 1 (``keepdim``).

    Operands are indices into ``Family.params``.
    """

    op: ReduceOp
    input: int
    out: int
    axes: tuple[int, ...]
    keepdim: bool

    @property
    def kind(self) -> OperationKind:
        return OperationKind.REDUCE


@dataclass(frozen=True, slots=True)
class Softmax:
    """``out = softmax(input)`` along ``axis``: equal dtypes and shapes.

    Operands are indices into ``Family.params``.
    """

    input: int
    out: int
    axis: int

    @property
    def kind(self) -> OperationKind:
        return OperationKind.SOFTMAX


@dataclass(frozen=True, slots=True)
class Norm:
    """RMSNorm or LayerNorm of ``input`` along ``axis`` into ``out``.

    ``weight`` (and ``bias``, LayerNorm only) have the extent of ``input`` along ``axis``.

    Operands are indices into ``Family.params``.
    """

    op: NormKind
    input: int
    weight: int
    bias: int | None
    out: int
    axis: int
    eps: ScalarRef

    @property
    def kind(self) -> OperationKind:
        return OperationKind.NORM


@dataclass(frozen=True, slots=True)
class PagedAttentionDecode:
    """Decode attention over a paged KV cache.

    ``query`` and ``out`` ``[B, H, D]``, caches ``[num_blocks, block_size, H_kv, D]``,
    int32 ``block_table`` ``[B, max_blocks]`` and ``context_lens`` ``[B]``.

    Operands are indices into ``Family.params``.
    """

    query: int
    key_cache: int
    value_cache: int
    block_table: int
    context_lens: int
    out: int
    scale: ScalarRef

    @property
    def kind(self) -> OperationKind:
        return OperationKind.PAGED_ATTENTION_DECODE


@dataclass(frozen=True, slots=True)
class Custom:
    """A fused kernel described by its signature and ``semantics`` alone (not cross-checked).

    Operands are indices into ``Family.params``.
    """

    semantics: str

    @property
    def kind(self) -> OperationKind:
        return OperationKind.CUSTOM


#: The typed operation payload of a family; narrow it with ``isinstance``.
Operation: TypeAlias = Union[ElementwiseBinary, Matmul, ElementwiseUnary, Reduce, Softmax, Norm, PagedAttentionDecode, Custom]


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
        raise KeyError(f"family {self.name!r} has no parameter {name!r}")

    def profile(self, name: str) -> Profile:
        """The profile called ``name``; ``KeyError`` when there is none."""
        for p in self.profiles:
            if p.name == name:
                return p
        raise KeyError(f"family {self.name!r} has no profile {name!r}")

    def receipts_for(self, profile: str) -> tuple[Receipt, ...]:
        """The receipts of the profile called ``profile`` (empty: not supported there)."""
        return tuple(r for r in self.receipts if self.profiles[r.profile].name == profile)


#: Each operation kind: the length of its row (code and fields) and its decoder.
_OPERATIONS: Final[dict[OperationKind, tuple[int, Callable[[list[object]], Operation]]]] = {
    OperationKind.ELEMENTWISE_BINARY: (5, lambda v: ElementwiseBinary(BinaryOp(_int(v[1])), _int(v[2]), _int(v[3]), _int(v[4]))),
    OperationKind.MATMUL: (8, lambda v: Matmul(_int(v[1]), _int(v[2]), _int(v[3]), _int(v[4]), _int(v[5]), _int(v[6]), _bool(v[7]))),
    OperationKind.ELEMENTWISE_UNARY: (4, lambda v: ElementwiseUnary(UnaryOp(_int(v[1])), _int(v[2]), _int(v[3]))),
    OperationKind.REDUCE: (6, lambda v: Reduce(ReduceOp(_int(v[1])), _int(v[2]), _int(v[3]), _ints(v[4]), _bool(v[5]))),
    OperationKind.SOFTMAX: (4, lambda v: Softmax(_int(v[1]), _int(v[2]), _int(v[3]))),
    OperationKind.NORM: (8, lambda v: Norm(NormKind(_int(v[1])), _int(v[2]), _int(v[3]), _opt_int(v[4]), _int(v[5]), _int(v[6]), ScalarRef(*_scalar_ref(v[7])))),
    OperationKind.PAGED_ATTENTION_DECODE: (8, lambda v: PagedAttentionDecode(_int(v[1]), _int(v[2]), _int(v[3]), _int(v[4]), _int(v[5]), _int(v[6]), ScalarRef(*_scalar_ref(v[7])))),
    OperationKind.CUSTOM: (2, lambda v: Custom(_str(v[1]))),
}
