"""The shared conformance vectors (``tests/conformance/*.json``, docs/conformance.md), run
through the generated ``kfam`` package: every case must reach exactly its expected outcome.

Run by ``cargo test -p kfam-codegen --test python``. By hand::

    PYTHONPATH=generated/python python3 -m pytest tests/python/test_conformance.py

``$KFAM_CONFORMANCE_DIR`` overrides the vector directory (default: ``tests/conformance`` of
this checkout). A directory without vectors is a failure, never a skip.

Below the vectors, a few checks of the Python API itself (types, errors, pickling) that
the language-neutral vectors cannot express.
"""

from __future__ import annotations

import math
import pickle
from typing import cast

import pytest

import kfam
from kfam_conformance import Case, conformance_dir, load_cases, run

DIR = conformance_dir()
CASES: list[Case] = load_cases(DIR) if DIR.is_dir() else []


def test_the_conformance_directory_has_vectors() -> None:
    assert DIR.is_dir(), f"no conformance directory at {DIR} (set $KFAM_CONFORMANCE_DIR)"
    assert CASES, f"no conformance vectors in {DIR}/*.json"
    assert {c.kind for c in CASES} >= {"call", "capability", "admission", "torch_schema"}


@pytest.mark.parametrize(
    "case",
    CASES or [pytest.param(None, id="no-vectors")],
    ids=lambda c: c.name if isinstance(c, Case) else "no-vectors",
)
def test_vector(case: Case | None) -> None:
    assert case is not None, f"no conformance vectors in {DIR}"
    actual = run(case)
    assert actual == case.expect, f"{case.file}: {case.name}: got {actual}, expected {case.expect}"


# ---------------------------------------------------------------- the Python API


def _tensor(storage: int, **changes: object) -> kfam.TensorArg:
    fields: dict[str, object] = dict(
        dtype=kfam.DType.BF16, shape=(1024,), strides=(1,), storage_offset=0,
        storage_bytes=2048, storage=storage, format=kfam.StorageFormat.ND, device_index=0,
    )  # fmt: skip
    fields.update(changes)
    return kfam.TensorArg(**fields)  # type: ignore[arg-type]


@pytest.mark.shipped
def test_outcomes_carry_their_status() -> None:
    s = kfam.capability(
        "add_bf16_1024", kfam.Platform.XDNA2, kfam.ExecutionMode.ONBOARD, kfam.Contract.KERNEL
    )
    assert (s.outcome, s.status, s.profile.name) == (
        kfam.Capability.SUPPORTED, kfam.Status.OK, "xdna2_onboard",
    )  # fmt: skip
    assert s.receipt in s.family.receipts
    with pytest.raises(kfam.CapabilityError) as cap:
        kfam.capability("nope", kfam.Platform.A5, kfam.ExecutionMode.SIM, kfam.Contract.KERNEL)
    assert (cap.value.outcome, cap.value.status) == (
        kfam.Capability.UNKNOWN_FAMILY, kfam.Status.NOT_FOUND,
    )  # fmt: skip
    assert isinstance(cap.value, kfam.KfamError)

    fam = kfam.family("add_bf16_1024")
    with pytest.raises(kfam.CallError) as call:
        kfam.validate_call(fam, [_tensor(1), _tensor(2), _tensor(1, storage_offset=1,
                                                                 storage_bytes=4096)], [])
    e = call.value
    assert (e.rule, e.param, e.status) == (kfam.CallRule.OVERLAP, 2, kfam.Status.INVALID_ARGUMENT)
    assert isinstance(e, ValueError) and str(e) == "argument 2: overlap"
    kfam.validate_call(fam, [_tensor(1), _tensor(2), _tensor(3)], [])


@pytest.mark.shipped
def test_symbol_errors_name_the_symbol_and_both_parameters() -> None:
    fam = kfam.family("add_bf16_rows")
    assert [(s.name, s.min, s.max, s.multiple_of) for s in fam.symbols] == [("rows", 16, None, 16)]
    assert [(u.param, u.axis) for u in fam.symbols[0].uses] == [(0, 0), (1, 0), (2, 0)]

    def rows(n: int, storage: int) -> kfam.TensorArg:
        return _tensor(storage, shape=(n, 256), strides=(256, 1), storage_bytes=n * 512)

    with pytest.raises(kfam.CallError) as call:
        kfam.validate_call(fam, [rows(32, 1), rows(48, 2), rows(32, 3)], [])
    e = call.value
    assert (e.rule, e.param, e.symbol, e.other) == (kfam.CallRule.DIM_MISMATCH, 1, 0, 0)
    assert str(e) == "argument 1: dim_mismatch: symbol `rows` is 48 in `rhs` but 32 in `lhs`"
    with pytest.raises(kfam.CallError) as call:
        kfam.validate_call(fam, [rows(24, 1), rows(24, 2), rows(24, 3)], [])
    assert (call.value.rule, call.value.param, call.value.symbol, call.value.other) == (
        kfam.CallRule.DIM_RANGE, 0, 0, None,
    )  # fmt: skip
    assert "symbol `rows` is 24 in `lhs`" in str(call.value)
    back = pickle.loads(pickle.dumps(call.value))
    assert (back.symbol, back.other, str(back)) == (0, None, str(call.value))
    kfam.validate_call(fam, [rows(32, 1), rows(32, 2), rows(32, 3)], [])


def test_errors_pickle_and_compare_by_fields() -> None:
    for err in (
        kfam.CallError(kfam.CallRule.SHAPE, 3),
        kfam.CallError(kfam.CallRule.ARG_COUNT),
        kfam.AdmissionError(kfam.Admission.NOT_APPROVED, "params"),
        kfam.CapabilityError(kfam.Capability.NO_PROFILE),
    ):
        back = pickle.loads(pickle.dumps(err))
        assert type(back) is type(err) and str(back) == str(err)
        assert back.status is err.status
    assert str(kfam.AdmissionError(kfam.Admission.NOT_APPROVED, "params")) == (
        "not_approved (`params` differs)"
    )


def test_every_outcome_has_a_status() -> None:
    for rule in kfam.CallRule:
        if rule is not kfam.CallRule.OK:
            assert kfam.CallError(rule).status is kfam.Status.INVALID_ARGUMENT
    for a in kfam.Admission:
        if a is not kfam.Admission.ADMITTED:
            assert isinstance(kfam.AdmissionError(a).status, kfam.Status)
    for c in kfam.Capability:
        if c is not kfam.Capability.SUPPORTED:
            assert isinstance(kfam.CapabilityError(c).status, kfam.Status)


def test_admission_size_bound() -> None:
    assert kfam.MAX_DOCUMENT_BYTES == 1 << 20
    doc = b'{"schema": 3, "params": [], "platform": "a5", "backend": "pto"}'
    sha = "0" * 64
    # Within the bound the document is read (and, lacking schema 3 fields, malformed for
    # that reason); one byte over, it is refused before parsing.
    padded = doc + b" " * (kfam.MAX_DOCUMENT_BYTES - len(doc))
    with pytest.raises(kfam.AdmissionError) as within:
        kfam.admit(padded, sha)
    assert within.value.outcome is kfam.Admission.MALFORMED
    legacy = b'{"schema": 2, "params": [], "return_count": 0, "platform": "a5", "backend": "pto"}'
    legacy_padded = legacy + b"\n" * (kfam.MAX_DOCUMENT_BYTES - len(legacy))
    with pytest.raises(kfam.AdmissionError) as unknown:
        kfam.admit(legacy_padded, sha)
    assert (unknown.value.outcome, unknown.value.field) == (
        kfam.Admission.NOT_APPROVED, "artifact.sha256",
    )  # fmt: skip
    with pytest.raises(kfam.AdmissionError) as over:
        kfam.admit(legacy_padded + b" ", sha)
    assert (over.value.outcome, over.value.field) == (kfam.Admission.MALFORMED, None)


@pytest.mark.parametrize(
    "text",
    [
        b"\xff",  # not UTF-8
        b'{"schema": 2, "params": [], "return_count": 0, "platform": "a5", "backend": "\xc3"}',
        b"\xef\xbb\xbf{}",  # a byte order mark
        b'{"schema": 2}' + b"\x00",
        b"[" * 100_000 + b"]" * 100_000,  # deeper than any parser's recursion
        b'{"schema": 2, "params": [], "return_count": 0, "platform": "a5", "backend": "pto",'
        b' "$comment": "\t"}',  # a raw control character in a string
    ],
)
def test_admission_refuses_bytes_that_are_not_json(text: bytes) -> None:
    with pytest.raises(kfam.AdmissionError) as e:
        kfam.admit(text, "0" * 64)
    assert e.value.outcome is kfam.Admission.MALFORMED


def test_admission_accepts_bytes_like_and_refuses_text() -> None:
    doc = b'{"schema": 2, "params": [], "return_count": 0, "platform": "a5", "backend": "pto"}'
    for form in (bytearray(doc), memoryview(doc)):
        with pytest.raises(kfam.AdmissionError) as e:
            kfam.admit(form, "0" * 64)
        assert e.value.field == "artifact.sha256"
    with pytest.raises(TypeError):
        kfam.admit(doc.decode(), "0" * 64)  # type: ignore[arg-type]


def test_arguments_outside_the_native_types_are_refused() -> None:
    with pytest.raises(ValueError):
        _tensor(1, storage_offset=1 << 63)
    with pytest.raises(ValueError):
        _tensor(1, storage_bytes=-1)
    with pytest.raises(ValueError):
        _tensor(1, device_index=1 << 31)
    with pytest.raises(TypeError):
        _tensor(1, shape=(1024.0,))
    with pytest.raises(TypeError):
        _tensor(1, strides=(True,))
    with pytest.raises(TypeError):
        _tensor(1, dtype="bf16")
    assert _tensor(1, shape=[1024], strides=[1]).shape == (1024,)
    with pytest.raises(TypeError):
        kfam.ScalarArg(kfam.ScalarValueKind.INT, True)
    with pytest.raises(TypeError):
        kfam.ScalarArg(kfam.ScalarValueKind.FLOAT, 1)
    with pytest.raises(ValueError):
        kfam.ScalarArg(kfam.ScalarValueKind.UINT, -1)
    with pytest.raises(ValueError):
        kfam.ScalarArg.of(1 << 64)
    assert kfam.ScalarArg.of(True).kind is kfam.ScalarValueKind.BOOL
    assert kfam.ScalarArg.of(-1).kind is kfam.ScalarValueKind.INT
    assert kfam.ScalarArg.of(1 << 63).kind is kfam.ScalarValueKind.UINT
    assert kfam.ScalarArg.of(math.inf).kind is kfam.ScalarValueKind.FLOAT
    with pytest.raises(TypeError):
        not_a_platform = cast(kfam.Platform, "xdna2")
        kfam.capability(
            "add_bf16_1024", not_a_platform, kfam.ExecutionMode.ONBOARD, kfam.Contract.KERNEL
        )


def test_arguments_are_frozen() -> None:
    t = _tensor(1)
    with pytest.raises(AttributeError):
        t.storage = 2  # type: ignore[misc]
    assert t == _tensor(1) and hash(t) == hash(_tensor(1))
