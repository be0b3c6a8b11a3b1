"""Helpers of the distributed tests: run ember-run or plain env:// ranks in fresh processes, bounded in time."""
import os
import socket
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
WORKERS = Path(__file__).resolve().parent / "workers"


def env(**extra):
    e = dict(os.environ)
    e["PYTHONPATH"] = str(ROOT / "src") + os.pathsep + e.get("PYTHONPATH", "")
    for k in ("RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT", "PMI_FD", "PMI_RANK", "PMI_SIZE",
              "EMBER_STORE_SECRET", "TORCHELASTIC_USE_AGENT_STORE"):
        e.pop(k, None)
    e.update({k: str(v) for k, v in extra.items()})
    if "PYTHONPATH" in extra:
        e["PYTHONPATH"] = str(ROOT / "src") + os.pathsep + str(extra["PYTHONPATH"])
    return e


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def ember_run(args, timeout=120, **extra):
    """Run ``python -m ember.distributed.run args``; returns CompletedProcess (text)."""
    return subprocess.run([sys.executable, "-m", "ember.distributed.run", *map(str, args)], env=env(**extra),
                          capture_output=True, text=True, timeout=timeout, cwd=ROOT)


def spawn_ranks(script, n, script_args=(), timeout=120, **extra):
    """Start n ranks of `script` with env:// variables (no launcher); returns [(code, stdout, stderr)]."""
    port = free_port()
    procs = [subprocess.Popen([sys.executable, str(script), *map(str, script_args)],
                              env=env(RANK=r, WORLD_SIZE=n, MASTER_ADDR="127.0.0.1", MASTER_PORT=port, **extra),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
             for r in range(n)]
    out = []
    try:
        for p in procs:
            o, e = p.communicate(timeout=timeout)
            out.append((p.returncode, o, e))
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    return out


def shm_segments():
    try:
        return {f for f in os.listdir("/dev/shm") if f.startswith("mpich_shm_")}
    except OSError:
        return set()
