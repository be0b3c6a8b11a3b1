"""ember.distributed collectives on MPI at world sizes 1, 2, 3 (every collective and dtype against numpy), run
under ember-run in fresh processes; and the rendezvous methods env://, tcp://, file:// without the launcher."""
import re

import pytest

from . import _launch

pytest.importorskip("mpi4py")
pytestmark = [pytest.mark.serial]


@pytest.mark.parametrize("n", [1, 2, 3])
def test_every_collective_and_dtype(n):
    before = _launch.shm_segments()
    r = _launch.ember_run(["--nproc-per-node", n, _launch.WORKERS / "collectives.py"])
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    results = re.findall(r"\[rank(\d+)\]:CHECKS (\d+) FAILURES (\d+)", r.stdout)
    assert sorted(int(x[0]) for x in results) == list(range(n))
    assert all(int(c) > 200 and f == "0" for _, c, f in results), r.stdout
    assert not (_launch.shm_segments() - before)


@pytest.mark.parametrize("method", ["env://", "tcp://127.0.0.1:{port}", "file://{tmp}/rdzv"])
def test_rendezvous_methods(method, tmp_path):
    method = method.format(port=_launch.free_port(), tmp=tmp_path)
    outs = _launch.spawn_ranks(_launch.WORKERS / "rendezvous.py", 2, [method])
    for rank, (code, out, err) in enumerate(outs):
        assert code == 0, err[-3000:]
        assert f"RESULT rank={rank} size=2 sum=[3.0, 3.0, 3.0]" in out
        assert "PMIU" not in err and "Fatal" not in err, err       # the PMI helper saw MPICH's finalize


def test_init_errors(tmp_path):
    script = tmp_path / "errs.py"
    script.write_text(
        "import ember.distributed as dist\n"
        "for kw in [dict(init_method='env://'), dict(init_method='tcp://127.0.0.1:1', world_size=1),\n"
        "           dict(init_method='file:///tmp/x', rank=0), dict(init_method='bogus://x', rank=0, world_size=1),\n"
        "           dict(backend='nccl'), dict(backend='foo', rank=0, world_size=1, store=dist.HashStore())]:\n"
        "    kw.setdefault('backend', 'gloo')\n"
        "    try:\n"
        "        dist.init_process_group(**kw)\n"
        "    except Exception as e:\n"
        "        print(type(e).__name__, e)\n"
        "try:\n"
        "    dist.get_rank()\n"
        "except ValueError as e:\n"
        "    print('GET_RANK', e)\n"
        "print('AVAILABLE', dist.is_available(), dist.is_initialized(), dist.is_mpi_available())\n")
    r = __import__("subprocess").run([__import__("sys").executable, str(script)], env=_launch.env(),
                                     capture_output=True, text=True, timeout=60)
    out = r.stdout
    assert "ValueError Error initializing torch.distributed using env:// rendezvous: environment variable RANK " \
           "expected, but not set" in out
    assert "ValueError Error initializing torch.distributed using tcp:// rendezvous: rank parameter missing" in out
    assert "ValueError Error initializing torch.distributed using file:// rendezvous: world size parameter " \
           "missing" in out
    assert "RuntimeError No rendezvous handler for bogus://" in out
    assert "RuntimeError Backend 'nccl' is not available" in out
    assert "ValueError Invalid backend: 'foo'" in out
    assert "GET_RANK Default process group has not been initialized" in out
    assert "AVAILABLE True False True" in out


def test_under_a_real_mpiexec():
    import os
    import shutil
    import subprocess
    import sys
    mpiexec = shutil.which("mpiexec") or shutil.which("mpiexec", path=os.path.dirname(sys.executable))
    if mpiexec is None:
        pytest.skip("no mpiexec")
    r = subprocess.run([mpiexec, "-n", "2", sys.executable, str(_launch.WORKERS / "mpiexec_world.py")],
                       env=_launch.env(), capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-3000:]
    assert "MPIEXEC [(0, 2, [3.0, 3.0, 3.0, 3.0]), (1, 2, [3.0, 3.0, 3.0, 3.0])]" in r.stdout
