"""Times of the norm / softmax / loss kernels that nn_ops.py does not cover, ember vs torch (same data,
same thread count): group_norm, batch_norm (train and eval), softmax over a dim that is not the last,
and cross_entropy on (N, C, H, W) logits; each forward alone and forward+backward. With --numpy the
ember side runs its numpy fallback (C kernels off) for comparison. Prints one JSON object
{case: {ember_ms, torch_ms, ratio}} (wall-clock best of 3 rounds of best-of-7).
Run from the repo root: python benchmarks/norm_softmax_ops.py [--threads N] [--only SUBSTRING] [--numpy]"""
import json
import sys

from _harness import best as _best, threads_arg  # noqa: E402  (also puts src/ on sys.path)
import numpy as np  # noqa: E402

import ember  # noqa: E402
import ember.nn.functional as F  # noqa: E402
from ember.kernels.cpu.runtime import clib  # noqa: E402


def best(fn, reps=7):
    return _best(fn, reps)


def main():
    import torch
    threads = threads_arg()
    only = sys.argv[sys.argv.index("--only") + 1] if "--only" in sys.argv else ""
    torch.set_num_threads(threads)
    TF = torch.nn.functional
    rng = np.random.default_rng(0)

    def both(*shape, grad=False):
        a = rng.standard_normal(shape).astype(np.float32)
        e, t = ember.from_numpy(a.copy()), torch.from_numpy(a.copy())
        return (e.requires_grad_(), t.requires_grad_()) if grad else (e, t)

    x, tx = both(32, 64, 32, 32, grad=True)
    w, tw = both(64, grad=True)
    b, tb = both(64, grad=True)
    go, tgo = both(32, 64, 32, 32)
    rm, rv, trm, trv = ember.zeros(64), ember.ones(64), torch.zeros(64), torch.ones(64)
    seg, tseg = both(8, 21, 64, 64, grad=True)
    tgt = rng.integers(0, 21, (8, 64, 64))
    t_e, t_t = ember.from_numpy(tgt.copy()), torch.from_numpy(tgt.copy())
    leaves = [x, w, b, seg, tx, tw, tb, tseg]

    def fb(op, g):
        def run():
            for leaf in leaves:
                leaf.grad = None
            op().backward(g)
        return run
    cases = {
        "group_norm 32x64x32x32 g=8": (lambda: F.group_norm(x, 8, w, b), lambda: TF.group_norm(tx, 8, tw, tb)),
        "batch_norm train 32x64x32x32": (lambda: F.batch_norm(x, rm, rv, w, b, training=True),
                                         lambda: TF.batch_norm(tx, trm, trv, tw, tb, training=True)),
        "batch_norm eval 32x64x32x32": (lambda: F.batch_norm(x, rm, rv, w, b), lambda: TF.batch_norm(tx, trm, trv, tw, tb)),
        "softmax 32x64x32x32 dim=1": (lambda: F.softmax(x, 1), lambda: torch.softmax(tx, 1)),
        "cross_entropy 8x21x64x64": (lambda: F.cross_entropy(seg, t_e), lambda: TF.cross_entropy(tseg, t_t)),
    }
    bwd = {
        "group_norm 32x64x32x32 g=8 fwd+bwd": (fb(lambda: F.group_norm(x, 8, w, b), go),
                                               fb(lambda: TF.group_norm(tx, 8, tw, tb), tgo)),
        "batch_norm train 32x64x32x32 fwd+bwd": (fb(lambda: F.batch_norm(x, rm, rv, w, b, training=True), go),
                                                 fb(lambda: TF.batch_norm(tx, trm, trv, tw, tb, training=True), tgo)),
        "log_softmax 32x64x32x32 dim=1 fwd+bwd": (fb(lambda: F.log_softmax(x, 1), go),
                                                  fb(lambda: torch.log_softmax(tx, 1), tgo)),
        "cross_entropy 8x21x64x64 fwd+bwd": (fb(lambda: F.cross_entropy(seg, t_e), None),
                                             fb(lambda: TF.cross_entropy(tseg, t_t), None)),
    }
    out = {"threads": threads, "ember_c": clib.enabled() and "--numpy" not in sys.argv}

    def measure(name, fe, ft):
        if only not in name:
            return
        e = t = float("inf")
        for _ in range(3):            # interleaved, so load from other processes hits both alike
            e, t = min(e, best(fe)), min(t, best(ft))
        out[name] = {"ember_ms": round(e, 3), "torch_ms": round(t, 3), "ratio": round(e / t, 2)}
    with clib.use_c("--numpy" not in sys.argv):
        with torch.no_grad():
            for name, (fe, ft) in cases.items():
                measure(name, fe, ft)
        for name, (fe, ft) in bwd.items():
            measure(name, fe, ft)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
