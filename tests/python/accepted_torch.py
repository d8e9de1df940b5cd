"""Every torch family of each generated package, defined with ``kfam.torch.define`` into a
fresh library and checked with ``torch.library.opcheck`` (run by ``codegen/tests/accepted.rs``
with the directories that hold the packages, one per seed, as arguments: one interpreter, which
imports PyTorch once, for every seed). Prints ``opcheck: N`` per package, the number of families
checked, in the order of the arguments.

The CPU kernel writes nothing (its outputs keep their values): the checks are of the schema,
the fake kernel and the dispatcher, not of the arithmetic. Sample arguments honour each
symbol's ``[dims]`` constraints, so the call is one the family admits.
"""

from __future__ import annotations

import importlib
import sys
from types import ModuleType
from typing import Any

import torch
from torch.library import Library

#: The seed's ``kfam`` package being checked, and its ``kfam.torch`` (``load``).
kfam: Any = None
kt: Any = None


def symbol_extents(fam: kfam.Family) -> dict[tuple[int, int], int]:
    """The extent each symbol use takes: the smallest admitted one that is at least 2."""
    out: dict[tuple[int, int], int] = {}
    for s in fam.symbols:
        m = s.multiple_of
        value = max(s.min, 2)
        value = -(-value // m) * m
        if s.max is not None and value > s.max:
            value = -(-s.min // m) * m or m
        for use in s.uses:
            out[(use.param, use.axis)] = value
    return out


def tensor(p: kfam.Param, shape: list[int], device: str) -> torch.Tensor:
    dtype = kt.torch_dtype(p.dtype)
    if p.dtype is kfam.DType.FP4:
        shape = shape[:-1] + [shape[-1] // 2]
        return torch.empty(shape, dtype=dtype, device=device)
    if dtype.itemsize == 1 and dtype.is_floating_point:
        return torch.zeros(shape, dtype=torch.uint8, device=device).view(dtype)
    return torch.zeros(shape, dtype=dtype, device=device)


def sample(fam: kfam.Family, device: str = "cpu") -> list[Any]:
    fixed = symbol_extents(fam)
    args: list[Any] = []
    for p in fam.params:
        if p.is_tensor:
            shape = [
                fixed.get((p.index, axis), 2 if d < 0 else d) for axis, d in enumerate(p.shape)
            ]
            args.append(tensor(p, shape, device))
        elif p.dtype is kfam.DType.BOOL:
            args.append(True)
        elif p.dtype.spelling.startswith(("fp", "bf")):
            args.append(0.5)
        else:
            args.append(1)
    return args


EVERY_CHECK = (
    "test_schema",
    "test_autograd_registration",
    "test_faketensor",
    "test_aot_dispatch_dynamic",
)


def checks(fam: kfam.Family) -> tuple[str, ...]:
    """opcheck's checks for ``fam``: all of them, except ``test_schema`` over 8-bit floats,
    whose mutation check compares tensors with ``torch.allclose``, which PyTorch does not
    implement for those dtypes on CPU (a limit of the checking tool, not of the operator:
    the fake-tensor and dispatch checks still run)."""
    dtypes = {p.dtype for p in fam.params if p.is_tensor}
    if kfam.DType.FP4 in dtypes:
        # PyTorch cannot copy a packed fp4 tensor on CPU (`clone` is not implemented), which
        # every opcheck check does: the operator is called on meta tensors instead (its fake
        # kernel), see ``main``.
        return ()
    if dtypes & {kfam.DType.FP8E4M3FN, kfam.DType.FP8E8M0}:
        return tuple(c for c in EVERY_CHECK if c != "test_schema")
    return EVERY_CHECK


def load(package_dir: str) -> tuple[ModuleType, ModuleType]:
    """``kfam`` and ``kfam.torch`` from ``package_dir``, in place of any other seed's package."""
    for name in [m for m in sys.modules if m == "kfam" or m.startswith("kfam.")]:
        del sys.modules[name]
    sys.path.insert(0, package_dir)
    try:
        return importlib.import_module("kfam"), importlib.import_module("kfam.torch")
    finally:
        sys.path.remove(package_dir)


def check_package(package_dir: str, lib: Library) -> int:
    """Defines and checks every torch family of the ``kfam`` loaded from ``package_dir`` into
    ``lib``: the number checked, or -1 after printing the failure."""
    checked = 0
    for fam in kfam.FAMILIES:
        if not fam.torch:
            continue
        op = kt.define(lib, fam)
        lib.impl(fam.name, lambda *args: None, "CPU")
        wanted = checks(fam)
        if not wanted:
            op(*sample(fam, "meta"))
            checked += 1
            continue
        args = sample(fam)
        result = torch.library.opcheck(op, args, test_utils=wanted)
        bad = {k: v for k, v in result.items() if v != "SUCCESS"}
        if bad:
            print(f"{package_dir}: {fam.name}: {bad}", file=sys.stderr)
            return -1
        checked += 1
    return checked


def main() -> int:
    global kfam, kt
    libraries = []
    for i, package_dir in enumerate(sys.argv[1:]):
        kfam, kt = load(package_dir)
        # A namespace per package: seeds may name their families alike.
        libraries.append(Library(f"kfam_accepted_{i}", "FRAGMENT"))
        checked = check_package(package_dir, libraries[-1])
        if checked < 0:
            return 1
        print(f"opcheck: {checked}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
