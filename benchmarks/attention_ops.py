"""scaled_dot_product_attention, ember vs torch (same data, same thread count, alternated in one process): forward
without grad and forward + backward, causal, bool-masked and unmasked, over a few (B, H, T, E) shapes, q/k/v read
out of one (B, T, 3 H E) projection as a GPT does (non-contiguous views). Prints one JSON object
{case: {ember_us, torch_us, ratio}}: per case the minimum over rounds of the per-call mean of `inner` calls, the
libraries alternated round by round (CPU time with --cpu-time: what a shared, noisy machine still measures);
`load` is the load average at the start. With --numpy the ember side runs without its C kernels.

Run from the repo root: python benchmarks/attention_ops.py [--threads N] [--only SUBSTRING] [--numpy] [--cpu-time]
"""
import json
import os
import sys
import time

from _harness import threads_arg  # noqa: E402  (also puts src/ on sys.path)
import numpy as np  # noqa: E402

import ember  # noqa: E402
from ember.kernels.cpu.runtime import clib  # noqa: E402

SHAPES = [(16, 4, 64, 32), (4, 8, 128, 64), (1, 12, 256, 64), (8, 4, 100, 24)]


def _qkv(lib, xa, B, T, H, E, grad):
    x = lib.tensor(xa, requires_grad=grad)
    return x, [u.view(B, T, H, E).transpose(1, 2) for u in x.split(H * E, dim=2)]


def main():
    import torch
    threads = threads_arg()
    only = sys.argv[sys.argv.index("--only") + 1] if "--only" in sys.argv else ""
    clock = time.process_time if "--cpu-time" in sys.argv else time.perf_counter
    torch.set_num_threads(threads)
    ember.set_num_threads(threads)
    rng = np.random.default_rng(0)
    results = {"load": round(os.getloadavg()[0], 2), "threads": threads}
    for B, H, T, E in SHAPES:
        xa = rng.standard_normal((B, T, 3 * H * E)).astype(np.float32)
        ga = rng.standard_normal((B, H, T, E)).astype(np.float32)
        keep = np.tril(np.ones((T, T), bool)) | (rng.random((T, T)) < 0.2)
        for kind in ("causal", "mask", "none"):
            for mode in ("fwd", "fwd+bwd"):
                name = f"{mode} {kind} {B}x{H}x{T}x{E}"
                if only not in name:
                    continue
                fns = {}
                for lname, lib in (("torch", torch), ("ember", ember)):
                    x, (q, k, v) = _qkv(lib, xa, B, T, H, E, mode != "fwd")
                    kw = {"is_causal": True} if kind == "causal" else {}
                    if kind == "mask":
                        kw["attn_mask"] = lib.tensor(keep)
                    g = lib.tensor(ga)
                    sdpa = lib.nn.functional.scaled_dot_product_attention
                    if mode == "fwd":
                        def fn(lib=lib, q=q, k=k, v=v, kw=kw, sdpa=sdpa):
                            with lib.no_grad():
                                sdpa(q, k, v, **kw)
                    else:
                        def fn(x=x, q=q, k=k, v=v, kw=kw, g=g, sdpa=sdpa):
                            x.grad = None
                            sdpa(q, k, v, **kw).backward(g)
                    fns[lname] = fn
                inner = max(1, int(2e7 // (B * H * T * T * E)))
                best = {n: float("inf") for n in fns}
                for _ in range(7):
                    for lname, fn in fns.items():
                        with clib.use_c(lname != "ember" or "--numpy" not in sys.argv):
                            fn()
                            t0 = clock()
                            for _ in range(inner):
                                fn()
                            best[lname] = min(best[lname], (clock() - t0) / inner * 1e6)
                results[name] = {"ember_us": round(best["ember"], 1), "torch_us": round(best["torch"], 1),
                                 "ratio": round(best["ember"] / best["torch"], 2)}
                print(name, results[name], file=sys.stderr)
    print(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
