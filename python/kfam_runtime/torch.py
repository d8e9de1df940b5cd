# PyTorch's own annotations are full of `Any`: this module, which works in them, is exempt
# from `--disallow-any-expr` (it passes `mypy --strict`, with torch and without).
# mypy: disallow-any-expr=False
"""PyTorch dispatcher schemas, fake kernels and registration helpers for the approved families.

Everything here is derived from the family records (``kfam_runtime.Family``): parameters,
directions, dtypes, shapes and return aliases. Importing this module needs PyTorch and
registers nothing; ``define`` installs a family's schema and fake kernel into a
``torch.library.Library`` that the caller owns. See ``docs/torch.md``.

A catalog's ``torch`` module (``npuops.torch``) re-exports ``__all__`` and binds the rest to the
catalog (``Binding``: its torch namespace, its ``FakeCallError``, its name in a replay hint):

- ``schema(family, returns=...)``: the dispatcher schema. ``"mutation_only"`` (the default):
  written tensors are ``Tensor(a!)`` arguments and nothing is returned, the form
  ``torch.compile`` functionalizes. ``"aliased"``: the declared returns are the written
  arguments again, in their alias sets (``Family.torch_schema``), for eager callers.
- ``fake(family, returns=...)``: the Fake/Meta kernel. It validates abstract arguments without
  reading data and returns ``None`` (mutation-only) or the declared argument objects (aliased).
- ``define(library, family, returns=...)``: both, into the caller's library.
- ``qualify(family, kernel)``: a kernel run against the family's reference, whose result is a
  receipt's structured evidence (docs/qualify.md).

and, the same for every catalog:

- ``tensor_arg(tensor, param)``: the ``TensorArg`` of a real tensor, for a catalog's
  ``validate_call`` in a backend's call adapter.
- ``reference(family)``: the family's reference implementation on CPU tensors.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Final, Literal, Protocol, Union

from ._call import ScalarArg, _check_scalar
from ._catalog import Catalog
from ._errors import CallError
from ._pep440 import parse
from .records import Family, Param
from .vocab import (
    _SCALAR_TYPES,
    CallRule,
    Contract,
    DType,
    Direction,
    ExecutionMode,
    Layout,
    ParamKind,
    Platform,
)

#: Lowest supported PyTorch release (``torch.library.impl_abstract`` arrived in it).
MIN_TORCH: Final[str] = "2.2"
#: The supported PyTorch releases, as the import error names them.
SUPPORTED_TORCH: Final[str] = "2.2 or newer"
#: The PyTorch release the package's tests run against.
TESTED_TORCH: Final[str] = "2.9.1"


def _unsupported(found: str | None) -> ImportError:
    have = "it is not installed" if found is None else f"found {found}"
    return ImportError(
        f"{__name__}, the PyTorch integration of every catalog's `torch` module, needs "
        f"PyTorch {SUPPORTED_TORCH} (tested with {TESTED_TORCH}); {have}. The rest of a "
        "catalog's package works without PyTorch."
    )


# torch is an optional extra: without it mypy finds no module here, and with
# it these ignores are unused; `unused-ignore` keeps `--strict` quiet in
# both, so the package type-checks either way and is fully typed with torch.
try:
    import torch  # type: ignore[import-not-found, unused-ignore]
    import torch.library  # type: ignore[import-not-found, unused-ignore]
except ImportError as _e:
    raise _unsupported(None) from _e


def _older_than_supported(version: str) -> bool:
    """Whether torch ``version`` (``2.9.1+cu128``) is before ``MIN_TORCH`` as PEP 440 orders
    them (``_pep440.py``); an unreadable version is."""
    have, least = parse(version), parse(MIN_TORCH)
    return have is None or least is None or have.key < least.key


if _older_than_supported(str(torch.__version__)):
    raise _unsupported(str(torch.__version__))

# These use PyTorch as they load: imported once the release is known to be supported.
from ._qualify import (  # noqa: E402
    DEFAULT_TOLERANCES,
    GUARD_BYTES,
    GUARD_POISON,
    Qualification,
    QualificationError,
    Tolerance,
    qualify as _qualify,
)
from ._reference import Kernel, ReferenceError, reference  # noqa: E402
from ._tensors import tensor_arg, torch_dtype  # noqa: E402

if TYPE_CHECKING:
    from torch._ops import OpOverload  # type: ignore[import-not-found, unused-ignore]

    from .route import InnerBackend, Router

# What every catalog's `torch` module re-exports; `Binding` and `FakeCallError` it binds to
# the catalog instead.
__all__ = [
    "DEFAULT_TOLERANCES",
    "GUARD_BYTES",
    "GUARD_POISON",
    "MIN_TORCH",
    "SUPPORTED_TORCH",
    "TESTED_TORCH",
    "FakeKernel",
    "FakeResult",
    "Kernel",
    "Qualification",
    "QualificationError",
    "ReferenceError",
    "Returns",
    "Tolerance",
    "reference",
    "tensor_arg",
    "torch_dtype",
]

#: The dispatcher form of a family (module docstring, ``docs/torch.md``).
Returns = Literal["mutation_only", "aliased"]
_RETURNS: Final[tuple[str, ...]] = ("mutation_only", "aliased")

#: What a fake kernel returns: ``None`` (mutation-only), one tensor or a tuple of them.
FakeResult = Union[torch.Tensor, tuple[torch.Tensor, ...], None]
#: A fake kernel: the family's arguments in signature order.
FakeKernel = Callable[..., FakeResult]


class FakeCallError(CallError):
    """A call the fake kernel refuses: a ``CallError`` with the ``rule`` and ``param``
    (signature index, ``None`` for the argument count) that ``validate_call`` gives, and a
    message naming the operator and the parameter. A catalog's ``torch`` module derives its own
    class (from its ``CallError`` too), which is the one raised."""

    def __init__(
        self, family: Family, rule: CallRule, param: Param | None, detail: str, namespace: str
    ) -> None:
        super().__init__(rule, None if param is None else param.index)
        where = "" if param is None else f" parameter `{param.name}` (argument {param.index}):"
        self.args = (f"{namespace}::{family.name}:{where} {rule.spelling}: {detail}",)
        self._fake = (family, param, detail, namespace)

    def __reduce__(  # type: ignore[override]
        self,
    ) -> tuple[type[FakeCallError], tuple[Family, CallRule, Param | None, str, str]]:
        family, param, detail, namespace = self._fake
        return (type(self), (family, self.rule, param, detail, namespace))


def _checked(family: Family, returns: str) -> None:
    if not isinstance(family, Family):
        raise TypeError(f"expected a kfam_runtime.Family, not {type(family).__name__}")
    if returns not in _RETURNS:
        raise ValueError(f"returns must be one of {_RETURNS}, not {returns!r}")
    if not family.torch:
        raise ValueError(
            f"family {family.name!r} requests no torch binding (`torch = false` in its manifest)"
        )


def _schema(family: Family, returns: Returns, namespace: str) -> str:
    """The dispatcher schema of ``family``, qualified by ``namespace``:
    ``NAMESPACE::NAME(...) -> ...``.

    Every argument of the complete signature, in order and required: tensors the family
    writes (``out``/``inout``) are ``Tensor(aN!)`` with ``N`` the parameter index; scalars
    are ``SymInt`` (integer dtypes), ``float`` or ``bool``. ``"mutation_only"`` returns
    ``()``; ``"aliased"`` returns the family's return aliases in their arguments' alias sets
    and equals ``family.torch_schema``. ``ValueError`` for a family without a torch binding.
    """
    _checked(family, returns)
    aliased = returns == "aliased"
    args = []
    for p in family.params:
        if p.kind is ParamKind.TENSOR:
            if p.direction is not Direction.IN:
                ty = f"Tensor(a{p.index}!)"
            else:
                ty = f"Tensor(a{p.index})" if aliased else "Tensor"
        else:
            scalar = _SCALAR_TYPES.get(p.dtype)
            if scalar is None:  # refused by `kfam check` for torch families
                raise ValueError(f"torch cannot represent {p.dtype.spelling} scalar {p.name!r}")
            ty = scalar
        args.append(f"{ty} {p.name}")
    ret = "()"
    if aliased:
        rets = [f"Tensor(a{family.params[i].index}!)" for i in family.returns]
        ret = rets[0] if len(rets) == 1 else f"({', '.join(rets)})"
    return f"{namespace}::{family.name}({', '.join(args)}) -> {ret}"


# ---------------------------------------------------------------- fake kernel


def _is_static(extent: object) -> bool:
    """A declared extent the fake kernel checks: a non-negative int. Dynamic (-1) and named
    symbolic extents stay symbolic: relating them to the arguments would guard on a symbol."""
    return type(extent) is int and extent >= 0


def _torch_shape(p: Param) -> tuple[object, ...]:
    """The extents a tensor argument of ``p`` has in torch: the logical shape, except for
    packed fp4, whose carrier dtype holds two elements per byte of the last extent."""
    shape: list[object] = list(p.shape)
    last = shape[-1] if shape else None
    if p.dtype is DType.FP4 and type(last) is int and last >= 0:
        shape[-1] = last // 2
    return tuple(shape)


def _known(cond: bool | torch.SymBool) -> bool:
    """Whether ``cond`` is known to hold without adding a guard (for symbols: statically)."""
    if isinstance(cond, bool):
        return cond
    from torch.fx.experimental.symbolic_shapes import (  # type: ignore[import-not-found, unused-ignore]
        statically_known_true,
    )

    return bool(statically_known_true(cond))


def _contiguous(t: torch.Tensor) -> bool:
    """Row-major contiguity, ``False`` only when known without a guard: extents of 1 may
    carry any stride and a view that may be empty passes (as in ``validate_call``)."""
    sizes, strides = tuple(t.shape), tuple(t.stride())
    if not all(_known(d != 0) for d in sizes):
        return True
    expected: int | torch.SymInt = 1
    for d, s in zip(reversed(sizes), reversed(strides)):
        if _known(d != 1) and _known(s != expected):
            return False
        expected = expected * d
    return True


#: The symbolic values each dispatcher scalar type accepts (a float takes a symbolic int).
_SYMBOLIC: Final[dict[str, tuple[type, ...]]] = {
    "SymInt": (torch.SymInt,),
    "float": (torch.SymFloat, torch.SymInt),
    "bool": (torch.SymBool,),
}


class _Kernel:
    """The fake kernel of one family (``fake``)."""

    def __init__(
        self, family: Family, returns: str, namespace: str, error: type[FakeCallError]
    ) -> None:
        self.family = family
        self.error = error
        self.name = f"{namespace}::{family.name}"
        self.namespace = namespace
        self.aliased = returns == "aliased"
        self.dtypes = {p.index: torch_dtype(p.dtype) for p in family.params if p.is_tensor}
        self.shapes = {p.index: _torch_shape(p) for p in family.params if p.is_tensor}

    def fail(self, rule: CallRule, p: Param | None, detail: str) -> FakeCallError:
        return self.error(self.family, rule, p, detail, self.namespace)

    def tensor(self, p: Param, t: object) -> torch.Tensor:
        if not isinstance(t, torch.Tensor):
            raise TypeError(
                f"{self.name}: parameter `{p.name}` (argument {p.index}) is a "
                f"tensor, not {type(t).__name__}"
            )
        want = self.dtypes[p.index]
        if t.dtype != want:
            raise self.fail(CallRule.DTYPE, p, f"expected {want}, got {t.dtype}")
        shape = self.shapes[p.index]
        if t.dim() != len(shape):
            raise self.fail(CallRule.RANK, p, f"expected rank {len(shape)}, got {t.dim()}")
        for i, (have, extent) in enumerate(zip(t.shape, shape)):
            if not _is_static(extent):
                continue
            assert isinstance(extent, int)
            if _known(have != extent):
                raise self.fail(CallRule.SHAPE, p, f"extent {i} must be {extent}, got {have}")
            if not isinstance(have, int):
                # A symbol where the family is static: the graph specializes on it (a
                # guard, or a runtime assertion for an unbacked symbol).
                torch._check(
                    have == extent,
                    lambda i=i, extent=extent: (
                        f"{self.name}: `{p.name}` extent {i} must be {extent}"
                    ),
                )
        # An NZ parameter's storage is the physical fractal blocks, whose format only the
        # real call adapter sees (``validate_call`` checks the format, not the strides).
        if p.layout is not Layout.NZ and not _contiguous(t):
            raise self.fail(
                CallRule.NOT_CONTIGUOUS,
                p,
                f"strides {tuple(t.stride())} for extents {tuple(t.shape)} are not row-major",
            )
        # Autograd records a call only in grad mode: under no_grad, inference_mode and the
        # compilers' inference traces (AOTInductor's), a module's parameters keep the flag and
        # no gradient can flow through the call.
        if t.requires_grad and torch.is_grad_enabled():
            raise RuntimeError(
                f"{self.name}: parameter `{p.name}` (argument {p.index}) requires "
                "grad; the families are inference-only: call them under torch.no_grad() or "
                "torch.inference_mode(), or pass detached tensors"
            )
        return t

    def scalar(self, p: Param, v: object) -> None:
        if isinstance(v, (torch.SymInt, torch.SymFloat, torch.SymBool)):
            # Symbolic: only its type is checked; its value is never read (no guard).
            if not isinstance(v, _SYMBOLIC[_SCALAR_TYPES.get(p.dtype, "SymInt")]):
                raise self.fail(CallRule.SCALAR_TYPE, p, f"got a {type(v).__name__}")
            return
        if not isinstance(v, (bool, int, float)):
            raise self.fail(CallRule.SCALAR_TYPE, p, f"got {type(v).__name__}")
        # A concrete value: the same decision as ``validate_call``.
        try:
            arg = ScalarArg.of(v)
        except TypeError:  # a subclass such as an enum member
            raise self.fail(CallRule.SCALAR_TYPE, p, f"got {type(v).__name__}") from None
        except ValueError:
            raise self.fail(CallRule.SCALAR_RANGE, p, f"{v} is beyond every native type") from None
        try:
            _check_scalar(p, arg)
        except CallError as e:
            raise self.fail(e.rule, p, f"got {v!r}") from None

    def bind(self, args: tuple[object, ...], kwargs: dict[str, object]) -> tuple[object, ...]:
        """The arguments in signature order; named ones by parameter name."""
        fam = self.family
        rest = dict(kwargs)
        bound = list(args)
        for p in fam.params[len(args) :]:
            if p.name in rest:
                bound.append(rest.pop(p.name))
        if rest or len(bound) != len(fam.params):
            got = f"{len(args)} positional and {len(kwargs)} named"
            raise self.fail(
                CallRule.ARG_COUNT, None, f"expected the {len(fam.params)} arguments, got {got}"
            )
        return tuple(bound)

    def __call__(self, *args: object, **kwargs: object) -> FakeResult:
        fam = self.family
        args = self.bind(args, kwargs)
        device: torch.device | None = None
        tensors: list[torch.Tensor] = []
        for p, a in zip(fam.params, args):
            if p.kind is not ParamKind.TENSOR:
                continue
            t = self.tensor(p, a)
            if device is None:
                device = t.device
            elif t.device != device:
                raise self.fail(CallRule.DEVICE, p, f"on {t.device}, the first tensor on {device}")
            tensors.append(t)
        for p, a in zip(fam.params, args):
            if p.kind is ParamKind.SCALAR:
                self.scalar(p, a)
        if not self.aliased:
            return None
        # The declared argument objects themselves: strides, storage offset and alias
        # identity are the caller's, empty slices included.
        out = [args[i] for i in fam.returns]
        result = tuple(t for t in out if isinstance(t, torch.Tensor))
        return result[0] if len(result) == 1 else result


# ---------------------------------------------------------------- registration


class _Library(Protocol):
    """The part of ``torch.library.Library`` ``define`` uses (torch leaves it unannotated)."""

    ns: str

    def define(self, schema: str, alias_analysis: str = ...) -> object: ...


def _fake_registrar() -> Callable[..., object]:
    """``torch.library.register_fake``, or ``impl_abstract`` where that is all there is."""
    for name in ("register_fake", "impl_abstract"):
        found: object = getattr(torch.library, name, None)
        if callable(found):
            return found
    raise RuntimeError(
        f"PyTorch {torch.__version__} has neither torch.library.register_fake nor "
        f"torch.library.impl_abstract; {__name__} needs PyTorch {SUPPORTED_TORCH}"
    )


class Binding:
    """The PyTorch integration of one catalog: its families' schemas in its torch namespace,
    their fake kernels raising its ``FakeCallError``, and its qualification runs. A catalog's
    ``torch`` module makes one and exports its methods (``npuops.torch.define``)."""

    def __init__(self, catalog: Catalog, fake_call_error: type[FakeCallError]) -> None:
        self.catalog: Final = catalog
        self.fake_call_error: Final = fake_call_error

    def schema(self, family: Family, *, returns: Returns = "mutation_only") -> str:
        """The dispatcher schema of ``family``, qualified by the catalog's torch namespace
        (``TORCH_NAMESPACE``): ``NAMESPACE::NAME(...) -> ...``.

        Every argument of the complete signature, in order and required: tensors the family
        writes (``out``/``inout``) are ``Tensor(aN!)`` with ``N`` the parameter index; scalars
        are ``SymInt`` (integer dtypes), ``float`` or ``bool``. ``"mutation_only"`` returns
        ``()``; ``"aliased"`` returns the family's return aliases in their arguments' alias sets
        and equals ``family.torch_schema``. ``ValueError`` for a family without a torch binding.
        """
        return _schema(family, returns, self.catalog.torch_namespace)

    def fake(
        self, family: Family, *, returns: Returns = "mutation_only", namespace: str | None = None
    ) -> FakeKernel:
        """The Fake/Meta kernel of ``family`` for the schema ``schema(family, returns=returns)``.

        Called with the family's arguments in signature order (FakeTensors, meta tensors or any
        tensor: only metadata is read), it checks, in ``validate_call``'s order, the argument
        count and each tensor's dtype, rank, static extents and row-major contiguity (not for NZ
        parameters, whose physical format the real call adapter checks), the tensors' device,
        each scalar's type and, for concrete values, its range; refusals raise the catalog's
        ``FakeCallError``. A tensor that requires grad raises ``RuntimeError`` (the families are
        inference-only). Dynamic and symbolic extents and symbolic scalars stay symbolic:
        nothing that would guard on them is checked. Returns ``None`` for ``"mutation_only"``
        and the declared return arguments themselves for ``"aliased"``. Messages name the
        operator ``namespace::NAME`` (the catalog's torch namespace by default; ``define``
        passes its library's).
        """
        _checked(family, returns)
        ns = self.catalog.torch_namespace if namespace is None else namespace
        return _Kernel(family, returns, ns, self.fake_call_error)

    def define(
        self, library: torch.library.Library, family: Family, *, returns: Returns = "mutation_only"
    ) -> OpOverload:
        """Define ``family`` in ``library``: its schema (``schema(family, returns=returns)``
        under the library's namespace) and its fake kernel (``fake``), nothing else.

        The caller keeps ``library`` alive: destroying it removes both registrations. Defining
        a name twice raises PyTorch's duplicate-definition error and replaces nothing. Real
        kernels are the backend's, registered with ``library.impl``. Returns the
        ``OpOverload``.
        """
        lib: _Library = library
        text = self.schema(family, returns=returns)
        kernel = self.fake(family, returns=returns, namespace=lib.ns)
        register = _fake_registrar()  # before the schema: nothing half-installed
        lib.define(text.split("::", 1)[1])
        qualname = f"{lib.ns}::{family.name}"
        register(qualname, kernel, lib=library)
        op: OpOverload = getattr(getattr(torch.ops, lib.ns), family.name).default
        return op

    def qualify(
        self,
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
        """Run ``kernel`` on ``cases`` cases of ``family`` and compare every written tensor
        with the family's reference (``reference``; ``reference=`` for a ``custom`` family).

        ``kernel`` takes the family's arguments in signature order (tensors on ``device``,
        Python scalars) and writes its ``out``/``inout`` tensors, like an op defined with
        ``define`` or a launcher's wrapper. Each case is validated with ``validate_call``
        first. Tolerances default to ``DEFAULT_TOLERANCES`` per output dtype; ``tolerances``
        overrides some. ``case=i`` runs case ``i`` of the run alone (a failure's replay).
        Every tensor the kernel gets lies inside ``guard`` bytes of poisoned margin on each
        side (default ``GUARD_BYTES``, rounded up to a multiple of 64): a write into a margin fails
        the case, and so does an ``in`` tensor that is not bitwise what it was. Each case runs
        ``runs`` times on the same inputs (default 2); every run must pass, and the evidence
        records whether all wrote the same bits (``deterministic``, ``run_max_abs``).
        Raises ``QualificationError`` at the first failing case; returns the run's
        ``Qualification`` (its ``evidence``, ``to_toml()``) when every case passed.
        """
        return _qualify(
            self.catalog,
            family,
            kernel,
            cases=cases,
            seed=seed,
            case=case,
            hardware=hardware,
            note=note,
            reference=reference,
            tolerances=tolerances,
            device=device,
            artifact_sha256=artifact_sha256,
            guard=guard,
            runs=runs,
        )

    def router(
        self,
        ops: Mapping[str, OpOverload],
        platform: Platform,
        execution_mode: ExecutionMode,
        *,
        contract: Contract = Contract.KERNEL,
        backend: InnerBackend = "inductor",
    ) -> Router:
        """The catalog's compile-time router (``kfam_runtime.route.router``): a
        ``torch.compile`` backend, and ``.export`` for an exported program, that places each
        node a family computes on that family's operator in ``ops`` (the operators ``define``
        returned, by family name) when the catalog's capability decision for ``platform`` and
        ``execution_mode`` and its call validation accept it. The same object for equal
        arguments, so an unchanged catalog reuses what was compiled."""
        from .route import router

        return router(
            self.catalog, ops, platform, execution_mode, contract=contract, backend=backend
        )
