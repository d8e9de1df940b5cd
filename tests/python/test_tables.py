"""The generated ``kfam`` package, checked in real Python against the Rust IR.

Run by ``cargo test -p kfam-codegen --test integration python::``, which generates the package into a
temporary directory, puts it and the runtime (``python/``) on ``PYTHONPATH`` and sets:

- ``KFAM_IR_JSON``: ``serde_json::to_string(&ir)`` of the manifest the package was made from;
- ``KFAM_VOCAB_JSON``: every vocabulary's ``[spelling, code]`` pairs and the dtype sizes;
- ``KFAM_PYTHON_DIR``: the directory ``kfam`` must be imported from.

Tests marked ``shipped`` hold only for the shipped ``manifest/``.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import os
import typing
from pathlib import Path
from typing import Any

import pytest

import kfam


def _env_json(var: str) -> Any:
    path = os.environ.get(var)
    if not path:
        raise RuntimeError(
            f"${var} is not set: run these tests through `cargo test -p kfam-codegen --test integration python::`"
        )
    return json.loads(Path(path).read_text(encoding="utf-8"))


IR: dict[str, Any] = _env_json("KFAM_IR_JSON")
VOCAB: dict[str, Any] = _env_json("KFAM_VOCAB_JSON")
FAMILIES_JSON: list[dict[str, Any]] = IR["families"]
RECEIPTS_JSON: list[tuple[str, dict[str, Any]]] = [
    (f["name"], r) for f in FAMILIES_JSON for r in f["receipts"]
]
VOCAB_CLASSES: dict[str, type[enum.IntEnum]] = {
    name: getattr(kfam, name) for name in VOCAB["codes"]
}


def to_json(value: object) -> object:
    """A record as the IR serialises it: enums by spelling, tuples as lists, operations tagged."""
    if isinstance(value, enum.Enum):
        assert isinstance(value, enum.IntEnum)
        return value.spelling
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        out = {f.name: to_json(getattr(value, f.name)) for f in dataclasses.fields(value)}
        if isinstance(value, typing.get_args(kfam.Operation)):
            out = {"kind": to_json(value.kind), **out}
        return out
    if isinstance(value, tuple):
        return [to_json(v) for v in value]
    return value


def assert_same(actual: object, expected: object, where: str) -> None:
    """Deep equality that also compares types (``True`` is not ``1``, ``1`` is not ``1.0``)."""
    assert type(actual) is type(expected), f"{where}: {actual!r} != {expected!r}"
    if isinstance(expected, dict):
        assert isinstance(actual, dict)
        assert sorted(actual) == sorted(expected), f"{where}: keys differ"
        for k in expected:
            assert_same(actual[k], expected[k], f"{where}.{k}")
    elif isinstance(expected, list):
        assert isinstance(actual, list)
        assert len(actual) == len(expected), f"{where}: {actual!r} != {expected!r}"
        for i, (a, e) in enumerate(zip(actual, expected)):
            assert_same(a, e, f"{where}[{i}]")
    else:
        assert actual == expected, f"{where}: {actual!r} != {expected!r}"


def test_imported_from_the_generated_directory() -> None:
    expected = os.environ.get("KFAM_PYTHON_DIR")
    assert expected, "$KFAM_PYTHON_DIR is not set"
    assert Path(kfam.__file__).resolve().parent.parent == Path(expected).resolve()


def test_families_in_ir_order() -> None:
    assert isinstance(kfam.FAMILIES, tuple)
    assert [f.name for f in kfam.FAMILIES] == [f["name"] for f in FAMILIES_JSON]
    assert [f.name for f in kfam.FAMILIES] == sorted(f.name for f in kfam.FAMILIES)


@pytest.mark.parametrize("fj", FAMILIES_JSON, ids=lambda f: str(f["name"]))
def test_family_matches_ir(fj: dict[str, Any]) -> None:
    fam = kfam.family(fj["name"])
    assert fam.name == fj["name"]
    assert fam.revision == fj["revision"]
    assert fam.identity == fj["identity"]
    assert len(fam.identity) == 64 and fam.identity == fam.identity.lower()
    assert fam.returns == tuple(fj["returns"])
    assert [p.name for p in fam.return_params] == [fj["params"][i]["name"] for i in fj["returns"]]
    assert len(fam.params) == len(fj["params"])
    for p, pj in zip(fam.params, fj["params"]):
        assert p.name == pj["name"]
        assert p.index == pj["index"]
        assert p.dtype is kfam.DType.from_spelling(pj["dtype"])
        assert p.shape == tuple(pj["shape"])
        assert p.lowered_shape == tuple(pj["lowered_shape"])
        assert p.pool_index == pj["pool_index"]
        assert fam.param(p.name) is p
    # Then everything else, field by field, with exact types.
    expected = {k: v for k, v in fj.items() if k != "source"}
    assert_same(to_json(fam), expected, fam.name)


def test_abi_constants() -> None:
    abi = IR["abi"]
    assert kfam.ABI_REVISION == abi["revision"]
    assert (kfam.ABI_MAJOR, kfam.ABI_MINOR) == (abi["major"], abi["minor"])
    assert kfam.MAX_TENSOR_ARGS == abi["max_tensor_args"]
    assert kfam.MAX_SCALAR_ARGS == abi["max_scalar_args"]
    assert kfam.MAX_RANK == abi["max_rank"]
    assert kfam.IDENTITY_FORMAT == VOCAB["identity_format"]


def test_status_has_the_abi_values() -> None:
    assert [(s.spelling, s.value) for s in kfam.Status] == [tuple(p) for p in IR["abi"]["status"]]
    assert kfam.Status.OK == 0


def test_lookup_by_name() -> None:
    for f in kfam.FAMILIES:
        assert kfam.family(f.name) is f
        assert kfam.find_family(f.name) is f
    assert kfam.find_family("no_such_family") is None
    with pytest.raises(KeyError, match="no_such_family"):
        kfam.family("no_such_family")
    if kfam.FAMILIES:
        name = kfam.FAMILIES[0].name
        assert kfam.find_family(name.upper()) is None
        assert kfam.find_family(f" {name}") is None


@pytest.mark.parametrize(("family_name", "rj"), RECEIPTS_JSON, ids=lambda v: str(v)[:16])
def test_lookup_by_artifact_digest(family_name: str, rj: dict[str, Any]) -> None:
    found = kfam.find_artifact(rj["sha256"])
    assert found is not None
    fam, profile, receipt = found
    assert fam is kfam.family(family_name)
    assert receipt in fam.receipts
    assert receipt.sha256 == rj["sha256"]
    assert profile is fam.profiles[rj["profile"]]
    assert receipt in fam.receipts_for(profile.name)
    # Exact match only: case, whitespace and prefixes are refused.
    assert kfam.find_artifact(rj["sha256"].upper()) is None
    assert kfam.find_artifact(rj["sha256"] + "\n") is None
    assert kfam.find_artifact(rj["sha256"][:63]) is None


def test_retired_families_match_ir() -> None:
    assert [to_json(r) for r in kfam.RETIRED] == IR["retired"]
    for r in kfam.RETIRED:
        assert kfam.find_retired(r.name) is r
        # A retired family is not approved: no lookup finds it or its artifacts.
        assert kfam.find_family(r.name) is None
        for digest in r.receipts:
            assert kfam.find_artifact(digest) is None
            assert kfam.find_retired_artifact(digest) is r
    assert kfam.find_retired("no_such_family") is None


def test_unknown_artifact_is_refused() -> None:
    assert kfam.find_artifact("0" * 64) is None
    assert kfam.find_artifact("") is None


def test_artifact_lookup_is_an_index(monkeypatch: pytest.MonkeyPatch) -> None:
    # The lookup reads the artifact index of the tables, not FAMILIES at call time.
    if not RECEIPTS_JSON:
        return
    monkeypatch.setattr(kfam, "FAMILIES", ())
    assert kfam.find_artifact(RECEIPTS_JSON[0][1]["sha256"]) is not None


@pytest.mark.parametrize(
    "row",
    [
        "[1]",
        '[1,"s",0,true,[0,0,0,1,2],[],[],[],[],"two",0,"i",null,[]]',
        '[1,"s",0,true,[99],[],[],[],[],2,0,"i",null,[]]',
        '[1,"s",0,true,[0,0,0,1,2],[["p",0]],[],[],[],2,0,"i",null,[]]',
        "{}",
    ],
)
def test_a_corrupt_row_is_refused(monkeypatch: pytest.MonkeyPatch, row: str) -> None:
    # Rows are decoded on first lookup: one that does not have the generator's layout is an
    # error naming _tables.py, never a half-built record.
    from kfam import _tables

    monkeypatch.setitem(_tables.FAMILY_ROWS, "kfam_corrupt", row)
    with pytest.raises(RuntimeError, match="kfam/_tables.py is corrupt"):
        kfam.find_family("kfam_corrupt")
    assert "kfam_corrupt" not in kfam.CATALOG._families


def test_vocabulary_codes_match_rust() -> None:
    for name, pairs in VOCAB["codes"].items():
        cls = VOCAB_CLASSES[name]
        assert [(m.spelling, m.value) for m in cls] == [tuple(p) for p in pairs], name


def test_vocabulary_spellings() -> None:
    for name, cls in VOCAB_CLASSES.items():
        for m in cls:
            assert cls.from_spelling(m.spelling) is m
            assert m.name == m.spelling.upper()
        with pytest.raises(ValueError):
            cls.from_spelling("no such member")
    with pytest.raises(ValueError):
        kfam.DType.from_spelling("BF16")
    with pytest.raises(ValueError):
        kfam.DType.from_spelling("bf16 ")


def test_dtype_codes_are_the_native_tags() -> None:
    native = [
        "fp32", "fp16", "int32", "int16", "int8", "uint8", "bf16", "int64",
        "uint64", "uint16", "uint32", "bool", "fp8e4m3fn", "fp8e8m0", "fp4",
    ]  # fmt: skip
    assert [(d.spelling, int(d)) for d in kfam.DType] == [(s, i) for i, s in enumerate(native)]
    assert {d.spelling: d.bits for d in kfam.DType} == VOCAB["dtype_bits"]
    assert kfam.DType.BF16 == 6 and isinstance(kfam.DType.BF16, int)


def test_records_are_frozen() -> None:
    assert kfam.FAMILIES, "the manifest has no family"
    fam = kfam.FAMILIES[0]
    records: list[object] = [fam, fam.params[0], fam.operation]
    for pr in fam.profiles:
        records.append(pr)
        records.extend(pr.bindings)
    for r in fam.receipts:
        records.extend([r, r.evidence])
    for rec in records:
        field = dataclasses.fields(rec)[0].name
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(rec, field, None)
        with pytest.raises((dataclasses.FrozenInstanceError, AttributeError, TypeError)):
            setattr(rec, "_kfam_extra", 1)
    for f in kfam.FAMILIES:
        for seq in (f.params, f.returns, f.profiles, f.receipts):
            assert isinstance(seq, tuple)
        for p in f.params:
            assert isinstance(p.shape, tuple) and isinstance(p.lowered_shape, tuple)
    assert hash(fam) == hash(kfam.family(fam.name))


def test_public_api_is_declared() -> None:
    for name in kfam.__all__:
        assert hasattr(kfam, name), name
    assert not [n for n in kfam.__all__ if n.startswith("_")]
    assert {"FAMILIES", "family", "find_family", "find_artifact", "Status"} <= set(kfam.__all__)


# ---------------------------------------------------------------- shipped manifest


@pytest.mark.shipped
def test_shipped_nz_and_fp4_lowering() -> None:
    mm = kfam.family("matmul_acc_nz_bf16")
    w = mm.param("w")
    assert (w.layout, w.dtype, w.shape, w.lowered_shape) == (
        kfam.Layout.NZ, kfam.DType.BF16, (64, 128), (1, 8, 4, 16, 16),
    )  # fmt: skip
    assert mm.returns == (2, 2)
    assert [p.name for p in mm.return_params] == ["acc", "acc"]
    assert mm.param("acc").direction is kfam.Direction.INOUT
    assert [(p.name, p.pool_index) for p in mm.params if not p.is_tensor] == [
        ("tile_rows", 0), ("alpha", 1),
    ]  # fmt: skip
    assert (mm.tensor_count, mm.scalar_count) == (3, 2)
    assert isinstance(mm.operation, kfam.Matmul)
    assert (mm.operation.m, mm.operation.accumulate) == (-1, True)

    fp4 = kfam.family("mul_fp4_dequant")
    assert fp4.contract is kfam.Contract.PROGRAM
    assert [p.lowered_shape for p in fp4.params] == [(-1, 128)] * 3
    assert isinstance(fp4.operation, kfam.ElementwiseBinary)
    assert fp4.operation.op is kfam.BinaryOp.MUL


@pytest.mark.shipped
def test_shipped_operation_payloads() -> None:
    pa = kfam.family("paged_attention_decode_bf16")
    op = pa.operation
    assert isinstance(op, kfam.PagedAttentionDecode) and op.kind is kfam.OperationKind.PAGED_ATTENTION_DECODE
    roles = (op.query, op.key_cache, op.value_cache, op.block_table, op.context_lens, op.out)
    assert [pa.params[i].name for i in roles] == [
        "query", "key_cache", "value_cache", "block_table", "context_lens", "out",
    ]  # fmt: skip
    assert op.scale == kfam.ScalarRef(constant=None, param=pa.param("scale").index)
    assert pa.param("block_table").dtype is kfam.DType.INT32

    norm = kfam.family("rms_norm_bf16_4096").operation
    assert isinstance(norm, kfam.Norm)
    assert (norm.op, norm.axis, norm.bias) == (kfam.NormKind.RMS_NORM, 1, None)
    assert norm.eps == kfam.ScalarRef(constant=1e-6, param=None)

    silu = kfam.family("silu_bf16").operation
    assert isinstance(silu, kfam.ElementwiseUnary) and silu.op is kfam.UnaryOp.SILU

    custom = kfam.family("swiglu_fused_bf16").operation
    assert isinstance(custom, kfam.Custom) and custom.kind is kfam.OperationKind.CUSTOM
    assert custom.semantics.startswith("out[r, c] = silu(gate[r, c]) * up[r, c]")


@pytest.mark.shipped
def test_shipped_bindings_and_receipts() -> None:
    add = kfam.family("add_bf16_1024")
    (profile,) = add.profiles
    assert (profile.platform, profile.runtime) == (kfam.Platform.XDNA2, kfam.Runtime.XRT_DIRECT)
    assert [(add.params[b.param].name, b.slot, b.kind) for b in profile.bindings] == [
        ("lhs", 0, kfam.BindingKind.BUFFER_OBJECT),
        ("rhs", 1, kfam.BindingKind.BUFFER_OBJECT),
        ("out", 2, kfam.BindingKind.BUFFER_OBJECT),
    ]
    found = kfam.find_artifact("5c1f0e3c8f0a4a57f0d7a3c2a7e1a4b0f6b3d5d8e2c9a1b7f4e6d3c2b1a09876")
    assert found is not None and found[0] is add and found[1] is profile
    assert found[2].codec == "xdna.generated_add.v1"
    mm = kfam.family("matmul_acc_nz_bf16")
    assert len(mm.receipts_for("a2a3_onboard")) == 1
    assert mm.receipts_for("no_such_profile") == ()
    with pytest.raises(KeyError):
        mm.profile("no_such_profile")
