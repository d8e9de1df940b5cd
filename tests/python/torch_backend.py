"""A PyTorch backend registering the approved kfam families (docs/torch.md).

Every family that requests a torch binding gets its schema and fake kernel from
``kfam.torch.define``, in a library this module owns, and a real kernel: the call adapter
below, which checks what only real tensors tell (``kfam.validate_call``: storage bounds,
overlap, physical format) and then launches the approved artifact. Launching is the
backend's own business; here it is a stub that records the call.

Run it (``PYTHONPATH=generated/python:python python3 tests/python/torch_backend.py``) to register
the families under ``kfam_example``, trace each one with fake tensors, compile one with
``torch.compile`` and send a call through the adapter. The tests run it and type-check it
with ``mypy --strict``.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

import torch
from torch._subclasses.fake_tensor import FakeTensorMode
from torch.library import Library

import kfam
import kfam.torch

if TYPE_CHECKING:
    from torch._ops import OpOverload

#: The calls the stub launcher received: (family, tensor count, scalars).
LAUNCHED: list[tuple[str, int, list[kfam.ScalarArg]]] = []


def adapter(family: kfam.Family) -> Any:
    """The real kernel of ``family``: validate the concrete call, then launch."""

    def kernel(*args: Any) -> None:
        # A CPU tensor cannot say it is NZ-blocked: this example takes an NZ parameter's tensor
        # to be pre-blocked, as `tensor_arg` does; a backend with physical formats (torch_npu)
        # passes its tensor's own.
        tensors = [kfam.torch.tensor_arg(a, p) for a, p in zip(args, family.params) if p.is_tensor]
        scalars = [kfam.ScalarArg.of(a) for a, p in zip(args, family.params) if not p.is_tensor]
        kfam.validate_call(family, tensors, scalars)  # raises kfam.CallError
        LAUNCHED.append((family.name, len(tensors), scalars))  # the backend's launch goes here

    return kernel


def register(namespace: str, dispatch_key: str = "CPU") -> tuple[Library, dict[str, OpOverload]]:
    """Define every torch family of the manifest in ``namespace``. Keep the returned library
    alive for as long as the operators are used: destroying it unregisters them."""
    lib = Library(namespace, "FRAGMENT")
    ops: dict[str, OpOverload] = {}
    for family in kfam.FAMILIES:
        if not family.torch:
            continue
        ops[family.name] = kfam.torch.define(lib, family)  # mutation-only schema + fake kernel
        lib.impl(family.name, adapter(family), dispatch_key)
    return lib, ops


def example_args(family: kfam.Family, rows: int, device: str) -> list[Any]:
    """Zero tensors of the family's shapes (dynamic extents: ``rows``); scalars 1, 1.0, True."""
    args: list[Any] = []
    for p in family.params:
        if p.is_tensor:
            shape = [d if isinstance(d, int) and d >= 0 else rows for d in p.shape]
            args.append(torch.zeros(shape, dtype=kfam.torch.torch_dtype(p.dtype), device=device))
        else:
            dtype = kfam.torch.torch_dtype(p.dtype)
            args.append(True if dtype == torch.bool else 1.0 if dtype.is_floating_point else 1)
    return args


def main() -> int:
    lib, ops = register("kfam_example")
    for name, op in ops.items():
        family = kfam.family(name)
        print(op._schema)
        with FakeTensorMode() as mode:
            fake_args = [
                mode.from_tensor(a) if isinstance(a, torch.Tensor) else a
                for a in example_args(family, 16, "cpu")
            ]
            op(*fake_args)  # the fake kernel: validated, nothing launched
        args = example_args(family, 16, "cpu")
        op(*args)  # eager: the adapter validates and launches
    first = next(iter(ops.values()))
    family = kfam.family(next(iter(ops)))
    written = [p.index for p in family.params if p.direction is not kfam.Direction.IN]

    def step(*args: Any) -> list[torch.Tensor]:
        first(*args)
        return [args[i] for i in written]

    compiled = torch.compile(step, backend="aot_eager", fullgraph=True, dynamic=True)
    compiled(*example_args(family, 16, "cpu"))
    for name, tensors, scalars in LAUNCHED:
        print(f"launched {name}: {tensors} tensors, scalars {[s.value for s in scalars]}")
    del lib  # unregisters every operator
    return 0


if __name__ == "__main__":
    sys.exit(main())
