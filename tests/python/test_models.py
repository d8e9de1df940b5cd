"""Routing model code nobody here wrote (docs/torch.md, "Routing a Hugging Face model"):
Hugging Face transformers' Llama, Qwen2 and GPT-2, built from small configs with random
weights in bf16 (never downloaded), compiled with the router over the model fixture catalog
``models`` (tests/route/models/manifest), which declares a family for every computation they
make. Run by codegen/tests/python.rs (``python::models``).

Each family is defined in the catalog's torch namespace with a CPU kernel that validates the
concrete call with ``validate_call`` (a routed node the runtime would refuse fails the test
there) and computes ``models.torch.reference``.
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

os.environ["HF_HUB_OFFLINE"] = "1"  # configs only: nothing is downloaded

import models
import models.torch as mt
import pytest
import torch
import torch._dynamo
from torch.library import Library
from transformers import (
    GPT2Config,
    GPT2LMHeadModel,
    LlamaConfig,
    LlamaForCausalLM,
    Qwen2Config,
    Qwen2ForCausalLM,
)

from kfam_runtime.route import Report, Router, router

#: The families the CPU kernels ran, in call order.
CALLS: list[str] = []

#: The end-to-end tolerance of bf16 logits: every routed family computes wide and rounds once,
#: where the model rounds each of its steps to bf16.
TOLERANCE = {"rtol": 0.02, "atol": 0.02}


def cpu_kernel(fam: models.Family) -> Callable[..., None]:
    ref = mt.reference(fam)

    def kernel(*args: Any) -> None:
        tensors = [mt.tensor_arg(a, p) for a, p in zip(args, fam.params) if p.is_tensor]
        scalars = [models.ScalarArg.of(a) for a, p in zip(args, fam.params) if not p.is_tensor]
        models.validate_call(fam, tensors, scalars)
        CALLS.append(fam.name)
        ref(*args)

    return kernel


@pytest.fixture(scope="module")
def ops() -> Iterator[dict[str, Any]]:
    lib = Library(models.CATALOG.torch_namespace, "FRAGMENT")
    found = {}
    for fam in models.FAMILIES:
        found[fam.name] = mt.define(lib, fam)
        lib.impl(fam.name, cpu_kernel(fam), "CPU")
    yield found
    lib._destroy()


@pytest.fixture(autouse=True)
def fresh() -> Iterator[None]:
    torch._dynamo.reset()
    CALLS.clear()
    yield
    torch._dynamo.reset()


def target(ops: dict[str, Any], backend: Any = "aot_eager") -> Router:
    return router(models.CATALOG, ops, models.Platform.NPU, models.ExecutionMode.SIM, backend=backend)


LLAMA = {
    "vocab_size": 256,
    "hidden_size": 64,
    "intermediate_size": 128,
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
}


def build(name: str) -> torch.nn.Module:
    """A model of the fixture's shapes, random weights (seeded), bf16, in eval mode. Its
    parameters keep ``requires_grad`` set, as every model's do."""
    torch.manual_seed(0)
    model: torch.nn.Module
    if name == "llama":
        model = LlamaForCausalLM(LlamaConfig(**LLAMA))
    elif name == "llama_eager":
        model = LlamaForCausalLM(LlamaConfig(**LLAMA, attn_implementation="eager"))
    elif name == "qwen2":
        model = Qwen2ForCausalLM(Qwen2Config(**LLAMA))
    elif name == "gpt2":
        model = GPT2LMHeadModel(GPT2Config(vocab_size=256, n_embd=64, n_layer=2, n_head=4))
    else:
        raise ValueError(name)
    return model.to(torch.bfloat16).eval()


def tokens(batch: int, seq: int) -> torch.Tensor:
    return torch.randint(0, 256, (batch, seq), generator=torch.Generator().manual_seed(seq))


def logits(model: Any, ids: torch.Tensor) -> torch.Tensor:
    out: torch.Tensor = model(ids, use_cache=False).logits
    return out


def check(report: Report, routed_calls: list[str]) -> None:
    """At least 99% of the graph's estimated FLOPs routed; every computation left on the
    default path listed with its reason; the routed families, and only they, ran."""
    text = str(report)
    print(text)
    assert report.share >= 0.99, text
    for d in report.refused:
        assert d.reason and str(d) in text, text
    for r in report.reasons():
        assert str(r) in text or not r.flops, text
    assert Counter(routed_calls) == Counter(d.routed.family for d in report.routed if d.routed), (
        routed_calls
    )


#: Forms each model writes that must reach one family each: (computes, form's node count).
FORMS = {
    "llama": {"rms_norm": 8, "rope": 14, "sdpa": 7},
    "llama_eager": {"rms_norm": 8, "rope": 14, "attention": 14},
    "qwen2": {"rms_norm": 8, "rope": 14, "sdpa": 7},
    "gpt2": {"gelu_tanh": 8, "addmm": 1, "layer_norm": 1},
}


@pytest.mark.parametrize("name", sorted(FORMS))
def test_a_model_routes_with_torch_compile(ops: dict[str, Any], name: str) -> None:
    model, r = build(name), target(ops)
    ids = tokens(2, 12)
    with torch.no_grad():
        want = logits(model, ids)
        got = logits(torch.compile(model, backend=r, fullgraph=True), ids)
    report = r.reports[-1]
    check(report, CALLS)
    for computes, count in FORMS[name].items():
        forms = [d for d in report.routed if d.computes == computes]
        assert forms and all(len(d.nodes) == count for d in forms), (computes, str(report))
    torch.testing.assert_close(got, want, **TOLERANCE)


def test_a_model_routes_under_inference_mode(ops: dict[str, Any]) -> None:
    model, r = build("llama"), target(ops)
    assert all(p.requires_grad for p in model.parameters())
    ids = tokens(1, 9)
    with torch.inference_mode():
        want = logits(model, ids)
        got = logits(torch.compile(model, backend=r, fullgraph=True), ids)
    check(r.reports[-1], CALLS)
    torch.testing.assert_close(got, want, **TOLERANCE)


@pytest.mark.parametrize("name", ["llama", "gpt2"])
def test_a_model_routes_over_a_sequence_range(ops: dict[str, Any], name: str) -> None:
    """``dynamic=True``: one graph for every sequence length; each call runs the routed
    families, none refused (the kernels validate each call)."""
    model, r = build(name), target(ops)
    compiled = torch.compile(model, backend=r, fullgraph=True, dynamic=True)
    before = len(r.reports)
    per_call = []
    with torch.no_grad():
        for seq in (7, 16, 33, 5):
            CALLS.clear()
            got = logits(compiled, tokens(2, seq))
            torch.testing.assert_close(got, logits(model, tokens(2, seq)), **TOLERANCE)
            per_call.append(list(CALLS))
    new = r.reports[before:]
    assert len(new) == 1, [str(x) for x in new]
    check(new[0], per_call[0])
    assert all(c == per_call[0] for c in per_call), per_call


@pytest.mark.parametrize("name", ["llama", "gpt2"])
def test_an_exported_model_routes(ops: dict[str, Any], name: str) -> None:
    """``torch.export`` (its ATen graph, with rotary tables computed inside an autocast
    region) routed and exported again; the program runs the routed families."""
    model, r = build(name), target(ops)
    ids = tokens(2, 12)
    with torch.no_grad():
        program = torch.export.export(model, (ids,), {"use_cache": False})
        routed_program, report = r.export(program)
        got = routed_program.module()(ids, use_cache=False).logits
        want = logits(model, ids)
    check(report, CALLS)
    torch.testing.assert_close(got, want, **TOLERANCE)


def test_aot_inductor_runs_a_routed_model(ops: dict[str, Any], tmp_path: Path) -> None:
    model, r = build("llama"), target(ops)
    ids = tokens(2, 12)
    with torch.no_grad():
        program = torch.export.export(model, (ids,), {"use_cache": False})
        routed_program, report = r.export(program)
        package = torch._inductor.aoti_compile_and_package(
            routed_program, package_path=str(tmp_path / "llama.pt2")
        )
        CALLS.clear()
        got = torch._inductor.aoti_load_package(package)(ids, use_cache=False)
        want = logits(model, ids)
    check(report, CALLS)
    out = got.logits if hasattr(got, "logits") else got[0]
    torch.testing.assert_close(out, want, **TOLERANCE)


class Spellings(torch.nn.Module):
    """A linear layer in each spelling model code uses, over ``[rows, 64]``: ``nn.Linear``'s
    ``F.linear`` with and without bias, GPT-2's ``addmm`` over a ``[K, N]`` weight, ``addmm``
    over a transposed ``[N, K]`` one, ``x @ w``, ``x @ w.t()`` and ``x @ w + b``; and a batch
    of 4 expert weights ``[E, N, K]`` over ``[4, rows, 64]`` by ``bmm`` and by ``@``."""

    def __init__(self) -> None:
        super().__init__()
        g = torch.Generator().manual_seed(4)

        def p(*shape: int) -> torch.nn.Parameter:
            return torch.nn.Parameter((torch.randn(*shape, generator=g) / 8).to(torch.bfloat16))

        self.nk, self.kn, self.b = p(64, 64), p(64, 64), p(64)
        self.experts = p(4, 32, 64)

    def forward(self, x: torch.Tensor, xe: torch.Tensor) -> tuple[torch.Tensor, ...]:
        return (
            torch.nn.functional.linear(x, self.nk),
            torch.nn.functional.linear(x, self.nk, self.b),
            torch.addmm(self.b, x, self.kn),
            torch.addmm(self.b, x, self.nk.t()),
            x @ self.kn,
            x @ self.nk.t(),
            x @ self.kn + self.b,
            torch.bmm(xe, self.experts.transpose(1, 2)),
            xe @ self.experts.transpose(-1, -2),
        )


def test_every_spelling_of_a_linear_layer_routes(ops: dict[str, Any]) -> None:
    model, r = Spellings(), target(ops)
    g = torch.Generator().manual_seed(5)
    x = torch.randn(10, 64, generator=g).to(torch.bfloat16)
    xe = torch.randn(4, 10, 64, generator=g).to(torch.bfloat16)
    with torch.no_grad():
        got = torch.compile(model, backend=r, fullgraph=True)(x, xe)
        want = model(x, xe)
    report = r.reports[-1]
    print(report)
    assert [(d.computes, d.routed.family if d.routed else None) for d in report.decisions] == [
        ("linear", "m_linear_nk_bf16_64x64"),
        ("linear", "m_linear_nk_bf16_64x64_bias"),
        ("addmm", "m_linear_kn_bf16_64x64_bias"),
        ("addmm", "m_linear_nk_bf16_64x64_bias"),
        ("matmul", "m_linear_kn_bf16_64x64"),
        ("matmul", "m_linear_nk_bf16_64x64"),
        ("linear", "m_linear_kn_bf16_64x64_bias"),
        ("bmm", "m_linear_enk_bf16_4x32x64"),
        ("matmul", "m_linear_enk_bf16_4x32x64"),
    ], str(report)
    # The transposes and the bias add are the forms' own nodes.
    assert [len(d.nodes) for d in report.decisions] == [1, 1, 1, 2, 1, 2, 2, 2, 2], str(report)
    for g, w in zip(got, want):
        torch.testing.assert_close(g, w, **TOLERANCE)


class Rotary(torch.nn.Module):
    """GPT-J's rotary embedding as transformers writes it (``modeling_gptj``): per-pair sin and
    cos tables gathered from a buffer by position, the first 8 of each head's 16 entries rotated
    by adjacent pairs (``rotate_every_two``), the rest passed through; queries and keys
    ``[B, S, H, D]``."""

    def __init__(self) -> None:
        super().__init__()
        inv = 1.0 / (10000 ** (torch.arange(0, 8, 2).float() / 8))
        angles = torch.einsum("i , j -> i j", torch.arange(64).float(), inv)
        table = torch.cat((torch.sin(angles), torch.cos(angles)), dim=1).to(torch.bfloat16)
        self.register_buffer("sincos", table)

    def forward(
        self, q: torch.Tensor, k: torch.Tensor, positions: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        sin, cos = torch.split(self.sincos[positions], 4, dim=-1)

        def rotate_every_two(x: torch.Tensor) -> torch.Tensor:
            x1, x2 = x[:, :, :, ::2], x[:, :, :, 1::2]
            return torch.stack((-x2, x1), dim=-1).flatten(-2)

        def rotate(t: torch.Tensor) -> torch.Tensor:
            s = torch.repeat_interleave(sin[:, :, None, :], 2, 3)
            c = torch.repeat_interleave(cos[:, :, None, :], 2, 3)
            return (t * c) + (rotate_every_two(t) * s)

        k = torch.cat([rotate(k[:, :, :, :8]), k[:, :, :, 8:]], dim=-1)
        q = torch.cat([rotate(q[:, :, :, :8]), q[:, :, :, 8:]], dim=-1)
        return q, k


def test_interleaved_and_partial_rotary_routes(ops: dict[str, Any]) -> None:
    model, r = Rotary(), target(ops)
    g = torch.Generator().manual_seed(6)
    q, k = (torch.randn(2, 10, 4, 16, generator=g).to(torch.bfloat16) for _ in range(2))
    positions = torch.arange(10).expand(2, 10)
    with torch.no_grad():
        got = torch.compile(model, backend=r, fullgraph=True, dynamic=True)(q, k, positions)
        want = model(q, k, positions)
    report = r.reports[-1]
    print(report)
    (rope,) = [d for d in report.decisions if d.computes == "rope"]
    assert rope.routed is not None and rope.routed.family == "m_rope_pairs_bf16_4x4x16_r8", str(
        report
    )
    assert CALLS == ["m_rope_pairs_bf16_4x4x16_r8"], CALLS
    for a, b in zip(got, want):
        torch.testing.assert_close(a, b, **TOLERANCE)


def test_the_report_says_what_a_family_would_buy(ops: dict[str, Any]) -> None:
    """Over a catalog without the MLP's linear families, the report groups what stays by
    reason, largest share first: the missing family's shape and its share of the FLOPs."""
    model = build("llama")
    without = {n: op for n, op in ops.items() if n != "m_linear_nk_bf16_128x64"}
    r = router(models.CATALOG, without, models.Platform.NPU, models.ExecutionMode.SIM, backend="aot_eager")
    with torch.no_grad():
        torch.compile(model, backend=r, fullgraph=True)(tokens(2, 12), use_cache=False)
    report = r.reports[-1]
    print(report)
    (first, *_) = report.reasons()
    assert first.reason == (
        "m_linear_nk_bf16_128x64: no operator given for it"
    ), str(report)
    assert first.count == 4 and 0.25 < first.share < 0.45, str(first)
    assert f"{100 * first.share:5.2f}%  m_linear_nk_bf16_128x64" in str(report), str(report)
    assert 0.55 < report.share < 0.75, str(report)


def test_a_mask_that_is_not_causal_is_not_routed_as_causal(ops: dict[str, Any]) -> None:
    """A padding mask the model reads from its input: attention stays on the default path,
    saying no family computes it; the rest routes."""
    model, r = build("llama"), target(ops)
    ids = tokens(2, 12)
    mask = torch.ones(2, 12, dtype=torch.long)
    mask[1, :3] = 0
    with torch.no_grad():
        got = torch.compile(model, backend=r, fullgraph=True)(
            ids, attention_mask=mask, use_cache=False
        ).logits
        want = model(ids, attention_mask=mask, use_cache=False).logits
    report = r.reports[-1]
    attention = [d for d in report.decisions if d.computes == "sdpa"]
    assert len(attention) == 2 and not any(d.routed for d in attention), str(report)
    for d in attention:
        assert d.reason.startswith("no family computes sdpa bf16 [2, 4, 12, 16]"), d.reason
        assert "is not shown to be causal or absent" in str(d), str(d)
    assert len(report.routed) == len(report.decisions) - 3, str(report)
    torch.testing.assert_close(got, want, **TOLERANCE)


def test_a_proposed_catalog_checks_and_routes(tmp_path: Path) -> None:
    """``propose`` writes the families a model needs into a catalog ``kfam init`` started;
    with its placeholder receipts (as a reviewer would replace them) it checks, generates and
    routes at least 99% of the model's FLOPs over a range of sequence lengths."""
    from kfam_runtime.route import propose, write_proposal

    kfam = os.environ["KFAM_BIN"]
    init = subprocess.run(
        [kfam, "init", str(tmp_path), "--name", "proposed", "--license", "Apache-2.0"],
        capture_output=True,
        text=True,
    )
    assert init.returncode == 0, init.stderr
    manifest = tmp_path / "manifest"
    (manifest / "families" / "example_add.toml").unlink()
    proposal = propose(
        build("llama"),
        (tokens(2, 12),),
        {"use_cache": False},
        platform="npu",
        execution_mode="sim",
        backend="kernel_compiler",
        runtime="host_runtime",
        dims={"tokens": (1, 4096), "batch": (1, 8), "seq": (1, 256)},
    )
    assert sorted(proposal) == [
        "add_bf16_64.toml",
        "attention_bf16_4x2x16_causal.toml",
        "linear_nk_bf16_128x64.toml",
        "linear_nk_bf16_256x64.toml",
        "linear_nk_bf16_32x64.toml",
        "linear_nk_bf16_64x128.toml",
        "linear_nk_bf16_64x64.toml",
        "mul_bf16_128.toml",
        "rms_norm_bf16_64.toml",
        "rope_bf16_4x2x16.toml",
        "silu_bf16_128.toml",
    ], sorted(proposal)
    write_proposal(proposal, manifest)
    with pytest.raises(FileExistsError):
        write_proposal(proposal, manifest)
    check_out = subprocess.run([kfam, "check", str(manifest)], capture_output=True, text=True)
    assert check_out.returncode == 0, check_out.stderr
    # The reviewer qualifies each kernel and pastes its receipt over the
    # placeholder: until then a family answers `unqualified` and the router
    # leaves its nodes on the default path. A stand-in digest per family.
    for name in proposal:
        path = manifest / "families" / name
        text = path.read_text()
        placeholder = re.search(r'sha256 = "(0{32}[0-9a-f]{32})"', text)
        assert placeholder is not None, text
        qualified = hashlib.sha256(f"qualified {name}".encode()).hexdigest()
        path.write_text(text.replace(placeholder.group(1), qualified))
    out = tmp_path / "generated"
    gen = subprocess.run(
        [kfam, "generate", str(manifest), "--out", str(out)], capture_output=True, text=True
    )
    assert gen.returncode == 0, gen.stderr
    sys.path.insert(0, str(out / "python"))
    try:
        import proposed
        import proposed.torch as pt
    finally:
        sys.path.pop(0)
    lib = Library(proposed.CATALOG.torch_namespace, "FRAGMENT")
    try:
        ops = {}
        for fam in proposed.FAMILIES:
            ops[fam.name] = pt.define(lib, fam)
            lib.impl(fam.name, lambda *a, fam=fam: pt.reference(fam)(*a), "CPU")
        r = pt.router(ops, proposed.Platform.NPU, proposed.ExecutionMode.SIM, backend="aot_eager")
        model, ids = build("llama"), tokens(2, 20)
        with torch.no_grad():
            got = logits(torch.compile(model, backend=r, fullgraph=True), ids)
            torch.testing.assert_close(got, logits(model, ids), **TOLERANCE)
        report = r.reports[-1]
        print(report)
        assert report.share >= 0.99, str(report)
        assert {d.routed.family for d in report.routed if d.routed} == {
            f.removesuffix(".toml") for f in proposal
        }, str(report)
    finally:
        lib._destroy()
