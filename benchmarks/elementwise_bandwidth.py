"""Large elementwise ops (issue 18): GB/s of float32 add/mul/div/relu/exp/tanh and their in-place forms on 1M and
4M elements, ember and torch side by side in one process, as JSON.

    python benchmarks/elementwise_bandwidth.py [--threads N] [--sizes 1048576,4194304] [--out results.json]

Both libraries get N intra-op threads (default 2): ember shares a big float op out over its pool from
kernels/cpu/elementwise.py's SPLIT_ELEMS elements, torch over its OpenMP threads. GB/s counts the bytes an op must
move (inputs read plus the result written; an in-place op reads and writes its target) over the median wall time
(statistics of `_harness.median`): on a machine shared with other jobs wall time mostly measures waiting for a
core, so only a quiet run says how close ember is to torch. `ember_parts` is how many parts the last ember call
handed to the pool (1: it ran on the calling thread).
"""
import argparse
import json
import sys

import numpy as np

from _harness import median, threads_arg

OPS = {   # name: (function of (lib, a, b), arrays moved per element)
    "add": (lambda lib, a, b: a + b, 3),
    "mul": (lambda lib, a, b: a * b, 3),
    "div": (lambda lib, a, b: a / b, 3),
    "mul_scalar": (lambda lib, a, b: a * 0.5, 2),
    "relu": (lambda lib, a, b: lib.relu(a), 2),
    "exp": (lambda lib, a, b: a.exp(), 2),
    "tanh": (lambda lib, a, b: a.tanh(), 2),
    "add_": (lambda lib, a, b: a.add_(b), 3),
    "relu_": (lambda lib, a, b: a.relu_(), 2),
}


def _count_parts():
    """Wraps ember's elementwise run_parts to record how many parts each split call used."""
    from ember.kernels.cpu import elementwise
    from ember.kernels.cpu.runtime import pool
    seen = []

    def counting(fn, k):
        seen.append(k)
        pool.run_parts(fn, k)
    elementwise.run_parts = counting
    return seen


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=threads_arg(2))
    ap.add_argument("--sizes", default=f"{1 << 20},{1 << 22}")
    ap.add_argument("--reps", type=int, default=15)
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    import ember
    import torch
    torch.set_num_threads(args.threads)
    ember.set_num_threads(args.threads)
    parts = _count_parts()
    rng = np.random.default_rng(0)
    results = {"threads": args.threads}
    for n in (int(s) for s in args.sizes.split(",")):
        a_np = rng.standard_normal(n).astype(np.float32)
        b_np = rng.uniform(0.5, 2.0, n).astype(np.float32)
        for name, (fn, arrays) in OPS.items():
            row = {}
            for libname, lib in (("torch", torch), ("ember", ember)):
                a, b = lib.from_numpy(a_np.copy()), lib.from_numpy(b_np.copy())
                if name == "add_":       # keep the values bounded over many in-place calls
                    b = lib.from_numpy(np.zeros(n, np.float32))
                del parts[:]
                ms = median(lambda: fn(lib, a, b), reps=args.reps, inner=5)
                row[f"{libname}_gb_s"] = round(arrays * 4 * n / (ms * 1e-3) / 1e9, 1)
                if libname == "ember":
                    row["ember_parts"] = parts[-1] if parts else 1
            row["ratio"] = round(row["ember_gb_s"] / row["torch_gb_s"], 2)
            results[f"{name}_{n}"] = row
            print(name, n, json.dumps(row), file=sys.stderr)
    text = json.dumps(results, indent=2)
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
    return results


if __name__ == "__main__":
    main()
