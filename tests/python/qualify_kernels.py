"""Kernels for the qualification tests (tests/python/test_qualify.py): correct ones written
with PyTorch's own operators, in the family's dtypes, one per family of the fixture catalog
tests/qualify/manifest; and deliberately wrong ones, each with one classic mistake."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import torch
import torch.nn.functional as F

Kernel = Callable[..., None]


def _into(out: torch.Tensor, value: torch.Tensor) -> None:
    out.copy_(value.to(out.dtype))


def _gather(cache: torch.Tensor, table: torch.Tensor, b: int, length: int) -> torch.Tensor:
    """The first ``length`` tokens of sequence ``b``: ``[length, kv_heads, head_size]``."""
    block_size = cache.shape[1]
    used = -(-length // block_size)
    return cache[table[b, :used].long()].flatten(0, 1)[:length]


def _caches(layout: str, k: Any, v: Any, *, raw: bool) -> tuple[Any, Any]:
    """The caches of ``layout`` as ``[blocks, block_size, kv_heads, D]``; with ``raw``
    (wrong) the cache memory read as if it were laid out so, its axes never moved."""
    if layout.startswith("combined"):
        k, v = k.select(1, 0), v.select(1, 1)
    if layout in ("hnd", "combined_hnd"):
        nhd = k.transpose(1, 2), v.transpose(1, 2)
    elif layout == "x_packed":  # keys [B, H_kv, D / x, T, x], values [B, H_kv, D, T]
        nhd = torch.einsum("bhgtx->bthgx", k).flatten(3), torch.einsum("bhdt->bthd", v)
    else:
        nhd = k, v
    if raw:
        return k.reshape(nhd[0].shape), v.reshape(nhd[1].shape)
    return nhd


def paged_attention(
    *,
    layout: str = "nhd",
    read_as_nhd: bool = False,
    extra_tokens: int = 0,
    fixed_scale: bool = False,
    ignore_table: bool = False,
    identity_table: bool = False,
) -> Kernel:
    """Decode attention with ``F.scaled_dot_product_attention`` over the gathered cache (in
    ``layout``), in fp32, grouped-query heads expanded. Wrong with a flag: ``read_as_nhd``
    reads the cache's memory as if it were NHD, ``extra_tokens`` attends one token
    too many or too few, ``fixed_scale`` ignores the scale argument for ``1/sqrt(D)``,
    ``ignore_table`` reads every block of a sequence through its first table entry,
    ``identity_table`` reads block ``j`` for entry ``j`` (the table ignored altogether)."""

    def kernel(*args: Any) -> None:
        if layout.startswith("combined"):
            q, kv, table, lens, out, scale = args
            k_cache, v_cache = _caches(layout, kv, kv, raw=read_as_nhd)
        else:
            q, k, v, table, lens, out, scale = args
            k_cache, v_cache = _caches(layout, k, v, raw=read_as_nhd)
        heads, kv_heads = q.shape[1], k_cache.shape[2]
        for b in range(q.shape[0]):
            length = int(lens[b]) + extra_tokens
            # Wrong: every block of the sequence read from its first table entry.
            rows = table[:, :1].expand(table.shape) if ignore_table else table
            if identity_table:  # Wrong: block j of the cache for entry j.
                rows = (torch.arange(table.shape[1]) % k_cache.shape[0]).expand(table.shape)
            keys = _gather(k_cache, rows, b, length).float()
            values = _gather(v_cache, rows, b, length).float()
            keys = keys.repeat_interleave(heads // kv_heads, dim=1).transpose(0, 1)
            values = values.repeat_interleave(heads // kv_heads, dim=1).transpose(0, 1)
            query = q[b].float().unsqueeze(1)  # [heads, 1, D]
            s = 1.0 / math.sqrt(q.shape[-1]) if fixed_scale else float(scale)
            o = F.scaled_dot_product_attention(query, keys, values, scale=s)
            _into(out[b], o.squeeze(1))

    return kernel


def packed_attention(
    *, causal: bool = True, one_sequence: bool = False, keys_at_query_offsets: bool = False
) -> Kernel:
    """Prefill attention over packed sequences with ``F.scaled_dot_product_attention`` per
    sequence, in fp32, the causal mask aligned at each sequence's end. Wrong with a flag:
    ``causal=False`` ignores causality, ``one_sequence`` attends across sequence boundaries
    (the whole packed tensor as one sequence), ``keys_at_query_offsets`` reads the keys and
    values through ``cu_seqlens_q`` (right only when the offsets are equal)."""

    def kernel(q: Any, k: Any, v: Any, cu_q: Any, cu_k: Any, out: Any, max_q: Any, max_k: Any, scale: Any) -> None:
        group = q.shape[1] // k.shape[1]
        bounds_q, bounds_k = cu_q.tolist(), cu_k.tolist()
        if keys_at_query_offsets:  # Wrong: the keys sliced like the queries.
            bounds_k = bounds_q
        if one_sequence:  # Wrong: every token attends over every key of the batch.
            bounds_q, bounds_k = [0, q.shape[0]], [0, k.shape[0]]
        assert int(max_q) == max(b - a for a, b in zip(bounds_q, bounds_q[1:])) or one_sequence
        for b in range(len(bounds_q) - 1):
            qs = q[bounds_q[b] : bounds_q[b + 1]].float().transpose(0, 1)  # [H, L_q, D]
            ks = k[bounds_k[b] : bounds_k[b + 1]].float().repeat_interleave(group, dim=1).transpose(0, 1)
            vs = v[bounds_k[b] : bounds_k[b + 1]].float().repeat_interleave(group, dim=1).transpose(0, 1)
            lq, lk = qs.shape[1], ks.shape[1]
            if lq == 0:
                continue
            mask = None
            if causal:
                mask = torch.ones(lq, lk, dtype=torch.bool).tril(diagonal=lk - lq)
            o = F.scaled_dot_product_attention(qs, ks, vs, attn_mask=mask, scale=float(scale))
            _into(out[bounds_q[b] : bounds_q[b + 1]], o.nan_to_num(0.0).transpose(0, 1))

    return kernel


def mean_accumulating_in_bf16(x: Any, mean: Any) -> None:
    """The row mean summed element by element in bf16: the rounding error grows with the row."""
    acc = torch.zeros(x.shape[0], dtype=torch.bfloat16)
    for j in range(x.shape[1]):
        acc = acc + x[:, j]
    _into(mean, acc.float() / x.shape[1])


def matmul_accumulating_in_bf16(a: Any, b: Any, c: Any, *, accumulate: bool = False) -> None:
    """``a @ b`` (plus ``c`` when ``accumulate``) one rank-1 product at a time, each product
    and the running sum in bf16."""
    acc = c.to(torch.bfloat16) if accumulate else torch.zeros(a.shape[0], b.shape[1], dtype=torch.bfloat16)
    for j in range(a.shape[1]):
        acc = acc + (a[:, j : j + 1] * b[j : j + 1, :]).to(torch.bfloat16)
    _into(c, acc.float())


def _rms_norm(x: Any, weight: Any, y: Any) -> None:
    _into(y, F.rms_norm(x.float(), (x.shape[-1],), weight.float(), eps=1e-6))


def _layer_norm(x: Any, weight: Any, bias: Any, y: Any, eps: Any) -> None:
    _into(y, F.layer_norm(x.float(), (x.shape[-1],), weight.float(), bias.float(), eps=float(eps)))


def _matmul_acc(a: Any, b: Any, c: Any) -> None:
    _into(c, c + torch.matmul(a, b))


def _scale(x: Any, y: Any, scale: Any) -> None:
    _into(y, x.float() * float(scale))


def rotate_half(x: Any) -> Any:
    """GPT-NeoX's (and Hugging Face Llama's) rotation of the halves: ``[-x2, x1]``."""
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat((-x2, x1), dim=-1)


def rope_neox(x: Any, cos: Any, sin: Any) -> Any:
    """``x * cos + rotate_half(x) * sin`` over the whole head, the tables repeated per half."""
    c = torch.cat((cos, cos), dim=-1)[:, None, :]
    s = torch.cat((sin, sin), dim=-1)[:, None, :]
    return x * c + rotate_half(x) * s


def rope_complex(x: Any, cos: Any, sin: Any) -> Any:
    """Meta Llama's form: adjacent pairs as complex numbers times ``cos + i sin``, the
    first ``2 * cos.shape[-1]`` entries of each head; the rest as they were."""
    r = 2 * cos.shape[-1]
    pairs = torch.view_as_complex(x[..., :r].reshape(*x.shape[:-1], r // 2, 2).contiguous())
    rotated = torch.view_as_real(pairs * torch.complex(cos, sin)[:, None, :]).flatten(-2)
    return torch.cat((rotated, x[..., r:]), dim=-1)


def _rope_neox(q: Any, k: Any, cos: Any, sin: Any, q_out: Any, k_out: Any) -> None:
    _into(q_out, rope_neox(q.float(), cos, sin))
    _into(k_out, rope_neox(k.float(), cos, sin))


def _rope_gptj_in_place(q: Any, k: Any, cos: Any, sin: Any) -> None:
    rotated = rope_complex(q, cos, sin), rope_complex(k, cos, sin)
    _into(q, rotated[0])
    _into(k, rotated[1])


def rope_halves_where_adjacent(q: Any, k: Any, cos: Any, sin: Any) -> None:
    """Wrong: GPT-NeoX's pairing (the halves) for a family that pairs adjacent entries."""
    r = 2 * cos.shape[-1]
    for x in (q, k):
        x[..., :r] = rope_neox(x[..., :r], cos, sin)


def rope_whole_head(q: Any, k: Any, cos: Any, sin: Any) -> None:
    """Wrong: the whole head rotated where only the first ``rotary_dim`` entries are."""
    c, s = torch.cat((cos, cos), dim=-1), torch.cat((sin, sin), dim=-1)
    for x in (q, k):
        x.copy_(rope_complex(x, c, s))


def rope_inverse(q: Any, k: Any, cos: Any, sin: Any, q_out: Any, k_out: Any) -> None:
    """Wrong: sin negated, the inverse rotation."""
    _rope_neox(q, k, cos, -sin, q_out, k_out)


#: A correct kernel of each family of the fixture catalog (but the NZ and fp4 ones).
CORRECT: dict[str, Kernel] = {
    "q_add_fp32": lambda a, b, out: _into(out, torch.add(a, b)),
    "q_div_bf16": lambda a, b, out: _into(out, torch.div(a.float(), b.float())),
    "q_sub_anonymous_fp32": lambda a, b, out: _into(out, torch.sub(a, b)),
    "q_silu_bf16": lambda x, y: _into(y, F.silu(x.float())),
    "q_gelu_fp32": lambda x, y: _into(y, F.gelu(x)),
    "q_cast_fp32_bf16": lambda x, y: _into(y, x),
    "q_dequant_fp8_bf16": lambda x, y: _into(y, x),
    "q_relu_fp8": lambda x, y: _into(y, torch.relu(x.float())),
    "q_rsqrt_fp16": lambda x, y: _into(y, torch.rsqrt(x.float())),
    "q_sum_fp32": lambda x, total: _into(total, torch.sum(x, dim=1, keepdim=True)),
    "q_mean_bf16": lambda x, mean: _into(mean, torch.mean(x.float(), dim=1)),
    "q_amax_fp16": lambda x, peak: _into(peak, torch.amax(x, dim=0)),
    "q_softmax_fp32": lambda scores, probs: _into(probs, torch.softmax(scores, dim=1)),
    "q_rms_norm_bf16": _rms_norm,
    "q_layer_norm_fp32": _layer_norm,
    "q_matmul_bf16": lambda a, b, c: _into(c, torch.matmul(a.float(), b.float())),
    "q_matmul_acc_fp32": _matmul_acc,
    "q_paged_attention_bf16": paged_attention(),
    "q_paged_attention_hnd_bf16": paged_attention(layout="hnd"),
    "q_paged_attention_x_packed_bf16": paged_attention(layout="x_packed"),
    "q_paged_attention_combined_nhd_bf16": paged_attention(layout="combined_nhd"),
    "q_paged_attention_combined_hnd_bf16": paged_attention(layout="combined_hnd"),
    "q_scale_custom": _scale,
    "q_packed_attention_bf16": packed_attention(),
    "q_packed_attention_kv_fp32": packed_attention(),
    "q_rope_neox_bf16": _rope_neox,
    "q_rope_gptj_partial_fp32": _rope_gptj_in_place,
    "q_linear_bf16": lambda x, w, b, y: _into(y, F.linear(x.float(), w.float(), b.float())),
    "q_linear_kn_fp32": lambda x, w, y: _into(y, x @ w),
    "q_dense_attention_bf16": lambda q, k, v, o: _into(
        o,
        F.scaled_dot_product_attention(
            q.float(), k.float(), v.float(), is_causal=True, scale=32**-0.5, enable_gqa=True
        ),
    ),
    "q_gelu_tanh_fp32": lambda x, y: _into(y, F.gelu(x, approximate="tanh")),
    "q_linear_experts_bf16": lambda x, w, b, y: _into(
        y, torch.baddbmm(b.float().unsqueeze(1), x.float(), w.float().transpose(1, 2))
    ),
}
