# PyTorch's own annotations are full of `Any`: this module, which works in them, is exempt
# from `--disallow-any-expr` (it passes `mypy --strict`, with torch and without).
# mypy: disallow-any-expr=False
"""Start a catalog from a model (docs/torch.md, "Starting a catalog from a model"): the
families its compute needs, as family files for review with ``kfam check``.

``propose`` captures the model's graphs with ``torch.compile`` (``dynamic=True``, nothing
compiled), reads every computation the router reads (``route._computations``: the single nodes
and the forms model code writes) and declares for each a family of its payload: dtypes, static
extents from the example, named symbols where the extents vary (``tokens`` for rows of
row-wise payloads, ``batch`` and ``seq`` for attention), and ``[dims]`` from ``dims`` or, by
default, from 1 to the example's extent. Each family gets one profile for the target and a
placeholder receipt, as ``kfam new`` writes it: a reviewer qualifies the kernel
(``kfam.qualify``) and pastes the real receipt.
"""

from __future__ import annotations

import datetime
import hashlib
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch  # type: ignore[import-not-found, unused-ignore]
from torch.fx import GraphModule, Node  # type: ignore[import-not-found, unused-ignore]

from ._callsite import fake
from ._forms import computations
from ._match import Found, Role
from ._tensors import kfam_dtype
from .records import (
    DenseAttention,
    ElementwiseBinary,
    ElementwiseUnary,
    Linear,
    Norm,
    Rope,
    Softmax,
)
from .vocab import WeightLayout

#: A TOML value as the proposal writes it.
Value = Any


@dataclass
class _Family:
    """One proposed family before it is written: its operation table, parameters (name,
    direction, dtype, extents) and the symbols it uses with the example's extent of each."""

    name: str
    summary: str
    kind: str
    operation: dict[str, Value]
    params: list[tuple[str, str, str, list[Value]]]
    symbols: dict[str, int] = field(default_factory=dict)


def _dtype(t: torch.Tensor) -> str:
    return kfam_dtype(t.dtype).spelling


def _int(x: object) -> int:
    if isinstance(x, int):
        return x
    hint = getattr(getattr(x, "node", None), "hint", None)
    return int(hint) if hint is not None else 0


def _tensor(found: Found, role: Role) -> torch.Tensor | None:
    x = found.operands.get(role)
    v = fake(x) if isinstance(x, Node) else None
    return v if isinstance(v, torch.Tensor) else None


def _rows(t: torch.Tensor, keep: int) -> tuple[list[Value], int]:
    """``t``'s extents as a row-wise family declares them: the leading ones merged into
    ``tokens``, the last ``keep`` static; and the example's token count."""
    lead = t.shape[: t.dim() - keep]
    tokens = math.prod(_int(d) for d in lead)
    return ["tokens", *(_int(d) for d in t.shape[t.dim() - keep :])], tokens


def _shape_name(extents: Sequence[Value]) -> str:
    return "x".join(str(d) for d in extents if isinstance(d, int))


def _declare(found: Found, model: str) -> _Family | None:
    """The family that computes ``found`` (its linear reading where it has one), or ``None``
    for a computation the proposal does not declare (a broadcast, a batched product of
    activations, an NZ or custom payload)."""
    for variant in (*found.alternatives, found):
        if variant.kind is Linear:
            found = variant
            break
    out = fake(found.node)
    if not isinstance(out, torch.Tensor):
        return None
    declare = _DECLARE.get(found.kind)
    return declare(found, out, model) if declare is not None else None


def _unary(found: Found, out: torch.Tensor, model: str) -> _Family | None:
    x = _tensor(found, Role.INPUT)
    if x is None or x.dim() < 1:
        return None
    shape, tokens = _rows(x, 1 if x.dim() > 1 else 0)
    op = found.op.spelling  # type: ignore[attr-defined]
    dtype = _dtype(x)
    return _Family(
        f"{op}_{dtype}_{_shape_name(shape) or 'rows'}",
        f"{op} of {dtype} rows, proposed from {model}.",
        "elementwise_unary",
        {"op": op, "input": "x", "out": "y"},
        [("x", "in", dtype, shape), ("y", "out", _dtype(out), shape)],
        {"tokens": tokens},
    )


def _binary(found: Found, out: torch.Tensor, model: str) -> _Family | None:
    a, b = _tensor(found, Role.LHS), _tensor(found, Role.RHS)
    if a is None or b is None or [_int(d) for d in a.shape] != [_int(d) for d in b.shape]:
        return None  # a broadcast: no elementwise family takes one
    shape, tokens = _rows(a, 1 if a.dim() > 1 else 0)
    op = found.op.spelling  # type: ignore[attr-defined]
    dtype = _dtype(a)
    return _Family(
        f"{op}_{dtype}_{_shape_name(shape) or 'rows'}",
        f"Elementwise {op} of {dtype} rows, proposed from {model}.",
        "elementwise_binary",
        {"op": op, "lhs": "a", "rhs": "b", "out": "y"},
        [
            ("a", "in", dtype, shape),
            ("b", "in", _dtype(b), shape),
            ("y", "out", _dtype(out), shape),
        ],
        {"tokens": tokens},
    )


def _norm(found: Found, out: torch.Tensor, model: str) -> _Family | None:
    x, w = _tensor(found, Role.INPUT), _tensor(found, Role.WEIGHT)
    if x is None or w is None or found.eps is None:
        return None
    shape, tokens = _rows(x, 1)
    op = found.op.spelling  # type: ignore[attr-defined]
    dtype = _dtype(x)
    operation: dict[str, Value] = {"op": op, "input": "x", "weight": "weight"}
    params = [("x", "in", dtype, shape), ("weight", "in", _dtype(w), shape[1:])]
    b = _tensor(found, Role.BIAS)
    if b is not None:
        operation["bias"] = "bias"
        params.append(("bias", "in", _dtype(b), shape[1:]))
    operation.update({"out": "y", "axis": 1, "eps": found.eps})
    params.append(("y", "out", _dtype(out), shape))
    return _Family(
        f"{op}_{dtype}_{_shape_name(shape)}",
        f"{op} of {dtype} rows of {shape[1]}, eps {found.eps!r}, proposed from {model}.",
        "norm",
        operation,
        params,
        {"tokens": tokens},
    )


def _softmax(found: Found, out: torch.Tensor, model: str) -> _Family | None:
    x = _tensor(found, Role.INPUT)
    if x is None or found.axis != x.dim() - 1 or x.dim() < 2:
        return None
    shape, tokens = _rows(x, 1)
    dtype = _dtype(x)
    return _Family(
        f"softmax_{dtype}_{_shape_name(shape)}",
        f"Softmax of {dtype} rows, proposed from {model}.",
        "softmax",
        {"input": "x", "out": "y", "axis": 1},
        [("x", "in", dtype, shape), ("y", "out", _dtype(out), shape)],
        {"tokens": tokens},
    )


def _linear(found: Found, out: torch.Tensor, model: str) -> _Family | None:
    x, w = _tensor(found, Role.INPUT), _tensor(found, Role.WEIGHT)
    layout = found.attrs.get("weight_layout")
    if x is None or w is None or not isinstance(layout, WeightLayout):
        return None
    if not all(isinstance(d, int) for d in w.shape):
        return None  # a product of two activations (the extents vary): no weight to declare
    nk = layout in (WeightLayout.NK, WeightLayout.ENK)
    n = _int(w.shape[-2] if nk else w.shape[-1])
    k = _int(x.shape[-1])
    dtype = _dtype(x)
    weight = [_int(d) for d in w.shape]
    if w.dim() == 3:
        # A batch of E weights over activations [E, T, K].
        e = weight[0]
        shape: list[Value] = [e, "tokens", k]
        tokens = _int(x.shape[1])
        result: list[Value] = [e, "tokens", n]
    else:
        shape, tokens = _rows(x, 1)
        result = ["tokens", n]
    operation: dict[str, Value] = {"input": "x", "weight": "w"}
    params = [("x", "in", dtype, shape), ("w", "in", _dtype(w), weight)]
    b = _tensor(found, Role.BIAS)
    if b is not None:
        operation["bias"] = "b"
        params.append(("b", "in", _dtype(b), [_int(d) for d in b.shape]))
    operation.update({"out": "y", "weight_layout": layout.spelling})
    params.append(("y", "out", _dtype(out), result))
    suffix = "_bias" if b is not None else ""
    extents = "x".join(str(d) for d in weight)
    return _Family(
        f"linear_{layout.spelling}_{dtype}_{extents}{suffix}",
        f"{dtype} linear layer, weight {layout.spelling} {weight}"
        f"{' with bias' if b is not None else ''}, proposed from {model}.",
        "linear",
        operation,
        params,
        {"tokens": tokens},
    )


def _rope(found: Found, out: torch.Tensor, model: str) -> _Family | None:
    q, k, cos = (_tensor(found, r) for r in (Role.QUERY, Role.KEY, Role.COS))
    r = found.attrs.get("rotary_dim")
    if q is None or k is None or cos is None or not isinstance(r, int) or q.dim() != 4:
        return None
    heads, kv_heads, d = _int(q.shape[1]), _int(k.shape[1]), _int(q.shape[3])
    tokens = _int(q.shape[0]) * _int(q.shape[2])
    dtype = _dtype(q)
    table = ["tokens", r // 2]
    return _Family(
        f"rope_{dtype}_{heads}x{kv_heads}x{d}",
        f"Rotary embedding of {dtype} queries of {heads} heads and keys of {kv_heads}, head "
        f"{d}, proposed from {model}.",
        "rope",
        {
            "query": "q",
            "key": "k",
            "cos": "cos",
            "sin": "sin",
            "query_out": "q_out",
            "key_out": "k_out",
            "rotary_dim": r,
            "interleaved": bool(found.attrs.get("interleaved")),
        },
        [
            ("q", "in", dtype, ["tokens", heads, d]),
            ("k", "in", _dtype(k), ["tokens", kv_heads, d]),
            ("cos", "in", _dtype(cos), table),
            ("sin", "in", _dtype(cos), table),
            ("q_out", "out", dtype, ["tokens", heads, d]),
            ("k_out", "out", _dtype(k), ["tokens", kv_heads, d]),
        ],
        {"tokens": tokens},
    )


def _attention(found: Found, out: torch.Tensor, model: str) -> _Family | None:
    q, k, v = (_tensor(found, r) for r in (Role.QUERY, Role.KEY, Role.VALUE))
    if q is None or k is None or v is None or found.scale is None or found.causal is None:
        return None
    heads, kv_heads, d = _int(q.shape[1]), _int(k.shape[1]), _int(q.shape[3])
    same = q.shape[2] is k.shape[2] or _int(q.shape[2]) == _int(k.shape[2])
    seq_kv = "seq" if same else "seq_kv"
    dtype = _dtype(q)
    symbols = {"batch": _int(q.shape[0]), "seq": _int(q.shape[2])}
    if not same:
        symbols["seq_kv"] = _int(k.shape[2])
    causal = "_causal" if found.causal else ""
    return _Family(
        f"attention_{dtype}_{heads}x{kv_heads}x{d}{causal}",
        f"{'Causal ' if found.causal else ''}{dtype} attention of {heads} query heads over "
        f"{kv_heads} KV heads of {d}, proposed from {model}.",
        "dense_attention",
        {
            "query": "q",
            "key": "k",
            "value": "v",
            "out": "o",
            "causal": found.causal,
            "scale": found.scale,
        },
        [
            ("q", "in", dtype, ["batch", heads, "seq", d]),
            ("k", "in", _dtype(k), ["batch", kv_heads, seq_kv, d]),
            ("v", "in", _dtype(v), ["batch", kv_heads, seq_kv, d]),
            ("o", "out", _dtype(out), ["batch", heads, "seq", d]),
        ],
        symbols,
    )


_DECLARE: dict[type, Callable[[Found, torch.Tensor, str], _Family | None]] = {
    ElementwiseUnary: _unary,
    ElementwiseBinary: _binary,
    Norm: _norm,
    Softmax: _softmax,
    Linear: _linear,
    Rope: _rope,
    DenseAttention: _attention,
}
# A matmul of an activation by a 2-D weight is declared as its linear reading; one of two
# activations (attention scores outside a form) is not declared.


def propose(
    model: Callable[..., Any],
    args: Sequence[object] = (),
    kwargs: Mapping[str, object] | None = None,
    *,
    platform: str,
    execution_mode: str,
    backend: str,
    runtime: str,
    dims: Mapping[str, tuple[int, int]] | None = None,
    prefix: str = "",
    codec: str = "placeholder.v1",
) -> dict[str, str]:
    """The families ``model`` needs, called on ``args`` and ``kwargs`` (run once, under
    ``torch.no_grad``): ``{file name: TOML}``, one family file per distinct computation, named
    ``PREFIX`` + kind, dtype and extents (``linear_nk_bf16_11008x4096``).

    ``platform``, ``execution_mode``, ``backend`` and ``runtime`` are the target's names in the
    catalog's ``abi.toml`` (each family's one profile). ``dims`` gives a symbol's range
    (``tokens``, ``batch``, ``seq``, ``seq_kv``) as ``(min, max)``; a symbol without one runs
    from 1 to the example's extent. Receipts are placeholders (``codec``, a zero-prefixed
    digest): qualify each kernel and paste its receipt before the catalog is used."""
    graphs: list[GraphModule] = []

    def capture(gm: GraphModule, example_inputs: Sequence[object]) -> Callable[..., Any]:
        graphs.append(gm)
        return gm.forward  # type: ignore[no-any-return, unused-ignore]

    with torch.no_grad():
        torch.compile(model, backend=capture, dynamic=True)(*args, **(kwargs or {}))
    name = type(model).__name__
    families: dict[str, str] = {}
    seen: dict[str, str] = {}
    for gm in graphs:
        for found in computations(gm):
            fam = _declare(found, name)
            if fam is None:
                continue
            fam.name = prefix + fam.name
            text = _toml(fam, dims or {}, platform, execution_mode, backend, runtime, codec)
            body = text.split("\n", 1)[1]  # the same family whatever its name
            if body in seen:
                continue
            base, n = fam.name, 2
            while f"{fam.name}.toml" in families:
                fam.name, n = f"{base}_{n}", n + 1
            text = _toml(fam, dims or {}, platform, execution_mode, backend, runtime, codec)
            seen[body] = fam.name
            families[f"{fam.name}.toml"] = text
    return families


def write_proposal(proposal: Mapping[str, str], manifest: str | Path) -> list[Path]:
    """Write ``proposal`` into ``MANIFEST/families/`` (``kfam init`` writes ``abi.toml``); a
    file that exists is never overwritten (``FileExistsError``). The paths written."""
    directory = Path(manifest) / "families"
    directory.mkdir(parents=True, exist_ok=True)
    for file in proposal:
        if (directory / file).exists():
            raise FileExistsError(directory / file)
    written = []
    for file, text in sorted(proposal.items()):
        path = directory / file
        with open(path, "x", encoding="utf-8") as f:
            f.write(text)
        written.append(path)
    return written


def _value(v: Value) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(v, list):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    raise TypeError(type(v).__name__)


def _toml(
    fam: _Family,
    dims: Mapping[str, tuple[int, int]],
    platform: str,
    mode: str,
    backend: str,
    runtime: str,
    codec: str,
) -> str:
    outs = [p[0] for p in fam.params if p[1] == "out"]
    lines = [
        f"name = {_value(fam.name)}",
        "revision = 1",
        f"summary = {_value(fam.summary)}",
        'contract = "kernel"',
        "torch = true",
        f"returns = {_value(outs)}",
        "",
        f"[operation.{fam.kind}]",
    ]
    lines += [f"{k} = {_value(v)}" for k, v in fam.operation.items()]
    for pname, direction, dtype, shape in fam.params:
        lines += ["", "[[params]]", f"name = {_value(pname)}"]
        if direction != "in":
            lines.append(f"direction = {_value(direction)}")
        lines += [f"dtype = {_value(dtype)}", f"shape = {_value(shape)}"]
    used = {d for p in fam.params for d in p[3] if isinstance(d, str)}
    for sym in sorted(used):
        low, high = dims.get(sym, (1, max(1, fam.symbols.get(sym, 1))))
        lines += ["", f"[dims.{sym}]", f"min = {low}", f"max = {high}"]
    profile = f"{platform}_{mode}"
    digest = "0" * 32 + hashlib.sha256(fam.name.encode()).hexdigest()[:32]
    bindings = ",\n".join(
        f'  {{ param = "{p[0]}", slot = {i}, kind = "tensor_arg" }}'
        for i, p in enumerate(fam.params)
    )
    lines += [
        "",
        "[[profiles]]",
        f"name = {_value(profile)}",
        f"platform = {_value(platform)}",
        f"backend = {_value(backend)}",
        f"runtime = {_value(runtime)}",
        f"execution_mode = {_value(mode)}",
        f"bindings = [\n{bindings},\n]",
        "",
        "# A placeholder: qualify the kernel (kfam.qualify) and paste its receipt here.",
        "[[receipts]]",
        f"profile = {_value(profile)}",
        f"codec = {_value(codec)}",
        f"artifact = {_value(f'{platform}/{mode}/{fam.name}.so')}",
        f'sha256 = "{digest}"',
        f'evidence = {{ date = "{datetime.date.today().isoformat()}", hardware = "none: '
        'placeholder receipt, not qualified", note = "proposed by kfam_runtime.route.propose; '
        'replace with a real qualification" }',
    ]
    return "\n".join(lines) + "\n"
