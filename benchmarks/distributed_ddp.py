"""DDP training-step time of an MLP at 1 and 2 ranks: ember beside torch (gloo DDP), and the overlap achieved.

    python benchmarks/distributed_ddp.py [--batch 64] [--steps 20]

Each rank trains its own batch of `--batch` rows (784 -> 1024 -> 1024 -> 10, SGD).  Per library and world size
the JSON gives the best step time (ms) of DDP, of the same step without DDP (compute only), and of one all_reduce
of all gradients (communication only).  overlap = (compute + communication - ddp step) / communication: 0 when
nothing overlaps, 1 when communication hides entirely behind backward.
"""
import json
import os
import socket
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def arg(name, default):
    return int(sys.argv[sys.argv.index(name) + 1]) if name in sys.argv else default


def worker(lib, batch, steps):
    if lib == "ember":
        sys.path.insert(0, os.path.join(ROOT, "src"))
        import ember as torch
        import ember.distributed as dist
    else:
        import torch
        import torch.distributed as dist
        torch.set_num_threads(1)
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    torch.manual_seed(0)

    def mlp():
        torch.manual_seed(0)
        return torch.nn.Sequential(torch.nn.Linear(784, 1024), torch.nn.ReLU(), torch.nn.Linear(1024, 1024),
                                   torch.nn.ReLU(), torch.nn.Linear(1024, 10))
    x = torch.randn(batch, 784)
    y = torch.randint(0, 10, (batch,))
    loss_fn = torch.nn.CrossEntropyLoss()
    plain = mlp()
    opt_p = torch.optim.SGD(plain.parameters(), lr=0.01)
    ddp = torch.nn.parallel.DistributedDataParallel(mlp())
    opt_d = torch.optim.SGD(ddp.parameters(), lr=0.01)

    def step(model, opt):
        def run():
            opt.zero_grad()
            loss_fn(model(x), y).backward()
            opt.step()
        return run
    flat = torch.zeros(sum(p.numel() for p in plain.parameters()))

    def comm():
        dist.all_reduce(flat)
    res = {}
    dist.barrier()
    res["compute_ms"] = best_of(step(plain, opt_p), steps)
    dist.barrier()
    res["ddp_step_ms"] = best_of(step(ddp, opt_d), steps)
    dist.barrier()
    res["allreduce_grads_ms"] = best_of(comm, steps) if dist.get_world_size() > 1 else 0.0
    if res["allreduce_grads_ms"]:
        res["overlap"] = round((res["compute_ms"] + res["allreduce_grads_ms"] - res["ddp_step_ms"])
                               / res["allreduce_grads_ms"], 3)
    res = {k: round(v, 3) for k, v in res.items()}
    if rank == 0:
        print("RESULT " + json.dumps(res), flush=True)
    dist.destroy_process_group()


def best_of(fn, steps):
    fn()
    ts = []
    for _ in range(steps):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return min(ts) * 1e3


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def parse(out):
    for line in out.splitlines():
        i = line.find("RESULT ")
        if i >= 0:
            return json.loads(line[i + 7:])
    raise RuntimeError("no result:\n" + out[-2000:])


def run(lib, n, batch, steps):
    args = ["--worker", lib, str(batch), str(steps)]
    if lib == "ember":
        r = subprocess.run([sys.executable, "-m", "ember.distributed.run", "--nproc-per-node", str(n), __file__, *args],
                           env=dict(os.environ, PYTHONPATH=os.path.join(ROOT, "src")), capture_output=True, text=True,
                           timeout=900)
        return parse(r.stdout + r.stderr)
    port = free_port()
    procs = [subprocess.Popen([sys.executable, __file__, *args], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True, env=dict(os.environ, RANK=str(k), WORLD_SIZE=str(n), MASTER_ADDR="127.0.0.1",
                                                  MASTER_PORT=str(port), OMP_NUM_THREADS="1"))
             for k in range(n)]
    return parse([p.communicate(timeout=900)[0] for p in procs][0])


def main():
    batch, steps = arg("--batch", 64), arg("--steps", 20)
    out = {"benchmark": "DDP step, MLP 784-1024-1024-10", "batch_per_rank": batch, "results": {}}
    for n in (1, 2):
        out["results"][f"{n} ranks"] = {lib: run(lib, n, batch, steps) for lib in ("ember", "torch_gloo")}
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    if "--worker" in sys.argv:
        i = sys.argv.index("--worker")
        lib = sys.argv[i + 1]
        worker("torch" if lib == "torch_gloo" else lib, int(sys.argv[i + 2]), int(sys.argv[i + 3]))
    else:
        main()
