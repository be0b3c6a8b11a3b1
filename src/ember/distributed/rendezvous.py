"""torch.distributed.rendezvous: turn an init_method URL (env://, tcp://, file://) into (store, rank, world_size).

As torch's, rank 0 hosts the TCPStore of env:// and tcp:// (unless the launcher's agent store is used:
TORCHELASTIC_USE_AGENT_STORE=True).  Because MPI_Init holds the GIL, rank 0 serves the store from a helper
process rather than a thread: the other ranks' PMI requests must be answered while rank 0 is inside MPI_Init.
"""
from __future__ import annotations

import os
from datetime import timedelta
from urllib.parse import parse_qs, urlparse

from ._store import FileStore, TCPStore, _default_secret

__all__ = ["register_rendezvous_handler", "rendezvous"]

_handlers = {}


def register_rendezvous_handler(scheme, handler):
    if scheme in _handlers:
        raise RuntimeError(f"Rendezvous handler for {scheme}:// already registered")
    _handlers[scheme] = handler


def _error(scheme, msg):
    return ValueError(f"Error initializing torch.distributed using {scheme}:// rendezvous: {msg}")


def rendezvous(url: str, rank: int = -1, world_size: int = -1, **kwargs):
    """A generator yielding (store, rank, world_size) once, as torch's."""
    if not isinstance(url, str):
        raise RuntimeError(f"`url` must be a string. {type(url)}: {url}")
    if not isinstance(rank, int) or not isinstance(world_size, int):
        raise RuntimeError("`rank` and `world_size` must be integers")
    result = urlparse(url)
    query = {k: v[-1] for k, v in parse_qs(result.query).items()}
    if rank != -1:
        query["rank"] = str(rank)
    if world_size != -1:
        query["world_size"] = str(world_size)
    scheme = result.scheme
    if scheme not in _handlers:
        raise RuntimeError(f"No rendezvous handler for {scheme}://")
    return _handlers[scheme](result, query, **kwargs)


class _HostedTCPStore(TCPStore):
    """A TCPStore client whose server runs in a helper process owned by this rank (rank 0 of env:// / tcp://)."""

    def __init__(self, host, port, timeout, secret):
        from ._helpers import start_store_server
        self._helper, port = start_store_server("" if host in ("", "0.0.0.0") else host, port, secret)
        super().__init__(host, port, None, False, timeout, secret=secret)

    # close() closes this client only: the server process serves the other ranks until this process ends (their
    # MPI_Finalize still meets at a PMI barrier kept in the store)


def _tcp_store(host, port, rank, world_size, timeout):
    secret = _default_secret()
    agent = os.environ.get("TORCHELASTIC_USE_AGENT_STORE", "").lower() == "true"
    if rank == 0 and not agent:
        return _HostedTCPStore(host, port, timeout, secret)
    return TCPStore(host, port, None, False, timeout, secret=secret)


def _timeout(kwargs):
    return kwargs.get("timeout", timedelta(seconds=1800))


def _env_handler(result, query, **kwargs):
    def get(name, qname=None):
        if qname and qname in query:
            return query[qname]
        v = os.environ.get(name)
        if v is None:
            raise _error("env", f"environment variable {name} expected, but not set")
        return v
    rank = int(get("RANK", "rank"))
    world_size = int(get("WORLD_SIZE", "world_size"))
    host = get("MASTER_ADDR")
    port = int(get("MASTER_PORT"))
    store = _tcp_store(host, port, rank, world_size, _timeout(kwargs))
    yield store, rank, world_size
    raise RuntimeError("Unable to perform re-rendezvous using env:// method")


def _tcp_handler(result, query, **kwargs):
    if not result.port:
        raise _error("tcp", "port number missing")
    if "rank" not in query:
        raise _error("tcp", "rank parameter missing")
    if "world_size" not in query:
        raise _error("tcp", "world size parameter missing")
    rank, world_size = int(query["rank"]), int(query["world_size"])
    store = _tcp_store(result.hostname, result.port, rank, world_size, _timeout(kwargs))
    yield store, rank, world_size
    raise RuntimeError("Unable to perform re-rendezvous using tcp:// method")


def _file_handler(result, query, **kwargs):
    path = result.path
    if not path:
        raise _error("file", "path missing")
    if "rank" not in query:
        raise _error("file", "rank parameter missing")
    if "world_size" not in query:
        raise _error("file", "world size parameter missing")
    rank, world_size = int(query["rank"]), int(query["world_size"])
    store = FileStore(path, world_size)
    store.set_timeout(_timeout(kwargs))
    yield store, rank, world_size
    raise RuntimeError("Unable to perform re-rendezvous using file:// method")


register_rendezvous_handler("env", _env_handler)
register_rendezvous_handler("tcp", _tcp_handler)
register_rendezvous_handler("file", _file_handler)
