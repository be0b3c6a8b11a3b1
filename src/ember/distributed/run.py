"""torch.distributed.run (torchrun): ember's launcher, ``python -m ember.distributed.run`` or ``ember-run``.

    ember-run --nproc-per-node 2 train.py --epochs 3
    ember-run --nnodes 2 --node-rank 0 --master-addr host0 --master-port 29500 --nproc-per-node 2 train.py

The launcher of node 0 hosts the job's TCPStore (node-local jobs get a random shared secret, so nothing else on
the machine can talk to it); every launcher serves PMI-1 to its ranks over socketpairs, so MPICH forms the world
without mpiexec.  Ranks get torchrun's environment (RANK, LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE, GROUP_RANK,
GROUP_WORLD_SIZE, ROLE_RANK, ROLE_NAME, ROLE_WORLD_SIZE, MASTER_ADDR, MASTER_PORT, TORCHELASTIC_*; OMP_NUM_THREADS=1
when a node runs several ranks).  Output lines are prefixed ``[rank<N>]:``.  When a rank fails, the launcher ends
every rank of the job (on every node, through the store), removes the job's /dev/shm segments, restarts up to
``--max-restarts`` times, and finally exits with the failed rank's exit code.
"""
from __future__ import annotations

import argparse
import os
import secrets
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from datetime import timedelta

from . import _pmi_server
from ._errors import DistError
from ._store import TCPStore


def get_args_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="ember-run", description="ember's distributed launcher (torchrun's flags)")
    p.add_argument("--nnodes", "--nnodes", type=str, default="1")
    p.add_argument("--nproc-per-node", "--nproc_per_node", dest="nproc_per_node", type=str, default="1")
    p.add_argument("--node-rank", "--node_rank", dest="node_rank", type=int, default=0)
    p.add_argument("--master-addr", "--master_addr", dest="master_addr", default="127.0.0.1")
    p.add_argument("--master-port", "--master_port", dest="master_port", type=int, default=None)
    p.add_argument("--rdzv-endpoint", "--rdzv_endpoint", dest="rdzv_endpoint", default="")
    p.add_argument("--rdzv-backend", "--rdzv_backend", dest="rdzv_backend", default="static")
    p.add_argument("--rdzv-id", "--rdzv_id", dest="rdzv_id", default="none")
    p.add_argument("--standalone", action="store_true")
    p.add_argument("--max-restarts", "--max_restarts", dest="max_restarts", type=int, default=0)
    p.add_argument("--monitor-interval", "--monitor_interval", dest="monitor_interval", type=float, default=0.1)
    p.add_argument("--role", default="default")
    p.add_argument("-m", "--module", action="store_true", help="run the script as a module (python -m)")
    p.add_argument("--no-python", "--no_python", dest="no_python", action="store_true")
    p.add_argument("--timeout", type=float, default=900.0, help="seconds the store waits for the other nodes")
    p.add_argument("training_script")
    p.add_argument("training_script_args", nargs=argparse.REMAINDER)
    return p


def _nproc(v: str) -> int:
    if v in ("cpu", "auto"):
        return os.cpu_count() or 1
    return int(v)


class _Rank:
    def __init__(self, local_rank, rank, proc, pmi_sock):
        self.local_rank = local_rank
        self.rank = rank
        self.proc = proc
        self.pmi_sock = pmi_sock
        self.segments = set()


def _pump(stream, prefix, out):
    for line in iter(stream.readline, b""):
        out.buffer.write(prefix + line)
        out.flush()
    stream.close()


def _scan_segments(r: _Rank):
    try:
        with open(f"/proc/{r.proc.pid}/maps") as f:
            for line in f:
                i = line.find("/dev/shm/mpich_shm_")
                if i >= 0:
                    r.segments.add(line[i:].split(" (deleted)")[0].strip())
    except OSError:
        pass


class Launcher:
    def __init__(self, args):
        self.args = args
        self.nnodes = int(str(args.nnodes).split(":")[-1])
        self.nproc = _nproc(args.nproc_per_node)
        self.world_size = self.nnodes * self.nproc
        host, port = args.master_addr, args.master_port
        if args.rdzv_endpoint:
            h, _, p = args.rdzv_endpoint.rpartition(":")
            host, port = (h or host), int(p) if p else port
        if port is None:
            port = 0 if (self.nnodes == 1 or args.standalone) else 29500
        run_id = args.rdzv_id if args.rdzv_id != "none" else uuid.uuid4().hex[:12]
        secret = os.environ.get("EMBER_STORE_SECRET")
        if secret is None and self.nnodes == 1:
            secret = secrets.token_hex(16)
        self.secret = secret
        timeout = timedelta(seconds=args.timeout)
        self.store = TCPStore(host, port, None, args.node_rank == 0, timeout, secret=secret)
        self.host = host
        self.port = self.store.port
        self.failed = None
        # every node's launcher uses node 0's run id (the PMI keys and the failure marks are named by it)
        self.run_id = self.store.compare_set("launcher/run_id", "", run_id).decode()

    def _env(self, local_rank, rank, attempt, pmi_fd):
        a = self.args
        env = dict(os.environ)
        env.update(RANK=str(rank), LOCAL_RANK=str(local_rank), WORLD_SIZE=str(self.world_size),
                   LOCAL_WORLD_SIZE=str(self.nproc), GROUP_RANK=str(a.node_rank), GROUP_WORLD_SIZE=str(self.nnodes),
                   ROLE_RANK=str(rank), ROLE_NAME=a.role, ROLE_WORLD_SIZE=str(self.world_size),
                   LOCAL_ROLE_RANK=str(local_rank), MASTER_ADDR=self.host, MASTER_PORT=str(self.port),
                   TORCHELASTIC_RESTART_COUNT=str(attempt), TORCHELASTIC_MAX_RESTARTS=str(a.max_restarts),
                   TORCHELASTIC_RUN_ID=self.run_id, TORCHELASTIC_USE_AGENT_STORE="True",
                   TORCHELASTIC_ERROR_FILE="", PMI_FD=str(pmi_fd), PMI_RANK=str(rank), PMI_SIZE=str(self.world_size),
                   PYTHONUNBUFFERED="1")
        if self.secret:
            env["EMBER_STORE_SECRET"] = self.secret
        if self.nproc > 1 and "OMP_NUM_THREADS" not in os.environ:
            env["OMP_NUM_THREADS"] = "1"
        if self.nproc > (os.cpu_count() or 1):
            env.setdefault("MPIR_CVAR_ENABLE_HEAVY_YIELD", "1")
        return env

    def _cmd(self):
        a = self.args
        if a.no_python:
            return [a.training_script, *a.training_script_args]
        if a.module:
            return [sys.executable, "-u", "-m", a.training_script, *a.training_script_args]
        return [sys.executable, "-u", a.training_script, *a.training_script_args]

    def _start(self, attempt):
        ranks = []
        job = f"{self.run_id}-{attempt}"
        for lr in range(self.nproc):
            rank = self.args.node_rank * self.nproc + lr
            mine, theirs = socket.socketpair()
            proc = subprocess.Popen(self._cmd(), env=self._env(lr, rank, attempt, theirs.fileno()),
                                    pass_fds=[theirs.fileno()], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                    start_new_session=True, preexec_fn=_die_with_parent)
            theirs.close()
            r = _Rank(lr, rank, proc, mine)
            ranks.append(r)
            prefix = f"[rank{rank}]:".encode()
            threading.Thread(target=_pump, args=(proc.stdout, prefix, sys.stdout), daemon=True).start()
            threading.Thread(target=_pump, args=(proc.stderr, prefix, sys.stderr), daemon=True).start()
            client = TCPStore(self.host, self.port, None, False, self.store.timeout, secret=self.secret)
            _pmi_server.serve_in_thread(mine, client, rank, self.world_size, job, on_abort=lambda rk, m: None,
                                        process_mapping=f"(vector,(0,{self.nnodes},{self.nproc}))")
        return ranks

    def _kill(self, ranks, grace=3.0):
        for r in ranks:
            if r.proc.poll() is None:
                _scan_segments(r)
                try:
                    os.killpg(r.proc.pid, signal.SIGTERM)
                except OSError:
                    pass
        deadline = time.monotonic() + grace
        for r in ranks:
            try:
                r.proc.wait(max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                try:
                    os.killpg(r.proc.pid, signal.SIGKILL)
                except OSError:
                    pass
                r.proc.wait()

    @staticmethod
    def _clean(ranks):
        for r in ranks:
            for p in r.segments:
                try:
                    os.unlink(p)
                except OSError:
                    pass

    def _monitor(self, ranks, attempt):
        """0 when every rank succeeded, else (rank, code) of the first that failed."""
        fail_key = f"launcher/{self.run_id}/failed/{attempt}"
        done_key = f"launcher/{self.run_id}/done/{attempt}"
        last_scan = 0.0
        last_remote = 0.0
        while True:
            now = time.monotonic()
            if now - last_scan > 1.0:
                for r in ranks:
                    if r.proc.poll() is None:
                        _scan_segments(r)
                last_scan = now
            alive = 0
            for r in ranks:
                code = r.proc.poll()
                if code is None:
                    alive += 1
                elif code != 0:
                    self.store.compare_set(fail_key, "", f"{r.rank}:{code}")
                    return r.rank, code
            if alive == 0:
                if self.nnodes > 1:        # wait for the other nodes to finish (or fail)
                    n = self.store.add(done_key, 1 if not getattr(self, "_counted", False) else 0)
                    self._counted = True
                    if n < self.nnodes and not self.store.check([fail_key]):
                        time.sleep(self.args.monitor_interval)
                        continue
                    if self.store.check([fail_key]):
                        rk, code = self.store.get(fail_key).decode().split(":")
                        return int(rk), int(code)
                    self._leave(attempt)
                return 0
            if self.nnodes > 1 and now - last_remote > 0.5:
                last_remote = now
                if self.store.check([fail_key]):
                    rk, code = self.store.get(fail_key).decode().split(":")
                    return int(rk), int(code)
            time.sleep(self.args.monitor_interval)

    def _leave(self, attempt):
        """Multi-node: node 0 keeps the store up until every other launcher has seen the job end."""
        key = f"launcher/{self.run_id}/left/{attempt}"
        if self.args.node_rank != 0:
            self.store.add(key, 1)
            return
        deadline = time.monotonic() + 30
        while self.store.add(key, 0) < self.nnodes - 1 and time.monotonic() < deadline:
            time.sleep(0.05)

    def run(self) -> int:
        attempt = 0
        while True:
            self._counted = False
            ranks = self._start(attempt)
            try:
                result = self._monitor(ranks, attempt)
            except DistError as e:          # node 0's store went away: end this node's ranks
                sys.stderr.write(f"ember-run: lost the job's store ({e}); ending this node's ranks\n")
                result = (-1, 1)
            except KeyboardInterrupt:
                self._kill(ranks)
                self._clean(ranks)
                return 130
            if result == 0:
                self._clean(ranks)
                return 0
            rank, code = result
            self._kill(ranks)
            self._clean(ranks)
            code = code if code > 0 else 128 - code if code < 0 else 1
            if attempt >= self.args.max_restarts:
                sys.stderr.write(f"ember-run: rank {rank} failed with exit code {code}; job ended "
                                 f"(restarts used: {attempt}/{self.args.max_restarts})\n")
                return code
            attempt += 1
            sys.stderr.write(f"ember-run: rank {rank} failed with exit code {code}; restarting the job "
                             f"({attempt}/{self.args.max_restarts})\n")


def _terminate(signum, frame):
    signal.signal(signal.SIGTERM, signal.SIG_IGN)       # once: the cleanup that follows must not be interrupted
    raise KeyboardInterrupt


def _die_with_parent():
    """In each rank (before exec): SIGKILL when the launcher dies, however it dies (Linux prctl)."""
    try:
        import ctypes
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)     # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def run(args) -> int:
    signal.signal(signal.SIGTERM, _terminate)
    launcher = Launcher(args)
    try:
        return launcher.run()
    finally:
        launcher.store.close()


def main(args=None):
    parsed = get_args_parser().parse_args(args)
    sys.exit(run(parsed))


if __name__ == "__main__":
    main()
