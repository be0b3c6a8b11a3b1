"""Per-op overhead on tiny tensors: median microseconds per call, ember vs torch vs numpy.

    python benchmarks/op_overhead.py [--json out.json] [--profile] [--cpu-min] [--no-import]

Workloads (issue 2): `a + b`, `relu`, 8x8 matmul, `x.sum()`, `a + b` with requires_grad, on
4-element tensors; plus `import ember` (and numpy, torch) in fresh interpreters, with bytecode cached and
as this environment runs it (see `import_ms`). Issue 18's rows too: views (t(), view, select, slice, with
and without requires_grad) on an 8x8 tensor, their backward next to a plain sum's, and the engine's time per
node (a retained chain of 100 multiplications). Session 16's single small ops: where, stack of 16 rows
that need grad, mul_ by a float, add_, cat, clamp, masked_fill, index_select, gather, `a * 2.`, exp, mean
over the last dim, softmax, max(dim=-1). `mul_(2.)` and `add_(b)` write `am` in place run after run: it
reaches inf within 130 calls in both libraries and stays there (inf costs what a finite value costs; no
subnormals). Prints JSON.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time
import timeit

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src"))


CPU_MIN = "--cpu-min" in sys.argv   # min CPU time over the rounds: comparable between runs on a loaded machine


def median_us(stmt, glb, number=2000, repeat=15):
    if CPU_MIN:
        times = timeit.Timer(stmt, globals=glb, timer=time.process_time).repeat(number=number, repeat=repeat)
        return min(times) / number * 1e6
    times = timeit.repeat(stmt, number=number, repeat=repeat, globals=glb)
    return statistics.median(times) / number * 1e6


def workloads(mod):
    a = mod.tensor([1.0, 2.0, 3.0, 4.0])
    b = mod.tensor([4.0, 3.0, 2.0, 1.0])
    m = mod.tensor([[float(i + j) for j in range(8)] for i in range(8)])
    ag = mod.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    mg = mod.tensor([[float(i + j) for j in range(8)] for i in range(8)], requires_grad=True)
    c = a > 2.0
    rows = [mod.tensor([float(i), 1.0, 2.0, 3.0], requires_grad=True) for i in range(16)]
    idx = mod.tensor([2, 0, 1])
    gidx = mod.tensor([[0, 1, 0, 2, 3, 1, 0, 7]] * 8)
    am = mod.tensor([1.0, 2.0, 3.0, 4.0])
    F = mod.nn.functional
    g = {"mod": mod, "a": a, "b": b, "m": m, "ag": ag, "mg": mg, "c": c, "rows": rows, "idx": idx, "gidx": gidx,
         "am": am, "F": F}
    out = {"a + b": "a + b", "relu": "mod.relu(a)", "matmul 8x8": "m @ m" if hasattr(type(m), "__matmul__") else None,
           "x.sum()": "a.sum()" if hasattr(a, "sum") else None, "a + b (requires_grad)": "ag + b",
           # views (issue 18: t(), view, slicing at or below 1.5x torch, forward and backward)
           "t()": "m.t()", "view": "m.view(64)", "x[2]": "m[2]", "x[1:3]": "m[1:3]",
           "t() (requires_grad)": "mg.t()", "view (requires_grad)": "mg.view(64)", "x[2] (requires_grad)": "mg[2]",
           "x[1:3] (requires_grad)": "mg[1:3]",
           # backward: a view's share is the difference from the plain sum row
           "sum().backward()": "mg.sum().backward()", "t().sum().backward()": "mg.t().sum().backward()",
           "x[2].sum().backward()": "mg[2].sum().backward()", "view(64).sum().backward()": "mg.view(64).sum().backward()",
           # single small ops (issue 18, session 16): each against torch on 4-element tensors or the 8x8 one
           "where(c, a, b)": "mod.where(c, a, b)", "stack 16 (requires_grad)": "mod.stack(rows)",
           "mul_(2.)": "am.mul_(2.0)", "add_(b)": "am.add_(b)", "cat([a, b])": "mod.cat([a, b])",
           "clamp(a, 0, 2)": "a.clamp(0.0, 2.0)", "masked_fill(c, 0.)": "a.masked_fill(c, 0.0)",
           "index_select(m, 0, i)": "m.index_select(0, idx)", "gather(m, 1, i)": "m.gather(1, gidx)",
           "a * 2.": "a * 2.0", "a.exp()": "a.exp()", "m.mean(-1)": "m.mean(-1)",
           "F.softmax(m, -1)": "F.softmax(m, -1)", "m.max(dim=-1)": "m.max(dim=-1)"}
    return g, {k: v for k, v in out.items() if v is not None}


def engine_us_per_node(mod, n=100):
    """backward() of a retained chain of n multiplications, per node (each node's formula is one mul)."""
    x = mod.ones(4, requires_grad=True)
    y = x
    for _ in range(n):
        y = y * 1.0001
    loss = y.sum()
    loss.backward(retain_graph=True)
    return round(median_us("loss.backward(retain_graph=True)", {"loss": loss}, number=20, repeat=9) / (n + 1), 3)


def bench(mod):
    g, wl = workloads(mod)
    res = {}
    for name, stmt in wl.items():
        try:
            eval(stmt, g)
        except Exception as e:  # an op not implemented yet is reported, not timed
            res[name] = f"unavailable: {type(e).__name__}: {e}"[:120]
            continue
        res[name] = round(median_us(stmt, g, number=400 if "backward" in stmt else 2000), 3)
    res["engine per node"] = engine_us_per_node(mod)
    return res


def _import_runs(module, env, runs, clock="perf_counter"):
    code = f"import time; t = time.{clock}(); import {module}; print((time.{clock}() - t) * 1000)"
    return [float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                                 check=True).stdout) for _ in range(runs)]


def import_ms(module, runs=7):
    """`import module` in fresh interpreters, medians in ms: {"cached": ..., "cached_cpu": ..., "as_run": ...}.

    "cached" is what users normally see: bytecode for every module (here in a private PYTHONPYCACHEPREFIX,
    written by one uncounted warm-up run). "as_run" keeps this process's environment unchanged: where
    PYTHONDONTWRITEBYTECODE is set (as in some sandboxes and CI images) and the source tree has no
    __pycache__, an editable install compiles every module on every import (ember's ~750 kB generated
    binding layer alone takes ~0.5 s), while packages installed from wheels still use their .pyc files.
    "cached_cpu" is the same import's CPU time (time.process_time): on a busy machine wall time mostly
    measures waiting for a core, CPU time stays comparable between runs."""
    import tempfile
    env = dict(os.environ, PYTHONPATH=sys.path[0])
    as_run = _import_runs(module, env, max(3, runs // 2))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    with tempfile.TemporaryDirectory() as cache:
        env["PYTHONPYCACHEPREFIX"] = cache
        _import_runs(module, env, 1)                      # writes the bytecode
        cached = _import_runs(module, env, runs)
        cached_cpu = _import_runs(module, env, runs, "process_time")
    return {"cached": round(statistics.median(cached), 1), "cached_cpu": round(statistics.median(cached_cpu), 1),
            "as_run": round(statistics.median(as_run), 1),
            "PYTHONDONTWRITEBYTECODE": os.environ.get("PYTHONDONTWRITEBYTECODE")}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--json")
    p.add_argument("--profile", action="store_true", help="print a cProfile of 20k `a + b` calls")
    p.add_argument("--cpu-min", action="store_true", help="min CPU time per round instead of the median wall time")
    p.add_argument("--no-import", action="store_true", help="skip the import-time rows")
    args = p.parse_args()
    import numpy as np
    import ember
    report = {"ember": bench(ember)}
    if not args.no_import:
        report.update({"ember import ms": import_ms("ember"), "numpy import ms": import_ms("numpy")})
    na, nb = np.ones(4, np.float32), np.ones(4, np.float32)
    report["numpy"] = {"a + b": round(median_us("na + nb", {"na": na, "nb": nb}), 3)}
    try:
        import torch
        report["torch"] = bench(torch)
        if not args.no_import:
            report["torch import ms"] = import_ms("torch", runs=3)
        report["ratio ember/torch"] = {k: round(v / report["torch"][k], 2) for k, v in report["ember"].items()
                                       if isinstance(v, float) and isinstance(report["torch"].get(k), float)}
    except ImportError:
        report["torch"] = "not installed"
    text = json.dumps(report, indent=2)
    print(text)
    if args.json:
        with open(args.json, "w") as f:
            f.write(text)
    if args.profile:
        import cProfile
        import pstats
        a, b = ember.tensor([1.0, 2.0, 3.0, 4.0]), ember.tensor([1.0, 2.0, 3.0, 4.0])
        prof = cProfile.Profile()
        prof.enable()
        for _ in range(20000):
            a + b
        prof.disable()
        pstats.Stats(prof, stream=sys.stderr).sort_stats("tottime").print_stats(10)


if __name__ == "__main__":
    main()
