"""Stride-1 convolution kernels, one call each: the direct loop (conv_direct), im2col + OpenBLAS (conv_im2col) and
torch's aten::convolution / convolution_backward, forward, input gradient and weight gradient. The
thresholds in kernels/cpu/conv_direct.py (FWD_LIMIT, GRAD_INPUT_LIMIT, GRAD_WEIGHT_LIMIT) come from these figures.

    python benchmarks/conv_direct.py [--threads N]

--threads 1 (default) times one core: ember's pool and BLAS pinned to one thread, torch.set_num_threads(1),
process CPU time; that comparison is stable on a shared machine. --threads 2 times wall clock with ember's
default pool. Prints one JSON object {shape: {kernel_path: ms}} (median of 15)."""
import json
import os
import sys
import time

if "--threads" not in sys.argv or sys.argv[sys.argv.index("--threads") + 1] == "1":
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    os.environ.setdefault("OMP_NUM_THREADS", "1")

from _harness import threads_arg  # noqa: E402  (also puts src/ on sys.path)
import numpy as np  # noqa: E402

from ember.kernels.cpu import conv_im2col, conv_direct  # noqa: E402

CASES = [  # x shape, weight shape, padding
    ((64, 1, 28, 28), (6, 1, 5, 5), 2),        # LeNet conv1 (train_step.py's CNN)
    ((64, 6, 14, 14), (16, 6, 5, 5), 0),       # LeNet conv2
    ((64, 16, 28, 28), (32, 16, 5, 5), 0),     # nn_ops.py's conv2d
    ((32, 32, 16, 16), (32, 32, 3, 3), 1),
    ((32, 64, 16, 16), (64, 64, 3, 3), 1),
    ((16, 3, 64, 64), (16, 3, 3, 3), 1),
]


def median_ms(fn, clock, reps=15):
    fn()
    ts = []
    for _ in range(reps):
        t = clock()
        fn()
        ts.append(clock() - t)
    return float(np.median(ts)) * 1e3


def main():
    import torch
    threads = threads_arg(1)
    torch.set_num_threads(threads)
    clock = time.perf_counter
    if threads == 1:
        conv_im2col.workers = conv_direct.workers = lambda: 1
        clock = time.process_time
    rng = np.random.default_rng(0)
    out = {}
    for xs, ws, p in CASES:
        x = rng.standard_normal(xs).astype(np.float32)
        w = (rng.standard_normal(ws) * 0.1).astype(np.float32)
        b = rng.standard_normal(ws[0]).astype(np.float32)
        pd, dl, st = (p, p), (1, 1), (1, 1)
        o = tuple(s + 2 * p - ws[-1] + 1 for s in xs[2:])
        g = rng.standard_normal((xs[0], ws[0]) + o).astype(np.float32)
        tx, tw, tb, tg = (torch.from_numpy(a) for a in (x, w, b, g))
        r = {
            "direct_fwd": median_ms(lambda: conv_direct.forward(x, w, b, pd, dl, 1), clock),
            "im2col_fwd": median_ms(lambda: conv_im2col.forward(x, w, b, st, pd, dl, 1, o), clock),
            "torch_fwd": median_ms(lambda: torch.ops.aten.convolution(tx, tw, tb, [1, 1], [p, p], [1, 1], False,
                                                                       [0, 0], 1), clock),
            "direct_grad_input": median_ms(lambda: conv_direct.input_grad(g, w, xs[2:], pd, dl, 1), clock),
            "im2col_grad_input": median_ms(lambda: conv_im2col.input_grad(g, w, xs[2:], st, pd, dl, 1), clock),
            "direct_grad_weight": median_ms(lambda: conv_direct.weight_grad(x, g, w.shape, pd, dl, 1), clock),
            "im2col_grad_weight": median_ms(lambda: conv_im2col.weight_grad(x, g, w.shape, st, pd, dl, 1), clock),
            "torch_grad_input_and_weight": median_ms(lambda: torch.ops.aten.convolution_backward(
                tg, tx, tw, [ws[0]], [1, 1], [p, p], [1, 1], False, [0, 0], 1, [True, True, False]), clock),
            "rows_x_taps": ws[0] * int(np.prod(ws[1:])),
            "ember_path_fwd": "direct" if conv_direct.usable(x, ws, st, pd, dl, 1) else "im2col",
            "ember_path_grad_weight": "direct" if conv_direct.usable(x, ws, st, pd, dl, 1, o, conv_direct.GRAD_WEIGHT_LIMIT)
            else "im2col",
        }
        out[f"{xs} * {ws} pad {p}"] = {k: round(v, 3) if isinstance(v, float) else v for k, v in r.items()}
    print(json.dumps({"threads": threads, "cases": out}, indent=1))


if __name__ == "__main__":
    main()
