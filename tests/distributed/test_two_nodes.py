"""Two "nodes" on this machine: two ember-run launchers (--nnodes 2) over loopback, MPICH's TCP network module
between them (libfabric tcp on lo); DDP at 2 ranks still equals single-process training."""
import re
import subprocess
import sys

import pytest

from . import _launch

pytest.importorskip("mpi4py")
pytestmark = [pytest.mark.serial]


def test_two_launchers_train_ddp():
    port = _launch.free_port()
    env = _launch.env(MPIR_CVAR_CH4_NETMOD="ofi", FI_PROVIDER="tcp", FI_TCP_IFACE="lo",
                      EMBER_STORE_SECRET="two-node-secret")
    procs = [subprocess.Popen([sys.executable, "-m", "ember.distributed.run", "--nnodes", "2", "--node-rank",
                               str(node), "--nproc-per-node", "1", "--master-addr", "127.0.0.1", "--master-port",
                               str(port), str(_launch.WORKERS / "ddp.py")], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, cwd=_launch.ROOT) for node in (0, 1)]
    outs = []
    try:
        for p in procs:
            outs.append(p.communicate(timeout=150))
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    for node, (p, (out, err)) in enumerate(zip(procs, outs)):
        assert p.returncode == 0, out[-2000:] + err[-3000:]
        results = re.findall(r"\[rank(\d+)\]:CHECKS (\d+) FAILURES (\d+)", out)
        assert results and results[0][0] == str(node) and results[0][2] == "0", out
