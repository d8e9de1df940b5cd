# PyTorch's own annotations are full of `Any`: this module, which works in them, is exempt
# from `--disallow-any-expr` (it passes `mypy --strict`, with torch and without).
# mypy: disallow-any-expr=False
"""What an attention mask computed in the graph is, for every extent (``_forms.py``).

Model code builds its causal mask in the graph: Hugging Face transformers (4.5x) materializes a
boolean ``[B, 1, S, S_kv]`` mask with ``torch.vmap`` over index functions (``kv_idx <= q_idx``,
and a packed-sequence test on ``position_ids``) whenever it is traced, and passes it to SDPA
with ``is_causal=False``; its eager attention adds ``where(mask, 0, finfo.min)``. Routing that
attention onto a ``causal`` family needs a proof that the mask is exactly ``kv <= q`` at every
extent the compiled graph serves, not at the example's.

The proof evaluates the mask's subgraph *symbolically in its indices*: each value is a function
from index symbols to a SymPy expression (integers, booleans, comparisons), extents are the
graph's own symbols. Arithmetic stays affine; ``diff`` of a value affine in its axis is a
constant when its ``prepend`` continues the line; ``cumsum`` of a constant is affine; ``vmap``
levels bind an index symbol (``_add_batch_dim``) and release it into an axis
(``_remove_batch_dim``). Anything else (a tensor the graph reads from its inputs, a padding
mask, an operator not listed) makes the mask unknown, and the attention is not routed.

No PyTorch facility decides what values a subgraph computes for all extents (the pattern
matchers match structure), hence this evaluator; it is small and closed, and says "unknown"
rather than guess.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import sympy  # type: ignore[import-not-found, import-untyped, unused-ignore]
import torch  # type: ignore[import-not-found, unused-ignore]
from torch.fx import Node  # type: ignore[import-not-found, unused-ignore]

from ._flops import op_name

Expr = Any
Index = tuple[Expr, ...]


class Unknown(Exception):
    """The mask's subgraph holds something the evaluator does not model."""


@dataclass(frozen=True)
class _Value:
    """A tensor as a function of its index: ``shape`` (SymPy extents) and ``at`` (the element at
    an index tuple)."""

    shape: tuple[Expr, ...]
    at: Callable[[Index], Expr]


_ONE = sympy.Integer(1)


def _size(x: object) -> Expr:
    if isinstance(x, bool):
        raise Unknown("a bool extent")
    if isinstance(x, int):
        return sympy.Integer(x)
    if isinstance(x, torch.SymInt):
        return x.node.expr
    if isinstance(x, Node):
        v = x.meta.get("val", x.meta.get("example_value"))
        if isinstance(v, (int, torch.SymInt)):
            return _size(v)
    raise Unknown(f"an extent {x!r}")


def _scalar(x: object) -> Expr:
    if isinstance(x, bool):
        return sympy.true if x else sympy.false
    if isinstance(x, (int, float)):
        # Floats keep all 53 bits (a mask's lowest value is compared exactly).
        return sympy.Integer(x) if isinstance(x, int) else sympy.Float(x, precision=53)
    return _size(x)


class _Evaluator:
    def __init__(self) -> None:
        self.memo: dict[Node, _Value] = {}
        #: The index symbol each vmap level binds.
        self.levels: dict[int, Expr] = {}
        self.fresh = 0
        #: Every index symbol handed out (a value free of them is constant).
        self.indices: set[Expr] = set()

    def symbol(self) -> Expr:
        self.fresh += 1
        sym = sympy.Symbol(f"i{self.fresh}", integer=True, nonnegative=True)
        self.indices.add(sym)
        return sym

    def value(self, x: object) -> _Value:
        if isinstance(x, Node):
            if x not in self.memo:
                self.memo[x] = self.node(x)
            return self.memo[x]
        s = _scalar(x)
        return _Value((), lambda idx: s)

    def node(self, n: Node) -> _Value:
        if n.op not in ("call_function", "call_method"):
            raise Unknown(f"`{n.name}` is an input of the graph")
        name = op_name(n)
        args, kw = n.args, n.kwargs
        handler = _HANDLERS.get(name)
        if handler is None:
            raise Unknown(f"`{n.name}` computes {name}")
        return handler(self, n, args, kw)


def _broadcast(values: Sequence[_Value]) -> tuple[tuple[Expr, ...], list[Callable[[Index], Index]]]:
    rank = max(len(v.shape) for v in values)
    shape: list[Expr] = []
    for axis in range(rank):
        extents = [
            v.shape[axis - rank + len(v.shape)] for v in values if axis - rank + len(v.shape) >= 0
        ]
        big = [e for e in extents if e != _ONE]
        shape.append(big[0] if big else _ONE)

    def mapper(v: _Value) -> Callable[[Index], Index]:
        lead = rank - len(v.shape)
        return lambda idx: tuple(
            sympy.Integer(0) if e == _ONE else idx[lead + a] for a, e in enumerate(v.shape)
        )

    return tuple(shape), [mapper(v) for v in values]


def _pointwise(fn: Callable[..., Expr]) -> Callable[..., _Value]:
    def handle(ev: _Evaluator, n: Node, args: Sequence[object], kw: dict[str, Any]) -> _Value:
        operands = [ev.value(a) for a in args[:2]]
        if kw.get("alpha", 1) != 1:
            raise Unknown("alpha")
        shape, maps = _broadcast(operands)
        return _Value(shape, lambda idx: fn(*(v.at(m(idx)) for v, m in zip(operands, maps))))

    return handle


def _and(a: Expr, b: Expr) -> Expr:
    return sympy.And(_bool(a), _bool(b))


def _or(a: Expr, b: Expr) -> Expr:
    return sympy.Or(_bool(a), _bool(b))


def _bool(e: Expr) -> Expr:
    if e in (sympy.true, sympy.false) or isinstance(e, sympy.logic.boolalg.Boolean):
        return e
    return sympy.Ne(e, 0)


def _identity(ev: _Evaluator, n: Node, args: Sequence[object], kw: dict[str, Any]) -> _Value:
    """A device move, a dtype conversion that keeps booleans and integers what they are, an
    alias, a contiguous copy."""
    v = n.meta.get("val", n.meta.get("example_value"))
    src = args[0]
    s = src.meta.get("val", src.meta.get("example_value")) if isinstance(src, Node) else None
    if isinstance(v, torch.Tensor) and isinstance(s, torch.Tensor) and v.dtype != s.dtype:
        if v.dtype.is_floating_point or v.dtype == torch.bool:
            raise Unknown("a dtype conversion")
    return ev.value(src)


def _arange(ev: _Evaluator, n: Node, args: Sequence[object], kw: dict[str, Any]) -> _Value:
    values = [_size(a) for a in args]
    if "start" in kw or "end" in kw or "step" in kw:
        raise Unknown("arange keywords")
    start, step = sympy.Integer(0), sympy.Integer(1)
    if len(values) == 1:
        (end,) = values
    elif len(values) == 2:
        start, end = values
    elif len(values) == 3:
        start, end, step = values
        if step != _ONE:
            raise Unknown("arange step")
    else:
        raise Unknown("arange arguments")
    return _Value((end - start,), lambda idx: start + idx[0])


def _unsqueeze(ev: _Evaluator, n: Node, args: Sequence[object], kw: dict[str, Any]) -> _Value:
    x = ev.value(args[0])
    dim = args[1] if len(args) > 1 else kw.get("dim")
    if not isinstance(dim, int):
        raise Unknown("unsqueeze dim")
    rank = len(x.shape) + 1
    dim %= rank
    shape = (*x.shape[:dim], _ONE, *x.shape[dim:])
    return _Value(shape, lambda idx: x.at((*idx[:dim], *idx[dim + 1 :])))


def _expand(ev: _Evaluator, n: Node, args: Sequence[object], kw: dict[str, Any]) -> _Value:
    x = ev.value(args[0])
    sizes = args[1:] if len(args) > 2 or not isinstance(args[1], (list, tuple)) else args[1]
    sizes = list(sizes)
    lead = len(sizes) - len(x.shape)
    if lead < 0:
        raise Unknown("expand rank")
    shape = []
    for a, s in enumerate(sizes):
        if isinstance(s, int) and s == -1:
            shape.append(x.shape[a - lead])
        else:
            shape.append(_size(s))
    return _Value(
        tuple(shape),
        lambda idx: x.at(
            tuple(sympy.Integer(0) if e == _ONE else idx[lead + a] for a, e in enumerate(x.shape))
        ),
    )


def _getitem(ev: _Evaluator, n: Node, args: Sequence[object], kw: dict[str, Any]) -> _Value:
    x = ev.value(args[0])
    items = args[1] if isinstance(args[1], tuple) else (args[1],)
    if sum(1 for i in items if i is Ellipsis) > 1:
        raise Unknown("indexing")
    used = sum(1 for i in items if i is not None and i is not Ellipsis)
    full: list[object] = []
    for i in items:
        if i is Ellipsis:
            full += [slice(None)] * (len(x.shape) - used)
        else:
            full.append(i)
    full += [slice(None)] * (len(x.shape) - sum(1 for i in full if i is not None))
    # Each output axis: ("new",) or ("slice", input axis, start, step); ints fix an input axis.
    plan: list[tuple[Any, ...]] = []
    fixed: dict[int, Expr] = {}
    shape: list[Expr] = []
    axis = 0
    for i in full:
        if i is None:
            plan.append(("new",))
            shape.append(_ONE)
        elif isinstance(i, int) and not isinstance(i, bool):
            if i < 0:
                raise Unknown("negative index")
            fixed[axis] = sympy.Integer(i)
            axis += 1
        elif isinstance(i, slice):
            if i.step not in (None, 1):
                raise Unknown("slice step")
            start = _size(i.start) if i.start is not None else sympy.Integer(0)
            if start.is_negative:
                raise Unknown("negative slice")
            stop = x.shape[axis] if i.stop is None else sympy.Min(_size(i.stop), x.shape[axis])
            plan.append(("slice", axis, start))
            shape.append(sympy.simplify(stop - start))
            axis += 1
        else:
            raise Unknown("advanced indexing")

    def at(idx: Index) -> Expr:
        src: list[Expr] = [sympy.Integer(0)] * len(x.shape)
        for a, v in fixed.items():
            src[a] = v
        for out, p in zip(idx, plan):
            if p[0] == "slice":
                src[p[1]] = p[2] + out
        return x.at(tuple(src))

    return _Value(tuple(shape), at)


def _slice(ev: _Evaluator, n: Node, args: Sequence[object], kw: dict[str, Any]) -> _Value:
    """``aten.slice.Tensor(x, dim, start, end)``."""
    x = ev.value(args[0])
    dim = args[1] if len(args) > 1 else 0
    start = args[2] if len(args) > 2 else None
    end = args[3] if len(args) > 3 else None
    if not isinstance(dim, int) or (len(args) > 4 and args[4] != 1):
        raise Unknown("slice")
    dim %= len(x.shape)
    if isinstance(end, int) and end >= 2**62:
        end = None
    items = tuple([slice(None)] * dim + [slice(start, end)])
    return _getitem(ev, n, (args[0], items), {})


def _diff(ev: _Evaluator, n: Node, args: Sequence[object], kw: dict[str, Any]) -> _Value:
    """``diff(x, n=1, dim, prepend)`` of a value affine along ``dim`` whose ``prepend``
    continues the line: the constant step."""
    names = ["input", "n", "dim", "prepend", "append"]
    given = dict(zip(names, args))
    given.update(kw)
    if given.get("n", 1) != 1 or given.get("append") is not None:
        raise Unknown("diff")
    x = ev.value(given["input"])
    dim = given.get("dim", -1)
    if not isinstance(dim, int):
        raise Unknown("diff dim")
    dim %= len(x.shape)
    t = ev.symbol()
    idx: list[Expr] = [ev.symbol() for _ in x.shape]
    idx[dim] = t
    here = x.at(tuple(idx))
    before = x.at(tuple(idx[:dim] + [t - 1] + idx[dim + 1 :]))
    step = sympy.simplify(here - before)
    if t in step.free_symbols:
        raise Unknown("diff of a value not affine along its axis")
    prepend = given.get("prepend")
    if prepend is None:
        shape = (*x.shape[:dim], x.shape[dim] - 1, *x.shape[dim + 1 :])
    else:
        p = ev.value(prepend)
        if len(p.shape) != len(x.shape) or p.shape[dim] != _ONE:
            raise Unknown("diff prepend of more than one step")
        first = x.at(tuple(idx[:dim] + [sympy.Integer(0)] + idx[dim + 1 :]))
        lead = p.at(tuple(sympy.Integer(0) if e == _ONE else i for e, i in zip(p.shape, idx)))
        if sympy.simplify(first - lead - step) != 0:
            raise Unknown("diff prepend off the line")
        shape = x.shape
    return _Value(shape, lambda _: step)


def _cumsum(ev: _Evaluator, n: Node, args: Sequence[object], kw: dict[str, Any]) -> _Value:
    x = ev.value(args[0])
    dim = args[1] if len(args) > 1 else kw.get("dim")
    if not isinstance(dim, int) or kw.get("dtype") is not None:
        raise Unknown("cumsum")
    dim %= len(x.shape)
    probe = x.at(tuple(ev.symbol() for _ in x.shape))
    if probe in (sympy.true, sympy.false):
        probe = sympy.Integer(1 if probe is sympy.true else 0)
    if isinstance(probe, sympy.logic.boolalg.Boolean) or probe.free_symbols & ev.indices:
        raise Unknown("cumsum of a value that varies")
    c = probe
    return _Value(x.shape, lambda idx: c * (idx[dim] + 1))


def _new_ones(ev: _Evaluator, n: Node, args: Sequence[object], kw: dict[str, Any]) -> _Value:
    sizes = args[1] if len(args) > 1 else kw.get("size")
    if not isinstance(sizes, (list, tuple)):
        raise Unknown("new_ones size")
    v = n.meta.get("val", n.meta.get("example_value"))
    one = sympy.true if isinstance(v, torch.Tensor) and v.dtype == torch.bool else _ONE
    return _Value(tuple(_size(s) for s in sizes), lambda idx: one)


def _index(ev: _Evaluator, n: Node, args: Sequence[object], kw: dict[str, Any]) -> _Value:
    """``aten.index(x, [i, j, ...])`` with index tensors that are (batched) scalars."""
    x = ev.value(args[0])
    indices = args[1]
    if not isinstance(indices, (list, tuple)) or len(indices) != len(x.shape):
        raise Unknown("index")
    ix = [ev.value(i) for i in indices]
    if any(v.shape for v in ix):
        raise Unknown("index by a tensor with extents")
    return _Value((), lambda idx: x.at(tuple(v.at(()) for v in ix)))


def _flat_apply(ev: _Evaluator, n: Node, args: Sequence[object], kw: dict[str, Any]) -> _Value:
    """``torch.export``'s spelling of indexing inside ``vmap``: ``flat_apply`` of Dynamo's
    ``ModIndex`` over the tensor and its indices."""
    if len(args) < 4 or "ModIndex" not in str(args[2]):
        raise Unknown("flat_apply")
    return _index(ev, n, (args[3], list(args[4:])), {})


def _add_batch_dim(ev: _Evaluator, n: Node, args: Sequence[object], kw: dict[str, Any]) -> _Value:
    x = ev.value(args[0])
    in_dim, level = args[1], args[2]
    if not isinstance(in_dim, int) or not isinstance(level, int):
        raise Unknown("vmap level")
    sym = ev.levels.get(level)
    if sym is None:
        sym = ev.levels[level] = sympy.Symbol(f"v{level}", integer=True, nonnegative=True)
        ev.indices.add(sym)
    in_dim %= len(x.shape)
    return _Value(
        (*x.shape[:in_dim], *x.shape[in_dim + 1 :]),
        lambda idx: x.at((*idx[:in_dim], sym, *idx[in_dim:])),
    )


def _remove_batch_dim(
    ev: _Evaluator, n: Node, args: Sequence[object], kw: dict[str, Any]
) -> _Value:
    x = ev.value(args[0])
    level, size, out_dim = args[1], args[2], args[3]
    if not isinstance(level, int) or not isinstance(out_dim, int):
        raise Unknown("vmap level")
    # A level no value read (the head axis of a mask that is the same for every head).
    sym = ev.levels.get(level, sympy.Symbol(f"v{level}", integer=True, nonnegative=True))
    shape = (*x.shape[:out_dim], _size(size), *x.shape[out_dim:])

    def at(idx: Index) -> Expr:
        inner = x.at((*idx[:out_dim], *idx[out_dim + 1 :]))
        return inner.subs(sym, idx[out_dim]) if hasattr(inner, "subs") else inner

    return _Value(shape, at)


def _where(ev: _Evaluator, n: Node, args: Sequence[object], kw: dict[str, Any]) -> _Value:
    cond, a, b = (ev.value(x) for x in args[:3])
    shape, maps = _broadcast([cond, a, b])
    return _Value(
        shape,
        lambda idx: sympy.Piecewise(
            (a.at(maps[1](idx)), _bool(cond.at(maps[0](idx)))), (b.at(maps[2](idx)), True)
        ),
    )


def _tensor(ev: _Evaluator, n: Node, args: Sequence[object], kw: dict[str, Any]) -> _Value:
    """``torch.tensor(c)`` of a Python number: a constant."""
    if len(args) != 1 or not isinstance(args[0], (int, float)):
        raise Unknown("tensor data")
    c = _scalar(args[0])
    return _Value((), lambda idx: c)


def _inplace_add(ev: _Evaluator, n: Node, args: Sequence[object], kw: dict[str, Any]) -> _Value:
    return _pointwise(operator.add)(ev, n, args, kw)


_HANDLERS: dict[str, Callable[[_Evaluator, Node, Sequence[object], dict[str, Any]], _Value]] = {
    "arange": _arange,
    "add": _pointwise(operator.add),
    "iadd": _inplace_add,
    "add_": _inplace_add,
    "sub": _pointwise(operator.sub),
    "isub": _pointwise(operator.sub),
    "mul": _pointwise(operator.mul),
    "le": _pointwise(sympy.Le),
    "lt": _pointwise(sympy.Lt),
    "ge": _pointwise(sympy.Ge),
    "gt": _pointwise(sympy.Gt),
    "eq": _pointwise(sympy.Eq),
    "__eq__": _pointwise(sympy.Eq),
    "ne": _pointwise(sympy.Ne),
    "__ne__": _pointwise(sympy.Ne),
    "__and__": _pointwise(_and),
    "and_": _pointwise(_and),
    "bitwise_and": _pointwise(_and),
    "logical_and": _pointwise(_and),
    "__or__": _pointwise(_or),
    "or_": _pointwise(_or),
    "bitwise_or": _pointwise(_or),
    "logical_or": _pointwise(_or),
    "unsqueeze": _unsqueeze,
    "expand": _expand,
    "getitem": _getitem,
    "slice": _slice,
    "diff": _diff,
    "cumsum": _cumsum,
    "new_ones": _new_ones,
    "index": _index,
    "flat_apply": _flat_apply,
    "_add_batch_dim": _add_batch_dim,
    "_remove_batch_dim": _remove_batch_dim,
    "where": _where,
    "tensor": _tensor,
    "to": _identity,
    "alias": _identity,
    "contiguous": _identity,
    "clone": _identity,
}


_DEBUG = False


def _min_of(dtype: torch.dtype) -> float:
    return float(torch.finfo(dtype).min)


def causal_mask(mask: Node, scores: Sequence[object]) -> bool | None:
    """Whether ``mask``, as SDPA or eager attention apply it over scores ``[B, H, S, S_kv]``,
    is exactly the causal mask (``True``: key ``j`` visible to query ``i`` iff ``j <= i``), no
    mask at all (``False``: every key visible), or unknown (``None``). A boolean mask allows
    where it is true; an additive one (eager attention) adds 0 where visible and at most the
    dtype's lowest value elsewhere."""
    try:
        value = _Evaluator().value(mask)
    except Exception as e:  # Unknown, or SymPy's own: an unknown mask, never a failed compile
        if _DEBUG:
            print("mask unknown:", repr(e))
        return None
    rank = len(value.shape)
    if rank > 4:
        return None
    b, h, q, k = (sympy.Symbol(n, integer=True, nonnegative=True) for n in ("b", "h", "q", "k"))
    idx = (b, h, q, k)[4 - rank :]
    shape = ((_ONE,) * (4 - rank)) + value.shape
    want = [None, None, _size(scores[2]), _size(scores[3])]
    for axis in (2, 3):
        if shape[axis] != _ONE and sympy.simplify(shape[axis] - want[axis]) != 0:
            return None
    at = tuple(sympy.Integer(0) if e == _ONE else i for e, i in zip(value.shape, idx))
    try:
        element = sympy.simplify(value.at(at))
    except Exception:  # SymPy's own: unknown
        return None
    v = mask.meta.get("val", mask.meta.get("example_value"))
    if _DEBUG:
        print("mask element:", element, value.shape)
    if not isinstance(v, torch.Tensor):
        return None
    if v.dtype == torch.bool:
        allowed = element
    elif v.dtype.is_floating_point:
        # Additive: 0 where visible, the dtype's lowest value (or -inf) elsewhere.
        lowest = _min_of(v.dtype)
        if not isinstance(element, sympy.Piecewise) or len(element.args) != 2:
            return False if getattr(element, "is_zero", False) else None
        (zero, cond), (low, rest) = element.args
        if not zero.is_zero or rest is not sympy.true:
            return None
        if not (low.is_number and (low == -sympy.oo or float(low) <= lowest)):
            return None
        allowed = cond
    else:
        return None
    if allowed is sympy.true:
        return False
    causal = sympy.Le(k, q)
    if allowed == causal or sympy.simplify(sympy.Equivalent(allowed, causal)) is sympy.true:
        return True
    return None
