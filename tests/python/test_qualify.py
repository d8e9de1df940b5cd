"""``kfam.torch.reference`` and ``kfam.qualify`` over the fixture catalog tests/qualify/manifest,
which declares a family of every checked operation kind (docs/qualify.md). Run by
``codegen/tests/python.rs`` (``qualification``) against the package generated for that catalog.
"""

from __future__ import annotations

import ctypes
import dataclasses
import math
import pathlib
import shutil
import subprocess
import tomllib
import warnings
from collections.abc import Callable

import pytest
import torch
import torch.nn.functional as F

import kfam
import kfam.torch as kt
from qualify_kernels import (
    CORRECT,
    matmul_accumulating_in_bf16,
    mean_accumulating_in_bf16,
    packed_attention,
    paged_attention,
    rope_complex,
    rope_halves_where_adjacent,
    rope_inverse,
    rope_neox,
    rope_whole_head,
)

#: Every kind of the fixture, and the families that declare it.
KINDS = {f.operation.kind for f in kfam.FAMILIES}


def test_the_fixture_declares_every_kind() -> None:
    assert KINDS == set(kfam.OperationKind)


# ---------------------------------------------------------------- reference semantics


def _inputs(family: kfam.Family, seed: int = 7) -> list[object]:
    """Random arguments of the family's first few cases, from the run's own sampler."""
    from kfam_runtime._draw import draw as _draw

    return _draw(family, seed, 5).args


def _reference_outputs(family: kfam.Family, args: list[object]) -> list[object]:
    out = [a.clone() if isinstance(a, torch.Tensor) else a for a in args]
    kt.reference(family)(*out)
    return out


def _wide(t: object) -> torch.Tensor:
    assert isinstance(t, torch.Tensor)
    return t.to(torch.float64)


#: torch's own operator for each family, computed in float64 from the same inputs.
TORCH_OPS = {
    "q_add_fp32": lambda a: {2: torch.add(_wide(a[0]), _wide(a[1]))},
    "q_div_bf16": lambda a: {2: torch.div(_wide(a[0]), _wide(a[1]))},
    "q_sub_anonymous_fp32": lambda a: {2: torch.sub(_wide(a[0]), _wide(a[1]))},
    "q_silu_bf16": lambda a: {1: F.silu(_wide(a[0]))},
    "q_gelu_fp32": lambda a: {1: F.gelu(_wide(a[0]))},
    "q_cast_fp32_bf16": lambda a: {1: a[0]},
    "q_dequant_fp8_bf16": lambda a: {1: a[0]},
    "q_relu_fp8": lambda a: {1: torch.relu(_wide(a[0]))},
    "q_rsqrt_fp16": lambda a: {1: torch.rsqrt(_wide(a[0]))},
    "q_sum_fp32": lambda a: {1: torch.sum(_wide(a[0]), dim=1, keepdim=True)},
    "q_mean_bf16": lambda a: {1: torch.mean(_wide(a[0]), dim=1)},
    "q_amax_fp16": lambda a: {1: torch.amax(_wide(a[0]), dim=0)},
    "q_softmax_fp32": lambda a: {1: torch.softmax(_wide(a[0]), dim=1)},
    "q_rms_norm_bf16": lambda a: {
        2: F.rms_norm(_wide(a[0]), (a[0].shape[-1],), _wide(a[1]), eps=1e-6)  # type: ignore[union-attr]
    },
    "q_layer_norm_fp32": lambda a: {
        3: F.layer_norm(
            _wide(a[0]), (a[0].shape[-1],), _wide(a[1]), _wide(a[2]), eps=a[4]  # type: ignore[union-attr]
        )
    },
    "q_matmul_bf16": lambda a: {2: torch.matmul(_wide(a[0]), _wide(a[1]))},
    "q_matmul_acc_fp32": lambda a: {2: _wide(a[2]) + torch.matmul(_wide(a[0]), _wide(a[1]))},
    "q_linear_bf16": lambda a: {3: F.linear(_wide(a[0]), _wide(a[1]), _wide(a[2]))},
    "q_linear_kn_fp32": lambda a: {2: torch.matmul(_wide(a[0]), _wide(a[1]))},
    "q_dense_attention_bf16": lambda a: {
        3: F.scaled_dot_product_attention(
            _wide(a[0]), _wide(a[1]), _wide(a[2]), is_causal=True, scale=32**-0.5, enable_gqa=True
        )
    },
    "q_gelu_tanh_fp32": lambda a: {1: F.gelu(_wide(a[0]), approximate="tanh")},
    "q_linear_experts_bf16": lambda a: {
        3: torch.baddbmm(
            _wide(a[2]).unsqueeze(1), _wide(a[0]), _wide(a[1]).transpose(1, 2)
        )
    },
}


@pytest.mark.parametrize("name", sorted(TORCH_OPS))
def test_the_reference_is_torchs_own_operator(name: str) -> None:
    family = kfam.family(name)
    args = _inputs(family)
    got = _reference_outputs(family, args)
    for index, want in TORCH_OPS[name](args).items():
        out = got[index]
        assert isinstance(out, torch.Tensor) and isinstance(want, torch.Tensor)
        # Rounded once into the output's dtype, as the reference does.
        expected = want.to(out.dtype)
        torch.testing.assert_close(out, expected, rtol=0, atol=0, equal_nan=True)


def _as_nhd(layout: str, args: list[object]) -> list[object]:
    """``args`` of a family with caches in ``layout``, the caches as NHD tensors
    ``[blocks, block_size, kv_heads, D]``, indexed token by token (not through views of the
    layout), so that the check does not repeat the reference's gather."""
    if layout.startswith("combined"):
        q, kv, *rest = args
        assert isinstance(kv, torch.Tensor)
        k, v = kv[:, 0], kv[:, 1]
    else:
        q, k, v, *rest = args
    assert isinstance(k, torch.Tensor) and isinstance(v, torch.Tensor)
    blocks = k.shape[0]
    if layout in ("hnd", "combined_hnd"):
        heads, size, dim = k.shape[1], k.shape[2], k.shape[3]
    elif layout == "x_packed":
        heads, dim, size = v.shape[1], v.shape[2], v.shape[3]
    else:
        size, heads, dim = k.shape[1], k.shape[2], k.shape[3]
    x = k.shape[4] if layout == "x_packed" else 1
    nk = torch.empty(blocks, size, heads, dim, dtype=k.dtype)
    nv = torch.empty(blocks, size, heads, dim, dtype=v.dtype)
    for t in range(size):
        for h in range(heads):
            if layout in ("hnd", "combined_hnd"):
                nk[:, t, h], nv[:, t, h] = k[:, h, t], v[:, h, t]
            elif layout == "x_packed":
                for d in range(dim):
                    nk[:, t, h, d] = k[:, h, d // x, t, d % x]
                nv[:, t, h] = v[:, h, :, t]
            else:
                nk[:, t, h], nv[:, t, h] = k[:, t, h], v[:, t, h]
    return [q, nk, nv, *rest]


#: Two formulations of RoPE other than the reference's, in float64 from the same inputs:
#: GPT-NeoX's ``rotate_half`` over separate outputs, and Meta Llama's complex product in
#: place over the first half of each head (the rest untouched).
ROPE_FORMS = {
    "q_rope_neox_bf16": lambda a: {
        4: rope_neox(_wide(a[0]), _wide(a[2]), _wide(a[3])),
        5: rope_neox(_wide(a[1]), _wide(a[2]), _wide(a[3])),
    },
    "q_rope_gptj_partial_fp32": lambda a: {
        0: rope_complex(_wide(a[0]), _wide(a[2]), _wide(a[3])),
        1: rope_complex(_wide(a[1]), _wide(a[2]), _wide(a[3])),
    },
}


@pytest.mark.parametrize("name", sorted(ROPE_FORMS))
def test_the_rope_reference_is_pytorchs_usual_formulation(name: str) -> None:
    from kfam_runtime._draw import draw as _draw

    family = kfam.family(name)
    for case in range(4):
        args = _draw(family, 11, case).args
        got = _reference_outputs(family, args)
        for index, want in ROPE_FORMS[name](args).items():
            out = got[index]
            assert isinstance(out, torch.Tensor)
            torch.testing.assert_close(out, want.to(out.dtype), rtol=0, atol=0)


@pytest.mark.parametrize("layout", ["nhd", "hnd", "x_packed", "combined_nhd", "combined_hnd"])
def test_the_paged_attention_reference_is_sdpa_over_the_gathered_cache(layout: str) -> None:
    name = "q_paged_attention_bf16" if layout == "nhd" else f"q_paged_attention_{layout}_bf16"
    family = kfam.family(name)
    assert family.operation.layout.spelling == layout  # type: ignore[union-attr]
    for case in range(6):
        from kfam_runtime._draw import draw as _draw

        args = _draw(family, 3, case).args
        got = _reference_outputs(family, args)
        q, k_cache, v_cache, table, lens, _, scale = _as_nhd(layout, list(args))
        assert isinstance(q, torch.Tensor) and isinstance(k_cache, torch.Tensor)
        assert isinstance(v_cache, torch.Tensor) and isinstance(table, torch.Tensor)
        assert isinstance(lens, torch.Tensor) and isinstance(scale, float)
        block_size = k_cache.shape[1]
        want = torch.empty(q.shape, dtype=torch.float64)
        for b in range(q.shape[0]):
            n = int(lens[b])
            blocks = table[b, : math.ceil(n / block_size)].long()
            keys = k_cache[blocks].flatten(0, 1)[:n].double().transpose(0, 1)  # [H_kv, n, D]
            values = v_cache[blocks].flatten(0, 1)[:n].double().transpose(0, 1)
            o = F.scaled_dot_product_attention(
                q[b].double().unsqueeze(1), keys, values, scale=scale, enable_gqa=True
            )
            want[b] = o.squeeze(1)
        out = got[family.operation.out]  # type: ignore[union-attr]
        assert isinstance(out, torch.Tensor)
        torch.testing.assert_close(out.double(), want.to(out.dtype).double(), rtol=0, atol=2**-8)


@pytest.mark.parametrize("name", ["q_packed_attention_bf16", "q_packed_attention_kv_fp32"])
def test_the_packed_attention_reference_is_sdpa_per_sequence(name: str) -> None:
    from kfam_runtime._draw import draw as _draw

    family = kfam.family(name)
    op = family.operation
    assert isinstance(op, kfam.PackedAttentionPrefill) and op.causal
    for case in range(6):
        args = _draw(family, 4, case).args
        got = _reference_outputs(family, args)[op.out]
        q, k, v, cu_q, cu_k = (args[i] for i in (op.query, op.key, op.value, op.cu_seqlens_q, op.cu_seqlens_k))
        scale = args[op.scale.param] if op.scale.param is not None else op.scale.constant
        assert isinstance(q, torch.Tensor) and isinstance(k, torch.Tensor) and isinstance(v, torch.Tensor)
        assert isinstance(cu_q, torch.Tensor) and isinstance(cu_k, torch.Tensor) and isinstance(got, torch.Tensor)
        assert isinstance(scale, float)
        want = torch.zeros(q.shape, dtype=torch.float64)
        for b in range(cu_q.shape[0] - 1):
            (q0, q1), (k0, k1) = cu_q[b : b + 2].tolist(), cu_k[b : b + 2].tolist()
            lq, lk = q1 - q0, k1 - k0
            if lq == 0 or lk == 0:
                continue
            # PyTorch's own lower-right causal bias: query i sees keys up to i + lk - lq.
            # Its queries that see no key are NaN (PyTorch warns); the operation's are 0.
            from torch.nn.attention.bias import causal_lower_right

            with warnings.catch_warnings():
                warnings.filterwarnings("ignore", "Lower right causal bias", UserWarning)
                o = F.scaled_dot_product_attention(
                    q[q0:q1].double().transpose(0, 1),
                    k[k0:k1].double().transpose(0, 1),
                    v[k0:k1].double().transpose(0, 1),
                    attn_mask=causal_lower_right(lq, lk),
                    scale=scale,
                    enable_gqa=True,
                )
            want[q0:q1] = o.transpose(0, 1).nan_to_num(0.0)
        torch.testing.assert_close(got.double(), want.to(got.dtype).double(), rtol=0, atol=2**-7)


def test_packed_attention_draws_ragged_sequences_with_one_token_and_the_longest() -> None:
    from kfam_runtime._draw import draw as _draw

    family = kfam.family("q_packed_attention_bf16")
    op = family.operation
    assert isinstance(op, kfam.PackedAttentionPrefill)
    patterns: set[str] = set()
    keys_differ = 0
    for case in range(24):
        c = _draw(family, 0, case)
        cu_q, cu_k = c.args[op.cu_seqlens_q], c.args[op.cu_seqlens_k]
        assert isinstance(cu_q, torch.Tensor) and isinstance(cu_k, torch.Tensor)
        assert cu_q.dtype == torch.int32 and cu_k.dtype == torch.int32
        # Two offsets tensors: the keys' lengths are drawn apart from the queries'.
        keys_differ += not torch.equal(cu_q, cu_k)
        total, count = c.symbols["tokens"], c.symbols["seqs_plus_one"] - 1
        offsets = cu_q.tolist()
        lens = [b - a for a, b in zip(offsets, offsets[1:])]
        assert offsets[0] == 0 and offsets[-1] == total and len(lens) == count
        assert cu_k[0] == 0 and cu_k[-1] == total and cu_k.shape == cu_q.shape
        assert all(n >= (1 if total >= count else 0) for n in lens)
        assert c.args[op.max_seqlen_q] == max(lens)
        if count >= 2 and total > count:
            if 1 in lens:
                patterns.add("one token")
            if max(lens) == total - (count - 1):
                patterns.add("the longest")
            if len(set(lens)) > 2:
                patterns.add("ragged")
    assert patterns == {"one token", "the longest", "ragged"}, patterns
    assert keys_differ > 12, keys_differ


# ---------------------------------------------------------------- qualification


@pytest.mark.parametrize("name", sorted(CORRECT))
def test_a_correct_kernel_qualifies(name: str) -> None:
    family = kfam.family(name)
    custom = CORRECT[name] if isinstance(family.operation, kfam.Custom) else None
    q = kfam.qualify(family, CORRECT[name], cases=12, reference=custom)
    ev = q.evidence
    assert ev.tool == "kfam.qualify" and ev.cases == 12 and ev.seed == 0
    # The evidence's fields, read through the run's result.
    assert (q.tool, q.versions, q.cases, q.seed, q.shapes, q.errors, q.date, q.hardware) == (
        ev.tool, ev.versions, ev.cases, ev.seed, ev.shapes, ev.errors, ev.date, ev.hardware
    )
    for line in q.shapes:  # distinct values, ascending
        values = [int(v) for v in line.split(" = ")[1].split(", ")]
        assert values == sorted(set(values))
    if not family.symbols:
        assert q.shapes == ()
    written = [p.index for p in family.params if p.is_tensor and p.direction is not kfam.Direction.IN]
    assert [e.output for e in ev.errors] == written
    assert all(math.isfinite(e.max_abs) and e.max_abs >= 0 for e in ev.errors)
    assert [s.split(" = ")[0] for s in ev.shapes] == [s.name for s in family.symbols]
    assert any(v.startswith("torch ") for v in ev.versions)
    # The symbols' edges are covered: both ends of each declared range.
    for s in family.symbols:
        seen = {int(v) for v in next(x for x in ev.shapes if x.startswith(s.name + " ")).split(" = ")[1].split(", ")}
        assert max(s.min, 1) in seen
        if s.max is not None:
            assert s.max in seen


def test_evidence_is_toml_that_reads_back() -> None:
    family = kfam.family("q_softmax_fp32")
    q = kfam.qualify(family, CORRECT["q_softmax_fp32"], cases=4, seed=11, note='"quoted" \\ note',
                     artifact_sha256="ab" * 32)
    data = tomllib.loads(q.receipt_toml("cpu", "example.v1", "cpu/q_softmax_fp32.so"))
    r = data["receipts"][0]
    assert r["sha256"] == "ab" * 32 and r["profile"] == "cpu"
    ev = r["evidence"]
    assert ev["tool"] == "kfam.qualify" and ev["cases"] == 4 and ev["seed"] == 11
    assert ev["note"] == '"quoted" \\ note'
    assert ev["versions"] == list(q.evidence.versions)
    assert ev["shapes"] == list(q.evidence.shapes)
    assert ev["errors"] == [
        {"output": "probs", "max_abs": e.max_abs, "max_rel": e.max_rel} for e in q.evidence.errors
    ]
    # The table alone, header included, for a receipt that exists.
    assert tomllib.loads(q.to_toml()) == {"receipts": {"evidence": ev}}
    assert q.to_toml().startswith("[receipts.evidence]\ndate = ")



def test_determinism_is_measured_by_running_each_case_twice() -> None:
    family = kfam.family("q_silu_bf16")
    q = kfam.qualify(family, CORRECT["q_silu_bf16"], cases=4)
    assert (q.runs, q.deterministic, q.run_max_abs) == (2, True, 0.0)
    ev = tomllib.loads(q.to_toml())["receipts"]["evidence"]
    assert (ev["runs"], ev["deterministic"]) == (2, True) and "run_max_abs" not in ev

    # Stochastic rounding into bf16: within the tolerance every run, never the same bits twice.
    def random_rounding(x: torch.Tensor, y: torch.Tensor) -> None:
        exact = F.silu(x.float())
        bits = exact.view(torch.int32) + torch.randint(0, 1 << 16, exact.shape, dtype=torch.int32)
        y.copy_((bits & ~0xFFFF).view(torch.float32).to(torch.bfloat16))

    calls = 0

    def counted(x: torch.Tensor, y: torch.Tensor) -> None:
        nonlocal calls
        calls += 1
        random_rounding(x, y)

    q = kfam.qualify(family, counted, cases=4, runs=3)
    assert calls == 12
    assert (q.runs, q.deterministic) == (3, False)
    assert 0.0 < q.run_max_abs <= max(e.max_abs for e in q.errors) * 2
    ev = tomllib.loads(q.to_toml())["receipts"]["evidence"]
    assert (ev["runs"], ev["deterministic"], ev["run_max_abs"]) == (3, False, q.run_max_abs)

    # One run measures nothing: the evidence says so.
    q = kfam.qualify(family, random_rounding, cases=2, runs=1)
    assert (q.runs, q.deterministic, q.run_max_abs) == (1, False, 0.0)
    ev = tomllib.loads(q.to_toml())["receipts"]["evidence"]
    assert ev["runs"] == 1 and "deterministic" not in ev
    with pytest.raises(ValueError, match="runs"):
        kfam.qualify(family, random_rounding, runs=0)


def test_every_run_of_a_case_must_pass() -> None:
    family = kfam.family("q_silu_bf16")
    calls = 0

    def wrong_the_second_time(x: torch.Tensor, y: torch.Tensor) -> None:
        nonlocal calls
        calls += 1
        y.copy_(F.silu(x.float()) * (2 if calls == 2 else 1))

    with pytest.raises(kt.QualificationError) as e:
        kfam.qualify(family, wrong_the_second_time, cases=4)
    assert e.value.kind == "output" and e.value.case == 0
    assert str(e.value).split(" in case ")[0].endswith("(run 2 of 2)"), str(e.value)


WRONG = {
    "context length one token too long": ("q_paged_attention_bf16", paged_attention(extra_tokens=1)),
    "context length one token too short": ("q_paged_attention_bf16", paged_attention(extra_tokens=-1)),
    "the scale argument ignored": ("q_paged_attention_bf16", paged_attention(fixed_scale=True)),
    "block-table entries ignored": ("q_paged_attention_bf16", paged_attention(ignore_table=True)),
    "the block table ignored": ("q_paged_attention_bf16", paged_attention(identity_table=True)),
    "the 5-D key cache read as NHD": (
        "q_paged_attention_x_packed_bf16",
        paged_attention(layout="x_packed", read_as_nhd=True),
    ),
    "a prefill kernel ignoring causality": ("q_packed_attention_bf16", packed_attention(causal=False)),
    "a prefill kernel reading keys through the query offsets": (
        "q_packed_attention_bf16",
        packed_attention(keys_at_query_offsets=True),
    ),
    "a prefill kernel attending across sequences": (
        "q_packed_attention_bf16",
        packed_attention(one_sequence=True),
    ),
    "an HND cache read as NHD": ("q_paged_attention_hnd_bf16", paged_attention(layout="hnd", read_as_nhd=True)),
    "bf16 matmul accumulation": ("q_matmul_bf16", matmul_accumulating_in_bf16),
    "bf16 accumulation over k = 1024": ("q_matmul_acc_fp32", lambda a, b, c: matmul_accumulating_in_bf16(a, b, c, accumulate=True)),
    "bf16 accumulation": ("q_mean_bf16", mean_accumulating_in_bf16),
    "an output left unwritten": ("q_silu_bf16", lambda x, y: None),
    "RoPE pairing the halves where the family pairs adjacent entries": (
        "q_rope_gptj_partial_fp32",
        rope_halves_where_adjacent,
    ),
    "RoPE rotating the whole head of a partial rotation": ("q_rope_gptj_partial_fp32", rope_whole_head),
    "RoPE with sin negated (the inverse rotation)": ("q_rope_neox_bf16", rope_inverse),
}


@pytest.mark.parametrize("mistake", sorted(WRONG))
def test_a_wrong_kernel_is_caught_reproducibly(mistake: str) -> None:
    name, kernel = WRONG[mistake]
    family = kfam.family(name)
    with pytest.raises(kt.QualificationError) as caught:
        kfam.qualify(family, kernel, cases=16, seed=5)
    e = caught.value
    assert e.family == name and e.seed == 5 and e.output is not None
    message = str(e)
    assert f"case {e.case} (seed 5" in message
    # The replay names the catalog's own `qualify`.
    assert f"replay: {kfam.__name__}.qualify(family, kernel, seed=5, case={e.case})" in message
    for sym, value in e.symbols.items():
        assert f"{sym}={value}" in message
    for param, shape in e.shapes.items():
        assert f"{param}{list(shape)}" in message
    # The worst error against the tolerance, and the first failing element.
    assert e.tolerance is not None and e.max_abs is not None and e.max_rel is not None
    assert e.max_abs > e.tolerance.atol and e.element is not None
    assert f"atol {e.tolerance.atol}, rtol {e.tolerance.rtol}" in message
    # The reported case alone fails again, with the same report.
    with pytest.raises(kt.QualificationError) as again:
        kfam.qualify(family, kernel, seed=e.seed, case=e.case)
    assert str(again.value) == message


def _silu_then(after: object) -> object:
    """The correct SiLU kernel, then ``after(x, y)``: what a buggy kernel does besides."""

    def kernel(x: torch.Tensor, y: torch.Tensor) -> None:
        CORRECT["q_silu_bf16"](x, y)
        after(x, y)  # type: ignore[operator]

    return kernel


def _beyond(t: torch.Tensor, at: int) -> torch.Tensor:
    """One element of ``t``'s storage at ``at`` elements from its first (negative: before it),
    as a tail-tile or head bug writes it."""
    return t.as_strided((1,), (1,), t.storage_offset() + at)


def test_writes_outside_a_tensor_are_caught_by_its_guard() -> None:
    family = kfam.family("q_silu_bf16")
    for at, side, offset in [(-1, "before", 0), ("end", "after", 0), ("end+3", "after", 6)]:
        def write(x: torch.Tensor, y: torch.Tensor, at: object = at) -> None:
            n = y.numel()
            k = {"end": n, "end+3": n + 3}.get(at, at)  # type: ignore[call-overload]
            _beyond(y, k).fill_(1.0)

        with pytest.raises(kt.QualificationError) as caught:
            kfam.qualify(family, _silu_then(write), cases=2, seed=1)
        e = caught.value
        assert (e.kind, e.tensor, e.side, e.offset) == ("guard", "y", side, offset), str(e)
        assert f"byte(s) {side} `y` (guard {kt.GUARD_BYTES} bytes each side)" in str(e)
        assert f"replay: {kfam.__name__}.qualify(family, kernel, seed=1, case={e.case})" in str(e)
    # A guard of 0 gives each tensor no margin; the size is rounded up to a multiple of 64.
    assert kfam.qualify(family, CORRECT["q_silu_bf16"], cases=2, guard=0).evidence.cases == 2
    with pytest.raises(kt.QualificationError, match="guard 64 bytes each side"):
        kfam.qualify(family, _silu_then(lambda x, y: _beyond(y, -1).fill_(1.0)), cases=1, guard=1)
    with pytest.raises(ValueError, match="guard is a number of bytes"):
        kfam.qualify(family, CORRECT["q_silu_bf16"], guard=-1)


def test_an_input_the_kernel_changed_fails_the_case() -> None:
    family = kfam.family("q_silu_bf16")
    # Scaling the input in place after a correct output: the output alone would pass.
    with pytest.raises(kt.QualificationError) as caught:
        kfam.qualify(family, _silu_then(lambda x, y: x.mul_(0.5)), cases=2, seed=3)
    e = caught.value
    assert (e.kind, e.tensor) == ("input", "x") and e.element is not None
    assert "the kernel changed its input `x`: at" in str(e) and "bitwise unchanged" in str(e)
    # One element changed by one bit is named.
    def flip(x: torch.Tensor, y: torch.Tensor) -> None:
        flat = x.view(-1).view(torch.int16)
        flat[5] ^= 1

    with pytest.raises(kt.QualificationError) as caught:
        kfam.qualify(family, _silu_then(flip), cases=1)
    assert caught.value.element is not None and "(1 element(s) changed" in str(caught.value)
    # The replay fails the same way.
    with pytest.raises(kt.QualificationError) as again:
        kfam.qualify(family, _silu_then(flip), seed=0, case=caught.value.case)
    assert str(again.value) == str(caught.value)


# ---------------------------------------------------------------- native kernels

#: A C SiLU kernel over bf16 bits, with two classic mistakes behind macros (docs/qualify.md,
#: "Native kernels").
NATIVE_SILU = pathlib.Path(__file__).resolve().parents[1] / "qualify" / "native" / "silu_bf16.c"


def _native_silu(
    tmp_path: pathlib.Path, *macros: str
) -> Callable[[torch.Tensor, torch.Tensor], None]:
    """``silu_bf16.c`` compiled with ``-D`` each of ``macros`` into a shared library in
    ``tmp_path``, loaded with ctypes and wrapped as a backend's launcher would: the tensors'
    data pointers and the element count."""
    gcc = shutil.which("gcc")
    if gcc is None:
        pytest.fail(f"the native-kernel tests compile {NATIVE_SILU} with gcc, not found on PATH")
    library = tmp_path / f"silu_bf16{''.join('-' + m for m in macros)}.so"
    build = subprocess.run(
        [gcc, "-std=c11", "-Wall", "-Wextra", "-Werror", "-O2", "-shared", "-fPIC"]
        + [f"-D{m}" for m in macros]
        + [str(NATIVE_SILU), "-o", str(library), "-lm"],
        capture_output=True,
        text=True,
    )
    if build.returncode != 0:
        pytest.fail(f"gcc cannot compile {NATIVE_SILU} with {list(macros)}:\n{build.stderr}")
    silu = ctypes.CDLL(str(library)).silu_bf16
    silu.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64]
    silu.restype = None

    def kernel(x: torch.Tensor, y: torch.Tensor) -> None:
        # What the C side assumes, checked where the pointers leave Python.
        assert x.dtype == y.dtype == torch.bfloat16 and x.device.type == y.device.type == "cpu"
        assert x.is_contiguous() and y.is_contiguous() and x.numel() == y.numel()
        silu(x.data_ptr(), y.data_ptr(), x.numel())

    return kernel


def test_a_native_kernel_qualifies_through_its_data_pointers(tmp_path: pathlib.Path) -> None:
    family = kfam.family("q_silu_bf16")
    q = kfam.qualify(family, _native_silu(tmp_path), cases=8)
    assert q.cases == 8 and q.shapes[0].startswith("rows = 1, 2, ")
    # One error entry, for `y`, within bf16's tolerance: SiLU in float, rounded to bf16, is
    # the float64 reference's bf16 or its neighbour, one unit in the last place (<= 2**-7).
    tol = kt.DEFAULT_TOLERANCES[kfam.DType.BF16]
    [error] = q.errors
    assert family.params[error.output].name == "y"
    assert math.isfinite(error.max_abs) and 0 <= error.max_rel <= 2**-7 < tol.rtol, error


def test_a_native_tail_overrun_is_caught_by_the_guard(tmp_path: pathlib.Path) -> None:
    family = kfam.family("q_silu_bf16")
    # `i <= n`: `y[n]`, the two bytes just past `y`, hold SiLU of the bf16 read past `x`,
    # whose margin is poison, 0xA5A5 (about -2.9e-16); SiLU halves it: 0xA525. Stored little
    # endian, byte 0 of the margin becomes 0x25 and byte 1 stays 0xA5, the poison.
    kernel = _native_silu(tmp_path, "KFAM_TAIL_OVERRUN")
    with pytest.raises(kt.QualificationError) as caught:
        kfam.qualify(family, kernel, cases=8, seed=2)
    e = caught.value
    assert (e.kind, e.tensor, e.side, e.offset, e.case) == ("guard", "y", "after", 0, 0), str(e)
    assert e.output is None and e.element is None
    assert (
        f"the kernel wrote 1 byte(s) after `y` (guard {kt.GUARD_BYTES} bytes each side), "
        "the nearest 0 byte(s) from its end in case 0 (seed 2; rows=1; shapes x[1, 128], "
        f"y[1, 128]); replay: {kfam.__name__}.qualify(family, kernel, seed=2, case=0)"
    ) in str(e)
    with pytest.raises(kt.QualificationError) as again:
        kfam.qualify(family, kernel, seed=2, case=e.case)
    assert str(again.value) == str(e)
    # The bytes themselves, on the kernel alone: one element of poison in, 0xA525 past `y`.
    x = torch.full((2,), 0xA5A5 - 0x10000, dtype=torch.int16).view(torch.bfloat16)
    y = torch.zeros(2, dtype=torch.bfloat16)
    kernel(x[:1], y[:1])
    assert [int(b) & 0xFFFF for b in y.view(torch.int16)] == [0xA525, 0xA525]


def test_a_native_kernel_that_writes_its_input_fails_the_case(tmp_path: pathlib.Path) -> None:
    family = kfam.family("q_silu_bf16")
    # `y` is right; `x`, scaled by 0.5 in place, is not what it was: every element changed.
    kernel = _native_silu(tmp_path, "KFAM_WRITES_INPUT")
    with pytest.raises(kt.QualificationError) as caught:
        kfam.qualify(family, kernel, cases=8, seed=2)
    e = caught.value
    assert (e.kind, e.tensor, e.element, e.case) == ("input", "x", (0, 0), 0), str(e)
    assert e.side is None and e.offset is None and e.output is None
    assert "the kernel changed its input `x`: at [0, 0] it held " in str(e)
    assert "(128 element(s) changed; an `in` tensor must stay bitwise unchanged)" in str(e)
    with pytest.raises(kt.QualificationError) as again:
        kfam.qualify(family, kernel, seed=2, case=e.case)
    assert str(again.value) == str(e)


def test_paged_attention_draws_ragged_contexts_over_random_blocks() -> None:
    from kfam_runtime._draw import draw as _draw

    family = kfam.family("q_paged_attention_bf16")
    lens_seen: set[int] = set()
    for case in range(32):
        c = _draw(family, 0, case)
        table, lens = c.args[3], c.args[4]
        assert isinstance(table, torch.Tensor) and isinstance(lens, torch.Tensor)
        assert table.dtype == torch.int32 and lens.dtype == torch.int32
        capacity = table.shape[1] * 16
        assert all(1 <= int(n) <= capacity for n in lens)
        lens_seen.update(int(n) for n in lens)
        blocks = c.symbols["cache_blocks"]
        assert bool(((table >= 0) & (table < blocks)).all())
        if blocks >= table.numel():  # a permutation's slice: every entry a distinct block
            assert len(set(table.flatten().tolist())) == table.numel()
        if blocks > 1:  # never the identity
            assert not bool((table[0] == torch.arange(table.shape[1]) % blocks).all())
    assert 1 in lens_seen
    assert any(n % 16 != 0 for n in lens_seen) and any(n > 16 for n in lens_seen)


# ---------------------------------------------------------------- refusals


def test_refused_clearly() -> None:
    with pytest.raises(kt.ReferenceError, match="q_nz_matmul_bf16.*parameter 'w' is NZ"):
        kt.reference(kfam.family("q_nz_matmul_bf16"))
    with pytest.raises(kt.ReferenceError, match="q_nz_matmul_bf16.*parameter 'w' is NZ"):
        kfam.qualify(kfam.family("q_nz_matmul_bf16"), lambda a, b, c: None)
    fp4 = kfam.family("q_dequant_fp4_bf16")
    with pytest.raises(kt.ReferenceError, match="q_dequant_fp4_bf16.*parameter 'x' is fp4.*cannot compute"):
        kt.reference(fp4)
    with pytest.raises(kt.ReferenceError, match="parameter 'x' is fp4"):
        kfam.qualify(fp4, lambda x, y: None)
    # A custom reference does not make fp4 inputs drawable.
    custom_fp4 = dataclasses.replace(fp4, operation=kfam.Custom("dequantize"))
    with pytest.raises(kt.ReferenceError, match="parameter 'x' is fp4"):
        kfam.qualify(custom_fp4, lambda x, y: None, reference=lambda x, y: None)
    with pytest.raises(kt.ReferenceError, match="custom"):
        kfam.qualify(kfam.family("q_scale_custom"), CORRECT["q_scale_custom"])
    with pytest.raises(ValueError, match="derives its reference"):
        kt.reference(kfam.family("q_silu_bf16"), custom=CORRECT["q_silu_bf16"])
    with pytest.raises(ValueError, match="at least one case"):
        kfam.qualify(kfam.family("q_silu_bf16"), CORRECT["q_silu_bf16"], cases=0)


# ---------------------------------------------------------------- the tensor adapter


def test_tensor_arg_describes_a_real_tensor() -> None:
    family = kfam.family("q_add_fp32")
    a = torch.zeros(4, 64)
    arg = kt.tensor_arg(a, family.params[0])
    assert arg.dtype is kfam.DType.FP32 and arg.shape == (4, 64) and arg.strides == (64, 1)
    assert arg.storage_bytes == 4 * 64 * 4 and arg.format is kfam.StorageFormat.ND
    view = torch.zeros(64, 8).t()  # [8, 64], column-major
    args = [kt.tensor_arg(t, p) for t, p in zip((view, view.contiguous(), torch.zeros(8, 64)), family.params)]
    with pytest.raises(kfam.CallError) as refused:
        kfam.validate_call(family, args, [])
    assert refused.value.rule is kfam.CallRule.NOT_CONTIGUOUS
    nz = kfam.family("q_nz_matmul_bf16")
    assert kt.tensor_arg(torch.zeros(64, 32, dtype=torch.bfloat16), nz.params[1]).format is (
        kfam.StorageFormat.FRACTAL_NZ
    )
