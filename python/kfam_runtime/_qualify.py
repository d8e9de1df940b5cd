# PyTorch's own annotations are full of `Any`: this module, which works in them, is exempt
# from `--disallow-any-expr` (it passes `mypy --strict`, with torch and without).
# mypy: disallow-any-expr=False
"""A qualification run (a catalog's ``qualify``, docs/qualify.md): a kernel against the reference
its family's declaration implies, over shapes drawn from the family's own symbols, with the result
written as the structured evidence of a receipt.

Case ``i`` of a run with seed ``s`` is drawn from ``(s, i)`` alone, so ``case=i`` replays it.
"""

from __future__ import annotations

import datetime
import math
import platform
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

import torch  # type: ignore[import-not-found, unused-ignore]

from ._call import ScalarArg, validate_call
from ._catalog import Catalog
from ._errors import CallError
from ._reference import Kernel, reference as _reference, refuse_untensorable
from .records import (
    ElementwiseBinary,
    ElementwiseUnary,
    Evidence,
    Family,
    Matmul,
    Norm,
    OutputError,
    PagedAttentionDecode,
    Param,
)
from .torch import tensor_arg, torch_dtype
from .vocab import BinaryOp, DType, Direction, UnaryOp

#: The ``tool`` of the evidence this module writes (``kfam check`` knows it), whatever the
#: catalog: it names the procedure, not the package that ran it.
TOOL: Final[str] = "kfam.qualify"
#: Bytes of poisoned margin before and after every tensor a kernel receives (rounded up to a
#: multiple of 64, so the tensor itself stays 64-byte aligned): a write past either end of a
#: tensor, within this distance, fails the case (docs/qualify.md).
GUARD_BYTES: Final[int] = 4096
#: The byte the margins hold.
GUARD_POISON: Final[int] = 0xA5
#: A symbol without ``max`` is sampled up to this (or its ``min``, if larger).
SAMPLE_LIMIT: Final[int] = 256
#: The dynamic extents (``-1``) that no symbol names take one value per case, in
#: ``1..=DYNAMIC_LIMIT``.
DYNAMIC_LIMIT: Final[int] = 64


@dataclass(frozen=True, slots=True)
class Tolerance:
    """An output element passes when ``|kernel - reference| <= atol + rtol * |reference|``
    (``torch.testing.assert_close``'s rule); NaN and infinities must match exactly."""

    atol: float
    rtol: float


#: The default tolerance of each output dtype: ``torch.testing``'s for fp32, fp16 and bf16;
#: about one unit in the last place for fp8; exact for integers and bool.
DEFAULT_TOLERANCES: Final[Mapping[DType, Tolerance]] = {
    DType.FP32: Tolerance(1e-5, 1.3e-6),
    DType.FP16: Tolerance(1e-5, 1e-3),
    DType.BF16: Tolerance(1e-5, 1.6e-2),
    DType.FP8E4M3FN: Tolerance(2.0**-9, 0.125),
    DType.FP8E8M0: Tolerance(0.0, 0.5),
}
_EXACT: Final[Tolerance] = Tolerance(0.0, 0.0)


class QualificationError(AssertionError):
    """A case the kernel failed: an output beyond its tolerance, a write outside a tensor, an
    input it changed, or a kernel that raised. The attributes say what failed and how to
    reproduce it: the catalog's ``qualify(family, kernel, seed=error.seed, case=error.case)``,
    as the message names it.

    ``kind`` is ``"output"``, ``"guard"`` (a write in a tensor's margin), ``"input"`` (an
    ``in`` tensor changed) or ``"raised"``. ``tensor`` names the tensor at fault (``output``
    too, for ``"output"``); ``element`` is the first failing or changed element's index;
    ``side`` (``"before"`` or ``"after"``) and ``offset`` (bytes from the tensor's edge, 0 the
    byte next to it) locate a guard write. ``max_abs``, ``max_rel`` and ``tolerance`` are set
    for ``"output"`` alone."""

    def __init__(
        self,
        message: str,
        *,
        family: str,
        case: int,
        seed: int,
        symbols: Mapping[str, int],
        shapes: Mapping[str, tuple[int, ...]],
        output: str | None = None,
        max_abs: float | None = None,
        max_rel: float | None = None,
        tolerance: Tolerance | None = None,
        element: tuple[int, ...] | None = None,
        kind: str = "output",
        tensor: str | None = None,
        side: str | None = None,
        offset: int | None = None,
    ) -> None:
        super().__init__(message)
        self.family = family
        self.case = case
        self.seed = seed
        self.symbols = dict(symbols)
        self.shapes = dict(shapes)
        self.output = output
        self.max_abs = max_abs
        self.max_rel = max_rel
        self.tolerance = tolerance
        self.element = element
        self.kind = kind
        self.tensor = tensor if tensor is not None else output
        self.side = side
        self.offset = offset


@dataclass(frozen=True, slots=True)
class Qualification:
    """What a passing run measured: ``evidence`` is the receipt's structured evidence."""

    family: Family
    evidence: Evidence
    #: SHA-256 of the qualified artifact, when the run was given it.
    artifact_sha256: str | None = None
    #: The distinct shapes of each tensor parameter the run passed.
    covered: Mapping[str, tuple[tuple[int, ...], ...]] = field(default_factory=dict)

    # The evidence's fields, read through: the run's result is one record, ``Evidence``,
    # the same the catalog's tables give back once the receipt is in a family file.

    @property
    def tool(self) -> str:
        """``"kfam.qualify"``."""
        return self.evidence.tool or TOOL

    @property
    def versions(self) -> tuple[str, ...]:
        """``name version`` of the catalog package, torch and Python."""
        return self.evidence.versions

    @property
    def cases(self) -> int:
        """The cases the run passed."""
        return self.evidence.cases

    @property
    def seed(self) -> int:
        """The run's seed."""
        return self.evidence.seed

    @property
    def shapes(self) -> tuple[str, ...]:
        """One per symbol, ``"name = v1, v2, ..."``: the distinct values covered, ascending."""
        return self.evidence.shapes

    @property
    def errors(self) -> tuple[OutputError, ...]:
        """The worst error per written tensor over every case, in signature order;
        ``OutputError.output`` is the parameter's signature index (``family.params[i]``)."""
        return self.evidence.errors

    @property
    def date(self) -> str:
        """The day of the run, YYYY-MM-DD."""
        return self.evidence.date

    @property
    def hardware(self) -> str:
        """What the kernel ran on."""
        return self.evidence.hardware

    def to_toml(self) -> str:
        """The receipt's ``[receipts.evidence]`` table, header included: paste it after the
        keys of a ``[[receipts]]`` entry."""
        ev = self.evidence
        names = [self.family.params[e.output].name for e in ev.errors]
        errors = ", ".join(
            f"{{ output = {_string(n)}, max_abs = {_float(e.max_abs)}, "
            f"max_rel = {_float(e.max_rel)} }}"
            for n, e in zip(names, ev.errors)
        )
        lines = [
            "[receipts.evidence]",
            f"date = {_string(ev.date)}",
            f"hardware = {_string(ev.hardware)}",
        ]
        if ev.note is not None:
            lines.append(f"note = {_string(ev.note)}")
        lines += [
            f"tool = {_string(ev.tool or TOOL)}",
            f"versions = [{', '.join(_string(v) for v in ev.versions)}]",
            f"cases = {ev.cases}",
            f"seed = {ev.seed}",
            f"shapes = [{', '.join(_string(s) for s in ev.shapes)}]",
            f"errors = [{errors}]",
        ]
        return "\n".join(lines) + "\n"

    def receipt_toml(self, profile: str, codec: str, artifact: str) -> str:
        """A whole ``[[receipts]]`` entry for the qualified artifact (``artifact_sha256``
        required), with this run's evidence."""
        if self.artifact_sha256 is None:
            raise ValueError("the run was not given the artifact's digest (artifact_sha256=)")
        return (
            "[[receipts]]\n"
            f"profile = {_string(profile)}\n"
            f"codec = {_string(codec)}\n"
            f"artifact = {_string(artifact)}\n"
            f"sha256 = {_string(self.artifact_sha256)}\n\n" + self.to_toml()
        )


def _string(s: str) -> str:
    """A TOML basic string."""
    out = []
    for ch in s:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _float(x: float) -> str:
    """A TOML float that reads back as ``x``."""
    return repr(float(x))


# ---------------------------------------------------------------- drawing cases


def _edges(lo: int, hi: int, step: int) -> list[int]:
    """The values every run covers first, in multiples of ``step``: both ends, their
    neighbours, and a middle value that is odd (ragged) where ``step`` allows it."""
    mid = ((lo + hi) // 2 // step) * step
    if step == 1:
        mid |= 1
    picks = [lo, hi, lo + step, hi - step, mid]
    seen: list[int] = []
    for v in picks:
        if lo <= v <= hi and v not in seen:
            seen.append(v)
    return seen


def _range(family: Family, name: str) -> tuple[int, int, int]:
    """A symbol's sampled range: ``lo..=hi`` in multiples of ``step``, never 0."""
    sym = next(s for s in family.symbols if s.name == name)
    step = max(1, sym.multiple_of)
    lo = max(sym.min, 1)
    lo = -(-lo // step) * step
    hi = sym.max if sym.max is not None else max(lo, SAMPLE_LIMIT)
    hi = (hi // step) * step
    if hi < lo:
        raise ValueError(f"{family.name}: symbol {name!r} has no extent to sample")
    return lo, hi, step


@dataclass
class _Case:
    index: int
    symbols: dict[str, int]
    shapes: dict[str, tuple[int, ...]]
    args: list[object]


def _symbol_of(family: Family) -> dict[tuple[int, int], str]:
    return {(u.param, u.axis): s.name for s in family.symbols for u in s.uses}


def _draw(family: Family, seed: int, index: int) -> _Case:
    rng = random.Random(f"kfam.qualify {family.name} {seed} {index}")
    gen = torch.Generator().manual_seed(rng.getrandbits(63))
    symbols: dict[str, int] = {}
    for s in family.symbols:
        lo, hi, step = _range(family, s.name)
        edges = _edges(lo, hi, step)
        symbols[s.name] = (
            edges[index] if index < len(edges) else rng.randint(lo // step, hi // step) * step
        )
    named = _symbol_of(family)
    # One value for every dynamic extent no symbol names: the checker may have tied them
    # (equal operand shapes), which the records do not spell out.
    dynamic = rng.randint(1, DYNAMIC_LIMIT)
    shapes: dict[str, tuple[int, ...]] = {}
    for p in family.params:
        if not p.is_tensor:
            continue
        dims = []
        for axis, d in enumerate(p.shape):
            if (p.index, axis) in named:
                dims.append(symbols[named[(p.index, axis)]])
            elif d < 0:
                dims.append(dynamic)
            else:
                dims.append(d)
        shapes[p.name] = tuple(dims)
    op = family.operation
    if isinstance(op, PagedAttentionDecode):
        return _paged_case(family, op, index, rng, gen, symbols, shapes)
    args = [_tensor_or_scalar(family, p, shapes, rng, gen) for p in family.params]
    return _Case(index, symbols, shapes, args)


def _role(family: Family, p: Param) -> str:
    """What an input is to the operation, where that bounds its values."""
    op = family.operation
    if isinstance(op, ElementwiseUnary) and p.index == op.input:
        if op.op in (UnaryOp.LOG, UnaryOp.SQRT, UnaryOp.RSQRT):
            return "positive"
    if isinstance(op, ElementwiseBinary) and op.op is BinaryOp.DIV and p.index == op.rhs:
        return "nonzero"
    if isinstance(op, Matmul) and p.index == op.a:
        return "matmul_a"
    if isinstance(op, Norm) and op.eps.param == p.index:
        return "eps"
    if isinstance(op, PagedAttentionDecode) and op.scale.param == p.index:
        return "scale"
    return ""


def _tensor_or_scalar(
    family: Family,
    p: Param,
    shapes: Mapping[str, tuple[int, ...]],
    rng: random.Random,
    gen: torch.Generator,
) -> object:
    role = _role(family, p)
    if not p.is_tensor:
        if p.dtype is DType.BOOL:
            return rng.random() < 0.5
        if not torch_dtype(p.dtype).is_floating_point:
            return rng.randint(1, 8)
        if role == "eps":
            return 10.0 ** rng.uniform(-6.0, -3.0)
        if role == "scale":
            return rng.uniform(0.02, 0.1)
        return rng.uniform(0.5, 2.0)
    shape = shapes[p.name]
    dtype = torch_dtype(p.dtype)
    if p.direction is Direction.OUT:
        # Poisoned: a kernel that leaves an element unwritten fails the comparison.
        if dtype.is_floating_point:
            return torch.full(shape, float("nan"), dtype=dtype)
        return torch.full(shape, 0x5A if dtype != torch.bool else True, dtype=dtype)
    if dtype == torch.bool:
        return torch.randint(0, 2, shape, generator=gen).to(torch.bool)
    if not dtype.is_floating_point:
        low = 0 if p.dtype.spelling.startswith("uint") else -8
        return torch.randint(low, 9, shape, generator=gen).to(dtype)
    if p.dtype is DType.FP8E8M0:
        return torch.pow(2.0, torch.randint(-4, 5, shape, generator=gen).double()).to(dtype)
    x = torch.randn(shape, generator=gen, dtype=torch.float64)
    if role == "positive":
        x = x.abs() + 0.1
    elif role == "nonzero":
        x = torch.sign(x) * (x.abs() + 0.5) + (x == 0).double()
    elif role == "matmul_a":
        x = x / math.sqrt(max(1, shape[-1]))
    return x.to(dtype)


def _paged_case(
    family: Family,
    op: PagedAttentionDecode,
    index: int,
    rng: random.Random,
    gen: torch.Generator,
    symbols: dict[str, int],
    shapes: dict[str, tuple[int, ...]],
) -> _Case:
    """Paged attention's integer inputs mean something: context lengths within each
    sequence's blocks, ragged (not a multiple of the block size) with 1 and the full capacity
    among them, and block tables of random cache blocks, so that a kernel ignoring the table,
    or reading one token too many or too few, computes something else."""
    args = [_tensor_or_scalar(family, p, shapes, rng, gen) for p in family.params]
    params = family.params
    blocks, block_size = shapes[params[op.key_cache].name][:2]
    batch, max_blocks = shapes[params[op.block_table].name]
    capacity = max_blocks * block_size
    # A permutation of the cache's blocks, repeated when the table has more entries than the
    # cache has blocks: distinct blocks where they fit, and never the identity, so a kernel
    # that reads block i for entry i, or one entry for another, reads other tokens.
    entries = batch * max_blocks
    perm = torch.randperm(blocks, generator=gen).repeat(-(-entries // blocks))
    table = perm[:entries].reshape(batch, max_blocks)
    if blocks > 1 and bool((table[0] == torch.arange(max_blocks) % blocks).all()):
        table = (table + 1) % blocks
    lens = [rng.randint(1, capacity) for _ in range(batch)]
    edges = [1, capacity, min(capacity, block_size + 1), max(1, capacity - 1)]
    lens[0] = edges[index % len(edges)]
    if batch > 1 and block_size > 1:
        # A ragged length: some block is partly filled.
        ragged = [n for n in range(1, capacity + 1) if n % block_size != 0]
        lens[-1] = rng.choice(ragged)
    args[op.block_table] = table.to(torch_dtype(params[op.block_table].dtype))
    args[op.context_lens] = torch.tensor(lens, dtype=torch_dtype(params[op.context_lens].dtype))
    return _Case(index, symbols, shapes, args)


# ---------------------------------------------------------------- running


def _call(family: Family, args: Sequence[object]) -> None:
    tensors = [
        tensor_arg(a, p)
        for a, p in zip(args, family.params)
        if p.is_tensor and isinstance(a, torch.Tensor)
    ]
    scalars = [
        ScalarArg.of(a)
        for a, p in zip(args, family.params)
        if not p.is_tensor and isinstance(a, (bool, int, float))
    ]
    validate_call(family, tensors, scalars)


def _compare(
    kernel_out: torch.Tensor, ref_out: torch.Tensor, tol: Tolerance
) -> tuple[float, float, tuple[int, ...] | None]:
    """The largest absolute and relative difference, and the first failing element's index."""
    k = kernel_out.detach().cpu()
    r = ref_out
    if k.shape != r.shape:
        raise ValueError(
            f"kernel output has shape {tuple(k.shape)}, the reference {tuple(r.shape)}"
        )
    if not r.dtype.is_floating_point:
        bad = (k != r).nonzero()
        diff = (k.to(torch.float64) - r.to(torch.float64)).abs()
        worst = float(diff.max()) if diff.numel() else 0.0
        return worst, worst, tuple(int(i) for i in bad[0]) if bad.numel() else None
    k64, r64 = k.to(torch.float64), r.to(torch.float64)
    finite = torch.isfinite(r64) & torch.isfinite(k64)
    special = ~finite & ~((torch.isnan(k64) & torch.isnan(r64)) | (k64 == r64))
    diff = torch.where(finite, (k64 - r64).abs(), torch.zeros_like(r64))
    over = (diff > tol.atol + tol.rtol * r64.abs()) | special
    # Relative to references above atol: below it the absolute error is the measure.
    nonzero = finite & (r64.abs() > tol.atol) & (r64 != 0)
    rel = torch.where(nonzero, diff / r64.abs().clamp_min(1e-300), torch.zeros_like(r64))
    max_abs = float(diff.max()) if diff.numel() else 0.0
    max_rel = float(rel.max()) if rel.numel() else 0.0
    if bool(special.any()):
        max_abs = max_rel = math.inf
    bad = over.nonzero()
    return max_abs, max_rel, tuple(int(i) for i in bad[0]) if bad.numel() else None


def _where(case: _Case, seed: int) -> str:
    symbols = ", ".join(f"{k}={v}" for k, v in case.symbols.items())
    shapes = ", ".join(f"{k}{list(v)}" for k, v in case.shapes.items())
    return f"case {case.index} (seed {seed}{'; ' + symbols if symbols else ''}; shapes {shapes})"


def _failure(
    catalog: Catalog,
    family: Family,
    c: _Case,
    seed: int,
    msg: str,
    output: str | None = None,
    worst: tuple[float, float] | None = None,
    tolerance: Tolerance | None = None,
    element: tuple[int, ...] | None = None,
    **where: Any,
) -> QualificationError:
    """The report of case ``c``'s failure, with the call that replays it; ``where`` holds the
    error's ``kind``, ``tensor``, ``side`` and ``offset``."""
    return QualificationError(
        f"{family.name}: {msg} in {_where(c, seed)}; "
        f"replay: {catalog.package}.qualify(family, kernel, seed={seed}, case={c.index})",
        family=family.name,
        case=c.index,
        seed=seed,
        symbols=c.symbols,
        shapes=c.shapes,
        output=output,
        max_abs=None if worst is None else worst[0],
        max_rel=None if worst is None else worst[1],
        tolerance=tolerance,
        element=element,
        **where,
    )


@dataclass(frozen=True, slots=True)
class _Guarded:
    """A tensor as the kernel receives it: a view inside a larger allocation whose margins,
    ``guard`` bytes on each side, hold ``GUARD_POISON``."""

    base: torch.Tensor
    view: torch.Tensor
    guard: int
    nbytes: int


def _guard(t: torch.Tensor, device: str | torch.device, guard: int) -> _Guarded:
    n = t.numel() * t.element_size()
    base = torch.full((guard + n + guard,), GUARD_POISON, dtype=torch.uint8, device=device)
    view = base[guard : guard + n].view(t.dtype).view(t.shape)
    view.copy_(t)
    return _Guarded(base, view, guard, n)


def _margin_fault(x: _Guarded) -> tuple[str, int, int] | None:
    """The side written, the offset from the tensor's edge of the write nearest to it, and the
    bytes written, when a margin of ``x`` no longer holds the poison (after first: a tail
    overrun is the common bug)."""
    if x.guard == 0:
        return None
    after = (x.base[x.guard + x.nbytes :] != GUARD_POISON).nonzero().flatten().cpu()
    if after.numel():
        return "after", int(after[0]), after.numel()
    before = (x.base[: x.guard] != GUARD_POISON).nonzero().flatten().cpu()
    if before.numel():
        return "before", x.guard - 1 - int(before[-1]), before.numel()
    return None


#: The integer type whose values are a dtype's bits, by element size.
_BITS: Final[Mapping[int, torch.dtype]] = {
    1: torch.uint8,
    2: torch.int16,
    4: torch.int32,
    8: torch.int64,
}


def _changed(before: torch.Tensor, after: torch.Tensor) -> tuple[tuple[int, ...], int] | None:
    """The first element whose bits differ, and how many do, or ``None`` when ``after`` is
    bitwise ``before`` (NaN included)."""
    bits = _BITS[before.element_size()]
    b = before.contiguous().view(bits).flatten()
    a = after.detach().cpu().contiguous().view(bits).flatten()
    if torch.equal(a, b):
        return None
    diff = (a != b).nonzero().flatten()
    first = int(diff[0])
    index = tuple(int(i) for i in torch.unravel_index(torch.tensor(first), before.shape))
    return index, diff.numel()


def qualify(
    catalog: Catalog,
    family: Family,
    kernel: Kernel,
    *,
    cases: int = 32,
    seed: int = 0,
    case: int | None = None,
    hardware: str | None = None,
    note: str | None = None,
    reference: Kernel | None = None,
    tolerances: Mapping[DType, Tolerance] | None = None,
    device: str | torch.device = "cpu",
    artifact_sha256: str | None = None,
    guard: int | None = None,
) -> Qualification:
    """``Binding.qualify`` of ``catalog``: the evidence names the catalog's package and version,
    a failure's replay hint its ``qualify``."""
    if cases < 1:
        raise ValueError("a qualification runs at least one case")
    guard = GUARD_BYTES if guard is None else guard
    if guard < 0:
        raise ValueError(f"guard is a number of bytes, 0 or more, not {guard}")
    guard = -(-guard // 64) * 64
    ref = _reference(family, custom=reference)
    refuse_untensorable(family)  # a custom family's too: its inputs cannot be drawn
    tol = {**DEFAULT_TOLERANCES, **(tolerances or {})}
    written = [p for p in family.params if p.is_tensor and p.direction is not Direction.IN]
    worst = {p.index: [0.0, 0.0] for p in written}
    covered: dict[str, set[int]] = {s.name: set() for s in family.symbols}
    shapes_seen: dict[str, set[tuple[int, ...]]] = {}
    indices = [case] if case is not None else range(cases)
    for i in indices:
        c = _draw(family, seed, i)
        where = _where(c, seed)
        ref_args = [a.clone() if isinstance(a, torch.Tensor) else a for a in c.args]
        ref(*ref_args)
        # Every tensor the kernel gets is a copy inside poisoned margins; `c.args` stay as
        # drawn, to compare the inputs with after the call.
        guarded = {
            i: _guard(a, device, guard) for i, a in enumerate(c.args) if isinstance(a, torch.Tensor)
        }
        run_args = [guarded[i].view if i in guarded else a for i, a in enumerate(c.args)]
        try:
            _call(family, run_args)
        except CallError as e:
            raise RuntimeError(
                f"{family.name}: {catalog.package}.qualify drew a call validate_call refuses ({e})"
                f" in {where}"
            ) from e
        try:
            with torch.no_grad():
                kernel(*run_args)
        except Exception as e:
            raise _failure(
                catalog,
                family,
                c,
                seed,
                f"the kernel raised {type(e).__name__}: {e}",
                kind="raised",
            ) from e
        for p in family.params:
            fault = _margin_fault(guarded[p.index]) if p.index in guarded else None
            if fault is not None:
                side, offset, count = fault
                edge = "end" if side == "after" else "start"
                raise _failure(
                    catalog,
                    family,
                    c,
                    seed,
                    f"the kernel wrote {count} byte(s) {side} `{p.name}` (guard {guard} bytes "
                    f"each side), the nearest {offset} byte(s) from its {edge}",
                    kind="guard",
                    tensor=p.name,
                    side=side,
                    offset=offset,
                )
        for p in family.params:
            if not p.is_tensor or p.direction is not Direction.IN:
                continue
            drawn, now = c.args[p.index], run_args[p.index]
            assert isinstance(drawn, torch.Tensor) and isinstance(now, torch.Tensor)
            change = _changed(drawn, now)
            if change is not None:
                at, count = change
                raise _failure(
                    catalog,
                    family,
                    c,
                    seed,
                    f"the kernel changed its input `{p.name}`: at {list(at)} it held "
                    f"{drawn[at].item()!r} before the call and {now.detach().cpu()[at].item()!r} "
                    f"after ({count} element(s) changed; an `in` tensor must stay bitwise "
                    "unchanged)",
                    element=at,
                    kind="input",
                    tensor=p.name,
                )
        for p in written:
            out = run_args[p.index]
            expected = ref_args[p.index]
            assert isinstance(out, torch.Tensor) and isinstance(expected, torch.Tensor)
            t = tol.get(p.dtype, _EXACT)
            max_abs, max_rel, bad = _compare(out, expected, t)
            if bad is not None:
                got = out.detach().cpu()[bad].item()
                want = expected[bad].item()
                raise _failure(
                    catalog,
                    family,
                    c,
                    seed,
                    f"output `{p.name}` differs from the reference: at {list(bad)} the kernel "
                    f"gave {got!r}, the reference {want!r} (atol {t.atol}, rtol {t.rtol}); worst "
                    f"absolute error {max_abs:.6g}, relative {max_rel:.6g}",
                    p.name,
                    (max_abs, max_rel),
                    t,
                    bad,
                )
            worst[p.index][0] = max(worst[p.index][0], max_abs)
            worst[p.index][1] = max(worst[p.index][1], max_rel)
        for name, v in c.symbols.items():
            covered[name].add(v)
        for name, s in c.shapes.items():
            shapes_seen.setdefault(name, set()).add(s)
    evidence = Evidence(
        date=datetime.date.today().isoformat(),
        hardware=hardware
        if hardware is not None
        else f"{platform.machine()} {torch.device(device).type}",
        note=note,
        tool=TOOL,
        versions=(
            f"{catalog.name} {catalog.version}",
            f"torch {torch.__version__}",
            f"python {platform.python_version()}",
        ),
        cases=len(indices),
        seed=seed,
        shapes=tuple(
            f"{name} = {', '.join(str(v) for v in sorted(values))}"
            for name, values in covered.items()
        ),
        errors=tuple(OutputError(p.index, worst[p.index][0], worst[p.index][1]) for p in written),
    )
    return Qualification(
        family=family,
        evidence=evidence,
        artifact_sha256=artifact_sha256,
        covered={k: tuple(sorted(v)) for k, v in shapes_seen.items()},
    )
