#!/usr/bin/env python3
"""An example consumer of the generated ``kfam`` package (see docs/python.md).

    python3 consumer.py              # list the approved families and their profiles
    python3 consumer.py ARTIFACT...  # admit artifacts by SHA-256; exit 1 if one is refused

CI type-checks this file with ``mypy --strict --disallow-any-expr`` against the generated
package: every value below has a precise type, none is ``Any``.
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import kfam


def signature(fam: kfam.Family) -> str:
    """``name(lhs: in bf16[1024], ...) -> (out)``, with ``?`` for dynamic extents."""

    def dims(shape: tuple[int, ...]) -> str:
        return "[" + ", ".join("?" if d == -1 else str(d) for d in shape) + "]"

    args = ", ".join(
        f"{p.name}: {p.direction.spelling} {p.dtype.spelling}{dims(p.shape) if p.is_tensor else ''}"
        for p in fam.params
    )
    returns = ", ".join(p.name for p in fam.return_params)
    return f"{fam.name}({args}) -> ({returns})"


def operation(op: kfam.Operation) -> str:
    """The operation payload in words; ``isinstance`` narrows the union."""
    if isinstance(op, kfam.Matmul):
        verb = "+=" if op.accumulate else "="
        return f"matmul [{op.m}, {op.k}] @ [{op.k}, {op.n}], c {verb} a @ b"
    return f"elementwise {op.op.spelling}"


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


def main(argv: list[str]) -> int:
    if not argv:
        describe()
        return 0
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
