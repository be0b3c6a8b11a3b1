"""BLAS users beyond the split gemm at 2 threads, ember vs torch side by side, as JSON.

    python benchmarks/blas_threads.py [--threads 2] [--only lstm,gru,conv1,linear,mm,linalg] [--reps 15]
                                      [--src DIR] [--out results.json]

Once ember splits a float32 gemm over its own C pool it holds OpenBLAS at one thread (runtime/blas.py
`hold_single`), so every other caller of numpy's BLAS runs on one core unless it splits its products itself:
recurrent layers (rnn_layer.py), a convolution of one image (conv_im2col.py runs the images of a batch on the
calling thread), products below the split threshold, float64 products, numpy.linalg. Each case reports, per
library, the fastest call's wall time (ms) and the process CPU time of that call (cpu / wall near 2 says both
cores worked), after a first split gemm has made ember hold OpenBLAS (as in any train step). Rounds alternate the
libraries. `--src DIR` imports ember from DIR (e.g. an older checkout's src/, for before/after in one script).
"""
import argparse
import json
import os
import sys
import time

import numpy as np


def _timed(fn, reps):
    """(min wall ms, cpu ms of that call) over reps calls after one warm-up."""
    fn()
    best = (1e9, 0.0)
    for _ in range(reps):
        c, t = time.process_time(), time.perf_counter()
        fn()
        w, c = time.perf_counter() - t, time.process_time() - c
        if w < best[0]:
            best = (w, c)
    return round(best[0] * 1e3, 3), round(best[1] * 1e3, 3)


def cases(lib, only):
    """{name: callable} of the workloads in `only` for library `lib` (ember or torch)."""
    rng = np.random.default_rng(0)
    t = lib.tensor
    out = {}

    def f32(*shape, scale=1.0):
        return (rng.standard_normal(shape) * scale).astype(np.float32)

    if "lstm" in only or "gru" in only:
        for mode in ("LSTM", "GRU"):
            if mode.lower() not in only:
                continue
            lib.manual_seed(0)
            m = getattr(lib.nn, mode)(128, 256)
            x = t(f32(20, 32, 128), requires_grad=True)

            def rnn(m=m, x=x):
                y, _ = m(x)
                y.sum().backward()
            out[f"{mode.lower()} 128->256 L20 N32 fwd+bwd"] = rnn
    if "conv1" in only:
        x = t(f32(1, 64, 56, 56), requires_grad=True)
        w = t(f32(128, 64, 3, 3, scale=0.05), requires_grad=True)

        def conv1():
            lib.nn.functional.conv2d(x, w, stride=2, padding=1).sum().backward()
        out["conv2d 1x64x56x56 -> 128 3x3 s2 fwd+bwd"] = conv1
        xs = t(f32(1, 64, 56, 56))
        out["conv2d 1x64x56x56 -> 128 3x3 s2 no grad"] = lambda: lib.nn.functional.conv2d(xs, w.detach(), stride=2,
                                                                                         padding=1)
    if "linear" in only:
        for m_ in (28, 64, 128):
            x, w, b = t(f32(m_, 128)), t(f32(384, 128, scale=0.1)), t(f32(384))
            with lib.no_grad():
                out[f"linear {m_}x128 -> 384 no grad"] = (lambda x=x, w=w, b=b: lib.nn.functional.linear(x, w, b))
        x, w = t(f32(128, 784)), t(f32(512, 784, scale=0.05), requires_grad=True)
        out["linear 128x784 -> 512 fwd+bwd"] = lambda: lib.nn.functional.linear(x, w).sum().backward()
    if "mm" in only:
        for (m_, k, n) in ((128, 512, 10), (64, 128, 128), (128, 128, 96), (256, 256, 256)):
            a, b = t(f32(m_, k)), t(f32(k, n))
            out[f"mm f32 {m_}x{k}x{n} ({m_ * k * n / 1e6:.2f}M)"] = (lambda a=a, b=b: lib.mm(a, b))
        a, b = t(rng.standard_normal((512, 512))), t(rng.standard_normal((512, 512)))
        out["mm f64 512x512x512"] = (lambda a=a, b=b: lib.mm(a, b))
    if "linalg" in only:
        for n in (128, 512):
            a = rng.standard_normal((n, n)).astype(np.float32)
            spd = t((a @ a.T + n * np.eye(n)).astype(np.float32))
            a, b = t(a), t(f32(n, n))
            out[f"linalg.solve f32 {n}"] = (lambda a=a, b=b: lib.linalg.solve(a, b))
            out[f"linalg.inv f32 {n}"] = (lambda a=a: lib.linalg.inv(a))
            out[f"linalg.cholesky f32 {n}"] = (lambda s=spd: lib.linalg.cholesky(s))
            out[f"linalg.eigh f32 {n}"] = (lambda s=spd: lib.linalg.eigh(s))
            out[f"linalg.svd f32 {n}"] = (lambda a=a: lib.linalg.svd(a, full_matrices=False))
        a = rng.standard_normal((256, 32, 32)).astype(np.float32) + 8 * np.eye(32, dtype=np.float32)
        a, b = t(a), t(f32(256, 32, 8))
        out["linalg.solve f32 256x32x32 batch"] = (lambda a=a, b=b: lib.linalg.solve(a, b))
    return out


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--only", default="lstm,gru,conv1,linear,mm,linalg")
    ap.add_argument("--reps", type=int, default=15)
    ap.add_argument("--src", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src"))
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    sys.path.insert(0, args.src)
    import ember
    import torch
    only = set(args.only.split(","))
    torch.set_num_threads(args.threads)
    ember.set_num_threads(args.threads)
    big = ember.ones(512, 512)
    big @ big                               # a first split gemm: OpenBLAS held at one thread, as in a train step
    made = {"torch": cases(torch, only), "ember": cases(ember, only)}
    res = {"threads": args.threads, "load": os.getloadavg(), "ember_src": os.path.abspath(args.src), "cases": {}}
    for name in made["ember"]:
        row = {}
        for r in range(2):
            for lname in ("torch", "ember"):
                w, c = _timed(made[lname][name], args.reps)
                if r == 0 or w < row[f"{lname}_ms"]:
                    row[f"{lname}_ms"], row[f"{lname}_cpu_ms"] = w, c
        row["ratio"] = round(row["ember_ms"] / row["torch_ms"], 2)
        res["cases"][name] = row
        print(f"{name:45s} {json.dumps(row)}", file=sys.stderr)
    text = json.dumps(res, indent=1)
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
