"""Compiled training and generation, ember.compile next to torch.compile, torch eager and ember eager in one run.

    python benchmarks/compile_train.py [--backend inductor] [--only gpt,mlp,cnn] [--steps 10]
                                       [--skip-torch-compile] [--gen-tokens 32] [--threads N] [--cpu-time]
                                       [--compile-step] [--skip-gen] [--chunk 2]

Workloads are benchmarks/train_step.py's (MLP, LeNet-style CNN, 4-layer GPT with AdamW). "compiled" means the
loss function (forward + loss) goes through `ember.compile(loss_fn, backend=...)` / `torch.compile(loss_fn)`; its
backward runs the compiled backward graph from AOT autograd, and the optimizer step stays eager. Per workload and
side: the median step time (`step_ms`: wall, or CPU with --cpu-time; both are given as `step_wall_ms` and
`step_cpu_ms`, process CPU time, which counts every thread) and the first step (`first_step_s`, which for the
compiled sides holds the compile). The sides of a workload are all set up first and then timed interleaved, in
rounds of one untimed and --chunk timed steps each, so that load from other processes falls on all of them
alike. Also:
- cold compile of the GPT train step: first compiled step minus a steady step, ember with a fresh EMBER_CACHE_DIR
  (ember's own eager kernels are loaded beforehand, so only generated code is built) and torch with a fresh
  TORCHINDUCTOR_CACHE_DIR;
- warm start: a new process with that (now filled) cache directory compiles the same GPT and runs one step: the
  time from the compile call to the end of the first step, the process's import time, how many times the C
  compiler ran (0 when every kernel came from the disk cache), how many graphs were lowered (0 when the graph
  cache, ember/_inductor/fxgraph_cache.py, held them all) and its hits; where PYTHONDONTWRITEBYTECODE is set
  (this sandbox), also with bytecode cached, as users run it;
- --compile-step: a further ember row, `ember_compile_step`, with `ember.compile(opt.step)` too (the captured
  optimizer update, written in place by generated kernels; its loss graph comes from the graph cache the
  `ember_compile` side filled, so its compile_s is not a cold one);
- --cpu-time: step times and generation's tokens/s as process CPU time (on a loaded machine wall time mostly
  measures waiting for a core);
- GPT greedy generation, 16 sequences with a sliding 64-token window (every call has the same shape), no grad:
  tokens/s of ember compiled, ember eager and torch eager.
Prints one JSON object. Works with any backend (`--backend aot_eager` before the inductor backend exists).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from _harness import threads_arg  # noqa: E402,F401  (puts src/ on sys.path)
from train_step import WORKLOADS  # noqa: E402

import numpy as np  # noqa: E402


CLOCK = [time.perf_counter]


def setup(lib, name, compile_fn=None, compile_step=False):
    """Build a workload, run its first step (the compile, for the compiled sides) and one more; returns
    (step function or None on error, row with first_step_s and first_loss)."""
    lib.manual_seed(0)
    model, opt, loss_fn = WORKLOADS[name](lib)
    f = compile_fn(loss_fn) if compile_fn is not None else loss_fn
    opt_step = compile_fn(opt.step) if compile_step else opt.step

    def step():
        opt.zero_grad(set_to_none=True)
        loss = f()
        loss.backward()
        opt_step()
        return loss

    row = {}
    try:
        t = time.perf_counter()
        first_loss = float(step().item())
        row["first_step_s"] = round(time.perf_counter() - t, 3)
        row["first_loss"] = round(first_loss, 5)
        step()
    except Exception as e:                              # noqa: BLE001 - report, keep going
        row["error"] = f"{type(e).__name__}: {e}"[:400]
        return None, row
    return step, row


def measure(entries, steps, chunk=2):
    """Time the prepared steps interleaved: rounds in which each side runs one untimed step (its caches warm
    again after the others ran) and then `chunk` timed ones, until each has `steps` timed steps. On a shared
    machine a burst of load then falls on every side alike. (Timed one block after another, two quiet-machine
    runs read 114 and 89 ms for the two ember configurations, then 84 and 113 ms, while their CPU times,
    measured interleaved, stayed within 5% of each other.)
    Fills each row's step_ms (the chosen clock's median), step_cpu_ms (process CPU time) and step_wall_ms."""
    times = {id(row): ([], []) for _, row in entries}
    live = [(s, row) for s, row in entries if s is not None]
    clock = CLOCK[0]
    for _ in range(-(-steps // chunk)):
        for s, row in list(live):
            wall, cpu = times[id(row)]
            try:
                s()
                for _ in range(min(chunk, steps - len(wall))):
                    t, c = time.perf_counter(), time.process_time()
                    s()
                    wall.append(time.perf_counter() - t)
                    cpu.append(time.process_time() - c)
            except Exception as e:                      # noqa: BLE001
                row["error"] = f"{type(e).__name__}: {e}"[:400]
                live.remove((s, row))
    for s, row in entries:
        wall, cpu = times[id(row)]
        if "error" in row or not wall:
            continue
        row["step_wall_ms"] = round(statistics.median(wall) * 1e3, 3)
        row["step_cpu_ms"] = round(statistics.median(cpu) * 1e3, 3)
        row["step_ms"] = row["step_cpu_ms"] if clock is time.process_time else row["step_wall_ms"]
        if "first_step_s" in row and row.get("compiled"):
            row["compile_s"] = round(row["first_step_s"] - row["step_wall_ms"] / 1e3, 3)
        row.pop("compiled", None)


def generation(lib, tokens, compile_fn=None):
    """Tokens/s of greedy generation: 16 sequences, 64-token window, `tokens` new tokens each."""
    lib.manual_seed(0)
    model, _, _ = WORKLOADS["gpt"](lib)
    model.eval()
    f = compile_fn(model) if compile_fn is not None else model
    idx = lib.tensor(np.random.default_rng(2).integers(0, 65, (16, 64)))
    try:
        with lib.no_grad():
            f(idx)                                      # compile / warm up
            clock = CLOCK[0]
            t = clock()
            for _ in range(tokens):
                nxt = f(idx)[:, -1, :].argmax(-1, keepdim=True)
                idx = lib.cat([idx[:, 1:], nxt], dim=1)
            dt = clock() - t
        return {"tokens_per_s": round(16 * tokens / dt, 1), "ms_per_token_step": round(dt / tokens * 1e3, 3)}
    except Exception as e:                              # noqa: BLE001
        return {"error": f"{type(e).__name__}: {e}"[:400]}


def warm_child(backend, threads=None):
    """Run in a new process: compile the GPT train step with the disk cache filled, time to the first step (with
    the parent's thread count: the generated C depends on it, so another count is another graph-cache key)."""
    t_import = time.perf_counter()
    import ember
    if threads:
        ember.set_num_threads(threads)
    from ember._cc import build as cc_build
    t0 = time.perf_counter()
    ember.manual_seed(0)
    model, opt, loss_fn = WORKLOADS["gpt"](ember)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = time.perf_counter()
        f = ember.compile(loss_fn, backend=backend)
        loss = f()
        loss.backward()
        opt.step()
        first = time.perf_counter() - t
    from ember._dynamo.utils import counters
    c = counters["inductor"]
    print(json.dumps({"compile_to_first_step_s": round(first, 3), "import_ember_s": round(t0 - t_import, 3),
                      "c_compiler_runs": cc_build.stats["builds"], "graphs_lowered": c.get("graphs", 0),
                      "fxgraph_cache_hits": c.get("fxgraph_cache_hit", 0)}))


def _seed_cache(root):
    """Copy the libraries of ember's own kernels this process loaded into the fresh cache `root`, so the warm
    start child finds them there and only the generated code's libraries are in question."""
    import shutil
    from ember import _cc
    from ember._cc import build as cc_build
    d = os.path.join(root, "c")
    os.makedirs(d, exist_ok=True)
    for lib in list(cc_build._LOADED.values()):
        path = lib._name
        for p in (path, path[:-3] + ".protos.json"):
            if os.path.exists(p):
                shutil.copy2(p, d)
    return _cc


def _warm(backend, env, threads):
    t = time.perf_counter()
    r = subprocess.run([sys.executable, os.path.abspath(__file__), "--warm-child", "--backend", backend,
                        "--threads", str(threads)], capture_output=True, text=True, env=env)
    wall = time.perf_counter() - t
    if r.returncode != 0:
        return {"error": r.stderr.strip()[-400:]}
    warm = json.loads(r.stdout.strip().splitlines()[-1])
    warm["process_wall_s"] = round(wall, 3)
    return warm


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--backend", default="inductor")
    ap.add_argument("--only", default="gpt,mlp,cnn")
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--skip-torch-compile", action="store_true")
    ap.add_argument("--gen-tokens", type=int, default=32)
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--compile-step", action="store_true",
                    help="also ember.compile(opt.step) (row ember_compile_step: loss and optimizer step compiled)")
    ap.add_argument("--skip-gen", action="store_true", help="skip the generation measurement")
    ap.add_argument("--chunk", type=int, default=2,
                    help="timed steps per side per round (the sides' steps are interleaved in rounds)")
    ap.add_argument("--cpu-time", action="store_true",
                    help="step times as process CPU time (steadier than wall time on a loaded machine)")
    ap.add_argument("--warm-child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.warm_child:
        return warm_child(args.backend, args.threads)
    threads = args.threads or len(os.sched_getaffinity(0))
    if args.cpu_time:
        CLOCK[0] = time.process_time
    torch_cache = tempfile.mkdtemp(prefix="torchinductor-cold-")
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = torch_cache          # before torch is imported: a cold torch.compile
    ember_cache = tempfile.mkdtemp(prefix="ember-cold-")

    import ember
    ember.set_num_threads(threads)
    try:
        import torch
        torch.set_num_threads(threads)
    except ImportError:
        torch = None
    warnings.simplefilter("ignore")
    out = {"config": {"backend": args.backend, "steps": args.steps, "threads": threads,
                      "note": "medians on a shared, loaded 2-core machine",
                      "clock": "process CPU time" if args.cpu_time else "wall", "load_avg": os.getloadavg()}}
    names = args.only.split(",")
    rows = {}
    prepared = {}
    for name in names:                                  # eager first: ember's own C kernels load into the process
        prepared[name] = {"ember_eager": setup(ember, name)}
        if torch is not None:
            prepared[name]["torch_eager"] = setup(torch, name)
    _seed_cache(ember_cache)
    os.environ["EMBER_CACHE_DIR"] = ember_cache                  # generated code builds into a fresh cache
    for name in names:
        ember._dynamo.reset()
        p = prepared[name]
        # (no dynamo reset between the two ember sides: it would make the first one recompile while timed; the
        # second compiles its own closures, with the loss graph from the graph cache the first filled)
        p["ember_compile"] = setup(ember, name, lambda f: ember.compile(f, backend=args.backend))
        if args.compile_step:
            p["ember_compile_step"] = setup(ember, name, lambda f: ember.compile(f, backend=args.backend), True)
        if torch is not None and not args.skip_torch_compile:
            torch._dynamo.reset()
            p["torch_compile"] = setup(torch, name, torch.compile)
        for side, (_, row) in p.items():
            row["compiled"] = side not in ("ember_eager", "torch_eager")
        measure(list(p.values()), args.steps, args.chunk)
        rows[name] = r = {side: row for side, (_, row) in p.items()}
        if "step_ms" in r["ember_compile"]:
            for other in ("torch_eager", "torch_compile", "ember_eager"):
                if "step_ms" in r.get(other, {}):
                    r[f"ember_compile_vs_{other}"] = round(r["ember_compile"]["step_ms"] / r[other]["step_ms"], 2)
                    if "step_ms" in r.get("ember_compile_step", {}):
                        r[f"ember_compile_step_vs_{other}"] = round(r["ember_compile_step"]["step_ms"] /
                                                                    r[other]["step_ms"], 2)
        p.clear()                                       # free the models before the next workload
    out["train"] = rows
    if "gpt" in names:
        g = rows["gpt"]
        out["cold_compile_gpt_train_step_s"] = {"ember": g["ember_compile"].get("compile_s"),
                                                "torch": g.get("torch_compile", {}).get("compile_s")}
        out["warm_start_gpt_train_step"] = _warm(args.backend, dict(os.environ, EMBER_CACHE_DIR=ember_cache), threads)
        if os.environ.get("PYTHONDONTWRITEBYTECODE"):
            # this sandbox sets it, so every import compiles ember's source (~1-2 s): also measure a new process
            # as users run it, with bytecode cached (a first child writes it)
            env = dict(os.environ, EMBER_CACHE_DIR=ember_cache)
            env.pop("PYTHONDONTWRITEBYTECODE")
            _warm(args.backend, env, threads)
            out["warm_start_gpt_train_step_bytecode_cached"] = _warm(args.backend, env, threads)
    ember._dynamo.reset()
    if args.skip_gen:
        print(json.dumps(out, indent=1))
        return out
    gen = {"ember_eager": generation(ember, args.gen_tokens),
           "ember_compile": generation(ember, args.gen_tokens, lambda m: ember.compile(m, backend=args.backend))}
    if torch is not None:
        gen["torch_eager"] = generation(torch, args.gen_tokens)
    out["gpt_greedy_generation"] = gen
    print(json.dumps(out, indent=1))
    return out


if __name__ == "__main__":
    main()
