# PyTorch's own annotations are full of `Any`: this module, which works in them, is exempt
# from `--disallow-any-expr` (it passes `mypy --strict`, with torch and without).
# mypy: disallow-any-expr=False
"""Rotary embedding and attention as model code writes them (``_forms.py``; docs/torch.md,
"Forms"): rotate-half rotary over model-computed cos/sin tables, paired per query and key; SDPA
with ``enable_gqa`` or after ``repeat_kv``; eager attention's matmul-softmax-matmul; each with
the mask the model built, when ``_mask.py`` proves it causal or absent."""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from typing import Any

import torch  # type: ignore[import-not-found, unused-ignore]
from torch.fx import Node  # type: ignore[import-not-found, unused-ignore]

from ._mask import causal_mask
from ._match import Found, Role, rank, same_shape, val
from ._nodes import (
    arg,
    args_of,
    cast_of,
    claim,
    claim_opt,
    dtype_of,
    is_tensor,
    known_equal,
    name_of,
    number,
    pair,
    scaled,
    source,
    through,
    transposed_of,
)
from .records import DenseAttention, Rope


def _rotate_half(x: object, nodes: list[Node]) -> tuple[Node, int] | None:
    """``cat((-x[..., h:], x[..., :h]), -1)``: ``(x, 2h)``."""
    if name_of(x) != "cat":
        return None
    assert isinstance(x, Node)
    parts = arg(x, 0, "tensors")
    dim = arg(x, 1, "dim", default=0)
    if not isinstance(parts, (list, tuple)) or len(parts) != 2:
        return None
    neg, first = parts
    src = arg(neg, 0, "input", "self") if name_of(neg) == "neg" else None
    second = _slice_of(src)
    head = _slice_of(first)
    if second is None or head is None or second[0] is not head[0]:
        return None
    base, r = second[0], rank(second[0])
    if r is None or dim not in (-1, r - 1):
        return None
    (_, lo2, hi2, n2), (_, lo1, hi1, n1) = second, head
    d = val(base).shape[-1]
    if not isinstance(d, int) or lo1 != 0 or hi1 != lo2 or hi2 not in (None, d) or 2 * lo2 != d:
        return None
    nodes.extend([x, neg, n2, n1])
    return base, d


def _slice_of(x: object) -> tuple[Node, int, int | None, Node] | None:
    """``x`` is ``base[..., lo:hi]`` (the last axis): ``(base, lo, hi, x)``."""
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
        if not isinstance(s, slice) or s.step not in (None, 1):
            return None
        lo, hi = s.start or 0, s.stop
    elif name == "slice":
        dim = args_of(x)[1] if len(args_of(x)) > 1 else 0
        if dim not in (-1, r - 1) or (len(args_of(x)) > 4 and args_of(x)[4] != 1):
            return None
        lo = args_of(x)[2] if len(args_of(x)) > 2 else 0
        hi = args_of(x)[3] if len(args_of(x)) > 3 else None
        if isinstance(hi, int) and hi >= 2**62:
            hi = None
    else:
        return None
    if not isinstance(lo, int) or (hi is not None and not isinstance(hi, int)):
        return None
    return base, lo, hi, x  # type: ignore[return-value, unused-ignore]


def _rope_half(root: Node) -> tuple[Node, Node, Node, int, list[Node]] | None:
    """One tensor's rotate-half rotary: ``x * cos + rotate_half(x) * sin`` (either order):
    ``(x, cos, sin, rotary_dim, nodes)``."""
    if name_of(root) != "add":
        return None
    for a, b in pair(root):
        if name_of(a) != "mul" or name_of(b) != "mul":
            continue
        for x, cos in pair(a):
            for rot, sin in pair(b):
                nodes: list[Node] = []
                found = _rotate_half(rot, nodes)
                if found is None or found[0] is not x or not (is_tensor(cos) and is_tensor(sin)):
                    continue
                return x, cos, sin, found[1], [*nodes, a, b, root]
    return None


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


def ropes(nodes: Sequence[Node]) -> Iterator[Found]:
    """Rotary embeddings: the rotate-half forms of one cos/sin table pair, queries then keys
    in graph order, each pair one ``rope`` computation."""
    halves: dict[tuple[Node, Node], list[tuple[Node, Node, int, list[Node]]]] = {}
    for n in nodes:
        h = _rope_half(n)
        if h is not None:
            x, cos, sin, d, form = h
            halves.setdefault((cos, sin), []).append((n, x, d, form))
    for (cos, sin), found in halves.items():
        base_cos, base_sin = _unsqueezed(cos), _unsqueezed(sin)
        if base_cos is None or base_sin is None:
            continue
        if _half_table(base_cos) is None or _half_table(base_sin) is None:
            continue
        for (q_root, q, d, q_nodes), (k_root, k, dk, k_nodes) in zip(found[::2], found[1::2]):
            if d != dk or rank(q) != 4 or rank(k) != 4:
                continue
            f = Found(
                q_root,
                "rope",
                Rope,
                None,
                {Role.QUERY: q, Role.KEY: k, Role.COS: base_cos, Role.SIN: base_sin},
                (Role.QUERY, Role.KEY, Role.COS, Role.SIN),
                _rope_shapes,
                heads_last=frozenset({Role.QUERY, Role.KEY, Role.OUT, Role.KEY_OUT}),
                rowwise=frozenset(
                    {Role.QUERY, Role.KEY, Role.OUT, Role.KEY_OUT, Role.COS, Role.SIN}
                ),
                extra_outputs={Role.KEY_OUT: k_root},
                replaced=(*q_nodes, *k_nodes),
                attrs={"rotary_dim": d, "interleaved": False, "tables": "halves"},
            )
            claimed = claim(f)
            if claimed is not None:
                yield claimed


def _unsqueezed(x: Node) -> Node | None:
    """The ``[B, S, D]`` table a ``[B, 1, S, D]`` operand is the unsqueeze of."""
    inner = args_of(x)[0] if args_of(x) else None
    if name_of(x) == "unsqueeze" and arg(x, 1, "dim") == 1 and rank(inner) == 3:
        return inner if isinstance(inner, Node) else None
    return None


def _rope_shapes(operands: Sequence[torch.Tensor]) -> tuple[Sequence[Any], Sequence[Any]]:
    return operands[0].shape, operands[1].shape


def _repeat_kv(x: object, nodes: list[Node]) -> object:
    """The ``[B, H_kv, S, D]`` tensor that ``x`` repeats per query group (``repeat_kv``:
    ``x[:, :, None].expand(B, H_kv, n, S, D).reshape(B, H_kv * n, S, D)``), or ``x``."""
    if name_of(x) != "reshape" and name_of(x) != "view":
        return x
    assert isinstance(x, Node)
    ex = args_of(x)[0]
    if name_of(ex) != "expand":
        return x
    assert isinstance(ex, Node)
    un = args_of(ex)[0]
    src: object = None
    if name_of(un) == "unsqueeze" and arg(un, 1, "dim") == 2:
        src = args_of(un)[0]
    elif name_of(un) == "getitem":
        items = args_of(un)[1]
        full = (slice(None), slice(None), None, slice(None), slice(None))
        if items == full or items == (slice(None), slice(None), None):
            src = args_of(un)[0]
    if not is_tensor(src) or rank(src) != 4:
        return x
    s, e, o = val(src).shape, val(ex).shape, val(x).shape
    if len(e) != 5 or len(o) != 4:
        return x
    if not (
        known_equal(e[0], s[0])
        and known_equal(e[1], s[1])
        and known_equal(e[3], s[2])
        and known_equal(e[4], s[3])
    ):
        return x
    if not (known_equal(o[1], e[1] * e[2]) and known_equal(o[2], s[2]) and known_equal(o[3], s[3])):
        return x
    nodes.extend([un, ex, x])
    return src


def _attention(
    root: Node,
    q: object,
    k: object,
    v: object,
    mask: object,
    is_causal: bool,
    scale: object,
    nodes: list[Node],
    computes: str,
) -> Found | None:
    if not (is_tensor(q) and rank(q) == 4):
        return None
    k = _repeat_kv(k, nodes)
    v = _repeat_kv(v, nodes)
    if not (is_tensor(k) and is_tensor(v) and rank(k) == 4 and rank(v) == 4):
        return None
    qv, kv = val(q), val(k)
    causal: bool | None = is_causal
    attrs: dict[str, object] = {}
    if mask is not None:
        if is_causal or not isinstance(mask, Node):
            return None
        scores = (qv.shape[0], qv.shape[1], qv.shape[2], kv.shape[2])
        known = causal_mask(mask, scores)
        # A mask not shown causal or absent is still this attention, which no family computes
        # (its report entry says so).
        causal = known
        if known is None:
            attrs["mask"] = f"its mask `{mask.name}` is not shown to be causal or absent"
    if scale is None:
        d = qv.shape[-1]
        if not isinstance(d, int):
            return None
        value: float | None = 1.0 / math.sqrt(d)
    else:
        value = number(scale)
    if value is None:
        return None
    return Found(
        root,
        computes,
        DenseAttention,
        None,
        {Role.QUERY: q, Role.KEY: k, Role.VALUE: v},
        (Role.QUERY, Role.KEY, Role.VALUE),
        same_shape,
        scale=value,
        causal=causal,
        replaced=tuple(nodes),
        sources=_sources("scale", source(scale)),
        attrs=attrs,
        contiguous=frozenset({Role.QUERY, Role.KEY, Role.VALUE}),
    )


def _sources(name: str, node: Node | None) -> dict[str, Node]:
    return {} if node is None else {name: node}


def sdpa(root: Node) -> Found | None:
    if name_of(root) != "scaled_dot_product_attention":
        return None
    q, k, v = (arg(root, i, n) for i, n in enumerate(("query", "key", "value")))
    mask = arg(root, 3, "attn_mask")
    dropout = arg(root, 4, "dropout_p", default=0.0)
    is_causal = arg(root, 5, "is_causal", default=False)
    scale = root.kwargs.get("scale", args_of(root)[6] if len(args_of(root)) > 6 else None)
    if dropout not in (0, 0.0) or not isinstance(is_causal, bool):
        return None
    gqa = root.kwargs.get("enable_gqa", args_of(root)[7] if len(args_of(root)) > 7 else False)
    qv, kv = val(q), val(k)
    if not (isinstance(qv, torch.Tensor) and isinstance(kv, torch.Tensor)):
        return None
    if not gqa and not known_equal(qv.shape[1], kv.shape[1]) and _repeat_kv(k, []) is k:
        return None
    return claim_opt(_attention(root, q, k, v, mask, is_causal, scale, [root], "sdpa"))


def eager_attention(root: Node) -> Found | None:
    """``matmul(softmax(q @ k^T * scale [+ mask], -1[, dtype=float32]).to(q.dtype), v)``, with
    eval-mode dropout on the probabilities and the scale on either side."""
    if name_of(root) != "matmul" or rank(root) != 4:
        return None
    probs, v = arg(root, 0, "input", "self"), arg(root, 1, "other")
    nodes: list[Node] = []
    probs = through(probs, nodes)
    sm = cast_of(probs)
    if sm is not None:
        nodes.append(probs)
    else:
        sm = probs
    if name_of(sm) != "softmax":
        return None
    assert isinstance(sm, Node)
    dim = arg(sm, 1, "dim")
    dtype = arg(sm, 2, "dtype")
    if dim not in (-1, 3) or dtype not in (None, torch.float32):
        return None
    nodes.append(sm)
    scores = arg(sm, 0, "input", "self")
    mask: object = None
    if name_of(scores) == "add":
        assert isinstance(scores, Node)
        for s, m in pair(scores):
            if name_of(s) in ("mul", "div", "matmul") and is_tensor(m):
                nodes.append(scores)
                scores, mask = s, m
                break
        else:
            return None
    scale: object = 1.0
    mm = scores
    sc = scaled(scores)
    if sc is not None:
        mm, scale = sc[0], args_of(scores)[1] if args_of(scores)[0] is sc[0] else args_of(scores)[0]
        nodes.append(scores)
    elif name_of(scores) == "div":
        assert isinstance(scores, Node)
        d = number(args_of(scores)[1])
        if d is None:
            return None
        mm, scale = args_of(scores)[0], 1.0 / d
        nodes.append(scores)
    if name_of(mm) != "matmul":
        return None
    assert isinstance(mm, Node)
    q, kt = arg(mm, 0, "input", "self"), arg(mm, 1, "other")
    k = transposed_of(kt)
    if k is None or not is_tensor(q) or len(kt.users) != 1:
        return None
    if dtype_of(root) != dtype_of(q):
        return None
    nodes += [kt, mm]
    nodes.append(root)
    order = {n: i for i, n in enumerate(root.graph.nodes)}
    nodes.sort(key=lambda n: order[n])
    found = _attention(root, q, k, v, mask, False, scale, nodes, "attention")
    return None if found is None else claim(found)
