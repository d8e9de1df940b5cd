# PyTorch's own annotations are full of `Any`: this module, which works in them, is exempt
# from `--disallow-any-expr` (it passes `mypy --strict`, with torch and without).
# mypy: disallow-any-expr=False
"""The call a routed node makes (``route.py``): each parameter's view, described for the
catalog's ``validate_call``, the facts that decision read from symbolic values, and the function
the routed graph calls.

A node's operands reach a family's parameters through *call-site adaptations*, each a view,
never a copy of an operand: a transposed weight (``F.linear`` onto ``matmul``), leading extents
merged into rows where a row-wise family declares fewer (``[batch, seq, hidden]`` onto
``[tokens, hidden]``; docs/torch.md, "Leading dimensions"), a ``[B, H, S, D]`` view transposed
to ``[B, S, H, D]`` and merged to ``[T, H, D]`` (rotary). Each adaptation's own requirement (the
merged extents form one contiguous run) is one more fact, decided like the rest.

**Facts.** ``validate_call`` judges the call from the hints of symbolic extents. What it read
from them is listed as facts (each named symbol within its range and multiple, its uses equal,
declared static extents, row-major strides, alignment): under ``torch.compile`` each is guarded
(a routed node guards all; a refused one guards the first that failed, so an in-range call
recompiles and routes); under ``torch.export`` no guard can be added to the program, so each must
hold over the program's whole range, or the node is not routed.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from enum import Enum
from typing import TYPE_CHECKING, Any

import torch  # type: ignore[import-not-found, unused-ignore]
from torch.fx import Node  # type: ignore[import-not-found, unused-ignore]
from torch.fx.experimental.symbolic_shapes import (  # type: ignore[import-not-found, unused-ignore]
    statically_known_true,
    sym_or,
)

from ._call import ScalarArg, TensorArg
from ._match import Found, Role
from ._tensors import kfam_dtype
from .records import Family, Param
from .vocab import CallRule, DType, Layout, StorageFormat

if TYPE_CHECKING:
    from torch._ops import OpOverload  # type: ignore[import-not-found, unused-ignore]


class Refused(Exception):
    """A candidate refused while the call is described (an unknown dtype, an NZ parameter, a
    fact that does not hold over an exported program's range)."""

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(message)
        self.rule = rule
        self.message = message


class Mode(Enum):
    """How the facts a decision read from symbolic values are made to hold."""

    #: ``torch.compile``: guard them (a later call where one differs recompiles).
    GUARD = "guard"
    #: ``torch.export``: each must hold over the program's whole range (no guard can be added).
    STATIC = "static"


def hint(value: object) -> int:
    """The concrete value of an extent, a stride or an offset; a symbol's hint, which guards
    nothing (what the decision read is guarded or proven afterwards, ``settle``)."""
    if isinstance(value, int):
        return value
    if isinstance(value, torch.SymInt):
        h = value.node.hint
        if h is None:
            raise Refused("unbacked", "an extent is data-dependent (an unbacked symbol)")
        return int(h)
    raise Refused("shape", f"an extent is {type(value).__name__}")


@dataclass(frozen=True)
class View:
    """What the routed call passes for one tensor parameter: extents and strides (ints or
    ``SymInt``), storage offset, dtype and device; and the adaptations that made it from the
    node's operand, which the launcher repeats on the real tensor."""

    shape: tuple[Any, ...]
    strides: tuple[Any, ...]
    offset: Any
    dtype: torch.dtype
    device: int
    #: The operand's last two axes swapped (a weight passed transposed).
    transposed: bool = False
    #: Axes 1 and 2 swapped (``[B, H, S, D]`` read as ``[B, S, H, D]``).
    heads_last: bool = False
    #: How many leading axes were merged into the first (0: none).
    merged: int = 0
    #: A contiguous copy of the operand (attention's operands).
    contiguous: bool = False
    #: A rotary table's first ``table`` entries of each row, one row per token (0: none),
    #: the tokens those of the queries' axes 0 and ``table_seq``.
    table: int = 0
    table_seq: int = 2
    #: Facts the adaptations need (each merged run of axes is one contiguous run).
    needs: tuple[Fact, ...] = ()

    @staticmethod
    def of(t: torch.Tensor) -> View:
        return View(
            tuple(t.shape),
            tuple(t.stride()),
            t.storage_offset(),
            t.dtype,
            t.device.index or 0,
        )

    @staticmethod
    def fresh(shape: Sequence[object], dtype: torch.dtype, device: int) -> View:
        """A fresh row-major buffer (the routed call's output)."""
        strides: list[object] = []
        step: Any = 1
        for d in reversed(shape):
            strides.append(step)
            step = step * d
        return View(tuple(shape), tuple(reversed(strides)), 0, dtype, device)

    def t(self) -> View:
        """The last two axes swapped."""
        s, st = list(self.shape), list(self.strides)
        s[-1], s[-2] = s[-2], s[-1]
        st[-1], st[-2] = st[-2], st[-1]
        return replace(self, shape=tuple(s), strides=tuple(st), transposed=True)

    def swap12(self) -> View:
        """Axes 1 and 2 swapped: ``[B, H, S, D]`` as ``[B, S, H, D]``."""
        s, st = list(self.shape), list(self.strides)
        s[1], s[2] = s[2], s[1]
        st[1], st[2] = st[2], st[1]
        return replace(self, shape=tuple(s), strides=tuple(st), heads_last=True)

    def merge(self, count: int) -> View:
        """The first ``count + 1`` axes merged into one: a view only when they form one
        contiguous run, which becomes a fact."""
        if count <= 0:
            return self
        needs = list(self.needs)
        for i in range(count):
            want = self.strides[i + 1] * self.shape[i + 1]
            if isinstance(self.shape[i], int) and self.shape[i] == 1:
                continue  # an extent of 1 merges with any stride
            needs.append(
                Fact(
                    self.strides[i] == want,
                    CallRule.NOT_CONTIGUOUS,
                    f"axes 0..={count} of the operand form one contiguous run "
                    "(leading extents merged into rows)",
                )
            )
        rows: Any = 1
        for d in self.shape[: count + 1]:
            rows = rows * d
        return replace(
            self,
            shape=(rows, *self.shape[count + 1 :]),
            strides=(self.strides[count], *self.strides[count + 1 :]),
            merged=count,
            needs=tuple(needs),
        )


@dataclass(frozen=True)
class Fact:
    """One fact a decision read from symbolic values: ``holds`` (a bool or a ``SymBool``), the
    call rule that refuses the call where it does not hold, and what it says."""

    holds: Any
    rule: CallRule
    says: str


@dataclass
class Call:
    """The call a routed node makes: each parameter's value (a ``View``, or a float for eps or a
    scale), described for ``validate_call``."""

    family: Family
    values: list[object]
    out_shape: tuple[object, ...]
    out_dtype: torch.dtype
    #: Launcher adaptations per operand role.
    views: dict[Role, View] = field(default_factory=dict)

    def tensor_args(self) -> list[TensorArg]:
        args = []
        # Each operand its own synthetic storage: the outputs are fresh buffers, so no written
        # view can overlap an operand; reads may share storage freely.
        for n, p in enumerate(p for p in self.family.params if p.is_tensor):
            if p.layout is Layout.NZ:
                raise Refused(
                    CallRule.FORMAT.spelling,
                    f"`{p.name}` is NZ: a graph's tensor cannot say it is blocked",
                )
            v = self.values[p.index]
            assert isinstance(v, View), p.name
            shape = tuple(hint(d) for d in v.shape)
            strides = tuple(hint(s) for s in v.strides)
            offset = hint(v.offset)
            dtype = dtype_of(v.dtype)
            span = offset + sum((d - 1) * s for d, s in zip(shape, strides) if d > 0) + 1
            nbytes = 0 if 0 in shape else span * max(1, (DType(dtype).bits + 7) // 8)
            args.append(
                TensorArg(
                    dtype=dtype,
                    shape=shape,
                    strides=strides,
                    storage_offset=offset,
                    storage_bytes=nbytes,
                    storage=(n + 1) << 40,
                    format=StorageFormat.ND,
                    device_index=v.device,
                )
            )
        return args

    def scalar_args(self) -> list[ScalarArg]:
        return [ScalarArg.of(self.values[p.index]) for p in self.family.params if not p.is_tensor]  # type: ignore[arg-type]

    def facts(self) -> Iterator[Fact]:
        """What ``validate_call`` read from symbolic values, in its order: the adaptations'
        needs, then per tensor its declared static extents, alignment and row-major strides,
        then each named symbol's uses equal and its range and multiple."""
        fam = self.family
        for p in fam.params:
            v = self.values[p.index]
            if not isinstance(v, View) or len(v.shape) != len(p.shape):
                continue  # a rank refusal: no symbol decides it
            yield from v.needs
            for axis, declared in enumerate(p.shape):
                have = v.shape[axis]
                if declared >= 0 and not isinstance(have, int):
                    yield Fact(
                        have == declared,
                        CallRule.SHAPE,
                        f"axis {axis} of `{p.name}` is {declared}",
                    )
            if p.alignment > 1 and not isinstance(v.offset, int):
                offset: Any = v.offset
                bits = DType(dtype_of(v.dtype)).bits
                yield Fact(
                    (offset * bits // 8) % p.alignment == 0,
                    CallRule.ALIGNMENT,
                    f"`{p.name}` starts {p.alignment}-byte aligned",
                )
            yield from _row_major(p, v)
        for sym in fam.symbols:
            first = self._extent(sym.uses[0].param, sym.uses[0].axis)
            if first is None:
                continue
            for use in sym.uses[1:]:
                other = self._extent(use.param, use.axis)
                if other is None:
                    continue
                if not (isinstance(other, int) and isinstance(first, int)):
                    says = f"the uses of `{sym.name}` agree"
                    yield Fact(other == first, CallRule.DIM_MISMATCH, says)
            if isinstance(first, int):
                continue
            yield Fact(first >= sym.min, CallRule.DIM_RANGE, f"`{sym.name}` >= {sym.min}")
            if sym.max is not None:
                yield Fact(first <= sym.max, CallRule.DIM_RANGE, f"`{sym.name}` <= {sym.max}")
            if sym.multiple_of > 1:
                yield Fact(
                    first % sym.multiple_of == 0,
                    CallRule.DIM_RANGE,
                    f"`{sym.name}` is a multiple of {sym.multiple_of}",
                )

    def _extent(self, param: int, axis: int) -> Any:
        v = self.values[param]
        assert isinstance(v, View)
        return v.shape[axis] if axis < len(v.shape) else None


def _row_major(p: Param, v: View) -> Iterator[Fact]:
    """Row-major contiguity, as ``validate_call`` checks it: each extent other than 1 has the
    stride of the extents after it (an empty view passes: Dynamo and export never give a
    symbolic extent 0)."""
    expected: Any = 1
    for d, s in zip(reversed(v.shape), reversed(v.strides)):
        if isinstance(d, int) and isinstance(s, int) and isinstance(expected, int):
            pass  # concrete: validate_call judged it exactly
        elif isinstance(d, int) and d == 1:
            pass
        else:
            holds = s == expected if isinstance(d, int) else sym_or(d == 1, s == expected)
            yield Fact(holds, CallRule.NOT_CONTIGUOUS, f"`{p.name}` is a row-major view")
        expected = expected * d


def settle(call: Call, mode: Mode, accepted: bool) -> Refused | None:
    """Make the decision hold wherever the compiled graph runs.

    ``accepted`` (``validate_call`` accepted the call at the hints): under ``Mode.GUARD`` every
    fact is guarded; under ``Mode.STATIC`` each must hold over the whole range, else the
    ``Refused`` to report. Refused at the hints: under ``Mode.GUARD`` the first fact that fails
    at the hints is guarded to fail (enough for the refusal), so a call where it holds
    recompiles and is decided again; a refusal no fact explains (a dtype, a rank) is already
    guarded by the compiler. Under ``Mode.STATIC`` a refusal needs nothing (not routed)."""
    for fact in call.facts():
        holds = fact.holds
        if isinstance(holds, bool):
            if not holds:
                if accepted:  # an adaptation the hints cannot show (a merge of axes)
                    return Refused(fact.rule.spelling, f"{fact.rule.spelling}: {fact.says} fails")
                return None
            continue
        if not accepted:
            if mode is Mode.GUARD and not _hinted(holds):
                bool(holds)  # guarded to fail, as it does now
                return None
            continue
        if mode is Mode.GUARD:
            if not bool(holds):  # guarded to hold
                return Refused(fact.rule.spelling, f"{fact.rule.spelling}: {fact.says} fails")
        elif not statically_known_true(holds):
            return Refused(
                fact.rule.spelling,
                f"{fact.rule.spelling}: {fact.says} does not hold over the exported program's "
                f"whole range ({_ranges(holds)}); no guard can narrow an exported "
                "program: export it with a narrower `Dim` to route this node",
            )
    return None


def _hinted(holds: object) -> bool:
    """A ``SymBool``'s value at the hints, adding no guard."""
    node = holds.node  # type: ignore[attr-defined]
    value = node.hint
    if value is None:
        value = node.shape_env.evaluate_expr(node.expr, hint=None, size_oblivious=True)
    return bool(value)


def _ranges(holds: object) -> str:
    """The exported range of each symbol in ``holds`` (``s0 in 2..=1024``)."""
    node = getattr(holds, "node", None)
    env = getattr(node, "shape_env", None)
    expr = getattr(node, "expr", None)
    if env is None or expr is None:
        return str(holds)
    parts = []
    for s in sorted(expr.free_symbols, key=str):
        r = env.var_to_range.get(s)
        parts.append(f"{s} in {r.lower}..={r.upper}" if r is not None else str(s))
    return f"{expr}; " + ", ".join(parts) if parts else str(expr)


def dtype_of(dtype: torch.dtype) -> DType:
    try:
        return kfam_dtype(dtype)
    except TypeError as e:
        raise Refused(CallRule.DTYPE.spelling, f"dtype: {e}") from None


def fake(node: Node) -> object:
    """The node's value at compile time: Dynamo's ``example_value`` or export's ``val``."""
    return node.meta.get("val", node.meta.get("example_value"))


def bind(found: Found, family: Family) -> Call:
    """The family's arguments for the node ``found``: ``Refused`` when the family needs a value
    the node does not give (a scalar the payload does not name), or the node's extents cannot
    be adapted to the family's ranks."""
    op = family.operation
    roles = found.roles(op)
    values: list[object] = [None] * len(family.params)
    result = fake(found.node)
    if not isinstance(result, torch.Tensor):
        raise Refused("payload", f"{found.computes} does not produce one tensor")
    out_index = roles[Role.OUT]
    out_param = family.params[out_index]
    # Leading extents merged into rows: as many as the family's row-wise parameters lack.
    merge = 0
    if Role.OUT in found.rowwise:
        merge = max(0, result.dim() - len(out_param.shape))
    views: dict[Role, View] = {}
    for role, index in roles.items():
        p = family.params[index]
        if role is Role.OUT or role is Role.KEY_OUT:
            continue
        if role in found.scalars:
            values[index] = found.scalars[role]
            continue
        operand = found.operands.get(role)
        value = fake(operand) if isinstance(operand, Node) else operand
        if not isinstance(value, torch.Tensor):
            raise Refused(
                CallRule.SCALAR_TYPE.spelling,
                f"`{p.name}` is a tensor parameter; the node passes {type(value).__name__}",
            )
        view = _adapted(found, role, value)
        if role in found.rowwise and merge and len(view.shape) - len(p.shape) == merge:
            view = view.merge(merge)
        views[role] = view
        values[index] = view
    named = set(roles.values())
    for p in family.params:
        if p.index not in named:
            raise Refused(
                "payload",
                f"parameter `{p.name}` is not an operand of the operation: "
                f"{found.computes} gives it no value",
            )
    device = result.device.index or 0
    values[out_index] = View.fresh(_out_shape(found, Role.OUT, result, merge), result.dtype, device)
    for extra_role, extra_node in found.extra_outputs.items():
        v = fake(extra_node)
        assert isinstance(v, torch.Tensor)
        shape = _out_shape(found, extra_role, v, merge)
        values[roles[extra_role]] = View.fresh(shape, v.dtype, v.device.index or 0)
    return Call(family, values, tuple(result.shape), result.dtype, views)


def _adapted(found: Found, role: Role, value: torch.Tensor) -> View:
    """The view the call passes for an operand, before rows merge: transposed, heads moved,
    a contiguous copy, or a rotary table's per-pair half for each token."""
    device = value.device.index or 0
    half, seq = found.attrs.get("half"), found.attrs.get("seq_axis")
    if role in (Role.COS, Role.SIN) and isinstance(half, int) and isinstance(seq, int):
        # A rotary table [B or 1, S, >= half]: its first `half` entries (the per-pair table),
        # one row per token of the queries (seq their sequence axis), a contiguous copy.
        q = fake(found.operands[Role.QUERY])  # type: ignore[arg-type, unused-ignore]
        assert isinstance(q, torch.Tensor)
        shape = (q.shape[0], q.shape[seq], half)
        return replace(View.fresh(shape, value.dtype, device), table=half, table_seq=seq)
    if role in found.contiguous:
        return replace(View.fresh(tuple(value.shape), value.dtype, device), contiguous=True)
    view = View.of(value)
    if role in found.transposed:
        view = view.t()
    if role in found.heads_last:
        view = view.swap12()
    return view


def _out_shape(found: Found, role: Role, result: torch.Tensor, merge: int) -> tuple[object, ...]:
    shape: tuple[object, ...] = tuple(result.shape)
    if role in found.heads_last:
        shape = (shape[0], shape[2], shape[1], *shape[3:])
    if merge:
        rows: Any = 1
        for d in shape[: merge + 1]:
            rows = rows * d
        shape = (rows, *shape[merge + 1 :])
    return shape


def launcher(
    op: OpOverload, family: Family, found: Found, call: Call, *, detach: bool
) -> Callable[..., Any]:
    """The function a routed node calls, over the form's operands in ``found.operand_order``
    and then the symbolic scalars of ``found.sources``: the operands adapted as the decision
    described them (views; contiguous copies where ``found.contiguous`` says), fresh row-major
    outputs, the family's operator over them in signature order, the outputs returned in the
    node's own extents (a tuple when the form has several).

    ``detach``: the node was compiled without autograd recording (``torch.no_grad``,
    ``torch.inference_mode``), so its operands are passed detached: a module's parameters keep
    ``requires_grad`` set, which the families' operators refuse."""
    roles = found.roles(family.operation)
    order = found.operand_order
    sources = list(found.sources)
    outputs = (Role.OUT, *found.extra_outputs)
    # Each parameter in signature order: an output's position, a scalar's value or the
    # position of its symbolic source, or an operand's position.
    layout: list[tuple[str, Any]] = []
    for p in family.params:
        role = next(r for r, i in roles.items() if i == p.index)
        if role in outputs:
            layout.append(("out", outputs.index(role)))
        elif role.value in sources:
            layout.append(("source", len(order) + sources.index(role.value)))
        elif role in found.scalars:
            layout.append(("scalar", found.scalars[role]))
        else:
            layout.append(("operand", order.index(role)))
    adapt = [call.views.get(r) for r in order]
    query = order.index(Role.QUERY) if Role.QUERY in order else -1
    merged = max((v.merged for v in call.views.values()), default=0)
    swapped = [r in found.heads_last for r in outputs]
    dtypes = []
    for r in outputs:
        v = call.values[roles[r]]
        assert isinstance(v, View)
        dtypes.append(v.dtype)
    shape_of = found.out_shape
    several = bool(found.extra_outputs)

    def launch(*given: Any) -> Any:
        tensors = given[: len(order)]
        operands: list[Any] = []
        for t, v in zip(tensors, adapt):
            if detach and isinstance(t, torch.Tensor):
                t = t.detach()
            if v is not None:
                if v.table:
                    q = tensors[query]
                    rows = (q.shape[0], q.shape[v.table_seq], v.table)
                    t = t[..., : v.table].expand(*rows).contiguous()
                if v.contiguous:
                    t = t.contiguous()
                if v.transposed:
                    t = t.transpose(-1, -2)
                if v.heads_last:
                    t = t.transpose(1, 2)
                if v.merged:
                    t = t.flatten(0, v.merged)
            operands.append(t)
        shapes = list(shape_of(tensors)) if several else [shape_of(tensors)]
        kept: list[list[Any]] = []
        results: list[torch.Tensor] = []
        for shape, swap, dtype in zip(shapes, swapped, dtypes):
            s = list(shape)
            if swap:
                s[1], s[2] = s[2], s[1]
            kept.append(s)
            if merged:
                s = [math.prod(s[: merged + 1]), *s[merged + 1 :]]
            results.append(tensors[0].new_empty(s, dtype=dtype))
        args: list[object] = []
        for what, slot in layout:
            if what == "out":
                args.append(results[slot])
            elif what == "scalar":
                args.append(slot)
            elif what == "source":
                args.append(given[slot])
            else:
                args.append(operands[slot])
        op(*args)
        back = []
        for r, s, swap in zip(results, kept, swapped):
            r = r.view(s)
            if swap:
                # Back to the node's own [B, H, S, D], row-major as the node's result was.
                r = r.transpose(1, 2).contiguous()
            back.append(r)
        return tuple(back) if several else back[0]

    launch.__name__ = f"kfam_route_{family.name}"
    launch.__qualname__ = launch.__name__
    return launch
