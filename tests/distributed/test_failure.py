"""A rank killed mid-collective: the job ends within the timeout with a clear error, and leaves no processes
or /dev/shm segments behind (under ember-run, and with env:// alone through the watchdog)."""
import subprocess
import time

import pytest

from . import _launch

pytest.importorskip("mpi4py")
pytestmark = [pytest.mark.serial]

WORKER = _launch.WORKERS / "failure.py"


def _orphans():
    r = subprocess.run(["pgrep", "-f", str(WORKER)], capture_output=True, text=True)
    return r.stdout.split()


def test_launcher_ends_the_job_when_a_rank_dies():
    before = _launch.shm_segments()
    t0 = time.monotonic()
    r = _launch.ember_run(["--nproc-per-node", 2, WORKER, 60], timeout=60)
    assert time.monotonic() - t0 < 45          # start-up under load included; the group timeout is far longer
    assert r.returncode == 137, r.stderr            # the dead rank's status (SIGKILL), as torchrun reports it
    assert "rank 1 failed with exit code 137" in r.stderr
    assert "UNREACHABLE" not in r.stdout
    assert not _orphans()
    assert not (_launch.shm_segments() - before)


def test_watchdog_names_the_collective_and_the_missing_rank():
    before = _launch.shm_segments()
    t0 = time.monotonic()
    outs = _launch.spawn_ranks(WORKER, 2, [3], timeout=60)
    assert time.monotonic() - t0 < 45          # start-up under load included; the group timeout is far longer
    code, out, err = outs[0]
    assert code == 1
    assert "all_reduce (collective #2 of group 'default_pg') timed out after 3 s; ranks [1] did not arrive" in err
    assert outs[1][0] == -9
    time.sleep(0.5)
    assert not _orphans()
    assert not (_launch.shm_segments() - before)
