"""Large elementwise ops (issue 18): GB/s of float32 binary, scalar, comparison, unary, where, cast, in-place,
out=, copy/fill and full-reduction (sum, mean) ops on 1M and 4M elements, ember and torch side by side in one
process, as JSON.

    python benchmarks/elementwise_bandwidth.py [--threads N] [--sizes 1048576,4194304] [--reps 60] [--block 6]
        [--gap-ms 20] [--out f.json]

Both libraries get N intra-op threads (default 2): ember runs these ops on its C pool (kernels/cpu/runtime/flat.py,
csrc/parallel.c) from 65536 elements (math, where, clamp from 4096), torch on its OpenMP threads. GB/s counts the
bytes an op must move (inputs read plus the result written; an in-place op reads and writes its target). The two
libraries' calls alternate in blocks of `--block` calls (default 6) so both see the same load; a row gives GB/s from
the fastest call (`*_gb_s`, what the machine allows when both cores are free) and from the median call
(`*_gb_s_med`, what a loaded machine gives). Blocks rather than strict alternation: after a call each library's idle
threads spin for a while (torch's OpenMP team, ember's C workers for 50 us), so a call that follows the
other library's call shares the second core with the other's spinning thread; on 2 cores strict alternation measured
the two pools fighting (torch's median 1M add took milliseconds, 0.5 GB/s) more than either library. The blocks are
`--gap-ms` apart (default 20): torch's OpenMP worker (libgomp, GOMP_SPINCOUNT's default) spins about 10 ms after its
last parallel region (measured: an idle process burns 8-11 ms of cpu after a burst of 1M adds), so without a gap every
ember block ran against it on the second core, where ember's woken worker waited for the spinner's time slice: at
`--gap-ms 0` ember's worker was asleep at 60-87% of the split calls while it went to sleep only 0.1-0.2 times a call
(each sleep spanned 5-8 calls of the block; `pool`'s `spun_out`/`preempted` below). With the gap each block starts
with the other library's threads idle, its first call finding its own workers asleep (both libraries alike), as a
program using one library sees them. On a machine shared with other jobs only a quiet run says how close ember is
to torch: the load average is recorded.
`ember_joined` is the fraction of ember's calls in which a pool worker took part (0: the caller did every chunk
because the other core was busy elsewhere); `pool` says why (csrc/parallel.c's counters over the row's timed
calls, runtime/flat.py's pool_stats): `asleep` the fraction of split calls published while the worker slept (it
had spun out its budget), `wake_skipped` the fraction published without waking it (csrc/parallel.c's back-off
while woken workers land on the caller's own cpu), `woke_late` / `same_cpu` the fractions of its wake-ups that
found the job done / ran on the caller's cpu (the other core busy elsewhere: no parallelism),
`spun_out` / `preempted` the worker's sleeps per split call, after its idle spin budget ran out with no job / after
another thread took its cpu while it spun, `wake_us` the mean delay of a woken worker after its call's
publishing, `caller_share` the fraction of chunks the caller ran, `waited` the fraction of joined calls whose
caller waited for the worker after its own chunks and `wait_us` the mean wait (a worker preempted mid-chunk).
`--spin-us` sets the workers' idle spin budget (default 50 us of wall time) to compare policies;
`--stream-mb` the size from which an op writes its output with streaming stores (runtime/flat.py's
stream_bytes: 1.5x the last-level cache by default; 0 streams every op, a huge value none). `stream_mb` in the
JSON is the setting the run used.
"""
import argparse
import json
import os
import statistics
import sys
import time

import numpy as np

from _harness import threads_arg  # noqa: F401  (puts src/ on sys.path)

OPS = {   # name: (function of (lib, a, b, o), bytes moved per element with float32 inputs)
    "add": (lambda lib, a, b, o: a + b, 12),
    "sub": (lambda lib, a, b, o: a - b, 12),
    "mul": (lambda lib, a, b, o: a * b, 12),
    "div": (lambda lib, a, b, o: a / b, 12),
    "mul_scalar": (lambda lib, a, b, o: a * 0.5, 8),
    "gt": (lambda lib, a, b, o: a > b, 9),
    "where": (lambda lib, a, b, o: lib.where(o, a, b), 13),          # o: a bool mask here
    "relu": (lambda lib, a, b, o: lib.relu(a), 8),
    "exp": (lambda lib, a, b, o: a.exp(), 8),
    "tanh": (lambda lib, a, b, o: a.tanh(), 8),
    "sigmoid": (lambda lib, a, b, o: a.sigmoid(), 8),
    "to_float64": (lambda lib, a, b, o: a.to(lib.float64), 12),
    "add_": (lambda lib, a, b, o: a.add_(b), 12),
    "mul_scalar_": (lambda lib, a, b, o: a.mul_(1.0), 8),
    "relu_": (lambda lib, a, b, o: a.relu_(), 8),
    "add_out": (lambda lib, a, b, o: lib.add(a, b, out=o), 12),
    # what big tensors see in training code besides the rows above (issue 18)
    "add_scalar": (lambda lib, a, b, o: a + 1, 8),
    "mul_": (lambda lib, a, b, o: a.mul_(b), 12),
    "clamp_": (lambda lib, a, b, o: a.clamp_(-4.0, 4.0), 8),
    "gelu": (lambda lib, a, b, o: lib.nn.functional.gelu(a), 8),
    "to_float16": (lambda lib, a, b, o: a.to(lib.float16), 6),
    "to_bfloat16": (lambda lib, a, b, o: a.to(lib.bfloat16), 6),
    "masked_fill": (lambda lib, a, b, o: a.masked_fill(o, 0.0), 9),     # o: a bool mask here
    "clone": (lambda lib, a, b, o: a.clone(), 8),
    "zero_": (lambda lib, a, b, o: o.zero_(), 4),
    "sum": (lambda lib, a, b, o: a.sum(), 4),
    "mean": (lambda lib, a, b, o: a.mean(), 4),
}


def _operands(lib, name, a_np, b_np):
    a, b = lib.from_numpy(a_np.copy()), lib.from_numpy(b_np.copy())
    o = lib.from_numpy(np.empty_like(a_np))
    if name == "add_":            # keep the values bounded over many in-place calls
        b = lib.from_numpy(np.zeros_like(b_np))
    if name == "mul_":
        b = lib.from_numpy(np.ones_like(b_np))
    if name in ("where", "masked_fill"):
        o = lib.from_numpy(a_np > 0)
    return a, b, o


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--sizes", default=f"{1 << 20},{1 << 22}")
    ap.add_argument("--reps", type=int, default=60)
    ap.add_argument("--block", type=int, default=6,
                    help="calls of one library in a row (1: strict alternation, see the module docstring)")
    ap.add_argument("--gap-ms", type=float, default=20.0,
                    help="ms between one library's block and the other's: torch's OpenMP worker spins ~10 ms "
                         "after its last call (see the module docstring); 0: blocks back to back")
    ap.add_argument("--ops", default=",".join(OPS))
    ap.add_argument("--spin-us", type=float, default=None,
                    help="the C pool workers' idle spin budget in us of wall time (csrc/parallel.c; default 50)")
    ap.add_argument("--stream-mb", type=float, default=None,
                    help="bytes moved (MB) from which ember's flat ops store their output non-temporally "
                         "(runtime/flat.py's stream_bytes; default 1.5x the last-level cache)")
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    import ember
    import torch
    try:
        from ember.kernels.cpu.runtime.flat import last_threads
    except ImportError:         # an ember before the C pool (comparing with an older checkout)
        def last_threads():
            return 0
    try:
        from ember.kernels.cpu.runtime.flat import pool_stats, set_spin_us
    except ImportError:         # an ember before the pool's counters
        def pool_stats(reset=False):
            return None
        set_spin_us = None
    if args.spin_us is not None and set_spin_us is not None:
        set_spin_us(args.spin_us)
    try:
        from ember.kernels.cpu.runtime.flat import set_stream_bytes, stream_bytes
    except ImportError:         # an ember before the streaming kernels
        def stream_bytes():
            return None
        set_stream_bytes = None
    if args.stream_mb is not None and set_stream_bytes is not None:
        set_stream_bytes(int(args.stream_mb * (1 << 20)))
    sb = stream_bytes()
    torch.set_num_threads(args.threads)
    ember.set_num_threads(args.threads)
    rng = np.random.default_rng(0)
    results = {"threads": args.threads, "block": args.block, "gap_ms": args.gap_ms, "spin_us": args.spin_us,
               "stream_mb": None if sb is None else round(sb / (1 << 20), 1),
               "load_before": [round(x, 2) for x in os.getloadavg()]}
    for n in (int(s) for s in args.sizes.split(",")):
        a_np = rng.standard_normal(n).astype(np.float32)
        b_np = rng.uniform(0.5, 2.0, n).astype(np.float32)
        for name in args.ops.split(","):
            fn, nbytes = OPS[name]
            libs = {"torch": torch, "ember": ember}
            ops = {k: _operands(lib, name, a_np, b_np) for k, lib in libs.items()}
            times = {k: [] for k in libs}
            joined = 0
            for k, lib in libs.items():
                fn(lib, *ops[k])            # warm-up (ember builds its C kernels on first use)
            block = max(1, args.block)
            pool_stats(reset=True)
            for _ in range(-(-args.reps // block)):
                for k, lib in libs.items():
                    if args.gap_ms:
                        time.sleep(args.gap_ms / 1e3)
                    for _ in range(block):
                        t = time.perf_counter()
                        fn(lib, *ops[k])
                        times[k].append(time.perf_counter() - t)
                        if k == "ember":
                            joined += last_threads() > 1
            row = {}
            for k in libs:
                row[f"{k}_gb_s"] = round(nbytes * n / min(times[k]) / 1e9, 1)
                row[f"{k}_gb_s_med"] = round(nbytes * n / statistics.median(times[k]) / 1e9, 1)
            row["ratio"] = round(min(times["torch"]) / min(times["ember"]), 2)     # from the times: the GB/s
            row["ratio_med"] = round(statistics.median(times["torch"]) / statistics.median(times["ember"]), 2)
            row["ember_joined"] = round(joined / len(times["ember"]), 2)
            st = pool_stats(reset=True)
            if st and st["jobs"]:
                row["pool"] = {"asleep": round(st["asleep"] / st["jobs"], 2),
                               "wake_skipped": round(st["wake_skipped"] / st["jobs"], 2),
                               "spun_out": round(st.get("spun_out", 0) / st["jobs"], 2),
                               "preempted": round(st.get("preempted", 0) / st["jobs"], 2),
                               "wake_us": round(st.get("wake_ns", 0) / max(1, st["woke"]) / 1e3, 1),
                               "woke_late": round(st["woke_late"] / max(1, st["woke"]), 2),
                               "same_cpu": round(st["same_cpu"] / max(1, st["woke"]), 2),
                               "caller_share": round(st["caller_chunks"] / st["chunks"], 2),
                               "waited": round(st["waited"] / max(1, st["joined"]), 2),
                               "wait_us": round(st["wait_ns"] / max(1, st["waited"]) / 1e3, 1)}
            results[f"{name}_{n}"] = row
            print(f"{name}_{n}", json.dumps(row), file=sys.stderr)
    results["load_after"] = [round(x, 2) for x in os.getloadavg()]
    text = json.dumps(results, indent=2)
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
    return results


if __name__ == "__main__":
    main()
