"""Chains of 10 pointwise ops on 1M float32, ember.compile (the inductor backend: one fused C loop) next to
torch.compile, torch eager and ember eager, against the machine's memory bandwidth measured with a plain copy.

    python benchmarks/compile_pointwise.py [--n 1000000] [--backend inductor] [--skip-torch-compile]
                                           [--threads N] [--reps 9]

The fused chain reads the input once and writes the output once: 8 bytes per element. Its effective bandwidth
(8 * n / time) is reported as a percentage of two copies timed with numpy (`np.copyto`, also 8 bytes per
element): one of the same size (1M float32 = 4 MB, which may stay in the cpu's caches) and one of 64M float32
(256 MB, main memory): the issue's goal is at least 80% of the latter, for the arithmetic chain. A second chain
with sin/sqrt/exp shows what libm calls cost. `generated_kernels` counts the C kernels compiled (1 when the
chain fused into one loop). Times are medians of `--reps` rounds;
the first compiled call (compile time) is reported separately. `kernel_only_*` times the generated C entry alone on
preallocated arrays (what the fused loop achieves without the Python wrapper and the fresh output buffer).
Prints one JSON object.
"""
import argparse
import json
import os
import time
import warnings

from _harness import median  # noqa: E402  (also puts src/ on sys.path)
import numpy as np  # noqa: E402


def chain(x):
    """10 arithmetic ops: memory-bound once fused (the issue's bandwidth goal)."""
    y = x * 1.5
    y = y + 0.25
    y = y.relu()
    y = y * y
    y = y - 0.125
    y = y.abs()
    y = y / 3.0
    y = y.clamp(max=4.0)
    y = y * 0.75
    return y.neg()


def chain_transcendental(x):
    """10 ops, three of them libm calls (sin, sqrt, exp): bound by their cost, not by memory, when gcc cannot
    vectorise libm calls (no -ffast-math)."""
    y = x * 1.5
    y = y + 0.25
    y = y.sin()
    y = y * y
    y = y - 0.125
    y = y.abs()
    y = y.sqrt()
    y = y * 0.75
    y = y.exp()
    return y.neg()


def copy_gbps(n, reps):
    """GB/s of np.copyto between two float32 arrays of n elements (bytes read + written per second)."""
    src = np.random.default_rng(0).standard_normal(n).astype(np.float32)
    dst = np.empty_like(src)
    ms = median(lambda: np.copyto(dst, src), reps, inner=max(1, 4_000_000 // n))
    return 8 * n / (ms * 1e-3) / 1e9, ms


def side(name, fn, x, reps, n, compile_first=False):
    row = {}
    try:
        if compile_first:
            t = time.perf_counter()
            fn(x)
            row["first_call_s"] = round(time.perf_counter() - t, 3)
        ms = median(lambda: fn(x), reps, inner=5)
        row["ms"] = round(ms, 4)
        row["gbps"] = round(8 * n / (ms * 1e-3) / 1e9, 2)
    except Exception as e:                              # noqa: BLE001 - report, keep going
        row["error"] = f"{type(e).__name__}: {e}"[:300]
    return row


def kernel_only(compiled, ex, xn, reps, n):
    """The generated C entry alone, called on preallocated input and output (no Python wrapper, no allocation):
    the last library the code cache loaded, when its `entry0` takes (input, output) and reproduces the compiled
    result; {} otherwise."""
    import ctypes
    try:
        from ember._inductor import codecache
        lib = list(codecache._LIBS.values())[-1]
        fn = lib["entry0"]
    except (ImportError, IndexError, AttributeError, KeyError):
        return {}
    fn.argtypes, fn.restype = [ctypes.POINTER(ctypes.c_void_p)], ctypes.c_int64
    x = np.ascontiguousarray(xn)
    out = np.empty_like(x)
    ptrs = (ctypes.c_void_p * 2)(x.ctypes.data, out.ctypes.data)
    fn(ptrs)
    if not np.allclose(out, compiled(ex).numpy(), rtol=1e-5, atol=1e-6, equal_nan=True):
        return {}
    ms = median(lambda: fn(ptrs), reps, inner=20)
    return {"kernel_only_ms": round(ms, 4), "kernel_only_gbps": round(8 * n / (ms * 1e-3) / 1e9, 2)}


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--backend", default="inductor")
    ap.add_argument("--skip-torch-compile", action="store_true")
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--reps", type=int, default=9)
    args = ap.parse_args(argv)
    threads = args.threads or len(os.sched_getaffinity(0))
    n, reps = args.n, args.reps

    import ember
    ember.set_num_threads(threads)
    bw_same, _ = copy_gbps(n, reps)
    bw_dram, _ = copy_gbps(64 * 1024 * 1024, max(3, reps // 3))
    out = {"config": {"n": n, "threads": threads, "backend": args.backend, "reps": reps,
                      "note": "medians on a shared, loaded 2-core machine"},
           "bandwidth_gbps": {"copy_same_size": round(bw_same, 2), "copy_256MB": round(bw_dram, 2)}}

    xn = np.random.default_rng(1).standard_normal(n).astype(np.float32)
    try:
        import torch
        torch.set_num_threads(threads)
    except ImportError:
        torch = None
    out["results"] = {}
    for fname, fn in (("arithmetic", chain), ("transcendental", chain_transcendental)):
        ex = ember.from_numpy(xn.copy())
        ember._dynamo.reset()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compiled = ember.compile(fn, backend=args.backend)
            key = f"ember_compile_{args.backend}"
            rows = {"ember_eager": side("ember_eager", fn, ex, reps, n),
                    key: side("ember_compile", compiled, ex, reps, n, compile_first=True)}
            try:
                ember.testing.assert_close(compiled(ex), fn(ex), atol=1e-5, rtol=1e-5, equal_nan=True)
                rows[key]["matches_eager"] = True
            except Exception as e:                              # noqa: BLE001
                rows[key]["matches_eager"] = f"{type(e).__name__}: {str(e)[:200]}"
            from ember._dynamo.utils import counters
            rows[key]["generated_kernels"] = counters["inductor"]["kernels"]
            rows[key].update(kernel_only(compiled, ex, xn, reps, n))
        if torch is not None:
            tx = torch.from_numpy(xn.copy())
            rows["torch_eager"] = side("torch_eager", fn, tx, reps, n)
            if not args.skip_torch_compile:
                torch._dynamo.reset()
                rows["torch_compile"] = side("torch_compile", torch.compile(fn), tx, reps, n, compile_first=True)
        for row in rows.values():
            for g in ("gbps", "kernel_only_gbps"):
                if g in row:
                    tag = "" if g == "gbps" else "kernel_only_"
                    row[f"{tag}pct_of_copy_256MB"] = round(100 * row[g] / bw_dram, 1)
                    row[f"{tag}pct_of_copy_same_size"] = round(100 * row[g] / bw_same, 1)
        out["results"][fname] = rows
    print(json.dumps(out, indent=1))
    return out


if __name__ == "__main__":
    main()
