"""DistributedDataParallel at 2 ranks under ember-run: gradients equal single-process training on the concatenated
batch, no_sync, find_unused_parameters, buffer and parameter broadcast, state_dict keys; DistributedSampler."""
import re

import pytest

from . import _launch

pytest.importorskip("mpi4py")
pytestmark = [pytest.mark.serial]


def test_ddp_matches_single_process():
    r = _launch.ember_run(["--nproc-per-node", 2, _launch.WORKERS / "ddp.py"])
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    results = re.findall(r"\[rank(\d+)\]:CHECKS (\d+) FAILURES (\d+)", r.stdout)
    assert sorted(int(x[0]) for x in results) == [0, 1]
    assert all(int(c) >= 20 and f == "0" for _, c, f in results), r.stdout


def test_distributed_sampler_without_a_group():
    from ember.utils.data import DistributedSampler
    shares = [list(DistributedSampler(range(11), num_replicas=3, rank=r, shuffle=False)) for r in range(3)]
    assert shares == [[0, 3, 6, 9], [1, 4, 7, 10], [2, 5, 8, 0]]
    shares = [list(DistributedSampler(range(11), num_replicas=3, rank=r, shuffle=False, drop_last=True))
              for r in range(3)]
    assert shares == [[0, 3, 6], [1, 4, 7], [2, 5, 8]]
    s = DistributedSampler(range(11), num_replicas=3, rank=0, seed=1)
    first = list(s)
    s.set_epoch(1)
    assert list(s) != first and len(s) == 4
    with pytest.raises(ValueError, match="Invalid rank 3"):
        DistributedSampler(range(4), num_replicas=3, rank=3)


def test_data_parallel_passes_through():
    import ember
    m = ember.nn.Linear(2, 2)
    dp = ember.nn.DataParallel(m)
    x = ember.ones(1, 2)
    assert dp(x).tolist() == m(x).tolist()
    assert list(dp.state_dict()) == ["module.weight", "module.bias"]
