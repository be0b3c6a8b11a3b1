"""pool.run_parts / split_run: every part runs, part 0 on the calling thread, errors surface
only after every part has finished (the parts write into shared buffers)."""
import threading
import time

import numpy as np
import pytest

from ember.kernels.cpu.runtime import pool


def test_every_part_runs_and_part_zero_on_the_caller():
    seen = {}
    pool.run_parts(lambda j: seen.setdefault(j, threading.get_ident()), 4)
    assert sorted(seen) == [0, 1, 2, 3]
    assert seen[0] == threading.get_ident()


def test_an_error_waits_for_the_other_parts_then_surfaces():
    done = []

    def part(j):
        if j == 0:
            raise ValueError("part 0 failed")
        time.sleep(0.05)
        done.append(j)

    with pytest.raises(ValueError, match="part 0 failed"):
        pool.run_parts(part, 3)
    assert sorted(done) == [1, 2]

    def late(j):
        if j == 2:
            raise KeyError("part 2")
    with pytest.raises(KeyError):
        pool.run_parts(late, 3)


def test_split_run_covers_every_row_once():
    a = np.zeros((1 << 10, 512))
    pool.split_run(lambda c: c.__iadd__(1.0), [a], 0, min_elems=1)
    assert (a == 1.0).all()


_DEFAULTS = []          # (ember's, torch's) thread count without the variables, from the first case


@pytest.mark.parity
@pytest.mark.parametrize("env", [{"OMP_NUM_THREADS": "1"}, {"MKL_NUM_THREADS": "1"},
                                 {"OMP_NUM_THREADS": "2", "MKL_NUM_THREADS": "1"},
                                 {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "2"}, {"OMP_NUM_THREADS": "abc"},
                                 {"OMP_NUM_THREADS": "64"}])
def test_thread_count_from_the_environment_like_torch(env):
    """OMP_NUM_THREADS / MKL_NUM_THREADS size the pool at start-up as they size torch's (MKL's first, a count
    above the cores capped, an invalid one ignored): OMP_NUM_THREADS=1 gives one thread and no split job."""
    pytest.importorskip("torch")
    import os
    import subprocess
    import sys
    import ember
    code = ("import numpy as np, torch, ember\n"
            "from ember.kernels.cpu.runtime import flat\n"
            "n = ember.get_num_threads()\n"
            "x = ember.from_numpy(np.ones(1 << 20, np.float32))\n"
            "y = (x + x).sum()\n"
            "print(n, torch.get_num_threads(), flat.pool_stats()['jobs'] if flat.pool_stats() else 0)\n")
    src = os.path.dirname(os.path.dirname(os.path.abspath(ember.__file__)))
    base = {k: v for k, v in os.environ.items() if k not in ("OMP_NUM_THREADS", "MKL_NUM_THREADS")}
    base["PYTHONPATH"] = src + os.pathsep + base.get("PYTHONPATH", "")

    def run(e):
        out = subprocess.run([sys.executable, "-c", code], env={**base, **e}, capture_output=True, text=True,
                             timeout=120)
        assert out.returncode == 0, out.stderr
        return [int(v) for v in out.stdout.split()]

    if not _DEFAULTS:
        _DEFAULTS.extend(run({})[:2])
    default_ember, default_torch = _DEFAULTS
    if default_ember != default_torch:
        pytest.skip(f"ember's default ({default_ember} threads) differs from torch's ({default_torch}) here")
    ours, theirs, jobs = run(env)
    assert ours == theirs
    if ours == 1:
        assert jobs == 0                # nothing split
