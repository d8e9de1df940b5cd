"""Call validation: the arguments of one call checked against a family's signature.

The same decisions, in the same order, as the Rust crate ``kfam-runtime``
(``runtime/src/call.rs``), and the same words for a refusal (``CallError::explain``); the shared
conformance vectors (``tests/conformance/*.json``) hold both to it. Nothing here depends on a
catalog: the family record says everything; a catalog's ``validate_call`` raises its own class.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Final

from ._errors import CallError
from ._shared import words
from .records import Family, Param
from .vocab import (
    _FLOAT_MAX,
    _INT_RANGE,
    CallRule,
    DType,
    Direction,
    Layout,
    ParamKind,
    ScalarValueKind,
    StorageFormat,
)

_I64_MIN: Final = -(1 << 63)
_I64_MAX: Final = (1 << 63) - 1
_U64_MAX: Final = (1 << 64) - 1


def _require(value: object, cls: type[object], what: str) -> None:
    if not isinstance(value, cls):
        raise TypeError(f"{what} must be a {cls.__name__}, not {type(value).__name__}")


def _check_int(value: object, lo: int, hi: int, what: str) -> int:
    if type(value) is not int:
        raise TypeError(f"{what} must be an int, not {type(value).__name__}")
    if not lo <= value <= hi:
        raise ValueError(f"{what} = {value} is outside [{lo}, {hi}]")
    return value


def _int_tuple(items: Iterable[int]) -> tuple[int, ...]:
    return tuple(items)


@dataclass(frozen=True, slots=True)
class TensorArg:
    """A tensor argument, described without touching its data (``kfam_runtime::TensorArg``).

    Values outside the native types (``int64`` extents, strides and offset, ``uint64``
    ``storage_bytes`` and ``storage``, ``int32`` ``device_index``) raise ``ValueError``;
    wrong types raise ``TypeError``. ``shape`` and ``strides`` are stored as tuples.
    """

    dtype: DType
    #: Logical extents (for NZ tensors too: the physical blocking is derived).
    shape: tuple[int, ...]
    #: Strides in elements, one per extent.
    strides: tuple[int, ...]
    #: Offset of the view's first element into its storage, in elements.
    storage_offset: int
    #: Capacity of the underlying storage in bytes.
    storage_bytes: int
    #: Identity of the underlying storage (e.g. its base address); views of one storage share it.
    storage: int
    format: StorageFormat
    device_index: int

    def __post_init__(self) -> None:
        _require(self.dtype, DType, "TensorArg.dtype")
        _require(self.format, StorageFormat, "TensorArg.format")
        # Any iterable of int is accepted at run time; it is kept as a tuple.
        object.__setattr__(self, "shape", _int_tuple(self.shape))
        object.__setattr__(self, "strides", _int_tuple(self.strides))
        for i, d in enumerate(self.shape):
            _check_int(d, _I64_MIN, _I64_MAX, f"TensorArg.shape[{i}]")
        for i, s in enumerate(self.strides):
            _check_int(s, _I64_MIN, _I64_MAX, f"TensorArg.strides[{i}]")
        _check_int(self.storage_offset, _I64_MIN, _I64_MAX, "TensorArg.storage_offset")
        _check_int(self.storage_bytes, 0, _U64_MAX, "TensorArg.storage_bytes")
        _check_int(self.storage, 0, _U64_MAX, "TensorArg.storage")
        _check_int(self.device_index, -(1 << 31), (1 << 31) - 1, "TensorArg.device_index")


@dataclass(frozen=True, slots=True)
class ScalarArg:
    """A typed scalar argument value (``kfam_runtime::ScalarValue``).

    ``BOOL`` holds a ``bool``, ``INT`` an ``int`` in int64 range, ``UINT`` an ``int`` in uint64
    range, ``FLOAT`` a ``float``; anything else raises ``TypeError`` or ``ValueError``.
    ``ScalarArg.of(value)`` picks the kind from a Python value.
    """

    kind: ScalarValueKind
    value: bool | int | float

    def __post_init__(self) -> None:
        _require(self.kind, ScalarValueKind, "ScalarArg.kind")
        v = self.value
        if self.kind is ScalarValueKind.BOOL:
            if type(v) is not bool:
                raise TypeError(f"a BOOL scalar holds a bool, not {type(v).__name__}")
        elif self.kind is ScalarValueKind.FLOAT:
            if type(v) is not float:
                raise TypeError(f"a FLOAT scalar holds a float, not {type(v).__name__}")
        elif self.kind is ScalarValueKind.INT:
            _check_int(v, _I64_MIN, _I64_MAX, "an INT scalar")
        else:
            _check_int(v, 0, _U64_MAX, "a UINT scalar")

    @classmethod
    def of(cls, value: bool | int | float) -> ScalarArg:
        """``BOOL`` for a bool, ``INT`` (or ``UINT`` above int64) for an int, ``FLOAT`` for a
        float. An int outside [-2**63, 2**64) has no native representation: ``ValueError``."""
        if type(value) is bool:
            return cls(ScalarValueKind.BOOL, value)
        if type(value) is int:
            kind = ScalarValueKind.UINT if value > _I64_MAX else ScalarValueKind.INT
            return cls(kind, value)
        if type(value) is float:
            return cls(ScalarValueKind.FLOAT, value)
        raise TypeError(f"a scalar argument is a bool, int or float, not {type(value).__name__}")


def _byte_span(t: TensorArg) -> tuple[int, int] | None:
    """Byte span ``[start, end)`` a view touches in its storage; ``None`` when it is empty.

    Exact integers, like the runtime's u128 arithmetic (which saturates only past 2**128,
    far beyond any storage capacity).
    """
    bits = t.dtype.bits
    if any(d == 0 for d in t.shape):
        return None
    if t.format is StorageFormat.FRACTAL_NZ:
        # Physical blocks from offset 0; strides describe no NZ element order.
        elems = 1
        for d in t.shape:
            elems *= d
        return (0, -(-(elems * bits) // 8))
    # Highest element index reached, relative to the offset. Extents are positive here
    # and strides of extents above 1 positive (contiguous).
    last = 0
    for d, s in zip(t.shape, t.strides):
        if d > 1:
            last += (d - 1) * max(s, 0)
    first = max(t.storage_offset, 0)
    end_elem = first + last + 1
    return (first * bits // 8, -(-(end_elem * bits) // 8))


def _data_address(t: TensorArg) -> int:
    """The address of a view's first element: the storage's base address plus the offset's bytes."""
    return t.storage + abs(t.storage_offset) * t.dtype.bits // 8


def _check_tensor(p: Param, t: TensorArg) -> None:
    def fail(rule: CallRule) -> CallError:
        return CallError(rule, p.index)

    if t.dtype is not p.dtype:
        raise fail(CallRule.DTYPE)
    if len(t.shape) != len(p.shape) or len(t.strides) != len(t.shape):
        raise fail(CallRule.RANK)
    for have, want in zip(t.shape, p.shape):
        if have < 0 or (want >= 0 and have != want):
            raise fail(CallRule.SHAPE)
    if t.storage_offset < 0:
        raise fail(CallRule.STORAGE_BOUNDS)
    # An empty view accesses nothing, so it has no address to align.
    if p.alignment > 1 and 0 not in t.shape and _data_address(t) % p.alignment != 0:
        raise fail(CallRule.ALIGNMENT)
    if p.layout is Layout.NZ and t.format is StorageFormat.FRACTAL_NZ:
        # The physical blocks are the complete, unpadded NZ matrix.
        if t.storage_offset != 0:
            raise fail(CallRule.NZ_OFFSET)
        elems: int | None = 1
        for d in t.shape:
            elems = None if elems is None or elems * d > _U64_MAX else elems * d
        size = None if elems is None or elems * t.dtype.bits > _U64_MAX else elems * t.dtype.bits
        if size is None or -(-size // 8) > t.storage_bytes:
            raise fail(CallRule.STORAGE_BOUNDS)
        return
    if p.layout not in _ROW_MAJOR_LAYOUTS or t.format not in _ROW_MAJOR_FORMATS:
        raise fail(CallRule.FORMAT)
    # Contiguous row-major: extents of 1 may carry any stride, and an empty view is
    # contiguous whatever its strides (as in torch).
    if 0 not in t.shape:
        expected = 1
        for d, s in zip(reversed(t.shape), reversed(t.strides)):
            if d != 1 and s != expected:
                raise fail(CallRule.NOT_CONTIGUOUS)
            expected = min(expected * d, _I64_MAX)
    # Packed fp4 stores the last extent two per byte; the span covers it.
    span = _byte_span(t)
    if span is not None and span[1] > t.storage_bytes:
        raise fail(CallRule.STORAGE_BOUNDS)


_ROW_MAJOR_LAYOUTS: Final = frozenset((Layout.ND, Layout.NCHW))
_ROW_MAJOR_FORMATS: Final = frozenset((StorageFormat.ND, StorageFormat.NCHW))


def _check_scalar(p: Param, v: ScalarArg) -> None:
    def fail(rule: CallRule) -> CallError:
        return CallError(rule, p.index)

    kind, value = v.kind, v.value
    if p.dtype is DType.BOOL:
        if kind is not ScalarValueKind.BOOL:
            raise fail(CallRule.SCALAR_TYPE)
        return
    bounds = _INT_RANGE.get(p.dtype)
    if bounds is not None:
        # Floats are never truncated into integers; bools are not integers.
        if kind is ScalarValueKind.FLOAT or kind is ScalarValueKind.BOOL:
            raise fail(CallRule.SCALAR_TYPE)
        lo, hi = bounds
        if not lo <= value <= hi:
            raise fail(CallRule.SCALAR_RANGE)
        return
    if kind is ScalarValueKind.BOOL:
        raise fail(CallRule.SCALAR_TYPE)
    x = float(value)
    if math.isfinite(x) and abs(x) > _FLOAT_MAX[p.dtype]:
        raise fail(CallRule.FLOAT_OVERFLOW)


def _check_symbols(family: Family, tensors: Sequence[TensorArg]) -> None:
    """Every extent of one named symbol is equal and meets the symbol's constraints.

    Runs after every tensor passed ``_check_tensor``, so each use's axis exists.
    """
    for i, s in enumerate(family.symbols):
        first, rest = s.uses[0], s.uses[1:]
        want = tensors[first.tensor].shape[first.axis]
        for u in rest:
            if tensors[u.tensor].shape[u.axis] != want:
                raise CallError(CallRule.DIM_MISMATCH, u.param, i, first.param)
        if want < s.min or (s.max is not None and want > s.max) or want % s.multiple_of:
            raise CallError(CallRule.DIM_RANGE, first.param, i, None)


def validate_call(
    family: Family, tensors: Sequence[TensorArg], scalars: Sequence[ScalarArg]
) -> None:
    """Validate one call of ``family``; raises the runtime's ``CallError(rule, param)``, which a
    catalog's ``validate_call`` raises again as its own class.

    ``tensors`` are the tensor arguments in signature order (the family's tensor pool),
    ``scalars`` the scalar ones. Checked in order: the argument counts; each tensor (dtype,
    rank, extents, storage offset, format and layout, NZ offset and capacity, contiguity,
    storage bounds) and its device; each named symbol (equal extents, then its constraints);
    each scalar (kind, integer range, float overflow); then
    every pair of views of one storage (partial overlap with a written tensor is refused,
    reported on the later parameter).
    """
    _require(family, Family, "family")
    for t in tensors:
        _require(t, TensorArg, "a tensor argument")
    for s in scalars:
        _require(s, ScalarArg, "a scalar argument")
    try:
        _validate(family, tensors, scalars)
    except CallError as e:
        # The words are built only for a refused call, as in Rust.
        message = _explain(e, family, tensors, scalars)
        raise CallError(e.rule, e.param, e.symbol, e.other, message) from None


def _validate(family: Family, tensors: Sequence[TensorArg], scalars: Sequence[ScalarArg]) -> None:
    if len(tensors) != family.tensor_count or len(scalars) != family.scalar_count:
        raise CallError(CallRule.ARG_COUNT)
    tensor_params = [p for p in family.params if p.kind is ParamKind.TENSOR]
    device: int | None = None
    for p, t in zip(tensor_params, tensors):
        _check_tensor(p, t)
        if device is None:
            device = t.device_index
        elif device != t.device_index:
            raise CallError(CallRule.DEVICE, p.index)
    _check_symbols(family, tensors)
    scalar_params = [p for p in family.params if p.kind is ParamKind.SCALAR]
    for p, v in zip(scalar_params, scalars):
        _check_scalar(p, v)
    # Views of one storage: equal byte spans alias exactly, disjoint spans are independent,
    # and read-only overlap is harmless. Anything else that involves a written tensor is
    # rejected.
    pairs = list(zip(tensor_params, tensors))
    for i, (pi, ti) in enumerate(pairs):
        si = _byte_span(ti)
        if si is None:
            continue
        for pj, tj in pairs[i + 1 :]:
            if ti.storage != tj.storage or (
                pi.direction is Direction.IN and pj.direction is Direction.IN
            ):
                continue
            sj = _byte_span(tj)
            if sj is None:
                continue
            disjoint = si[1] <= sj[0] or sj[1] <= si[0]
            if not disjoint and si != sj:
                raise CallError(CallRule.OVERLAP, pj.index)


# ---------------------------------------------------------------- refusals in words


def _dims(values: Sequence[int]) -> str:
    return "[" + ", ".join(str(v) for v in values) + "]"


def _declared_shape(family: Family, p: Param) -> tuple[str, bool]:
    """Rust's ``declared_shape``: a symbol's extent by its name, an anonymous dynamic one as
    ``-1`` (``[rows, 4096]``, ``[batch, -1]``); and whether such a ``-1`` is left."""
    extents, anonymous = [], False
    for axis, d in enumerate(p.shape):
        named = next(
            (
                s
                for s in family.symbols
                if any(u.param == p.index and u.axis == axis for u in s.uses)
            ),
            None,
        )
        if named is not None and d < 0:
            extents.append(named.name)
        else:
            anonymous |= d < 0
            extents.append(str(d))
    return "[" + ", ".join(extents) + "]", anonymous


def _scalar_text(v: ScalarArg) -> str:
    """A scalar value as Rust's ``Display`` writes it: ``true``, ``-3``, ``0.5``, ``1e300`` in
    full digits (the shortest digits that read back, never an exponent)."""
    value = v.value
    if type(value) is bool:
        return "true" if value else "false"
    if type(value) is int:
        return str(value)
    x = float(value)
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    text = format(Decimal(repr(x)), "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text


def _describe(e: CallError, family: Family) -> str:
    """Rust's ``CallError::describe``: the error with the family's names."""

    def name(i: int) -> str:
        return family.params[i].name if 0 <= i < len(family.params) else "?"

    if e.param is None:
        text = e.rule.spelling
    else:
        text = words("argument", index=e.param, name=name(e.param), rule=e.rule.spelling)
    if e.symbol is not None and 0 <= e.symbol < len(family.symbols):
        s = family.symbols[e.symbol]
        text += words("symbol", symbol=s.name)
        if e.other is not None:
            text += words("symbol_elsewhere", other=name(e.other))
        else:
            # `multiple_of = 1` is no rule: the message names only the bounds then.
            key = "at_least" if s.max is None else "within"
            if s.multiple_of != 1:
                key += "_multiple"
            text += words(key, min=s.min, max=s.max, multiple_of=s.multiple_of)
    return text


def _explain(
    e: CallError, family: Family, tensors: Sequence[TensorArg], scalars: Sequence[ScalarArg]
) -> str:
    """What was expected and what was passed: Rust's ``CallError::explain``, word for word."""
    if e.param is None or not 0 <= e.param < len(family.params):
        if e.rule is CallRule.ARG_COUNT:
            return words(
                "arg_count",
                family=family.name,
                tensor_count=family.tensor_count,
                scalar_count=family.scalar_count,
                tensors=len(tensors),
                scalars=len(scalars),
            )
        return _describe(e, family)
    p = family.params[e.param]
    head = words("argument", index=p.index, name=p.name, rule=e.rule.spelling) + ": "
    tensor = p.kind is ParamKind.TENSOR and p.pool_index < len(tensors)
    scalar = p.kind is ParamKind.SCALAR and p.pool_index < len(scalars)
    t = tensors[p.pool_index] if tensor else None
    v = scalars[p.pool_index] if scalar else None
    rule = e.rule
    if t is not None:
        if rule is CallRule.DTYPE:
            return head + words("dtype", dtype=t.dtype.spelling, expected=p.dtype.spelling)
        if rule is CallRule.RANK:
            return head + words(
                "rank",
                rank=len(t.shape),
                shape=_dims(t.shape),
                expected_rank=len(p.shape),
                expected=_declared_shape(family, p)[0],
            )
        if rule is CallRule.SHAPE:
            declared, anonymous = _declared_shape(family, p)
            return head + words(
                "shape",
                shape=_dims(t.shape),
                negative=words("shape_negative") if any(d < 0 for d in t.shape) else "",
                expected=declared,
                anonymous=words("shape_anonymous") if anonymous else "",
            )
        if rule is CallRule.FORMAT:
            return head + words("format", format=t.format.spelling, layout=p.layout.spelling)
        if rule is CallRule.NOT_CONTIGUOUS:
            return head + words("not_contiguous", strides=_dims(t.strides), shape=_dims(t.shape))
        if rule is CallRule.NZ_OFFSET:
            return head + words("nz_offset", offset=t.storage_offset)
        if rule is CallRule.STORAGE_BOUNDS:
            if t.storage_offset < 0:
                return head + words("negative_offset", offset=t.storage_offset)
            return head + words(
                "storage_bounds",
                shape=_dims(t.shape),
                strides=_dims(t.strides),
                offset=t.storage_offset,
                dtype=t.dtype.spelling,
                bytes=t.storage_bytes,
            )
        if rule is CallRule.ALIGNMENT:
            return head + words(
                "alignment",
                address=f"{_data_address(t):#x}",
                storage=f"{t.storage:#x}",
                offset=t.storage_offset,
                dtype=t.dtype.spelling,
                alignment=p.alignment,
            )
        if rule is CallRule.DEVICE:
            first = tensors[0].device_index if tensors else 0
            return head + words("device", device=t.device_index, expected=first)
        if rule is CallRule.OVERLAP:
            return head + words("overlap")
        if rule is CallRule.DIM_MISMATCH or rule is CallRule.DIM_RANGE:
            return _explain_symbol(e, family, tensors, t)
    if v is not None:
        if rule is CallRule.SCALAR_TYPE:
            return head + words("scalar_type", kind=v.kind.spelling, dtype=p.dtype.spelling)
        if rule is CallRule.SCALAR_RANGE:
            return head + words("scalar_range", value=_scalar_text(v), dtype=p.dtype.spelling)
        if rule is CallRule.FLOAT_OVERFLOW:
            return head + words("float_overflow", value=_scalar_text(v), dtype=p.dtype.spelling)
    return _describe(e, family)


def _explain_symbol(
    e: CallError, family: Family, tensors: Sequence[TensorArg], t: TensorArg
) -> str:
    """``dim_mismatch`` and ``dim_range`` with the extents passed."""
    text = _describe(e, family)
    if e.symbol is None or not 0 <= e.symbol < len(family.symbols):
        return text
    s = family.symbols[e.symbol]

    def extent(param: int, arg: TensorArg) -> int | None:
        for u in s.uses:
            if u.param == param:
                return arg.shape[u.axis] if u.axis < len(arg.shape) else None
        return None

    here = None if e.param is None else extent(e.param, t)
    there = None
    if e.other is not None and 0 <= e.other < len(family.params):
        pool = family.params[e.other].pool_index
        if pool < len(tensors):
            there = extent(e.other, tensors[pool])
    if here is not None and there is not None:
        text += words("extents_both", here=here, there=there)
    elif here is not None:
        text += words("extent_passed", here=here)
    return text
