"""A torchrun-style DDP program (tests/porting/_ddp_train.py: the DDP tutorial's ToyModel, gloo,
DistributedSampler with set_epoch, all_reduce of the loss, all_gather / all_gather_object, torch.save from rank
0 only, barrier, load with a map_location dict) launched on 2 processes by ember's launcher
(`python -m ember.distributed.run`, torchrun's flags) and, for parity, by torch on 2 env:// ranks."""
import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from _porting import torch_fixture  # noqa: F401  (the `torch` fixture)

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
SCRIPT = HERE / "_ddp_train.py"

pytestmark = [pytest.mark.serial]      # multi-process, as tests/distributed


def _env(lib, out, **extra):
    e = {k: v for k, v in os.environ.items() if k not in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR",
                                                           "MASTER_PORT", "PMI_FD", "PMI_RANK", "PMI_SIZE")}
    e.update(PORT_LIB=lib, PORT_OUT=str(out), PYTHONPATH=str(ROOT / "src") + os.pathsep + e.get("PYTHONPATH", ""),
             OMP_NUM_THREADS="1", **{k: str(v) for k, v in extra.items()})
    return e


def _ember_run(out, shuffle=False):
    r = subprocess.run([sys.executable, "-m", "ember.distributed.run", "--nproc-per-node", "2", str(SCRIPT)],
                       env=_env("ember", out, PORT_SHUFFLE=int(shuffle)), capture_output=True, text=True,
                       timeout=240, cwd=ROOT)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    return json.loads((out / "result.json").read_text())


def _torch_ranks(out):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    procs = [subprocess.Popen([sys.executable, str(SCRIPT)], cwd=ROOT, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True,
                              env=_env("torch", out, RANK=r, LOCAL_RANK=r, WORLD_SIZE=2, MASTER_ADDR="127.0.0.1",
                                       MASTER_PORT=port))
             for r in range(2)]
    try:
        for p in procs:
            o, e = p.communicate(timeout=240)
            assert p.returncode == 0, o[-2000:] + e[-2000:]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    return json.loads((out / "result.json").read_text())


def _check(res):
    assert res["same"] is True           # DDP kept the replicas identical
    assert res["keys"] == ["module.net1.bias", "module.net1.weight", "module.net2.bias", "module.net2.weight"]
    assert len(res["losses"]) == 12 and all(np.isfinite(res["losses"]))
    ranks = res["seen"]                  # [rank][epoch] -> that rank's indices: a partition of the 40 samples
    for e in range(3):
        assert sorted(ranks[0][e] + ranks[1][e]) == list(range(40))


def test_ddp_program_under_ember_run(tmp_path):
    res = _ember_run(tmp_path, shuffle=True)
    _check(res)
    assert res["seen"][0][0] != res["seen"][0][1]      # set_epoch reshuffles
    assert list(Path(tmp_path).iterdir()) and (tmp_path / "checkpoint.pt").exists()


@pytest.mark.parity
@pytest.mark.slow      # two torch ranks import torch._dynamo through DDP: ~3 s CPU each, 20-40 s wall when busy
def test_ddp_program_matches_torch(torch, tmp_path):
    (tmp_path / "e").mkdir()
    (tmp_path / "t").mkdir()
    got = _ember_run(tmp_path / "e")
    want = _torch_ranks(tmp_path / "t")
    _check(got)
    _check(want)
    assert got["seen"] == want["seen"] and got["keys"] == want["keys"]
    np.testing.assert_allclose(got["losses"], want["losses"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got["w"], want["w"], rtol=1e-5, atol=1e-6)
    # each library reads the other's rank-0 checkpoint
    import ember
    assert sorted(ember.load(tmp_path / "t" / "checkpoint.pt")) == got["keys"]
    assert sorted(torch.load(tmp_path / "e" / "checkpoint.pt")) == want["keys"]
