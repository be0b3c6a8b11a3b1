"""torch.distributed.TCPStore's server side (c10d's TCPStoreBackend): one thread, many clients, an optional secret.

Standard library only, with no import of ember, so the launcher and the rendezvous helper process can run it
without loading the framework (MPI_Init holds the GIL, so the store must never be served from a thread of a
process that calls it).

Wire format (both directions): a message is one command byte, a uint32 count of fields, then each field as a
uint32 length and its bytes (big endian).  Keys and values are bytes.  Counters are ASCII decimals, as torch's.

Authentication: on accept the server sends ``b"E" + flag``; with a secret the flag is ``b"1"`` followed by a
32-byte random challenge, and the client must answer with HMAC-SHA256(secret, challenge).  A wrong answer gets
the connection closed with nothing sent back: a stranger learns only that a secret is required.
"""
from __future__ import annotations

import hashlib
import hmac
import os
import selectors
import socket
import struct
import threading
import time

# command bytes
SET, GET, ADD, CAS, WAIT, CHECK, DELETE, NUM_KEYS, APPEND, MULTI_GET, MULTI_SET, PING = (bytes([c]) for c in b"SGACWKDNPMTI")
OK, TIMEOUT, MISSING, ERROR = b"o", b"t", b"m", b"e"
HELLO = b"E"
CHALLENGE_LEN = 32
_HDR = struct.Struct("!cI")
_LEN = struct.Struct("!I")


def answer_challenge(secret: bytes, challenge: bytes) -> bytes:
    return hmac.new(secret, b"ember-store-auth\0" + challenge, hashlib.sha256).digest()


def encode(cmd: bytes, fields) -> bytes:
    parts = [_HDR.pack(cmd, len(fields))]
    for f in fields:
        parts.append(_LEN.pack(len(f)))
        parts.append(f)
    return b"".join(parts)


def parse(buf: bytearray):
    """(cmd, fields, consumed) for the first complete message in buf, or None."""
    if len(buf) < _HDR.size:
        return None
    cmd, n = _HDR.unpack_from(buf, 0)
    pos = _HDR.size
    fields = []
    for _ in range(n):
        if len(buf) < pos + 4:
            return None
        (ln,) = _LEN.unpack_from(buf, pos)
        pos += 4
        if len(buf) < pos + ln:
            return None
        fields.append(bytes(buf[pos:pos + ln]))
        pos += ln
    return cmd, fields, pos


class _Conn:
    __slots__ = ("authed", "challenge", "inbuf", "outbuf", "sock", "waiting")

    def __init__(self, sock, challenge):
        self.sock = sock
        self.inbuf = bytearray()
        self.outbuf = bytearray()
        self.challenge = challenge
        self.authed = challenge is None
        self.waiting = None          # (deadline, keys, reply) while blocked in GET/WAIT


class StoreServer:
    """The key-value server.  ``serve_forever()`` runs the loop in the calling thread; ``start()`` in a daemon thread."""

    MAX_FIELD = 1 << 30

    def __init__(self, host: str = "", port: int = 0, secret: bytes | None = None, listen_fd: int | None = None,
                 backlog: int = 1024):
        if listen_fd is not None:
            self.listener = socket.socket(fileno=listen_fd)
        else:
            fam = socket.AF_INET6 if host and ":" in host else socket.AF_INET
            self.listener = socket.socket(fam, socket.SOCK_STREAM)
            self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            self.listener.bind((host, port))
            self.listener.listen(backlog)
        self.listener.setblocking(False)
        self.port = self.listener.getsockname()[1]
        self.secret = secret or None
        self.data: dict[bytes, bytes] = {}
        self._sel = selectors.DefaultSelector()
        self._sel.register(self.listener, selectors.EVENT_READ, None)
        self._waiters: list[_Conn] = []
        self._stop_r, self._stop_w = socket.socketpair()
        self._sel.register(self._stop_r, selectors.EVENT_READ, "stop")
        self._thread = None
        self._stopped = False

    # ---------------------------------------------------------------- lifecycle
    def start(self):
        self._thread = threading.Thread(target=self.serve_forever, name="ember-store-server", daemon=True)
        self._thread.start()
        return self

    def stop(self):
        if self._stopped:
            return
        self._stopped = True
        try:
            self._stop_w.send(b"x")
        except OSError:
            pass
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(5)

    def serve_forever(self, idle_check=None):
        """Run until stop().  idle_check(), if given, is called about every 0.2 s and stops the loop when true."""
        try:
            while True:
                timeout = 0.2
                if self._waiters:
                    nearest = min(c.waiting[0] for c in self._waiters)
                    timeout = max(0.0, min(timeout, nearest - time.monotonic()))
                for key, mask in self._sel.select(timeout):
                    if key.data == "stop":
                        return
                    if key.data is None:
                        self._accept()
                    else:
                        conn = key.data
                        if mask & selectors.EVENT_READ:
                            self._read(conn)
                        if mask & selectors.EVENT_WRITE and conn.sock.fileno() != -1:
                            self._flush(conn)
                self._expire_waiters()
                if idle_check is not None and idle_check():
                    return
        finally:
            for key in list(self._sel.get_map().values()):
                try:
                    key.fileobj.close()
                except OSError:
                    pass
            self._sel.close()

    # ---------------------------------------------------------------- connections
    def _accept(self):
        try:
            sock, _ = self.listener.accept()
        except (BlockingIOError, InterruptedError):
            return
        sock.setblocking(False)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1) if sock.family != socket.AF_UNIX else None
        challenge = os.urandom(CHALLENGE_LEN) if self.secret else None
        conn = _Conn(sock, challenge)
        self._sel.register(sock, selectors.EVENT_READ, conn)
        self._send(conn, HELLO + (b"1" + challenge if challenge else b"0"))

    def _close(self, conn):
        if conn in self._waiters:
            self._waiters.remove(conn)
        try:
            self._sel.unregister(conn.sock)
        except (KeyError, ValueError):
            pass
        conn.sock.close()

    def _send(self, conn, data):
        conn.outbuf += data
        self._flush(conn)

    def _flush(self, conn):
        try:
            while conn.outbuf:
                n = conn.sock.send(conn.outbuf)
                del conn.outbuf[:n]
        except (BlockingIOError, InterruptedError):
            pass
        except OSError:
            self._close(conn)
            return
        try:
            self._sel.modify(conn.sock, selectors.EVENT_READ | (selectors.EVENT_WRITE if conn.outbuf else 0), conn)
        except (KeyError, ValueError):
            pass

    def _read(self, conn):
        try:
            chunk = conn.sock.recv(1 << 20)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            chunk = b""
        if not chunk:
            self._close(conn)
            return
        conn.inbuf += chunk
        if not conn.authed:
            if len(conn.inbuf) < 32:
                return
            proof = bytes(conn.inbuf[:32])
            del conn.inbuf[:32]
            if not hmac.compare_digest(proof, answer_challenge(self.secret, conn.challenge)):
                self._close(conn)       # refused: nothing is sent back
                return
            conn.authed = True
            self._send(conn, OK)
        while conn.waiting is None:
            msg = parse(conn.inbuf)
            if msg is None:
                if len(conn.inbuf) > self.MAX_FIELD:
                    self._close(conn)
                return
            cmd, fields, used = msg
            del conn.inbuf[:used]
            try:
                self._handle(conn, cmd, fields)
            except Exception as e:          # malformed request: answer it, keep serving the others
                self._send(conn, encode(ERROR, [f"{type(e).__name__}: {e}".encode()]))
            if conn.sock.fileno() == -1:
                return

    # ---------------------------------------------------------------- commands
    def _handle(self, conn, cmd, f):
        d = self.data
        if cmd == SET:
            d[f[0]] = f[1]
            self._send(conn, encode(OK, []))
            self._wake()
        elif cmd == GET or cmd == WAIT or cmd == MULTI_GET:
            timeout_ms = int(f[0])
            keys = f[1:]
            if all(k in d for k in keys):
                self._reply_wait(conn, cmd, keys)
            elif timeout_ms == 0:
                self._send(conn, encode(TIMEOUT, [k for k in keys if k not in d]))
            else:
                deadline = time.monotonic() + timeout_ms / 1000 if timeout_ms > 0 else float("inf")
                conn.waiting = (deadline, keys, cmd)
                self._waiters.append(conn)
        elif cmd == ADD:
            v = int(d.get(f[0], b"0")) + int(f[1])
            d[f[0]] = str(v).encode()
            self._send(conn, encode(OK, [d[f[0]]]))
            self._wake()
        elif cmd == CAS:
            key, expected, desired = f
            cur = d.get(key)
            if cur is None:
                if expected == b"":
                    d[key] = desired
                    self._send(conn, encode(OK, [desired]))
                    self._wake()
                else:
                    self._send(conn, encode(OK, [expected]))
            elif cur == expected:
                d[key] = desired
                self._send(conn, encode(OK, [desired]))
                self._wake()
            else:
                self._send(conn, encode(OK, [cur]))
        elif cmd == CHECK:
            self._send(conn, encode(OK, [b"1" if all(k in d for k in f) else b"0"]))
        elif cmd == DELETE:
            self._send(conn, encode(OK, [b"1" if d.pop(f[0], None) is not None else b"0"]))
        elif cmd == NUM_KEYS:
            self._send(conn, encode(OK, [str(len(d)).encode()]))
        elif cmd == APPEND:
            d[f[0]] = d.get(f[0], b"") + f[1]
            self._send(conn, encode(OK, []))
            self._wake()
        elif cmd == MULTI_SET:
            for k, v in zip(f[0::2], f[1::2]):
                d[k] = v
            self._send(conn, encode(OK, []))
            self._wake()
        elif cmd == PING:
            self._send(conn, encode(OK, f))
        else:
            self._send(conn, encode(ERROR, [b"unknown command"]))

    def _reply_wait(self, conn, cmd, keys):
        if cmd == WAIT:
            self._send(conn, encode(OK, []))
        else:
            self._send(conn, encode(OK, [self.data[k] for k in keys]))

    def _wake(self):
        if not self._waiters:
            return
        d = self.data
        for conn in list(self._waiters):
            if conn.waiting is None:
                continue
            _, keys, cmd = conn.waiting
            if all(k in d for k in keys):
                self._waiters.remove(conn)
                conn.waiting = None
                self._reply_wait(conn, cmd, keys)
                self._read_pending(conn)

    def _expire_waiters(self):
        now = time.monotonic()
        for conn in list(self._waiters):
            if conn.waiting is None:
                continue
            deadline, keys, _ = conn.waiting
            if now >= deadline:
                self._waiters.remove(conn)
                conn.waiting = None
                self._send(conn, encode(TIMEOUT, [k for k in keys if k not in self.data]))
                self._read_pending(conn)

    def _read_pending(self, conn):
        """Handle requests that arrived while the connection was blocked."""
        if conn.inbuf and conn.sock.fileno() != -1:
            while conn.waiting is None:
                msg = parse(conn.inbuf)
                if msg is None:
                    return
                cmd, fields, used = msg
                del conn.inbuf[:used]
                self._handle(conn, cmd, fields)


def main(argv):
    """Helper-process entry: ``host port``; the secret comes from EMBER_STORE_SECRET.  Prints the port, then
    serves until standard input closes (the parent ended)."""
    import sys
    secret = os.environ.get("EMBER_STORE_SECRET")
    server = StoreServer(argv[0], int(argv[1]), secret.encode("latin-1") if secret else None)
    sys.stdout.write(f"{server.port}\n")
    sys.stdout.flush()
    threading.Thread(target=lambda: (sys.stdin.buffer.read(), server.stop()), daemon=True).start()
    server.serve_forever()
    os._exit(0)         # not a normal shutdown: the stdin-watching thread may be inside a read
