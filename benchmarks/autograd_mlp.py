"""Backward of an MLP 784-512-512-10 at batch 128 (linear = addmm, relu, mse loss), ember vs torch.

Both run float32 on one thread (OMP/OPENBLAS/MKL threads pinned to 1 before numpy/torch import), so
the figure compares engines and kernels, not thread pools. Prints one JSON object.

    python benchmarks/autograd_mlp.py [--repeat N] [--threads T]
"""
import argparse
import json
import os
import sys
import time

ap = argparse.ArgumentParser()
ap.add_argument("--repeat", type=int, default=30)
ap.add_argument("--threads", type=int, default=1)
opts = ap.parse_args()
for v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[v] = str(opts.threads)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src"))

import numpy as np  # noqa: E402

SIZES = [784, 512, 512, 10]
BATCH = 128


def _params(rng):
    ps = []
    for i, o in zip(SIZES[:-1], SIZES[1:]):
        ps.append(((rng.standard_normal((o, i)) / np.sqrt(i)).astype(np.float32), np.zeros(o, np.float32)))
    return ps


def bench(m, wrap):
    rng = np.random.default_rng(0)
    params = [(wrap(w, True), wrap(b, True)) for w, b in _params(rng)]
    x = wrap(rng.standard_normal((BATCH, SIZES[0])).astype(np.float32), False)
    y = wrap(rng.standard_normal((BATCH, SIZES[-1])).astype(np.float32), False)

    def forward():
        h = x
        for i, (w, b) in enumerate(params):
            h = m.addmm(b, h, w.t())
            if i < len(params) - 1:
                h = m.relu(h)
        d = h - y
        return (d * d).mean()

    def clear():
        for w, b in params:
            w.grad = None
            b.grad = None

    for _ in range(3):
        forward().backward()
        clear()
    fw, bw = [], []
    for _ in range(opts.repeat):
        t0 = time.perf_counter()
        loss = forward()
        t1 = time.perf_counter()
        loss.backward()
        t2 = time.perf_counter()
        clear()
        fw.append(t1 - t0)
        bw.append(t2 - t1)
    return {"forward_ms": round(float(np.median(fw)) * 1e3, 3), "backward_ms": round(float(np.median(bw)) * 1e3, 3)}


def main():
    import ember
    out = {"benchmark": "autograd_mlp", "sizes": SIZES, "batch": BATCH, "dtype": "float32", "threads": opts.threads,
           "repeat": opts.repeat}
    out["ember"] = bench(ember, lambda a, rg: ember.from_numpy(a.copy()).requires_grad_(rg))
    try:
        import torch
        torch.set_num_threads(opts.threads)
        out["torch"] = bench(torch, lambda a, rg: torch.from_numpy(a.copy()).requires_grad_(rg))
        out["torch_version"] = torch.__version__
        out["backward_ratio_ember_over_torch"] = round(out["ember"]["backward_ms"] / out["torch"]["backward_ms"], 2)
        out["forward_ratio_ember_over_torch"] = round(out["ember"]["forward_ms"] / out["torch"]["forward_ms"], 2)
    except ImportError:
        out["torch"] = None
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
