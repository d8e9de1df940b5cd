"""Runtime decisions over the approved tables: capability, admission and call validation.

The same decisions, in the same order, as the Rust crate ``kfam-runtime``
(``runtime/src/capability.rs``, ``admission.rs`` and ``call.rs``); the shared conformance
vectors (``tests/conformance/*.json``) hold both to it. Standard library only.

Every refusal is an exception carrying the decision's vocabulary member and the C ABI
``Status`` it maps to; every acceptance returns a frozen record.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Final, TypeAlias, TypeVar, Union

from ._abi import ABI_REVISION, Backend, ExecutionMode, Platform, Runtime, Status
from ._lookup import find_artifact, find_family, find_retired_artifact, is_retired
from ._records import Family, Param, Profile, Receipt
from ._vocab import (
    _ADMISSION_STATUS,
    _CALL_STATUS,
    _CAPABILITY_STATUS,
    _FLOAT_MAX,
    _INT_RANGE,
    Admission,
    CallRule,
    Capability,
    Contract,
    DType,
    Direction,
    Layout,
    ParamKind,
    ScalarValueKind,
    StorageFormat,
    _KfamVocab,
)

_V = TypeVar("_V", bound=_KfamVocab)

#: Largest ``compiled_meta.json`` admitted, in bytes (``kfam_runtime::admission``).
MAX_DOCUMENT_BYTES: Final[int] = 1048576

# ---------------------------------------------------------------- errors


class KfamError(Exception):
    """Base of every refusal: ``status`` is the C ABI status code the decision maps to."""

    @property
    def status(self) -> Status:
        raise NotImplementedError


class CapabilityError(KfamError):
    """A refused capability query; ``outcome`` says why (never ``SUPPORTED``), and the
    message names the query: ``family``, ``platform``, ``execution_mode`` and ``contract``
    (in the Rust runtime's words)."""

    def __init__(
        self,
        outcome: Capability,
        family: str | None = None,
        platform: Platform | None = None,
        execution_mode: ExecutionMode | None = None,
        contract: Contract | None = None,
    ) -> None:
        super().__init__(_capability_text(outcome, family, platform, execution_mode, contract))
        self.outcome: Final[Capability] = outcome
        self.family: Final[str | None] = family
        self.platform: Final[Platform | None] = platform
        self.execution_mode: Final[ExecutionMode | None] = execution_mode
        self.contract: Final[Contract | None] = contract

    @property
    def status(self) -> Status:
        return Status[_CAPABILITY_STATUS[self.outcome]]

    def __reduce__(
        self,
    ) -> tuple[
        type[CapabilityError],
        tuple[Capability, str | None, Platform | None, ExecutionMode | None, Contract | None],
    ]:
        return (
            CapabilityError,
            (self.outcome, self.family, self.platform, self.execution_mode, self.contract),
        )


def _capability_text(
    outcome: Capability,
    family: str | None,
    platform: Platform | None,
    mode: ExecutionMode | None,
    contract: Contract | None,
) -> str:
    if family is None or platform is None or mode is None or contract is None:
        return outcome.spelling
    where = f"platform `{platform.spelling}` in `{mode.spelling}` mode"
    if outcome is Capability.UNKNOWN_FAMILY:
        why = f"no approved family `{family}`"
    elif outcome is Capability.RETIRED:
        why = f"family `{family}` is retired"
    elif outcome is Capability.CONTRACT_MISMATCH:
        why = f"family `{family}` is not a `{contract.spelling}` family"
    elif outcome is Capability.NO_PROFILE:
        why = f"family `{family}` has no profile for {where}"
    else:
        why = f"family `{family}` has no receipt on {where}"
    return f"{outcome.spelling}: {why}"


class AdmissionError(KfamError):
    """A refused artifact: ``outcome`` (never ``ADMITTED``); for ``NOT_APPROVED``, the
    first ``field`` of ``compiled_meta.json`` that differs (``"params"``, ``"artifact.sha256"``);
    for ``MALFORMED``, the ``reason``, which names the key at fault (``"`dtype` of `params` is
    not a known value"``), as the Rust runtime and ``kfam_admit_message`` word it.
    """

    def __init__(
        self, outcome: Admission, field: str | None = None, reason: str | None = None
    ) -> None:
        if field is not None:
            text = f"{outcome.spelling} (`{field}` differs)"
        elif reason is not None:
            text = f"{outcome.spelling}: {reason}"
        else:
            text = outcome.spelling
        super().__init__(text)
        self.outcome: Final[Admission] = outcome
        self.field: Final[str | None] = field
        self.reason: Final[str | None] = reason

    @property
    def status(self) -> Status:
        return Status[_ADMISSION_STATUS[self.outcome]]

    def __reduce__(
        self,
    ) -> tuple[type[AdmissionError], tuple[Admission, str | None, str | None]]:
        return (AdmissionError, (self.outcome, self.field, self.reason))


class CallError(KfamError, ValueError):
    """A rejected call: the ``rule`` (never ``OK``) and the signature index of the parameter it
    concerns (``param``, an index into ``Family.params``; ``None`` for the argument counts).

    ``validate_call`` gives it a ``message`` saying what was expected and what was passed
    (``"argument 1 (`rhs`): dtype: dtype fp16, expected bf16"``), in the words of the Rust
    runtime's ``CallError::explain`` and ``kfam_validate_call_message``; ``str()`` is that
    message, or ``"argument 1: dtype"`` (Rust's ``Display``) for an error built without one.
    """

    def __init__(
        self,
        rule: CallRule,
        param: int | None = None,
        symbol: int | None = None,
        other: int | None = None,
        message: str | None = None,
    ) -> None:
        text = rule.spelling if param is None else f"argument {param}: {rule.spelling}"
        super().__init__(text if message is None else message)
        self.rule: Final[CallRule] = rule
        self.param: Final[int | None] = param
        #: ``dim_mismatch`` and ``dim_range``: the named symbol, an index into ``Family.symbols``.
        self.symbol: Final[int | None] = symbol
        #: ``dim_mismatch``: the parameter whose extent the symbol took first.
        self.other: Final[int | None] = other
        self.message: Final[str | None] = message

    @property
    def status(self) -> Status:
        return Status[_CALL_STATUS[self.rule]]

    def __reduce__(
        self,
    ) -> tuple[
        type[CallError], tuple[CallRule, int | None, int | None, int | None, str | None]
    ]:
        return (CallError, (self.rule, self.param, self.symbol, self.other, self.message))


# ---------------------------------------------------------------- capability


@dataclass(frozen=True, slots=True)
class Supported:
    """A supported capability: the family, the matching profile and its receipt."""

    family: Family
    profile: Profile
    receipt: Receipt

    @property
    def outcome(self) -> Capability:
        return Capability.SUPPORTED

    @property
    def status(self) -> Status:
        return Status[_CAPABILITY_STATUS[Capability.SUPPORTED]]

    def __str__(self) -> str:
        """The decision in words, as Rust's ``Supported`` and ``kfam_capability_message``
        write it."""
        return (
            f"{Capability.SUPPORTED.spelling}: family `{self.family.name}` runs on platform "
            f"`{self.profile.platform.spelling}` in `{self.profile.execution_mode.spelling}` "
            f"mode with profile `{self.profile.name}`"
        )


def _require(value: object, cls: type[object], what: str) -> None:
    if not isinstance(value, cls):
        raise TypeError(f"{what} must be a {cls.__name__}, not {type(value).__name__}")


def capability(
    family: str, platform: Platform, execution_mode: ExecutionMode, contract: Contract
) -> Supported:
    """May ``family`` run on ``platform`` in ``execution_mode`` with ``contract``?

    Returns the first profile of the family for that platform and mode that has a receipt;
    raises ``CapabilityError`` with ``UNKNOWN_FAMILY`` (``RETIRED`` for a retired name),
    ``CONTRACT_MISMATCH``, ``NO_PROFILE`` (no profile for the platform and mode) or
    ``NO_RECEIPT`` (profiles, but none qualified), checked in that order.
    """
    _require(family, str, "family")
    _require(platform, Platform, "platform")
    _require(execution_mode, ExecutionMode, "execution_mode")
    _require(contract, Contract, "contract")
    query = (family, platform, execution_mode, contract)
    fam = find_family(family)
    if fam is None:
        raise CapabilityError(
            Capability.RETIRED if is_retired(family) else Capability.UNKNOWN_FAMILY,
            *query,
        )
    if fam.contract is not contract:
        raise CapabilityError(Capability.CONTRACT_MISMATCH, *query)
    any_profile = False
    for i, profile in enumerate(fam.profiles):
        if profile.platform is not platform or profile.execution_mode is not execution_mode:
            continue
        any_profile = True
        for receipt in fam.receipts:
            if receipt.profile == i:
                return Supported(fam, profile, receipt)
    raise CapabilityError(
        Capability.NO_RECEIPT if any_profile else Capability.NO_PROFILE, *query
    )


# ---------------------------------------------------------------- strict JSON

#: A parsed JSON value.
_Json: TypeAlias = Union[None, bool, int, float, str, list["_Json"], dict[str, "_Json"]]


class _Malformed(Exception):
    """The document is not one the Rust parser accepts."""


class _Object(dict[str, "_Json"]):
    """A parsed JSON object; ``duplicate`` is its first key written twice (``None`` when
    every key is written once). A repeated key is refused where the object is read as a
    record (``_object``), so the refusal names the key and the record it sits in, as the
    Rust reader's does; the later value is dropped."""

    __slots__ = ("duplicate",)

    def __init__(self) -> None:
        super().__init__()
        self.duplicate: str | None = None


_WS: Final = re.compile(r"[ \t\n\r]*")
_NUMBER: Final = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?")
_PLAIN: Final = re.compile(r'[^"\\\x00-\x1f]*')
_HEX4: Final = re.compile(r"[0-9a-fA-F]{4}")
_SHORT_ESCAPES: Final[dict[str, str]] = {
    '"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t",
}  # fmt: skip
#: Nesting deeper than this is refused, as ``serde_json``'s recursion limit does.
_MAX_DEPTH: Final = 128


class _Parser:
    """RFC 8259 JSON as ``serde_json`` reads it: no NaN/Infinity, no trailing data, no lone
    surrogates, ``-0`` and every number with a fraction or an exponent are floats. A key
    written twice is recorded (``_Object.duplicate``) and refused by ``_object``."""

    __slots__ = ("text", "pos", "path")

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        #: The keys whose values are being read, outermost first: after a ``_Malformed``
        #: it is where the reader stopped (the path ``serde_path_to_error`` records).
        self.path: list[str] = []

    def document(self) -> _Json:
        value = self.value(0)
        self.skip_ws()
        if self.pos != len(self.text):
            raise _Malformed("trailing data")
        return value

    def skip_ws(self) -> None:
        m = _WS.match(self.text, self.pos)
        assert m is not None
        self.pos = m.end()

    def peek(self) -> str:
        return self.text[self.pos : self.pos + 1]

    def expect(self, c: str) -> None:
        if self.peek() != c:
            raise _Malformed(f"expected {c!r} at {self.pos}")
        self.pos += 1

    def value(self, depth: int) -> _Json:
        self.skip_ws()
        c = self.peek()
        if c == "{":
            return self.object(depth + 1)
        if c == "[":
            return self.array(depth + 1)
        if c == '"':
            return self.string()
        for word, literal in (("true", True), ("false", False), ("null", None)):
            if self.text.startswith(word, self.pos):
                self.pos += len(word)
                return literal
        return self.number()

    def object(self, depth: int) -> _Object:
        if depth > _MAX_DEPTH:
            raise _Malformed("nested too deeply")
        self.pos += 1
        out = _Object()
        self.skip_ws()
        if self.peek() == "}":
            self.pos += 1
            return out
        while True:
            self.skip_ws()
            if self.peek() != '"':
                raise _Malformed("expected a key")
            key = self.string()
            self.skip_ws()
            self.expect(":")
            self.path.append(key)
            value = self.value(depth)
            self.path.pop()
            if key not in out:
                out[key] = value
            elif out.duplicate is None:
                out.duplicate = key
            self.skip_ws()
            if self.peek() == ",":
                self.pos += 1
                continue
            self.expect("}")
            return out

    def array(self, depth: int) -> list[_Json]:
        if depth > _MAX_DEPTH:
            raise _Malformed("nested too deeply")
        self.pos += 1
        out: list[_Json] = []
        self.skip_ws()
        if self.peek() == "]":
            self.pos += 1
            return out
        while True:
            out.append(self.value(depth))
            self.skip_ws()
            if self.peek() == ",":
                self.pos += 1
                continue
            self.expect("]")
            return out

    def hex4(self) -> int:
        m = _HEX4.match(self.text, self.pos)
        if m is None:
            raise _Malformed("bad \\u escape")
        self.pos = m.end()
        return int(m.group(), 16)

    def string(self) -> str:
        self.pos += 1
        parts: list[str] = []
        text = self.text
        while True:
            m = _PLAIN.match(text, self.pos)
            assert m is not None
            parts.append(m.group())
            self.pos = m.end()
            c = self.peek()
            if c == '"':
                self.pos += 1
                return "".join(parts)
            if c != "\\":
                raise _Malformed("control character or end of input in a string")
            e = text[self.pos + 1 : self.pos + 2]
            self.pos += 2
            short = _SHORT_ESCAPES.get(e)
            if short is not None:
                parts.append(short)
                continue
            if e != "u":
                raise _Malformed("bad escape")
            n = self.hex4()
            if 0xDC00 <= n <= 0xDFFF:
                raise _Malformed("lone trailing surrogate")
            if 0xD800 <= n <= 0xDBFF:
                if text[self.pos : self.pos + 2] != "\\u":
                    raise _Malformed("lone leading surrogate")
                self.pos += 2
                low = self.hex4()
                if not 0xDC00 <= low <= 0xDFFF:
                    raise _Malformed("lone leading surrogate")
                n = 0x10000 + ((n - 0xD800) << 10) + (low - 0xDC00)
            parts.append(chr(n))

    def number(self) -> int | float:
        m = _NUMBER.match(self.text, self.pos)
        if m is None or not m.group():
            raise _Malformed(f"expected a value at {self.pos}")
        self.pos = m.end()
        token = m.group()
        after = self.text[self.pos : self.pos + 1]
        if after and after in "0123456789.eE":
            # A leading zero, or a fraction or exponent without digits.
            raise _Malformed("not a number")
        if m.group(1) or m.group(2) or token == "-0" or len(token) > 24:
            # serde_json reads these as f64, which no integer field accepts.
            return -0.0 if token == "-0" else math.inf
        value = int(token)
        # Beyond i64 and u64 serde_json reads an integer as f64 too.
        return value if _I64_MIN <= value <= _U64_MAX else math.inf


# ---------------------------------------------------------------- compiled_meta.json

_U32_MAX: Final = (1 << 32) - 1
# The schema's `maxLength` of `$comment`, in characters.
_MAX_COMMENT_CHARS: Final = 1024
_I64_MIN: Final = -(1 << 63)
_I64_MAX: Final = (1 << 63) - 1
_U64_MAX: Final = (1 << 64) - 1


def _malformed(key: str | None = None, within: str | None = None, why: str = "") -> AdmissionError:
    """A malformed document: ``key`` (a key of ``within``) ``why``, worded as the Rust runtime
    words it."""
    if key is not None and within is not None:
        reason = f"`{key}` of `{within}` {why}"
    elif key is not None or within is not None:
        reason = f"`{key or within}` {why}"
    else:
        reason = f"the document {why or 'is not strict JSON'}"
    return AdmissionError(Admission.MALFORMED, None, reason)


def _object(
    value: _Json, known: frozenset[str], required: tuple[str, ...], key: str | None = None
) -> dict[str, _Json]:
    """A JSON object (the value of ``key``) with no unknown keys, no key written twice and
    every required key."""
    if not isinstance(value, dict):
        raise _malformed(key, None, "has the wrong type")
    if not value.keys() <= known:
        raise _malformed(key, None, "has an unknown key")
    duplicate = value.duplicate if isinstance(value, _Object) else None
    if duplicate is not None:
        raise _malformed(duplicate, key, "appears twice")
    # The first missing key in the record's declaration order, as serde reports it.
    for k in required:
        if k not in value:
            raise _malformed(k, key, "is missing")
    for k, v in value.items():
        if v is None:
            raise _malformed(k, key, "has the wrong type")
    return value


def _u32(value: _Json, key: str, within: str | None = None) -> int:
    if type(value) is not int:
        raise _malformed(key, within, "has the wrong type")
    if not 0 <= value <= _U32_MAX:
        raise _malformed(key, within, "is out of range")
    return value


def _i64(value: _Json, key: str, within: str | None = None) -> int:
    if type(value) is not int:
        raise _malformed(key, within, "has the wrong type")
    if not _I64_MIN <= value <= _I64_MAX:
        raise _malformed(key, within, "is out of range")
    return value


def _text(value: _Json, key: str, within: str | None = None) -> str:
    if not isinstance(value, str):
        raise _malformed(key, within, "has the wrong type")
    return value


def _list(value: _Json, key: str, within: str | None = None) -> list[_Json]:
    if not isinstance(value, list):
        raise _malformed(key, within, "has the wrong type")
    return value


def _opt_text(value: _Json, key: str) -> str | None:
    return None if value is None else _text(value, key)


def _opt_u32(value: _Json, key: str) -> int | None:
    return None if value is None else _u32(value, key)


@dataclass(frozen=True, slots=True)
class _ParamDoc:
    name: str
    kind: str
    direction: str
    dtype: str
    shape: tuple[int, ...]
    layout: str


_PARAM_REQUIRED: Final = ("name", "kind", "direction", "dtype", "shape", "layout")
_PARAM_KEYS: Final = frozenset(_PARAM_REQUIRED)


def _param_doc(value: _Json, within: str) -> _ParamDoc:
    o = _object(value, _PARAM_KEYS, _PARAM_REQUIRED, within)
    return _ParamDoc(
        name=_text(o["name"], "name", within),
        kind=_text(o["kind"], "kind", within),
        direction=_text(o["direction"], "direction", within),
        dtype=_text(o["dtype"], "dtype", within),
        shape=tuple(_i64(d, "shape", within) for d in _list(o["shape"], "shape", within)),
        layout=_text(o["layout"], "layout", within),
    )


@dataclass(frozen=True, slots=True)
class _CapabilityDoc:
    contract: str
    execution_mode: str


_CAPABILITY_REQUIRED: Final = ("contract", "execution_mode")
_CAPABILITY_KEYS: Final = frozenset(_CAPABILITY_REQUIRED)


def _capability_doc(value: _Json) -> _CapabilityDoc:
    w = "capabilities"
    o = _object(value, _CAPABILITY_KEYS, _CAPABILITY_REQUIRED, w)
    return _CapabilityDoc(
        _text(o["contract"], "contract", w), _text(o["execution_mode"], "execution_mode", w)
    )


@dataclass(frozen=True, slots=True)
class _ArtifactDoc:
    path: str
    sha256: str


_ARTIFACT_REQUIRED: Final = ("path", "sha256")
_ARTIFACT_KEYS: Final = frozenset(_ARTIFACT_REQUIRED)


def _artifact_doc(value: _Json) -> _ArtifactDoc:
    o = _object(value, _ARTIFACT_KEYS, _ARTIFACT_REQUIRED, "artifact")
    return _ArtifactDoc(
        _text(o["path"], "path", "artifact"), _text(o["sha256"], "sha256", "artifact")
    )


@dataclass(frozen=True, slots=True)
class _Doc:
    """Every field of every schema version; which are required depends on ``schema``."""

    schema: int
    family: str | None
    revision: int | None
    contract: str | None
    params: tuple[_ParamDoc, ...]
    lowered_params: tuple[_ParamDoc, ...] | None
    return_count: int | None
    return_aliases: tuple[int, ...] | None
    platform: str
    backend: str
    runtime: str | None
    execution_mode: str | None
    capabilities: tuple[_CapabilityDoc, ...] | None
    artifact: _ArtifactDoc | None
    abi_revision: str | None


_DOC_REQUIRED: Final = ("schema", "params", "platform", "backend")
_DOC_KEYS: Final = frozenset(_DOC_REQUIRED) | frozenset(
    (
        "$comment", "family", "revision", "contract", "lowered_params", "return_count",
        "return_aliases", "runtime", "execution_mode", "capabilities", "artifact", "abi_revision",
    )
)  # fmt: skip


#: Every key of every record: the keys a refusal may name.
_ALL_KEYS: Final = _DOC_KEYS | _PARAM_KEYS | _CAPABILITY_KEYS | _ARTIFACT_KEYS


def _parse_doc(document: bytes) -> _Doc:
    """The document as the Rust reader types it; ``AdmissionError(MALFORMED)`` otherwise.

    A key that is present has a value of its type: ``null`` is not "absent" (as in the
    Rust reader and the published schema).
    """
    try:
        text = document.decode("utf-8")
    except UnicodeDecodeError:
        raise _malformed(why="is not UTF-8") from None
    parser = _Parser(text)
    try:
        value = parser.document()
    except _Malformed:
        # Named as the Rust reader names it: the innermost known key on the path where
        # reading stopped, under the document key the path starts at.
        keys = [k for k in parser.path if k in _ALL_KEYS]
        key = keys[-1] if keys else None
        within = keys[0] if keys and keys[0] != key else None
        raise _malformed(key, within, "is not strict JSON") from None
    o = _object(value, _DOC_KEYS, _DOC_REQUIRED)
    comment = o.get("$comment")
    if comment is not None:
        if len(_text(comment, "$comment")) > _MAX_COMMENT_CHARS:
            raise _malformed("$comment", None, "is too long")
    lowered = o.get("lowered_params")
    aliases = o.get("return_aliases")
    caps = o.get("capabilities")
    artifact = o.get("artifact")
    lp = "lowered_params"
    return _Doc(
        schema=_u32(o["schema"], "schema"),
        family=_opt_text(o.get("family"), "family"),
        revision=_opt_u32(o.get("revision"), "revision"),
        contract=_opt_text(o.get("contract"), "contract"),
        params=tuple(_param_doc(p, "params") for p in _list(o["params"], "params")),
        lowered_params=(
            None if lowered is None else tuple(_param_doc(p, lp) for p in _list(lowered, lp))
        ),
        return_count=_opt_u32(o.get("return_count"), "return_count"),
        return_aliases=None
        if aliases is None
        else tuple(_u32(a, "return_aliases") for a in _list(aliases, "return_aliases")),
        platform=_text(o["platform"], "platform"),
        backend=_text(o["backend"], "backend"),
        runtime=_opt_text(o.get("runtime"), "runtime"),
        execution_mode=_opt_text(o.get("execution_mode"), "execution_mode"),
        capabilities=None
        if caps is None
        else tuple(_capability_doc(c) for c in _list(caps, "capabilities")),
        artifact=None if artifact is None else _artifact_doc(artifact),
        abi_revision=_opt_text(o.get("abi_revision"), "abi_revision"),
    )


def _spellings(vocab: type[_V]) -> dict[str, _V]:
    return {m.spelling: m for m in vocab}


_PLATFORMS: Final = _spellings(Platform)
_BACKENDS: Final = _spellings(Backend)
_RUNTIMES: Final = _spellings(Runtime)
_MODES: Final = _spellings(ExecutionMode)
_CONTRACTS: Final = _spellings(Contract)
_KINDS: Final = _spellings(ParamKind)
_DIRECTIONS: Final = _spellings(Direction)
_DTYPES: Final = _spellings(DType)
_LAYOUTS: Final = _spellings(Layout)


def _vocab(spelling: str, members: dict[str, _V], key: str, within: str | None = None) -> _V:
    """A vocabulary value of ``key`` (of ``within``), or a malformed document."""
    found = members.get(spelling)
    if found is None:
        raise _malformed(key, within, "is not a known value")
    return found


@dataclass(frozen=True, slots=True)
class _ParamView:
    kind: ParamKind
    direction: Direction
    dtype: DType
    layout: Layout


def _param_view(p: _ParamDoc, within: str = "params") -> _ParamView:
    return _ParamView(
        kind=_vocab(p.kind, _KINDS, "kind", within),
        direction=_vocab(p.direction, _DIRECTIONS, "direction", within),
        dtype=_vocab(p.dtype, _DTYPES, "dtype", within),
        layout=_vocab(p.layout, _LAYOUTS, "layout", within),
    )


def _same_signature(
    docs: tuple[_ParamDoc, ...], approved: tuple[Param, ...], lowered: bool
) -> bool:
    if len(docs) != len(approved):
        return False
    for d, p in zip(docs, approved):
        v = _param_view(d)
        shape = p.lowered_shape if lowered else p.shape
        if (
            d.name != p.name
            or v.kind is not p.kind
            or v.direction is not p.direction
            or v.dtype is not p.dtype
            or v.layout is not p.layout
            or d.shape != shape
        ):
            return False
    return True


@dataclass(frozen=True, slots=True)
class Admitted:
    """An admitted artifact: its family, profile and receipt, and the contract it may be
    loaded with (always ``PROGRAM`` for schema 1 and 2 documents)."""

    family: Family
    profile: Profile
    receipt: Receipt
    contract: Contract

    @property
    def outcome(self) -> Admission:
        return Admission.ADMITTED

    @property
    def status(self) -> Status:
        return Status[_ADMISSION_STATUS[Admission.ADMITTED]]

    def __str__(self) -> str:
        """The decision in words, as Rust's ``Admitted`` and ``kfam_admit_message`` write it."""
        fam = self.family
        return f"{Admission.ADMITTED.spelling}: `{fam.name}` revision {fam.revision}"


def admit(document: bytes | bytearray | memoryview, sha256: str) -> Admitted:
    """Admit an artifact: ``document`` is its ``compiled_meta.json`` (the exact bytes),
    ``sha256`` the artifact's SHA-256 (lowercase hex). Raises ``AdmissionError``.

    Strict JSON (UTF-8, no duplicate or unknown keys, a bool is not an integer, no NaN, no
    trailing data) of at most ``MAX_DOCUMENT_BYTES``. Schema 1 and 2 documents are program
    metadata matched through the artifact digest; schema 3 documents must exact-match an
    approved family, profile and receipt.
    """
    if not isinstance(document, (bytes, bytearray, memoryview)):
        raise TypeError(f"document must be bytes, not {type(document).__name__}")
    _require(sha256, str, "sha256")
    # A digest that is not 64 lowercase hex digits is a caller error, refused before the
    # document is read (as the Rust runtime and the C ABI do).
    if len(sha256) != 64 or any(c not in "0123456789abcdef" for c in sha256):
        raise _malformed(
            why="cannot be matched: the artifact digest argument is not 64 lowercase hex digits"
        )
    data = bytes(document)
    if len(data) > MAX_DOCUMENT_BYTES:
        raise _malformed(why="is over the size limit")
    doc = _parse_doc(data)
    # Vocabulary values are checked up front, so a bad spelling is always "malformed".
    platform = _vocab(doc.platform, _PLATFORMS, "platform")
    backend = _vocab(doc.backend, _BACKENDS, "backend")
    for p in doc.params:
        _param_view(p, "params")
    for p in doc.lowered_params or ():
        _param_view(p, "lowered_params")
    if doc.schema in (1, 2):
        return _admit_legacy(doc, platform, backend, sha256)
    if doc.schema == 3:
        return _admit_v3(doc, platform, backend, sha256)
    raise _malformed("schema", None, "is not 1, 2 or 3")


def _differs(field: str) -> AdmissionError:
    return AdmissionError(Admission.NOT_APPROVED, field)


def _admit_legacy(doc: _Doc, platform: Platform, backend: Backend, sha256: str) -> Admitted:
    """Schema 1/2: program metadata, matched through the artifact digest. It never
    establishes a kernel contract."""
    kernel_fields = (
        ("family", doc.family), ("revision", doc.revision), ("contract", doc.contract),
        ("lowered_params", doc.lowered_params), ("return_aliases", doc.return_aliases),
        ("runtime", doc.runtime), ("execution_mode", doc.execution_mode),
        ("capabilities", doc.capabilities), ("artifact", doc.artifact),
        ("abi_revision", doc.abi_revision),
    )  # fmt: skip
    for key, value in kernel_fields:
        if value is not None:
            raise _malformed(key, None, "is a schema 3 key in a schema 1 or 2 document")
    if doc.return_count is None:
        raise _malformed("return_count", None, "is missing")
    found = find_artifact(sha256)
    if found is None:
        if find_retired_artifact(sha256) is not None:
            raise AdmissionError(Admission.RETIRED)
        raise _differs("artifact.sha256")
    fam, profile, receipt = found
    if fam.contract is not Contract.PROGRAM:
        raise AdmissionError(Admission.RECOMPILE_REQUIRED)
    if not _same_signature(doc.params, fam.params, False):
        raise _differs("params")
    if doc.return_count != len(fam.returns):
        raise _differs("return_count")
    if platform is not profile.platform:
        raise _differs("platform")
    if backend is not profile.backend:
        raise _differs("backend")
    return Admitted(fam, profile, receipt, Contract.PROGRAM)


def _admit_v3(doc: _Doc, platform: Platform, backend: Backend, sha256: str) -> Admitted:
    for key, value in (
        ("family", doc.family), ("revision", doc.revision), ("contract", doc.contract),
        ("runtime", doc.runtime), ("execution_mode", doc.execution_mode),
        ("artifact", doc.artifact),
    ):  # fmt: skip
        if value is None:
            raise _malformed(key, None, "is missing")
    assert doc.family is not None and doc.revision is not None and doc.artifact is not None
    assert doc.contract is not None and doc.runtime is not None and doc.execution_mode is not None
    contract = _vocab(doc.contract, _CONTRACTS, "contract")
    runtime = _vocab(doc.runtime, _RUNTIMES, "runtime")
    mode = _vocab(doc.execution_mode, _MODES, "execution_mode")
    artifact = doc.artifact

    # Kernel fields an older producer did not write: rebuild the artifact.
    lowered, return_count, aliases = doc.lowered_params, doc.return_count, doc.return_aliases
    caps, abi_revision = doc.capabilities, doc.abi_revision
    if (
        lowered is None
        or return_count is None
        or aliases is None
        or caps is None
        or abi_revision is None
    ):
        raise AdmissionError(Admission.RECOMPILE_REQUIRED)
    if return_count != len(aliases) or any(
        a >= len(doc.params)
        or doc.params[a].kind != ParamKind.TENSOR.spelling
        or doc.params[a].direction == Direction.IN.spelling
        for a in aliases
    ):
        raise AdmissionError(Admission.RECOMPILE_REQUIRED)
    # Exactly the requested capability, never an implied dual mode.
    if len(caps) != 1:
        raise AdmissionError(Admission.RECOMPILE_REQUIRED)
    (cap,) = caps
    if (
        _vocab(cap.contract, _CONTRACTS, "contract", "capabilities") is not contract
        or _vocab(cap.execution_mode, _MODES, "execution_mode", "capabilities") is not mode
    ):
        raise AdmissionError(Admission.RECOMPILE_REQUIRED)

    # Built against another native runtime: its entry ABI cannot be trusted.
    if abi_revision != ABI_REVISION:
        raise AdmissionError(Admission.PREPARED_INCOMPATIBLE)
    fam = find_family(doc.family)
    if fam is None:
        raise AdmissionError(
            Admission.RETIRED if is_retired(doc.family) else Admission.UNKNOWN_FAMILY
        )
    if doc.revision != fam.revision:
        raise _differs("revision")
    if contract is not fam.contract:
        raise _differs("contract")
    if not _same_signature(doc.params, fam.params, False):
        raise _differs("params")
    if not _same_signature(lowered, fam.params, True):
        raise _differs("lowered_params")
    if return_count != len(fam.returns):
        raise _differs("return_count")
    if aliases != fam.returns:
        raise _differs("return_aliases")
    profiles = [p for p in fam.profiles if p.platform is platform]
    if not profiles:
        raise _differs("platform")
    profiles = [p for p in profiles if p.backend is backend]
    if not profiles:
        raise _differs("backend")
    profiles = [p for p in profiles if p.runtime is runtime]
    if not profiles:
        raise _differs("runtime")
    profiles = [p for p in profiles if p.execution_mode is mode]
    if not profiles:
        raise _differs("execution_mode")
    profile_index = next(i for i, p in enumerate(fam.profiles) if p is profiles[0])
    profile = fam.profiles[profile_index]
    if artifact.sha256 != sha256:
        raise _differs("artifact.sha256")
    receipt = next(
        (r for r in fam.receipts if r.profile == profile_index and r.sha256 == sha256), None
    )
    if receipt is None:
        raise _differs("artifact.sha256")
    if artifact.path != receipt.artifact:
        raise _differs("artifact.path")
    return Admitted(fam, profile, receipt, contract)


# ---------------------------------------------------------------- call validation


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
    """Validate one call of ``family``; raises ``CallError(rule, param)``.

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


def _validate(
    family: Family, tensors: Sequence[TensorArg], scalars: Sequence[ScalarArg]
) -> None:
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
        text = f"argument {e.param} (`{name(e.param)}`): {e.rule.spelling}"
    if e.symbol is not None and 0 <= e.symbol < len(family.symbols):
        s = family.symbols[e.symbol]
        text += f": symbol `{s.name}`"
        if e.other is not None:
            text += f" differs from its extent in `{name(e.other)}`"
        elif s.max is None:
            text += f" must be at least {s.min} and a multiple of {s.multiple_of}"
        else:
            text += f" must lie in {s.min}..={s.max} and be a multiple of {s.multiple_of}"
    return text


def _explain(
    e: CallError, family: Family, tensors: Sequence[TensorArg], scalars: Sequence[ScalarArg]
) -> str:
    """What was expected and what was passed: Rust's ``CallError::explain``, word for word."""
    if e.param is None or not 0 <= e.param < len(family.params):
        if e.rule is CallRule.ARG_COUNT:
            return (
                f"arg_count: `{family.name}` takes {family.tensor_count} tensors and "
                f"{family.scalar_count} scalars, {len(tensors)} and {len(scalars)} were passed"
            )
        return _describe(e, family)
    p = family.params[e.param]
    head = f"argument {p.index} (`{p.name}`): {e.rule.spelling}: "
    tensor = p.kind is ParamKind.TENSOR and p.pool_index < len(tensors)
    scalar = p.kind is ParamKind.SCALAR and p.pool_index < len(scalars)
    t = tensors[p.pool_index] if tensor else None
    v = scalars[p.pool_index] if scalar else None
    rule = e.rule
    if t is not None:
        if rule is CallRule.DTYPE:
            return f"{head}dtype {t.dtype.spelling}, expected {p.dtype.spelling}"
        if rule is CallRule.RANK:
            return (
                f"{head}rank {len(t.shape)} (shape {_dims(t.shape)}), "
                f"expected rank {len(p.shape)} (shape {_dims(p.shape)})"
            )
        if rule is CallRule.SHAPE:
            negative = " has a negative extent" if any(d < 0 for d in t.shape) else ""
            return (
                f"{head}shape {_dims(t.shape)}{negative}, expected {_dims(p.shape)} "
                "(-1: any extent)"
            )
        if rule is CallRule.FORMAT:
            return (
                f"{head}storage format {t.format.spelling}, "
                f"not accepted for layout {p.layout.spelling}"
            )
        if rule is CallRule.NOT_CONTIGUOUS:
            return (
                f"{head}strides {_dims(t.strides)} of shape {_dims(t.shape)} "
                "are not a contiguous row-major view"
            )
        if rule is CallRule.NZ_OFFSET:
            return f"{head}storage offset {t.storage_offset}, expected 0 for an NZ tensor"
        if rule is CallRule.STORAGE_BOUNDS:
            if t.storage_offset < 0:
                return f"{head}storage offset {t.storage_offset} is negative"
            return (
                f"{head}the view (shape {_dims(t.shape)}, strides {_dims(t.strides)}, "
                f"offset {t.storage_offset} elements of {t.dtype.spelling}) "
                f"does not fit in {t.storage_bytes} bytes of storage"
            )
        if rule is CallRule.DEVICE:
            first = tensors[0].device_index if tensors else 0
            return f"{head}device {t.device_index}, expected device {first} (the first tensor's)"
        if rule is CallRule.OVERLAP:
            return (
                f"{head}partially overlaps another argument of the same storage, "
                "and one of them is written"
            )
        if rule is CallRule.DIM_MISMATCH or rule is CallRule.DIM_RANGE:
            return _explain_symbol(e, family, tensors, t)
    if v is not None:
        if rule is CallRule.SCALAR_TYPE:
            return f"{head}a {v.kind.spelling} value, expected {p.dtype.spelling}"
        if rule is CallRule.SCALAR_RANGE:
            return f"{head}{_scalar_text(v)} is outside the range of {p.dtype.spelling}"
        if rule is CallRule.FLOAT_OVERFLOW:
            return f"{head}{_scalar_text(v)} is beyond the largest finite {p.dtype.spelling}"
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
        text += f" ({here} here, {there} there)"
    elif here is not None:
        text += f" (passed {here})"
    return text
