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

import hashlib
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, Union, cast

import torch  # type: ignore[import-not-found, unused-ignore]
from torch.fx import GraphModule, Node  # type: ignore[import-not-found, unused-ignore]

from ._call import ScalarArg, TensorArg
from ._catalog import Catalog
from ._errors import CallError, CapabilityError
from ._match import Found, Role, computation, payload_mismatch
from ._tensors import kfam_dtype
from .records import Family, Param
from .vocab import (
    CallRule,
    Contract,
    DType,
    ExecutionMode,
    Layout,
    Platform,
    StorageFormat,
)

if TYPE_CHECKING:
    from torch._ops import OpOverload  # type: ignore[import-not-found, unused-ignore]

__all__ = ["Decision", "Refusal", "Report", "Routed", "Router", "router"]


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why one family did not take a node: ``rule`` is the capability outcome or call rule's
    spelling (``"payload"`` when the family computes something else, ``"torch"`` when it is no
    PyTorch operator here), ``message`` the runtime's words."""

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
    """The decision over one node: ``routed`` or not, with each candidate family's refusal."""

    node: str
    #: What the node computes, in torch's words (``"rms_norm"``, ``"matmul"``).
    computes: str
    routed: Routed | None
    refusals: tuple[Refusal, ...]

    def __str__(self) -> str:
        if self.routed is not None:
            r = self.routed
            return (
                f"{self.node} ({self.computes}): routed to {r.family} revision {r.revision} "
                f"with profile {r.profile}"
            )
        if not self.refusals:
            return f"{self.node} ({self.computes}): default path: no approved family computes it"
        why = "; ".join(str(r) for r in self.refusals)
        return f"{self.node} ({self.computes}): default path: {why}"


@dataclass(frozen=True, slots=True)
class Report:
    """The decisions over one graph, in graph order, and the identity the compiled graph is
    cached under."""

    identity: str
    decisions: tuple[Decision, ...]

    @property
    def routed(self) -> tuple[Decision, ...]:
        return tuple(d for d in self.decisions if d.routed is not None)

    @property
    def refused(self) -> tuple[Decision, ...]:
        return tuple(d for d in self.decisions if d.routed is None)

    def __str__(self) -> str:
        lines = [f"kfam routing {self.identity[:16]}: {len(self.routed)} of "]
        lines[0] += f"{len(self.decisions)} nodes routed"
        lines += [f"  {d}" for d in self.decisions]
        return "\n".join(lines)


#: A torch.compile backend: the graph and its example inputs to a callable.
CompilerFn = Callable[[GraphModule, Sequence[object]], Callable[..., Any]]
InnerBackend = Union[str, CompilerFn]


class _Refused(Exception):
    """A candidate refused while the call is described (an unknown dtype, an NZ parameter)."""

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(message)
        self.rule = rule
        self.message = message


def _hint(value: object) -> int:
    """The concrete value of an extent, a stride or an offset; a symbol's hint, which guards
    nothing (the guards are added once the decision is made, ``_guard``)."""
    if isinstance(value, int):
        return value
    if isinstance(value, torch.SymInt):
        hint = value.node.hint
        if hint is None:
            raise _Refused("unbacked", "an extent is data-dependent (an unbacked symbol)")
        return int(hint)
    raise _Refused("shape", f"an extent is {type(value).__name__}")


@dataclass
class _Call:
    """The call a routed node makes: each parameter's value (a fake tensor, ``None`` for the
    fresh output, a float for eps), described for ``validate_call``."""

    family: Family
    values: list[object]
    out: Param
    out_shape: tuple[object, ...]
    out_dtype: torch.dtype

    def tensor_args(self) -> list[TensorArg]:
        args = []
        # Each operand its own synthetic storage: the output is a fresh buffer, so no written
        # view can overlap an operand; reads may share storage freely.
        for n, p in enumerate(p for p in self.family.params if p.is_tensor):
            if p.layout is Layout.NZ:
                raise _Refused(
                    CallRule.FORMAT.spelling,
                    f"`{p.name}` is NZ: a graph's tensor cannot say it is blocked",
                )
            v = self.values[p.index]
            if v is None:
                shape = tuple(_hint(d) for d in self.out_shape)
                strides = _row_major(shape)
                dtype, offset = _dtype_of(self.out_dtype), 0
                device = 0
            else:
                assert isinstance(v, torch.Tensor)
                shape = tuple(_hint(d) for d in v.shape)
                strides = tuple(_hint(s) for s in v.stride())
                dtype, offset = _dtype_of(v.dtype), _hint(v.storage_offset())
                device = v.device.index or 0
            span = offset + sum((d - 1) * s for d, s in zip(shape, strides) if d > 0) + 1
            nbytes = 0 if 0 in shape else span * max(1, (DType(dtype).bits + 7) // 8)
            args.append(
                TensorArg(
                    dtype=dtype,
                    shape=shape,
                    strides=strides,
                    storage_offset=offset,
                    storage_bytes=nbytes,
                    storage=(n + 1) << 40,
                    format=StorageFormat.ND,
                    device_index=device,
                )
            )
        return args

    def scalar_args(self) -> list[ScalarArg]:
        return [ScalarArg.of(self.values[p.index]) for p in self.family.params if not p.is_tensor]  # type: ignore[arg-type]


def _dtype_of(dtype: torch.dtype) -> DType:
    try:
        return kfam_dtype(dtype)
    except TypeError as e:
        raise _Refused(CallRule.DTYPE.spelling, f"dtype: {e}") from None


def _row_major(shape: Sequence[int]) -> tuple[int, ...]:
    strides, step = [], 1
    for d in reversed(shape):
        strides.append(step)
        step *= max(d, 1)
    return tuple(reversed(strides))


def _fake(node: Node) -> object:
    """The node's value at compile time: Dynamo's ``example_value`` or export's ``val``."""
    return node.meta.get("val", node.meta.get("example_value"))


def _bind(found: Found, family: Family) -> _Call:
    """The family's arguments for the node ``found``: ``_Refused`` when the family needs a value
    the node does not give (a scalar the payload does not name)."""
    op = family.operation
    values: list[object] = [None] * len(family.params)
    out: Param | None = None
    for role, index in found.roles(op).items():
        p = family.params[index]
        if role is Role.OUT:
            out = p
            continue
        if role is Role.EPS:
            values[index] = found.eps
            continue
        operand = found.operands[role]
        value = _fake(operand) if isinstance(operand, Node) else operand
        if isinstance(value, torch.Tensor) and role in found.transposed:
            value = value.t()
        if not isinstance(value, torch.Tensor):
            raise _Refused(
                CallRule.SCALAR_TYPE.spelling,
                f"`{p.name}` is a tensor parameter; the node passes {type(value).__name__}",
            )
        values[index] = value
    assert out is not None, "every checked operation writes an output"
    named = set(found.roles(op).values())
    for p in family.params:
        if p.index not in named:
            raise _Refused(
                "payload",
                f"parameter `{p.name}` is not an operand of the operation: "
                f"{found.computes} gives it no value",
            )
    result = _fake(found.node)
    if not isinstance(result, torch.Tensor):
        raise _Refused("payload", f"{found.computes} does not produce one tensor")
    return _Call(family, values, out, tuple(result.shape), result.dtype)


def _guard(call: _Call) -> None:
    """Guard what the decision read from symbolic values, so that the compiled graph is reused
    only where ``validate_call`` would judge the call the same: each named symbol within its
    range and multiple, its uses equal, declared static extents, row-major strides."""
    fam = call.family

    def extent(param: int, axis: int) -> object:
        v = call.values[param]
        return call.out_shape[axis] if v is None else v.shape[axis]  # type: ignore[attr-defined]

    for sym in fam.symbols:
        first = extent(sym.uses[0].param, sym.uses[0].axis)
        if isinstance(first, torch.SymInt):
            bool(first >= sym.min)
            if sym.max is not None:
                bool(first <= sym.max)
            if sym.multiple_of > 1:
                bool(first % sym.multiple_of == 0)
        for use in sym.uses[1:]:
            other = extent(use.param, use.axis)
            if isinstance(other, torch.SymInt) or isinstance(first, torch.SymInt):
                bool(other == first)
    for p in fam.params:
        if not p.is_tensor:
            continue
        for axis, declared in enumerate(p.shape):
            have = extent(p.index, axis)
            if declared >= 0 and isinstance(have, torch.SymInt):
                bool(have == declared)
        v = call.values[p.index]
        if isinstance(v, torch.Tensor):
            expected: object = 1
            for d, s in zip(reversed(v.shape), reversed(v.stride())):
                if isinstance(d, torch.SymInt) or isinstance(s, torch.SymInt):
                    if bool(d != 1):
                        bool(s == expected)
                expected = expected * d  # type: ignore[operator, unused-ignore]


def _launcher(op: OpOverload, family: Family, found: Found, call: _Call) -> Callable[..., Any]:
    """The function a routed node calls: a fresh contiguous output, the family's operator over
    the operands and eps in signature order, the output returned."""
    roles = found.roles(family.operation)
    operand_roles = found.operand_order
    transposed = tuple(r in found.transposed for r in operand_roles)
    eps = found.eps
    # Each parameter in signature order: the output (None), eps (a float) or an operand's
    # position among the node's operands (an int).
    layout: list[int | float | None] = []
    for p in family.params:
        role = next(r for r, i in roles.items() if i == p.index)
        if role is Role.OUT:
            layout.append(None)
        elif role is Role.EPS:
            assert eps is not None
            layout.append(float(eps))
        else:
            layout.append(operand_roles.index(role))
    shape_of = found.out_shape

    def launch(*given: torch.Tensor) -> torch.Tensor:
        operands = [t.t() if flip else t for t, flip in zip(given, transposed)]
        result = operands[0].new_empty(shape_of(operands), dtype=call.out_dtype)
        args: list[object] = []
        for slot in layout:
            if slot is None:
                args.append(result)
            elif isinstance(slot, float):
                args.append(slot)
            else:
                args.append(operands[slot])
        op(*args)
        return result

    launch.__name__ = f"kfam_route_{family.name}"
    launch.__qualname__ = launch.__name__
    return launch


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

    def decide(self, found: Found) -> tuple[Decision, tuple[Family, _Call] | None]:
        """The decision over one matched node, and the family and call it is routed with."""
        refusals: list[Refusal] = []
        for family in self.catalog.families():
            why = payload_mismatch(found, family)
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
                call = _bind(found, family)
                self.catalog.validate_call(family, call.tensor_args(), call.scalar_args())
            except _Refused as e:
                refusals.append(Refusal(family.name, e.rule, e.message))
                continue
            except CallError as e:
                refusals.append(Refusal(family.name, e.rule.spelling, str(e)))
                continue
            _guard(call)
            routed = Routed(family.name, family.revision, family.identity, supported.profile.name)
            return Decision(found.node.name, found.computes, routed, tuple(refusals)), (
                family,
                call,
            )
        return Decision(found.node.name, found.computes, None, tuple(refusals)), None

    def route(self, gm: GraphModule) -> Report:
        """Rewrite ``gm`` in place: each routed node calls its family's operator; the report of
        every node a checked operation kind could compute."""
        decisions = []
        for node in list(gm.graph.nodes):
            found = computation(node)
            if found is None:
                continue
            decision, chosen = self.decide(found)
            decisions.append(decision)
            if chosen is None:
                continue
            family, call = chosen
            launch = _launcher(self.ops[family.name], family, found, call)
            with gm.graph.inserting_before(node):
                operands = tuple(found.operands[r] for r in found.operand_order)
                routed = gm.graph.call_function(launch, operands)  # type: ignore[arg-type, unused-ignore]
            routed.meta.update(node.meta)
            node.replace_all_uses_with(routed)
            gm.graph.erase_node(node)
        gm.graph.lint()  # type: ignore[no-untyped-call, unused-ignore]
        gm.recompile()
        report = Report(self.identity, tuple(decisions))
        with self._lock:
            self.reports.append(report)
        return report

    # ---------------------------------------------------------------- torch.compile

    def __call__(self, gm: GraphModule, example_inputs: Sequence[object]) -> Callable[..., Any]:
        """The ``torch.compile`` backend: route, then compile with ``backend``. For Inductor the
        routing identity enters the FX graph cache key (a custom pass's ``uuid``)."""
        report = self.route(gm)
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
        report = self.route(module)
        args, kwargs = program.example_inputs
        return (
            torch.export.export(module, args, kwargs, dynamic_shapes=dynamic_shapes),
            report,
        )


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
