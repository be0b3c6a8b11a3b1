"""ember.compile's front end next to torch.compile(backend="eager"): capture time of a 2-layer and a 12-layer
GPT (first compiled call minus a cached call), static and with dynamic=True (symbolic sizes), the guard check
per cached call of the 12-layer GPT (ember's generated check function, timed alone), and the per-call overhead
of a tiny compiled function (compiled call minus eager call). Medians of repeated runs of wall time, and the
minimum over rounds of the thread's CPU time per call (`*_cpu_min`: what the code costs when it is not waiting for a
core; the machine is shared, so wall-time medians include its load, reported as `loadavg`). Prints one JSON object. Run from the repo root: python benchmarks/compile_capture.py [--threads N]
"""
import json
import statistics
import time

from _harness import threads_arg  # noqa: E402  (also puts src/ on sys.path)
from compile_graph_layer import build_gpt  # noqa: E402

import ember  # noqa: E402


def median_us(fn, n=2000, rounds=7):
    fn()
    per = []
    for _ in range(rounds):
        t = time.perf_counter()
        for _ in range(n):
            fn()
        per.append((time.perf_counter() - t) / n * 1e6)
    return statistics.median(per)


def cpu_min_us(fn, n=2000, rounds=9):
    """The smallest CPU time per call (time.thread_time) over `rounds` runs of `n` calls."""
    fn()
    best = float("inf")
    for _ in range(rounds):
        t = time.thread_time()
        for _ in range(n):
            fn()
        best = min(best, (time.thread_time() - t) / n * 1e6)
    return best


def capture_ms(lib, compile_fn, reset, n_layer, rounds=3):
    times = []
    for _ in range(rounds):
        reset()
        lib.manual_seed(0)
        model = build_gpt(lib, n_layer=n_layer)
        idx = lib.randint(0, 65, (4, 32))
        tgt = lib.randint(0, 65, (4, 32))
        cm = compile_fn(model)
        t = time.perf_counter()
        cm(idx, tgt)
        first = time.perf_counter() - t
        t = time.perf_counter()
        cm(idx, tgt)
        cached = time.perf_counter() - t
        times.append((first - cached) * 1e3)
    return statistics.median(times), (cm, model, idx, tgt)


def ember_side():
    import warnings
    warnings.simplefilter("ignore")
    out = {}
    comp = lambda m: ember.compile(m, backend="eager")  # noqa: E731
    out["capture_ms_gpt_2layer"], _ = capture_ms(ember, comp, ember._dynamo.reset, 2)
    out["capture_ms_gpt_12layer"], (cm, model, idx, tgt) = capture_ms(ember, comp, ember._dynamo.reset, 12)
    from ember._dynamo import eval_frame
    state = cm._compiled._state
    entry = state.entries[0]
    L = (model, (idx, tgt), {})
    G, C = state_globals(cm)
    assert entry.check(L, G, C) is not None
    out["guard_check_us_gpt_12layer"] = median_us(lambda: entry.check(L, G, C))
    out["guard_check_us_gpt_12layer_cpu_min"] = cpu_min_us(lambda: entry.check(L, G, C))
    out["noop_python_call_us"] = median_us(lambda: None)   # the machine's load: ~0.03 us when idle
    out["guard_terms_gpt_12layer_per_call"] = sum(1 for g in entry.guard_builder.guards.values()
                                                  if not g.epoch_covered)
    out["guard_terms_gpt_12layer_epoch_covered"] = sum(1 for g in entry.guard_builder.guards.values()
                                                       if g.epoch_covered)
    out["graph_nodes_gpt_12layer"] = len(entry.gm.graph.nodes)
    ember._dynamo.reset()
    # the dynamic captures reset dynamo, so they run after the static entry's guards are timed
    dyn = lambda m: ember.compile(m, backend="eager", dynamic=True)  # noqa: E731
    out["capture_ms_gpt_2layer_dynamic"], _ = capture_ms(ember, dyn, ember._dynamo.reset, 2)
    out["capture_ms_gpt_12layer_dynamic"], _ = capture_ms(ember, dyn, ember._dynamo.reset, 12)

    def tiny(x):
        return x + 1
    x = ember.ones(4)
    ctiny = ember.compile(tiny, backend="eager")
    ctiny(x)
    eager_us = median_us(lambda: tiny(x))
    comp_us = median_us(lambda: ctiny(x))
    out["tiny_eager_us"] = eager_us
    out["tiny_compiled_us"] = comp_us
    out["tiny_overhead_us"] = comp_us - eager_us
    eager_cpu, comp_cpu = cpu_min_us(lambda: tiny(x)), cpu_min_us(lambda: ctiny(x))
    out["tiny_eager_us_cpu_min"] = eager_cpu
    out["tiny_compiled_us_cpu_min"] = comp_cpu
    out["tiny_overhead_us_cpu_min"] = comp_cpu - eager_cpu
    del eval_frame
    return out


def state_globals(cm):
    c = cm._compiled
    return c._G, c._C


def torch_side():
    try:
        import torch
    except ImportError:
        return None
    torch.set_num_threads(threads_arg())
    out = {}
    comp = lambda m: torch.compile(m, backend="eager")  # noqa: E731
    out["capture_ms_gpt_2layer"], _ = capture_ms(torch, comp, torch._dynamo.reset, 2)
    out["capture_ms_gpt_12layer"], (cm, model, idx, tgt) = capture_ms(torch, comp, torch._dynamo.reset, 12)
    dyn = lambda m: torch.compile(m, backend="eager", dynamic=True)  # noqa: E731
    out["capture_ms_gpt_2layer_dynamic"], _ = capture_ms(torch, dyn, torch._dynamo.reset, 2)
    out["capture_ms_gpt_12layer_dynamic"], _ = capture_ms(torch, dyn, torch._dynamo.reset, 12)
    torch._dynamo.reset()

    def tiny(x):
        return x + 1
    x = torch.ones(4)
    ctiny = torch.compile(tiny, backend="eager")
    ctiny(x)
    eager_us = median_us(lambda: tiny(x))
    comp_us = median_us(lambda: ctiny(x))
    out["tiny_eager_us"] = eager_us
    out["tiny_compiled_us"] = comp_us
    out["tiny_overhead_us"] = comp_us - eager_us
    eager_cpu, comp_cpu = cpu_min_us(lambda: tiny(x)), cpu_min_us(lambda: ctiny(x))
    out["tiny_eager_us_cpu_min"] = eager_cpu
    out["tiny_compiled_us_cpu_min"] = comp_cpu
    out["tiny_overhead_us_cpu_min"] = comp_cpu - eager_cpu
    return out


if __name__ == "__main__":
    import os
    load = os.getloadavg()
    result = {"note": "wall-time medians and CPU-time minima on a shared, heavily loaded 2-core machine",
              "ember": ember_side(), "torch": torch_side(), "loadavg": [load, os.getloadavg()]}
    print(json.dumps(result, indent=1))
