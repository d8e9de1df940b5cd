#!/usr/bin/env python3
"""An example consumer of the generated ``kfam`` package (see docs/python.md).

    python3 consumer.py                       # families, capabilities, sample calls
    python3 consumer.py ARTIFACT...           # admit by SHA-256; exit 1 if one is refused
    python3 consumer.py --meta META ARTIFACT  # admit with its compiled_meta.json

CI type-checks this file with ``mypy --strict --disallow-any-expr`` against the generated
package: every value below has a precise type, none is ``Any``.
"""

from __future__ import annotations

import dataclasses
import hashlib
import sys
from pathlib import Path

import kfam


def signature(fam: kfam.Family) -> str:
    """``name(lhs: in bf16[rows, 256], ...) -> (out)``: symbols by name, ``?`` for ``-1``."""
    names = {(u.param, u.axis): s.name for s in fam.symbols for u in s.uses}

    def dims(p: kfam.Param) -> str:
        shown = (names.get((p.index, a), "?") if d == -1 else str(d) for a, d in enumerate(p.shape))
        return "[" + ", ".join(shown) + "]"

    args = ", ".join(
        f"{p.name}: {p.direction.spelling} {p.dtype.spelling}{dims(p) if p.is_tensor else ''}"
        for p in fam.params
    )
    returns = ", ".join(p.name for p in fam.return_params)
    return f"{fam.name}({args}) -> ({returns})"


def operation(op: kfam.Operation) -> str:
    """The operation payload in words; ``isinstance`` narrows the union."""
    if isinstance(op, kfam.Matmul):
        verb = "+=" if op.accumulate else "="
        return f"matmul [{op.m}, {op.k}] @ [{op.k}, {op.n}], c {verb} a @ b"
    if isinstance(op, kfam.ElementwiseBinary | kfam.ElementwiseUnary):
        return f"elementwise {op.op.spelling}"
    if isinstance(op, kfam.Reduce):
        return f"reduce {op.op.spelling} over axes {list(op.axes)}"
    if isinstance(op, kfam.Softmax):
        return f"softmax along axis {op.axis}"
    if isinstance(op, kfam.Norm):
        return f"{op.op.spelling} along axis {op.axis}, eps {scalar(op.eps)}"
    if isinstance(op, kfam.PagedAttentionDecode):
        return f"paged attention decode, {op.layout.spelling} caches, scale {scalar(op.scale)}"
    if isinstance(op, kfam.PackedAttentionPrefill):
        return f"packed attention prefill, causal {op.causal}, scale {scalar(op.scale)}"
    if isinstance(op, kfam.Rope):
        pairs = "adjacent" if op.interleaved else "halves"
        return f"rope of {op.rotary_dim} entries per head, pairs {pairs}"
    if isinstance(op, kfam.Linear):
        bias = "with" if op.bias is not None else "without"
        return f"linear, weight {op.weight_layout.spelling}, {bias} bias"
    if isinstance(op, kfam.DenseAttention):
        return f"dense attention, causal {op.causal}, scale {scalar(op.scale)}"
    return f"custom (unchecked): {op.semantics.splitlines()[0] if op.semantics else ''}"


def scalar(s: kfam.ScalarRef) -> str:
    """An ``eps`` or ``scale``: the constant, or the parameter index that carries it."""
    return f"param {s.param}" if s.param is not None else str(s.constant)


def slots(fam: kfam.Family, profile: kfam.Profile) -> dict[str, int]:
    """Final-ABI launch slot of each bound parameter, by name."""
    return {fam.params[b.param].name: b.slot for b in profile.bindings}


def storage_bytes(param: kfam.Param) -> int | None:
    """Bytes of a fully static tensor parameter, ``None`` when a dimension is dynamic."""
    if -1 in param.shape:
        return None
    elements = 1
    for d in param.shape:
        elements *= d
    return (elements * param.dtype.bits + 7) // 8


def admit(artifact: Path) -> tuple[kfam.Family, kfam.Profile, kfam.Receipt]:
    """The approval of ``artifact``; ``PermissionError`` when no receipt names its digest."""
    digest = hashlib.sha256(artifact.read_bytes()).hexdigest()
    found = kfam.find_artifact(digest)
    if found is None:
        status = kfam.Status.NOT_APPROVED
        raise PermissionError(f"{artifact}: not approved (sha256 {digest}, {status.spelling})")
    return found


def capability_line(fam: kfam.Family, profile: kfam.Profile) -> str:
    """The runtime's capability decision for a profile of ``fam``, in words."""
    try:
        found = kfam.capability(fam.name, profile.platform, profile.execution_mode, fam.contract)
    except kfam.CapabilityError as e:
        return f"refused: {e.outcome.spelling} (status {e.status.spelling})"
    return f"supported by {found.receipt.artifact} ({found.receipt.codec})"


def sample_arguments(fam: kfam.Family) -> tuple[list[kfam.TensorArg], list[kfam.ScalarArg]]:
    """A valid call of ``fam``: one contiguous storage per tensor, dynamic extents of 2, or
    for a named symbol the smallest extent of at least 2 its constraints accept."""
    extent: dict[tuple[int, int], int] = {}
    for s in fam.symbols:
        n = max(2, s.min)
        n += -n % s.multiple_of
        for u in s.uses:
            extent[(u.param, u.axis)] = n
    tensors: list[kfam.TensorArg] = []
    for p in fam.params:
        if not p.is_tensor:
            continue
        shape = tuple(extent.get((p.index, a), 2) if d == -1 else d for a, d in enumerate(p.shape))
        strides: list[int] = []
        step = 1
        for d in reversed(shape):
            strides.insert(0, step)
            step *= max(d, 1)
        nz = p.layout is kfam.Layout.NZ
        fmt = kfam.StorageFormat.FRACTAL_NZ if nz else kfam.StorageFormat.ND
        elements = 1
        for d in shape:
            elements *= d
        tensors.append(
            kfam.TensorArg(
                dtype=p.dtype,
                shape=shape,
                strides=tuple(strides),
                storage_offset=0,
                storage_bytes=(elements * p.dtype.bits + 7) // 8,
                storage=0x1000 * (p.pool_index + 1),
                format=fmt,
                device_index=0,
            )
        )
    scalars: list[kfam.ScalarArg] = []
    for p in fam.params:
        if p.is_tensor:
            continue
        if p.dtype is kfam.DType.BOOL:
            scalars.append(kfam.ScalarArg.of(True))
        elif p.dtype in (kfam.DType.FP32, kfam.DType.FP16, kfam.DType.BF16):
            scalars.append(kfam.ScalarArg.of(0.5))
        else:
            scalars.append(kfam.ScalarArg.of(1))
    return tensors, scalars


def call_line(fam: kfam.Family) -> str:
    """Validate a sample call, then the same call with every tensor on one storage."""
    tensors, scalars = sample_arguments(fam)
    try:
        kfam.validate_call(fam, tensors, scalars)
    except kfam.CallError as e:
        return f"sample call refused: {e}"
    shared = [dataclasses.replace(t, storage=1) for t in tensors]
    try:
        kfam.validate_call(fam, shared, scalars)
    except kfam.CallError as e:
        name = "-" if e.param is None else fam.params[e.param].name
        return f"sample call ok; on one storage: {e.rule.spelling} at {name}"
    return "sample call ok; on one storage: ok"


def describe() -> None:
    print(f"kfam ABI {kfam.ABI_MAJOR}.{kfam.ABI_MINOR} (native revision {kfam.ABI_REVISION[:12]})")
    for fam in kfam.FAMILIES:
        print(f"{signature(fam)}  [{fam.contract.spelling}, r{fam.revision}]")
        print(f"  {operation(fam.operation)}; identity {fam.identity[:16]}")
        for p in fam.params:
            size = storage_bytes(p) if p.is_tensor else None
            if size is not None:
                print(f"  {p.name}: {size} bytes, lowered {list(p.lowered_shape)}")
        for profile in fam.profiles:
            receipts = fam.receipts_for(profile.name)
            state = f"{len(receipts)} receipt(s)" if receipts else "not supported (no receipt)"
            mode = f"{profile.platform.spelling}/{profile.execution_mode.spelling}"
            print(f"  profile {profile.name} ({mode}): {state}, slots {slots(fam, profile)}")
            print(f"    capability: {capability_line(fam, profile)}")
        print(f"  {call_line(fam)}")
        print(f"  torch: {fam.torch_schema or 'no dispatcher schema'}")


def admit_with_meta(meta: Path, artifact: Path) -> int:
    """Admit ``artifact`` with its ``compiled_meta.json``; 1 when it is refused."""
    digest = hashlib.sha256(artifact.read_bytes()).hexdigest()
    try:
        admitted = kfam.admit(meta.read_bytes(), digest)
    except kfam.AdmissionError as e:
        print(f"{artifact}: refused, {e} (status {e.status.spelling})", file=sys.stderr)
        return 1
    fam, profile = admitted.family, admitted.profile
    contract = admitted.contract.spelling
    print(f"{artifact}: {fam.name} r{fam.revision} on {profile.name} as {contract}")
    return 0


def main(argv: list[str]) -> int:
    if not argv:
        describe()
        return 0
    if argv[0] == "--meta":
        if len(argv) != 3:
            print("usage: consumer.py --meta META ARTIFACT", file=sys.stderr)
            return 2
        return admit_with_meta(Path(argv[1]), Path(argv[2]))
    refused = 0
    for arg in argv:
        try:
            fam, profile, receipt = admit(Path(arg))
        except PermissionError as e:
            print(e, file=sys.stderr)
            refused += 1
            continue
        print(f"{arg}: {fam.name} r{fam.revision} on {profile.name} ({receipt.codec})")
    return 1 if refused else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
