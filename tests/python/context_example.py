"""The kernel context embedded with a fake launcher. docs/python.md shows this file from
``import kfam`` to the end of ``embed`` verbatim; tests/python/test_conformance.py checks that
and runs ``embed`` on silu_bf16's a2a3 sim artifact with ``silu_call()``."""

from __future__ import annotations

import kfam
from kfam.context import Context, ContextError, Launch


def embed(compiled_meta: bytes, sha256: str, tensors: list[kfam.TensorArg], stream: int) -> None:
    launches: list[Launch] = []

    def launcher(call: Launch) -> int:
        launches.append(call)  # call.family, call.tensors, call.stream, ...
        return 7  # the runtime's own status: launch() returns it unchanged

    ctx = Context(max_prepared=8)  # Context() holds kfam.MAX_PREPARED (abi.toml)
    ctx.init(kfam.Platform.A2A3, kfam.ExecutionMode.SIM, kfam.Contract.KERNEL, launcher)
    assert ctx.generation >= 1  # the next number of the process-wide counter
    ctx.supported("silu_bf16")  # raises ContextError when not supported
    callable_id = ctx.prepare(compiled_meta, sha256)
    assert ctx.prepare(compiled_meta, sha256) == callable_id  # the same artifact, the same id
    assert ctx.launch(callable_id, tensors, [], stream) == 7
    try:
        ctx.launch(callable_id, tensors[:1], [], stream)  # refused before the launcher
    except ContextError as wrong:
        assert wrong.status is kfam.Status.INVALID_ARGUMENT
    else:
        raise AssertionError("a wrong call reached the launcher")
    assert [c.stream for c in launches] == [stream]
    ctx.close()
    ctx.close()  # idempotent
    try:
        ctx.launch(callable_id, tensors, [], stream)
    except ContextError as refused:
        assert refused.status is kfam.Status.INVALID_STATE
    else:
        raise AssertionError("a closed context launched")


def silu_call() -> list[kfam.TensorArg]:
    """Two contiguous (2, 11008) BF16 tensors in their own storages: a valid silu_bf16 call."""
    return [
        kfam.TensorArg(
            kfam.DType.BF16, (2, 11008), (11008, 1), 0, 2 * 11008 * 2, (i + 1) << 32,
            kfam.StorageFormat.ND, 0,
        )
        for i in range(2)
    ]

