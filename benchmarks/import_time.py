"""Wall time of `import ember` in a fresh interpreter, beside `import numpy` (its floor) and `import torch`.

    python benchmarks/import_time.py [--repeat 11] [--no-torch] [--top 12] [--only cached|fresh]

Each case runs `python -c "<import>"` --repeat times, the cases interleaved so that a burst of load on a
shared machine hits all of them; the JSON gives the median and best wall milliseconds per case, the bare
interpreter start (`pass`) for reference, and the `-X importtime` self times of the --top costliest modules
that `import ember` loads beyond `import numpy` (medians over 3 runs).

Bytecode caching matters (without cached .pyc files every module is compiled on each import), so ember is
measured twice (the keys of the two runs are prefixed `cached_` and `fresh_`):
- cached: the children run with PYTHONDONTWRITEBYTECODE unset, after one untimed run that writes the caches;
- fresh: ember imported from a copy of src/ without any __pycache__, with PYTHONDONTWRITEBYTECODE=1 (what a
  checkout in an environment that sets it pays on every import, every test subprocess included: this machine
  and CI set it). numpy and torch keep the bytecode pip installed with them, as a user's would.
`*_cpu_median` is the child's user + system cpu time, which a busy machine inflates much less than the wall time.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

try:
    import resource
except ImportError:      # Windows: no cpu times of children
    resource = None

SRC = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src")


def _env(src=SRC, bytecode=True):
    env = dict(os.environ)
    if bytecode:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
    else:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    env["PYTHONPATH"] = src + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def _children_cpu() -> float:
    if resource is None:
        return 0.0
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _wall_cpu_ms(code: str, env) -> tuple[float, float]:
    """(wall, user + system cpu) milliseconds of one fresh interpreter running ``code``."""
    c = _children_cpu()
    t = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], env=env, check=True)
    return (time.perf_counter() - t) * 1e3, (_children_cpu() - c) * 1e3


def _self_times(code: str, env) -> dict[str, int]:
    r = subprocess.run([sys.executable, "-X", "importtime", "-c", code], env=env, capture_output=True,
                       text=True, check=True)
    out = {}
    for line in r.stderr.splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        head, _cum, name = line.split("|")
        out[name.strip()] = int(head.split(":")[1])
    return out


def _measure(env, cases, repeat, top, bytecode):
    if bytecode:
        for code in cases.values():        # untimed: writes the bytecode caches, warms the page cache
            _wall_cpu_ms(code, env)
    else:
        _wall_cpu_ms("import numpy", env)  # untimed: warms the page cache (nothing is written)
    times = {k: [] for k in cases}
    cpu = {k: [] for k in cases}
    for _ in range(repeat):
        for k, code in cases.items():
            w, c = _wall_cpu_ms(code, env)
            times[k].append(w)
            cpu[k].append(c)
    result = {"bytecode_cache": bytecode}
    for k, ts in times.items():
        result[f"{k}_median"] = round(statistics.median(ts), 1)
        result[f"{k}_best"] = round(min(ts), 1)
        if resource is not None:
            result[f"{k}_cpu_median"] = round(statistics.median(cpu[k]), 1)
    result["ember_minus_numpy_median"] = round(result["ember_median"] - result["numpy_median"], 1)
    base = set(_self_times("import numpy", env))
    runs = [_self_times("import ember", env) for _ in range(3)]
    extra = {m: statistics.median(r.get(m, 0) for r in runs) for m in runs[0] if m not in base}
    ranked = sorted(extra.items(), key=lambda kv: -kv[1])[:top]
    result["ember_modules_beyond_numpy"] = len(extra)
    result["ember_self_us_beyond_numpy"] = int(sum(extra.values()))
    result["top_self_us_beyond_numpy"] = {m: int(v) for m, v in ranked}
    return result


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=11)
    ap.add_argument("--no-torch", action="store_true")
    ap.add_argument("--top", type=int, default=12)
    ap.add_argument("--only", choices=("cached", "fresh"), default=None)
    args = ap.parse_args()
    cases = {"python": "pass", "numpy": "import numpy", "ember": "import ember"}
    if not args.no_torch:
        try:
            import importlib.util
            if importlib.util.find_spec("torch") is not None:
                cases["torch"] = "import torch"
        except (ImportError, ValueError):
            pass
    result = {"repeat": args.repeat, "unit": "ms wall, fresh interpreter",
              "loadavg_1min_start": round(os.getloadavg()[0], 2) if hasattr(os, "getloadavg") else None}
    if args.only != "fresh":
        for k, v in _measure(_env(), cases, args.repeat, args.top, True).items():
            result["cached_" + k] = v
    if args.only != "cached":
        with tempfile.TemporaryDirectory() as tmp:
            src = os.path.join(tmp, "src")
            shutil.copytree(SRC, src, ignore=shutil.ignore_patterns("__pycache__"))
            for k, v in _measure(_env(src, bytecode=False), cases, args.repeat, args.top, False).items():
                result["fresh_" + k] = v
    result["loadavg_1min_end"] = round(os.getloadavg()[0], 2) if hasattr(os, "getloadavg") else None
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
