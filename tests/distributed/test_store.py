"""ember.distributed stores: HashStore, FileStore, TCPStore (many concurrent clients, timeouts, the secret),
PrefixStore; torch's semantics and error types.  In-process, no MPI needed."""
import subprocess
import sys
import threading
from datetime import timedelta

import pytest

import ember.distributed as dist

from . import _launch


def _semantics(s, other=None):
    other = other or s
    s.set("a", "1")
    assert s.get("a") == b"1"
    s.set("b", b"\x00\xff")
    assert s.get("b") == b"\x00\xff"
    assert s.add("c", 5) == 5 and s.add("c", -2) == 3 and s.get("c") == b"3"
    assert s.compare_set("k", "", "v") == b"v"          # missing key, empty expected: set
    assert s.compare_set("k", "zz", "w") == b"v"        # mismatch: current value
    assert s.compare_set("k", "v", "w") == b"w"
    assert s.compare_set("q", "a", "b") == b"a"         # missing key, non-empty expected: expected
    assert s.check(["a", "k"]) and not s.check(["a", "nope"])
    s.append("ap", "x")
    s.append("ap", "y")
    assert s.get("ap") == b"xy"
    s.multi_set(["m1", "m2"], ["1", "2"])
    assert s.multi_get(["m1", "m2"]) == [b"1", b"2"]
    n = s.num_keys()
    assert s.delete_key("a") is True and s.delete_key("a") is False
    assert s.num_keys() == n - 1
    s.set_timeout(timedelta(milliseconds=100))
    with pytest.raises(dist.DistStoreError):
        s.get("never")
    with pytest.raises(dist.DistStoreError):
        s.wait(["never"], timedelta(milliseconds=50))
    threading.Timer(0.05, lambda: other.set("late", "x")).start()
    s.wait(["late"], timedelta(seconds=5))
    assert isinstance(dist.DistStoreError("x"), RuntimeError)


def test_hash_store():
    _semantics(dist.HashStore())


def test_file_store(tmp_path):
    _semantics(dist.FileStore(str(tmp_path / "fs")))
    a, b = dist.FileStore(str(tmp_path / "shared")), dist.FileStore(str(tmp_path / "shared"))
    a.set("x", "1")
    assert b.get("x") == b"1" and b.add("n", 2) == 2 and a.add("n", 1) == 3
    code = (f"import sys; sys.path.insert(0, {str(_launch.ROOT / 'src')!r}); import ember.distributed as d; "
            f"s = d.FileStore({str(tmp_path / 'shared')!r}); s.add('n', 10); print(s.get('x').decode())")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.stdout.strip() == "1", r.stderr
    assert a.get("n") == b"13"


def test_prefix_store():
    base = dist.HashStore()
    p = dist.PrefixStore("pre", base)
    _semantics(p)
    p.set("z", "1")
    assert base.get("pre/z") == b"1" and p.underlying_store is base


def test_tcp_store_semantics_and_many_clients():
    master = dist.TCPStore("127.0.0.1", 0, None, True, timedelta(seconds=5))
    _semantics(master, dist.TCPStore("127.0.0.1", master.port, timeout=timedelta(seconds=5)))
    master.set_timeout(timedelta(seconds=5))
    clients = [dist.TCPStore("127.0.0.1", master.port, timeout=timedelta(seconds=10)) for _ in range(16)]
    errors = []

    def work(i, c):
        try:
            for _ in range(50):
                c.add("counter", 1)
            c.set(f"done{i}", str(i))
            c.wait([f"done{j}" for j in range(16)])
        except Exception as e:          # noqa: BLE001
            errors.append(e)
    ts = [threading.Thread(target=work, args=(i, c)) for i, c in enumerate(clients)]
    for t in ts:
        t.start()
    for t in ts:
        t.join(30)
    assert not errors
    assert master.get("counter") == b"800"
    with pytest.raises(dist.DistStoreError, match=r"wait timeout after 100ms, keys: /nokey"):
        clients[0].set_timeout(timedelta(milliseconds=100))
        clients[0].get("nokey")
    assert clients[0].get("done3") == b"3"       # the connection still works after a timeout


def test_tcp_store_wait_for_workers_and_connect_timeout():
    with pytest.raises(dist.DistStoreError, match="1/2 clients joined"):
        dist.TCPStore("127.0.0.1", 0, 2, True, timedelta(milliseconds=300))
    port = _launch.free_port()
    with pytest.raises(dist.DistNetworkError, match="timed out after 300ms while trying to connect"):
        dist.TCPStore("127.0.0.1", port, timeout=timedelta(milliseconds=300))


def test_tcp_store_secret():
    master = dist.TCPStore("127.0.0.1", 0, None, True, timedelta(seconds=5), secret=b"s3cret")
    master.set("private", "v")
    ok = dist.TCPStore("127.0.0.1", master.port, timeout=timedelta(seconds=5), secret="s3cret")
    assert ok.get("private") == b"v"
    with pytest.raises(dist.DistStoreError, match="refused this client"):
        dist.TCPStore("127.0.0.1", master.port, timeout=timedelta(seconds=5), secret=b"wrong")
    with pytest.raises(dist.DistStoreError, match="requires a secret"):
        dist.TCPStore("127.0.0.1", master.port, timeout=timedelta(seconds=5))
    # a stranger speaking the protocol without authenticating learns nothing: the server closes on it
    import socket
    from ember.distributed import _store_server as srv
    with socket.create_connection(("127.0.0.1", master.port), timeout=5) as s:
        hello = s.recv(64)
        assert hello[:2] == b"E1" and len(hello) <= 2 + srv.CHALLENGE_LEN
        s.sendall(srv.encode(srv.GET, [b"0", b"private"]) * 3)
        data = b""
        while True:
            chunk = s.recv(4096)
            if not chunk:
                break
            data += chunk
        assert b"v" not in data and data == b""
