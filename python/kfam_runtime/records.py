# @generated from codegen/src/emit/python/records.rs: rebuild with `KFAM_BLESS=1 cargo test -p kfam-codegen --test integration sourcegen::`; do not edit
"""Record types of the kfam tables: frozen dataclasses, shapes as tuples of int (-1 is dynamic).

Each record's row in a catalog's ``_tables`` module (a JSON array, fields by position) is read by
its ``_kfam_decode_*`` function, with the checked reads of ``kfam_runtime._decode``; the fields of
the catalog's own vocabularies are decoded with its classes (``Targets``). Printed from kfam's
record declarations, as the C structs and the Rust records are.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Final, TypeAlias, Union

from ._decode import (
    _bool,
    _corrupt,
    _fields,
    _float,
    _int,
    _ints,
    _items,
    _opt_int,
    _opt_str,
    _row,
    _scalar_ref,
    _str,
)
from ._methods import (
    _FamilyMethods,
    _ParamMethods,
)
from .vocab import (
    Backend,
    BinaryOp,
    BindingKind,
    CacheLayout,
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
    Targets,
    UnaryOp,
    WeightLayout,
)

__all__ = [
    "Binding",
    "Custom",
    "DenseAttention",
    "DimUse",
    "ElementwiseBinary",
    "ElementwiseUnary",
    "Evidence",
    "Family",
    "Linear",
    "Matmul",
    "Norm",
    "Operation",
    "OutputError",
    "PackedAttentionPrefill",
    "PagedAttentionDecode",
    "Param",
    "Profile",
    "Receipt",
    "Reduce",
    "Retired",
    "Rope",
    "ScalarRef",
    "Softmax",
    "Symbol",
]


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
    """``out = op(lhs, rhs)`` element by element: equal shapes, no broadcast."""

    #: The operator.
    op: BinaryOp
    #: Signature index of the left operand.
    lhs: int
    #: Signature index of the right operand.
    rhs: int
    #: Signature index of the result.
    out: int

    @property
    def kind(self) -> OperationKind:
        return OperationKind.ELEMENTWISE_BINARY


@dataclass(frozen=True, slots=True)
class Matmul:
    """``c = a @ b`` (``c += a @ b`` when ``accumulate``) with ``a: [m, k]``, ``b: [k, n]``, ``c: [m, n]``."""

    #: Rows of ``a`` and ``c``.
    m: int
    #: Columns of ``a``, rows of ``b``.
    k: int
    #: Columns of ``b`` and ``c``.
    n: int
    #: Signature index of ``a``.
    a: int
    #: Signature index of ``b``.
    b: int
    #: Signature index of the result ``c``.
    c: int
    #: Whether the product is added to ``c`` (``c += a @ b``).
    accumulate: bool

    @property
    def kind(self) -> OperationKind:
        return OperationKind.MATMUL


@dataclass(frozen=True, slots=True)
class ElementwiseUnary:
    """``out = op(input)`` element by element: equal shapes; equal dtypes unless ``op`` is ``cast``."""

    #: The operator.
    op: UnaryOp
    #: Signature index of the input tensor.
    input: int
    #: Signature index of the result (same shape; same dtype unless the op is cast).
    out: int

    @property
    def kind(self) -> OperationKind:
        return OperationKind.ELEMENTWISE_UNARY


@dataclass(frozen=True, slots=True)
class Reduce:
    """``out = op(input)`` over ``axes``, dropped or kept with extent 1 (``keepdim``)."""

    #: The reduction.
    op: ReduceOp
    #: Signature index of the input tensor.
    input: int
    #: Signature index of the result tensor.
    out: int
    #: Whether reduced axes are kept with extent 1 (else dropped).
    keepdim: bool
    #: The reduced axes of the input, sorted and distinct.
    axes: tuple[int, ...]

    @property
    def kind(self) -> OperationKind:
        return OperationKind.REDUCE


@dataclass(frozen=True, slots=True)
class Softmax:
    """``out = softmax(input)`` along ``axis``: equal dtypes and shapes."""

    #: Signature index of the input tensor.
    input: int
    #: Signature index of the result (same dtype and shape).
    out: int
    #: The normalized axis of the input.
    axis: int

    @property
    def kind(self) -> OperationKind:
        return OperationKind.SOFTMAX


@dataclass(frozen=True, slots=True)
class Norm:
    """RMSNorm or LayerNorm of ``input`` along ``axis`` into ``out``; ``weight`` (and ``bias``, LayerNorm
    only) have the extent of ``input`` along ``axis``."""

    #: Which norm.
    op: NormKind
    #: Signature index of the input tensor.
    input: int
    #: Signature index of the weight tensor ``[extent of input along axis]``.
    weight: int
    #: Signature index of the bias tensor (layer_norm only).
    bias: int | None
    #: Signature index of the result (same dtype and shape as input).
    out: int
    #: The normalized axis of the input.
    axis: int
    #: Epsilon.
    eps: ScalarRef

    @property
    def kind(self) -> OperationKind:
        return OperationKind.NORM


@dataclass(frozen=True, slots=True)
class PagedAttentionDecode:
    """Decode attention over a paged KV cache: ``query`` and ``out`` ``[B, H, D]``, caches in
    ``layout`` (``nhd``: ``[num_blocks, block_size, H_kv, D]``), int32 ``block_table``
    ``[B, max_blocks]`` and ``context_lens`` ``[B]``."""

    #: Signature index of the query ``[B, H, D]``.
    query: int
    #: Signature index of the key cache (in a combined layout, of the one cache).
    key_cache: int
    #: Signature index of the value cache (in a combined layout, key_cache's).
    value_cache: int
    #: Signature index of the int32 block table ``[B, max_blocks]``.
    block_table: int
    #: Signature index of the int32 context lengths ``[B]``.
    context_lens: int
    #: Signature index of the result ``[B, H, D]``.
    out: int
    #: The softmax scale.
    scale: ScalarRef
    #: How the caches lay out their blocks.
    layout: CacheLayout

    @property
    def kind(self) -> OperationKind:
        return OperationKind.PAGED_ATTENTION_DECODE


@dataclass(frozen=True, slots=True)
class Custom:
    """A fused kernel described by its signature and ``semantics`` alone (not cross-checked)."""

    #: What the fused kernel computes (kfam checked its signature only).
    semantics: str

    @property
    def kind(self) -> OperationKind:
        return OperationKind.CUSTOM


@dataclass(frozen=True, slots=True)
class PackedAttentionPrefill:
    """Prefill attention over sequences packed along the token axis: ``query`` and ``out``
    ``[T_q, H, D]``, ``key`` and ``value`` ``[T_k, H_kv, D]``, sequence ``b`` at rows
    ``cu_seqlens[b]..cu_seqlens[b + 1]`` of int32 offsets ``[B + 1]``."""

    #: Signature index of the packed queries ``[T_q, H, D]``.
    query: int
    #: Signature index of the packed keys ``[T_k, H_kv, D]``.
    key: int
    #: Signature index of the packed values ``[T_k, H_kv, D]``.
    value: int
    #: Signature index of the int32 query offsets ``[B + 1]``.
    cu_seqlens_q: int
    #: Signature index of the int32 key offsets ``[B + 1]``.
    cu_seqlens_k: int
    #: Signature index of the result ``[T_q, H, D]``.
    out: int
    #: Signature index of the integer scalar carrying the longest query sequence.
    max_seqlen_q: int | None
    #: Signature index of the integer scalar carrying the longest key sequence.
    max_seqlen_k: int | None
    #: Each query attends to keys at or before its position (aligned at the sequence's end).
    causal: bool
    #: The softmax scale.
    scale: ScalarRef

    @property
    def kind(self) -> OperationKind:
        return OperationKind.PACKED_ATTENTION_PREFILL


@dataclass(frozen=True, slots=True)
class Rope:
    """Rotary position embedding: the first ``rotary_dim`` entries of each head of ``query``
    ``[T, H, D]`` and ``key`` ``[T, H_kv, D]`` rotated by per-token angles (``cos``, ``sin``
    ``[T, rotary_dim / 2]``) into ``query_out`` and ``key_out``; the other entries copied."""

    #: Signature index of the queries ``[T, H, D]``.
    query: int
    #: Signature index of the keys ``[T, H_kv, D]``.
    key: int
    #: Signature index of the cosines ``[T, rotary_dim / 2]``.
    cos: int
    #: Signature index of the sines ``[T, rotary_dim / 2]``.
    sin: int
    #: Signature index of the rotated queries (shape and dtype of query).
    query_out: int
    #: Signature index of the rotated keys (shape and dtype of key).
    key_out: int
    #: Entries of each head rotated, from the first (even, at most D).
    rotary_dim: int
    #: Whether the rotated pairs are adjacent entries (GPT-J) rather than halves.
    interleaved: bool

    @property
    def kind(self) -> OperationKind:
        return OperationKind.ROPE


@dataclass(frozen=True, slots=True)
class Linear:
    """A linear layer: ``out = input @ weight^T + bias`` with ``weight`` ``[N, K]`` as checkpoints
    store it (``weight_layout = "nk"``), or ``input @ weight + bias`` with ``weight`` ``[K, N]``
    (``"kn"``); ``input`` ``[.., K]`` and ``out`` ``[.., N]`` share their leading extents."""

    #: Signature index of the activations ``[.., K]``.
    input: int
    #: Signature index of the weight (``[N, K]`` or ``[K, N]``, by ``weight_layout``).
    weight: int
    #: Signature index of the bias ``[N]``, if any.
    bias: int | None
    #: Signature index of the result ``[.., N]``.
    out: int
    #: How the weight stores its axes.
    weight_layout: WeightLayout

    @property
    def kind(self) -> OperationKind:
        return OperationKind.LINEAR


@dataclass(frozen=True, slots=True)
class DenseAttention:
    """Scaled dot-product attention over dense tensors, as ``F.scaled_dot_product_attention``
    computes it: ``query`` and ``out`` ``[B, H, S, D]``, ``key`` and ``value`` ``[B, H_kv, S_kv, D]``,
    ``H`` a multiple of ``H_kv`` (grouped-query heads); ``causal`` masks as ``is_causal`` does."""

    #: Signature index of the queries ``[B, H, S, D]``.
    query: int
    #: Signature index of the keys ``[B, H_kv, S_kv, D]``.
    key: int
    #: Signature index of the values ``[B, H_kv, S_kv, D]``.
    value: int
    #: Signature index of the result ``[B, H, S, D]``.
    out: int
    #: Query ``i`` attends to keys ``j <= i`` only (top-left aligned, as ``is_causal``).
    causal: bool
    #: The softmax scale.
    scale: ScalarRef

    @property
    def kind(self) -> OperationKind:
        return OperationKind.DENSE_ATTENTION


#: The typed operation payload of a family; narrow it with ``isinstance``.
Operation: TypeAlias = Union[
    ElementwiseBinary,
    Matmul,
    ElementwiseUnary,
    Reduce,
    Softmax,
    Norm,
    PagedAttentionDecode,
    Custom,
    PackedAttentionPrefill,
    Rope,
    Linear,
    DenseAttention,
]


@dataclass(frozen=True, slots=True)
class Param(_ParamMethods):
    """One parameter of a family's logical signature."""

    #: Position in the complete signature (scalars included).
    index: int
    #: Declared name (snake_case identifier).
    name: str
    #: Declared documentation.
    doc: str | None
    #: Tensor or scalar.
    kind: ParamKind
    #: How the kernel uses it (always ``in`` for scalars).
    direction: Direction
    #: Element type.
    dtype: DType
    #: Memory layout.
    layout: Layout
    #: Index among the family's tensors (a tensor) or scalars (a scalar).
    pool_index: int
    #: Logical shape; empty for scalars.
    shape: tuple[int, ...]
    #: Assembly (lowered) shape: NZ blocked, fp4 packed, otherwise the logical shape.
    lowered_shape: tuple[int, ...]
    #: Byte alignment of every call's data: the address of the view's first element is a multiple of it (1: any; 1 for scalars).
    alignment: int


@dataclass(frozen=True, slots=True)
class Binding:
    """A final-ABI launch slot: which parameter sits where."""

    #: Signature index of the bound parameter (an index into the family's params).
    param: int
    #: Launch slot (argument position or buffer-object index).
    slot: int
    #: What the slot is.
    kind: BindingKind


@dataclass(frozen=True, slots=True)
class Profile:
    """Where and how an artifact of the family runs, with its final-ABI bindings."""

    #: Declared name (snake_case identifier).
    name: str
    #: Target platform.
    platform: Platform
    #: Code-generation backend.
    backend: Backend
    #: Native runtime.
    runtime: Runtime
    #: Simulator or device.
    execution_mode: ExecutionMode
    #: Final-ABI bindings, sorted by slot.
    bindings: tuple[Binding, ...]


@dataclass(frozen=True, slots=True)
class OutputError:
    """The worst difference a qualification run saw between one written tensor and the reference."""

    #: Signature index of the written (out or inout) tensor.
    output: int
    #: Largest absolute difference from the reference over every case.
    max_abs: float
    #: Largest difference relative to the reference's magnitude over every case.
    max_rel: float


@dataclass(frozen=True, slots=True)
class Evidence:
    """When and on what hardware an artifact qualified, and what the qualification run measured
    (``tool`` set: structured evidence, docs/qualify.md; absent: free text alone)."""

    #: Qualification date, YYYY-MM-DD.
    date: str
    #: Hardware the artifact qualified on.
    hardware: str
    #: Free-text note on the qualification.
    note: str | None
    #: The qualification tool (``kfam.qualify``); absent for free-text evidence.
    tool: str | None
    #: Tool versions of the run, ``name version`` (``torch 2.9.1``).
    versions: tuple[str, ...]
    #: Cases the run passed (0 for free-text evidence).
    cases: int
    #: Seed of the run's first case.
    seed: int
    #: Extents covered, one entry per symbol: ``name = v1, v2, ...``.
    shapes: tuple[str, ...]
    #: The worst error per written tensor, in signature order.
    errors: tuple[OutputError, ...]
    #: Runs of the kernel per case: 2 or more measured determinism; 0 when not recorded.
    runs: int
    #: Every run of each case wrote bitwise identical outputs (``runs`` >= 2).
    deterministic: bool
    #: Largest absolute difference between two runs of one case (0 when deterministic).
    run_max_abs: float


@dataclass(frozen=True, slots=True)
class Receipt:
    """One artifact, identified by its SHA-256, that qualified for the family on a profile."""

    #: Index of the qualified profile in the family's profiles.
    profile: int
    #: Wire-format id of the artifact.
    codec: str
    #: Artifact path, relative to the artifact root, ``/``-separated.
    artifact: str
    #: SHA-256 of the artifact: 64 lowercase hex digits.
    sha256: str
    #: When and on what hardware it qualified.
    evidence: Evidence


@dataclass(frozen=True, slots=True)
class DimUse:
    """One extent that is a named symbol: axis ``axis`` of parameter ``param``."""

    #: Signature index of the parameter (an index into the family's params).
    param: int
    #: The parameter's index among the family's tensors (its argument).
    tensor: int
    #: Axis of the parameter's logical shape.
    axis: int


@dataclass(frozen=True, slots=True)
class Symbol:
    """A named symbolic dimension (``shape = ["rows", 256]``) and its ``[dims]`` constraints: a call
    passes every extent in ``uses`` equal (dim_mismatch), within ``min..=max`` and a multiple of
    ``multiple_of`` (dim_range)."""

    #: Symbol name (snake_case identifier).
    name: str
    #: Smallest accepted extent (0 when unconstrained).
    min: int
    #: Largest accepted extent.
    max: int | None
    #: Accepted extents are multiples of this (1 when unconstrained).
    multiple_of: int
    #: Every extent that is this symbol, in signature order.
    uses: tuple[DimUse, ...]


@dataclass(frozen=True, slots=True)
class Family(_FamilyMethods[Param, Profile, Receipt]):
    """One approved kernel family revision."""

    #: Approved revision of the family contract.
    revision: int
    #: Family name (snake_case identifier, unique).
    name: str
    #: Identity digest of this revision: 64 lowercase hex digits (as in approved.lock).
    identity: str
    #: One-paragraph description (not part of the identity).
    summary: str
    #: The torch dispatcher schema (``kfam::NAME(...) -> ...``); absent when the signature has no torch spelling (a uint64 scalar).
    torch_schema: str | None
    #: Program or kernel.
    contract: Contract
    #: Whether the family offers a torch dispatcher binding (manifest ``torch = true``).
    torch: bool
    #: The typed operation payload; its operands are indices into ``params``.
    operation: Operation
    #: Tensor parameters among ``params``.
    tensor_count: int
    #: Scalar parameters among ``params``.
    scalar_count: int
    #: The ordered logical signature (ParamInfo).
    params: tuple[Param, ...]
    #: Return aliases: signature indices of out/inout tensors, repeats kept.
    returns: tuple[int, ...]
    #: Artifact profiles, in declaration order.
    profiles: tuple[Profile, ...]
    #: Qualification receipts, in declaration order.
    receipts: tuple[Receipt, ...]
    #: Named symbolic dimensions, in order of first use.
    symbols: tuple[Symbol, ...]
    #: The approval this revision entered approved.lock with: later generations' approvals are larger (docs/compatibility.md).
    approval: int


@dataclass(frozen=True, slots=True)
class Retired:
    """A family that was approved and then retired (manifest/retired.toml): its name and
    artifacts are refused as retired (KFAM_STATUS_INVALID_STATE), not as unknown."""

    #: The last approved revision.
    revision: int
    #: The retired family's name, reserved from now on.
    name: str
    #: Identity digest of the last approved revision (64 lowercase hex digits).
    identity: str
    #: Why the family was retired.
    reason: str
    #: Every artifact digest ever approved for the family, sorted.
    receipts: tuple[str, ...]
    #: The approval its last revision entered approved.lock with: a program's header of that approval or later compiled the family in (0: not recorded).
    approval: int


# ---------------------------------------------------------------- decoders


def _kfam_decode_param(x: object, position: int) -> Param:
    v = _fields(x, 10)
    return Param(
        index=position,
        name=_str(v[0]),
        doc=_opt_str(v[1]),
        kind=ParamKind(_int(v[2])),
        direction=Direction(_int(v[3])),
        dtype=DType(_int(v[4])),
        layout=Layout(_int(v[5])),
        pool_index=_int(v[6]),
        shape=_ints(v[7]),
        lowered_shape=_ints(v[7] if v[8] is None else v[8]),
        alignment=1 if v[9] is None else _int(v[9]),
    )


def _kfam_decode_binding(x: object) -> Binding:
    v = _fields(x, 3)
    return Binding(
        param=_int(v[0]),
        slot=_int(v[1]),
        kind=BindingKind(_int(v[2])),
    )


def _kfam_decode_profile(x: object, t: Targets) -> Profile:
    v = _fields(x, 6)
    return Profile(
        name=_str(v[0]),
        platform=t.platform(_int(v[1])),
        backend=t.backend(_int(v[2])),
        runtime=t.runtime(_int(v[3])),
        execution_mode=t.execution_mode(_int(v[4])),
        bindings=tuple(map(_kfam_decode_binding, _items(v[5]))),
    )


def _kfam_decode_output_error(x: object) -> OutputError:
    v = _fields(x, 3)
    return OutputError(
        output=_int(v[0]),
        max_abs=_float(v[1]),
        max_rel=_float(v[2]),
    )


def _kfam_decode_evidence(x: object) -> Evidence:
    v = _fields(x, 12)
    return Evidence(
        date=_str(v[0]),
        hardware=_str(v[1]),
        note=_opt_str(v[2]),
        tool=_opt_str(v[3]),
        versions=tuple(map(_str, _items(v[4]))),
        cases=_int(v[5]),
        seed=_int(v[6]),
        shapes=tuple(map(_str, _items(v[7]))),
        errors=tuple(map(_kfam_decode_output_error, _items(v[8]))),
        runs=0 if v[9] is None else _int(v[9]),
        deterministic=False if v[10] is None else _bool(v[10]),
        run_max_abs=0.0 if v[11] is None else _float(v[11]),
    )


def _kfam_decode_receipt(x: object) -> Receipt:
    v = _fields(x, 16)
    return Receipt(
        profile=_int(v[0]),
        codec=_str(v[1]),
        artifact=_str(v[2]),
        sha256=_str(v[3]),
        evidence=_kfam_decode_evidence(v[4:16]),
    )


def _kfam_decode_dim_use(x: object) -> DimUse:
    v = _fields(x, 3)
    return DimUse(
        param=_int(v[0]),
        tensor=_int(v[1]),
        axis=_int(v[2]),
    )


def _kfam_decode_symbol(x: object) -> Symbol:
    v = _fields(x, 5)
    return Symbol(
        name=_str(v[0]),
        min=_int(v[1]),
        max=_opt_int(v[2]),
        multiple_of=_int(v[3]),
        uses=tuple(map(_kfam_decode_dim_use, _items(v[4]))),
    )


def _kfam_decode_family(x: object, key: str, t: Targets) -> Family:
    v = _fields(x, 15)
    return Family(
        revision=_int(v[0]),
        name=key,
        identity=_str(v[1]),
        summary=_str(v[2]),
        torch_schema=_opt_str(v[3]),
        contract=Contract(_int(v[4])),
        torch=_bool(v[5]),
        operation=_kfam_decode_operation(v[6]),
        tensor_count=_int(v[7]),
        scalar_count=_int(v[8]),
        params=tuple(_kfam_decode_param(e, i) for i, e in enumerate(_items(v[9]))),
        returns=_ints(v[10]),
        profiles=tuple(_kfam_decode_profile(e, t) for e in _items(v[11])),
        receipts=tuple(map(_kfam_decode_receipt, _items(v[12]))),
        symbols=tuple(map(_kfam_decode_symbol, _items(v[13]))),
        approval=_int(v[14]),
    )


def _kfam_decode_retired(x: object, key: str) -> Retired:
    v = _fields(x, 5)
    return Retired(
        revision=_int(v[0]),
        name=key,
        identity=_str(v[1]),
        reason=_str(v[2]),
        receipts=tuple(map(_str, _items(v[3]))),
        approval=0 if v[4] is None else _int(v[4]),
    )


def _kfam_decode_elementwise_binary(x: object) -> ElementwiseBinary:
    v = _fields(x, 4)
    return ElementwiseBinary(
        op=BinaryOp(_int(v[0])),
        lhs=_int(v[1]),
        rhs=_int(v[2]),
        out=_int(v[3]),
    )


def _kfam_decode_matmul(x: object) -> Matmul:
    v = _fields(x, 7)
    return Matmul(
        m=_int(v[0]),
        k=_int(v[1]),
        n=_int(v[2]),
        a=_int(v[3]),
        b=_int(v[4]),
        c=_int(v[5]),
        accumulate=_bool(v[6]),
    )


def _kfam_decode_elementwise_unary(x: object) -> ElementwiseUnary:
    v = _fields(x, 3)
    return ElementwiseUnary(
        op=UnaryOp(_int(v[0])),
        input=_int(v[1]),
        out=_int(v[2]),
    )


def _kfam_decode_reduce(x: object) -> Reduce:
    v = _fields(x, 5)
    return Reduce(
        op=ReduceOp(_int(v[0])),
        input=_int(v[1]),
        out=_int(v[2]),
        keepdim=_bool(v[3]),
        axes=_ints(v[4]),
    )


def _kfam_decode_softmax(x: object) -> Softmax:
    v = _fields(x, 3)
    return Softmax(
        input=_int(v[0]),
        out=_int(v[1]),
        axis=_int(v[2]),
    )


def _kfam_decode_norm(x: object) -> Norm:
    v = _fields(x, 7)
    return Norm(
        op=NormKind(_int(v[0])),
        input=_int(v[1]),
        weight=_int(v[2]),
        bias=_opt_int(v[3]),
        out=_int(v[4]),
        axis=_int(v[5]),
        eps=ScalarRef(*_scalar_ref(v[6])),
    )


def _kfam_decode_paged_attention_decode(x: object) -> PagedAttentionDecode:
    v = _fields(x, 8)
    return PagedAttentionDecode(
        query=_int(v[0]),
        key_cache=_int(v[1]),
        value_cache=_int(v[2]),
        block_table=_int(v[3]),
        context_lens=_int(v[4]),
        out=_int(v[5]),
        scale=ScalarRef(*_scalar_ref(v[6])),
        layout=CacheLayout.NHD if v[7] is None else CacheLayout(_int(v[7])),
    )


def _kfam_decode_custom(x: object) -> Custom:
    v = _fields(x, 1)
    return Custom(
        semantics=_str(v[0]),
    )


def _kfam_decode_packed_attention_prefill(x: object) -> PackedAttentionPrefill:
    v = _fields(x, 10)
    return PackedAttentionPrefill(
        query=_int(v[0]),
        key=_int(v[1]),
        value=_int(v[2]),
        cu_seqlens_q=_int(v[3]),
        cu_seqlens_k=_int(v[4]),
        out=_int(v[5]),
        max_seqlen_q=_opt_int(v[6]),
        max_seqlen_k=_opt_int(v[7]),
        causal=_bool(v[8]),
        scale=ScalarRef(*_scalar_ref(v[9])),
    )


def _kfam_decode_rope(x: object) -> Rope:
    v = _fields(x, 8)
    return Rope(
        query=_int(v[0]),
        key=_int(v[1]),
        cos=_int(v[2]),
        sin=_int(v[3]),
        query_out=_int(v[4]),
        key_out=_int(v[5]),
        rotary_dim=_int(v[6]),
        interleaved=_bool(v[7]),
    )


def _kfam_decode_linear(x: object) -> Linear:
    v = _fields(x, 5)
    return Linear(
        input=_int(v[0]),
        weight=_int(v[1]),
        bias=_opt_int(v[2]),
        out=_int(v[3]),
        weight_layout=WeightLayout(_int(v[4])),
    )


def _kfam_decode_dense_attention(x: object) -> DenseAttention:
    v = _fields(x, 6)
    return DenseAttention(
        query=_int(v[0]),
        key=_int(v[1]),
        value=_int(v[2]),
        out=_int(v[3]),
        causal=_bool(v[4]),
        scale=ScalarRef(*_scalar_ref(v[5])),
    )


#: The decoder of each operation kind's payload row (the fields after the kind's code).
_OPERATIONS: Final[dict[OperationKind, Callable[[object], Operation]]] = {
    OperationKind.ELEMENTWISE_BINARY: _kfam_decode_elementwise_binary,
    OperationKind.MATMUL: _kfam_decode_matmul,
    OperationKind.ELEMENTWISE_UNARY: _kfam_decode_elementwise_unary,
    OperationKind.REDUCE: _kfam_decode_reduce,
    OperationKind.SOFTMAX: _kfam_decode_softmax,
    OperationKind.NORM: _kfam_decode_norm,
    OperationKind.PAGED_ATTENTION_DECODE: _kfam_decode_paged_attention_decode,
    OperationKind.CUSTOM: _kfam_decode_custom,
    OperationKind.PACKED_ATTENTION_PREFILL: _kfam_decode_packed_attention_prefill,
    OperationKind.ROPE: _kfam_decode_rope,
    OperationKind.LINEAR: _kfam_decode_linear,
    OperationKind.DENSE_ATTENTION: _kfam_decode_dense_attention,
}


def _kfam_decode_operation(x: object) -> Operation:
    """An operation row: the kind's code, then the kind's fields in order."""
    v = _row(x)
    if not v:
        raise _corrupt("operation", x)
    decode = _OPERATIONS.get(OperationKind(_int(v[0])))
    if decode is None:
        raise _corrupt("operation", x)
    return decode(v[1:])


def decode_family(name: str, row: object, targets: Targets) -> Family:
    """The family called ``name`` from its row (``_tables.FAMILY_ROWS``, parsed), the catalog's
    vocabularies decoded with ``targets``."""
    return _kfam_decode_family(row, name, targets)


def decode_retired(name: str, row: object) -> Retired:
    """The retired family called ``name`` from its row (``_tables.RETIRED_ROWS``, parsed)."""
    return _kfam_decode_retired(row, name)
