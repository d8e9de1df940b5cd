# PyTorch's own annotations are full of `Any`: this module, which works in them, is exempt
# from `--disallow-any-expr` (it passes `mypy --strict`, with torch and without).
# mypy: disallow-any-expr=False
"""The cases of a qualification run (docs/qualify.md, "The run"): shapes drawn from a family's own
symbols, inputs drawn for its operation, outputs poisoned.

Case ``i`` of a run with seed ``s`` is drawn from ``(s, i)`` alone, so ``case=i`` replays it.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

import torch  # type: ignore[import-not-found, unused-ignore]

from ._reference import cache_blocks
from ._tensors import torch_dtype
from .records import (
    ElementwiseBinary,
    ElementwiseUnary,
    Family,
    Matmul,
    Norm,
    PackedAttentionPrefill,
    PagedAttentionDecode,
    Param,
)
from .vocab import BinaryOp, DType, Direction, UnaryOp

#: A symbol without ``max`` is sampled up to this (or its ``min``, if larger).
SAMPLE_LIMIT: Final[int] = 256
#: The dynamic extents (``-1``) that no symbol names take one value per case, in
#: ``1..=DYNAMIC_LIMIT``.
DYNAMIC_LIMIT: Final[int] = 64


def _edges(lo: int, hi: int, step: int) -> list[int]:
    """The values every run covers first, in multiples of ``step``: both ends, their
    neighbours, and a middle value that is odd (ragged) where ``step`` allows it."""
    mid = ((lo + hi) // 2 // step) * step
    if step == 1:
        mid |= 1
    picks = [lo, hi, lo + step, hi - step, mid]
    seen: list[int] = []
    for v in picks:
        if lo <= v <= hi and v not in seen:
            seen.append(v)
    return seen


def _range(family: Family, name: str) -> tuple[int, int, int]:
    """A symbol's sampled range: ``lo..=hi`` in multiples of ``step``, never 0."""
    sym = next(s for s in family.symbols if s.name == name)
    step = max(1, sym.multiple_of)
    lo = max(sym.min, 1)
    lo = -(-lo // step) * step
    hi = sym.max if sym.max is not None else max(lo, SAMPLE_LIMIT)
    hi = (hi // step) * step
    if hi < lo:
        raise ValueError(f"{family.name}: symbol {name!r} has no extent to sample")
    return lo, hi, step


@dataclass
class Case:
    index: int
    symbols: dict[str, int]
    shapes: dict[str, tuple[int, ...]]
    args: list[object]


def _symbol_of(family: Family) -> dict[tuple[int, int], str]:
    return {(u.param, u.axis): s.name for s in family.symbols for u in s.uses}


def draw(family: Family, seed: int, index: int) -> Case:
    rng = random.Random(f"kfam.qualify {family.name} {seed} {index}")
    gen = torch.Generator().manual_seed(rng.getrandbits(63))
    symbols: dict[str, int] = {}
    for s in family.symbols:
        lo, hi, step = _range(family, s.name)
        edges = _edges(lo, hi, step)
        symbols[s.name] = (
            edges[index] if index < len(edges) else rng.randint(lo // step, hi // step) * step
        )
    named = _symbol_of(family)
    # One value for every dynamic extent no symbol names: the checker may have tied them
    # (equal operand shapes), which the records do not spell out.
    dynamic = rng.randint(1, DYNAMIC_LIMIT)
    shapes: dict[str, tuple[int, ...]] = {}
    for p in family.params:
        if not p.is_tensor:
            continue
        dims = []
        for axis, d in enumerate(p.shape):
            if (p.index, axis) in named:
                dims.append(symbols[named[(p.index, axis)]])
            elif d < 0:
                dims.append(dynamic)
            else:
                dims.append(d)
        shapes[p.name] = tuple(dims)
    op = family.operation
    if isinstance(op, PagedAttentionDecode):
        return _paged_case(family, op, index, rng, gen, symbols, shapes)
    if isinstance(op, PackedAttentionPrefill):
        return _packed_case(family, op, index, rng, gen, symbols, shapes)
    args = [_tensor_or_scalar(family, p, shapes, rng, gen) for p in family.params]
    return Case(index, symbols, shapes, args)


def _role(family: Family, p: Param) -> str:
    """What an input is to the operation, where that bounds its values."""
    op = family.operation
    if isinstance(op, ElementwiseUnary) and p.index == op.input:
        if op.op in (UnaryOp.LOG, UnaryOp.SQRT, UnaryOp.RSQRT):
            return "positive"
    if isinstance(op, ElementwiseBinary) and op.op is BinaryOp.DIV and p.index == op.rhs:
        return "nonzero"
    if isinstance(op, Matmul) and p.index == op.a:
        return "matmul_a"
    if isinstance(op, Norm) and op.eps.param == p.index:
        return "eps"
    if isinstance(op, PagedAttentionDecode | PackedAttentionPrefill) and op.scale.param == p.index:
        return "scale"
    return ""


def _tensor_or_scalar(
    family: Family,
    p: Param,
    shapes: Mapping[str, tuple[int, ...]],
    rng: random.Random,
    gen: torch.Generator,
) -> object:
    role = _role(family, p)
    if not p.is_tensor:
        if p.dtype is DType.BOOL:
            return rng.random() < 0.5
        if not torch_dtype(p.dtype).is_floating_point:
            return rng.randint(1, 8)
        if role == "eps":
            return 10.0 ** rng.uniform(-6.0, -3.0)
        if role == "scale":
            return rng.uniform(0.02, 0.1)
        return rng.uniform(0.5, 2.0)
    shape = shapes[p.name]
    dtype = torch_dtype(p.dtype)
    if p.direction is Direction.OUT:
        # Poisoned: a kernel that leaves an element unwritten fails the comparison.
        if dtype.is_floating_point:
            return torch.full(shape, float("nan"), dtype=dtype)
        return torch.full(shape, 0x5A if dtype != torch.bool else True, dtype=dtype)
    if dtype == torch.bool:
        return torch.randint(0, 2, shape, generator=gen).to(torch.bool)
    if not dtype.is_floating_point:
        low = 0 if p.dtype.spelling.startswith("uint") else -8
        return torch.randint(low, 9, shape, generator=gen).to(dtype)
    if p.dtype is DType.FP8E8M0:
        return torch.pow(2.0, torch.randint(-4, 5, shape, generator=gen).double()).to(dtype)
    x = torch.randn(shape, generator=gen, dtype=torch.float64)
    if role == "positive":
        x = x.abs() + 0.1
    elif role == "nonzero":
        x = torch.sign(x) * (x.abs() + 0.5) + (x == 0).double()
    elif role == "matmul_a":
        x = x / math.sqrt(max(1, shape[-1]))
    return x.to(dtype)


def _paged_case(
    family: Family,
    op: PagedAttentionDecode,
    index: int,
    rng: random.Random,
    gen: torch.Generator,
    symbols: dict[str, int],
    shapes: dict[str, tuple[int, ...]],
) -> Case:
    """Paged attention's integer inputs mean something: context lengths within each
    sequence's blocks, ragged (not a multiple of the block size) with 1 and the full capacity
    among them, and block tables of random cache blocks, so that a kernel ignoring the table,
    or reading one token too many or too few, computes something else."""
    args = [_tensor_or_scalar(family, p, shapes, rng, gen) for p in family.params]
    params = family.params
    blocks, block_size = cache_blocks(op.layout, shapes[params[op.key_cache].name])
    batch, max_blocks = shapes[params[op.block_table].name]
    capacity = max_blocks * block_size
    # A permutation of the cache's blocks, repeated when the table has more entries than the
    # cache has blocks: distinct blocks where they fit, and never the identity, so a kernel
    # that reads block i for entry i, or one entry for another, reads other tokens.
    entries = batch * max_blocks
    perm = torch.randperm(blocks, generator=gen).repeat(-(-entries // blocks))
    table = perm[:entries].reshape(batch, max_blocks)
    if blocks > 1 and bool((table[0] == torch.arange(max_blocks) % blocks).all()):
        table = (table + 1) % blocks
    lens = [rng.randint(1, capacity) for _ in range(batch)]
    edges = [1, capacity, min(capacity, block_size + 1), max(1, capacity - 1)]
    lens[0] = edges[index % len(edges)]
    if batch > 1 and block_size > 1:
        # A ragged length: some block is partly filled.
        ragged = [n for n in range(1, capacity + 1) if n % block_size != 0]
        lens[-1] = rng.choice(ragged)
    args[op.block_table] = table.to(torch_dtype(params[op.block_table].dtype))
    args[op.context_lens] = torch.tensor(lens, dtype=torch_dtype(params[op.context_lens].dtype))
    return Case(index, symbols, shapes, args)


def _lengths(total: int, count: int, rng: random.Random, index: int) -> list[int]:
    """``count`` sequence lengths that add up to ``total``: every sequence at least one token
    when there are enough, and by case one sequence of a single token, one as long as the
    others allow (the maximum), or ragged lengths."""
    if count <= 0:
        return []
    if total < count:  # more sequences than tokens: the rest are empty
        return [1] * total + [0] * (count - total)
    if count == 1:
        return [total]
    pattern = index % 3
    if pattern == 0:  # a sequence of one token first
        return [1, *_lengths(total - 1, count - 1, rng, 2)]
    if pattern == 1:  # the longest sequence the total allows, last
        return [1] * (count - 1) + [total - (count - 1)]
    cuts = sorted(rng.sample(range(1, total), count - 1))
    return [b - a for a, b in zip([0, *cuts], [*cuts, total], strict=True)]


def _packed_case(
    family: Family,
    op: PackedAttentionPrefill,
    index: int,
    rng: random.Random,
    gen: torch.Generator,
    symbols: dict[str, int],
    shapes: dict[str, tuple[int, ...]],
) -> Case:
    """Packed attention's offsets mean something: each sequence's rows, ragged, with a
    sequence of 1 token and one of the longest length among the cases, ending at the token
    count; the maximum lengths the scalars carry are the drawn ones (the larger of both when one
    scalar carries both). Keys have the queries' lengths only when one offsets tensor is named
    for both; two offsets tensors get lengths of their own, so a kernel that reads its keys
    through the query offsets computes something else."""
    args = [_tensor_or_scalar(family, p, shapes, rng, gen) for p in family.params]
    params = family.params
    total_q = shapes[params[op.query].name][0]
    total_k = shapes[params[op.key].name][0]
    count = shapes[params[op.cu_seqlens_q].name][0] - 1
    lens_q = _lengths(total_q, count, rng, index)
    # One offsets tensor for both ties the token counts (`kfam check`).
    if op.cu_seqlens_k == op.cu_seqlens_q:
        lens_k = lens_q
    else:
        lens_k = _lengths(total_k, count, rng, index + 1)
    for which, lens in ((op.cu_seqlens_q, lens_q), (op.cu_seqlens_k, lens_k)):
        offsets = [0]
        for n in lens:
            offsets.append(offsets[-1] + n)
        args[which] = torch.tensor(offsets, dtype=torch_dtype(params[which].dtype))
    longest: dict[int, int] = {}
    for scalar, lens in ((op.max_seqlen_q, lens_q), (op.max_seqlen_k, lens_k)):
        if scalar is not None:
            longest[scalar] = max(longest.get(scalar, 0), max(lens, default=0))
    for scalar, n in longest.items():
        args[scalar] = n
    return Case(index, symbols, shapes, args)
