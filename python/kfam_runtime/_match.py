# PyTorch's own annotations are full of `Any`: this module, which works in them, is exempt
# from `--disallow-any-expr` (it passes `mypy --strict`, with torch and without).
# mypy: disallow-any-expr=False
"""What an FX node computes, in the words of the operation payloads (``route.py``): ``Found``,
the computation of one node or of a form of several (``_forms.py``), and whether a family's
payload computes it (``payload_mismatch``).

Both graph dialects are read: Dynamo's (``torch.rms_norm``, ``operator.matmul``, a method call
``x.softmax(-1)``) and ATen's, as ``torch.export`` gives it (``aten.rms_norm.default``). Every
attribute a payload declares is matched exactly: operand order, axes, keepdim, eps (``None``
is torch's default, ``finfo(dtype).eps`` for RMSNorm), accumulation, a weight's layout, a bias,
causal and scale, rotary_dim and interleaved. A node with an attribute no payload can declare
(a dtype argument, ``alpha``, a rounding mode, an in-place flag) is not a computation of any
kind; ``approximate="tanh"`` is the ``gelu_tanh`` operator.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Any, Final

import torch  # type: ignore[import-not-found, unused-ignore]
import torch.nn.functional as F  # type: ignore[import-not-found, unused-ignore]
from torch.fx import Node  # type: ignore[import-not-found, unused-ignore]

from .records import (
    DenseAttention,
    ElementwiseBinary,
    ElementwiseUnary,
    Family,
    Linear,
    Matmul,
    Norm,
    Operation,
    Reduce,
    Rope,
    Softmax,
)
from .vocab import BinaryOp, NormKind, ReduceOp, UnaryOp, WeightLayout


class Role(Enum):
    """A parameter's part in an operation payload."""

    INPUT = "input"
    LHS = "lhs"
    RHS = "rhs"
    WEIGHT = "weight"
    BIAS = "bias"
    A = "a"
    B = "b"
    QUERY = "query"
    KEY = "key"
    VALUE = "value"
    COS = "cos"
    SIN = "sin"
    OUT = "out"
    #: A second written tensor (rope's ``key_out``).
    KEY_OUT = "key_out"
    EPS = "eps"
    SCALE = "scale"


#: The output extents from the operands (one shape; a tuple of shapes for a form with several
#: outputs).
Shape = Callable[[Sequence[torch.Tensor]], Sequence[Any]]


@dataclass(frozen=True)
class Found:
    """One computation in a graph: a node, or a form of several nodes (``replaced``) that
    computes what one payload declares. The payload kind and operator, the operands by role (in
    the order the routed call passes them) and the attributes a payload declares."""

    node: Node
    #: What the node computes, in torch's words (the report's).
    computes: str
    kind: type[Operation]
    op: object
    operands: dict[Role, object]
    operand_order: tuple[Role, ...]
    #: The output's extents from the operands (for the fresh output buffer).
    out_shape: Shape
    axis: int | None = None
    axes: tuple[int, ...] = ()
    keepdim: bool = False
    eps: float | None = None
    scale: float | None = None
    causal: bool | None = None
    #: Operands the routed call passes transposed (``F.linear``'s weight onto ``matmul``).
    transposed: frozenset[Role] = field(default_factory=frozenset)
    #: Operands and outputs whose leading extents merge into rows where a family declares fewer
    #: (row-wise payloads: the computation of one row reads only that row).
    rowwise: frozenset[Role] = field(default_factory=frozenset)
    #: ``[B, H, S, D]`` operands and outputs the call passes as ``[B, S, H, D]`` (rotary).
    heads_last: frozenset[Role] = field(default_factory=frozenset)
    #: Further outputs of a form with several (rope's key), by role: the node whose value each is.
    extra_outputs: dict[Role, Node] = field(default_factory=dict)
    #: Every node of the form, the root last; one node's form is ``(node,)``.
    replaced: tuple[Node, ...] = ()
    #: Attributes of other payloads, by their payload field's name (``rotary_dim``,
    #: ``interleaved``, ``weight_layout``).
    attrs: dict[str, object] = field(default_factory=dict)
    #: The nodes symbolic scalars come from, by attribute (``eps``, ``scale``): Dynamo lifts a
    #: module's float attribute into a graph input under ``dynamic=True``, so a decision that
    #: reads its value guards it.
    sources: dict[str, Node] = field(default_factory=dict)
    #: Operands the call passes as contiguous copies (attention reads model code's transposed
    #: views; docs/torch.md, "Call-site adaptations").
    contiguous: frozenset[Role] = field(default_factory=frozenset)
    #: Nodes that only check an intermediate value of the form (``torch.export``'s dtype
    #: assertions): removed with it, never reported.
    observers: tuple[Node, ...] = ()
    #: Other readings of the same nodes by another payload kind (``x @ w``: a ``matmul``, or a
    #: ``linear`` with a ``[K, N]`` weight).
    alternatives: tuple[Found, ...] = ()

    def with_alternatives(self, others: tuple[Found, ...]) -> Found:
        return replace(self, alternatives=others)

    def variant(self, family: Family) -> Found:
        """The reading of these nodes that ``family``'s payload kind computes (this one when
        none does)."""
        for f in (self, *self.alternatives):
            if type(family.operation) is f.kind:
                return f
        return self

    @property
    def nodes(self) -> tuple[Node, ...]:
        return self.replaced or (self.node,)

    @property
    def scalars(self) -> dict[Role, object]:
        """The scalar arguments the form gives (eps, scale), by role."""
        found: dict[Role, object] = {}
        if self.eps is not None:
            found[Role.EPS] = self.eps
        if self.scale is not None:
            found[Role.SCALE] = self.scale
        return found

    def roles(self, op: Operation) -> dict[Role, int]:
        """The parameter index of each role in ``op`` (a payload of this node's kind)."""
        if isinstance(op, (ElementwiseUnary, Softmax, Reduce)):
            return {Role.INPUT: op.input, Role.OUT: op.out}
        if isinstance(op, ElementwiseBinary):
            return {Role.LHS: op.lhs, Role.RHS: op.rhs, Role.OUT: op.out}
        if isinstance(op, Matmul):
            return {Role.A: op.a, Role.B: op.b, Role.OUT: op.c}
        if isinstance(op, Linear):
            roles = {Role.INPUT: op.input, Role.WEIGHT: op.weight, Role.OUT: op.out}
            if op.bias is not None:
                roles[Role.BIAS] = op.bias
            return roles
        if isinstance(op, DenseAttention):
            roles = {Role.QUERY: op.query, Role.KEY: op.key, Role.VALUE: op.value, Role.OUT: op.out}
            if op.scale.param is not None:
                roles[Role.SCALE] = op.scale.param
            return roles
        if isinstance(op, Rope):
            return {
                Role.QUERY: op.query,
                Role.KEY: op.key,
                Role.COS: op.cos,
                Role.SIN: op.sin,
                Role.OUT: op.query_out,
                Role.KEY_OUT: op.key_out,
            }
        assert isinstance(op, Norm)
        roles = {Role.INPUT: op.input, Role.WEIGHT: op.weight, Role.OUT: op.out}
        if op.bias is not None:
            roles[Role.BIAS] = op.bias
        if op.eps.param is not None:
            roles[Role.EPS] = op.eps.param
        return roles


def payload_mismatch(found: Found, family: Family) -> str | None:
    """``None`` when ``family``'s payload computes ``found``; ``""`` when it computes another
    operator (not a candidate); otherwise why not, for the report."""
    op = family.operation
    if type(op) is not found.kind or getattr(op, "op", None) != found.op:
        return ""
    if isinstance(op, (Softmax, Norm)) and not _same_axis(found, family, op.input, op.axis):
        return f"computes over axis {op.axis}, the node over axis {found.axis}"
    if isinstance(op, Reduce):
        if tuple(sorted(op.axes)) != found.axes:
            return f"reduces axes {list(op.axes)}, the node axes {list(found.axes)}"
        if op.keepdim != found.keepdim:
            return f"keepdim is {str(op.keepdim).lower()}, the node's {str(found.keepdim).lower()}"
    if isinstance(op, Norm):
        if (op.bias is not None) != (Role.BIAS in found.operands):
            has = "adds a bias" if op.bias is not None else "adds no bias"
            return f"{has}, the node {'does not' if op.bias is not None else 'does'}"
        if op.eps.constant is not None and op.eps.constant != found.eps:
            return f"eps is {op.eps.constant!r}, the node's {found.eps!r}"
    if isinstance(op, Matmul) and op.accumulate:
        return "accumulates into `c`; the node writes a fresh result"
    if isinstance(op, Linear):
        layout = found.attrs.get("weight_layout")
        if op.weight_layout is not layout:
            have = layout.spelling if isinstance(layout, WeightLayout) else "?"
            return f"stores its weight {op.weight_layout.spelling}, the node's is {have}"
        if (op.bias is not None) != (Role.BIAS in found.operands):
            has = "adds a bias" if op.bias is not None else "adds no bias"
            return f"{has}, the node {'does not' if op.bias is not None else 'does'}"
    if isinstance(op, DenseAttention):
        if "mask" in found.attrs:
            return str(found.attrs["mask"])
        if op.causal != found.causal:
            return f"causal is {str(op.causal).lower()}, the node's {str(found.causal).lower()}"
        if op.scale.constant is not None and op.scale.constant != found.scale:
            return f"scale is {op.scale.constant!r}, the node's {found.scale!r}"
    if isinstance(op, Rope):
        for key in ("rotary_dim", "interleaved"):
            if getattr(op, key) != found.attrs.get(key):
                return f"{key} is {getattr(op, key)!r}, the node's {found.attrs.get(key)!r}"
    return None


def _same_axis(found: Found, family: Family, param: int, axis: int) -> bool:
    """The family's axis is the node's: the same axis, or, where the node's leading extents
    merge into the family's rows, the last axis of both."""
    if axis == found.axis:
        return True
    fam_rank = len(family.params[param].shape)
    nrank = rank(found.operands.get(Role.INPUT))
    return (
        Role.INPUT in found.rowwise
        and nrank is not None
        and nrank > fam_rank
        and axis == fam_rank - 1
        and found.axis == nrank - 1
    )


# ---------------------------------------------------------------- reading a node


def _arg(node: Node, i: int, name: str, default: object = None) -> object:
    if len(node.args) > i:
        return node.args[i]
    return node.kwargs.get(name, default)


def val(x: object) -> Any:
    if isinstance(x, Node):
        return x.meta.get("val", x.meta.get("example_value"))
    return x


def rank(x: object) -> int | None:
    v = val(x)
    return v.dim() if isinstance(v, torch.Tensor) else None


def _axis(dim: object, rank: int) -> int | None:
    if type(dim) is not int or not -rank <= dim < rank:
        return None
    return dim % rank


def same_shape(operands: Sequence[torch.Tensor]) -> Sequence[Any]:
    shape: Sequence[Any] = operands[0].shape
    return shape


def linear_shape(layout: WeightLayout) -> Shape:
    """The extents of a linear layer's result: the input's leading ones, then ``N`` of the
    weight (``[N, K]`` or ``[K, N]``, batched or not)."""
    axis = -2 if layout in (WeightLayout.NK, WeightLayout.ENK) else -1

    def shape(operands: Sequence[torch.Tensor]) -> Sequence[Any]:
        return (*operands[0].shape[:-1], operands[1].shape[axis])

    return shape


def _broadcast(operands: Sequence[torch.Tensor]) -> Sequence[Any]:
    shape: Sequence[Any] = torch.broadcast_shapes(  # type: ignore[no-untyped-call, unused-ignore]
        operands[0].shape, operands[1].shape
    )
    return shape


_UNARY: Final[dict[object, UnaryOp]] = {}
for _op, _names in {
    UnaryOp.NEG: ("neg",),
    UnaryOp.ABS: ("abs",),
    UnaryOp.EXP: ("exp",),
    UnaryOp.LOG: ("log",),
    UnaryOp.SQRT: ("sqrt",),
    UnaryOp.RSQRT: ("rsqrt",),
    UnaryOp.RELU: ("relu",),
    UnaryOp.GELU: ("gelu",),
    UnaryOp.SILU: ("silu",),
    UnaryOp.SIGMOID: ("sigmoid",),
    UnaryOp.TANH: ("tanh",),
}.items():
    for _name in _names:
        for _callee in (
            getattr(torch, _name, None),
            getattr(F, _name, None),
            getattr(torch.ops.aten, _name).default,
            _name,  # a method call
        ):
            if _callee is not None:
                _UNARY[_callee] = _op
_UNARY[operator.neg] = UnaryOp.NEG
_UNARY[operator.abs] = UnaryOp.ABS

_BINARY: Final[dict[object, BinaryOp]] = {
    operator.add: BinaryOp.ADD,
    torch.add: BinaryOp.ADD,
    torch.ops.aten.add.Tensor: BinaryOp.ADD,
    "add": BinaryOp.ADD,
    operator.sub: BinaryOp.SUB,
    torch.sub: BinaryOp.SUB,
    torch.ops.aten.sub.Tensor: BinaryOp.SUB,
    "sub": BinaryOp.SUB,
    operator.mul: BinaryOp.MUL,
    torch.mul: BinaryOp.MUL,
    torch.ops.aten.mul.Tensor: BinaryOp.MUL,
    "mul": BinaryOp.MUL,
    operator.truediv: BinaryOp.DIV,
    torch.div: BinaryOp.DIV,
    torch.ops.aten.div.Tensor: BinaryOp.DIV,
    "div": BinaryOp.DIV,
    torch.maximum: BinaryOp.MAX,
    torch.ops.aten.maximum.default: BinaryOp.MAX,
    "maximum": BinaryOp.MAX,
    torch.minimum: BinaryOp.MIN,
    torch.ops.aten.minimum.default: BinaryOp.MIN,
    "minimum": BinaryOp.MIN,
}

_SOFTMAX: Final = {torch.softmax, F.softmax, torch.ops.aten.softmax.int, "softmax"}
_RMS_NORM: Final = {F.rms_norm, torch.rms_norm, torch.ops.aten.rms_norm.default}
_LAYER_NORM: Final = {F.layer_norm, torch.layer_norm, torch.ops.aten.layer_norm.default}
_MATMUL: Final = {
    operator.matmul,
    torch.matmul,
    torch.mm,
    torch.ops.aten.mm.default,
    torch.ops.aten.matmul.default,
    "matmul",
    "mm",
}
_LINEAR: Final = {F.linear, torch._C._nn.linear, torch.ops.aten.linear.default}
_REDUCE: Final[dict[object, ReduceOp]] = {}
for _rop, _name, _aten in (
    (ReduceOp.SUM, "sum", torch.ops.aten.sum.dim_IntList),
    (ReduceOp.MEAN, "mean", torch.ops.aten.mean.dim),
    (ReduceOp.MAX, "amax", torch.ops.aten.amax.default),
    (ReduceOp.MIN, "amin", torch.ops.aten.amin.default),
):
    for _callee in (getattr(torch, _name), _aten, _name):
        _REDUCE[_callee] = _rop


#: The roles whose leading extents merge into rows, per kind of row-wise computation.
ROWS_UNARY: Final = frozenset({Role.INPUT, Role.OUT})
ROWS_BINARY: Final = frozenset({Role.LHS, Role.RHS, Role.OUT})
ROWS_MATMUL: Final = frozenset({Role.A, Role.OUT})
ROWS_LINEAR: Final = frozenset({Role.INPUT, Role.OUT})


def _target(node: Node) -> object:
    """The callee: a function or operator, or a method's name."""
    if node.op in ("call_function", "call_method"):
        return node.target
    return None


def computation(node: Node) -> Found | None:
    """What ``node`` computes, or ``None`` when no operation kind could (or an attribute rules
    every payload out)."""
    target = _target(node)
    if target is None:
        return None
    try:
        hash(target)
    except TypeError:
        return None
    if target in _UNARY:
        return _unary(node, _UNARY[target])
    if target in _BINARY:
        return _binary(node, _BINARY[target])
    if target in _SOFTMAX:
        return _softmax(node)
    if target in _RMS_NORM or target in _LAYER_NORM:
        return _norm(node, NormKind.RMS_NORM if target in _RMS_NORM else NormKind.LAYER_NORM)
    if target in _MATMUL:
        return _matmul(node, "matmul", node.args[0], _arg(node, 1, "other"), transposed=False)
    if target in _LINEAR:
        if _arg(node, 2, "bias") is not None:
            return None
        return _matmul(node, "linear", _arg(node, 0, "input"), _arg(node, 1, "weight"), True)
    if target in _REDUCE:
        return _reduce(node, _REDUCE[target])
    return None


def _tensor(x: object) -> bool:
    return isinstance(x, Node) and isinstance(val(x), torch.Tensor)


def _unary(node: Node, op: UnaryOp) -> Found | None:
    x = _arg(node, 0, "input")
    if not _tensor(x) or node.kwargs.get("inplace"):
        return None
    if len(node.args) > 1 and op is not UnaryOp.GELU:
        return None
    if op is UnaryOp.GELU:
        approximate = _arg(node, 1, "approximate", "none")
        if approximate == "tanh":
            op = UnaryOp.GELU_TANH
        elif approximate != "none":
            return None
    return Found(
        node,
        op.spelling,
        ElementwiseUnary,
        op,
        {Role.INPUT: x},
        (Role.INPUT,),
        same_shape,
        rowwise=ROWS_UNARY,
    )


def _binary(node: Node, op: BinaryOp) -> Found | None:
    lhs, rhs = _arg(node, 0, "input"), _arg(node, 1, "other")
    if not (_tensor(lhs) and _tensor(rhs)):
        return None  # a Python scalar operand: no payload takes one
    if node.kwargs.get("alpha", 1) != 1 or node.kwargs.get("rounding_mode") is not None:
        return None
    if len(node.args) > 2:
        return None
    return Found(
        node,
        op.spelling,
        ElementwiseBinary,
        op,
        {Role.LHS: lhs, Role.RHS: rhs},
        (Role.LHS, Role.RHS),
        _broadcast,
        rowwise=ROWS_BINARY,
    )


def _softmax(node: Node) -> Found | None:
    x = _arg(node, 0, "input")
    nrank = rank(x)
    if nrank is None or _arg(node, 2, "dtype") is not None:
        return None
    axis = _axis(_arg(node, 1, "dim"), nrank)
    if axis is None:
        return None
    return Found(
        node,
        "softmax",
        Softmax,
        None,
        {Role.INPUT: x},
        (Role.INPUT,),
        same_shape,
        axis=axis,
        rowwise=ROWS_UNARY if axis == nrank - 1 else frozenset(),
    )


def _norm(node: Node, op: NormKind) -> Found | None:
    x = _arg(node, 0, "input")
    shape = _arg(node, 1, "normalized_shape")
    weight = _arg(node, 2, "weight")
    nrank = rank(x)
    if nrank is None or not isinstance(shape, (list, tuple)) or len(shape) != 1:
        return None
    if not _tensor(weight):
        return None
    operands: dict[Role, object] = {Role.INPUT: x, Role.WEIGHT: weight}
    order = [Role.INPUT, Role.WEIGHT]
    if op is NormKind.LAYER_NORM:
        bias = _arg(node, 3, "bias")
        if bias is not None:
            if not _tensor(bias):
                return None
            operands[Role.BIAS] = bias
            order.append(Role.BIAS)
        eps = _arg(node, 4, "eps", 1e-5)
    else:
        eps = _arg(node, 3, "eps")
        if eps is None:
            v = val(x)
            assert isinstance(v, torch.Tensor)
            eps = torch.finfo(v.dtype).eps if v.dtype.is_floating_point else None
    sources: dict[str, Node] = {}
    if isinstance(eps, Node) and isinstance(val(eps), torch.SymFloat):
        # A module's eps Dynamo lifted into a graph input (``dynamic=True``): its hint,
        # guarded where a decision reads it.
        sources["eps"] = eps
        hint = val(eps).node.hint
        eps = float(hint) if hint is not None else None
    if type(eps) is not float:
        return None
    return Found(
        node,
        op.spelling,
        Norm,
        op,
        operands,
        tuple(order),
        same_shape,
        axis=nrank - 1,
        eps=eps,
        rowwise=ROWS_UNARY,
        sources=sources,
    )


def _matmul(node: Node, name: str, a: object, b: object, transposed: bool) -> Found | None:
    if not (_tensor(a) and _tensor(b)):
        return None
    if not transposed and len(node.args) + len(node.kwargs) > 2:
        return None  # an `out=` argument

    def shape(operands: Sequence[torch.Tensor]) -> Sequence[Any]:
        return (*operands[0].shape[:-1], operands[1].shape[-1])

    return Found(
        node,
        name,
        Matmul,
        None,
        {Role.A: a, Role.B: b},
        (Role.A, Role.B),
        shape,
        transposed=frozenset({Role.B}) if transposed else frozenset(),
        rowwise=ROWS_MATMUL if rank(b) == 2 else frozenset(),
    )


def _reduce(node: Node, op: ReduceOp) -> Found | None:
    x = _arg(node, 0, "input")
    nrank = rank(x)
    if nrank is None or node.kwargs.get("dtype") is not None or len(node.args) > 3:
        return None
    dim = _arg(node, 1, "dim")
    if dim is None or dim == []:
        dims: list[object] = list(range(nrank))
    elif isinstance(dim, (list, tuple)):
        dims = list(dim)
    else:
        dims = [dim]
    axes = [_axis(d, nrank) for d in dims]
    if any(a is None for a in axes):
        return None
    keepdim = _arg(node, 2, "keepdim", False)
    if type(keepdim) is not bool:
        return None
    kept = tuple(sorted(a for a in axes if a is not None))

    def shape(operands: Sequence[torch.Tensor]) -> Sequence[Any]:
        ext = operands[0].shape
        if keepdim:
            return tuple(1 if i in kept else d for i, d in enumerate(ext))
        return tuple(d for i, d in enumerate(ext) if i not in kept)

    name = {ReduceOp.MAX: "amax", ReduceOp.MIN: "amin"}.get(op, op.spelling)
    return Found(
        node, name, Reduce, op, {Role.INPUT: x}, (Role.INPUT,), shape, axes=kept, keepdim=keepdim
    )
