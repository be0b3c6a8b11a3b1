"""Two "nodes" on this machine: two ember-run launchers (--nnodes 2) over loopback, MPICH's TCP network module
between them (libfabric tcp on lo), train the demo CNN with DDP (examples/train_digits_ddp.py, quick mode)."""
import re
import subprocess
import sys

import pytest

from . import _launch

pytest.importorskip("mpi4py")
pytestmark = [pytest.mark.serial]


def test_two_launchers_train_the_demo_cnn():
    pytest.importorskip("sklearn")
    port = _launch.free_port()
    env = _launch.env(MPIR_CVAR_CH4_NETMOD="ofi", FI_PROVIDER="tcp", FI_TCP_IFACE="lo",
                      EMBER_STORE_SECRET="two-node-secret")
    procs = [subprocess.Popen([sys.executable, "-m", "ember.distributed.run", "--nnodes", "2", "--node-rank",
                               str(node), "--nproc-per-node", "1", "--master-addr", "127.0.0.1", "--master-port",
                               str(port), str(_launch.ROOT / "examples" / "train_digits_ddp.py"), "--quick"],
                              env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=_launch.ROOT)
             for node in (0, 1)]
    outs = []
    try:
        for p in procs:
            outs.append(p.communicate(timeout=150))
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    for p, (out, err) in zip(procs, outs):
        assert p.returncode == 0, out[-2000:] + err[-3000:]
    out = outs[0][0]
    assert "[rank0]:replicas identical; checkpoint keys start with 'module.conv1.weight'" in out, out
    acc = float(re.search(r"final test accuracy ([\d.]+)%", out).group(1))
    assert acc > 25, out              # 20 steps of 2 x 16 images: ~40%; chance is 10%
