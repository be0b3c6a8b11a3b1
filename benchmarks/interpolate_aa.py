"""F.interpolate(antialias=True) times, ember vs torch: forward, and forward+backward, for a few
downsampling / upsampling shapes. Prints one JSON object {case: {ember_ms, torch_ms, ratio}} (best of 5).
Run from the repo root: python benchmarks/interpolate_aa.py [--threads N]"""
import json
import sys

from _harness import best as _best, threads_arg  # noqa: E402  (also puts src/ on sys.path)
import numpy as np  # noqa: E402

import ember  # noqa: E402


def best(fn, reps=5):
    return _best(fn, reps)


def main():
    import torch
    threads = threads_arg()
    torch.set_num_threads(threads)
    rng = np.random.default_rng(0)
    cases = [("bilinear", (4, 3, 512, 512), (128, 128)), ("bicubic", (4, 3, 512, 512), (128, 128)),
             ("bicubic", (8, 3, 224, 224), (64, 96)), ("bilinear", (8, 3, 64, 64), (160, 160)),
             ("lanczos", (2, 3, 256, 256), (100, 100))]
    out = {}
    for mode, shape, size in cases:
        a = rng.standard_normal(shape).astype(np.float32)
        for grad in (False, True):
            e, t = ember.from_numpy(a.copy()), torch.from_numpy(a.copy())
            if grad:
                e.requires_grad_()
                t.requires_grad_()

            def run(lib, x):
                y = lib.nn.functional.interpolate(x, size=size, mode=mode, antialias=True)
                if grad:
                    y.sum().backward()
            em, tm = best(lambda: run(ember, e)), best(lambda: run(torch, t))
            key = f"{mode} {'x'.join(map(str, shape))} -> {size[0]}x{size[1]}{' fwd+bwd' if grad else ''}"
            out[key] = {"ember_ms": round(em, 2), "torch_ms": round(tm, 2), "ratio": round(em / tm, 2)}
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
