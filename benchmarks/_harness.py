"""What the side-by-side benchmark scripts share: the src/ path, best-of-N and median-of-N wall-clock timing and
the --threads option. A script imports it as `from _harness import best, threads_arg` (run from the repo root
as `python benchmarks/<name>.py`, which puts benchmarks/ on sys.path)."""
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src"))


def best(fn, reps=5):
    """Milliseconds of the fastest of `reps` calls of fn, after one warm-up call."""
    fn()
    ts = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t)
    return min(ts) * 1e3


def median(fn, reps=7, inner=1):
    """Milliseconds per call, the median over `reps` rounds of `inner` calls, after one warm-up call (on a
    shared machine the median resists other jobs' bursts better than a single run)."""
    fn()
    ts = []
    for _ in range(reps):
        t = time.perf_counter()
        for _ in range(inner):
            fn()
        ts.append((time.perf_counter() - t) / inner)
    return statistics.median(ts) * 1e3


def threads_arg(default=2):
    """The value of --threads N on the command line, else `default`."""
    return int(sys.argv[sys.argv.index("--threads") + 1]) if "--threads" in sys.argv else default
