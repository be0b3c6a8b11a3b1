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
