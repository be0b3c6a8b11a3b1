"""Save/load throughput of a ~200 MB float32 state dict: ember vs torch (when installed).

    python benchmarks/save_load.py [--mb 200] [--repeat 3] [--dir /tmp]

Prints one JSON object: GB/s for save and load, mmap-load time, and a raw numpy file
write/read as the ceiling.  Files go to a temporary folder (page cache warm for loads, as in
normal use right after saving).
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))


def _best(fn, repeat):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def _arrays(total_mb: int):
    rng = np.random.default_rng(0)
    # a transformer-ish mix: a few big matrices and many small vectors
    shapes = []
    remaining = total_mb * (1 << 20) // 4
    i = 0
    while remaining > 0:
        if i % 4 == 3:
            n = min(1024, remaining)
            shapes.append((f"layers.{i // 4}.norm.weight", (n,)))
        else:
            rows = min(1024, max(1, remaining // 4096))
            shapes.append((f"layers.{i // 4}.proj{i % 4}.weight", (rows, 4096)))
            n = rows * 4096
        remaining -= n
        i += 1
    return [(k, rng.standard_normal(s, dtype=np.float32)) for k, s in shapes]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mb", type=int, default=200)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--dir", default=None)
    args = ap.parse_args()

    import ember
    from ember.serialization import load, save

    arrays = _arrays(args.mb)
    nbytes = sum(a.nbytes for _, a in arrays)
    gb = nbytes / 1e9
    ember_sd = collections.OrderedDict((k, ember.tensor(a)) for k, a in arrays)
    result = {"payload_bytes": nbytes, "tensors": len(arrays), "repeat": args.repeat}

    with tempfile.TemporaryDirectory(dir=args.dir) as d:
        os.makedirs(os.path.join(d, "e"))
        os.makedirs(os.path.join(d, "t"))
        p = os.path.join(d, "e", "model.pt")
        t = _best(lambda: save(ember_sd, p), args.repeat)
        result["ember_save_GBps"] = round(gb / t, 3)
        t = _best(lambda: load(p), args.repeat)
        result["ember_load_GBps"] = round(gb / t, 3)
        t = _best(lambda: load(p, mmap=True), args.repeat)
        result["ember_mmap_load_ms"] = round(t * 1e3, 3)

        raw = os.path.join(d, "raw.bin")

        def raw_write():
            with open(raw, "wb") as f:
                for _, a in arrays:
                    f.write(a)

        def raw_read():
            with open(raw, "rb") as f:
                for _, a in arrays:
                    f.readinto(np.empty_like(a))
        result["numpy_raw_write_GBps"] = round(gb / _best(raw_write, args.repeat), 3)
        result["numpy_raw_read_GBps"] = round(gb / _best(raw_read, args.repeat), 3)

        try:
            import torch
        except ImportError:
            result["torch"] = None
        else:
            torch_sd = collections.OrderedDict((k, torch.from_numpy(a)) for k, a in arrays)
            tp = os.path.join(d, "t", "model.pt")
            result["torch_version"] = torch.__version__
            result["torch_save_GBps"] = round(gb / _best(lambda: torch.save(torch_sd, tp), args.repeat), 3)
            result["torch_load_GBps"] = round(
                gb / _best(lambda: torch.load(tp, weights_only=True), args.repeat), 3)
            result["torch_mmap_load_ms"] = round(
                _best(lambda: torch.load(tp, weights_only=True, mmap=True), args.repeat) * 1e3, 3)
            with open(tp, "rb") as a, open(p, "rb") as b:
                result["files_identical"] = a.read() == b.read()
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
