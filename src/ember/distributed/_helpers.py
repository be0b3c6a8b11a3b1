"""Helper processes of ember.distributed (torchrun's agent-side services): a store server and a PMI-1 server.

A helper runs one of this package's standard-library-only modules (``_store_server``, ``_pmi_server``,
``_store``) under a stand-in package name, so it starts in a few tens of milliseconds without importing ember.
Each helper exits when its parent closes the pipe on its standard input (the parent ended, however it ended).
"""
from __future__ import annotations

import os
import subprocess
import sys

_DIR = os.path.dirname(os.path.abspath(__file__))

_BOOT = """
import sys, types
pkg = types.ModuleType("_ember_dist"); pkg.__path__ = [sys.argv[1]]; sys.modules["_ember_dist"] = pkg
import importlib
importlib.import_module("_ember_dist." + sys.argv[2]).main(sys.argv[3:])
"""


_keep = []


def spawn(module: str, args, pass_fds=(), env=None) -> subprocess.Popen:
    """Start ``python -c BOOT <dir> <module> args...``; its stdout is a pipe (the helper reports on it).

    A duplicate of the helper's stdin pipe is kept open until this process is gone: Python closes the pipe's file
    object during interpreter shutdown, but MPICH still talks PMI (cmd=finalize) after that, from C at exit."""
    proc = subprocess.Popen([sys.executable, "-c", _BOOT, _DIR, module, *map(str, args)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, pass_fds=tuple(pass_fds), env=env, close_fds=True)
    _keep.append(os.dup(proc.stdin.fileno()))
    return proc


def start_store_server(host: str, port: int, secret: bytes | None) -> tuple[subprocess.Popen, int]:
    """A TCPStore server in its own process; returns (process, port)."""
    env = dict(os.environ)
    env.pop("EMBER_STORE_SECRET", None)
    if secret:
        env["EMBER_STORE_SECRET"] = secret.decode("latin-1")
    proc = spawn("_store_server", [host, port], env=env)
    line = proc.stdout.readline()
    if not line:
        proc.wait()
        raise RuntimeError(f"the store server could not listen on {host}:{port}")
    return proc, int(line)


def start_pmi_server(sock_fd: int, store_spec: list, rank: int, size: int, job: str) -> subprocess.Popen:
    """A PMI-1 server for one rank on the inherited socket ``sock_fd``, keeping its KVS in the described store."""
    return spawn("_pmi_server", [sock_fd, rank, size, job, *store_spec], pass_fds=[sock_fd])
