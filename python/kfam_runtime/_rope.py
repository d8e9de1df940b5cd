# PyTorch's own annotations are full of `Any`: this module, which works in them, is exempt
# from `--disallow-any-expr` (it passes `mypy --strict`, with torch and without).
# mypy: disallow-any-expr=False
"""Rotary position embedding as model code writes it (``_forms.py``; docs/torch.md, "Forms"),
read as one ``rope`` computation per query and key pair.

Two rotations of ``x`` by per-pair tables ``cos`` and ``sin``, ``x * cos + rotate(x) * sin``:

- *halves* (GPT-NeoX, Llama): ``rotate_half(x) = cat((-x[..., h:], x[..., :h]), -1)`` over
  full-width tables ``[B, 1, S, D]`` that the model computed as ``cat((f, f), -1)`` (so their
  halves are equal, which the matcher shows from the graph), queries ``[B, H, S, D]``;
- *pairs* (interleaved, GPT-J): ``rotate_every_two(x) = stack((-x[..., 1::2], x[..., ::2]),
  -1).flatten(-2)`` over ``repeat_interleave(t[:, :, None, :], 2, 3)`` of a per-pair table
  ``t`` ``[B, S, D / 2]``, queries ``[B, S, H, D]``.

Either may rotate the first ``rotary_dim`` entries only (``x[..., :r]``, then ``cat((rotated,
x[..., r:]), -1)``), as the payload's ``rotary_dim`` says. The forms of one table pair are
paired in graph order, one query and one key each.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import torch  # type: ignore[import-not-found, unused-ignore]
from torch.fx import Node  # type: ignore[import-not-found, unused-ignore]

from ._match import Found, Role, rank, val
from ._nodes import arg, args_of, cast_of, claim, is_tensor, name_of, pair, scaled
from .records import Rope


def _slice_of(x: object) -> tuple[Node, int, int | None, int, Node] | None:
    """``x`` is ``base[..., lo:hi:step]`` (the last axis): ``(base, lo, hi, step, x)``."""
    if not isinstance(x, Node):
        return None
    name = name_of(x)
    base = args_of(x)[0] if args_of(x) else None
    r = rank(base)
    if r is None:
        return None
    if name == "getitem":
        items: tuple[Any, ...] = args_of(x)[1]
        if not isinstance(items, tuple):
            items = (items,)
        if items and items[0] is Ellipsis and len(items) == 2:
            s = items[1]
        elif len(items) == r and all(i == slice(None) for i in items[:-1]):
            s = items[-1]
        else:
            return None
        if not isinstance(s, slice):
            return None
        lo, hi, step = s.start or 0, s.stop, s.step or 1
    elif name == "slice":
        dim = args_of(x)[1] if len(args_of(x)) > 1 else 0
        if dim not in (-1, r - 1):
            return None
        lo = args_of(x)[2] if len(args_of(x)) > 2 else 0
        hi = args_of(x)[3] if len(args_of(x)) > 3 else None
        step = args_of(x)[4] if len(args_of(x)) > 4 else 1
        if isinstance(hi, int) and hi >= 2**62:
            hi = None
    else:
        return None
    if not all(isinstance(v, int) for v in (lo, step)) or (
        hi is not None and not isinstance(hi, int)
    ):
        return None
    return base, lo, hi, step, x  # type: ignore[return-value, unused-ignore]


def _width(x: Node) -> int | None:
    d = val(x).shape[-1]
    return d if isinstance(d, int) else None


def _rotate_half(x: Any, nodes: list[Node]) -> tuple[Node, int] | None:
    """``cat((-x[..., h:], x[..., :h]), -1)``: ``(x, 2h)``."""
    if name_of(x) != "cat":
        return None
    parts = arg(x, 0, "tensors")
    dim = arg(x, 1, "dim", default=0)
    if not isinstance(parts, (list, tuple)) or len(parts) != 2:
        return None
    neg, first = parts
    second = _slice_of(arg(neg, 0, "input", "self")) if name_of(neg) == "neg" else None
    head = _slice_of(first)
    if second is None or head is None or second[0] is not head[0]:
        return None
    base = second[0]
    r, d = rank(base), _width(base)
    if r is None or d is None or dim not in (-1, r - 1):
        return None
    (_, lo2, hi2, s2, n2), (_, lo1, hi1, s1, n1) = second, head
    if s1 != 1 or s2 != 1 or lo1 != 0 or hi1 != lo2 or hi2 not in (None, d) or 2 * lo2 != d:
        return None
    nodes.extend([x, neg, n2, n1])
    return base, d


def _rotate_every_two(x: Any, nodes: list[Node]) -> tuple[Node, int] | None:
    """``stack((-x[..., 1::2], x[..., ::2]), -1).flatten(-2)``: ``(x, width)``."""
    if (
        name_of(x) != "flatten"
        or arg(x, 1, "start_dim") not in (-2,)
        or arg(x, 2, "end_dim", default=-1) not in (-1,)
    ):
        r = rank(x)
        if not (name_of(x) == "flatten" and r is not None and arg(x, 1, "start_dim") == r - 1):
            return None
    st = args_of(x)[0]
    if name_of(st) != "stack" or arg(st, 1, "dim", default=0) not in (-1, (rank(st) or 0) - 1):
        return None
    parts = arg(st, 0, "tensors")
    if not isinstance(parts, (list, tuple)) or len(parts) != 2:
        return None
    neg, first = parts
    odd = _slice_of(arg(neg, 0, "input", "self")) if name_of(neg) == "neg" else None
    even = _slice_of(first)
    if odd is None or even is None or odd[0] is not even[0]:
        return None
    base = odd[0]
    d = _width(base)
    (_, lo2, hi2, s2, n2), (_, lo1, hi1, s1, n1) = odd, even
    if (
        d is None
        or (lo1, s1, lo2, s2) != (0, 2, 1, 2)
        or hi1 not in (None, d)
        or hi2 not in (None, d)
    ):
        return None
    nodes.extend([x, st, neg, n2, n1])
    return base, d


def _rotation(root: Node) -> tuple[Node, Node, Node, int, str, list[Node]] | None:
    """One tensor's rotary: ``x * cos + rotate(x) * sin`` (either order):
    ``(x, cos, sin, width, style, nodes)``."""
    if name_of(root) != "add":
        return None
    for a, b in pair(root):
        if name_of(a) != "mul" or name_of(b) != "mul":
            continue
        for x, cos in pair(a):
            for rot, sin in pair(b):
                if not (is_tensor(cos) and is_tensor(sin)):
                    continue
                for style, rotate in (("halves", _rotate_half), ("pairs", _rotate_every_two)):
                    nodes: list[Node] = []
                    found = rotate(rot, nodes)
                    if found is not None and found[0] is x:
                        return x, cos, sin, found[1], style, [*nodes, a, b, root]
    return None


def _table(op: Node, style: str) -> tuple[Node, int] | None:
    """The per-token table an operand of a rotation broadcasts, and the axis its heads take in
    the rotated tensor: ``unsqueeze(t, 1)`` of a halves table ``[B, S, D]`` (queries ``[B, H,
    S, D]``), or ``repeat_interleave(unsqueeze(t, 2), 2, -1)`` of a per-pair table ``[B, S,
    D / 2]`` (queries ``[B, S, H, D]``)."""
    if style == "pairs":
        if name_of(op) != "repeat_interleave" or arg(op, 1, "repeats") != 2:
            return None
        if arg(op, 2, "dim") not in (-1, 3):
            return None
        op = args_of(op)[0]
    t, axis = _unsqueezed(op)
    if t is None or rank(t) != 3:
        return None
    if style == "halves" and (axis != 1 or _half_table(t) is None):
        return None
    if style == "pairs" and axis != 2:
        return None
    return t, axis


def _unsqueezed(x: Any) -> tuple[Node | None, int]:
    """``(t, axis)`` for ``t.unsqueeze(axis)`` or ``t[:, None]``/``t[:, :, None, :]``."""
    inner = args_of(x)[0] if isinstance(x, Node) and args_of(x) else None
    if not isinstance(inner, Node):
        return None, -1
    if name_of(x) == "unsqueeze":
        dim = arg(x, 1, "dim")
        return (inner, dim) if isinstance(dim, int) and dim >= 0 else (None, -1)
    if name_of(x) == "getitem":
        items = args_of(x)[1]
        if isinstance(items, tuple) and items.count(None) == 1:
            axis = items.index(None)
            rest = [i for i in items if i is not None]
            if all(i == slice(None) for i in rest) and len(rest) <= rank(inner):  # type: ignore[operator]
                return inner, axis
    return None, -1


def _half_table(table: Node) -> Node | None:
    """The node whose halves are equal: a ``[.., D]`` table computed elementwise (casts, scalar
    products, ``cos``/``sin``, an unsqueeze) from ``cat((f, f), -1)``; its first half is the
    rope payload's per-pair table. ``None`` when that cannot be shown."""
    x: object = table
    for _ in range(8):
        name = name_of(x)
        if name == "cat":
            assert isinstance(x, Node)
            parts = arg(x, 0, "tensors")
            dim = arg(x, 1, "dim", default=0)
            r = rank(x)
            if (
                isinstance(parts, (list, tuple))
                and len(parts) == 2
                and parts[0] is parts[1]
                and r is not None
                and dim in (-1, r - 1)
            ):
                return table
            return None
        if name in ("cos", "sin", "unsqueeze") or cast_of(x) is not None:
            x = args_of(x)[0]
            continue
        s = scaled(x)
        if s is not None:
            x = s[0]
            continue
        if name == "getitem" and isinstance(x, Node):
            inner = _autocast_output(x)
            if inner is None:
                return None
            x = inner
            continue
        return None
    return None


def _autocast_output(item: Node) -> object | None:
    """The node inside a ``wrap_with_autocast`` region (``torch.export``'s spelling of an
    autocast block) whose value ``item`` reads."""
    region, index = args_of(item)[0], args_of(item)[1]
    if not isinstance(region, Node) or not isinstance(index, int):
        return None
    if "wrap_with_autocast" not in str(region.target):
        return None
    sub = args_of(region)[4] if len(args_of(region)) > 4 else None
    target = sub.target if isinstance(sub, Node) else None
    gm = getattr(region.graph.owning_module, target, None) if isinstance(target, str) else None
    if gm is None:
        return None
    out = next(n for n in gm.graph.nodes if n.op == "output")
    values = args_of(out)[0]
    return values[index] if isinstance(values, (list, tuple)) else None


def _partial(root: Node, x: Node, width: int, nodes: list[Node]) -> tuple[Node, Node]:
    """A rotation of ``base[..., :r]`` whose only reader is ``cat((rotated, base[..., r:]),
    -1)``: ``(cat, base)``, the rest of the head copied; else ``(root, x)``."""
    head = _slice_of(x)
    users = list(root.users)
    if head is None or head[1:4] != (0, width, 1) or len(users) != 1:
        return root, x
    c = users[0]
    parts = arg(c, 0, "tensors") if name_of(c) == "cat" else None
    if not isinstance(parts, (list, tuple)) or len(parts) != 2 or parts[0] is not root:
        return root, x
    rest = _slice_of(parts[1])
    base = head[0]
    if rest is None or rest[0] is not base or rest[1:4] != (width, None, 1):
        d = _width(base)
        if rest is None or rest[0] is not base or rest[1:4] != (width, d, 1):
            return root, x
    if arg(c, 1, "dim", default=0) not in (-1, (rank(c) or 0) - 1):
        return root, x
    nodes.extend([x, parts[1], c])
    return c, base


def ropes(nodes: Sequence[Node]) -> Iterator[Found]:
    """Rotary embeddings: the rotations over one pair of tables, queries then keys in graph
    order, each pair one ``rope`` computation."""
    found: dict[tuple[Node, Node, str], list[tuple[Node, Node, int, int, list[Node]]]] = {}
    for n in nodes:
        rotation = _rotation(n)
        if rotation is None:
            continue
        x, cos_op, sin_op, width, style, form = rotation
        cos_table, sin_table = _table(cos_op, style), _table(sin_op, style)
        if cos_table is None or sin_table is None or cos_table[1] != sin_table[1]:
            continue
        if rank(x) != 4:
            continue
        out, base = _partial(n, x, width, form)
        key = (cos_table[0], sin_table[0], style)
        found.setdefault(key, []).append((out, base, width, cos_table[1], form))
    for (cos, sin, style), rotations in found.items():
        for (q_out, q, r, axis, q_nodes), (k_out, k, rk, _, k_nodes) in zip(
            rotations[::2], rotations[1::2]
        ):
            if r != rk:
                continue
            heads = 1 if axis == 1 else 2
            if _extent(q, heads) < _extent(k, heads):
                # The payload's query has the more heads (grouped-query keys): model code may
                # rotate the keys first (GPT-J).
                (q_out, q, q_nodes), (k_out, k, k_nodes) = (k_out, k, k_nodes), (q_out, q, q_nodes)
            tensors = {Role.QUERY, Role.KEY, Role.OUT, Role.KEY_OUT}
            f = Found(
                q_out,
                "rope",
                Rope,
                None,
                {Role.QUERY: q, Role.KEY: k, Role.COS: cos, Role.SIN: sin},
                (Role.QUERY, Role.KEY, Role.COS, Role.SIN),
                _rope_shapes,
                heads_last=frozenset(tensors) if axis == 1 else frozenset(),
                rowwise=frozenset({*tensors, Role.COS, Role.SIN}),
                extra_outputs={Role.KEY_OUT: k_out},
                replaced=(*q_nodes, *k_nodes),
                attrs={
                    "rotary_dim": r,
                    "interleaved": style == "pairs",
                    "half": r // 2,
                    "seq_axis": 2 if axis == 1 else 1,
                },
            )
            claimed = claim(f)
            if claimed is not None:
                yield claimed


def _extent(x: Node, axis: int) -> int:
    d = val(x).shape[axis]
    return d if isinstance(d, int) else 0


def _rope_shapes(operands: Sequence[torch.Tensor]) -> tuple[Sequence[Any], Sequence[Any]]:
    return operands[0].shape, operands[1].shape
