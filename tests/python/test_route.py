"""Compile-time routing (``kfam_runtime.route``, docs/torch.md "Routing a model") over the
routing fixture catalog ``routed`` (tests/route/manifest), run by codegen/tests/python.rs.

Each family is defined in the catalog's torch namespace with a CPU kernel that validates the
concrete call with the catalog's ``validate_call`` (a routed node the runtime would refuse
fails the test there) and computes ``routed.torch.reference``.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import routed
import routed.torch as rt
import torch
import torch._dynamo
import torch.nn.functional as F
from torch.library import Library

from kfam_runtime.route import Report, Router, router

#: The families the CPU kernels ran, in call order.
CALLS: list[str] = []


def cpu_kernel(fam: routed.Family) -> Callable[..., None]:
    ref = rt.reference(fam)

    def kernel(*args: Any) -> None:
        tensors = [rt.tensor_arg(a, p) for a, p in zip(args, fam.params) if p.is_tensor]
        scalars = [routed.ScalarArg.of(a) for a, p in zip(args, fam.params) if not p.is_tensor]
        routed.validate_call(fam, tensors, scalars)
        CALLS.append(fam.name)
        ref(*args)

    return kernel


@pytest.fixture(scope="module")
def ops() -> Iterator[dict[str, Any]]:
    lib = Library(routed.CATALOG.torch_namespace, "FRAGMENT")
    found = {}
    for fam in routed.FAMILIES:
        found[fam.name] = rt.define(lib, fam)
        lib.impl(fam.name, cpu_kernel(fam), "CPU")
    yield found
    lib._destroy()


@pytest.fixture(autouse=True)
def fresh() -> Iterator[None]:
    torch._dynamo.reset()
    CALLS.clear()
    yield
    torch._dynamo.reset()


def target(ops: dict[str, Any], *, platform: str = "npu", backend: Any = "aot_eager") -> Router:
    return router(
        routed.CATALOG,
        ops,
        routed.Platform[platform.upper()],
        routed.ExecutionMode.SIM,
        backend=backend,
    )


class Block(torch.nn.Module):
    """A pre-norm transformer block over ``[rows, 64]``: RMSNorm, softmax attention of 4
    heads, a SiLU-gated MLP of 128, residual adds. Weights are stored ``[in, out]`` (``x @ w``)
    except the attention output, an ``nn.Linear``."""

    def __init__(self, hidden: int = 64, mlp: int = 128, heads: int = 4) -> None:
        super().__init__()
        g = torch.Generator().manual_seed(0)

        def w(*shape: int) -> torch.nn.Parameter:
            t = torch.randn(*shape, generator=g) / shape[0] ** 0.5
            return torch.nn.Parameter(t.to(torch.bfloat16), requires_grad=False)

        self.heads = heads
        self.norm1, self.norm2 = w(hidden) + 1, w(hidden) + 1
        self.wq, self.wk, self.wv = w(hidden, hidden), w(hidden, hidden), w(hidden, hidden)
        self.wo = torch.nn.Linear(hidden, hidden, bias=False, dtype=torch.bfloat16)
        self.wo.weight.requires_grad_(False)
        self.w_gate, self.w_up, self.w_down = w(hidden, mlp), w(hidden, mlp), w(mlp, hidden)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        rows, hidden = x.shape
        d = hidden // self.heads
        h = F.rms_norm(x, (hidden,), self.norm1, eps=1e-6)
        q = (h @ self.wq).view(rows, self.heads, d).transpose(0, 1)
        k = (h @ self.wk).view(rows, self.heads, d).transpose(0, 1)
        v = (h @ self.wv).view(rows, self.heads, d).transpose(0, 1)
        scores = (q @ k.transpose(1, 2)) * d**-0.5
        probs = torch.softmax(scores, dim=-1)
        attn = (probs @ v).transpose(0, 1).reshape(rows, hidden)
        x = x + self.wo(attn)
        h = F.rms_norm(x, (hidden,), self.norm2, eps=1e-6)
        gated = F.silu(h @ self.w_gate) * (h @ self.w_up)
        return x + gated @ self.w_down


def sample(rows: int, dtype: torch.dtype = torch.bfloat16) -> torch.Tensor:
    return torch.randn(rows, 64, generator=torch.Generator().manual_seed(rows)).to(dtype)


def decisions(report: Report) -> list[tuple[str, str | None]]:
    return [(d.computes, d.routed.family if d.routed else None) for d in report.decisions]


#: The decision over each node of the block the matcher reads, in graph order.
BLOCK_DECISIONS = [
    ("rms_norm", "r_rms_norm_bf16"),
    ("matmul", None),  # q, k, v: [64, 64] weights, which no family takes
    ("matmul", None),
    ("matmul", None),
    ("matmul", None),  # batched scores: rank 3
    ("softmax", "r_softmax_bf16"),
    ("matmul", None),  # batched values
    ("linear", None),  # nn.Linear's weight is [out, in]: transposed
    ("add", "r_add_bf16"),
    ("rms_norm", "r_rms_norm_bf16"),
    ("matmul", "r_matmul_bf16_64x128"),
    ("silu", "r_silu_bf16"),
    ("matmul", "r_matmul_bf16_64x128"),
    ("mul", "r_mul_bf16"),
    ("matmul", "r_matmul_bf16_128x64"),
    ("add", "r_add_bf16"),
]


def test_a_block_routes_every_node_a_family_computes(ops: dict[str, Any]) -> None:
    block, r = Block(), target(ops)
    x = sample(12)
    with torch.no_grad():
        want = block(x)
        got = torch.compile(block, backend=r, fullgraph=True)(x)
    report = r.reports[-1]
    print(report)
    assert decisions(report) == BLOCK_DECISIONS, str(report)
    text = str(report)
    assert "argument 1 (`b`): shape: shape [64, 64], expected [64, 128]" in text, text
    assert "argument 0 (`a`): rank: rank 3 (shape [4, 12, 16]), expected rank 2" in text, text
    routed_profile = report.routed[0].routed
    assert routed_profile is not None and routed_profile.profile == "npu_sim"
    assert sorted(set(CALLS)) == sorted({f for _, f in decisions(report) if f}), CALLS
    torch.testing.assert_close(got, want, rtol=0.05, atol=0.05)


def test_refusals_name_the_rule_in_the_runtimes_words(ops: dict[str, Any]) -> None:
    def norm(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
        return F.rms_norm(x, (64,), w, eps=1e-6)

    def refusal(r: Router, x: torch.Tensor, w: torch.Tensor) -> str:
        with torch.no_grad():
            torch.compile(norm, backend=r, fullgraph=True)(x, w)
        (d,) = r.reports[-1].decisions
        assert d.routed is None
        torch._dynamo.reset()
        return str(d)

    w = torch.ones(64, dtype=torch.bfloat16)
    half = refusal(target(ops), sample(8, torch.float16), w.half())
    assert "r_rms_norm_bf16: argument 0 (`x`): dtype" in half and "expected bf16" in half, half
    many = refusal(target(ops), sample(300), w)
    assert "dim_range: symbol `rows` must lie in 1..=256" in many and "(passed 300)" in many, many
    npu2 = refusal(target(ops, platform="npu2"), sample(8), w)
    assert "no_profile: family `r_rms_norm_bf16` has no profile for platform `npu2`" in npu2, npu2


def test_attributes_match_exactly(ops: dict[str, Any]) -> None:
    r = target(ops)
    w = torch.ones(64, dtype=torch.bfloat16)

    def other_eps(x: torch.Tensor) -> torch.Tensor:
        return F.rms_norm(x, (64,), w, eps=1e-5)

    def softmax_rows(x: torch.Tensor) -> torch.Tensor:
        return torch.softmax(x, dim=1)

    with torch.no_grad():
        torch.compile(other_eps, backend=r, fullgraph=True)(sample(8))
        torch._dynamo.reset()
        torch.compile(softmax_rows, backend=r, fullgraph=True)(
            torch.randn(4, 8, 8, dtype=torch.bfloat16)
        )
    eps, axis = (str(rep.decisions[0]) for rep in r.reports[-2:])
    assert "eps is 1e-06, the node's 1e-05" in eps, eps
    assert "computes over axis 2, the node over axis 1" in axis, axis


#: One-node programs of every routed kind, with the family each would be routed to.
PROGRAMS: dict[str, tuple[Callable[..., torch.Tensor], int]] = {
    "silu": (lambda x: F.silu(x), 1),
    "mul": (lambda x, y: x * y, 2),
    "softmax": (lambda x: torch.softmax(x, dim=-1), 1),
    "matmul": (lambda x, y: x @ y, 2),
}


def test_routed_exactly_when_validate_call_accepts(ops: dict[str, Any]) -> None:
    """A node is routed exactly when the catalog's ``validate_call`` accepts the call the
    routed operator makes, over random shapes and dtypes (never routed, then refused)."""
    rng = random.Random(0)
    dtypes = [torch.bfloat16, torch.float16, torch.float32]
    seen = {True: 0, False: 0}
    for trial in range(32):
        kind = rng.choice(sorted(PROGRAMS))
        program, arity = PROGRAMS[kind]
        dtype = rng.choice(dtypes) if rng.random() < 0.4 else torch.bfloat16
        rows = rng.choice([1, 2, 7, 256, 257])
        width = rng.choice([64, 128, 96] if rng.random() < 0.4 else [128])
        if kind == "softmax":
            args = [torch.randn(rng.choice([4, 4, 3]), rows, rng.choice([rows, rows, width]))]
        elif kind == "matmul":
            k = rng.choice([64, 128, width])
            args = [torch.randn(rows, k), torch.randn(k, rng.choice([64, 128]))]
        else:
            args = [torch.randn(rows, width) for _ in range(arity)]
        args = [a.to(dtype) for a in args]
        r = target(ops)
        with torch.no_grad():
            got = torch.compile(program, backend=r, fullgraph=True)(*args)
            want = program(*args)
        (d,) = r.reports[-1].decisions
        candidates = [
            f
            for f in routed.FAMILIES
            if f.operation.kind.spelling.endswith(_KIND[kind])
            and (kind != "mul" or f.name == "r_mul_bf16")
        ]
        accepted = [f.name for f in candidates if _accepts(f, args, want)]
        assert (d.routed.family if d.routed else None) == (accepted[0] if accepted else None), (
            trial,
            str(d),
        )
        assert (d.routed is not None) == bool(CALLS), (trial, CALLS)
        seen[d.routed is not None] += 1
        CALLS.clear()
        torch.testing.assert_close(got, want, rtol=0.02, atol=0.02)
        torch._dynamo.reset()
    assert seen[True] and seen[False], seen


_KIND = {"silu": "unary", "mul": "binary", "softmax": "softmax", "matmul": "matmul"}


def _accepts(fam: routed.Family, args: list[torch.Tensor], result: torch.Tensor) -> bool:
    """``validate_call`` on the call a routed node makes: the operands and a fresh output."""
    tensors = [*args, torch.empty_like(result, memory_format=torch.contiguous_format)]
    described = [rt.tensor_arg(t, p) for t, p in zip(tensors, fam.params)]
    try:
        routed.validate_call(fam, described, [])
    except routed.CallError:
        return False
    return True


def test_dynamic_shapes_guard_the_symbol_range(ops: dict[str, Any]) -> None:
    r = target(ops)

    def act(x: torch.Tensor) -> torch.Tensor:
        return F.silu(x)

    compiled = torch.compile(act, backend=r, fullgraph=True, dynamic=True)
    before = len(r.reports)
    with torch.no_grad():
        for rows in (8, 16, 200):
            compiled(torch.randn(rows, 128, dtype=torch.bfloat16))
        new = r.reports[before:]
        assert len(new) == 1 and new[0].routed, [str(x) for x in new]
        assert CALLS == ["r_silu_bf16"] * 3
        compiled(torch.randn(300, 128, dtype=torch.bfloat16))  # outside [dims.rows]: recompiled
        new = r.reports[before:]
        assert len(new) == 2 and not new[1].routed, str(new[1])
        assert "(passed 300)" in str(new[1]), str(new[1])
        assert CALLS == ["r_silu_bf16"] * 3


def test_a_refusal_guards_what_it_read(ops: dict[str, Any]) -> None:
    """A graph compiled for an extent outside the family's range refuses the node and guards
    that refusal: a later call in range recompiles and routes, as a fresh compile would."""
    r = target(ops)

    def act(x: torch.Tensor) -> torch.Tensor:
        return F.silu(x)

    compiled = torch.compile(act, backend=r, fullgraph=True, dynamic=True)
    before = len(r.reports)
    with torch.no_grad():
        compiled(torch.randn(300, 128, dtype=torch.bfloat16))
        compiled(torch.randn(400, 128, dtype=torch.bfloat16))  # refused alike: the same graph
        assert not CALLS and len(r.reports) == before + 1, [str(x) for x in r.reports[before:]]
        for rows in (8, 200):
            compiled(torch.randn(rows, 128, dtype=torch.bfloat16))
    new = r.reports[before:]
    assert [bool(x.routed) for x in new] == [False, True], [str(x) for x in new]
    assert CALLS == ["r_silu_bf16"] * 2


def sequence(rng: random.Random) -> list[int]:
    """Row counts for one compiled program: in and out of the families' 1..=256, and back."""
    return [rng.choice([2, 7, 64, 255, 256, 257, 300, 512]) for _ in range(4)]


def test_routed_exactly_when_validate_call_accepts_with_dynamic_shapes(
    ops: dict[str, Any],
) -> None:
    """With ``dynamic=True`` one graph serves many calls: for each call, the routed operator
    ran exactly when ``validate_call`` accepts that call (never refused at run time: the CPU
    kernel validates), whichever call compiled the graph; over random kinds, widths, dtypes and
    row counts in and out of the families' ranges."""
    rng = random.Random(1)
    seen = {True: 0, False: 0}
    for trial in range(10):
        kind = rng.choice(sorted(PROGRAMS))
        program, arity = PROGRAMS[kind]
        width = rng.choice([64, 128, 128])
        dtype = rng.choice([torch.bfloat16, torch.bfloat16, torch.float16])
        r = target(ops)
        compiled = torch.compile(program, backend=r, fullgraph=True, dynamic=True)
        for rows in sequence(rng):
            if kind == "softmax":
                args = [torch.randn(4, rows, rows)]
            elif kind == "matmul":
                args = [torch.randn(rows, width), torch.randn(width, rng.choice([64, 128]))]
            else:
                args = [torch.randn(rows, width) for _ in range(arity)]
            args = [a.to(dtype) for a in args]
            with torch.no_grad():
                got = compiled(*args)
                want = program(*args)
            candidates = [
                f
                for f in routed.FAMILIES
                if f.operation.kind.spelling.endswith(_KIND[kind])
                and (kind != "mul" or f.name == "r_mul_bf16")
            ]
            accepted = [f.name for f in candidates if _accepts(f, args, want)]
            assert CALLS == accepted[:1], (trial, kind, rows, CALLS, accepted)
            seen[bool(CALLS)] += 1
            CALLS.clear()
            torch.testing.assert_close(got, want, rtol=0.02, atol=0.02)
        torch._dynamo.reset()
    assert seen[True] and seen[False], seen


def test_export_with_random_dims_is_never_refused_at_run_time(ops: dict[str, Any]) -> None:
    """An exported program's ``Dim`` range may be wider than a family's ``[dims]``: the node is
    routed only when the family accepts every extent of the range (no guard can narrow an
    exported program), so any call the program accepts runs."""
    rng = random.Random(2)
    seen = {True: 0, False: 0}
    for trial in range(8):
        kind = rng.choice(["silu", "mul", "matmul"])
        program, arity = PROGRAMS[kind]
        dtype = rng.choice([torch.bfloat16, torch.bfloat16, torch.float16])
        low = rng.choice([2, 8, 100])
        high = rng.choice([low + 10, 200, 256, 257, 1024])
        rows = torch.export.Dim(f"rows{trial}", min=low, max=high)

        def example(n: int) -> list[torch.Tensor]:
            if kind == "matmul":
                return [torch.randn(n, 64), torch.randn(64, 128)]
            return [torch.randn(n, 128) for _ in range(arity)]

        class One(torch.nn.Module):
            def forward(self, x: torch.Tensor) -> torch.Tensor:
                return program(x)

        class Two(torch.nn.Module):
            def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
                return program(x, y)

        dynamic = ({0: rows}, None) if kind == "matmul" else tuple({0: rows} for _ in range(arity))
        args = [a.to(dtype) for a in example(low)]
        with torch.no_grad():
            module = One() if arity == 1 else Two()
            exported = torch.export.export(module, tuple(args), dynamic_shapes=dynamic)
            routed_program, report = target(ops).export(exported, dynamic_shapes=dynamic)
        (d,) = report.decisions
        assert (d.routed is not None) == (high <= 256 and dtype == torch.bfloat16), (
            trial,
            low,
            high,
            str(d),
        )
        if d.routed is None and dtype == torch.bfloat16:
            assert "no guard can narrow an exported program" in str(d), str(d)
        seen[d.routed is not None] += 1
        for n in {low, high, rng.randint(low, high)}:
            call = [a.to(dtype) for a in example(n)]
            with torch.no_grad():
                got = routed_program.module()(*call)
            torch.testing.assert_close(got, program(*call), rtol=0.02, atol=0.02)
            assert CALLS == ([d.routed.family] if d.routed else []), (trial, n, CALLS)
            CALLS.clear()
    assert seen[True] and seen[False], seen


class Parameters(torch.nn.Module):
    """A norm and a gated activation whose weights are the module's own ``nn.Parameter``s,
    ``requires_grad`` set, as every model's are."""

    def __init__(self) -> None:
        super().__init__()
        self.norm = torch.nn.Parameter(torch.ones(64, dtype=torch.bfloat16))
        self.up = torch.nn.Parameter(torch.randn(64, 128, dtype=torch.bfloat16) / 8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.silu(F.rms_norm(x, (64,), self.norm, eps=1e-6) @ self.up)


@pytest.mark.parametrize("mode", ["no_grad", "inference_mode"])
def test_module_parameters_route_without_autograd(ops: dict[str, Any], mode: str) -> None:
    model, r = Parameters(), target(ops)
    assert all(p.requires_grad for p in model.parameters())
    x = sample(12)
    with getattr(torch, mode)():
        got = torch.compile(model, backend=r, fullgraph=True)(x)
        want = model(x)
    assert [f for _, f in decisions(r.reports[-1])] == [
        "r_rms_norm_bf16",
        "r_matmul_bf16_64x128",
        "r_silu_bf16",
    ], str(r.reports[-1])
    assert CALLS == ["r_rms_norm_bf16", "r_matmul_bf16_64x128", "r_silu_bf16"], CALLS
    torch.testing.assert_close(got, want, rtol=0.02, atol=0.02)


def test_a_model_compiled_for_training_keeps_its_nodes_with_the_reason(
    ops: dict[str, Any],
) -> None:
    """With gradients enabled the graph records autograd: the nodes that read a parameter stay
    on the default path, saying why, and the compile succeeds; the backward runs."""
    model, r = Parameters(), target(ops)
    x = sample(12)
    got = torch.compile(model, backend=r, fullgraph=True)(x)
    report = r.reports[-1]
    assert not report.routed, str(report)
    for d in report.decisions:
        assert "requires_grad: the graph records autograd" in str(d), str(d)
    got.float().sum().backward()
    assert model.up.grad is not None and not CALLS
    torch.testing.assert_close(got, model(x), rtol=0.02, atol=0.02)


def test_leading_dimensions_merge_into_rows(ops: dict[str, Any]) -> None:
    """Activations ``[batch, seq, hidden]`` reach families declared over ``[rows, hidden]``:
    the leading extents merge into rows (a view), the result takes the node's extents."""
    model, r = Parameters(), target(ops)
    x = torch.randn(2, 6, 64, generator=torch.Generator().manual_seed(3)).to(torch.bfloat16)
    with torch.no_grad():
        got = torch.compile(model, backend=r, fullgraph=True, dynamic=True)(x)
        want = model(x)
        assert [f for _, f in decisions(r.reports[-1])] == [
            "r_rms_norm_bf16",
            "r_matmul_bf16_64x128",
            "r_silu_bf16",
        ], str(r.reports[-1])
        torch.testing.assert_close(got, want, rtol=0.02, atol=0.02)
        # A transposed activation is no contiguous run of rows: refused, not copied.
        t = x.transpose(0, 1)
        torch._dynamo.reset()
        got = torch.compile(model, backend=r, fullgraph=True)(t)
        norm = r.reports[-1].decisions[0]
        assert norm.routed is None and "not_contiguous" in str(norm), str(norm)
        torch.testing.assert_close(got, model(t), rtol=0.02, atol=0.02)
        # 24 rows of 16 sequences: 384 rows, over the families' 256 (a guard on the product).
        big = torch.randn(16, 24, 64).to(torch.bfloat16)
        torch._dynamo.reset()
        compiled = torch.compile(model, backend=r, fullgraph=True, dynamic=True)
        CALLS.clear()
        compiled(x)
        compiled(big)
        assert CALLS == ["r_rms_norm_bf16", "r_matmul_bf16_64x128", "r_silu_bf16"], CALLS


def test_an_unchanged_catalog_reuses_the_compiled_graph(ops: dict[str, Any]) -> None:
    assert target(ops) is target(ops)
    assert target(ops).identity != target(ops, platform="npu2").identity

    def act(x: torch.Tensor) -> torch.Tensor:
        return F.silu(x)

    x = torch.randn(8, 128, dtype=torch.bfloat16)
    before = len(target(ops).reports)
    with torch.no_grad():
        torch.compile(act, backend=target(ops))(x)
        torch.compile(act, backend=target(ops))(x)
    assert len(target(ops).reports) == before + 1


def test_export_routes_and_runs(ops: dict[str, Any]) -> None:
    block, r = Block(), target(ops)
    x = sample(12)
    rows = torch.export.Dim("rows", min=2, max=256)
    dynamic = {"x": {0: rows}}
    with torch.no_grad():
        program = torch.export.export(block, (x,), dynamic_shapes=dynamic)
        routed_program, report = r.export(program, dynamic_shapes=dynamic)
        assert [f for _, f in decisions(report) if f] == [f for _, f in BLOCK_DECISIONS if f], str(
            report
        )
        got = routed_program.module()(sample(20))
        torch.testing.assert_close(got, block(sample(20)), rtol=0.05, atol=0.05)
    assert "r_silu_bf16" in CALLS


def test_aot_inductor_runs_the_routed_program(ops: dict[str, Any], tmp_path: Path) -> None:
    block, r = Block(), target(ops)
    rows = torch.export.Dim("rows", min=2, max=256)
    dynamic = {"x": {0: rows}}
    with torch.no_grad():
        program = torch.export.export(block, (sample(12),), dynamic_shapes=dynamic)
        routed_program, _ = r.export(program, dynamic_shapes=dynamic)
        package = torch._inductor.aoti_compile_and_package(
            routed_program, package_path=str(tmp_path / "block.pt2")
        )
        got = torch._inductor.aoti_load_package(package)(sample(20))
        torch.testing.assert_close(got, block(sample(20)), rtol=0.05, atol=0.05)
    assert CALLS.count("r_rms_norm_bf16") == 2 and "r_matmul_bf16_128x64" in CALLS, CALLS


#: A process that compiles a routed program with Inductor and prints its FX graph cache
#: counters: the catalog package it imports is the first entry of its path.
CACHED = textwrap.dedent(
    """
    import torch, torch.nn.functional as F
    from torch._dynamo.utils import counters
    from torch.library import Library
    import routed, routed.torch as rt
    from kfam_runtime.route import router
    lib = Library(routed.CATALOG.torch_namespace, "FRAGMENT")
    ops = {}
    for fam in routed.FAMILIES:
        ops[fam.name] = rt.define(lib, fam)
        lib.impl(fam.name, lambda *a, fam=fam: rt.reference(fam)(*a), "CPU")
    r = router(routed.CATALOG, ops, routed.Platform.NPU, routed.ExecutionMode.SIM)
    with torch.no_grad():
        torch.compile(lambda x: F.silu(x) * x, backend=r)(torch.ones(8, 128, dtype=torch.bfloat16))
    print(r.reports[-1].routed[0].routed.revision, counters["inductor"]["fxgraph_cache_hit"],
          counters["inductor"]["fxgraph_cache_miss"])
    """
)


def compile_in_a_process(package_root: str, cache: Path) -> list[int]:
    env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=str(cache))
    env["PYTHONPATH"] = os.pathsep.join([package_root, *sys.path])
    out = subprocess.run(
        [sys.executable, "-c", CACHED], env=env, capture_output=True, text=True, check=False
    )
    assert out.returncode == 0, out.stderr
    return [int(v) for v in out.stdout.split()]


def test_the_catalog_enters_the_compile_cache_key(tmp_path: Path) -> None:
    """Inductor's FX graph cache: an unchanged catalog hits it; a catalog whose family changed
    revision misses it, though the graph's code is the same."""
    here = str(Path(routed.__file__).parent.parent)
    changed = os.environ["KFAM_ROUTE_CHANGED"]
    assert compile_in_a_process(here, tmp_path) == [1, 0, 1]
    assert compile_in_a_process(here, tmp_path) == [1, 1, 0]
    assert compile_in_a_process(changed, tmp_path) == [2, 0, 1]
    assert compile_in_a_process(here, tmp_path) == [1, 1, 0]


class Shipped(torch.nn.Module):
    """Nodes that this repository's catalog (``manifest/``) has families for: RMSNorm over 4096
    (eps 1e-6, a family without a PyTorch operator), a residual add over ``[rows, 256]`` and a
    128x64x128 matmul on XDNA2 (once over a column slice, which is no contiguous view)."""

    def __init__(self) -> None:
        super().__init__()
        g = torch.Generator().manual_seed(1)
        self.weight = torch.randn(4096, generator=g).to(torch.bfloat16) + 1
        self.w = (torch.randn(64, 128, generator=g) / 8).to(torch.bfloat16)

    def forward(
        self, x: torch.Tensor, a: torch.Tensor, b: torch.Tensor
    ) -> tuple[torch.Tensor, ...]:
        norm = F.rms_norm(x, (4096,), self.weight, eps=1e-6)
        return norm, a + b, a[:, 64:128].contiguous() @ self.w, a[:, :64] @ self.w


def test_the_shipped_catalog_routes_by_its_profiles() -> None:
    """Over this repository's own catalog: each target routes the families that have a profile
    for it, and the report says why the others stay."""
    sys.path.insert(0, os.environ["KFAM_ROUTE_SHIPPED"])
    try:
        import kfam
        import kfam.torch as kt
    finally:
        sys.path.pop(0)
    lib = Library(kfam.CATALOG.torch_namespace, "FRAGMENT")
    try:
        ops = {}
        for fam in kfam.FAMILIES:
            if fam.torch:
                ops[fam.name] = kt.define(lib, fam)
                lib.impl(fam.name, lambda *a, fam=fam: kt.reference(fam)(*a), "CPU")
        g = torch.Generator().manual_seed(2)
        x = torch.randn(16, 4096, generator=g).to(torch.bfloat16)
        a, b = (torch.randn(128, 256, generator=g).to(torch.bfloat16) for _ in range(2))
        model = Shipped()
        reports = {}
        for platform, mode in [("A2A3", "SIM"), ("XDNA2", "ONBOARD")]:
            target = kfam.Platform[platform], kfam.ExecutionMode[mode]
            r = kt.router(ops, *target, backend="aot_eager")
            torch._dynamo.reset()
            with torch.no_grad():
                out = torch.compile(model, backend=r, fullgraph=True)(x, a, b)
                for o, want in zip(out, model(x, a, b)):
                    torch.testing.assert_close(o, want, rtol=0.02, atol=0.02)
            reports[platform] = r.reports[-1]
        assert decisions(reports["A2A3"]) == [
            ("rms_norm", None),
            ("add", None),
            ("matmul", None),
            ("matmul", None),
        ], str(reports["A2A3"])
        assert decisions(reports["XDNA2"]) == [
            ("rms_norm", None),
            ("add", "add_bf16_rows"),
            ("matmul", "matmul_bf16_128x64x128"),
            ("matmul", None),
        ], str(reports["XDNA2"])
        text = str(reports["A2A3"]) + str(reports["XDNA2"])
        for why in [
            "rms_norm_bf16_4096: not a PyTorch operator (the family declares `torch = false`)",
            "add_bf16_rows: no_profile: family `add_bf16_rows` has no profile for platform"
            " `a2a3` in `sim` mode",
            "matmul_bf16_128x64x128: argument 0 (`a`): not_contiguous: strides [256, 1]",
        ]:
            assert why in text, text
        # The transformer block, sized for the residual adds' family ([rows, 256], rows a
        # multiple of 16): the adds are routed, the rest stays with its reasons.
        block, h = Block(hidden=256, mlp=512), torch.randn(16, 256, generator=g)
        h = h.to(torch.bfloat16)
        r = kt.router(ops, kfam.Platform.XDNA2, kfam.ExecutionMode.ONBOARD, backend="aot_eager")
        torch._dynamo.reset()
        with torch.no_grad():
            got = torch.compile(block, backend=r, fullgraph=True)(h)
            torch.testing.assert_close(got, block(h), rtol=0.05, atol=0.05)
        routed_block = [f for _, f in decisions(r.reports[-1]) if f]
        assert routed_block == ["add_bf16_rows", "add_bf16_rows"], str(r.reports[-1])
        assert len(r.reports[-1].refused) == 14, str(r.reports[-1])
        # The add tried the catalog's first add family before the one that took it: its rows
        # merged into the family's one axis, 32768 elements where it declares 1024.
        (tried,) = reports["XDNA2"].decisions[1].refusals
        assert (tried.family, tried.rule) == ("add_bf16_1024", "shape"), tried
        assert "shape [32768], expected [1024]" in tried.message, tried
    finally:
        lib._destroy()
