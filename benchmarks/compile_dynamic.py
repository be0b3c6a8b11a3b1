"""ember.compile(backend="inductor") next to torch.compile (inductor) on a GPT train step called with changing
batch sizes (dynamic=None: static first, symbolic from the recompile on). Per side: the time of the calls that
compile (first size, the recompile), the captures made, the C builds (ember: libraries built or loaded from the disk
cache; one size-parameterised build per graph serves every later size), and the step time at a size never seen
before versus a size seen before (both served by the same symbolic entry). Prints one JSON object. Run from the
repo root: python benchmarks/compile_dynamic.py [--threads N]
"""
import json
import os
import time

from _harness import threads_arg  # noqa: E402  (also puts src/ on sys.path)
from compile_graph_layer import build_gpt  # noqa: E402

import ember  # noqa: E402  (src/ first: _harness)

BATCHES = (4, 6, 3, 8, 5, 7, 9, 2)


def run(lib, compile_fn, counters_fn):
    lib.manual_seed(0)
    model = build_gpt(lib)
    step = compile_fn(model)
    times = []
    for b in BATCHES + BATCHES[2:4]:
        idx = lib.randint(0, 65, (b, 32))
        tgt = lib.randint(0, 65, (b, 32))
        t = time.perf_counter()
        (loss,) = step(idx, tgt)
        loss.backward()
        times.append((time.perf_counter() - t) * 1e3)
    n = len(BATCHES)
    out = {"first_two_calls_ms": times[0] + times[1], "new_size_step_ms_median": sorted(times[2:n])[(n - 2) // 2],
           "seen_size_step_ms_min": min(times[n:])}
    out.update(counters_fn())
    return out


def ember_side():
    from ember._dynamo.utils import counters
    from ember._inductor import codecache
    ember._dynamo.reset()
    codecache.counters.clear()

    def stats():
        return {"captures": counters["frames"]["ok"], "c_builds": codecache.counters["c_compile"] +
                codecache.counters["c_disk_hit"], "dynamic_graphs": counters["inductor"]["dynamic_graphs"],
                "specialized_symbolic_graphs": counters["inductor"]["specialized_symbolic_graphs"]}
    return run(ember, lambda m: ember.compile(m), stats)


def torch_side():
    try:
        import torch
    except ImportError:
        return None
    torch.set_num_threads(threads_arg())
    from torch._dynamo.utils import counters
    torch._dynamo.reset()
    counters.clear()

    def stats():
        return {"captures": counters["frames"]["ok"], "recompiles": sum(counters["recompiles"].values())}
    return run(torch, lambda m: torch.compile(m), stats)


if __name__ == "__main__":
    ember.set_num_threads(threads_arg())
    load = os.getloadavg()
    print(json.dumps({"batches": BATCHES, "ember": ember_side(), "torch": torch_side(),
                      "loadavg": [load, os.getloadavg()],
                      "note": "wall time on a shared, loaded 2-core machine"}, indent=1))
