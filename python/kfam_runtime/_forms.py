# PyTorch's own annotations are full of `Any`: this module, which works in them, is exempt
# from `--disallow-any-expr` (it passes `mypy --strict`, with torch and without).
# mypy: disallow-any-expr=False
"""The forms model code writes for a payload, each read as one computation (``route.py``;
docs/torch.md, "Forms").

A form is several nodes that together compute exactly what one payload declares: RMSNorm written
out (an fp32 upcast, ``pow(2)``, ``mean(-1, keepdim=True)``, ``+ eps``, ``rsqrt``, ``*``, the cast
back, ``weight *``), GELU's tanh approximation written out (GPT-2), softmax in fp32 cast back,
a linear layer in each spelling (``F.linear``, ``addmm`` with and without a transposed weight,
``x @ w``, ``x @ w.t()``, ``bmm``, a matmul plus a bias), rotary embedding as rotate-half over
model-computed cos/sin, and attention: SDPA (with ``enable_gqa``, or after the ``repeat_kv``
expand/reshape) and eager attention's matmul-softmax-matmul, whatever mask the model built, when
``_mask.py`` proves it causal or absent.

Each matcher starts from the form's last node and reads both graph dialects (Dynamo's
``torch.*``/``operator.*``/method calls, ``torch.export``'s ATen) through ``op_name`` and
``arg``. A form claims its nodes only when no node inside it is read from outside (the root
excepted), so replacing it changes nothing else. Why matchers of our own and not
``torch._inductor.pattern_matcher`` or ``torch.fx.subgraph_rewriter``: docs/torch.md, "Forms".
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from functools import partial
from typing import Final, TypeVar

import torch  # type: ignore[import-not-found, unused-ignore]
from torch.fx import GraphModule, Node  # type: ignore[import-not-found, unused-ignore]

from ._attention import eager_attention, sdpa
from ._match import (
    ROWS_LINEAR,
    ROWS_UNARY,
    Found,
    Role,
    computation,
    linear_shape,
    rank,
    same_shape,
)
from ._nodes import (
    arg,
    args_of,
    cast_of,
    claim,
    claim_opt,
    dtype_of,
    is_tensor,
    name_of,
    number,
    pair,
    scaled,
    source,
    transposed_of,
)
from ._rope import ropes
from .records import ElementwiseUnary, Linear, Norm, Softmax
from .vocab import NormKind, UnaryOp, WeightLayout

# ---------------------------------------------------------------- RMSNorm written out


def _rms_norm(root: Node) -> Found | None:
    """``weight * (x32 * rsqrt(mean(x32^2, -1, keepdim) + eps)).to(dtype)``, ``x32`` an fp32
    upcast of ``x`` or ``x`` itself; each cast optional, ``*`` and ``+`` either order."""
    if name_of(root) != "mul":
        return None
    for weight, y in pair(root):
        if not is_tensor(weight) or rank(weight) != 1 or not is_tensor(y):
            continue
        nodes: list[Node] = [root]
        inner = cast_of(y)
        if inner is not None:
            nodes.append(y)
            y = inner
        found = _normalized(y, nodes)
        if found is None:
            continue
        x, eps, eps_source = found
        r = rank(x)
        if r is None or rank(y) != r:
            continue
        form = Found(
            root,
            "rms_norm",
            Norm,
            NormKind.RMS_NORM,
            {Role.INPUT: x, Role.WEIGHT: weight},
            (Role.INPUT, Role.WEIGHT),
            same_shape,
            axis=r - 1,
            eps=eps,
            rowwise=ROWS_UNARY,
            replaced=tuple(reversed(nodes)),
            sources=_sources(eps_source),
        )
        return claim(form)
    return None


def _sources(node: Node | None) -> dict[str, Node]:
    return {} if node is None else {"eps": node}


def _normalized(y: object, nodes: list[Node]) -> tuple[object, float, Node | None] | None:
    """``y`` = ``x32 * rsqrt(mean(x32^2, -1, keepdim=True) + eps)``: ``(x, eps, source)``."""
    if name_of(y) != "mul":
        return None
    assert isinstance(y, Node)
    for x32, r in pair(y):
        if name_of(r) != "rsqrt" or not is_tensor(x32):
            continue
        assert isinstance(r, Node)
        shifted = arg(r, 0, "input", "self")
        if name_of(shifted) != "add":
            continue
        assert isinstance(shifted, Node)
        for ms, eps in pair(shifted):
            value = number(eps)
            if value is None or name_of(ms) != "mean":
                continue
            assert isinstance(ms, Node)
            sq = arg(ms, 0, "input", "self")
            dim = arg(ms, 1, "dim")
            keep = arg(ms, 2, "keepdim", default=False)
            dims = list(dim) if isinstance(dim, (list, tuple)) else [dim]
            r_x = rank(x32)
            if r_x is None or keep is not True or dims not in ([-1], [r_x - 1]):
                continue
            if ms.kwargs.get("dtype") is not None or not _squares(sq, x32):
                continue
            x = cast_of(x32)
            extra = [y, r, shifted, ms, sq]
            if x is not None and dtype_of(x32) == torch.float32:
                extra.append(x32)
            else:
                x = x32
            nodes.extend(extra)
            return x, value, source(eps)
    return None


def _squares(sq: object, x: object) -> bool:
    """``sq`` is ``x ** 2``: ``pow(x, 2)``, ``square(x)`` or ``x * x``."""
    name = name_of(sq)
    if not isinstance(sq, Node):
        return False
    if name == "pow":
        return args_of(sq)[0] is x and number(arg(sq, 1, "exponent")) == 2.0
    if name == "square":
        return args_of(sq)[0] is x
    if name == "mul":
        return arg(sq, 0, "input", "self") is x and arg(sq, 1, "other") is x
    return False


#: ``sqrt(2 / pi)``, as model code computes it (``math.sqrt(2.0 / math.pi)``).
_SQRT_2_PI: Final = math.sqrt(2.0 / math.pi)


def _gelu_tanh(root: Node) -> Found | None:
    """``0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3)))``: every constant exact,
    ``*`` and ``+`` either order, the cube ``pow(x, 3)`` or ``x * x * x``."""
    if name_of(root) != "mul":
        return None
    for half, one_plus in pair(root):
        h = scaled(half)
        if h is None or h[1] != 0.5:
            continue
        x = h[0]
        s = scaled(one_plus, "add")
        if s is None or s[1] != 1.0 or name_of(s[0]) != "tanh":
            continue
        tanh = s[0]
        assert isinstance(tanh, Node)
        k = scaled(arg(tanh, 0, "input", "self"))
        if k is None or k[1] != _SQRT_2_PI or name_of(k[0]) != "add":
            continue
        inner = k[0]
        assert isinstance(inner, Node)
        for xx, cubic in pair(inner):
            c = scaled(cubic)
            if xx is not x or c is None or c[1] != 0.044715 or not _cube(c[0], x):
                continue
            nodes = [half, c[0], cubic, inner, arg(tanh, 0, "input", "self"), tanh, one_plus, root]
            form = Found(
                root,
                "gelu_tanh",
                ElementwiseUnary,
                UnaryOp.GELU_TANH,
                {Role.INPUT: x},
                (Role.INPUT,),
                same_shape,
                rowwise=ROWS_UNARY,
                replaced=tuple(n for n in nodes if isinstance(n, Node)),
            )
            return claim(form)
    return None


def _cube(c: object, x: object) -> bool:
    if not isinstance(c, Node):
        return False
    if name_of(c) == "pow":
        return args_of(c)[0] is x and number(arg(c, 1, "exponent")) == 3.0
    return False


def _softmax_cast(root: Node) -> Found | None:
    """``softmax(x, dim, dtype=float32).to(x.dtype)``: the softmax of ``x`` in ``x``'s dtype,
    computed wide and rounded once, as a softmax family computes it."""
    sm = cast_of(root)
    if name_of(sm) != "softmax" or not isinstance(sm, Node):
        return None
    x = arg(sm, 0, "input", "self")
    dim = arg(sm, 1, "dim")
    dtype = arg(sm, 2, "dtype")
    r = rank(x)
    if r is None or not isinstance(dim, int) or not -r <= dim < r:
        return None
    if dtype != torch.float32 or dtype_of(root) != dtype_of(x):
        return None
    axis = dim % r
    form = Found(
        root,
        "softmax",
        Softmax,
        None,
        {Role.INPUT: x},
        (Role.INPUT,),
        same_shape,
        axis=axis,
        rowwise=ROWS_UNARY if axis == r - 1 else frozenset(),
        replaced=(sm, root),
    )
    return claim(form)


def linear_form(
    root: Node,
    x: object,
    weight: object,
    bias: object,
    layout: WeightLayout,
    nodes: Sequence[Node],
    computes: str,
) -> Found | None:
    """A linear layer over ``x`` ``[.., K]`` and ``weight`` (``[N, K]`` or ``[K, N]`` by
    ``layout``; a batch of weights ``[E, ..]``, ``enk`` or ``ekn``, with ``x`` ``[E, T, K]``),
    with a bias (``[N]``, not for a batch) or none."""
    if not (is_tensor(x) and is_tensor(weight)) or (bias is not None and not is_tensor(bias)):
        return None
    rx, rw = rank(x), rank(weight)
    if rx is None or rw not in (2, 3) or rx < 2 or (rw == 3 and rx != 3):
        return None
    if rw == 3:
        if bias is not None:
            return None  # a batch's bias [E, N] is no spelling's operand (baddbmm broadcasts)
        layout = WeightLayout.ENK if layout is WeightLayout.NK else WeightLayout.EKN
    operands: dict[Role, object] = {Role.INPUT: x, Role.WEIGHT: weight}
    order = [Role.INPUT, Role.WEIGHT]
    if bias is not None:
        operands[Role.BIAS] = bias
        order.append(Role.BIAS)
    return Found(
        root,
        computes,
        Linear,
        None,
        operands,
        tuple(order),
        linear_shape(layout),
        rowwise=ROWS_LINEAR if rw == 2 else frozenset(),
        replaced=tuple(nodes),
        attrs={"weight_layout": layout},
    )


def _linear_layers(root: Node) -> Found | None:
    """Every spelling of a linear layer, each with its ``matmul`` reading as an alternative
    where no bias is added."""
    name = name_of(root)
    if name == "linear":
        x, w, b = arg(root, 0, "input"), arg(root, 1, "weight"), arg(root, 2, "bias")
        found = linear_form(root, x, w, b, WeightLayout.NK, [root], "linear")
        single = computation(root)
        return _alternatives(found, single)
    if name == "addmm":
        if root.kwargs.get("beta", 1) != 1 or root.kwargs.get("alpha", 1) != 1:
            return None
        if len(args_of(root)) > 3:
            return None
        b, x, w = args_of(root)[0], args_of(root)[1], args_of(root)[2]
        if rank(b) != 1:
            return None
        inner = transposed_of(w)
        if inner is not None and len(w.users) == 1:
            return claim_opt(linear_form(root, x, inner, b, WeightLayout.NK, [w, root], name))
        return linear_form(root, x, w, b, WeightLayout.KN, [root], name)
    if name in ("matmul", "mm", "bmm"):
        x, w = arg(root, 0, "input", "self"), arg(root, 1, "other", "mat2")
        if len(args_of(root)) + len(root.kwargs) > 2:
            return None
        inner = transposed_of(w)
        if inner is not None and len(w.users) == 1 and rank(inner) in (2, 3):
            nk = linear_form(root, x, inner, None, WeightLayout.NK, [w, root], name)
            return _alternatives(claim_opt(nk), computation(root))
        kn = linear_form(root, x, w, None, WeightLayout.KN, [root], name)
        return _alternatives(computation(root), kn)
    if name == "add":
        # x @ w + b: a matmul whose only reader adds a bias [N].
        for mm, b in pair(root):
            if name_of(mm) not in ("matmul", "mm") or rank(b) != 1 or len(mm.users) != 1:
                continue
            assert isinstance(mm, Node)
            x, w = arg(mm, 0, "input", "self"), arg(mm, 1, "other", "mat2")
            inner = transposed_of(w)
            if inner is not None and len(w.users) == 1:
                f = linear_form(root, x, inner, b, WeightLayout.NK, [w, mm, root], "linear")
            else:
                f = linear_form(root, x, w, b, WeightLayout.KN, [mm, root], "linear")
            if f is not None and dtype_of(b) == dtype_of(x):
                return claim_opt(f)
    return None


def _alternatives(first: Found | None, *others: Found | None) -> Found | None:
    """``first`` with the other readings of its root as alternatives (a family of another kind
    may compute the same nodes)."""
    rest = tuple(f for f in others if f is not None)
    if first is None:
        if not rest:
            return None
        first, rest = rest[0], rest[1:]
    if not rest:
        return first
    return first.with_alternatives(rest)


T = TypeVar("T")

_ROOTED: Final = (eager_attention, sdpa, _rms_norm, _gelu_tanh, _softmax_cast, _linear_layers)


def _guarded(read: Callable[[], T]) -> T | None:
    """``read()``, or ``None`` when it raises: a graph the matchers do not expect (an argument
    of a type no spelling of the operator takes) is no form, never a failed compile."""
    try:
        return read()
    except Exception:  # fail closed: the nodes stay on the default path
        return None


def forms(nodes: Sequence[Node]) -> list[Found]:
    """Every form found among ``nodes`` (a graph's, in order), none sharing a node: rotary
    pairs first, then the forms rooted at each node from the graph's end (a larger form, as
    eager attention, claims its nodes before the forms inside it)."""
    found: list[Found] = []
    claimed: set[Node] = set()
    for f in _guarded(lambda: list(ropes(nodes))) or []:
        if not claimed.intersection(f.nodes):
            found.append(f)
            claimed.update(f.nodes)
    for n in reversed(nodes):
        if n in claimed:
            continue
        for matcher in _ROOTED:
            rooted = _guarded(partial(matcher, n))
            if rooted is not None and not claimed.intersection(rooted.nodes):
                found.append(rooted)
                claimed.update(rooted.nodes)
                break
    return found


def computations(gm: GraphModule) -> list[Found]:
    """Every computation of ``gm`` a payload kind could compute, in graph order of their last
    outputs: the forms of several nodes first claim their nodes, then single nodes
    (``_match.computation``)."""
    nodes = list(gm.graph.nodes)
    found = forms(nodes)
    claimed = {n for f in found for n in f.nodes}
    for node in nodes:
        if node in claimed:
            continue
        f = _guarded(partial(computation, node))
        if f is not None:
            found.append(f)
            claimed.update(f.nodes)
    order = {n: i for i, n in enumerate(nodes)}

    def last(f: Found) -> int:
        return max(order[n] for n in (f.node, *f.extra_outputs.values()))

    return sorted(found, key=last)
