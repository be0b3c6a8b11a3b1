"""Train-step benchmark (forward + backward + optimizer step), ember vs torch eager, ms/step as JSON.

    python benchmarks/train_step.py [--steps 20] [--only mlp,cnn,gpt,gpt_plain,generate] [--out results.json]
                                    [--threads N] [--cpu-time]

Each row also gives the load average when it started (`load`: on a shared machine the ratios move with it) and
`ember_pool`, what ember's C thread pool did during ember's part of the row (runtime/flat.py's pool_stats, per
step or per generated token): split jobs, the share a worker joined, the share published while it slept (it must
be woken, tens of microseconds late on a VM), the caller's wait for a joined worker, and the share run on the
caller alone after a long wait for a preempted worker (csrc/parallel.c's EP_LONG_WAIT_NS).

--threads sets torch's intra-op threads (default: every core); numpy's BLAS threads follow the environment, so
for a one-thread comparison run `OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 ... --threads 1`. --cpu-time reports
process CPU time per step instead of wall time: on a machine shared with other jobs, wall time mostly measures
waiting for a core (and multi-threaded runs spin), while one-thread CPU time stays comparable between runs.

Workloads (issue 5): MLP 784-512-512-10 batch 128 SGD(momentum=0.9); LeNet-style CNN batch 64 on 28x28 with SGD;
4-layer GPT (n_embd 128, 4 heads, block 64, batch 16, vocab 65) with AdamW, attention by
scaled_dot_product_attention (gpt) or plain masked softmax (gpt_plain); `generate`: greedy generation with that
GPT (plain attention) at batch 1, no KV cache, tokens/s (ratio ember / torch: higher is better). The same model code runs on both
libraries (`lib` is ember or torch); a workload whose backward is not available yet reports its error.
"""
import argparse
import json
import math
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src"))


def mlp(lib):
    nn = lib.nn
    model = nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10))
    opt = lib.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    x = lib.tensor(np.random.default_rng(0).standard_normal((128, 784)).astype(np.float32))
    y = lib.tensor(np.random.default_rng(1).integers(0, 10, 128))
    return model, opt, lambda: nn.functional.cross_entropy(model(x), y)


def cnn(lib):
    nn = lib.nn
    model = nn.Sequential(nn.Conv2d(1, 6, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),      # (64, 6, 14, 14)
                          nn.Conv2d(6, 16, 5), nn.ReLU(), nn.MaxPool2d(2),                # (64, 16, 5, 5)
                          nn.Flatten(), nn.Linear(400, 120), nn.ReLU(), nn.Linear(120, 84), nn.ReLU(),
                          nn.Linear(84, 10))
    opt = lib.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    x = lib.tensor(np.random.default_rng(0).standard_normal((64, 1, 28, 28)).astype(np.float32))
    y = lib.tensor(np.random.default_rng(1).integers(0, 10, 64))
    return model, opt, lambda: nn.functional.cross_entropy(model(x), y)


def gpt_model(lib, attention="sdpa"):
    """The GPT of the gpt workloads: `attention` "sdpa" (F.scaled_dot_product_attention) or "plain"
    (q @ k^T, masked_fill, softmax, @ v); it takes (B, T) token ids, any T <= 64."""
    nn, F = lib.nn, lib.nn.functional
    C, H, TMAX, V, L = 128, 4, 64, 65, 4

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln_1, self.ln_2 = nn.LayerNorm(C), nn.LayerNorm(C)
            self.c_attn, self.c_proj = nn.Linear(C, 3 * C), nn.Linear(C, C)
            self.fc, self.proj = nn.Linear(C, 4 * C), nn.Linear(4 * C, C)

        def forward(self, x):
            B, T, _ = x.shape
            q, k, v = self.c_attn(self.ln_1(x)).split(C, dim=2)
            q, k, v = (t.view(B, T, H, C // H).transpose(1, 2) for t in (q, k, v))     # (B, H, T, hs)
            if attention == "sdpa":
                y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            else:
                att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(C // H))              # (B, H, T, T)
                att = F.softmax(att.masked_fill(mask[:T, :T], float("-inf")), dim=-1)
                y = att @ v
            y = y.transpose(1, 2).contiguous().view(B, T, C)
            x = x + self.c_proj(y)
            return x + self.proj(F.gelu(self.fc(self.ln_2(x))))

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.wte, self.wpe = nn.Embedding(V, C), nn.Embedding(TMAX, C)
            self.h = nn.ModuleList([Block() for _ in range(L)])
            self.ln_f, self.head = nn.LayerNorm(C), nn.Linear(C, V, bias=False)

        def forward(self, idx):
            x = self.wte(idx) + self.wpe(lib.arange(idx.shape[1]))
            for b in self.h:
                x = b(x)
            return self.head(self.ln_f(x))

    mask = lib.ones(TMAX, TMAX, dtype=lib.bool).triu(1)
    return GPT()


def gpt(lib, attention="sdpa"):
    B, T, V = 16, 64, 65
    model = gpt_model(lib, attention)
    opt = lib.optim.AdamW(model.parameters(), lr=3e-4)
    idx = lib.tensor(np.random.default_rng(0).integers(0, V, (B, T)))
    tgt = lib.tensor(np.random.default_rng(1).integers(0, V, (B, T)))
    return model, opt, lambda: lib.nn.functional.cross_entropy(model(idx).view(-1, V), tgt.view(-1))


def gpt_plain(lib):
    return gpt(lib, "plain")


def generate_tokens_per_s(lib, new_tokens=48, attention="plain", clock=time.perf_counter):
    """Greedy generation at batch 1 without a KV cache (the whole prefix runs again for every token), as
    tokens per second: the per-op overhead of a forward of ~200 small ops decides it."""
    lib.manual_seed(0)
    model = gpt_model(lib, attention).eval()
    idx = lib.tensor([[1, 2, 3, 4]])
    with lib.no_grad():
        model(idx)                                      # warm-up
        t0 = clock()
        for _ in range(new_tokens):
            nxt = model(idx[:, -64:])[:, -1, :].argmax(-1, keepdim=True)
            idx = lib.cat([idx, nxt], dim=1)
        return new_tokens / (clock() - t0)


WORKLOADS = {"mlp": mlp, "cnn": cnn, "gpt": gpt, "gpt_plain": gpt_plain}


def _pool_stats(reset=False):
    """ember's C pool counters (runtime/flat.py pool_stats), or None when C is off or ember predates them."""
    try:
        from ember.kernels.cpu.runtime.flat import pool_stats
    except ImportError:
        return None
    return pool_stats(reset)


def _pool_row(stats, per):
    """The pool counters of a row's ember part as shares (`per`: steps or tokens the counters cover)."""
    if not stats or not per:
        return None
    jobs = stats["jobs"]
    return {"jobs_per": round(jobs / per, 1), "joined": round(stats["joined"] / max(1, jobs), 2),
            "asleep": round(stats["asleep"] / max(1, jobs), 2),
            "wait_us_per": round(stats["wait_ns"] / 1e3 / per, 1),
            "backed_off": round(stats.get("backed_off", 0) / max(1, jobs), 2)}


def bench(lib, make, steps, warmup=3, clock=time.perf_counter):
    lib.manual_seed(0)
    model, opt, loss_fn = make(lib)

    def step():
        opt.zero_grad(set_to_none=True)
        loss = loss_fn()
        loss.backward()
        opt.step()
        return loss

    for _ in range(warmup):
        step()
    times = []
    for _ in range(steps):
        t0 = clock()
        step()
        times.append((clock() - t0) * 1e3)
    return float(np.median(times))


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--only", default="mlp,cnn,gpt,gpt_plain,generate")
    ap.add_argument("--out", default=None)
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--cpu-time", action="store_true")
    args = ap.parse_args(argv)
    import ember
    import torch
    torch.set_num_threads(args.threads or len(os.sched_getaffinity(0)))
    if args.threads:
        ember.set_num_threads(args.threads)     # both libraries alike (ember's pool and numpy's BLAS)
    clock = time.process_time if args.cpu_time else time.perf_counter
    results = {}
    for name in args.only.split(","):
        row = {"load": round(os.getloadavg()[0], 2)}
        if name == "generate":
            for libname, lib in (("torch", torch), ("ember", ember)):
                if lib is ember:
                    _pool_stats(reset=True)
                row[f"{libname}_tokens_per_s"] = round(float(np.median(
                    [generate_tokens_per_s(lib, clock=clock) for _ in range(3)])), 1)
            row["ember_pool"] = _pool_row(_pool_stats(), 3 * 49)      # (forwards: 48 tokens and a warm-up, x3)
            row["ratio"] = round(row["ember_tokens_per_s"] / row["torch_tokens_per_s"], 2)
            results[name] = row
            print(name, json.dumps(row), file=sys.stderr)
            continue
        for libname, lib in (("torch", torch), ("ember", ember)):
            if lib is ember:
                _pool_stats(reset=True)
            try:
                row[f"{libname}_ms"] = round(bench(lib, WORKLOADS[name], args.steps, clock=clock), 3)
            except Exception as exc:                    # noqa: BLE001 - report, keep going
                row[f"{libname}_error"] = f"{type(exc).__name__}: {exc}"
        row["ember_pool"] = _pool_row(_pool_stats(), args.steps + 3)      # (warm-up steps included)
        if "ember_ms" in row and "torch_ms" in row:
            row["ratio"] = round(row["ember_ms"] / row["torch_ms"], 2)
        results[name] = row
        print(name, json.dumps(row), file=sys.stderr)
    text = json.dumps(results, indent=2)
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
    return results


if __name__ == "__main__":
    main()
