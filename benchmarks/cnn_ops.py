"""The ops of train_step.py's CNN step one by one (LeNet-style, batch 64 on 28x28), ember and torch side by side at
1 and 2 threads, as JSON: forward (conv, relu, max pool) and backward (max-pool backward, relu backward, convolution
backward), each the aten-level call on the step's shapes, outside autograd and without a profiler.

    python benchmarks/cnn_ops.py [--reps 40] [--threads 1,2] [--cpu-time] [--only conv2_fwd,pool1_fwd] [--src DIR]

Calls alternate between the libraries; each row reports min and median us per call and the ratio of the minima.
--cpu-time times process CPU (stable at one thread on a shared machine; at 2 threads it adds the threads' CPU).
--src chooses ember's tree (default: this checkout's src/), so two trees compare in alternated runs.

Why not train_step_ops.py: its autograd profiler is a dispatch mode, and ember's relu backward leaves its one-pass
C path under a mode (the profile shows where / le / zeros_like instead), and the profiler's overhead is in every
figure. Relu's backward here is torch's threshold_backward against ember's relu_grad formula (its C path)."""
import argparse
import json
import os
import sys
import time

import numpy as np


def _cases(lib, relu_backward):
    """{name: fn} for one library on fixed random data."""
    rng = np.random.default_rng(0)

    def arr(*s, scale=1.0):
        return lib.tensor((rng.standard_normal(s) * scale).astype(np.float32))
    x, w1, b1 = arr(64, 1, 28, 28), arr(6, 1, 5, 5, scale=0.2), arr(6)
    h1, p1, w2, b2 = arr(64, 6, 28, 28), arr(64, 6, 14, 14), arr(16, 6, 5, 5, scale=0.1), arr(16)
    h2, g2, g1 = arr(64, 16, 10, 10), arr(64, 16, 10, 10), arr(64, 6, 28, 28)
    gp2, gp1 = arr(64, 16, 5, 5), arr(64, 6, 14, 14)
    F, A = lib.nn.functional, lib.ops.aten
    _, i1 = A.max_pool2d_with_indices(h1, [2, 2], [2, 2])
    _, i2 = A.max_pool2d_with_indices(h2, [2, 2], [2, 2])
    r1, r2 = F.relu(h1), F.relu(h2)
    return {
        "conv1_fwd": lambda: F.conv2d(x, w1, b1, padding=2),
        "relu1_fwd": lambda: F.relu(h1),
        "pool1_fwd": lambda: A.max_pool2d_with_indices(h1, [2, 2], [2, 2]),
        "conv2_fwd": lambda: F.conv2d(p1, w2, b2),
        "relu2_fwd": lambda: F.relu(h2),
        "pool2_fwd": lambda: A.max_pool2d_with_indices(h2, [2, 2], [2, 2]),
        "pool2_bwd": lambda: A.max_pool2d_with_indices_backward(gp2, h2, [2, 2], [2, 2], [0, 0], [1, 1], False, i2),
        "relu2_bwd": lambda: relu_backward(g2, r2),
        "conv2_bwd": lambda: A.convolution_backward(g2, p1, w2, [16], [1, 1], [0, 0], [1, 1], False, [0, 0], 1,
                                                    [True, True, True]),
        "pool1_bwd": lambda: A.max_pool2d_with_indices_backward(gp1, h1, [2, 2], [2, 2], [0, 0], [1, 1], False, i1),
        "relu1_bwd": lambda: relu_backward(g1, r1),
        "conv1_bwd": lambda: A.convolution_backward(g1, x, w1, [6], [1, 1], [2, 2], [1, 1], False, [0, 0], 1,
                                                    [False, True, True]),
    }


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=40)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--cpu-time", action="store_true")
    ap.add_argument("--only", default=None)
    ap.add_argument("--src", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src"))
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    sys.path.insert(0, args.src)
    import ember
    import torch
    from ember.autograd.formulas.activation import relu_grad
    clock = time.process_time if args.cpu_time else time.perf_counter
    with torch.no_grad(), ember.no_grad():
        fns = {"torch": _cases(torch, lambda g, r: torch.ops.aten.threshold_backward(g, r, 0)),
               "ember": _cases(ember, relu_grad)}
        names = [n for n in fns["torch"] if not args.only or n in args.only.split(",")]
        res = {"load": os.getloadavg(), "ember_src": os.path.abspath(args.src), "cpu_time": args.cpu_time, "ops": {}}
        for nt in (int(t) for t in args.threads.split(",")):
            torch.set_num_threads(nt)
            ember.set_num_threads(nt)
            for name in names:
                ts = {"torch": [], "ember": []}
                for lname in ts:
                    fns[lname][name]()                  # warm-up
                for _ in range(args.reps):
                    for lname in ts:
                        t0 = clock()
                        fns[lname][name]()
                        ts[lname].append((clock() - t0) * 1e6)
                row = {f"{ln}_{s}_us": round(float(f(v)), 1) for ln, v in ts.items()
                       for s, f in (("min", np.min), ("median", np.median))}
                row["ratio_min"] = round(row["ember_min_us"] / row["torch_min_us"], 2)
                res["ops"][f"{name}@{nt}"] = row
                print(f"{name}@{nt:<3} {json.dumps(row)}", file=sys.stderr)
    text = json.dumps(res, indent=1)
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
    return res


if __name__ == "__main__":
    main()
