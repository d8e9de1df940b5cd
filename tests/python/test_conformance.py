"""The shared conformance vectors (``tests/conformance/*.json``, docs/conformance.md), run
through the generated ``kfam`` package: every case must reach exactly its expected outcome.

Run by ``cargo test -p kfam-codegen --test integration python::``. By hand::

    PYTHONPATH=generated/python:python python3 -m pytest tests/python/test_conformance.py

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
    assert isinstance(e, ValueError) and str(e) == (
        "argument 2 (`out`): overlap: partially overlaps another argument of the same storage,"
        " and one of them is written"
    )
    assert str(kfam.CallError(kfam.CallRule.OVERLAP, 2)) == "argument 2: overlap"
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
    assert str(e) == (
        "argument 1 (`rhs`): dim_mismatch: symbol `rows` differs from its extent in `lhs`"
        " (48 here, 32 there)"
    )
    with pytest.raises(kfam.CallError) as call:
        kfam.validate_call(fam, [rows(24, 1), rows(24, 2), rows(24, 3)], [])
    assert (call.value.rule, call.value.param, call.value.symbol, call.value.other) == (
        kfam.CallRule.DIM_RANGE, 0, 0, None,
    )  # fmt: skip
    assert str(call.value) == (
        "argument 0 (`lhs`): dim_range: symbol `rows` must be at least 16 and a multiple of 16"
        " (passed 24)"
    )
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


# ------------------------------------------------------------ kernel context lifecycle

LIFECYCLE = DIR / "lifecycle" / "lifecycle.json"


def _lifecycle_cases() -> list[dict[str, object]]:
    import json

    data = json.loads(LIFECYCLE.read_text()) if LIFECYCLE.is_file() else {"cases": []}
    return cast("list[dict[str, object]]", data["cases"])


def _valid_args(family: kfam.Family) -> list[kfam.TensorArg]:
    """Every dynamic extent 2, contiguous, each tensor in its own storage (as the Rust runner)."""
    out = []
    for i, p in enumerate(family.params):
        if p.kind is not kfam.ParamKind.TENSOR:
            continue
        shape = [2 if d < 0 else d for d in p.shape]
        strides = [1] * len(shape)
        for k in range(len(shape) - 2, -1, -1):
            strides[k] = strides[k + 1] * shape[k + 1]
        out.append(
            kfam.TensorArg(
                p.dtype, tuple(shape), tuple(strides), 0, 1 << 32, (i + 1) << 40,
                kfam.StorageFormat.ND, 0,
            )
        )
    return out


def _document(step: dict[str, object]) -> tuple[bytes, str]:
    import json

    name = step.get("document")
    if not isinstance(name, str):
        return b"", "0" * 64
    path = DIR.parent.parent / "generated" / "schema" / "examples" / f"{name}.compiled_meta.json"
    doc = json.loads(path.read_text())
    sha = cast(str, doc["artifact"]["sha256"])
    patch = step.get("patch")
    if isinstance(patch, dict):
        doc.update(patch)
    given = step.get("sha256")
    return json.dumps(doc).encode(), given if isinstance(given, str) else sha


@pytest.mark.parametrize(
    "case", _lifecycle_cases(), ids=lambda c: cast(str, cast("dict[str, object]", c)["name"])
)
def test_lifecycle_vector(case: dict[str, object]) -> None:
    from kfam.context import Context, ContextError, Launch

    launches: list[Launch] = []
    returns = cast(int, case.get("launcher_returns", 0))

    def launcher(call: Launch) -> int:
        launches.append(call)
        return returns

    limit = case.get("max_prepared")
    ctx = Context(limit) if isinstance(limit, int) else Context()
    steps = cast("list[dict[str, object]]", case["steps"])
    errors = []
    for i, step in enumerate(steps):
        op = step["op"]
        before = len(launches)
        got: str
        try:
            if op == "init":
                gen = step.get("generation")
                ctx.init(
                    kfam.Platform.from_spelling(cast(str, step["platform"])),
                    kfam.ExecutionMode.from_spelling(cast(str, step["execution_mode"])),
                    kfam.Contract.from_spelling(cast(str, step["contract"])),
                    launcher,
                    cast("int | None", gen),
                )
                got = "ok"
            elif op == "generation":
                got = str(ctx.generation)
            elif op == "supported":
                ctx.supported(cast(str, step["family"]))
                got = "ok"
            elif op == "prepare":
                meta, sha = _document(step)
                cid = ctx.prepare(meta, sha)
                want_id = step.get("callable")
                got = f"callable {cid}" if want_id is not None and cid != want_id else "ok"
            elif op == "launch":
                cid = cast(int, step["callable"])
                fam = ctx.family_of(cid)
                tensors = _valid_args(fam) if step["args"] == "valid" and fam else []
                r = ctx.launch(cid, tensors, [], cast(int, step["stream"]))
                got = "launcher" if r == returns and len(launches) == before + 1 else str(r)
            elif op == "close":
                ctx.close()
                got = "ok"
            else:
                raise AssertionError(f"unknown op {op}")
        except ContextError as e:
            got = e.status.spelling
        want = step["expect"]
        if got != (want if isinstance(want, str) else str(want)):
            errors.append(f"step {i} ({op}): expected {want}, got {got}")
    if len(launches) != case["launches"]:
        errors.append(f"expected {case['launches']} launches, got {len(launches)}")
    assert not errors, "\n".join(errors)


def test_lifecycle_concurrent_prepare_and_launch() -> None:
    import threading

    from kfam.context import Context, Launch

    count = [0]
    lock = threading.Lock()

    def launcher(_call: Launch) -> int:
        with lock:
            count[0] += 1
        return 0

    docs = [_document({"document": d}) for d in ("silu_bf16.a2a3_sim", "swiglu_fused_bf16.a2a3_sim")]
    shared = Context()
    shared.init(kfam.Platform.A2A3, kfam.ExecutionMode.SIM, kfam.Contract.KERNEL, launcher)
    ids: list[tuple[str, int]] = []

    def work(t: int) -> None:
        for i in range(50):
            meta, sha = docs[(t + i) % 2]
            cid = shared.prepare(meta, sha)
            with lock:
                ids.append((sha, cid))
            fam = shared.family_of(cid)
            assert fam is not None
            assert shared.launch(cid, _valid_args(fam), [], i) == 0

    threads = [threading.Thread(target=work, args=(t,)) for t in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert count[0] == 200
    assert len(set(ids)) == 2


def test_the_docs_hold_the_context_example() -> None:
    """docs/python.md's context example is tests/python/context_example.py's, which runs."""
    from pathlib import Path

    from context_example import embed, silu_call

    here = Path(__file__).parent
    doc = (here.parent.parent / "docs" / "python.md").read_text(encoding="utf-8")
    marker = "<!-- example: tests/python/context_example.py -->\n```python\n"
    assert marker in doc, "docs/python.md does not mark the context example"
    example = doc.split(marker, 1)[1].split("```", 1)[0]
    source = (here / "context_example.py").read_text(encoding="utf-8")
    assert len(example.strip()) > 100 and example in source, (
        "docs/python.md's context example is not a verbatim part of context_example.py"
    )
    meta, sha = _document({"document": "silu_bf16.a2a3_sim"})
    embed(meta, sha, silu_call(), 42)
