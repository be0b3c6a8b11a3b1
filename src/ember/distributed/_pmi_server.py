"""The process-manager side of MPICH's PMI-1 wire protocol (what torchrun's agent is to c10d, mpiexec is to MPI).

MPICH started with PMI_FD, PMI_RANK and PMI_SIZE in its environment talks PMI-1 on that socket: lines of
``cmd=<name> key=value ...``.  This module answers them for one rank, keeping the job's key-value space in a
Store (any of ember's stores, usually the job's TCPStore), so ranks served by different processes, even on
different machines, see one key-value space and meet at one barrier.

Standard library only (it imports a store only through the object it is given), so it can run in the launcher
or in a small helper process next to each rank.
"""
from __future__ import annotations

import socket
import threading



def _parse(line: str) -> dict:
    out = {}
    for tok in line.split():
        k, _, v = tok.partition("=")
        out[k] = v
    return out


class PMIConnection:
    """Serve PMI-1 to one rank over a connected socket until it finalizes or disconnects."""

    def __init__(self, sock: socket.socket, store, rank: int, size: int, job: str = "0", appnum: int = 0,
                 on_abort=None, process_mapping: str | None = None):
        self.process_mapping = process_mapping
        self.sock = sock
        self.store = store
        self.rank = rank
        self.size = size
        self.job = job
        self.appnum = appnum
        self.on_abort = on_abort
        self._barriers = 0
        self.finalized = False

    def _key(self, k):
        return f"pmi/{self.job}/kvs/{k}"

    def _mapping(self):
        """MPICH's PMI_process_mapping: which ranks share a node.  Unless the caller said, every rank publishes
        its host name and consecutive ranks on one host form a block ``(node, 1, ranks)``."""
        if self.process_mapping:
            return self.process_mapping
        prefix = f"pmi/{self.job}/host/"
        self.store.set(prefix + str(self.rank), socket.gethostname())
        hosts = [self.store.get(prefix + str(r)).decode() for r in range(self.size)]
        nodes, blocks = {}, []
        for h in hosts:
            node = nodes.setdefault(h, len(nodes))
            if blocks and blocks[-1][0] == node:
                blocks[-1][2] += 1
            else:
                blocks.append([node, 1, 1])
        self.process_mapping = "(vector," + ",".join(f"({a},{b},{c})" for a, b, c in blocks) + ")"
        return self.process_mapping

    def _send(self, **kv):
        line = " ".join(f"{k}={v}" for k, v in kv.items()) + "\n"
        self.sock.sendall(line.encode())

    def serve(self):
        """Answer commands until the rank closes the socket (its process ended)."""
        buf = b""
        try:
            while True:
                try:
                    chunk = self.sock.recv(65536)
                except OSError:
                    return
                if not chunk:
                    return
                buf += chunk
                while b"\n" in buf:
                    line, buf = buf.split(b"\n", 1)
                    try:
                        if not self._handle(_parse(line.decode())):
                            return
                    except OSError:         # the rank went away mid-answer
                        return
        finally:
            try:
                self.sock.close()
            except OSError:
                pass

    def _handle(self, m) -> bool:
        cmd = m.get("cmd")
        if cmd == "init":
            self._send(cmd="response_to_init", pmi_version=1, pmi_subversion=1, rc=0)
        elif cmd == "get_maxes":
            self._send(cmd="maxes", kvsname_max=256, keylen_max=256, vallen_max=1024, rc=0)
        elif cmd == "get_appnum":
            self._send(cmd="appnum", appnum=self.appnum, rc=0)
        elif cmd == "get_my_kvsname":
            # MPICH names its /dev/shm segments after the KVS: every job needs its own name, or two jobs on one
            # machine attach to each other's segments (seen: "Message truncated" inside MPI_Init)
            self._send(cmd="my_kvsname", kvsname=f"ember_{self.job}", rc=0)
        elif cmd == "get_universe_size":
            self._send(cmd="universe_size", size=self.size, rc=0)
        elif cmd == "put":
            self.store.set(self._key(m["key"]), m.get("value", ""))
            self._send(cmd="put_result", rc=0, msg="success")
        elif cmd == "get":
            key = self._key(m["key"])
            if m["key"] == "PMI_process_mapping":
                self._send(cmd="get_result", rc=0, msg="success", value=self._mapping())
            elif self.store.check([key]):
                self._send(cmd="get_result", rc=0, msg="success", value=self.store.get(key).decode())
            else:
                self._send(cmd="get_result", rc=-1, msg="key_" + m["key"] + "_not_found")
        elif cmd == "barrier_in":
            self._barriers += 1
            key = f"pmi/{self.job}/barrier/{self._barriers}"
            if self.store.add(key, 1) >= self.size:
                self.store.set(key + "/done", "1")
            else:
                self.store.wait([key + "/done"])
            self._send(cmd="barrier_out", rc=0)
        elif cmd == "finalize":
            # keep serving until the rank's end closes the socket: MPICH can say finalize again at process exit
            self.finalized = True
            self._send(cmd="finalize_ack", rc=0)
        elif cmd == "abort":
            if self.on_abort is not None:
                self.on_abort(self.rank, m)
            return False
        else:
            self._send(cmd=(cmd or "unknown") + "_result", rc=-1, msg="unsupported")
        return True


def serve_in_thread(sock, store, rank, size, job="0", on_abort=None, process_mapping=None) -> threading.Thread:
    """Serve one rank from a daemon thread.  process_mapping is MPICH's "(vector,(first node,nodes,ranks per
    node))" layout, when the caller knows it."""
    conn = PMIConnection(sock, store, rank, size, job, on_abort=on_abort, process_mapping=process_mapping)
    t = threading.Thread(target=conn.serve, name=f"ember-pmi-{rank}", daemon=True)
    t.start()
    return t


def store_from_spec(spec):
    """Open the store a helper was told about: ``tcp host port [prefix]`` or ``file path [prefix]``."""
    from datetime import timedelta

    from ._store import FileStore, PrefixStore, TCPStore
    kind = spec[0]
    if kind == "local":
        from ._store import HashStore
        return HashStore()
    if kind == "tcp":
        store = TCPStore(spec[1], int(spec[2]), timeout=timedelta(seconds=float(spec[3])))
        rest = spec[4:]
    elif kind == "file":
        store = FileStore(spec[1])
        store.set_timeout(timedelta(seconds=float(spec[2])))
        rest = spec[3:]
    else:
        raise ValueError(f"unknown store spec {spec!r}")
    for prefix in rest:
        store = PrefixStore(prefix, store)
    return store


def main(argv):
    """Helper-process entry: ``fd rank size job <store spec...>``: serve PMI to one rank until it finalizes."""
    import os
    import sys
    fd, rank, size, job = int(argv[0]), int(argv[1]), int(argv[2]), argv[3]
    store = store_from_spec(argv[4:])
    sock = socket.socket(fileno=fd)
    threading.Thread(target=lambda: (sys.stdin.buffer.read(), os._exit(0)), daemon=True).start()
    PMIConnection(sock, store, rank, size, job).serve()
    os._exit(0)         # not a normal shutdown: the stdin-watching thread may be inside a read
