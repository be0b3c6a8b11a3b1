"""Forward+backward times of the nn ops that sample, gather or align (grid_sample, cdist,
embedding_bag, ctc_loss, max_unpool2d), ember vs torch on the same float32 data and thread count.
Prints one JSON object: {case: {ember_ms, torch_ms, ratio}}. Run from the repo root:
python benchmarks/nn_sampling_grads.py [--threads N]"""
import json
import sys

from _harness import best as _best, threads_arg  # noqa: E402  (also puts src/ on sys.path)
import numpy as np  # noqa: E402

import ember  # noqa: E402


def best(fn, reps=3):
    return _best(fn, reps)


def main():
    import torch
    threads = threads_arg()
    torch.set_num_threads(threads)
    rng = np.random.default_rng(0)

    def arr(*shape, low=-1.0, high=1.0):
        return rng.uniform(low, high, shape).astype(np.float32)

    def step(mod, f, arrays, consts=()):
        """one forward + backward of sum(f(...)) over fresh leaves."""
        def run():
            if mod is ember:
                ins = [ember.from_numpy(a.copy()).requires_grad_() for a in arrays]
                ember.autograd.grad(f(mod, *ins, *consts).sum(), ins)
            else:
                ins = [torch.from_numpy(a.copy()).requires_grad_() for a in arrays]
                torch.autograd.grad(f(mod, *ins, *consts).sum(), ins)
        return run

    def fn(mod):
        return mod.nn.functional

    x, g = arr(8, 16, 32, 32), arr(8, 32, 32, 2, low=-1.1, high=1.1)
    a1, a2 = arr(256, 32), arr(256, 32)
    w = arr(10000, 64)
    idx = rng.integers(0, 10000, 4096)
    off = np.sort(rng.choice(4096, 511, replace=False))
    off = np.concatenate([[0], off[off > 0]])[:512]
    T, B, C, S = 50, 16, 20, 10
    lp = arr(T, B, C)
    tg = rng.integers(1, C, (B, S))
    pool_in = arr(16, 32, 28, 28)
    tpool, tind = torch.nn.functional.max_pool2d(torch.from_numpy(pool_in), 2, return_indices=True)
    pooled, ind = tpool.numpy(), tind.numpy()

    def lens(mod):
        return [T] * B, [S] * B

    cases = {
        "grid_sample bilinear 8x16x32x32, grid 32x32": (
            lambda m, xi, gi: fn(m).grid_sample(xi, gi, align_corners=False), [x, g], lambda m: ()),
        "grid_sample bicubic 8x16x32x32, grid 32x32": (
            lambda m, xi, gi: fn(m).grid_sample(xi, gi, "bicubic", align_corners=False), [x, g], lambda m: ()),
        "cdist p=2 256x256 M=32": (lambda m, u, v: m.cdist(u, v), [a1, a2], lambda m: ()),
        "cdist p=1 256x256 M=32": (lambda m, u, v: m.cdist(u, v, p=1.0), [a1, a2], lambda m: ()),
        "embedding_bag sum 10000x64, 4096 idx, 512 bags": (
            lambda m, wi, i, o: fn(m).embedding_bag(i, wi, o, mode="sum"), [w],
            lambda m: (m.from_numpy(idx.copy()), m.from_numpy(off.copy()))),
        "embedding_bag max 10000x64, 4096 idx, 512 bags": (
            lambda m, wi, i, o: fn(m).embedding_bag(i, wi, o, mode="max"), [w],
            lambda m: (m.from_numpy(idx.copy()), m.from_numpy(off.copy()))),
        "ctc_loss T=50 B=16 C=20 S=10": (
            lambda m, li, t: fn(m).ctc_loss(fn(m).log_softmax(li, -1), t, *lens(m)), [lp],
            lambda m: (m.from_numpy(tg.copy()),)),
        "max_unpool2d 16x32x14x14 k2": (
            lambda m, pi, i: fn(m).max_unpool2d(pi, i, 2), [pooled], lambda m: (m.from_numpy(ind.copy()),)),
    }
    out = {"threads": threads}
    for name, (f, arrays, consts) in cases.items():
        fe, ft = step(ember, f, arrays, consts(ember)), step(torch, f, arrays, consts(torch))
        e = t = float("inf")
        for _ in range(2):            # interleave the two so load from other processes hits both alike
            e, t = min(e, best(fe)), min(t, best(ft))
        out[name] = {"ember_ms": round(e, 3), "torch_ms": round(t, 3), "ratio": round(e / t, 2)}
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
