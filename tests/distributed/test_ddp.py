"""DistributedDataParallel at 2 ranks under ember-run: gradients equal single-process training on the concatenated
batch, no_sync, find_unused_parameters, buffer and parameter broadcast, state_dict keys; DistributedSampler."""
import re

import pytest

from . import _launch

pytest.importorskip("mpi4py")
pytestmark = [pytest.mark.serial]


def test_ddp_matches_single_process_and_checkpoint_reshards(tmp_path):
    ckpt = tmp_path / "ckpt"
    r = _launch.ember_run(["--nproc-per-node", 2, _launch.WORKERS / "ddp.py", ckpt])
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    results = re.findall(r"\[rank(\d+)\]:CHECKS (\d+) FAILURES (\d+)", r.stdout)
    assert sorted(int(x[0]) for x in results) == [0, 1]
    assert all(int(c) >= 20 and f == "0" for _, c, f in results), r.stdout
    # the checkpoint written by 2 ranks loads into one process
    import ember
    import ember.distributed.checkpoint as dcp
    assert sorted(p.name for p in ckpt.iterdir()) == [".metadata", "__0_0.distcp", "__1_0.distcp"]
    back = {"w": ember.zeros(10, 3), "b": ember.zeros(5, dtype=ember.int64), "step": 0, "name": "",
            "nested": {"m": ember.zeros(4), "lst": []}, "scalar": ember.tensor(0.0)}
    dcp.load(back, checkpoint_id=ckpt)
    assert back["w"].tolist() == ember.arange(30.).reshape(10, 3).tolist()
    assert back["b"].tolist() == [7] * 5 and back["step"] == 3 and back["name"] == "x"
    assert back["nested"]["m"].tolist() == [0.0, 1.0, 2.0, 3.0] and back["scalar"].item() == 2.5
    model = ember.nn.Sequential(ember.nn.Linear(5, 16), ember.nn.ReLU(), ember.nn.Linear(16, 3))
    sd = {"model": {"module." + k: v for k, v in model.state_dict().items()}}
    dcp.load(sd, checkpoint_id=ckpt)
    assert sd["model"]["module.0.weight"].abs().sum().item() > 0
    with pytest.raises(RuntimeError, match="Missing key in checkpoint state_dict: nope."):
        dcp.load({"nope": ember.zeros(1)}, checkpoint_id=ckpt)


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


def test_checkpoint_refuses_what_it_should(tmp_path):
    import json

    import ember
    import ember.distributed.checkpoint as dcp
    dcp.save({"w": ember.arange(6.).reshape(3, 2), "o": {"k": 1}}, checkpoint_id=tmp_path, no_dist=True)
    with pytest.raises(RuntimeError, match="Size mismatch for w"):
        dcp.load({"w": ember.zeros(2, 2)}, checkpoint_id=tmp_path, no_dist=True)
    meta = json.loads((tmp_path / ".metadata").read_text())
    meta["entries"]["w"]["pieces"][0][0] = "../../etc/passwd"
    (tmp_path / ".metadata").write_text(json.dumps(meta))
    with pytest.raises(RuntimeError, match="bad file name"):
        dcp.load({"w": ember.zeros(3, 2)}, checkpoint_id=tmp_path, no_dist=True)
    with pytest.raises(TypeError, match="neither a tensor nor plain data"):
        dcp.save({"f": object()}, checkpoint_id=tmp_path / "x", no_dist=True)
