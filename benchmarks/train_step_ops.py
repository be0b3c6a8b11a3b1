"""Per-op profile of a train step at 1 and 2 threads, ember and torch side by side, as JSON.

    python benchmarks/train_step_ops.py [--only gpt] [--steps 6] [--top 25] [--out ops.json]

For each workload of train_step.py (mlp, cnn, gpt, gpt_plain) it runs the step under each library's profiler
(`autograd.profiler.profile(record_shapes=True)`) in interleaved rounds (torch at 1 thread, ember at 1, torch at
2, ember at 2) and reports, per op and input shapes, the minimum over the steps of that op's summed self cpu
time per step (ms), plus each configuration's fastest step and the sum of the op minima. Minima over
interleaved rounds are what a shared, noisy machine still measures well; the profilers' own overhead (larger
for ember's Python dispatcher) is in every figure. Between configurations the script sleeps 0.3 s so that the
threads of the previous one (OpenBLAS's, torch's OpenMP team) have gone idle.

What it is for: telling which ops gain from the second thread in torch and not in ember (issue 18's two-thread
gap). ember's optimizer updates run in C outside the dispatcher and do not appear as ops.
"""
import argparse
import collections
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src"))

import train_step  # noqa: E402


def _events(prof):
    return prof.function_events if hasattr(prof, "function_events") else prof.events()


def profile(name, steps, libs, threads=(1, 2)):
    """{config: {op key: [ms per step]}}, {config: [step ms]} for workload `name`."""
    made = {}
    for lib in libs:
        lib.manual_seed(0)
        model, opt, loss_fn = train_step.WORKLOADS[name](lib)

        def step(opt=opt, loss_fn=loss_fn):
            opt.zero_grad(set_to_none=True)
            loss_fn().backward()
            opt.step()
        made[lib.__name__] = (lib, step)
    ops = collections.defaultdict(lambda: collections.defaultdict(list))
    walls = collections.defaultdict(list)
    for r in range(steps + 1):
        for nt in threads:
            for lname, (lib, step) in made.items():
                lib.set_num_threads(nt)
                time.sleep(0.3)
                step()
                with lib.autograd.profiler.profile(record_shapes=True) as prof:
                    t0 = time.perf_counter()
                    step()
                    wall = (time.perf_counter() - t0) * 1e3
                if not r:
                    continue
                key = f"{lname}@{nt}"
                walls[key].append(wall)
                acc = collections.Counter()
                for ev in _events(prof):
                    acc[f"{ev.name} {ev.input_shapes}"] += ev.self_cpu_time_total
                for k, v in acc.items():
                    ops[key][k].append(v / 1e3)
    return ops, walls


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default="mlp,cnn,gpt,gpt_plain")
    ap.add_argument("--steps", type=int, default=6)
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    import ember
    import torch
    results = {}
    for name in args.only.split(","):
        ops, walls = profile(name, args.steps, (torch, ember))
        mins = {cfg: {k: min(v) for k, v in d.items()} for cfg, d in ops.items()}
        keys = set().union(*(m.keys() for m in mins.values()))
        order = sorted(keys, key=lambda k: -max(m.get(k, 0.0) for m in mins.values()))
        rows = [{"op": k, **{cfg: round(m.get(k, 0.0), 3) for cfg, m in sorted(mins.items())}}
                for k in order[:args.top]]
        results[name] = {"step_min_ms": {cfg: round(min(v), 2) for cfg, v in sorted(walls.items())},
                         "op_min_sum_ms": {cfg: round(sum(m.values()), 2) for cfg, m in sorted(mins.items())},
                         "ops": rows}
        print(name, json.dumps(results[name]["step_min_ms"]), json.dumps(results[name]["op_min_sum_ms"]),
              file=sys.stderr)
    text = json.dumps(results, indent=1)
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
    return results


if __name__ == "__main__":
    main()
