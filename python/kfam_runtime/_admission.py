"""Admission of ``compiled_meta.json`` against a catalog's tables.

The same decisions, in the same order, as the Rust crate ``kfam-runtime``
(``runtime/src/admission.rs``); the shared conformance vectors (``tests/conformance/*.json``)
hold both to it. The document is read as ``serde_json`` reads it (strict JSON, no duplicate or
unknown keys), by the reader below. Refusals are the runtime's ``AdmissionError``, which
``Catalog.admit`` raises again as the catalog's own class.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Final, Protocol, TypeAlias, TypeVar, Union

from ._call import _require
from ._errors import AdmissionError
from ._shared import MAX_COMMENT_CHARS, MAX_DOCUMENT_BYTES
from .records import Family, Param, Profile, Receipt, Retired
from .vocab import (
    Admission,
    Backend,
    Contract,
    DType,
    Direction,
    Layout,
    ParamKind,
    Platform,
    Status,
    Targets,
    Vocab,
)


class Tables(Protocol):
    """What admission reads of a catalog (``kfam_runtime.Catalog`` is one). A protocol, so that
    admission does not import the catalog that calls it."""

    @property
    def targets(self) -> Targets: ...
    @property
    def abi_revision(self) -> str: ...
    @property
    def ok(self) -> Status: ...
    def find_family(self, name: str) -> Family | None: ...
    def find_artifact(self, sha256: str) -> tuple[Family, Profile, Receipt] | None: ...
    def find_retired_artifact(self, sha256: str) -> Retired | None: ...
    def is_retired(self, name: str) -> bool: ...


_V = TypeVar("_V", bound=Vocab)

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
        if len(_text(comment, "$comment")) > MAX_COMMENT_CHARS:
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
    #: The C ABI status of the decision: the catalog's ``Status.OK``.
    status: Status

    @property
    def outcome(self) -> Admission:
        return Admission.ADMITTED

    def __str__(self) -> str:
        """The decision in words, as Rust's ``Admitted`` and ``kfam_admit_message`` write it."""
        fam = self.family
        return f"{Admission.ADMITTED.spelling}: `{fam.name}` revision {fam.revision}"


def admit(catalog: Tables, document: bytes | bytearray | memoryview, sha256: str) -> Admitted:
    """Admit an artifact against ``catalog``'s tables: ``document`` is its ``compiled_meta.json``
    (the exact bytes), ``sha256`` the artifact's SHA-256 (lowercase hex). Raises the runtime's
    ``AdmissionError``, which the catalog raises again as its own.

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
    targets = catalog.targets
    platform = _vocab(doc.platform, _spellings(targets.platform), "platform")
    backend = _vocab(doc.backend, _spellings(targets.backend), "backend")
    for p in doc.params:
        _param_view(p, "params")
    for p in doc.lowered_params or ():
        _param_view(p, "lowered_params")
    if doc.schema in (1, 2):
        return _admit_legacy(catalog, doc, platform, backend, sha256)
    if doc.schema == 3:
        return _admit_v3(catalog, doc, platform, backend, sha256)
    raise _malformed("schema", None, "is not 1, 2 or 3")


def _differs(field: str) -> AdmissionError:
    return AdmissionError(Admission.NOT_APPROVED, field)


def is_placeholder_digest(sha256: str) -> bool:
    """Whether ``sha256`` is a placeholder digest: its first 32 hex digits are zeros, as in the
    receipt ``kfam new`` and ``kfam init`` write before a family is qualified. No artifact is
    expected to have one, so admission refuses it even where the catalog still holds the
    placeholder receipt (``kfam_runtime::admission::is_placeholder_digest``)."""
    return len(sha256) == 64 and sha256.startswith("0" * 32)


def _check_not_placeholder(sha256: str) -> None:
    if is_placeholder_digest(sha256):
        raise AdmissionError(
            Admission.NOT_APPROVED,
            "artifact.sha256",
            "`artifact.sha256` is a placeholder digest (32 leading zeros, as `kfam new` writes), "
            "which approves no artifact: qualify the artifact and record its receipt",
        )


def _admit_legacy(
    catalog: Tables, doc: _Doc, platform: Platform, backend: Backend, sha256: str
) -> Admitted:
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
    _check_not_placeholder(sha256)
    found = catalog.find_artifact(sha256)
    if found is None:
        if catalog.find_retired_artifact(sha256) is not None:
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
    return Admitted(fam, profile, receipt, Contract.PROGRAM, catalog.ok)


def _admit_v3(
    catalog: Tables, doc: _Doc, platform: Platform, backend: Backend, sha256: str
) -> Admitted:
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
    modes = _spellings(catalog.targets.execution_mode)
    runtime = _vocab(doc.runtime, _spellings(catalog.targets.runtime), "runtime")
    mode = _vocab(doc.execution_mode, modes, "execution_mode")
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
        or _vocab(cap.execution_mode, modes, "execution_mode", "capabilities") is not mode
    ):
        raise AdmissionError(Admission.RECOMPILE_REQUIRED)

    # Built against another native runtime: its entry ABI cannot be trusted.
    if abi_revision != catalog.abi_revision:
        raise AdmissionError(Admission.PREPARED_INCOMPATIBLE)
    fam = catalog.find_family(doc.family)
    if fam is None:
        raise AdmissionError(
            Admission.RETIRED if catalog.is_retired(doc.family) else Admission.UNKNOWN_FAMILY
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
    _check_not_placeholder(sha256)
    receipt = next(
        (r for r in fam.receipts if r.profile == profile_index and r.sha256 == sha256), None
    )
    if receipt is None:
        raise _differs("artifact.sha256")
    if artifact.path != receipt.artifact:
        raise _differs("artifact.path")
    return Admitted(fam, profile, receipt, contract, catalog.ok)
