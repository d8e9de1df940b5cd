"""What the router decided over one graph (``route.py``): per computation a ``Decision``, the
graph's estimated floating-point work, and the work left on the default path grouped by reason
(docs/torch.md, "The report")."""

from __future__ import annotations

from dataclasses import dataclass

#: Refusals that say a family computes something else than the node (another payload, dtype,
#: rank or static extent): a decision with only these is one no family computes.
_COMPUTES_OTHER = frozenset({"payload", "dtype", "rank", "shape"})

#: How many refusals a decision's line shows (``Decision.refusals`` holds them all).
_SHOWN = 4


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why one family did not take a node: ``rule`` is the capability outcome or call rule's
    spelling (``"payload"`` when the family computes something else, ``"torch"`` when it is no
    PyTorch operator here, ``"requires_grad"`` when the graph records autograd), ``message`` the
    runtime's words."""

    family: str
    rule: str
    message: str

    def __str__(self) -> str:
        return f"{self.family}: {self.message}"


@dataclass(frozen=True, slots=True)
class Routed:
    """A node placed on a family: its revision, identity and the profile the capability
    decision chose."""

    family: str
    revision: int
    identity: str
    profile: str


@dataclass(frozen=True, slots=True)
class Decision:
    """The decision over one computation (a node, or a form of several nodes that computes one
    payload): ``routed`` or not, with each candidate family's refusal."""

    node: str
    #: What the node computes, in torch's words (``"rms_norm"``, ``"matmul"``).
    computes: str
    routed: Routed | None
    refusals: tuple[Refusal, ...]
    #: The graph's nodes the computation spans, the root (``node``) last; one node's is
    #: ``(node,)``.
    nodes: tuple[str, ...] = ()
    #: Its estimated floating-point operations (``kfam_runtime._flops``).
    flops: int = 0
    #: Its operands' dtypes and extents, for the report (``linear bf16 [N, K] = [256, 64]``).
    what: str = ""
    #: A refusal that no family's decision explains (the graph records autograd), or ``""``.
    blocked: str = ""
    #: The nodes whose values it gives (``(node,)``; rope's query and key results).
    outputs: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        """The node, or the form's nodes and its outputs
        (``to, pow, mean, add, rsqrt, mul, to -> mul_1``)."""
        outputs = self.outputs or (self.node,)
        inner = [n for n in self.nodes if n not in outputs]
        if not inner:
            return ", ".join(outputs)
        return f"{', '.join(inner)} -> {', '.join(outputs)}"

    @property
    def reason(self) -> str:
        """Why it stays on the default path, in one line (``""`` when routed): that no family
        computes it (none of its kind, or each computes another payload, dtype or extents), or
        the other refusals (a range, a profile, an operator missing): the one's words, or the
        families and rules of several."""
        if self.routed is not None:
            return ""
        if self.blocked:
            return self.blocked
        refusals = [r for r in self.refusals if r.rule not in _COMPUTES_OTHER]
        if not refusals:
            return f"no family computes {self.what or self.computes}"
        if len(refusals) == 1:
            return str(refusals[0])
        return "; ".join(f"{r.family}: {r.rule}" for r in refusals)

    def __str__(self) -> str:
        if self.routed is not None:
            r = self.routed
            return (
                f"{self.name} ({self.computes}): routed to {r.family} revision {r.revision} "
                f"with profile {r.profile}"
            )
        if self.blocked:
            return f"{self.name} ({self.computes}): default path: {self.blocked}"
        if not self.refusals:
            return f"{self.name} ({self.computes}): default path: no approved family computes it"
        shown = [str(r) for r in self.refusals[:_SHOWN]]
        if len(self.refusals) > _SHOWN:
            shown.append(f"and {len(self.refusals) - _SHOWN} more families")
        return f"{self.name} ({self.computes}): default path: {'; '.join(shown)}"


@dataclass(frozen=True, slots=True)
class Unmatched:
    """Floating-point work that no operation kind computes (``pow`` outside a form, a cast's
    neighbours), by operator: the nodes and their estimated operations."""

    op: str
    nodes: tuple[str, ...]
    flops: int


@dataclass(frozen=True, slots=True)
class Reason:
    """Work left on the default path for one reason: the reason, its estimated operations and
    share of the graph's, the computations (or unmatched nodes) it holds, and one example."""

    reason: str
    flops: int
    share: float
    count: int
    example: str

    def __str__(self) -> str:
        s = "" if self.count == 1 else "s"
        return f"{100 * self.share:5.2f}%  {self.reason} ({self.count} node{s})"


@dataclass(frozen=True, slots=True)
class Report:
    """The decisions over one graph, in graph order, the identity the compiled graph is
    cached under, and the graph's estimated floating-point work."""

    identity: str
    decisions: tuple[Decision, ...]
    #: Work no operation kind computes, by operator.
    unmatched: tuple[Unmatched, ...] = ()
    #: The graph's estimated floating-point operations, every node counted.
    flops: int = 0

    @property
    def routed(self) -> tuple[Decision, ...]:
        return tuple(d for d in self.decisions if d.routed is not None)

    @property
    def refused(self) -> tuple[Decision, ...]:
        return tuple(d for d in self.decisions if d.routed is None)

    @property
    def routed_flops(self) -> int:
        return sum(d.flops for d in self.routed)

    @property
    def share(self) -> float:
        """The share of the graph's estimated operations that routed nodes compute (1.0 for a
        graph without floating-point work)."""
        return self.routed_flops / self.flops if self.flops else 1.0

    def reasons(self) -> tuple[Reason, ...]:
        """The work left on the default path, grouped by reason, largest share first."""
        groups: dict[str, list[tuple[int, str]]] = {}
        for d in self.refused:
            groups.setdefault(d.reason, []).append((d.flops, str(d)))
        for u in self.unmatched:
            why = f"no operation kind computes `{u.op}`"
            groups.setdefault(why, []).extend((u.flops, n) for n in u.nodes)
        total = self.flops or 1
        found = []
        for why, items in groups.items():
            flops = sum(f for f, _ in items)
            found.append(Reason(why, flops, flops / total, len(items), items[0][1]))
        found.sort(key=_largest_first)
        return tuple(found)

    def __str__(self) -> str:
        lines = [
            f"kfam routing {self.identity[:16]}: {len(self.routed)} of {len(self.decisions)} "
            f"nodes routed, {100 * self.share:.2f}% of {_si(self.flops)}FLOP"
        ]
        lines += [f"  {d}" for d in self.decisions]
        reasons = [r for r in self.reasons() if r.flops]
        if reasons:
            lines.append("  not routed, by share of the estimated FLOPs:")
            lines += [f"    {r}" for r in reasons]
        return "\n".join(lines)


def _largest_first(r: Reason) -> tuple[int, str]:
    return (-r.flops, r.reason)


def _si(n: int) -> str:
    for unit, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if n >= scale:
            return f"{n / scale:.2f} {unit}"
    return f"{n} "
