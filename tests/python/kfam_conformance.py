#!/usr/bin/env python3
"""Run the shared conformance vectors (``tests/conformance/*.json``, see
``docs/conformance.md``) through the generated ``kfam`` package.

``test_conformance.py`` asserts every case's expected outcome with it. As a script it
prints one JSON line ``{"name": ..., "actual": {...}}`` per case of the files given (the
same shape as ``expect``), to compare the package with another runner by hand::

    PYTHONPATH=generated/python:python python3 tests/python/kfam_conformance.py tests/conformance/*.json
"""

from __future__ import annotations

import json
import math
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar, Union

import kfam

#: A JSON value of a vector file.
Json = Union[None, bool, int, float, str, list["Json"], dict[str, "Json"]]

#: The case kinds and the keys of their ``expect`` objects.
EXPECT_KEYS: dict[str, tuple[str, ...]] = {
    "call": ("status", "rule", "param", "symbol", "other", "message"),
    "capability": ("status", "outcome", "profile", "message"),
    "admission": ("status", "outcome", "field", "message"),
    "torch_schema": ("status", "schema"),
}

REPO = Path(__file__).resolve().parents[2]


def conformance_dir() -> Path:
    """``$KFAM_CONFORMANCE_DIR``, or ``tests/conformance`` of this checkout."""
    env = os.environ.get("KFAM_CONFORMANCE_DIR")
    return Path(env) if env else REPO / "tests" / "conformance"


class VectorError(Exception):
    """A vector file or case that does not follow docs/conformance.md."""


def _no_duplicates(pairs: list[tuple[str, Json]]) -> dict[str, Json]:
    out: dict[str, Json] = {}
    for k, v in pairs:
        if k in out:
            raise VectorError(f"duplicate key {k!r}")
        out[k] = v
    return out


def _no_constant(name: str) -> Json:
    raise VectorError(f"{name} is not JSON")


def _int(text: str) -> int | float:
    # serde_json reads `-0` as a float; keep it one, so `document` serialises as Rust's does.
    return -0.0 if text == "-0" else int(text)


def load_json(text: str) -> Json:
    """Strict JSON: duplicate keys and NaN/Infinity are errors."""
    value: Json = json.loads(
        text, object_pairs_hook=_no_duplicates, parse_constant=_no_constant, parse_int=_int
    )
    return value


@dataclass(frozen=True)
class Case:
    file: str
    name: str
    kind: str
    data: dict[str, Json]
    expect: dict[str, Json]


def _obj(v: Json, where: str) -> dict[str, Json]:
    if not isinstance(v, dict):
        raise VectorError(f"{where}: expected an object")
    return v


def _arr(v: Json, where: str) -> list[Json]:
    if not isinstance(v, list):
        raise VectorError(f"{where}: expected an array")
    return v


def _str(v: Json, where: str) -> str:
    if not isinstance(v, str):
        raise VectorError(f"{where}: expected a string")
    return v


def _integer(v: Json, where: str) -> int:
    if type(v) is not int:
        raise VectorError(f"{where}: expected an integer, got {v!r}")
    return v


def load_cases(directory: Path) -> list[Case]:
    """Every case of every ``*.json`` file of ``directory``, in file then case order.
    Case names must be unique across files."""
    cases: list[Case] = []
    seen: dict[str, str] = {}
    for path in sorted(directory.glob("*.json")):
        cases.extend(load_file(path, seen))
    return cases


def load_file(path: Path, seen: dict[str, str] | None = None) -> list[Case]:
    seen = {} if seen is None else seen
    try:
        top = _obj(load_json(path.read_text(encoding="utf-8")), path.name)
    except (ValueError, VectorError) as e:
        raise VectorError(f"{path}: {e}") from None
    if set(top) != {"cases"}:
        raise VectorError(f"{path.name}: the file is {{\"cases\": [...]}}")
    out = []
    for i, raw in enumerate(_arr(top["cases"], f"{path.name}: cases")):
        where = f"{path.name}: cases[{i}]"
        c = _obj(raw, where)
        name = _str(c.get("name"), f"{where}.name")
        kind = _str(c.get("kind"), f"{where}.kind")
        if name in seen:
            raise VectorError(f"{where}: case name {name!r} is also used in {seen[name]}")
        seen[name] = path.name
        if kind not in EXPECT_KEYS:
            raise VectorError(f"{where}: unknown kind {kind!r}")
        expect = _obj(c.get("expect"), f"{where}.expect")
        if tuple(sorted(expect)) != tuple(sorted(EXPECT_KEYS[kind])):
            raise VectorError(
                f"{where}: expect of a {kind} case has exactly the keys {EXPECT_KEYS[kind]}"
            )
        out.append(Case(path.name, name, kind, c, expect))
    return out


_V = TypeVar(
    "_V", kfam.DType, kfam.StorageFormat, kfam.Platform, kfam.ExecutionMode, kfam.Contract,
    kfam.ScalarValueKind,
)


def _spelled(cls: type[_V], v: Json, where: str) -> _V:
    text = _str(v, where)
    for member in cls:
        if member.spelling == text:
            return member
    raise VectorError(f"{where}: {text!r} is not a {cls.__name__}")


def _tensor(v: Json, where: str) -> kfam.TensorArg:
    t = _obj(v, where)
    keys = {"dtype", "shape", "strides", "storage_offset", "storage_bytes", "storage", "format",
            "device_index"}  # fmt: skip
    if set(t) != keys:
        raise VectorError(f"{where}: a tensor has exactly the keys {sorted(keys)}")
    try:
        return kfam.TensorArg(
            dtype=_spelled(kfam.DType, t["dtype"], f"{where}.dtype"),
            shape=tuple(_integer(d, f"{where}.shape") for d in _arr(t["shape"], where)),
            strides=tuple(_integer(d, f"{where}.strides") for d in _arr(t["strides"], where)),
            storage_offset=_integer(t["storage_offset"], f"{where}.storage_offset"),
            storage_bytes=_integer(t["storage_bytes"], f"{where}.storage_bytes"),
            storage=_integer(t["storage"], f"{where}.storage"),
            format=_spelled(kfam.StorageFormat, t["format"], f"{where}.format"),
            device_index=_integer(t["device_index"], f"{where}.device_index"),
        )
    except (TypeError, ValueError) as e:
        raise VectorError(f"{where}: {e}") from None


_FLOAT_WORDS: dict[str, float] = {"inf": math.inf, "-inf": -math.inf, "nan": math.nan}


def _scalar(v: Json, where: str) -> kfam.ScalarArg:
    s = _obj(v, where)
    if set(s) != {"kind", "value"}:
        raise VectorError(f"{where}: a scalar has exactly the keys kind, value")
    kind = _spelled(kfam.ScalarValueKind, s["kind"], f"{where}.kind")
    value = s["value"]
    if kind is kfam.ScalarValueKind.FLOAT:
        if isinstance(value, str) and value in _FLOAT_WORDS:
            value = _FLOAT_WORDS[value]
        elif type(value) is int:
            value = float(value)
    if not isinstance(value, (bool, int, float)):
        raise VectorError(f"{where}: value {value!r} is not a scalar")
    try:
        return kfam.ScalarArg(kind, value)
    except (TypeError, ValueError) as e:
        raise VectorError(f"{where}: {e}") from None


def _run_call(c: dict[str, Json]) -> dict[str, Json]:
    name = _str(c.get("family"), "family")
    fam = kfam.find_family(name)
    if fam is None:
        raise VectorError(f"call case names the unknown family {name!r}")
    tensors = [_tensor(t, f"tensors[{i}]") for i, t in enumerate(_arr(c.get("tensors"), "tensors"))]
    scalars = [_scalar(s, f"scalars[{i}]") for i, s in enumerate(_arr(c.get("scalars"), "scalars"))]
    try:
        kfam.validate_call(fam, tensors, scalars)
    except kfam.CallError as e:
        symbol = None if e.symbol is None else fam.symbols[e.symbol].name
        return {
            "status": e.status.spelling,
            "rule": e.rule.spelling,
            "param": e.param,
            "symbol": symbol,
            "other": e.other,
            "message": str(e),
        }
    return {
        "status": kfam.Status.OK.spelling,
        "rule": kfam.CallRule.OK.spelling,
        "param": None,
        "symbol": None,
        "other": None,
        "message": kfam.CallRule.OK.spelling,
    }


def _run_capability(c: dict[str, Json]) -> dict[str, Json]:
    try:
        s = kfam.capability(
            _str(c.get("family"), "family"),
            _spelled(kfam.Platform, c.get("platform"), "platform"),
            _spelled(kfam.ExecutionMode, c.get("execution_mode"), "execution_mode"),
            _spelled(kfam.Contract, c.get("contract"), "contract"),
        )
    except kfam.CapabilityError as e:
        return {
            "status": e.status.spelling,
            "outcome": e.outcome.spelling,
            "profile": None,
            "message": str(e),
        }
    return {
        "status": s.status.spelling,
        "outcome": s.outcome.spelling,
        "profile": s.profile.name,
        "message": str(s),
    }


def document_bytes(c: dict[str, Json]) -> bytes:
    """``document_text`` as UTF-8, or ``document`` serialised compactly (as serde_json does:
    no spaces, non-ASCII characters unescaped)."""
    if ("document" in c) == ("document_text" in c):
        raise VectorError("an admission case has exactly one of document, document_text")
    if "document_text" in c:
        return _str(c["document_text"], "document_text").encode("utf-8")
    return json.dumps(c["document"], separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def _run_admission(c: dict[str, Json]) -> dict[str, Json]:
    try:
        a = kfam.admit(document_bytes(c), _str(c.get("sha256"), "sha256"))
    except kfam.AdmissionError as e:
        return {
            "status": e.status.spelling,
            "outcome": e.outcome.spelling,
            "field": e.field,
            "message": str(e),
        }
    return {
        "status": a.status.spelling,
        "outcome": a.outcome.spelling,
        "field": None,
        "message": str(a),
    }


def _run_torch_schema(c: dict[str, Json]) -> dict[str, Json]:
    fam = kfam.find_family(_str(c.get("family"), "family"))
    if fam is None:
        return {"status": kfam.Status.NOT_FOUND.spelling, "schema": None}
    if fam.torch_schema is None:
        return {"status": kfam.Status.UNSUPPORTED.spelling, "schema": None}
    return {"status": kfam.Status.OK.spelling, "schema": fam.torch_schema}


RUNNERS: dict[str, Callable[[dict[str, Json]], dict[str, Json]]] = {
    "call": _run_call,
    "capability": _run_capability,
    "admission": _run_admission,
    "torch_schema": _run_torch_schema,
}


def run(case: Case) -> dict[str, Json]:
    """The outcome the package reaches, in the shape of ``case.expect``."""
    try:
        return RUNNERS[case.kind](case.data)
    except VectorError as e:
        raise VectorError(f"{case.file}: {case.name}: {e}") from None


def main(argv: list[str]) -> int:
    seen: dict[str, str] = {}
    for arg in argv:
        for case in load_file(Path(arg), seen):
            print(json.dumps({"name": case.name, "actual": run(case)}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
