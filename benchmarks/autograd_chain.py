"""Engine overhead: backward of a 200-op elementwise chain on 1,000 elements, ember vs torch.

Per-node backward time = (forward+backward - forward) / 201 nodes (200 ops + the final sum).
Prints one JSON object.

    python benchmarks/autograd_chain.py [--repeat N] [--ops N] [--profile]
"""
import argparse
import json
import os
import sys
import time

ap = argparse.ArgumentParser()
ap.add_argument("--repeat", type=int, default=20)
ap.add_argument("--ops", type=int, default=200)
ap.add_argument("--profile", action="store_true", help="cProfile ember's backward and print the top entries")
opts = ap.parse_args()
os.environ.setdefault("OMP_NUM_THREADS", "1")
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src"))

import numpy as np  # noqa: E402


def bench(m, x):
    def run():
        y = x
        for i in range(opts.ops):
            y = y * 1.0001 if i % 2 else y + 0.001
        return y.sum()

    for _ in range(3):
        run().backward()
    fw, tot = [], []
    for _ in range(opts.repeat):
        t0 = time.perf_counter()
        run()
        t1 = time.perf_counter()
        run().backward()
        t2 = time.perf_counter()
        fw.append(t1 - t0)
        tot.append(t2 - t1)
    f, t = float(np.median(fw)), float(np.median(tot))
    b = t - f
    return {"forward_ms": round(f * 1e3, 3), "backward_ms": round(b * 1e3, 3),
            "per_node_backward_us": round(b / (opts.ops + 1) * 1e6, 2),
            "per_op_forward_us": round(f / (opts.ops + 1) * 1e6, 2)}, run


def main():
    import ember
    a = np.random.default_rng(0).random(1000).astype(np.float32)
    out = {"benchmark": "autograd_chain", "ops": opts.ops, "elements": 1000, "dtype": "float32"}
    out["ember"], run = bench(ember, ember.from_numpy(a.copy()).requires_grad_())
    try:
        import torch
        torch.set_num_threads(1)
        out["torch"], _ = bench(torch, torch.from_numpy(a.copy()).requires_grad_())
        out["torch_version"] = torch.__version__
        out["backward_ratio_ember_over_torch"] = round(out["ember"]["backward_ms"] / out["torch"]["backward_ms"], 2)
    except ImportError:
        out["torch"] = None
    print(json.dumps(out, indent=1))
    if opts.profile:
        import cProfile
        import pstats
        losses = [run() for _ in range(opts.repeat)]
        pr = cProfile.Profile()
        pr.enable()
        for s in losses:
            s.backward()
        pr.disable()
        pstats.Stats(pr).sort_stats("tottime").print_stats(20)


if __name__ == "__main__":
    main()
