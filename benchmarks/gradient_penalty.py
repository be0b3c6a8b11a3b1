"""Second order through a small CNN: one WGAN-GP style step (loss + ||d loss / d x||^2, then grads of
the parameters: double backward through conv, batch_norm, relu, max_pool, log_softmax, nll_loss),
and a plain first-order step for comparison, ember vs torch. Prints one JSON object (ms per step).

    python benchmarks/gradient_penalty.py [--repeat N] [--batch N]
"""
import argparse
import json
import os
import sys
import time

ap = argparse.ArgumentParser()
ap.add_argument("--repeat", type=int, default=10)
ap.add_argument("--batch", type=int, default=16)
opts = ap.parse_args()
os.environ.setdefault("OMP_NUM_THREADS", "1")
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src"))

import numpy as np  # noqa: E402

rng = np.random.default_rng(0)
SHAPES = {"w1": (8, 3, 3, 3), "b1": (8,), "g": (8,), "beta": (8,), "w2": (16, 8, 3, 3), "b2": (16,),
          "w3": (10, 16 * 4 * 4), "b3": (10,)}
PARAMS = {k: rng.standard_normal(s) * 0.2 for k, s in SHAPES.items()}
X = rng.standard_normal((opts.batch, 3, 16, 16))
Y = rng.integers(0, 10, opts.batch)


def loss_fn(F, T, x, p):
    h = F.conv2d(x, p["w1"], p["b1"], padding=1)
    h = F.max_pool2d(F.relu(F.batch_norm(h, None, None, p["g"], p["beta"], training=True)), 2)
    h = F.max_pool2d(F.relu(F.conv2d(h, p["w2"], p["b2"], padding=1)), 2)
    return F.nll_loss(F.log_softmax(F.linear(h.flatten(1), p["w3"], p["b3"]), 1), T(Y))


def bench(lib, F, T, tensor):
    p = {k: tensor(v).requires_grad_() for k, v in PARAMS.items()}
    names = sorted(p)

    def penalty_step():
        x = tensor(X).requires_grad_()
        loss = loss_fn(F, T, x, p)
        gx, = lib.autograd.grad(loss, x, create_graph=True)
        lib.autograd.grad(loss + (gx * gx).sum(), [p[k] for k in names])

    def plain_step():
        lib.autograd.grad(loss_fn(F, T, tensor(X), p), [p[k] for k in names])

    out = {}
    for name, step in (("first_order_ms", plain_step), ("gradient_penalty_ms", penalty_step)):
        step()
        ts = []
        for _ in range(opts.repeat):
            t0 = time.perf_counter()
            step()
            ts.append(time.perf_counter() - t0)
        out[name] = round(1e3 * float(np.median(ts)), 2)
    return out


import ember  # noqa: E402

res = {"batch": opts.batch,
       "ember": bench(ember, ember.nn.functional, ember.from_numpy,
                      lambda a: ember.tensor(a.tolist(), dtype=ember.float64))}
try:
    import torch
    torch.set_num_threads(1)
    res["torch"] = bench(torch, torch.nn.functional, torch.from_numpy, lambda a: torch.tensor(a, dtype=torch.float64))
except ImportError:
    pass
print(json.dumps(res))
