"""torch/_inductor/select_algorithm.py + autotune_process.py, for ember's C kernels: what mode="max-autotune"
(config.max_autotune) does.

A graph is generated once per *variant* of the code generator's tile parameters, the variants whose C differs
from the default are built, and the first call times every variant on its real inputs (one warm-up run, then the
best of `RUNS` runs, wall time) and keeps the fastest for the life of the compiled graph. The choice is stored on
disk (`<cache>/autotune/<key>.json`, key: a hash of every variant's C source, so a changed kernel or compiler flag
is a new key), so another process with the same graph skips the timing. The tile parameters:
  - `column_block`: accumulators per block of a column-form reduction (a sum over the batch dims of a [B, T, C]
    gradient: the contiguous dim in blocks, the reduction loop outside) -- 16, 64 (default), 256;
  - `sum_block`: the length of the float-lane blocks of a float32 row sum (added in double between blocks) --
    256, 1024 (default), 4096;
  - `parallel_min_work`: the elements from which a kernel's outer loop is split over threads -- 2^15
    (default, wrapper.PARALLEL_MIN_WORK) or 2^18; on a loaded machine one thread often wins, on an idle one the split.
Graphs that write their inputs in place (an optimizer step) or draw random numbers are not timed (running them
again would apply the update again, or move the generator): they keep the default variant.
`coordinate_descent_tuning` (set by the max-autotune modes too) needs no separate search here: the variant set is
small enough to try exhaustively, so it changes nothing on its own (see config.UNREAD).
"""
import hashlib
import json
import os
import time

DEFAULT = {"column_block": 64, "sum_block": 1024, "parallel_min_work": 1 << 15}   # (wrapper.py's)
VARIANTS = [
    DEFAULT,
    dict(DEFAULT, column_block=16),
    dict(DEFAULT, column_block=256),
    dict(DEFAULT, sum_block=256),
    dict(DEFAULT, sum_block=4096),
    dict(DEFAULT, parallel_min_work=1 << 18),
]
RUNS = 3


def generate_variant(graph, sched, params):
    """The CompiledModule of `graph` with the tile parameters of `params`."""
    from .codegen import cpp, wrapper
    saved = cpp.COLUMN_BLOCK, cpp.SUM_BLOCK, wrapper.PARALLEL_MIN_WORK
    cpp.COLUMN_BLOCK, cpp.SUM_BLOCK, wrapper.PARALLEL_MIN_WORK = \
        params["column_block"], params["sum_block"], params["parallel_min_work"]
    try:
        return wrapper.generate(graph, sched)
    finally:
        cpp.COLUMN_BLOCK, cpp.SUM_BLOCK, wrapper.PARALLEL_MIN_WORK = saved


def tunable(graph):
    """Whether running the graph several times on the same inputs is harmless (no input written, no random op)."""
    if any(getattr(b, "mutated_input", None) is not None for b in graph.buffers):
        return False
    return not any("random" in str(reason) for reason in graph.fallbacks.values())


def distinct_variants(graph, sched):
    """[(params, module)] for the variants whose C source differs (the default first)."""
    out, seen = [], set()
    for params in VARIANTS:
        module = generate_variant(graph, sched, params)
        if module.c_source in seen:
            continue
        seen.add(module.c_source)
        out.append((params, module))
    return out


def _choice_path(variants):
    from ember._cc import cache_dir
    h = hashlib.sha256()
    for _, m in variants:
        h.update(hashlib.sha256(m.c_source.encode()).digest())
    return os.path.join(os.path.dirname(cache_dir()), "autotune", h.hexdigest()[:32] + ".json")


def load_choice(variants):
    try:
        with open(_choice_path(variants)) as f:
            return int(json.load(f)["index"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def save_choice(variants, index, times):
    path = _choice_path(variants)
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        tmp = f"{path}.{os.getpid()}.tmp"
        with open(tmp, "w") as f:
            json.dump({"index": index, "params": variants[index][0], "seconds": times}, f)
        os.replace(tmp, path)
    except OSError:
        pass                       # a read-only cache: the choice is kept for this process only


def autotuned_call(variants, calls):
    """A `call` that times every variant's call on its first invocation (unless a stored choice exists) and then
    runs the fastest. `calls[i]` runs variant i."""
    from ember._dynamo.utils import counters
    state = {"index": load_choice(variants)}
    if state["index"] is not None and not 0 <= state["index"] < len(calls):
        state["index"] = None
    if state["index"] is not None:
        counters["inductor"]["autotune_cache_hit"] += 1

    def call(*args):
        i = state["index"]
        if i is None:
            times = []
            for fn in calls:
                fn(*args)                                  # warm-up: page faults of fresh arenas, lazy binding
                best = float("inf")
                for _ in range(RUNS):
                    t = time.perf_counter()
                    fn(*args)
                    best = min(best, time.perf_counter() - t)
                times.append(best)
            i = state["index"] = min(range(len(calls)), key=times.__getitem__)
            counters["inductor"]["autotuned_graphs"] += 1
            save_choice(variants, i, times)
        return calls[i](*args)
    call._autotune_state = state
    return call
