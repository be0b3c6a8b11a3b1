"""DataLoader throughput and CPU use with 0, 1 and 2 worker processes, ember vs torch, as JSON.

    python benchmarks/dataloader.py [--samples 1536] [--batch 32] [--work 400] [--out results.json]

Each sample costs real CPU in `__getitem__` (a few FFT round trips of a 64x64 image, `--work` sets how
many), so the loader is CPU bound the way image decoding and augmentation are. For each worker count
the script reports samples/s and "cores busy": CPU seconds used by the main process and its workers
divided by wall time. On a 2-core machine, 2 workers should keep both cores busy (close to 2.0).
"""
import argparse
import json
import os
import resource
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src"))


class Images:
    """A map-style dataset whose items cost CPU time: (image, label) pairs built on the fly."""

    def __init__(self, n, work):
        self.n, self.work = n, work

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        rng = np.random.default_rng(i)
        img = rng.standard_normal((64, 64)).astype(np.float32)
        for _ in range(self.work // 100):
            img = np.fft.irfft2(np.fft.rfft2(img) * 0.99, s=img.shape).astype(np.float32)
        return img, int(i % 10)


def _cpu_seconds():
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def run(lib, workers, samples, batch, work):
    data = lib.utils.data
    loader = data.DataLoader(Images(samples, work), batch_size=batch, shuffle=True, num_workers=workers,
                             generator=lib.Generator().manual_seed(0))
    cpu0, t0 = _cpu_seconds(), time.perf_counter()
    seen = 0
    for x, y in loader:
        seen += x.shape[0]
    del loader                      # joins the workers, so their CPU time is counted in RUSAGE_CHILDREN
    wall = time.perf_counter() - t0
    cpu = _cpu_seconds() - cpu0
    assert seen == samples
    return {"samples_per_s": round(samples / wall, 1), "cores_busy": round(cpu / wall, 2), "wall_s": round(wall, 3)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--samples", type=int, default=1536)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--work", type=int, default=400)
    ap.add_argument("--out")
    a = ap.parse_args()
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    import ember
    libs = {"ember": ember}
    try:
        import torch
        torch.set_num_threads(1)
        libs["torch"] = torch
    except ImportError:
        pass
    results = {}
    for workers in (0, 1, 2):
        for name, lib in libs.items():
            results[f"{name}/workers={workers}"] = run(lib, workers, a.samples, a.batch, a.work)
    out = {"benchmark": "dataloader", "cpus": os.cpu_count(), "samples": a.samples, "batch": a.batch,
           "results": results}
    text = json.dumps(out, indent=2)
    print(text)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
