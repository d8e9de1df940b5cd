# PyTorch's own annotations are full of `Any`: this module, which works in them, is exempt
# from `--disallow-any-expr` (it passes `mypy --strict`, with torch and without).
# mypy: disallow-any-expr=False
"""Estimated floating-point operations of an FX graph's nodes, for the routing report
(docs/torch.md, "The report"): what a family would buy, by share of the graph's work.

The estimate counts floating-point work only, from each node's fake value at its hints:

- a matrix product (``mm``, ``matmul``, ``bmm``, ``linear``, ``addmm``, ``@``): ``2 M N K`` per
  batch, plus ``M N`` for a bias;
- attention (``scaled_dot_product_attention``): ``2 S S_kv (D + D_v)`` per batch and head;
- a pointwise operator over floating-point values: one per output element;
- a reduction (``sum``, ``mean``, ``amax``, ...): one per input element; softmax 5 and a norm 4
  (RMSNorm) or 5 (LayerNorm) per element, as many as their written-out forms;
- everything else (views, copies, casts, gathers, integer and boolean index arithmetic): none.

A form of several nodes (RMSNorm written out) counts what its nodes count.
"""

from __future__ import annotations

import math
import operator
from typing import Any, Final

import torch  # type: ignore[import-not-found, unused-ignore]
from torch.fx import Node  # type: ignore[import-not-found, unused-ignore]

_POINTWISE: Final = frozenset(
    {
        "add",
        "sub",
        "mul",
        "div",
        "truediv",
        "floordiv",
        "rsub",
        "radd",
        "rmul",
        "iadd",
        "isub",
        "imul",
        "itruediv",
        "add_",
        "sub_",
        "mul_",
        "div_",
        "neg",
        "abs",
        "exp",
        "log",
        "sqrt",
        "rsqrt",
        "relu",
        "gelu",
        "silu",
        "sigmoid",
        "tanh",
        "pow",
        "square",
        "reciprocal",
        "maximum",
        "minimum",
        "where",
        "clamp",
        "erf",
        "sin",
        "cos",
        "masked_fill",
    }
)
_REDUCTIONS: Final = frozenset({"sum", "mean", "amax", "amin", "max", "min", "var", "std"})
_MATMULS: Final = frozenset({"mm", "matmul", "bmm", "linear", "addmm", "baddbmm"})
_PER_ELEMENT: Final = {
    "softmax": 5,
    "_softmax": 5,
    "log_softmax": 5,
    "rms_norm": 4,
    "layer_norm": 5,
}
_ATTENTION: Final = frozenset({"scaled_dot_product_attention"})


def op_name(node: Node) -> str:
    """The operator's name, alike in Dynamo's and ATen's graphs (``add`` for ``operator.add``,
    ``torch.add``, ``x.add`` and ``aten.add.Tensor``)."""
    target = node.target
    if node.op == "call_method":
        return str(target)
    if isinstance(target, torch._ops.OpOverload):
        return str(target._schema.name).split("::")[-1]
    if target is operator.matmul:
        return "matmul"
    return str(getattr(target, "__name__", target))


def _val(x: object) -> object:
    if isinstance(x, Node):
        return x.meta.get("val", x.meta.get("example_value"))
    return x


def _n(value: object) -> int:
    """An extent or a count at its hint (0 for an unbacked one)."""
    if isinstance(value, int):
        return value
    if isinstance(value, torch.SymInt):
        hint = value.node.hint
        return int(hint) if hint is not None else 0
    return 0


def _numel(t: torch.Tensor) -> int:
    return math.prod(_n(d) for d in t.shape)


def _tensors(node: Node) -> list[torch.Tensor]:
    found = []
    for a in (*node.args, *node.kwargs.values()):
        for x in a if isinstance(a, (list, tuple)) else (a,):
            v = _val(x)
            if isinstance(v, torch.Tensor):
                found.append(v)
    return found


def node_flops(node: Node) -> int:
    """The node's estimated floating-point operations (module docstring)."""
    if node.op not in ("call_function", "call_method"):
        return 0
    out = _val(node)
    if not isinstance(out, torch.Tensor):
        return 0
    name = op_name(node)
    ins = _tensors(node)
    if not (out.dtype.is_floating_point or any(t.dtype.is_floating_point for t in ins)):
        return 0
    if name in _MATMULS:
        return _matmul(name, out, ins)
    if name in _ATTENTION and len(ins) >= 3:
        q, k, v = ins[:3]
        heads = math.prod(_n(d) for d in q.shape[:-2])
        s, skv = _n(q.shape[-2]), _n(k.shape[-2])
        return 2 * heads * s * skv * (_n(q.shape[-1]) + _n(v.shape[-1]))
    if name in _PER_ELEMENT:
        return _PER_ELEMENT[name] * _numel(out)
    if name in _REDUCTIONS:
        return _numel(ins[0]) if ins else 0
    if name in _POINTWISE:
        return _numel(out)
    return 0


def _matmul(name: str, out: torch.Tensor, ins: list[torch.Tensor]) -> int:
    if name == "linear":
        k = _n(ins[0].shape[-1]) if ins else 0
        bias = _numel(out) if len(ins) > 2 else 0
        return 2 * _numel(out) * k + bias
    if name in ("addmm", "baddbmm") and len(ins) >= 3:
        return 2 * _numel(out) * _n(ins[1].shape[-1]) + _numel(out)
    if len(ins) >= 2:
        return 2 * _numel(out) * _n(ins[0].shape[-1])
    return 0


def describe(t: Any) -> str:
    """A tensor's dtype and extents at their hints (``bf16 [2, 8, 64]``)."""
    from ._tensors import kfam_dtype

    try:
        dtype = kfam_dtype(t.dtype).spelling
    except TypeError:
        dtype = str(t.dtype).removeprefix("torch.")
    return f"{dtype} [{', '.join(str(_n(d)) for d in t.shape)}]"
