"""Small-op training workloads (issue 18), ember vs torch eager in one run: median ms per train step, JSON out.

    python benchmarks/small_models.py [--steps 10] [--repeats 3] [--only crf,gru,transformer,lstmcell,control]
                                      [--out results.json] [--threads 1] [--cpu-time] [--gc-stats]

These are the shapes of the third-party programs that ran 2-4.6x slower than torch: models small enough that a
step is hundreds of tiny ops, so the per-op overhead of the eager path decides the speed.

- crf: a BiLSTM-CRF tagger (embedding 32, BiLSTM 2x32, 5 tags, sentences of 12 tokens, SGD) whose loss is the
  CRF forward algorithm written as a Python loop over time steps and tags (as in the well-known tutorial), plus
  a Viterbi decode under no_grad.
- gru: a GRU character model (vocab 65, embedding 32, GRU 64, batch 8 x 32 characters, Adam).
- transformer: a 2-layer pre-norm transformer (d 64, 4 heads, batch 8 x 32 tokens, vocab 65, AdamW) with
  plain masked-softmax attention (q @ k^T, masked_fill, softmax, @ v).
- lstmcell: two LSTMCells (51 units) unrolled in a Python loop over 40 steps of a batch of 8 sine waves, MSE,
  SGD (the "time sequence prediction" example).
- control: "a net with Python control flow": an MLP (16 -> 32 -> 4, batch 16, Adam) whose forward branches on
  tensor values (`if h.sum() > 0`, a loop trip count from `.item()`, a per-sample loop with a branch per row,
  `where`, an early exit); about 300 small ops per step.

Both libraries run on `--threads` threads (default 1: these ops are far too small to gain from a second
thread, and on a shared machine a second thread that spins while another process holds the core made both
torch's and numpy's BLAS 10-100x slower in some runs, which measures the machine, not the library).

The same model code runs on both libraries (`lib` is ember or torch) and every parameter is set from the same
numpy generator, so both libraries compute the same thing. Each library runs `--repeats` rounds of `--steps`
timed steps; the figure is the median over all timed steps, the ratio is ember / torch.
"""
import argparse
import gc
import json
import math
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src"))


def init_params(lib, model, seed=0):
    """Every parameter from one numpy generator, so ember and torch start from the same weights."""
    rng = np.random.default_rng(seed)
    with lib.no_grad():
        for _, p in model.named_parameters():
            p.copy_(lib.tensor(rng.uniform(-0.1, 0.1, tuple(p.shape)).astype(np.float32)))


# ------------------------------------------------------------------ BiLSTM-CRF tagger
def crf(lib):
    nn = lib.nn
    V, E, Hd, K, T = 50, 32, 32, 5, 12           # vocab, embedding, hidden per direction, tags, tokens

    class BiLSTMCRF(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(V, E)
            self.lstm = nn.LSTM(E, Hd, bidirectional=True, batch_first=True)
            self.out = nn.Linear(2 * Hd, K)
            self.transitions = nn.Parameter(lib.zeros(K, K))     # [to, from]

        def emissions(self, words):                              # (T,) -> (T, K)
            h, _ = self.lstm(self.emb(words).unsqueeze(0))
            return self.out(h.squeeze(0))

        def log_partition(self, feats):
            # the CRF forward algorithm, one tag at a time
            alpha = feats[0]                                     # (K,)
            for t in range(1, T):
                nxt = []
                for k in range(K):
                    score = alpha + self.transitions[k] + feats[t, k]
                    m = score.max()
                    nxt.append(m + (score - m).exp().sum().log())
                alpha = lib.stack(nxt)
            m = alpha.max()
            return m + (alpha - m).exp().sum().log()

        def gold_score(self, feats, tags):
            s = feats[0, tags[0]]
            for t in range(1, T):
                s = s + self.transitions[tags[t], tags[t - 1]] + feats[t, tags[t]]
            return s

        def viterbi(self, feats):
            score, back = feats[0], []
            for t in range(1, T):
                best = (score.unsqueeze(0) + self.transitions).max(dim=1)     # over the previous tag
                back.append(best.indices)
                score = best.values + feats[t]
            path = [int(score.argmax())]
            for ptr in reversed(back):
                path.append(int(ptr[path[-1]]))
            return path[::-1]

    model = BiLSTMCRF()
    init_params(lib, model)
    opt = lib.optim.SGD(model.parameters(), lr=0.01)
    rng = np.random.default_rng(1)
    words = lib.tensor(rng.integers(0, V, T))
    tags = [int(x) for x in rng.integers(0, K, T)]

    def step():
        opt.zero_grad()
        feats = model.emissions(words)
        loss = model.log_partition(feats) - model.gold_score(feats, tags)
        loss.backward()
        opt.step()
        with lib.no_grad():
            model.viterbi(model.emissions(words))
    return step


# ------------------------------------------------------------------ GRU character model
def gru(lib):
    nn = lib.nn
    V, E, H, B, T = 65, 32, 64, 8, 32

    class CharGRU(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(V, E)
            self.rnn = nn.GRU(E, H, batch_first=True)
            self.head = nn.Linear(H, V)

        def forward(self, idx):
            h, _ = self.rnn(self.emb(idx))
            return self.head(h)

    model = CharGRU()
    init_params(lib, model)
    opt = lib.optim.Adam(model.parameters(), lr=1e-3)
    rng = np.random.default_rng(2)
    idx, tgt = lib.tensor(rng.integers(0, V, (B, T))), lib.tensor(rng.integers(0, V, (B, T)))

    def step():
        opt.zero_grad()
        loss = nn.functional.cross_entropy(model(idx).reshape(-1, V), tgt.reshape(-1))
        loss.backward()
        opt.step()
    return step


# ------------------------------------------------------------------ small transformer, plain attention
def transformer(lib):
    nn, F = lib.nn, lib.nn.functional
    V, C, NH, L, B, T = 65, 64, 4, 2, 8, 32

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln1, self.ln2 = nn.LayerNorm(C), nn.LayerNorm(C)
            self.qkv, self.proj = nn.Linear(C, 3 * C), nn.Linear(C, C)
            self.fc1, self.fc2 = nn.Linear(C, 4 * C), nn.Linear(4 * C, C)

        def forward(self, x, mask):
            q, k, v = self.qkv(self.ln1(x)).split(C, dim=2)
            q, k, v = (t.view(B, T, NH, C // NH).transpose(1, 2) for t in (q, k, v))    # (B, nh, T, hs)
            att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(C // NH))
            att = F.softmax(att.masked_fill(mask, float("-inf")), dim=-1)
            y = (att @ v).transpose(1, 2).contiguous().view(B, T, C)
            x = x + self.proj(y)
            return x + self.fc2(F.gelu(self.fc1(self.ln2(x))))

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.wte, self.wpe = nn.Embedding(V, C), nn.Embedding(T, C)
            self.blocks = nn.ModuleList([Block() for _ in range(L)])
            self.ln_f, self.head = nn.LayerNorm(C), nn.Linear(C, V)

        def forward(self, idx):
            mask = lib.ones(T, T, dtype=lib.bool).triu(1)
            x = self.wte(idx) + self.wpe(lib.arange(T))
            for b in self.blocks:
                x = b(x, mask)
            return self.head(self.ln_f(x))

    model = Model()
    init_params(lib, model)
    opt = lib.optim.AdamW(model.parameters(), lr=3e-4)
    rng = np.random.default_rng(3)
    idx, tgt = lib.tensor(rng.integers(0, V, (B, T))), lib.tensor(rng.integers(0, V, (B, T)))

    def step():
        opt.zero_grad()
        loss = F.cross_entropy(model(idx).view(-1, V), tgt.view(-1))
        loss.backward()
        opt.step()
    return step


# ------------------------------------------------------------------ LSTMCell sequence model
def lstmcell(lib):
    nn = lib.nn
    H, B, T = 51, 8, 40

    class Sequence(nn.Module):
        def __init__(self):
            super().__init__()
            self.lstm1, self.lstm2 = nn.LSTMCell(1, H), nn.LSTMCell(H, H)
            self.linear = nn.Linear(H, 1)

        def forward(self, x):                                   # (B, T) -> (B, T)
            h1 = c1 = h2 = c2 = lib.zeros(B, H)
            outs = []
            for x_t in x.split(1, dim=1):
                h1, c1 = self.lstm1(x_t, (h1, c1))
                h2, c2 = self.lstm2(h1, (h2, c2))
                outs.append(self.linear(h2))
            return lib.cat(outs, dim=1)

    model = Sequence()
    init_params(lib, model)
    opt = lib.optim.SGD(model.parameters(), lr=0.05)
    t = np.arange(T + 1, dtype=np.float32)[None, :] + np.arange(B, dtype=np.float32)[:, None] * 3
    wave = np.sin(t / 4.0).astype(np.float32)
    x, y = lib.tensor(wave[:, :-1]), lib.tensor(wave[:, 1:])

    def step():
        opt.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
    return step


# ------------------------------------------------------------------ a net with Python control flow
def control(lib):
    """An MLP whose forward branches on tensor values, as dynamic-graph programs do: `if h.sum() > 0`, a loop
    whose trip count comes from `.item()`, a per-sample Python loop over the batch with a branch per row,
    torch.where, an early exit; about 300 small ops per step with backward and an Adam step."""
    nn, F = lib.nn, lib.nn.functional
    B, D, H, K = 16, 16, 32, 4

    class ControlNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.inp, self.mid, self.loop, self.head = (nn.Linear(D, H), nn.Linear(H, H), nn.Linear(H, H),
                                                        nn.Linear(H, K))

        def forward(self, x):
            h = F.relu(self.inp(x))
            h = self.mid(h) if h.sum() > 0 else -self.mid(h)                  # bool(tensor)
            for _ in range(1 + int(h.abs().mean().item() * 10) % 3):          # trip count from .item()
                h = lib.tanh(self.loop(h)) + h
            rows = []
            for i in range(B):                                                # per-sample Python loop
                r = h[i]
                if r.max().item() > 0.5:
                    r = r * 0.5
                elif bool((r < 0).all()):
                    r = -r
                else:
                    r = lib.where(r > 0, r, 0.1 * r)
                if r.norm() > 1.0:                                            # a comparison read by `if`
                    r = r / r.norm()
                rows.append(r)
            h = lib.stack(rows)
            if h.abs().max() < 1e-6:                                          # early exit (never taken here)
                return lib.zeros(B, K)
            return self.head(h)

    model = ControlNet()
    init_params(lib, model)
    opt = lib.optim.Adam(model.parameters(), lr=1e-3)
    rng = np.random.default_rng(4)
    x = lib.tensor(rng.standard_normal((B, D)).astype(np.float32))
    y = lib.tensor(rng.integers(0, K, B))

    def step():
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
    return step


WORKLOADS = {"crf": crf, "gru": gru, "transformer": transformer, "lstmcell": lstmcell, "control": control}


class GCStats:
    """Python's cyclic garbage collections during the timed steps (gc.callbacks): how many of each generation
    and the wall time they took. A step that allocates many GC-tracked objects (tensors, graph nodes) which
    outlive the step's forward triggers collections that torch's C++ objects do not."""

    def __init__(self):
        self.count, self.ms, self._t0 = [0, 0, 0], 0.0, 0.0

    def __call__(self, phase, info):
        if phase == "start":
            self._t0 = time.perf_counter()
        else:
            self.count[info["generation"]] += 1
            self.ms += (time.perf_counter() - self._t0) * 1e3


def timed_steps(step, steps, warmup=2, clock=time.perf_counter, gc_stats=None):
    for _ in range(warmup):
        step()
    out = []
    if gc_stats is not None:
        gc.callbacks.append(gc_stats)
    try:
        for _ in range(steps):
            t0 = clock()
            step()
            out.append((clock() - t0) * 1e3)
    finally:
        if gc_stats is not None:
            gc.callbacks.remove(gc_stats)
    return out


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--only", default=",".join(WORKLOADS))
    ap.add_argument("--out", default=None)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--cpu-time", action="store_true",
                    help="time steps with the process's CPU time (on a loaded machine wall time mostly measures "
                         "waiting for a core) and add each library's minimum step (`*_min_ms`, `min_ratio`)")
    ap.add_argument("--gc-stats", action="store_true",
                    help="add each library's garbage collections per step (`*_gc`: generations 0, 1, 2) and the "
                         "wall time they took per step (`*_gc_ms`)")
    args = ap.parse_args(argv)
    clock = time.process_time if args.cpu_time else time.perf_counter
    import ember
    import torch
    torch.set_num_threads(args.threads)
    ember.set_num_threads(args.threads)
    libs = (("torch", torch), ("ember", ember))
    results = {}
    for name in args.only.split(","):
        steps = {lib_name: [] for lib_name, _ in libs}
        gcs = {lib_name: GCStats() if args.gc_stats else None for lib_name, _ in libs}
        row = {}
        try:
            made = {lib_name: WORKLOADS[name](lib) for lib_name, lib in libs}
            for _ in range(args.repeats):        # alternate the libraries, so load changes hit both alike
                for lib_name, _ in libs:
                    steps[lib_name] += timed_steps(made[lib_name], args.steps, clock=clock, gc_stats=gcs[lib_name])
        except Exception as exc:                 # noqa: BLE001 - report, keep going
            row["error"] = f"{type(exc).__name__}: {exc}"
        for lib_name, ts in steps.items():
            if ts:
                row[f"{lib_name}_ms"] = round(float(np.median(ts)), 3)
                if args.cpu_time:
                    row[f"{lib_name}_min_ms"] = round(float(np.min(ts)), 3)
                if gcs[lib_name] is not None:
                    row[f"{lib_name}_gc"] = [round(c / len(ts), 2) for c in gcs[lib_name].count]
                    row[f"{lib_name}_gc_ms"] = round(gcs[lib_name].ms / len(ts), 3)
        if "ember_ms" in row and "torch_ms" in row:
            row["ratio"] = round(row["ember_ms"] / row["torch_ms"], 2)
        if "ember_min_ms" in row and "torch_min_ms" in row:
            row["min_ratio"] = round(row["ember_min_ms"] / row["torch_min_ms"], 2)
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
