"""``kfam.torch`` against real PyTorch (docs/torch.md): schemas, fake kernels, registration,
``torch.library.opcheck`` and ``torch.compile``.

Run by ``cargo test -p kfam-codegen --test integration python::``. By hand::

    PYTHONPATH=generated/python:python python3 -m pytest tests/python/test_torch.py

Every operator is defined in a temporary namespace of a library the test owns, with a
test-only CPU implementation derived from the family's ``operation`` record; nothing is
registered under ``kfam``. The compiled checks share one compiled function per family.
"""

from __future__ import annotations

import dataclasses
import gc
import importlib
import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterator
from itertools import count
from typing import Any

import pytest
import torch
import torch._dynamo
import torch._dynamo.decorators
import torch._dynamo.testing
from torch._subclasses.fake_tensor import FakeTensorMode
from torch.fx.experimental.symbolic_shapes import free_unbacked_symbols
from torch.library import Library

import kfam
import kfam.torch as kt
from kfam_runtime.vocab import _SCALAR_TYPES
from kfam_conformance import REPO, Case, _scalar, _tensor, conformance_dir, load_cases

TORCH_FAMILIES = [f for f in kfam.FAMILIES if f.torch]
_namespaces = count()


def fresh_namespace() -> str:
    return f"kfam_test_{next(_namespaces)}"


def registered_ops(prefix: str) -> set[str]:
    return {n for n in torch._C._dispatch_get_all_op_names() if n.startswith(prefix)}


def ids(f: kfam.Family) -> str:
    return f.name


# ---------------------------------------------------------------- test-only CPU kernels


def cpu_kernel(fam: kfam.Family) -> Callable[..., None]:
    """The family's operation on CPU tensors, writing its output argument in place."""
    op = fam.operation
    if isinstance(op, kfam.ElementwiseBinary):
        fn = {
            kfam.BinaryOp.ADD: torch.add,
            kfam.BinaryOp.SUB: torch.sub,
            kfam.BinaryOp.MUL: torch.mul,
        }[op.op]

        def elementwise(*args: Any) -> None:
            args[op.out].copy_(fn(args[op.lhs].float(), args[op.rhs].float()))

        return elementwise
    if isinstance(op, kfam.PagedAttentionDecode | kfam.PackedAttentionPrefill):
        # The torch layer is under test, not attention: the sample arguments' block tables
        # and offsets are random, so the kernel writes a deterministic function of the query.
        def attention(*args: Any) -> None:
            args[op.out].copy_(args[op.query].float() * 2)

        return attention
    if isinstance(op, kfam.Linear):
        lin = op

        def linear(*args: Any) -> None:
            w = args[lin.weight].float()
            nk = (kfam.WeightLayout.NK, kfam.WeightLayout.ENK)
            w = w.transpose(-1, -2) if lin.weight_layout in nk else w
            y = args[lin.input].float() @ w
            if lin.bias is not None:
                y = y + args[lin.bias].float()
            args[lin.out].copy_(y)

        return linear
    if isinstance(op, kfam.DenseAttention):
        att = op

        def dense_attention(*args: Any) -> None:
            scale = att.scale.constant if att.scale.param is None else args[att.scale.param]
            o = torch.nn.functional.scaled_dot_product_attention(
                args[att.query].float(),
                args[att.key].float(),
                args[att.value].float(),
                is_causal=att.causal,
                scale=scale,
                enable_gqa=True,
            )
            args[att.out].copy_(o)

        return dense_attention
    assert isinstance(op, kfam.Matmul), f"no test kernel for {op.kind.spelling}"

    def matmul(*args: Any) -> None:
        c = args[op.c]
        product = (args[op.a].float() @ args[op.b].float()).to(c.dtype)
        if op.accumulate:
            c.add_(product)
        else:
            c.copy_(product)

    return matmul


def sample_args(fam: kfam.Family, rows: int = 4, device: str = "cpu") -> list[Any]:
    """Arguments of ``fam``: dynamic extents are ``rows``; integer scalars 3, floats 0.5."""
    gen = torch.Generator().manual_seed(rows)
    args: list[Any] = []
    for p in fam.params:
        if p.is_tensor:
            shape = [d if static(d) else rows for d in p.shape]
            t = torch.randn(shape, generator=gen).to(kt.torch_dtype(p.dtype))
            args.append(t.to(device))
        elif p.dtype is kfam.DType.BOOL:
            args.append(True)
        elif p.dtype.spelling.startswith(("fp", "bf")):
            args.append(0.5)
        else:
            args.append(3)
    return args


def static(extent: object) -> bool:
    """A fixed extent (not -1, not a named symbolic dimension)."""
    return isinstance(extent, int) and extent >= 0


def has_dynamic_extent(fam: kfam.Family) -> bool:
    return any(not static(d) for p in fam.params for d in p.shape)


class Registered:
    """Every torch family, mutation-only, with its CPU kernel, in one temporary namespace."""

    def __init__(self) -> None:
        self.ns = fresh_namespace()
        self.lib = Library(self.ns, "FRAGMENT")
        self.ops: dict[str, Any] = {}
        for fam in TORCH_FAMILIES:
            self.ops[fam.name] = kt.define(self.lib, fam)
            self.lib.impl(fam.name, cpu_kernel(fam), "CPU")


@pytest.fixture(scope="module")
def registered() -> Iterator[Registered]:
    r = Registered()
    yield r
    r.lib._destroy()


# ---------------------------------------------------------------- import


def run_python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, check=False
    )


def test_importing_kfam_does_not_import_torch() -> None:
    r = run_python("""
        import sys, kfam
        assert "torch" not in sys.modules, "import kfam imported torch"
        kfam.validate_call, kfam.FAMILIES
    """)
    assert r.returncode == 0, r.stderr


@pytest.mark.parametrize("version", [None, "2.1.2"])
def test_import_without_a_supported_torch_names_the_versions(version: str | None) -> None:
    block = f"""
        import sys, types
        fake = types.ModuleType("torch"); fake.__version__ = {version!r}
        sys.modules["torch"] = fake
        sys.modules["torch.library"] = types.ModuleType("torch.library")
    """ if version else """
        import sys
        class Block:
            def find_spec(self, name, path=None, target=None):
                if name == "torch" or name.startswith("torch."):
                    raise ImportError(f"blocked: {name}")
        sys.meta_path.insert(0, Block())
    """  # fmt: skip
    r = run_python(textwrap.dedent(block) + textwrap.dedent("""
        try:
            import kfam.torch
        except ImportError as e:
            print(e)
        else:
            raise SystemExit("imported")
    """))
    assert r.returncode == 0, r.stderr
    assert kt.SUPPORTED_TORCH in r.stdout and kt.TESTED_TORCH in r.stdout, r.stdout
    assert ("not installed" if version is None else version) in r.stdout, r.stdout


def test_import_and_reload_register_nothing() -> None:
    before = registered_ops("kfam::"), set(torch.library._defs)
    importlib.reload(kt)
    importlib.reload(importlib.import_module("kfam.torch"))
    assert registered_ops("kfam::") == set() == before[0]
    assert set(torch.library._defs) == before[1]


# ---------------------------------------------------------------- schemas and dtypes


@pytest.mark.parametrize("fam", TORCH_FAMILIES, ids=ids)
def test_schema_forms(fam: kfam.Family) -> None:
    aliased = kt.schema(fam, returns="aliased")
    mutation = kt.schema(fam)
    assert aliased == fam.torch_schema
    assert mutation == kt.schema(fam, returns="mutation_only")
    for text, returns in ((mutation, "mutation_only"), (aliased, "aliased")):
        s = torch._C.parse_schema(text)
        assert str(s) == text, "PyTorch reads back the same schema"
        assert s.name == f"kfam::{fam.name}"
        assert [a.name for a in s.arguments] == [p.name for p in fam.params]
        for a, p in zip(s.arguments, fam.params):
            assert not a.kwarg_only and a.default_value is None, "every argument is required"
            if p.is_tensor:
                assert str(a.type) == "Tensor"
                written = p.direction is not kfam.Direction.IN
                assert (a.alias_info is not None and a.alias_info.is_write) == written
            else:
                assert str(a.type) == ("float" if _SCALAR_TYPES[p.dtype] == "float" else
                                       "bool" if p.dtype is kfam.DType.BOOL else "int")
                assert f"{_SCALAR_TYPES[p.dtype]} {p.name}" in str(s)
        if returns == "mutation_only":
            assert s.returns == []
        else:
            alias = {a.name: a.alias_info for a in s.arguments}
            want = [alias[p.name] for p in fam.return_params]
            got = [r.alias_info for r in s.returns]
            assert all(g is not None and g.is_write for g in got)
            assert [g.before_set for g in got] == [w.before_set for w in want if w is not None]


def test_schema_refusals() -> None:
    no_torch = [f for f in kfam.FAMILIES if not f.torch]
    assert no_torch, "the shipped manifest has a family without a torch binding"
    for f in no_torch:
        with pytest.raises(ValueError, match="torch = false"):
            kt.schema(f)
        with pytest.raises(ValueError, match="torch = false"):
            kt.fake(f)
    with pytest.raises(ValueError, match="returns must be"):
        kt.schema(TORCH_FAMILIES[0], returns="both")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        kt.schema("add_bf16_1024")  # type: ignore[arg-type]


def test_every_dtype_has_a_torch_dtype() -> None:
    for d in kfam.DType:
        t = kt.torch_dtype(d)
        assert isinstance(t, torch.dtype)
        # Packed fp4's carrier holds two elements per byte.
        assert t.itemsize * 8 == (8 if d is kfam.DType.FP4 else d.bits), d
        assert t.is_floating_point == (_SCALAR_TYPES.get(d) == "float"), d
        assert (t == torch.bool) == (d is kfam.DType.BOOL)
    assert len({kt.torch_dtype(d) for d in kfam.DType}) == len(kfam.DType)


# ---------------------------------------------------------------- opcheck and compile


@pytest.mark.parametrize("fam", TORCH_FAMILIES, ids=ids)
def test_opcheck_passes_every_check(registered: Registered, fam: kfam.Family) -> None:
    result = torch.library.opcheck(registered.ops[fam.name], sample_args(fam))
    assert result == {
        "test_schema": "SUCCESS",
        "test_autograd_registration": "SUCCESS",
        "test_faketensor": "SUCCESS",
        "test_aot_dispatch_dynamic": "SUCCESS",
    }


@pytest.mark.parametrize("fam", TORCH_FAMILIES, ids=ids)
def test_compiled_matches_eager(registered: Registered, fam: kfam.Family) -> None:
    op = registered.ops[fam.name]
    written = [p.index for p in fam.params if p.direction is not kfam.Direction.IN]

    def call(*args: Any) -> tuple[torch.Tensor, ...]:
        op(*args)
        return tuple(args[i] for i in written)

    # `call` is one code object for every family: without a reset, each family's graphs
    # count toward one recompile limit (8 by default).
    torch._dynamo.reset()
    counter = torch._dynamo.testing.CompileCounterWithBackend("aot_eager")
    compiled = torch.compile(call, backend=counter, fullgraph=True, dynamic=True)
    sizes = [4, 8] if has_dynamic_extent(fam) else [4]
    graphs = []
    for rows in sizes:
        eager_args, compiled_args = sample_args(fam, rows), sample_args(fam, rows)
        expected = call(*eager_args)
        got = compiled(*compiled_args)
        for e, g in zip(expected, got):
            torch.testing.assert_close(g, e)
        graphs.append(counter.frame_count)
    # Two input sizes, one graph: the fake kernel adds no guard on the dynamic extent.
    assert graphs[0] >= 1 and graphs[-1] == graphs[0], graphs


def symint_family() -> kfam.Family:
    """A shipped torch family with an integer scalar and a dynamic extent."""
    for f in TORCH_FAMILIES:
        ints = [p for p in f.params if not p.is_tensor and _SCALAR_TYPES[p.dtype] == "SymInt"]
        if ints and has_dynamic_extent(f):
            return f
    raise AssertionError("no shipped torch family has an integer scalar and a dynamic extent")


@pytest.mark.parametrize("backed", [True, False], ids=["backed", "unbacked"])
def test_symbolic_integers_reach_the_fake_kernel_unchanged(backed: bool) -> None:
    fam = symint_family()
    scalar = next(
        p for p in fam.params if not p.is_tensor and _SCALAR_TYPES[p.dtype] == "SymInt"
    )
    dyn, axis = next((p, i) for p in fam.params for i, d in enumerate(p.shape) if not static(d))
    kernel = kt.fake(fam)
    seen: list[tuple[str, str, list[Any]]] = []

    def recording(*args: Any) -> None:
        v, extent = args[scalar.index], args[dyn.index].shape[axis]
        assert isinstance(v, torch.SymInt), type(v)
        env = v.node.shape_env
        guards = len(env.guards)
        kernel(*args)
        symbols = v.node.expr.free_symbols | extent.node.expr.free_symbols
        touched = [g.expr for g in env.guards[guards:] if g.expr.free_symbols & symbols]
        seen.append((str(v.node.expr), str(extent.node.expr), touched))
        assert bool(free_unbacked_symbols(v)) != backed

    ns = fresh_namespace()
    lib = Library(ns, "FRAGMENT")
    try:
        lib.define(kt.schema(fam).split("::", 1)[1])
        torch.library.register_fake(f"{ns}::{fam.name}", recording, lib=lib)
        lib.impl(fam.name, cpu_kernel(fam), "CPU")
        op = getattr(getattr(torch.ops, ns), fam.name).default

        def call(*args: Any) -> torch.Tensor:
            # The scalar is the dynamic extent's own symbol.
            args = (*args[: scalar.index], args[dyn.index].shape[axis], *args[scalar.index + 1 :])
            op(*args)
            return args[fam.returns[0]]

        args = sample_args(fam, 6)
        if not backed:
            for p in fam.params:
                for i, d in enumerate(p.shape):
                    if not static(d):
                        torch._dynamo.decorators.mark_unbacked(args[p.index], i)
        compiled = torch.compile(call, backend="aot_eager", fullgraph=True, dynamic=True)
        compiled(*args)
    finally:
        lib._destroy()
    assert seen, "the fake kernel never ran"
    for value, extent, touched in seen:
        assert touched == [], f"the fake kernel guarded on {value} or {extent}: {touched}"
        if backed:
            assert value == extent, (value, extent)  # the shape's own symbol, not a copy
        else:
            assert value.startswith("u"), value


# ---------------------------------------------------------------- aliased returns


@pytest.mark.parametrize("fam", TORCH_FAMILIES, ids=ids)
def test_aliased_fake_returns_the_declared_arguments(fam: kfam.Family) -> None:
    ns = fresh_namespace()
    lib = Library(ns, "FRAGMENT")
    try:
        op = kt.define(lib, fam, returns="aliased")
        assert str(op._schema) == kt.schema(fam, returns="aliased").replace("kfam::", f"{ns}::")
        rows = 0 if has_dynamic_extent(fam) else 4  # an empty slice where the family allows it
        for mode in ("meta", "fake"):
            args = sample_args(fam, rows, device="meta")
            if mode == "fake":
                with FakeTensorMode() as m:
                    args = [m.from_tensor(a) if isinstance(a, torch.Tensor) else a for a in args]
                    got = op(*args)
            else:
                got = op(*args)
            got_t = got if isinstance(got, tuple) else (got,)
            assert len(got_t) == len(fam.returns)
            for r, i in zip(got_t, fam.returns):
                assert r is args[i], "the declared argument object itself"
        # Strides and storage offset are the argument's own: a view into a larger tensor.
        args = sample_args(fam, 4, device="meta")
        i = fam.returns[0]
        base = torch.empty((3, *args[i].shape), dtype=args[i].dtype, device="meta")
        args[i] = base[1]
        got = op(*args)
        r = got[0] if isinstance(got, tuple) else got
        assert r is args[i] and r.storage_offset() == args[i].numel()
    finally:
        lib._destroy()


def test_aliased_returns_do_not_functionalize(registered: Registered) -> None:
    """Why ``mutation_only`` is the form for ``torch.compile`` (docs/torch.md): AOT dispatch
    refuses an operator whose outputs carry alias annotations."""
    fam = next(f for f in TORCH_FAMILIES if f.returns)
    ns = fresh_namespace()
    lib = Library(ns, "FRAGMENT")
    try:
        op = kt.define(lib, fam, returns="aliased")
        kernel = cpu_kernel(fam)

        def aliased(*args: Any) -> Any:
            kernel(*args)
            out = tuple(args[i] for i in fam.returns)
            return out if len(out) > 1 else out[0]

        lib.impl(fam.name, aliased, "CPU")
        checks = ("test_schema", "test_faketensor", "test_aot_dispatch_dynamic")
        result = torch.library.opcheck(
            op, sample_args(fam), test_utils=checks, raise_exception=False
        )
    finally:
        lib._destroy()
    assert result["test_schema"] == "SUCCESS" and result["test_faketensor"] == "SUCCESS", result
    assert "alias annotations" in str(result["test_aot_dispatch_dynamic"]), result


def test_packed_fp4_uses_the_two_per_byte_carrier() -> None:
    fam = kfam.family("mul_fp4_dequant")
    fam = dataclasses.replace(fam, torch=True)
    p = fam.params[0]
    logical = list(p.shape)
    assert logical[-1] > 0 and p.dtype is kfam.DType.FP4
    carrier = kt.torch_dtype(kfam.DType.FP4)
    good = [torch.empty((4, logical[-1] // 2), dtype=carrier, device="meta") for _ in fam.params]
    assert kt.fake(fam)(*good) is None
    bad = list(good)
    bad[0] = torch.empty((4, logical[-1]), dtype=carrier, device="meta")
    e = refusal(fam, bad)
    assert (e.rule, e.param) == (kfam.CallRule.SHAPE, p.index) and "must be 128" in str(e), e


# ---------------------------------------------------------------- registration lifetime


def test_duplicate_definitions_raise_and_replace_nothing() -> None:
    fam = TORCH_FAMILIES[0]
    ns = fresh_namespace()
    lib, other = Library(ns, "FRAGMENT"), Library(ns, "FRAGMENT")
    try:
        op = kt.define(lib, fam)
        for target in (lib, other):
            with pytest.raises(RuntimeError, match="(?i)already|duplicate|multiple"):
                kt.define(target, fam)
            with pytest.raises(RuntimeError, match="(?i)already|duplicate|multiple"):
                kt.define(target, fam, returns="aliased")
        with pytest.raises(RuntimeError, match="(?i)already|duplicate|multiple"):
            other.define(f"{fam.name}(Tensor x) -> Tensor")
        # Still the first definition, with its fake kernel.
        assert str(op._schema) == kt.schema(fam).replace("kfam::", f"{ns}::")
        assert op(*sample_args(fam, device="meta")) is None
    finally:
        other._destroy()
        lib._destroy()


def test_a_destroyed_library_leaves_no_registration() -> None:
    fam = TORCH_FAMILIES[0]
    ns = fresh_namespace()
    lib = Library(ns, "FRAGMENT")
    kt.define(lib, fam)
    assert registered_ops(f"{ns}::") == {f"{ns}::{fam.name}"}
    del lib
    gc.collect()
    assert registered_ops(f"{ns}::") == set()
    assert f"{ns}::{fam.name}" not in torch.library._defs
    again = Library(ns, "FRAGMENT")  # the name is free again
    try:
        kt.define(again, fam)
    finally:
        again._destroy()


def test_impl_abstract_fallback_and_no_fake_api(monkeypatch: pytest.MonkeyPatch) -> None:
    fam = TORCH_FAMILIES[0]
    register_fake = torch.library.register_fake
    calls: list[str] = []

    def impl_abstract(qualname: str, func: Any, *, lib: Library) -> Any:
        calls.append(qualname)
        return register_fake(qualname, func, lib=lib)

    monkeypatch.delattr(torch.library, "register_fake")
    monkeypatch.setattr(torch.library, "impl_abstract", impl_abstract)
    ns = fresh_namespace()
    lib = Library(ns, "FRAGMENT")
    try:
        op = kt.define(lib, fam)
        assert calls == [f"{ns}::{fam.name}"]
        assert op(*sample_args(fam, device="meta")) is None  # Meta dispatch reaches it
        with pytest.raises(RuntimeError, match="(?i)already|duplicate|multiple"):
            kt.define(lib, fam)
    finally:
        lib._destroy()
    assert registered_ops(f"{ns}::") == set()

    monkeypatch.delattr(torch.library, "impl_abstract")
    ns = fresh_namespace()
    lib = Library(ns, "FRAGMENT")
    try:
        with pytest.raises(RuntimeError, match="register_fake nor"):
            kt.define(lib, fam)
        assert registered_ops(f"{ns}::") == set(), "a schema was installed"
    finally:
        lib._destroy()


# ---------------------------------------------------------------- fake kernel refusals


def refusal(fam: kfam.Family, args: list[Any]) -> kt.FakeCallError:
    with pytest.raises(kt.FakeCallError) as e:
        kt.fake(fam)(*args)
    return e.value


@pytest.mark.parametrize("fam", TORCH_FAMILIES, ids=ids)
def test_fake_refuses_naming_the_parameter(fam: kfam.Family) -> None:
    p = next(p for p in fam.params if p.is_tensor)
    other = next(d for d in (torch.float16, torch.int32) if d != kt.torch_dtype(p.dtype))
    ok = sample_args(fam, device="meta")
    assert kt.fake(fam)(*ok) is None

    def changed(t: torch.Tensor) -> list[Any]:
        args = list(ok)
        args[p.index] = t
        return args

    last = [q for q in fam.params if q.is_tensor][-1]

    def changed_last(t: torch.Tensor) -> list[Any]:
        args = list(ok)
        args[last.index] = t
        return args

    t = ok[p.index]
    cases = [
        (kfam.CallRule.DTYPE, changed(t.to(other))),
        (kfam.CallRule.RANK, changed(t.unsqueeze(0))),
        (kfam.CallRule.DEVICE, changed_last(torch.empty_like(ok[last.index], device="cpu"))),
    ]
    fixed = [i for i, d in enumerate(p.shape) if static(d)]
    if fixed:
        shape = list(t.shape)
        shape[fixed[0]] += 1
        bigger = torch.empty(shape, dtype=t.dtype, device="meta")
        cases.append((kfam.CallRule.SHAPE, changed(bigger)))
    if t.dim() and t.shape[-1] > 1:
        wide = list(t.shape)
        wide[-1] *= 2
        strided = torch.empty(wide, dtype=t.dtype, device="meta")[..., ::2]
        cases.append((kfam.CallRule.NOT_CONTIGUOUS, changed(strided)))
    for rule, args in cases:
        e = refusal(fam, args)
        where = last if rule is kfam.CallRule.DEVICE else p
        assert (e.rule, e.param) == (rule, where.index), (rule, e)
        assert f"`{where.name}`" in str(e) and fam.name in str(e), str(e)
    e = refusal(fam, ok[:-1])
    assert (e.rule, e.param) == (kfam.CallRule.ARG_COUNT, None)
    named = {q.name: a for q, a in zip(fam.params[1:], ok[1:])}
    assert kt.fake(fam)(ok[0], **named) is None
    with pytest.raises(kt.FakeCallError, match="arg_count"):
        kt.fake(fam)(ok[0], **named, extra=1)
    assert t.dtype.is_floating_point
    grad = changed(torch.empty(t.shape, dtype=t.dtype, device="meta", requires_grad=True))
    with pytest.raises(RuntimeError, match=f"`{p.name}`.*inference-only"):
        kt.fake(fam)(*grad)


def test_fake_never_reads_data() -> None:
    """Arguments whose data cannot be read (meta) and symbolic ones pass; so do aliases."""
    for fam in TORCH_FAMILIES:
        args = sample_args(fam, device="meta")
        assert kt.fake(fam)(*args) is None
        with FakeTensorMode(allow_non_fake_inputs=False) as m:
            fargs = [m.from_tensor(a) if isinstance(a, torch.Tensor) else a for a in args]
            got = kt.fake(fam, returns="aliased")(*fargs)
            got_t = got if isinstance(got, tuple) else (got,)
            assert all(g is fargs[i] for g, i in zip(got_t, fam.returns))


# ---------------------------------------------------------------- agreement with validate_call

#: The rules the fake kernel decides; the others (format, NZ offset, storage bounds, overlap)
#: need the physical storage and belong to the real call adapter.
FAKE_RULES = {
    kfam.CallRule.ARG_COUNT, kfam.CallRule.DTYPE, kfam.CallRule.RANK, kfam.CallRule.SHAPE,
    kfam.CallRule.NOT_CONTIGUOUS, kfam.CallRule.DEVICE, kfam.CallRule.SCALAR_TYPE,
    kfam.CallRule.SCALAR_RANGE, kfam.CallRule.FLOAT_OVERFLOW,
}  # fmt: skip

CALL_CASES = [c for c in load_cases(conformance_dir()) if c.kind == "call"]


def expressed(case: Case, mode: FakeTensorMode) -> list[Any] | None:
    """The call as fake tensors on ``cuda:<device_index>`` in signature order, or ``None``
    when torch cannot express it (no torch binding, physical formats, negative strides...)."""
    fam = kfam.find_family(str(case.data["family"]))
    if fam is None or not fam.torch:
        return None
    tensors = [_tensor(t, "t") for t in case.data["tensors"]]  # type: ignore[union-attr]
    scalars = [_scalar(s, "s") for s in case.data["scalars"]]  # type: ignore[union-attr]
    tparams = [p for p in fam.params if p.is_tensor]
    built: list[Any] = []
    for i, t in enumerate(tensors):
        layout = tparams[i].layout if i < len(tparams) else kfam.Layout.ND
        nz = t.format is kfam.StorageFormat.FRACTAL_NZ and layout is kfam.Layout.NZ
        if t.format is not kfam.StorageFormat.ND and not nz:
            return None
        if t.dtype is kfam.DType.FP4 or t.device_index < 0 or t.storage_offset < 0:
            return None
        if any(s < 0 for s in t.strides) or len(t.strides) != len(t.shape):
            return None
        try:
            with mode:
                base = torch.empty_strided(
                    t.shape, t.strides, dtype=kt.torch_dtype(t.dtype), device=f"cuda:{t.device_index}"
                )
                built.append(base.as_strided(t.shape, t.strides, t.storage_offset))
        except (RuntimeError, OverflowError, ValueError):
            return None
    values = [s.value for s in scalars]
    if len(built) != fam.tensor_count or len(values) != fam.scalar_count:
        # The dispatcher sees one positional list, not a tensor and a scalar pool: only a
        # different total length is an argument count error there.
        return None if len(built) + len(values) == len(fam.params) else built + values
    ti, si = iter(built), iter(values)
    return [next(ti) if p.is_tensor else next(si) for p in fam.params]


def test_fake_agrees_with_validate_call_on_the_conformance_vectors() -> None:
    assert CALL_CASES, f"no call vectors in {conformance_dir()}"
    checked, by_fake = 0, 0
    for case in CALL_CASES:
        with FakeTensorMode() as mode:
            args = expressed(case, mode)
            if args is None:
                continue
            fam = kfam.family(str(case.data["family"]))
            rule = kfam.CallRule.from_spelling(str(case.expect["rule"]))
            try:
                kt.fake(fam)(*args)
                got: tuple[kfam.CallRule, int | None] = (kfam.CallRule.OK, None)
            except kt.FakeCallError as e:
                got = (e.rule, e.param)
        want = (rule, case.expect["param"]) if rule in FAKE_RULES else (kfam.CallRule.OK, None)
        assert got == want, f"{case.file}: {case.name}: fake gives {got}, expected {want}"
        checked += 1
        by_fake += rule in FAKE_RULES
    assert checked >= len(CALL_CASES) // 2 and by_fake >= 20, (checked, by_fake, len(CALL_CASES))


# ---------------------------------------------------------------- docs/torch.md


def test_the_docs_hold_the_example_and_the_dtypes() -> None:
    doc = (REPO / "docs" / "torch.md").read_text(encoding="utf-8")
    marker = "<!-- example: tests/python/torch_backend.py -->\n```python\n"
    example = doc.split(marker, 1)[1]
    example = example.split("```", 1)[0]
    source = (REPO / "tests" / "python" / "torch_backend.py").read_text(encoding="utf-8")
    assert example.strip() and example in source, "docs/torch.md's example is not torch_backend.py's"
    table = doc.split("<!-- dtypes -->\n", 1)[1].split("\n\n", 1)[0].splitlines()[2:]
    rows = {r.split("|")[1].strip(" `"): r.split("|")[2].strip(" `") for r in table}
    assert rows == {d.spelling: str(kt.torch_dtype(d)) for d in kfam.DType}
