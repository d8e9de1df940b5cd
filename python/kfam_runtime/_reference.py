# PyTorch's own annotations are full of `Any`: this module, which works in them, is exempt
# from `--disallow-any-expr` (it passes `mypy --strict`, with torch and without).
# mypy: disallow-any-expr=False
"""Reference semantics of the checked operation kinds (``torch.reference``, docs/qualify.md).

A family's operation payload says what its kernel computes; this module computes exactly that
with PyTorch on the CPU, wide: floating operands in float64 (so sums, means, norms, softmax and
matmul accumulate in float64), integer operands in int64, and each result rounded once into the
output tensor's dtype. Layouts whose physical blocking the payload does not describe (NZ) and
dtypes torch cannot compute in (packed fp4) are refused, as is a ``custom`` family without a
reference of the caller's.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Final

import torch  # type: ignore[import-not-found, unused-ignore]
import torch.nn.functional as F  # type: ignore[import-not-found, unused-ignore]

from .records import (
    Custom,
    DenseAttention,
    ElementwiseBinary,
    ElementwiseUnary,
    Family,
    Linear,
    Matmul,
    Norm,
    Operation,
    PackedAttentionPrefill,
    PagedAttentionDecode,
    Reduce,
    Rope,
    ScalarRef,
    Softmax,
)
from .vocab import (
    BinaryOp,
    CacheLayout,
    DType,
    Layout,
    NormKind,
    ReduceOp,
    UnaryOp,
    WeightLayout,
)

#: A kernel, or a reference: the family's arguments in signature order (tensors, Python
#: scalars); it writes the family's ``out``/``inout`` tensors in place.
Kernel = Callable[..., object]

#: What one operation computes: each written parameter's index and its wide value.
_Results = dict[int, torch.Tensor]
_Args = Sequence[object]


class ReferenceError(ValueError):
    """The family has no reference kfam can derive: an NZ or fp4 parameter, or a ``custom``
    operation without a reference of the caller's."""


def reference(family: Family, *, custom: Kernel | None = None) -> Kernel:
    """The reference implementation of ``family``: a callable taking the family's arguments in
    signature order that computes the operation on CPU tensors, wide, and writes each result
    into its ``out``/``inout`` tensor (rounded once to that tensor's dtype). Returns ``None``.

    ``custom`` is the reference of a ``custom`` family (kfam checked its signature only); for
    any other kind it is refused. ``ReferenceError`` for an NZ or fp4 parameter.
    """
    if not isinstance(family, Family):
        raise TypeError(f"expected a kfam_runtime.Family, not {type(family).__name__}")
    op = family.operation
    if isinstance(op, Custom):
        if custom is None:
            raise ReferenceError(
                f"family {family.name!r} is custom ({op.semantics!r}): kfam checked its signature "
                "only, so its reference is yours: pass `custom=` (or `reference=` to qualify)"
            )
        return custom
    if custom is not None:
        raise ValueError(
            f"family {family.name!r} is {op.kind.spelling}: kfam derives its reference"
        )
    refuse_untensorable(family)
    compute = _COMPUTE[type(op)]

    def run(*args: object) -> None:
        if len(args) != len(family.params):
            raise TypeError(
                f"{family.name}: expected the {len(family.params)} arguments, got {len(args)}"
            )
        for index, value in compute(op, args).items():
            out = args[index]
            assert isinstance(out, torch.Tensor)
            out.copy_(value)  # rounded once into out's dtype, as `.to` would, without a copy

    return run


def refuse_untensorable(family: Family) -> None:
    """``ReferenceError`` for a parameter whose values a torch tensor cannot carry or compute
    on: NZ (the fractal blocking is not described by the tensor, and kfam does not guess the
    one a kernel reads) and packed fp4 (torch stores ``float4_e2m1fn_x2`` but has no
    arithmetic on it)."""
    for p in family.params:
        if p.layout is Layout.NZ:
            raise ReferenceError(
                f"family {family.name!r}: parameter {p.name!r} is NZ, whose fractal blocks a "
                "torch tensor does not describe; qualify the ND form of the kernel"
            )
        if p.dtype is DType.FP4:
            raise ReferenceError(
                f"family {family.name!r}: parameter {p.name!r} is fp4, which torch stores "
                "(float4_e2m1fn_x2) but cannot compute with"
            )


def _wide(value: object) -> torch.Tensor:
    """``value`` on the CPU in the widest type of its kind: float64, int64, or bool."""
    if not isinstance(value, torch.Tensor):
        raise TypeError(f"expected a tensor, not {type(value).__name__}")
    tensor: torch.Tensor = value  # narrowed (an annotation, for mypy without torch)
    t = tensor.detach().cpu()
    if t.dtype.is_floating_point:
        return t.to(torch.float64)
    if t.dtype == torch.bool:
        return t
    return t.to(torch.int64)


def _scalar(ref: ScalarRef, args: Sequence[object]) -> float:
    """A scalar operand: the family's constant, or the call's scalar argument."""
    if ref.param is not None:
        value = args[ref.param]
        if isinstance(value, torch.Tensor):
            return float(value.item())
        if not isinstance(value, (bool, int, float)):
            raise TypeError(f"scalar argument {ref.param} is {type(value).__name__}")
        return float(value)
    assert ref.constant is not None
    return ref.constant


_BINARY: Final[dict[BinaryOp, Callable[[torch.Tensor, torch.Tensor], torch.Tensor]]] = {
    BinaryOp.ADD: torch.add,
    BinaryOp.SUB: torch.sub,
    BinaryOp.MUL: torch.mul,
    BinaryOp.DIV: torch.div,
    BinaryOp.MAX: torch.maximum,
    BinaryOp.MIN: torch.minimum,
}


def _binary(op: Operation, args: _Args) -> _Results:
    assert isinstance(op, ElementwiseBinary)
    return {op.out: _BINARY[op.op](_wide(args[op.lhs]), _wide(args[op.rhs]))}


_UNARY: Final[dict[UnaryOp, Callable[[torch.Tensor], torch.Tensor]]] = {
    UnaryOp.NEG: torch.neg,
    UnaryOp.ABS: torch.abs,
    UnaryOp.EXP: torch.exp,
    UnaryOp.LOG: torch.log,
    UnaryOp.SQRT: torch.sqrt,
    UnaryOp.RSQRT: torch.rsqrt,
    UnaryOp.RELU: torch.relu,
    # The erf form, as F.gelu's default (approximate="none").
    UnaryOp.GELU: F.gelu,
    UnaryOp.SILU: F.silu,
    UnaryOp.SIGMOID: torch.sigmoid,
    UnaryOp.TANH: torch.tanh,
    UnaryOp.GELU_TANH: lambda x: F.gelu(x, approximate="tanh"),
}


def _unary(op: Operation, args: _Args) -> _Results:
    assert isinstance(op, ElementwiseUnary)
    x = args[op.input]
    if op.op is UnaryOp.CAST:
        # One conversion, from the input's own dtype: no detour through float64.
        assert isinstance(x, torch.Tensor)
        return {op.out: x.detach().cpu()}
    return {op.out: _UNARY[op.op](_wide(x))}


def _reduce(op: Operation, args: _Args) -> _Results:
    assert isinstance(op, Reduce)
    x, axes, keep = _wide(args[op.input]), list(op.axes), op.keepdim
    if op.op is ReduceOp.SUM:
        value = torch.sum(x, dim=axes, keepdim=keep)
    elif op.op is ReduceOp.MEAN:
        value = torch.mean(x, dim=axes, keepdim=keep)
    elif op.op is ReduceOp.MAX:
        value = torch.amax(x, dim=axes, keepdim=keep)
    else:
        value = torch.amin(x, dim=axes, keepdim=keep)
    return {op.out: value}


def _softmax(op: Operation, args: _Args) -> _Results:
    assert isinstance(op, Softmax)
    return {op.out: torch.softmax(_wide(args[op.input]), dim=op.axis)}


def _along(v: torch.Tensor, axis: int, rank: int) -> torch.Tensor:
    """A vector of the extent of ``axis``, shaped to broadcast along it."""
    shape = [1] * rank
    shape[axis] = v.shape[0]
    return v.reshape(shape)


def _norm(op: Operation, args: _Args) -> _Results:
    assert isinstance(op, Norm)
    x = _wide(args[op.input])
    eps = _scalar(op.eps, args)
    weight = _along(_wide(args[op.weight]), op.axis, x.dim())
    # The same operations in the same order as written out, each whole-tensor temporary
    # reused in place once read (`x` itself may be the caller's tensor: never written).
    if op.op is NormKind.RMS_NORM:
        y = x * x
        ms = torch.mean(y, dim=op.axis, keepdim=True)
        torch.div(x, torch.sqrt(ms + eps), out=y)  # x / sqrt(ms + eps) * weight
        return {op.out: y.mul_(weight)}
    mean = torch.mean(x, dim=op.axis, keepdim=True)
    y = x - mean
    var = torch.mean(y**2, dim=op.axis, keepdim=True)  # biased, as LayerNorm
    y.div_(torch.sqrt(var + eps)).mul_(weight)  # (x - mean) / sqrt(var + eps) * weight
    if op.bias is not None:
        y.add_(_along(_wide(args[op.bias]), op.axis, x.dim()))
    return {op.out: y}


def _matmul(op: Operation, args: _Args) -> _Results:
    assert isinstance(op, Matmul)
    product = torch.matmul(_wide(args[op.a]), _wide(args[op.b]))
    if op.accumulate:
        product = _wide(args[op.c]) + product
    return {op.c: product}


def cache_blocks(layout: CacheLayout, key_shape: Sequence[int]) -> tuple[int, int]:
    """The block count and block size of a key cache of ``key_shape`` in ``layout``."""
    block_axis = {
        CacheLayout.NHD: 1,
        CacheLayout.HND: 2,
        CacheLayout.X_PACKED: 3,
        CacheLayout.COMBINED_NHD: 2,
        CacheLayout.COMBINED_HND: 3,
    }[layout]
    return key_shape[0], key_shape[block_axis]


def nhd_caches(
    layout: CacheLayout, key: torch.Tensor, value: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """The key and value caches in ``layout`` as ``[num_blocks, block_size, H_kv, D]`` views
    (``key`` is the one cache of a combined layout, and ``value`` too)."""
    if layout is CacheLayout.NHD:
        return key, value
    if layout is CacheLayout.HND:
        return key.transpose(1, 2), value.transpose(1, 2)
    if layout is CacheLayout.X_PACKED:
        # key [B, H_kv, D / x, T, x] -> [B, T, H_kv, D / x, x] -> [B, T, H_kv, D];
        # value [B, H_kv, D, T] -> [B, T, H_kv, D].
        blocks, kv_heads, groups, block_size, x = key.shape
        key = key.permute(0, 3, 1, 2, 4).reshape(blocks, block_size, kv_heads, groups * x)
        return key, value.permute(0, 3, 1, 2)
    if layout is CacheLayout.COMBINED_NHD:
        return key[:, 0], key[:, 1]
    if layout is CacheLayout.COMBINED_HND:
        return key[:, 0].transpose(1, 2), key[:, 1].transpose(1, 2)
    raise ValueError(f"no reference for the cache layout {layout.spelling}")


def _paged_attention(op: Operation, args: _Args) -> _Results:
    """Each sequence's query attends over its first ``context_lens[b]`` tokens: token ``t``
    lives in cache block ``block_table[b, t // block_size]``, row ``t % block_size`` (read
    through the caches' layout); query head ``h`` reads KV head ``h // (H / H_kv)``
    (grouped-query attention)."""
    assert isinstance(op, PagedAttentionDecode)
    q = _wide(args[op.query])
    k_cache, v_cache = nhd_caches(op.layout, _wide(args[op.key_cache]), _wide(args[op.value_cache]))
    table, lens = _wide(args[op.block_table]), _wide(args[op.context_lens])
    scale = _scalar(op.scale, args)
    batch, heads, _ = q.shape
    blocks, block_size, kv_heads, _ = k_cache.shape
    if heads % kv_heads != 0:
        raise ValueError(f"{heads} query heads do not group over {kv_heads} KV heads")
    group = heads // kv_heads
    out = torch.zeros_like(q)
    for b in range(batch):
        length = int(lens[b])
        if length == 0:
            continue  # attends over nothing: zeros
        used = math.ceil(length / block_size)
        if length < 0 or used > table.shape[1]:
            raise ValueError(
                f"sequence {b}: context length {length} exceeds the block table's "
                f"{table.shape[1]} blocks of {block_size}"
            )
        ids = table[b, :used]
        if bool(((ids < 0) | (ids >= blocks)).any()):
            raise ValueError(f"sequence {b}: block table names a block outside 0..{blocks}")
        keys = k_cache[ids].reshape(used * block_size, kv_heads, -1)[:length]
        values = v_cache[ids].reshape(used * block_size, kv_heads, -1)[:length]
        keys = keys.repeat_interleave(group, dim=1)  # [length, heads, D]
        values = values.repeat_interleave(group, dim=1)
        scores = torch.einsum("hd,lhd->hl", q[b], keys) * scale
        out[b] = torch.einsum("hl,lhd->hd", torch.softmax(scores, dim=-1), values)
    return {op.out: out}


def _offsets(tensor: torch.Tensor, total: int, what: str) -> list[int]:
    """Cumulative sequence offsets: from 0, never decreasing, ending at the token count."""
    offsets = [int(x) for x in tensor.tolist()]
    if not offsets or offsets[0] != 0 or offsets[-1] != total:
        raise ValueError(f"{what} must run from 0 to the token count {total}: {offsets}")
    if any(b < a for a, b in zip(offsets, offsets[1:], strict=False)):
        raise ValueError(f"{what} must not decrease: {offsets}")
    return offsets


def _packed_attention(op: Operation, args: _Args) -> _Results:
    """Sequence ``b`` is rows ``cu_seqlens_q[b]:cu_seqlens_q[b + 1]`` of the queries and
    ``cu_seqlens_k[b]:cu_seqlens_k[b + 1]`` of the keys and values; each attends only within
    its sequence. With ``causal``, query ``i`` of a sequence of ``L_q`` queries and ``L_k``
    keys sees keys ``j <= i + L_k - L_q`` (aligned at the end); a query that sees no key gives
    zeros. Query head ``h`` reads KV head ``h // (H / H_kv)``."""
    assert isinstance(op, PackedAttentionPrefill)
    q, k, v = _wide(args[op.query]), _wide(args[op.key]), _wide(args[op.value])
    scale = _scalar(op.scale, args)
    heads, kv_heads = q.shape[1], k.shape[1]
    if heads % kv_heads != 0:
        raise ValueError(f"{heads} query heads do not group over {kv_heads} KV heads")
    cq = _offsets(_wide(args[op.cu_seqlens_q]), q.shape[0], "cu_seqlens_q")
    ck = _offsets(_wide(args[op.cu_seqlens_k]), k.shape[0], "cu_seqlens_k")
    if len(cq) != len(ck):
        raise ValueError(f"cu_seqlens_q has {len(cq)} offsets, cu_seqlens_k {len(ck)}")
    out = torch.zeros_like(q)
    group = heads // kv_heads
    for b in range(len(cq) - 1):
        qs = q[cq[b] : cq[b + 1]]  # [L_q, H, D]
        ks = k[ck[b] : ck[b + 1]].repeat_interleave(group, dim=1)  # [L_k, H, D]
        vs = v[ck[b] : ck[b + 1]].repeat_interleave(group, dim=1)
        lq, lk = qs.shape[0], ks.shape[0]
        if lq == 0 or lk == 0:
            continue
        scores = torch.einsum("qhd,khd->hqk", qs, ks) * scale
        if op.causal:
            visible = torch.arange(lk)[None, :] <= torch.arange(lq)[:, None] + (lk - lq)
            scores = scores.masked_fill(~visible, float("-inf"))
        weights = torch.softmax(scores, dim=-1).nan_to_num(0.0)  # no visible key: zeros
        out[cq[b] : cq[b + 1]] = torch.einsum("hqk,khd->qhd", weights, vs)
    return {op.out: out}


def _rope(op: Operation, args: _Args) -> _Results:
    assert isinstance(op, Rope)
    r = op.rotary_dim
    # One angle per token and rotated pair, the same for every head.
    cos = _wide(args[op.cos])[:, None, :]
    sin = _wide(args[op.sin])[:, None, :]
    # The two entries of each pair: adjacent (GPT-J), or the halves (GPT-NeoX).
    if op.interleaved:
        first, second = slice(0, r, 2), slice(1, r, 2)
    else:
        first, second = slice(0, r // 2), slice(r // 2, r)

    def rotate(value: object) -> torch.Tensor:
        x = _wide(value)
        out = x.clone()
        a, b = x[..., first], x[..., second]
        out[..., first] = a * cos - b * sin
        out[..., second] = b * cos + a * sin
        return out

    # Both from the inputs as they were: `query_out` may be `query` itself.
    return {op.query_out: rotate(args[op.query]), op.key_out: rotate(args[op.key])}


def _linear(op: Operation, args: _Args) -> _Results:
    """``input @ weight^T + bias`` (``nk``) or ``input @ weight + bias`` (``kn``) over any
    leading extents of ``input``; with a batch of weights (``enk``, ``ekn``), batch ``e`` of
    the activations by weight ``e`` and bias ``e``."""
    assert isinstance(op, Linear)
    x, w = _wide(args[op.input]), _wide(args[op.weight])
    if op.weight_layout in (WeightLayout.NK, WeightLayout.ENK):
        w = w.transpose(-1, -2)
    out = torch.matmul(x, w)
    if op.bias is not None:
        bias = _wide(args[op.bias])
        # A batch's bias [E, N] adds to each of its rows [E, T, N].
        out = out + (bias.unsqueeze(-2) if bias.dim() == 2 else bias)
    return {op.out: out}


def _dense_attention(op: Operation, args: _Args) -> _Results:
    """``F.scaled_dot_product_attention``: query head ``h`` reads KV head ``h // (H / H_kv)``;
    with ``causal``, query ``i`` sees keys ``j <= i`` (the top-left aligned mask of
    ``is_causal``; a query that sees no key gives zeros)."""
    assert isinstance(op, DenseAttention)
    q, k, v = _wide(args[op.query]), _wide(args[op.key]), _wide(args[op.value])
    heads, kv_heads = q.shape[1], k.shape[1]
    if heads % kv_heads != 0:
        raise ValueError(f"{heads} query heads do not group over {kv_heads} KV heads")
    k = k.repeat_interleave(heads // kv_heads, dim=1)
    v = v.repeat_interleave(heads // kv_heads, dim=1)
    scores = torch.matmul(q, k.transpose(-1, -2)) * _scalar(op.scale, args)
    if op.causal:
        lq, lk = q.shape[2], k.shape[2]
        visible = torch.arange(lk)[None, :] <= torch.arange(lq)[:, None]
        scores = scores.masked_fill(~visible, float("-inf"))
    weights = torch.softmax(scores, dim=-1).nan_to_num(0.0)
    return {op.out: torch.matmul(weights, v)}


_COMPUTE: Final[dict[type, Callable[[Operation, _Args], _Results]]] = {
    ElementwiseBinary: _binary,
    ElementwiseUnary: _unary,
    Reduce: _reduce,
    Softmax: _softmax,
    Norm: _norm,
    Matmul: _matmul,
    PagedAttentionDecode: _paged_attention,
    PackedAttentionPrefill: _packed_attention,
    Rope: _rope,
    Linear: _linear,
    DenseAttention: _dense_attention,
}
