# PyTorch's own annotations are full of `Any`: this module, which works in them, is exempt
# from `--disallow-any-expr` (it passes `mypy --strict`, with torch and without).
# mypy: disallow-any-expr=False
"""Attention as model code writes it (``_forms.py``; docs/torch.md, "Forms"): SDPA with
``enable_gqa`` or after ``repeat_kv``; eager attention's matmul-softmax-matmul; each with the
mask the model built, when ``_mask.py`` proves it causal or absent."""

from __future__ import annotations

import math

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
from .records import DenseAttention


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
