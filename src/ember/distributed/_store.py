"""torch.distributed's key-value stores: Store, HashStore, PrefixStore, FileStore and TCPStore (c10d's stores).

Keys are strings, values bytes (a str value is encoded as UTF-8); ``add`` keeps ASCII decimal counters, as
torch does.  ``get`` and ``wait`` block until the keys exist or the store's timeout passes, then raise
DistStoreError.  TCPStore's server (``_store_server``) runs in a thread of the process that created the store
with ``is_master=True`` (as torch's does), or in a separate process for the rendezvous of the MPI backend.
TCPStore takes an ember extension, ``secret`` (bytes; default: the EMBER_STORE_SECRET environment variable):
with it every client must answer the server's challenge, and a client with the wrong secret is refused.
"""
from __future__ import annotations

import fcntl
import os
import socket
import struct
import threading
import time
from datetime import timedelta

from . import _store_server as _srv
from ._errors import DistNetworkError, DistStoreError

__all__ = ["FileStore", "HashStore", "PrefixStore", "Store", "TCPStore"]

_DEFAULT_TIMEOUT = timedelta(seconds=300)


def _b(value) -> bytes:
    if isinstance(value, str):
        return value.encode()
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    if isinstance(value, (list, tuple)):          # torch accepts a list of ints as bytes
        return bytes(value)
    raise TypeError(f"store values must be str or bytes, got {type(value).__name__}")


def _key(key) -> str:
    if not isinstance(key, str):
        raise TypeError(f"store keys must be str, got {type(key).__name__}")
    return key


def _td(timeout) -> timedelta:
    if isinstance(timeout, timedelta):
        return timeout
    if isinstance(timeout, (int, float)):
        return timedelta(seconds=timeout)
    raise TypeError(f"timeout must be a datetime.timedelta, got {type(timeout).__name__}")


def _timeout_error(timeout: timedelta, keys) -> DistStoreError:
    ms = int(timeout.total_seconds() * 1000)
    return DistStoreError(f"wait timeout after {ms}ms, keys: {', '.join('/' + k for k in keys)}")


class Store:
    """torch.distributed.Store: the interface every store implements."""

    def __init__(self, timeout: timedelta = _DEFAULT_TIMEOUT):
        self._timeout = _td(timeout)

    @property
    def timeout(self) -> timedelta:
        return self._timeout

    def set_timeout(self, timeout):
        self._timeout = _td(timeout)

    # the primitives each store defines
    def set(self, key, value):
        raise NotImplementedError(f"{type(self).__name__}.set")

    def get(self, key) -> bytes:
        raise NotImplementedError(f"{type(self).__name__}.get")

    def add(self, key, amount: int) -> int:
        raise NotImplementedError(f"{type(self).__name__}.add")

    def compare_set(self, key, expected_value, desired_value) -> bytes:
        raise NotImplementedError(f"{type(self).__name__}.compare_set")

    def wait(self, keys, timeout=None):
        raise NotImplementedError(f"{type(self).__name__}.wait")

    def check(self, keys) -> bool:
        raise NotImplementedError(f"{type(self).__name__}.check")

    def delete_key(self, key) -> bool:
        raise NotImplementedError(f"{type(self).__name__}.delete_key")

    def num_keys(self) -> int:
        raise NotImplementedError(f"{type(self).__name__}.num_keys")

    # derived operations (a store may do them in one round trip)
    def append(self, key, value):
        v = _b(value)
        while True:
            old = self.get(key) if self.check([key]) else b""
            if self.compare_set(key, old, old + v) == old + v:
                return

    def multi_get(self, keys) -> list:
        return [self.get(k) for k in keys]

    def multi_set(self, keys, values):
        if len(keys) != len(values):
            raise ValueError("multi_set: keys and values must have the same length")
        for k, v in zip(keys, values):
            self.set(k, v)

    def has_extended_api(self) -> bool:
        return True


# =============================================================================================
# HashStore: one process, threads share it
# =============================================================================================

class HashStore(Store):
    """torch.distributed.HashStore: an in-memory store shared by the threads of one process."""

    def __init__(self):
        super().__init__()
        self._data: dict[str, bytes] = {}
        self._cv = threading.Condition()

    def set(self, key, value):
        with self._cv:
            self._data[_key(key)] = _b(value)
            self._cv.notify_all()

    def get(self, key):
        self.wait([key])
        with self._cv:
            return self._data[key]

    def add(self, key, amount):
        with self._cv:
            v = int(self._data.get(_key(key), b"0")) + int(amount)
            self._data[key] = str(v).encode()
            self._cv.notify_all()
            return v

    def compare_set(self, key, expected_value, desired_value):
        exp, des = _b(expected_value), _b(desired_value)
        with self._cv:
            cur = self._data.get(_key(key))
            if cur is None:
                if exp == b"":
                    self._data[key] = des
                    self._cv.notify_all()
                    return des
                return exp
            if cur == exp:
                self._data[key] = des
                self._cv.notify_all()
                return des
            return cur

    def wait(self, keys, timeout=None):
        keys = [_key(k) for k in keys]
        timeout = self._timeout if timeout is None else _td(timeout)
        deadline = time.monotonic() + timeout.total_seconds()
        with self._cv:
            while not all(k in self._data for k in keys):
                left = deadline - time.monotonic()
                if left <= 0:
                    raise DistStoreError("Wait timeout")
                self._cv.wait(left)

    def check(self, keys):
        with self._cv:
            return all(_key(k) in self._data for k in keys)

    def delete_key(self, key):
        with self._cv:
            return self._data.pop(_key(key), None) is not None

    def num_keys(self):
        with self._cv:
            return len(self._data)

    def append(self, key, value):
        with self._cv:
            self._data[_key(key)] = self._data.get(key, b"") + _b(value)
            self._cv.notify_all()


# =============================================================================================
# PrefixStore
# =============================================================================================

class PrefixStore(Store):
    """torch.distributed.PrefixStore: every key of the wrapped store gets ``prefix + "/"`` in front."""

    def __init__(self, prefix: str, store: Store):
        if not isinstance(store, Store):
            raise TypeError(f"PrefixStore: store must be a Store, got {type(store).__name__}")
        super().__init__(store.timeout)
        self._prefix = prefix
        self._store = store

    @property
    def underlying_store(self):
        return self._store

    @property
    def timeout(self):
        return self._store.timeout

    def set_timeout(self, timeout):
        self._store.set_timeout(timeout)

    def _k(self, key):
        return f"{self._prefix}/{_key(key)}"

    def set(self, key, value):
        self._store.set(self._k(key), value)

    def get(self, key):
        return self._store.get(self._k(key))

    def add(self, key, amount):
        return self._store.add(self._k(key), amount)

    def compare_set(self, key, expected_value, desired_value):
        return self._store.compare_set(self._k(key), expected_value, desired_value)

    def wait(self, keys, timeout=None):
        self._store.wait([self._k(k) for k in keys], timeout)

    def check(self, keys):
        return self._store.check([self._k(k) for k in keys])

    def delete_key(self, key):
        return self._store.delete_key(self._k(key))

    def num_keys(self):
        return self._store.num_keys()

    def append(self, key, value):
        self._store.append(self._k(key), value)

    def multi_get(self, keys):
        return self._store.multi_get([self._k(k) for k in keys])

    def multi_set(self, keys, values):
        self._store.multi_set([self._k(k) for k in keys], values)


# =============================================================================================
# FileStore: an append-only log of records under an fcntl lock, shared by processes
# =============================================================================================

_REC = struct.Struct("!cII")


class FileStore(Store):
    """torch.distributed.FileStore: processes that open the same file share its keys.

    The file is a log of (op, key, value) records appended under an exclusive lock; readers replay what was
    appended since they last looked.  With ``world_size`` > 0 the last of that many users to go removes the file.
    """

    _REFS = "__ember_filestore_refs"

    def __init__(self, file_name: str, world_size: int = -1):
        super().__init__()
        self.path = os.fspath(file_name)
        self.world_size = world_size
        self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        self._pos = 0
        self._data: dict[str, bytes] = {}
        self._mu = threading.Lock()
        self._closed = False
        self.add(self._REFS, 1)

    def __del__(self):
        self.close()

    def close(self):
        if getattr(self, "_closed", True):
            return
        try:
            left = self.add(self._REFS, -1)
            if self.world_size > 0 and left <= 0:
                os.unlink(self.path)
        except OSError:
            pass
        finally:
            self._closed = True
            os.close(self._fd)

    # log access
    def _locked(self, exclusive):
        store = self

        class _L:
            def __enter__(self_):
                store._mu.acquire()
                fcntl.flock(store._fd, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
                store._replay()

            def __exit__(self_, *a):
                fcntl.flock(store._fd, fcntl.LOCK_UN)
                store._mu.release()
        return _L()

    def _replay(self):
        size = os.fstat(self._fd).st_size
        if size <= self._pos:
            return
        raw = os.pread(self._fd, size - self._pos, self._pos)
        p = 0
        while p + _REC.size <= len(raw):
            op, kl, vl = _REC.unpack_from(raw, p)
            end = p + _REC.size + kl + vl
            if end > len(raw):
                break
            k = raw[p + _REC.size:p + _REC.size + kl].decode()
            if op == b"S":
                self._data[k] = raw[p + _REC.size + kl:end]
            else:
                self._data.pop(k, None)
            p = end
        self._pos += p

    def _append(self, op, key, value=b""):
        kb = key.encode()
        rec = _REC.pack(op, len(kb), len(value)) + kb + value
        size = os.fstat(self._fd).st_size
        os.pwrite(self._fd, rec, size)
        self._replay()

    def _visible(self):
        return len([k for k in self._data if k != self._REFS])

    def set(self, key, value):
        with self._locked(True):
            self._append(b"S", _key(key), _b(value))

    def get(self, key):
        self.wait([key])
        with self._locked(False):
            return self._data[key]

    def add(self, key, amount):
        with self._locked(True):
            v = int(self._data.get(_key(key), b"0")) + int(amount)
            self._append(b"S", key, str(v).encode())
            return v

    def compare_set(self, key, expected_value, desired_value):
        exp, des = _b(expected_value), _b(desired_value)
        with self._locked(True):
            cur = self._data.get(_key(key))
            if (cur is None and exp == b"") or (cur is not None and cur == exp):
                self._append(b"S", key, des)
                return des
            return exp if cur is None else cur

    def wait(self, keys, timeout=None):
        keys = [_key(k) for k in keys]
        timeout = self._timeout if timeout is None else _td(timeout)
        deadline = time.monotonic() + timeout.total_seconds()
        delay = 0.001
        while True:
            with self._locked(False):
                if all(k in self._data for k in keys):
                    return
            if time.monotonic() >= deadline:
                raise _timeout_error(timeout, keys)
            time.sleep(delay)
            delay = min(delay * 2, 0.02)

    def check(self, keys):
        with self._locked(False):
            return all(_key(k) in self._data for k in keys)

    def delete_key(self, key):
        with self._locked(True):
            if _key(key) not in self._data:
                return False
            self._append(b"D", key)
            return True

    def num_keys(self):
        with self._locked(False):
            return self._visible()

    def append(self, key, value):
        with self._locked(True):
            self._append(b"S", _key(key), self._data.get(key, b"") + _b(value))


# =============================================================================================
# TCPStore
# =============================================================================================

def _default_secret():
    s = os.environ.get("EMBER_STORE_SECRET")
    return s.encode() if s else None


class TCPStore(Store):
    """torch.distributed.TCPStore: a server (in this process when ``is_master``) and a client per instance."""

    def __init__(self, host_name: str, port: int, world_size: int | None = None, is_master: bool = False,
                 timeout: timedelta = _DEFAULT_TIMEOUT, wait_for_workers: bool = True, multi_tenant: bool = False,
                 master_listen_fd: int | None = None, use_libuv: bool = True, *, secret: bytes | str | None = None):
        super().__init__(timeout)
        if world_size is not None and world_size < 0:
            raise ValueError(f"TCPStore: world_size must be non-negative, got {world_size}")
        self.host = host_name
        self.world_size = world_size
        self._secret = _b(secret) if secret is not None else _default_secret()
        self._server = None
        self._lock = threading.Lock()
        if is_master:
            self._server = _srv.StoreServer("" if host_name in ("", "0.0.0.0") else host_name, port,
                                            self._secret, master_listen_fd).start()
            port = self._server.port
        self.port = port
        self._sock = self._connect()
        if world_size is not None and wait_for_workers:
            self.add("init/", 1)
            if is_master:
                self._wait_workers(world_size)

    @property
    def libuvBackend(self):
        return False

    def __repr__(self):
        return f"TCPStore(host={self.host!r}, port={self.port})"

    def _wait_workers(self, world_size):
        deadline = time.monotonic() + self._timeout.total_seconds()
        while True:
            joined = int(self.get("init/"))
            if joined >= world_size:
                return
            if time.monotonic() >= deadline:
                secs = int(self._timeout.total_seconds())
                raise DistStoreError(f"Timed out after {secs} seconds waiting for clients. "
                                     f"{joined}/{world_size} clients joined.")
            time.sleep(0.01)

    # ---------------------------------------------------------------- connection
    def _connect(self):
        timeout = self._timeout.total_seconds()
        deadline = time.monotonic() + timeout
        delay = 0.01
        last = None
        while True:
            left = deadline - time.monotonic()
            try:
                sock = socket.create_connection((self.host or "127.0.0.1", self.port), timeout=max(left, 0.01))
                break
            except OSError as e:
                last = e
                if time.monotonic() + delay >= deadline:
                    ms = int(timeout * 1000)
                    raise DistNetworkError(f"The client socket has timed out after {ms}ms while trying to connect "
                                           f"to ({self.host}, {self.port}).") from last
                time.sleep(delay)
                delay = min(delay * 2, 0.5)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.settimeout(max(timeout, 1.0))
        try:
            hello = self._recv_exact(sock, 2)
            if hello[:1] != _srv.HELLO:
                raise DistNetworkError(f"({self.host}, {self.port}) is not an ember store server")
            if hello[1:] == b"1":
                challenge = self._recv_exact(sock, _srv.CHALLENGE_LEN)
                if self._secret is None:
                    raise DistStoreError(f"the store at ({self.host}, {self.port}) requires a secret "
                                         "(pass secret= or set EMBER_STORE_SECRET)")
                sock.sendall(_srv.answer_challenge(self._secret, challenge))
                if self._recv_exact(sock, 1, refused=True) != _srv.OK:
                    raise DistStoreError("store authentication failed")
        except BaseException:
            sock.close()
            raise
        return sock

    def _recv_exact(self, sock, n, refused=False):
        buf = bytearray()
        while len(buf) < n:
            try:
                chunk = sock.recv(n - len(buf))
            except TimeoutError:
                raise DistNetworkError(f"no answer from the store at ({self.host}, {self.port})") from None
            except OSError as e:
                chunk = b""
                if not refused:
                    raise DistNetworkError(f"connection to the store at ({self.host}, {self.port}) failed: {e}") from e
            if not chunk:
                if refused:
                    raise DistStoreError(f"the store at ({self.host}, {self.port}) refused this client: "
                                         "wrong secret")
                raise DistNetworkError(f"the store at ({self.host}, {self.port}) closed the connection")
            buf += chunk
        return bytes(buf)

    def _call(self, cmd, fields, wait_s=None):
        with self._lock:
            sock = self._sock
            sock.sendall(_srv.encode(cmd, fields))
            if wait_s is not None:
                sock.settimeout(wait_s + max(10.0, wait_s))
            try:
                buf = bytearray()
                while True:
                    msg = _srv.parse(buf)
                    if msg is not None:
                        break
                    try:
                        chunk = sock.recv(1 << 20)
                    except TimeoutError:
                        raise DistNetworkError(f"no answer from the store at ({self.host}, {self.port})") from None
                    if not chunk:
                        raise DistNetworkError(f"the store at ({self.host}, {self.port}) closed the connection")
                    buf += chunk
            finally:
                if wait_s is not None:
                    sock.settimeout(max(self._timeout.total_seconds(), 1.0))
        status, out, _ = msg
        if status == _srv.ERROR:
            raise DistStoreError(out[0].decode())
        return status, out

    def _wait_call(self, cmd, keys, timeout=None):
        timeout = self._timeout if timeout is None else _td(timeout)
        secs = timeout.total_seconds()
        ms = max(int(secs * 1000), 1) if secs > 0 else -1
        status, out = self._call(cmd, [str(ms).encode()] + [k.encode() for k in keys], secs)
        if status == _srv.TIMEOUT:
            raise _timeout_error(timeout, keys)
        return out

    # ---------------------------------------------------------------- API
    def set(self, key, value):
        self._call(_srv.SET, [_key(key).encode(), _b(value)])

    def get(self, key):
        return self._wait_call(_srv.GET, [_key(key)])[0]

    def add(self, key, amount):
        return int(self._call(_srv.ADD, [_key(key).encode(), str(int(amount)).encode()])[1][0])

    def compare_set(self, key, expected_value, desired_value):
        return self._call(_srv.CAS, [_key(key).encode(), _b(expected_value), _b(desired_value)])[1][0]

    def wait(self, keys, timeout=None):
        self._wait_call(_srv.WAIT, [_key(k) for k in keys], timeout)

    def check(self, keys):
        return self._call(_srv.CHECK, [_key(k).encode() for k in keys])[1][0] == b"1"

    def delete_key(self, key):
        return self._call(_srv.DELETE, [_key(key).encode()])[1][0] == b"1"

    def num_keys(self):
        return int(self._call(_srv.NUM_KEYS, [])[1][0])

    def append(self, key, value):
        self._call(_srv.APPEND, [_key(key).encode(), _b(value)])

    def multi_get(self, keys):
        return self._wait_call(_srv.MULTI_GET, [_key(k) for k in keys])

    def multi_set(self, keys, values):
        if len(keys) != len(values):
            raise ValueError("multi_set: keys and values must have the same length")
        fields = []
        for k, v in zip(keys, values):
            fields += [_key(k).encode(), _b(v)]
        self._call(_srv.MULTI_SET, fields)

    def close(self):
        try:
            self._sock.close()
        except OSError:
            pass
        if self._server is not None:
            self._server.stop()
            self._server = None

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass
