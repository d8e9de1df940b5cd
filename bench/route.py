"""What routing costs a compile (docs/performance.md, "Routing"): the transformer block of
tests/python/test_route.py compiled with Inductor, without and with the router over the routing
fixture catalog, each in a fresh process state with Inductor's caches off; and the time spent in
the routing pass itself.

    target/debug/kfam generate tests/route/manifest --out /tmp/routed
    PYTHONPATH=/tmp/routed/python:python:tests/python python bench/route.py [repeats] [backend]

``backend`` is ``inductor`` (default) or ``aot_eager`` (no code generation: the routing pass
against the cheapest compile).
"""

from __future__ import annotations

import statistics
import sys
import time
from typing import Any

import routed
import routed.torch as rt
import torch
import torch._dynamo
import torch._inductor.config
from test_route import Block, sample
from torch.library import Library

from kfam_runtime.route import Router

torch._inductor.config.fx_graph_cache = False
torch._inductor.config.autotune_local_cache = False


def main(repeats: int, inner: str) -> None:
    lib = Library(routed.CATALOG.torch_namespace, "FRAGMENT")
    ops: dict[str, Any] = {}
    for fam in routed.FAMILIES:
        ops[fam.name] = rt.define(lib, fam)
        lib.impl(fam.name, lambda *a, fam=fam: rt.reference(fam)(*a), "CPU")
    block, x = Block(), sample(12)
    spent: list[float] = []

    class Timed(Router):
        def route(self, gm: Any) -> Any:
            t = time.perf_counter()
            try:
                return super().route(gm)
            finally:
                spent.append(time.perf_counter() - t)

    plain, routed_total = [], []
    with torch.no_grad():
        for i in range(repeats + 1):
            for backend, into in ((inner, plain), (None, routed_total)):
                torch._dynamo.reset()
                if backend is None:
                    backend = Timed(
                        routed.CATALOG,
                        ops,
                        routed.Platform.NPU,
                        routed.ExecutionMode.SIM,
                    )
                t = time.perf_counter()
                torch.compile(block, backend=backend, fullgraph=True)(x)
                if i:  # the first round warms up imports and lazy initialization
                    into.append(time.perf_counter() - t)
    passes = spent[1:]
    med = statistics.median
    print(f"compile of the block, {inner}: {med(plain):.3f} s (median of {repeats})")
    print(f"compile of the block, routed then {inner}: {med(routed_total):.3f} s")
    print(
        f"routing pass: {med(passes) * 1e3:.1f} ms, "
        f"{100 * med(passes) / med(routed_total):.1f}% of the routed compile"
    )
    lib._destroy()


if __name__ == "__main__":
    main(
        int(sys.argv[1]) if len(sys.argv) > 1 else 5,
        sys.argv[2] if len(sys.argv) > 2 else "inductor",
    )
