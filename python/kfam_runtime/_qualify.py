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
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

import torch  # type: ignore[import-not-found, unused-ignore]

from ._call import ScalarArg, validate_call
from ._catalog import Catalog
from ._draw import Case, draw
from ._errors import CallError
from ._reference import Kernel, reference as _reference, refuse_untensorable
from ._tensors import tensor_arg
from .records import (
    Evidence,
    Family,
    OutputError,
)
from .vocab import DType, Direction

#: The ``tool`` of the evidence this module writes (``kfam check`` knows it), whatever the
#: catalog: it names the procedure, not the package that ran it.
TOOL: Final[str] = "kfam.qualify"
#: Bytes of poisoned margin before and after every tensor a kernel receives (rounded up to a
#: multiple of 64, so the tensor itself stays 64-byte aligned): a write past either end of a
#: tensor, within this distance, fails the case (docs/qualify.md).
GUARD_BYTES: Final[int] = 4096
#: The byte the margins hold.
GUARD_POISON: Final[int] = 0xA5


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
    def runs(self) -> int:
        """The kernel's calls per case (``runs=``, default 2)."""
        return self.evidence.runs

    @property
    def deterministic(self) -> bool:
        """Every run of each case wrote bitwise identical outputs (``False`` with one run)."""
        return self.evidence.deterministic

    @property
    def run_max_abs(self) -> float:
        """The largest absolute difference between two runs of a case, over elements finite in
        both (0.0 when deterministic)."""
        return self.evidence.run_max_abs

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
            f"runs = {ev.runs}",
        ]
        if ev.runs > 1:
            lines.append(f"deterministic = {'true' if ev.deterministic else 'false'}")
            if not ev.deterministic:
                lines.append(f"run_max_abs = {_float(ev.run_max_abs)}")
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


#: Elements of an output compared at a time: the float64 temporaries of a chunk stay in the
#: cache instead of costing a pass through memory (and a page fault per page) each, and a
#: chunk is below torch's parallel grain (32768), so it runs on one thread without OpenMP's
#: barriers, which on a busy machine cost more than the work (docs/performance.md).
_COMPARE_CHUNK: Final[int] = 1 << 14


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
        if torch.equal(k, r):
            return 0.0, 0.0, None
        bad = (k != r).nonzero()
        diff = (k.to(torch.float64) - r.to(torch.float64)).abs()
        worst = float(diff.max()) if diff.numel() else 0.0
        return worst, worst, tuple(int(i) for i in bad[0]) if bad.numel() else None
    if k.dtype == r.dtype and tol.atol >= 0 and tol.rtol >= 0 and torch.equal(_bits(k), _bits(r)):
        # Bitwise the reference: no difference, and nothing over a non-negative tolerance.
        return 0.0, 0.0, None
    # In float64, a chunk at a time; the first failing element is located in the first chunk
    # that has one.
    kf, rf = k.reshape(-1), r.reshape(-1)
    n = kf.numel()
    size = min(n, _COMPARE_CHUNK)
    k64 = torch.empty(size, dtype=torch.float64)
    r64 = torch.empty(size, dtype=torch.float64)
    max_abs = max_rel = 0.0
    special_any = False
    first: int | None = None
    for start in range(0, n, _COMPARE_CHUNK):
        stop = min(n, start + _COMPARE_CHUNK)
        kc, rc = k64[: stop - start], r64[: stop - start]
        kc.copy_(kf[start:stop])
        rc.copy_(rf[start:stop])
        chunk_abs, chunk_rel, over, special = _compare_chunk(kc, rc, tol, first is None)
        max_abs = max(max_abs, chunk_abs)
        max_rel = max(max_rel, chunk_rel)
        special_any = special_any or special
        if over is not None:
            first = start + over
    if special_any:
        max_abs = max_rel = math.inf
    return max_abs, max_rel, None if first is None else _unravel(first, tuple(k.shape))


def _compare_chunk(
    k64: torch.Tensor, r64: torch.Tensor, tol: Tolerance, locate: bool
) -> tuple[float, float, int | None, bool]:
    """``_compare``'s measure of one chunk (float64, both clobbered): the largest absolute and
    relative difference, the chunk's first failing element (when ``locate``), and whether an
    element is non-finite in one and not the other."""
    diff = (k64 - r64).abs_()
    max_abs = float(diff.max())
    if math.isfinite(max_abs):
        # Both finite everywhere (a NaN or infinity in either makes the difference one, and
        # the maximum propagates it): the rule below without its masks.
        absr = r64.abs_()
        limit = (absr * tol.rtol).add_(tol.atol)
        over = diff > limit
        first = None
        if locate and bool(over.any()):
            first = int(over.nonzero()[0, 0])
        nonzero = absr > tol.atol
        if not tol.atol >= 0:
            nonzero &= absr != 0
        rel = torch.where(nonzero, torch.div(diff, absr.clamp_min_(1e-300), out=limit), 0.0)
        return max_abs, float(rel.max()), first, False
    finite = torch.isfinite(r64) & torch.isfinite(k64)
    special = ~finite & ~((torch.isnan(k64) & torch.isnan(r64)) | (k64 == r64))
    diff = torch.where(finite, diff, torch.zeros_like(r64))
    over = (diff > tol.atol + tol.rtol * r64.abs()) | special
    # Relative to references above atol: below it the absolute error is the measure.
    nonzero = finite & (r64.abs() > tol.atol) & (r64 != 0)
    rel = torch.where(nonzero, diff / r64.abs().clamp_min(1e-300), torch.zeros_like(r64))
    bad = over.nonzero() if locate else None
    return (
        float(diff.max()),
        float(rel.max()),
        int(bad[0, 0]) if bad is not None and bad.numel() else None,
        bool(special.any()),
    )


def _unravel(flat: int, shape: tuple[int, ...]) -> tuple[int, ...]:
    """The index of element ``flat`` of a contiguous tensor of ``shape``."""
    index = []
    for extent in reversed(shape):
        flat, i = divmod(flat, extent)
        index.append(i)
    return tuple(reversed(index))


def _where(case: Case, seed: int) -> str:
    symbols = ", ".join(f"{k}={v}" for k, v in case.symbols.items())
    shapes = ", ".join(f"{k}{list(v)}" for k, v in case.shapes.items())
    return f"case {case.index} (seed {seed}{'; ' + symbols if symbols else ''}; shapes {shapes})"


def _failure(
    catalog: Catalog,
    family: Family,
    c: Case,
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
    base = torch.empty((guard + n + guard,), dtype=torch.uint8, device=device)
    base[:guard].fill_(GUARD_POISON)
    base[guard + n :].fill_(GUARD_POISON)
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


def _bits(t: torch.Tensor) -> torch.Tensor:
    """A CPU tensor's elements as the integers of their bits (NaN equal to itself)."""
    return t.contiguous().view(_BITS[t.element_size()])


def _changed(before: torch.Tensor, after: torch.Tensor) -> tuple[tuple[int, ...], int] | None:
    """The first element whose bits differ, and how many do, or ``None`` when ``after`` is
    bitwise ``before`` (NaN included)."""
    b = _bits(before).flatten()
    a = _bits(after.detach().cpu()).flatten()
    if torch.equal(a, b):
        return None
    diff = (a != b).nonzero().flatten()
    first = int(diff[0])
    index = tuple(int(i) for i in torch.unravel_index(torch.tensor(first), before.shape))
    return index, diff.numel()


def _run_once(
    catalog: Catalog,
    family: Family,
    kernel: Kernel,
    c: Case,
    seed: int,
    device: str | torch.device,
    guard: int,
    run: str,
) -> list[object]:
    """One call of ``kernel`` on case ``c``, on guarded copies of its drawn arguments (``c.args``
    stay as drawn, to compare the inputs with after the call); its margins and inputs checked.
    ``run`` says which run of the case it is in a failure's message (empty for the first)."""
    guarded = {
        i: _guard(a, device, guard) for i, a in enumerate(c.args) if isinstance(a, torch.Tensor)
    }
    run_args = [guarded[i].view if i in guarded else a for i, a in enumerate(c.args)]
    try:
        _call(family, run_args)
    except CallError as e:
        raise RuntimeError(
            f"{family.name}: {catalog.package}.qualify drew a call validate_call refuses ({e})"
            f" in {_where(c, seed)}"
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
            f"the kernel raised {type(e).__name__}: {e}{run}",
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
                f"each side), the nearest {offset} byte(s) from its {edge}{run}",
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
                f"unchanged){run}",
                element=at,
                kind="input",
                tensor=p.name,
            )
    return run_args


def _run_difference(first: torch.Tensor, again: torch.Tensor) -> float | None:
    """``None`` when two runs' outputs are bitwise equal (NaN included); otherwise their largest
    absolute difference over the elements finite in both (0.0 when only bits differ: a NaN's
    payload, a zero's sign, a NaN against a number)."""
    if _changed(first, again) is None:
        return None
    a, b = first.to(torch.float64), again.detach().cpu().to(torch.float64)
    finite = torch.isfinite(a) & torch.isfinite(b)
    diff = torch.where(finite, (a - b).abs(), torch.zeros_like(a))
    return float(diff.max()) if diff.numel() else 0.0


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
    runs: int = 2,
) -> Qualification:
    """``Binding.qualify`` of ``catalog``: the evidence names the catalog's package and version,
    a failure's replay hint its ``qualify``."""
    if cases < 1:
        raise ValueError("a qualification runs at least one case")
    if runs < 1:
        raise ValueError(f"runs is the kernel's calls per case, 1 or more, not {runs}")
    guard = GUARD_BYTES if guard is None else guard
    if guard < 0:
        raise ValueError(f"guard is a number of bytes, 0 or more, not {guard}")
    guard = -(-guard // 64) * 64
    ref = _reference(family, custom=reference)
    refuse_untensorable(family)  # a custom family's too: its inputs cannot be drawn
    tol = {**DEFAULT_TOLERANCES, **(tolerances or {})}
    written = [p for p in family.params if p.is_tensor and p.direction is not Direction.IN]
    worst = {p.index: [0.0, 0.0] for p in written}
    deterministic, run_max_abs = True, 0.0
    covered: dict[str, set[int]] = {s.name: set() for s in family.symbols}
    shapes_seen: dict[str, set[tuple[int, ...]]] = {}
    indices = [case] if case is not None else range(cases)
    for i in indices:
        c = draw(family, seed, i)
        ref_args = [a.clone() if isinstance(a, torch.Tensor) else a for a in c.args]
        ref(*ref_args)
        # Every run of a case gets the same inputs; each must pass, and the later ones are
        # compared bit for bit with the first (determinism).
        first: dict[int, torch.Tensor] = {}
        for r in range(runs):
            run = f" (run {r + 1} of {runs})" if r else ""
            run_args = _run_once(catalog, family, kernel, c, seed, device, guard, run)
            for p in written:
                out = run_args[p.index]
                expected = ref_args[p.index]
                assert isinstance(out, torch.Tensor) and isinstance(expected, torch.Tensor)
                if r > 0:
                    # The same bits as the first run's passed already; only a difference
                    # needs the reference again.
                    difference = _run_difference(first[p.index], out)
                    if difference is None:
                        continue
                    deterministic = False
                    run_max_abs = max(run_max_abs, difference)
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
                        f"output `{p.name}` differs from the reference: at {list(bad)} the "
                        f"kernel gave {got!r}, the reference {want!r} (atol {t.atol}, rtol "
                        f"{t.rtol}); worst absolute error {max_abs:.6g}, relative "
                        f"{max_rel:.6g}{run}",
                        p.name,
                        (max_abs, max_rel),
                        t,
                        bad,
                    )
                worst[p.index][0] = max(worst[p.index][0], max_abs)
                worst[p.index][1] = max(worst[p.index][1], max_rel)
                if r == 0:
                    # Each run has buffers of its own: the first run's outputs stay as written.
                    first[p.index] = out.detach().cpu()
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
        runs=runs,
        deterministic=runs > 1 and deterministic,
        run_max_abs=0.0 if deterministic else run_max_abs,
    )
    return Qualification(
        family=family,
        evidence=evidence,
        artifact_sha256=artifact_sha256,
        covered={k: tuple(sorted(v)) for k, v in shapes_seen.items()},
    )
