"""all_reduce latency and bandwidth at 2 ranks: ember (MPI through mpi4py + MPICH) beside torch (gloo), one run.

    python benchmarks/distributed_allreduce.py [--sizes 1024,1048576,67108864] [--nproc 2]

Prints JSON: for each message size (bytes, float32) the best time in ms and the algorithm bandwidth in GB/s
(bytes / time) of ember and torch.  ember's ranks run under ember-run (shared-memory transport); torch's under
its own env:// rendezvous with the gloo backend.
"""
import json
import os
import socket
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def reps_for(nbytes):
    return 1000 if nbytes <= 4096 else 50 if nbytes <= (1 << 20) else 3


def worker(lib, sizes):
    import numpy as np
    if lib == "ember":
        sys.path.insert(0, os.path.join(ROOT, "src"))
        import ember as torch
        import ember.distributed as dist
    else:
        import torch
        import torch.distributed as dist
    dist.init_process_group("gloo")
    out = {}
    for nbytes in sizes:
        t = torch.zeros(nbytes // 4)       # sums stay finite however many repetitions
        reps = reps_for(nbytes)
        for _ in range(max(3, reps // 10)):
            dist.all_reduce(t)
        times = []
        for _ in range(3):
            dist.barrier()
            t0 = time.perf_counter()
            for _ in range(reps):
                dist.all_reduce(t)
            times.append((time.perf_counter() - t0) / reps)
        best = min(times)
        out[nbytes] = {"ms": round(best * 1e3, 4), "GB/s": round(nbytes / best / 1e9, 3)}
        assert np.isfinite(float(t[0]))
    if dist.get_rank() == 0:
        print("RESULT " + json.dumps(out), flush=True)
    dist.destroy_process_group()


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


def main():
    sizes = [1024, 1 << 20, 64 << 20]
    if "--sizes" in sys.argv:
        sizes = [int(s) for s in sys.argv[sys.argv.index("--sizes") + 1].split(",")]
    nproc = int(sys.argv[sys.argv.index("--nproc") + 1]) if "--nproc" in sys.argv else 2
    arg = ",".join(map(str, sizes))
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "src"))
    r = subprocess.run([sys.executable, "-m", "ember.distributed.run", "--nproc-per-node", str(nproc), __file__,
                        "--worker", "ember", arg], env=env, capture_output=True, text=True, timeout=900)
    ember_res = parse(r.stdout + r.stderr)
    port = free_port()
    procs = [subprocess.Popen([sys.executable, __file__, "--worker", "torch", arg], stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True,
                              env=dict(os.environ, RANK=str(k), WORLD_SIZE=str(nproc), MASTER_ADDR="127.0.0.1",
                                       MASTER_PORT=str(port), OMP_NUM_THREADS="1"))
             for k in range(nproc)]
    outs = [p.communicate(timeout=900)[0] for p in procs]
    torch_res = parse(outs[0])
    table = {str(n): {"ember": ember_res[str(n)], "torch_gloo": torch_res[str(n)]} for n in sizes}
    print(json.dumps({"benchmark": "all_reduce float32", "ranks": nproc, "results": table}, indent=1))


if __name__ == "__main__":
    if "--worker" in sys.argv:
        i = sys.argv.index("--worker")
        worker(sys.argv[i + 1], [int(s) for s in sys.argv[i + 2].split(",")])
    else:
        main()
