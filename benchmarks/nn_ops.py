"""nn op times, ember vs torch (same data, same thread count): forward alone, then forward+backward
(the op on inputs that require grad, then .backward() with a fixed grad_output), plus matmul GFLOP/s
vs numpy's own BLAS. Prints one JSON object: {op: {ember_ms, torch_ms, ratio, ember_cpu_ms, torch_cpu_ms,
cpu_ratio}, matmul: {...}} (wall-clock best of 15, and process CPU time summed over threads).
Run from the repo root: python benchmarks/nn_ops.py [--threads N] [--only SUBSTRING]"""
import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src"))
import numpy as np  # noqa: E402

import ember  # noqa: E402


def best(fn, reps=5, inner=1, cpu=None):
    """Best wall ms over reps; if `cpu` is a list, the best process CPU ms (all threads) is appended
    to it (on a shared, oversubscribed machine CPU time tracks the work done far more steadily)."""
    fn()
    ts, cs = [], []
    for _ in range(reps):
        t, c = time.perf_counter(), time.process_time()
        for _ in range(inner):
            fn()
        ts.append((time.perf_counter() - t) / inner)
        cs.append((time.process_time() - c) / inner)
    if cpu is not None:
        cpu.append(min(cs) * 1e3)
    return min(ts) * 1e3


def main():
    import torch
    threads = int(sys.argv[sys.argv.index("--threads") + 1]) if "--threads" in sys.argv else 2
    torch.set_num_threads(threads)
    F = torch.nn.functional
    rng = np.random.default_rng(0)

    def both(*shape, grad=False):
        a = rng.standard_normal(shape).astype(np.float32)
        e, t = ember.from_numpy(a.copy()), torch.from_numpy(a.copy())
        return (e.requires_grad_(), t.requires_grad_()) if grad else (e, t)

    x, tx = both(64, 16, 28, 28)
    w, tw = both(32, 16, 5, 5)
    b, tb = both(32)
    p, tp = both(64, 32, 56, 56)
    ln, tln = both(64, 128, 512)
    lw, tlw = both(512)
    sm, tsm = both(256, 128, 128)
    logits, tlogits = both(4096, 1000)
    tgt = rng.integers(0, 1000, 4096)
    t_e, t_t = ember.from_numpy(tgt.copy()), torch.from_numpy(tgt.copy())
    cases = {
        "conv2d N=64 16->32 28x28 k5": (lambda: ember.conv2d(x, w, b), lambda: F.conv2d(tx, tw, tb)),
        "max_pool2d 64x32x56x56 k2": (lambda: ember.max_pool2d(p, 2), lambda: F.max_pool2d(tp, 2)),
        "layer_norm 64x128x512": (lambda: ember.layer_norm(ln, [512], lw, lw), lambda: F.layer_norm(tln, [512], tlw, tlw)),
        "softmax 256x128x128 dim=-1": (lambda: ember.softmax(sm, -1), lambda: torch.softmax(tsm, -1)),
        "cross_entropy 4096x1000": (lambda: ember._nn.cross_entropy_loss(logits, t_e),
                                    lambda: F.cross_entropy(tlogits, t_t)),
    }
    gx, tgx = both(64, 16, 28, 28, grad=True)
    gw, tgw = both(32, 16, 5, 5, grad=True)
    gb, tgb = both(32, grad=True)
    gp, tgp = both(64, 32, 56, 56, grad=True)
    gln, tgln = both(64, 128, 512, grad=True)
    glw, tglw = both(512, grad=True)
    glb, tglb = both(512, grad=True)
    gsm, tgsm = both(256, 128, 128, grad=True)
    glog, tglog = both(4096, 1000, grad=True)
    go_conv, tgo_conv = both(64, 32, 24, 24)
    go_pool, tgo_pool = both(64, 32, 28, 28)
    go_ln, tgo_ln = both(64, 128, 512)
    go_sm, tgo_sm = both(256, 128, 128)
    leaves = [gx, gw, gb, gp, gln, glw, glb, gsm, glog]
    tleaves = [tgx, tgw, tgb, tgp, tgln, tglw, tglb, tgsm, tglog]

    def fb(op, go):
        def run():
            for leaf in leaves + tleaves:
                leaf.grad = None      # each repetition computes fresh grads (no accumulation)
            op().backward(go)
        return run
    backward_cases = {
        "conv2d N=64 16->32 28x28 k5 fwd+bwd": (fb(lambda: ember.conv2d(gx, gw, gb), go_conv),
                                                fb(lambda: F.conv2d(tgx, tgw, tgb), tgo_conv)),
        "max_pool2d 64x32x56x56 k2 fwd+bwd": (fb(lambda: ember.max_pool2d(gp, 2), go_pool),
                                              fb(lambda: F.max_pool2d(tgp, 2), tgo_pool)),
        "layer_norm 64x128x512 fwd+bwd": (fb(lambda: ember.layer_norm(gln, [512], glw, glb), go_ln),
                                          fb(lambda: F.layer_norm(tgln, [512], tglw, tglb), tgo_ln)),
        "softmax 256x128x128 dim=-1 fwd+bwd": (fb(lambda: ember.softmax(gsm, -1), go_sm),
                                               fb(lambda: torch.softmax(tgsm, -1), tgo_sm)),
        "cross_entropy 4096x1000 fwd+bwd": (fb(lambda: ember._nn.cross_entropy_loss(glog, t_e), None),
                                            fb(lambda: F.cross_entropy(tglog, t_t), None)),
    }
    only = sys.argv[sys.argv.index("--only") + 1] if "--only" in sys.argv else ""
    out = {"threads": threads}

    def measure(name, fe, ft):
        if only not in name:
            return
        e = t = float("inf")
        ec, tc = [], []
        for _ in range(3):            # interleave the two so load from other processes hits both alike
            e, t = min(e, best(fe, cpu=ec)), min(t, best(ft, cpu=tc))
        out[name] = {"ember_ms": round(e, 3), "torch_ms": round(t, 3), "ratio": round(e / t, 2),
                     "ember_cpu_ms": round(min(ec), 3), "torch_cpu_ms": round(min(tc), 3),
                     "cpu_ratio": round(min(ec) / min(tc), 2)}
    with torch.no_grad():
        for name, (fe, ft) in cases.items():
            measure(name, fe, ft)
    for name, (fe, ft) in backward_cases.items():
        measure(name, fe, ft)
    if only:
        print(json.dumps(out, indent=1))
        return
    n = 1024
    a, ta = both(n, n)
    c, tc = both(n, n)
    an, cn = a.numpy(), c.numpy()
    flops = 2 * n ** 3 / 1e9
    te = tn = tt = float("inf")
    for _ in range(3):
        te = min(te, best(lambda: ember.matmul(a, c), inner=3))
        tn = min(tn, best(lambda: np.matmul(an, cn), inner=3))
        tt = min(tt, best(lambda: torch.matmul(ta, tc), inner=3))
    ge, gn, gt = flops / (te / 1e3), flops / (tn / 1e3), flops / (tt / 1e3)
    out["matmul 1024x1024 f32"] = {"ember_gflops": round(ge, 1), "numpy_gflops": round(gn, 1),
                                   "torch_gflops": round(gt, 1), "ember_vs_numpy": round(ge / gn, 3)}
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
