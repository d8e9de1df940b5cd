# PyTorch's own annotations are full of `Any`: this module, which works in them, is exempt
# from `--disallow-any-expr` (it passes `mypy --strict`, with torch and without).
# mypy: disallow-any-expr=False
"""Reading FX nodes alike in both graph dialects, for the forms (``_forms.py``,
``_attention.py``): Dynamo's ``torch.*``/``operator.*``/method calls and ``torch.export``'s ATen,
through ``op_name`` and ``arg``; casts, identities, commutative operands, scalar products; and
whether a form may claim its nodes."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any, Final

import torch  # type: ignore[import-not-found, unused-ignore]
from torch.fx import Node  # type: ignore[import-not-found, unused-ignore]
from torch.fx.experimental.symbolic_shapes import (  # type: ignore[import-not-found, unused-ignore]
    statically_known_true,
)

from ._flops import op_name
from ._match import Found, rank, val

CASTS: Final = frozenset(
    {"to", "_to_copy", "type", "float", "half", "bfloat16", "double", "_assert_tensor_metadata"}
)


#: Operators that leave their operand's values as they are (eval-mode dropout, an alias).
SAME: Final = frozenset({"alias", "contiguous", "clone", "detach"})


def args_of(node: Any) -> Any:
    """A node's positional arguments (FX types them as a union no reader narrows)."""
    return node.args


def arg(node: Node, i: int, *names: str, default: Any = None) -> Any:
    """Argument ``i`` (counting ``self`` of a method call), positional or by any of ``names``."""
    if len(args_of(node)) > i:
        return args_of(node)[i]
    for n in names:
        if n in node.kwargs:
            return node.kwargs[n]
    return default


def name_of(node: Any) -> str:
    if not isinstance(node, Node) or node.op not in ("call_function", "call_method"):
        return ""
    return op_name(node)


def is_tensor(x: object) -> bool:
    return isinstance(x, Node) and isinstance(val(x), torch.Tensor)


def number(x: object) -> float | None:
    """A Python number, or the hint of a symbolic float Dynamo lifted (``specialize_float``
    off); ``None`` for anything else."""
    if isinstance(x, bool):
        return None
    if isinstance(x, (int, float)):
        return float(x)
    v = val(x) if isinstance(x, Node) else x
    if isinstance(v, torch.SymFloat):
        hint = v.node.hint
        return float(hint) if hint is not None else None
    return None


def source(x: object) -> Node | None:
    """The node a symbolic float comes from (its value is guarded where a decision reads it)."""
    return x if isinstance(x, Node) and isinstance(val(x), torch.SymFloat) else None


def dtype_of(x: object) -> torch.dtype | None:
    v = val(x) if isinstance(x, Node) else None
    return v.dtype if isinstance(v, torch.Tensor) else None


def cast_of(node: Any) -> Any:
    """The operand of a dtype or device conversion (``.to``, ``.float()``, ``aten.to.dtype``)
    that keeps the device, else ``None``."""
    if name_of(node) not in CASTS or name_of(node) == "_assert_tensor_metadata":
        return None
    assert isinstance(node, Node)
    src = args_of(node)[0] if args_of(node) else None
    if not is_tensor(src):
        return None
    a, b = val(src), val(node)
    if not isinstance(b, torch.Tensor) or a.device != b.device:
        return None
    return src


def dropout_free(node: Any) -> Any:
    """The operand of an eval-mode dropout or an identity, else ``None``."""
    name = name_of(node)
    assert node is None or isinstance(node, Node)
    if name == "dropout" and node is not None:
        if arg(node, 2, "train", "training", default=True) is False or arg(
            node, 1, "p", default=0.5
        ) in (0, 0.0):
            return args_of(node)[0] if is_tensor(args_of(node)[0]) else None
    if name in SAME and node is not None and is_tensor(args_of(node)[0]):
        return args_of(node)[0]
    return None


def through(node: Any, nodes: list[Node]) -> Any:
    """``node`` past identities and eval-mode dropout, each appended to ``nodes``."""
    while True:
        inner = dropout_free(node)
        if inner is None:
            return node
        nodes.append(node)
        node = inner


def pair(node: Any) -> list[tuple[Any, Any]]:
    """A commutative binary node's operands, both orders."""
    a, b = arg(node, 0, "input", "self"), arg(node, 1, "other")
    if len(args_of(node)) > 2 or node.kwargs.get("alpha", 1) != 1:
        return []
    return [(a, b), (b, a)]


def scaled(node: Any, name: str = "mul") -> tuple[Any, float, Node | None] | None:
    """``node`` = ``x * c`` (either order) with ``c`` a number: ``(x, c, c's symbolic source)``."""
    if name_of(node) != name:
        return None
    assert isinstance(node, Node)
    for x, c in pair(node):
        value = number(c)
        if value is not None and is_tensor(x):
            return x, value, source(c)
    return None


def closed(nodes: Sequence[Node], root: Node) -> bool:
    """No node of a form but its root is read from outside it."""
    inside = set(nodes)
    for n in nodes:
        if n is root:
            continue
        if any(u not in inside for u in n.users):
            return False
    return True


#: Readers that only check a value (``torch.export``'s dtype assertions): they go with the
#: form whose intermediate value they check.
OBSERVERS: Final = frozenset({"_assert_tensor_metadata"})


def claim(found: Found) -> Found | None:
    """``found`` when no node inside it but its outputs is read from outside it (observers of
    an intermediate value go with the form), else ``None``."""
    roots = {found.node, *found.extra_outputs.values()}
    inside = set(found.nodes)
    observers: list[Node] = []
    for n in found.nodes:
        if n in roots:
            continue
        for u in n.users:
            if u in inside:
                continue
            if name_of(u) in OBSERVERS and not u.users:
                observers.append(u)
                continue
            return None
    return replace(found, observers=tuple(observers)) if observers else found


def transposed_of(w: Any) -> Any:
    """The operand of ``w.t()``, ``w.T``, ``w.transpose(-1, -2)`` (its last two axes), else
    ``None``."""
    if not isinstance(w, Node):
        return None
    name = name_of(w)
    src = args_of(w)[0] if args_of(w) else None
    if not is_tensor(src):
        return None
    r = rank(src)
    if r is None or r < 2:
        return None
    if name in ("t", "numpy_T") or (name == "getattr" and args_of(w)[1] in ("T", "mT")):
        return src if r == 2 else None
    if name in ("transpose", "swapaxes"):
        a, b = arg(w, 1, "dim0"), arg(w, 2, "dim1")
        if isinstance(a, int) and isinstance(b, int) and {a % r, b % r} == {r - 1, r - 2}:
            return src
    if name == "permute":
        dims = args_of(w)[1:] if not isinstance(args_of(w)[1], (list, tuple)) else args_of(w)[1]
        want = [*range(r - 2), r - 1, r - 2]
        if [d % r for d in dims] == want:
            return src
    return None


def claim_opt(found: Found | None) -> Found | None:
    return None if found is None else claim(found)


def known_equal(a: object, b: object) -> bool:
    """Equal extents, known without a guard."""
    if isinstance(a, int) and isinstance(b, int):
        return a == b
    return bool(statically_known_true(a == b))
