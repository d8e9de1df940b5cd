"""What routing costs the compile of a Hugging Face model (docs/performance.md, "Routing"): the
Llama and GPT-2 of tests/python/test_models.py (bf16, two layers) compiled with Inductor, without
and with the router over the model fixture catalog, each in a fresh process state with
Inductor's caches off; and the time spent in the routing pass itself (matching every node and
form, the mask proofs, capability and validate_call per candidate, rewriting).

    target/debug/kfam generate tests/route/models/manifest --out /tmp/models
    PYTHONPATH=/tmp/models/python:python:tests/python python bench/route_models.py [repeats] [backend]
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from typing import Any

os.environ["HF_HUB_OFFLINE"] = "1"

import models
import models.torch as mt
import torch
import torch._dynamo
import torch._inductor.config
from test_models import build, tokens
from torch.library import Library

from kfam_runtime.route import Router

torch._inductor.config.fx_graph_cache = False
torch._inductor.config.autotune_local_cache = False


def main(repeats: int, inner: str) -> None:
    lib = Library(models.CATALOG.torch_namespace, "FRAGMENT")
    ops: dict[str, Any] = {}
    for fam in models.FAMILIES:
        ops[fam.name] = mt.define(lib, fam)
        lib.impl(fam.name, lambda *a, fam=fam: mt.reference(fam)(*a), "CPU")
    spent: list[float] = []

    class Timed(Router):
        def route(self, gm: Any, **kw: Any) -> Any:
            t = time.perf_counter()
            try:
                return super().route(gm, **kw)
            finally:
                spent.append(time.perf_counter() - t)

    for name in ("llama", "gpt2"):
        model, ids = build(name), tokens(2, 12)
        plain, routed_total, passes = [], [], []
        with torch.no_grad():
            for i in range(repeats + 1):
                for backend, into in ((inner, plain), (None, routed_total)):
                    torch._dynamo.reset()
                    spent.clear()
                    if backend is None:
                        backend = Timed(
                            models.CATALOG,
                            ops,
                            models.Platform.NPU,
                            models.ExecutionMode.SIM,
                            backend=inner,
                        )
                    t = time.perf_counter()
                    torch.compile(model, backend=backend, fullgraph=True)(ids, use_cache=False)
                    if i:  # the first round warms up imports and lazy initialization
                        into.append(time.perf_counter() - t)
                        if into is routed_total:
                            passes.append(sum(spent))
        med = statistics.median
        print(f"{name}, {inner}: compile {med(plain):.3f} s, routed compile "
              f"{med(routed_total):.3f} s, routing pass {med(passes) * 1e3:.1f} ms "
              f"({100 * med(passes) / med(routed_total):.1f}% of the routed compile; "
              f"median of {repeats})")
    lib._destroy()


if __name__ == "__main__":
    main(
        int(sys.argv[1]) if len(sys.argv) > 1 else 5,
        sys.argv[2] if len(sys.argv) > 2 else "inductor",
    )
