# PyTorch's own annotations are full of `Any`: this module, which works in them, is exempt
# from `--disallow-any-expr` (it passes `mypy --strict`, with torch and without).
# mypy: disallow-any-expr=False
"""Compile-time routing: each node of an FX graph that an approved family computes is placed on
that family's operator, by the catalog's own capability decision and call validation
(``docs/torch.md``, "Routing a model").

A node is routed when, in order:

1. its operator, operands and attributes are what a family's operation payload declares, matched
   exactly (``_match.py``: operand order, axes, keepdim, eps, accumulation);
2. the catalog's ``capability`` supports the family on the target platform and execution mode;
3. the catalog's ``validate_call`` accepts the call the routed operator will make, described
   from the node's fake tensors (dynamic extents by their hints; then guarded, so the compiled
   graph is reused only where the same decision holds).

Anything else stays on the default path, and the ``Report`` says why, in the runtime's words.
"""

from __future__ import annotations

import dataclasses
import hashlib
import operator
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final, Union, cast

import torch  # type: ignore[import-not-found, unused-ignore]
from torch.fx import GraphModule, Node  # type: ignore[import-not-found, unused-ignore]

from ._callsite import Call, Mode, Refused, bind, fake, launcher, settle
from ._catalog import Catalog
from ._errors import CallError, CapabilityError
from ._flops import describe, node_flops, op_name
from ._forms import computations
from ._match import Found, Role, payload_mismatch
from ._propose import propose, write_proposal
from ._report import Decision, Reason, Refusal, Report, Routed, Unmatched
from .records import Family
from .vocab import Contract, ExecutionMode, Platform, WeightLayout

if TYPE_CHECKING:
    from torch._ops import OpOverload  # type: ignore[import-not-found, unused-ignore]

__all__ = [
    "Decision",
    "Reason",
    "Refusal",
    "Report",
    "Routed",
    "Router",
    "Unmatched",
    "propose",
    "router",
    "write_proposal",
]

#: A torch.compile backend: the graph and its example inputs to a callable.
CompilerFn = Callable[[GraphModule, Sequence[object]], Callable[..., Any]]
InnerBackend = Union[str, CompilerFn]

#: Why a node computed with autograd recording stays on the default path.
_RECORDS_GRAD: Final = (
    "requires_grad: the graph records autograd (compiled with gradients enabled) and the "
    "families are inference-only: compile and call under torch.no_grad() or "
    "torch.inference_mode() to route it"
)


class Router:
    """Routes the nodes of FX graphs onto a catalog's families (module docstring).

    ``ops`` maps family names to the operators the backend defined (``define`` and its own
    ``library.impl``); a family without one is never a candidate. ``platform`` and
    ``execution_mode`` are the target the capability decision is asked about, ``contract`` the
    calling contract (kernel by default). ``backend`` compiles the routed graph when the router
    is used as a ``torch.compile`` backend: ``"inductor"`` (default), ``"aot_eager"``, or a
    backend callable.
    """

    def __init__(
        self,
        catalog: Catalog,
        ops: Mapping[str, OpOverload],
        platform: Platform,
        execution_mode: ExecutionMode,
        *,
        contract: Contract = Contract.KERNEL,
        backend: InnerBackend = "inductor",
    ) -> None:
        self.catalog: Final = catalog
        self.ops: Final = dict(ops)
        self.platform: Final = platform
        self.execution_mode: Final = execution_mode
        self.contract: Final = contract
        self.backend: Final = backend
        #: The reports of the graphs routed so far, oldest first.
        self.reports: list[Report] = []
        self._lock = threading.Lock()

    @property
    def identity(self) -> str:
        """What a compiled graph's cache key holds of the routing: the catalog's digest, the
        target, and each routable family's identity (hex SHA-256)."""
        h = hashlib.sha256()
        for part in (
            self.catalog.digest,
            self.platform.spelling,
            self.execution_mode.spelling,
            self.contract.spelling,
        ):
            h.update(part.encode() + b"\0")
        for name in sorted(self.ops):
            fam = self.catalog.find_family(name)
            h.update(f"{name}={fam.identity if fam else '-'}\0".encode())
        return h.hexdigest()

    # ---------------------------------------------------------------- deciding

    def decide(
        self, found: Found, mode: Mode = Mode.GUARD
    ) -> tuple[Decision, tuple[Family, Call, Found] | None]:
        """The decision over one computation, and the family and call it is routed with.
        ``mode``: how what the decision read from symbolic extents is made to hold (guarded
        under ``torch.compile``, proven over the range for ``torch.export``)."""
        names = tuple(n.name for n in found.nodes)
        outputs = tuple(n.name for n in (found.node, *found.extra_outputs.values()))
        what = _what(found)

        def decision(routed: Routed | None, refusals: list[Refusal], blocked: str = "") -> Decision:
            return Decision(
                found.node.name,
                found.computes,
                routed,
                tuple(refusals),
                names,
                0,
                what,
                blocked,
                outputs,
            )

        result = fake(found.node)
        if isinstance(result, torch.Tensor) and result.requires_grad:
            return decision(None, [], _RECORDS_GRAD), None
        refusals: list[Refusal] = []
        for family in self.catalog.families():
            variant = found.variant(family)
            why = payload_mismatch(variant, family)
            if why != "":
                symbolic = _scalars_decided(variant, family, mode)
                if symbolic is not None:
                    refusals.append(Refusal(family.name, "payload", symbolic))
                    continue
            if why is not None:
                if why != "":
                    refusals.append(Refusal(family.name, "payload", why))
                continue
            if not family.torch:
                why = "not a PyTorch operator (the family declares `torch = false`)"
                refusals.append(Refusal(family.name, "torch", why))
                continue
            if family.name not in self.ops:
                refusals.append(Refusal(family.name, "torch", "no operator given for it"))
                continue
            try:
                supported = self.catalog.capability(
                    family.name, self.platform, self.execution_mode, self.contract
                )
            except CapabilityError as e:
                refusals.append(Refusal(family.name, e.outcome.spelling, str(e)))
                continue
            try:
                call = bind(variant, family)
                tensors, scalars = call.tensor_args(), call.scalar_args()
            except Refused as e:
                refusals.append(Refusal(family.name, e.rule, e.message))
                continue
            except Exception as e:  # fail closed: a call the router cannot describe stays
                why = f"the router cannot describe the call: {type(e).__name__}: {e}"
                refusals.append(Refusal(family.name, "internal", why))
                continue
            try:
                self.catalog.validate_call(family, tensors, scalars)
            except CallError as e:
                refusals.append(Refusal(family.name, e.rule.spelling, str(e)))
                settle(call, mode, accepted=False)
                continue
            failed = settle(call, mode, accepted=True)
            if failed is not None:
                refusals.append(Refusal(family.name, failed.rule, failed.message))
                continue
            routed = Routed(family.name, family.revision, family.identity, supported.profile.name)
            return decision(routed, refusals), (family, call, variant)
        return decision(None, refusals), None

    def route(self, gm: GraphModule, *, mode: Mode = Mode.GUARD) -> Report:
        """Rewrite ``gm`` in place: each routed computation calls its family's operator; the
        report of every computation a checked operation kind could compute, with the graph's
        estimated floating-point work."""
        flops = {n: node_flops(n) for n in gm.graph.nodes}
        found = computations(gm)
        covered = {n for f in found for n in f.nodes}
        decisions = []
        # The node each rewritten output became, for the later computations that read it.
        remap: dict[Node, Node] = {}
        for f in found:
            decision, chosen = self.decide(f, mode)
            decision = _with_flops(decision, sum(flops.get(n, 0) for n in f.nodes))
            decisions.append(decision)
            if chosen is not None:
                family, call, variant = chosen
                _rewrite(gm, self.ops[family.name], variant, family, call, remap)
        unmatched: dict[str, list[tuple[str, int]]] = {}
        for n, count in flops.items():
            if count and n not in covered:
                unmatched.setdefault(op_name(n), []).append((n.name, count))
        gm.graph.lint()  # type: ignore[no-untyped-call, unused-ignore]
        gm.recompile()
        report = Report(
            self.identity,
            tuple(decisions),
            tuple(
                Unmatched(op, tuple(n for n, _ in items), sum(c for _, c in items))
                for op, items in unmatched.items()
            ),
            sum(flops.values()),
        )
        with self._lock:
            self.reports.append(report)
        return report

    # ---------------------------------------------------------------- torch.compile

    def __call__(self, gm: GraphModule, example_inputs: Sequence[object]) -> Callable[..., Any]:
        """The ``torch.compile`` backend: route, then compile with ``backend``. For Inductor the
        routing identity enters the FX graph cache key (a custom pass's ``uuid``). When the
        compile is abandoned (Dynamo restarts its analysis, as it does to specialize a float a
        decision read), the graph's report is withdrawn: the restarted compile reports."""
        report = self.route(gm)
        try:
            return self._compile(gm, example_inputs, report)
        except BaseException:
            with self._lock:
                self.reports[:] = [r for r in self.reports if r is not report]
            raise

    def _compile(
        self, gm: GraphModule, example_inputs: Sequence[object], report: Report
    ) -> Callable[..., Any]:
        if self.backend == "inductor":
            from torch._inductor.compile_fx import (  # type: ignore[import-not-found, unused-ignore]
                compile_fx,
            )

            inputs: list[Any] = list(example_inputs)
            identity = {"post_grad_custom_post_pass": _CacheIdentity(report.identity)}
            return cast(Callable[..., Any], compile_fx(gm, inputs, config_patches=identity))
        if isinstance(self.backend, str):
            from torch._dynamo.backends.registry import (  # type: ignore[import-not-found, unused-ignore]
                lookup_backend,
            )

            compile_with = cast(CompilerFn, lookup_backend(self.backend))
            return compile_with(gm, example_inputs)
        return self.backend(gm, example_inputs)

    # ---------------------------------------------------------------- torch.export

    def export(
        self,
        program: torch.export.ExportedProgram,
        *,
        dynamic_shapes: dict[str, Any] | tuple[Any, ...] | list[Any] | None = None,
    ) -> tuple[torch.export.ExportedProgram, Report]:
        """Route an exported program: its module, rewritten, exported again from the program's
        example inputs (with ``dynamic_shapes``, those the program was exported with). The
        result is an ``ExportedProgram`` for ``torch.export.save`` or AOTInductor."""
        module = program.module()
        report = self.route(module, mode=Mode.STATIC)
        args, kwargs = program.example_inputs
        return (
            torch.export.export(module, args, kwargs, dynamic_shapes=dynamic_shapes),
            report,
        )


def _scalars_decided(found: Found, family: Family, mode: Mode) -> str | None:
    """Guard what the payload decision read from symbolic scalars (a module's eps or scale
    that Dynamo lifted into a graph input): their value equal, or not, to the family's
    constant. ``None`` when that holds as decided; else why not (an exported program's)."""
    op = family.operation
    constants = {
        "eps": getattr(getattr(op, "eps", None), "constant", None),
        "scale": getattr(getattr(op, "scale", None), "constant", None),
    }
    for name, node in found.sources.items():
        constant = constants.get(name)
        value = fake(node)
        if constant is None or not isinstance(value, torch.SymFloat):
            continue
        if mode is Mode.STATIC:
            return f"{name} is a symbolic float in an exported program"
        bool(value == constant)  # guards the outcome, equal or not
    return None


def _with_flops(d: Decision, flops: int) -> Decision:
    return dataclasses.replace(d, flops=flops)


def _what(found: Found) -> str:
    """The computation's operands in the report's words: a linear layer by its weight
    (``linear bf16 [N, K] = [11008, 4096]``), anything else by its operands' dtypes and
    extents."""
    layout = found.attrs.get("weight_layout")
    weight = found.operands.get(Role.WEIGHT)
    w = fake(weight) if isinstance(weight, Node) else None
    if isinstance(layout, WeightLayout) and isinstance(w, torch.Tensor):
        axes = {
            WeightLayout.NK: "[N, K]",
            WeightLayout.KN: "[K, N]",
            WeightLayout.ENK: "[E, N, K]",
            WeightLayout.EKN: "[E, K, N]",
        }[layout]
        dtype, extents = describe(w).split(" ", 1)
        bias = " with bias" if Role.BIAS in found.operands else ""
        return f"linear {dtype} {axes} = {extents}{bias}"
    parts = []
    for role in found.operand_order:
        operand = found.operands[role]
        v = fake(operand) if isinstance(operand, Node) else None
        if isinstance(v, torch.Tensor):
            parts.append(describe(v))
    return f"{found.computes} {', '.join(parts)}".strip()


def _rewrite(
    gm: GraphModule,
    op: OpOverload,
    found: Found,
    family: Family,
    call: Call,
    remap: dict[Node, Node],
) -> None:
    """Replace the computation's nodes with one call of the routed launcher; ``remap`` maps
    each output node replaced so far to its replacement."""
    # The node records no autograd (``decide`` refused it otherwise), so its operands are
    # passed detached: a module's parameters keep `requires_grad` set, which the families'
    # operators refuse (an exported program's parameters carry no fake value to say so).
    launch = launcher(op, family, found, call, detach=True)
    outputs = [found.node, *found.extra_outputs.values()]
    order = {n: i for i, n in enumerate(gm.graph.nodes)}
    last = max(outputs, key=lambda n: order[n])
    with gm.graph.inserting_before(last):
        operands = tuple(_resolve(found.operands[r], remap) for r in found.operand_order)
        operands += tuple(_resolve(n, remap) for n in found.sources.values())
        routed = gm.graph.call_function(launch, operands)  # type: ignore[arg-type, unused-ignore]
        if len(outputs) == 1:
            routed.meta.update(found.node.meta)
            found.node.replace_all_uses_with(routed)
            remap[found.node] = routed
        else:
            for i, out in enumerate(outputs):
                item = gm.graph.call_function(operator.getitem, (routed, i))
                item.meta.update(out.meta)
                out.replace_all_uses_with(item)
                remap[out] = item
    for n in found.observers:
        gm.graph.erase_node(n)
    for n in reversed(found.nodes):
        if not n.users:
            gm.graph.erase_node(n)


def _resolve(operand: object, remap: dict[Node, Node]) -> object:
    while isinstance(operand, Node) and operand in remap:
        operand = remap[operand]
    return operand


def _cache_identity_base() -> type:
    from torch._inductor.custom_graph_pass import (  # type: ignore[import-not-found, unused-ignore]
        CustomGraphPass,
    )

    base: type = CustomGraphPass
    return base


class _CacheIdentity(_cache_identity_base()):  # type: ignore[misc]
    """A post-grad pass that changes nothing and whose ``uuid`` is the routing identity: Inductor
    puts a custom pass's uuid into its FX graph cache key."""

    def __init__(self, identity: str) -> None:
        self.identity = identity

    def __call__(self, graph: torch.fx.Graph) -> None:
        return None

    def uuid(self) -> str:
        return self.identity


_ROUTERS: dict[tuple[object, ...], Router] = {}
_ROUTERS_LOCK = threading.Lock()


def router(
    catalog: Catalog,
    ops: Mapping[str, OpOverload],
    platform: Platform,
    execution_mode: ExecutionMode,
    *,
    contract: Contract = Contract.KERNEL,
    backend: InnerBackend = "inductor",
) -> Router:
    """The ``Router`` for this catalog, operators and target: the same object for equal
    arguments (the catalog compared by digest), so that ``torch.compile`` reuses what it
    compiled for an unchanged catalog and recompiles for a changed one."""
    key = (
        catalog.digest,
        tuple(sorted((name, id(op)) for name, op in ops.items())),
        platform,
        execution_mode,
        contract,
        backend if isinstance(backend, str) else id(backend),
    )
    with _ROUTERS_LOCK:
        found = _ROUTERS.get(key)
        if found is None:
            found = _ROUTERS[key] = Router(
                catalog, ops, platform, execution_mode, contract=contract, backend=backend
            )
        return found
