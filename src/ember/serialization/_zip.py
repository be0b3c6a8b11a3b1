"""The zip container of torch checkpoints: a writer that reproduces torch 2.13's bytes and a
reader that accepts any well-formed zip (torch's own files, files repacked by Python's zipfile).

Layout written (see FORMAT.md section 2.3): for every record a local header whose extra field is
the "FB" padding that puts the record's data at a multiple of 64, the data, then a 16-byte data
descriptor (none for an empty record); then the central directory, the zip64 end record, the
zip64 locator and the classic end record.
"""
from __future__ import annotations

import io
import os
import stat
import struct
import threading
import zlib
from dataclasses import dataclass

try:
    import fcntl
except ImportError:   # Windows
    fcntl = None

ALIGNMENT = 64
_U32_MAX = 0xFFFFFFFF
_MASK64 = (1 << 64) - 1

_LOCAL_SIG = b"PK\x03\x04"
_CENTRAL_SIG = b"PK\x01\x02"
_DESCRIPTOR_SIG = b"PK\x07\x08"
_EOCD_SIG = b"PK\x05\x06"
_ZIP64_EOCD_SIG = b"PK\x06\x06"
_ZIP64_LOCATOR_SIG = b"PK\x06\x07"

_FLAG_DESCRIPTOR = 0x0008
_FLAG_UTF8 = 0x0800


class ZipFormatError(RuntimeError):
    """A zip archive that cannot be read (truncated, inconsistent, missing records)."""


# ---------------------------------------------------------------------------------------------
# .data/serialization_id
#
# torch writes 40 digits: a combination of the hashes of the record names, then a combination of
# the crc32 of every non-empty record.  The name part uses libstdc++'s std::hash<std::string>
# (a 64-bit Murmur variant with a fixed seed) and iterates an std::unordered_set<std::string>,
# so to get the same digits we replay that container's insertion and rehash behaviour.
# ---------------------------------------------------------------------------------------------

def _hash_combine(seed: int, value: int) -> int:
    return (seed ^ ((value + 0x9E3779B9 + (seed << 6) + (seed >> 2)) & _MASK64)) & _MASK64


def _stdlib_string_hash(data: bytes, seed: int = 0xC70F6907) -> int:
    """libstdc++ ``std::_Hash_bytes`` for a 64-bit size_t."""
    mul = (0xC6A4A793 << 32) + 0x5BD1E995
    n = len(data)
    aligned = n & ~7
    h = (seed ^ (n * mul)) & _MASK64
    for i in range(0, aligned, 8):
        d = int.from_bytes(data[i:i + 8], "little")
        d = (d * mul) & _MASK64
        d = ((d ^ (d >> 47)) * mul) & _MASK64
        h = ((h ^ d) * mul) & _MASK64
    if n & 7:
        h = ((h ^ int.from_bytes(data[aligned:], "little")) * mul) & _MASK64
    h = ((h ^ (h >> 47)) * mul) & _MASK64
    return h ^ (h >> 47)


# libstdc++'s table of bucket counts (the beginning of __prime_list) and the small-size table.
_FAST_BUCKETS = (2, 2, 2, 3, 5, 5, 7, 7, 11, 11, 11, 11, 13, 13)
_PRIMES = (
    2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71, 73, 79, 83, 89,
    97, 103, 109, 113, 127, 137, 139, 149, 157, 167, 179, 193, 199, 211, 227, 241, 257, 277, 293,
    313, 337, 359, 383, 409, 439, 467, 503, 541, 577, 619, 661, 709, 761, 823, 887, 953, 1031,
    1109, 1193, 1289, 1381, 1493, 1613, 1741, 1879, 2029, 2179, 2357, 2549, 2753, 2971, 3209,
    3469, 3739, 4027, 4349, 4703, 5087, 5503, 5953, 6427, 6949, 7517, 8123, 8783, 9497, 10273,
    11113, 12011, 12983, 14033, 15173, 16411, 17749, 19183, 20753, 22447, 24281, 26267, 28411,
    30727, 33223, 35933, 38873, 42043, 45481, 49201, 53201, 57557, 62233, 67307, 72817, 78779,
    85229, 92203, 99733, 107897, 116731, 126271, 136607, 147793, 159871, 172933, 187091, 202409,
    218971, 236897, 256279, 277261, 299951, 324503, 351061, 379787, 410857, 444487, 480881,
    520241, 562841, 608903, 658753, 712697, 771049, 834181, 902483, 976369,
)


class _UnorderedSetOrder:
    """Replays the node order of libstdc++'s ``std::unordered_set`` (unique keys, cached hashes,
    max load factor 1, growth factor 2) so iteration order matches torch's C++ writer.

    The container is a singly linked list; each bucket remembers the node *before* its first node.
    A key whose bucket is empty goes to the front of the list, otherwise right before the first
    node of its bucket; rehashing re-inserts the nodes in list order with the same rule."""

    _HEAD = -1

    def __init__(self):
        self._hashes: list[int] = []
        self._keys: set[bytes] = set()
        self._next: dict[int, int | None] = {self._HEAD: None}
        self._before: dict[int, int] = {}      # bucket -> node before its first node
        self.bucket_count = 1
        self.next_resize = 0

    def _next_bucket(self, n: int) -> int:
        if n < len(_FAST_BUCKETS):
            b = _FAST_BUCKETS[n]
        else:
            b = next((p for p in _PRIMES[6:] if p >= n), None)
            if b is None:  # beyond this table (> ~976k records): not reproduced exactly
                b = n | 1
        self.next_resize = b
        return b

    def _need_rehash(self, n_elt: int) -> int | None:
        if n_elt + 1 > self.next_resize:
            min_bkts = max(n_elt + 1, 0 if self.next_resize else 11)
            if min_bkts >= self.bucket_count:
                return self._next_bucket(max(min_bkts + 1, self.bucket_count * 2))
            self.next_resize = self.bucket_count
        return None

    def _link(self, node: int) -> None:
        b = self._hashes[node] % self.bucket_count
        before = self._before.get(b)
        if before is not None:
            self._next[node] = self._next[before]
            self._next[before] = node
        else:
            first = self._next[self._HEAD]
            self._next[node] = first
            self._next[self._HEAD] = node
            if first is not None:
                self._before[self._hashes[first] % self.bucket_count] = node
            self._before[b] = self._HEAD

    def _iter_nodes(self):
        node = self._next[self._HEAD]
        while node is not None:
            yield node
            node = self._next[node]

    def _rehash(self, n: int) -> None:
        order = list(self._iter_nodes())
        self.bucket_count = n
        self._next = {self._HEAD: None}
        self._before = {}
        # libstdc++ _M_rehash_aux: an empty bucket's node goes to the list front; otherwise the
        # node goes right after the bucket's "before" node (i.e. it becomes the bucket's first)
        for node in order:
            self._link(node)

    def add(self, key: bytes) -> None:
        if key in self._keys:
            return
        self._keys.add(key)
        n = self._need_rehash(len(self._hashes))
        if n is not None:
            self._rehash(n)
        self._hashes.append(_stdlib_string_hash(key))
        self._link(len(self._hashes) - 1)

    def combined_hash(self) -> int:
        c = 0
        for node in self._iter_nodes():
            c = _hash_combine(c, self._hashes[node])
        return c


# ---------------------------------------------------------------------------------------------
# CRC-32 of a record checksummed in pieces
#
# Big records are checksummed piece by piece on several threads; crc32_combine joins the pieces'
# CRCs. CRC-32 is the remainder of the message polynomial modulo P (bit-reflected: the value
# 1 << 31 stands for x^0), so crc(A || B) = crc(A) * x^(8 |B|) mod P  xor  crc(B) (the initial and
# final inversions of the register cancel out).
# ---------------------------------------------------------------------------------------------

_CRC_POLY = 0xEDB88320


def _multmodp(a: int, b: int) -> int:
    """a * b modulo P, both bit-reflected polynomials."""
    m = 1 << 31
    prod = 0
    while a:
        if a & m:
            prod ^= b
            a ^= m
        m >>= 1
        b = (b >> 1) ^ _CRC_POLY if b & 1 else b >> 1
    return prod


_X2N = [1 << 30]                  # x^(2^k) mod P: x^1, x^2, x^4, ...
for _ in range(31):
    _X2N.append(_multmodp(_X2N[-1], _X2N[-1]))


def _x8nmodp(n: int) -> int:
    """x^(8 n) mod P: the shift of a CRC over n zero bytes."""
    p = 1 << 31                   # x^0
    k = 3
    while n:
        if n & 1:
            p = _multmodp(_X2N[k % 32], p)
        n >>= 1
        k += 1
    return p


def crc32_combine(crc1: int, crc2: int, len2: int) -> int:
    """The CRC-32 of A + B from crc32(A), crc32(B) and len(B) (zlib's crc32_combine)."""
    return _multmodp(_x8nmodp(len2), crc1) ^ crc2


# ---------------------------------------------------------------------------------------------
# writer
# ---------------------------------------------------------------------------------------------

@dataclass
class _Written:
    name: bytes
    header_offset: int
    flags: int
    crc: int | None            # None while the record's pieces are still being written
    size: int
    zip64_extra: bytes
    pieces: list | None = None         # (future, piece, file offset): the future gives its CRC-32
    descriptor_at: int = 0             # writer offset of its data descriptor (written last)


def _nbytes(data) -> int:
    return memoryview(data).nbytes


def _zip64_extra(size: int | None, offset: int | None) -> bytes:
    fields = b""
    if size is not None:
        fields += struct.pack("<QQ", size, size)
    if offset is not None:
        fields += struct.pack("<Q", offset)
    return struct.pack("<HH", 1, len(fields)) + fields if fields else b""


def _crc32(data) -> int:
    return zlib.crc32(memoryview(data).cast("B")) & 0xFFFFFFFF


def _pwrite_all(fd: int, data, offset: int) -> None:
    mv = memoryview(data)
    done = 0
    while done < mv.nbytes:
        n = os.pwrite(fd, mv[done:], offset + done)
        if n <= 0:
            raise OSError(f"short write at offset {offset + done}")
        done += n


def _crc_and_pwrite(fd: int, mv: memoryview, offset: int) -> int:
    """Checksum and write one piece, a chunk at a time (the chunk is still in the cpu cache when
    the kernel copies it); returns the piece's CRC-32."""
    crc = 0
    for start in range(0, mv.nbytes, _CHUNK):
        chunk = mv[start:start + _CHUNK]
        crc = zlib.crc32(chunk, crc)
        _pwrite_all(fd, chunk, offset + start)
    return crc


_PARALLEL_MIN_BYTES = 1 << 20     # records this big go to the writer threads
_PIECE = 8 << 20                  # one thread's unit of work
_CHUNK = 1 << 20                  # checksummed, then written
_WRITE_THREADS = 1               # besides the caller, which takes the pieces no thread has started


def _positional_fd(stream):
    """(fd, offset of the stream's position) when records can be written with os.pwrite into a
    regular file behind ``stream`` (what ``open(path, "wb")`` returns), else (None, 0). Wrappers
    that transform the bytes (gzip, ...) are not of these exact types and keep plain writes."""
    if type(stream) not in (io.BufferedWriter, io.BufferedRandom, io.FileIO) or not hasattr(os, "pwrite"):
        return None, 0
    try:
        fd = stream.fileno()
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None, 0
        if fcntl is not None and fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_APPEND:
            return None, 0        # pwrite appends on an O_APPEND descriptor
        stream.flush()
        return fd, stream.tell()
    except (OSError, ValueError, io.UnsupportedOperation):
        return None, 0


class ZipWriter:
    """Writes records in torch's layout to a binary stream.  Offsets are counted from the first
    byte this writer emits (like torch's miniz writer).

    Every offset follows from the sizes of the records before it, so when the stream is a regular
    file the writer places each record with ``os.pwrite`` and hands the big ones to a few threads
    that checksum and write them piece by piece (zlib.crc32 and pwrite release the GIL); the data
    descriptors, which hold the CRCs, are filled in once the pieces are done. Other streams
    (BytesIO, sockets, wrappers) get the same bytes written in order. Call ``close()`` (``finish``
    does) before the file is closed: it waits for the threads."""

    def __init__(self, stream, archive_name: str, alignment: int = ALIGNMENT):
        self._f = stream
        self._prefix = archive_name + "/"
        self._pos = 0
        self._alignment = alignment
        self._written: list[_Written] = []
        self._names: set[str] = set()
        self._name_order = _UnorderedSetOrder()
        self._finished = False
        self._fd, self._base = _positional_fd(stream)
        self._pool = None
        self._pending: list[_Written] = []

    def _write(self, data) -> None:
        n = _nbytes(data)
        if n:
            if self._fd is not None:
                _pwrite_all(self._fd, data, self._base + self._pos)
            else:
                self._f.write(data)
        self._pos += n

    def _submit(self, mv: memoryview, offset: int) -> list:
        if self._pool is None:
            from concurrent.futures import ThreadPoolExecutor
            self._pool = ThreadPoolExecutor(max_workers=_WRITE_THREADS)
        pieces = []
        for start in range(0, mv.nbytes, _PIECE):
            piece = mv[start:start + _PIECE]
            pieces.append((self._pool.submit(_crc_and_pwrite, self._fd, piece, offset + start), piece,
                           offset + start))
        return pieces

    def write_record(self, name: str, data, crc=None) -> None:
        """Write one record; ``data`` is any contiguous buffer (bytes, memoryview, numpy array)
        that must stay unchanged until ``finish``.  ``crc`` may be given (an int, or a future
        whose result is the crc32 of ``data``)."""
        if name in self._names:
            raise RuntimeError(f"record {name!r} written twice")
        self._names.add(name)
        if isinstance(data, str):
            data = data.encode("utf-8")
        mv = memoryview(data)
        if not mv.contiguous:
            raise ValueError("record data must be contiguous")
        mv = mv.cast("B") if mv.ndim != 1 or mv.format != "B" else mv
        size = mv.nbytes
        full = (self._prefix + name).encode("utf-8")
        header_offset = self._pos
        big_size = size >= _U32_MAX
        big_offset = header_offset >= _U32_MAX
        zip64 = _zip64_extra(size if big_size else None, header_offset if big_offset else None)
        start = header_offset + 30 + len(full) + len(zip64) + 4
        pad = (self._alignment - start % self._alignment) % self._alignment
        flags = _FLAG_UTF8 | (_FLAG_DESCRIPTOR if size else 0)
        extra = zip64 + b"FB" + struct.pack("<H", pad) + b"Z" * pad
        header = struct.pack(
            "<4sHHHHHIIIHH", _LOCAL_SIG, 0, flags, 0, 0, 0, 0, 0, 0, len(full), len(extra))
        header += full + extra
        cd_zip64 = _zip64_extra(size if big_size else None, header_offset if big_offset else None)
        written = _Written(full, header_offset, flags, None, size, cd_zip64)
        self._name_order.add(name.encode("utf-8"))
        self._written.append(written)
        if size < _CHUNK and crc is None:            # a small record: one write for all of it
            written.crc = _crc32(mv) if size else 0
            self._write(header + mv.tobytes() + (self._descriptor(written) if size else b""))
            return
        self._write(header)
        if self._fd is not None and crc is None and size >= _PARALLEL_MIN_BYTES:
            written.pieces = self._submit(mv, self._base + self._pos)
            self._pos += size
            written.descriptor_at = self._pos
            self._pos += 24 if zip64 else 16
            self._pending.append(written)
        elif crc is None:
            crc = 0
            for at in range(0, size, _CHUNK):     # checksummed while the chunk is in the cache
                chunk = mv[at:at + _CHUNK]
                crc = zlib.crc32(chunk, crc)
                self._write(chunk)
        else:
            self._write(mv)
            if not isinstance(crc, int):   # a future computing it in another thread
                crc = crc.result()
        if written.pieces is None:
            written.crc = crc
            if size:
                self._write(self._descriptor(written))

    @staticmethod
    def _descriptor(w: _Written) -> bytes:
        if w.zip64_extra:          # a zip64 record (size or offset past 4 GiB): 64-bit sizes
            return struct.pack("<4sIQQ", _DESCRIPTOR_SIG, w.crc, w.size, w.size)
        return struct.pack("<4sIII", _DESCRIPTOR_SIG, w.crc, w.size, w.size)

    def _complete_pending(self) -> None:
        """Give each big record its CRC and write its data descriptor: the calling thread writes
        the pieces no thread has started yet (``cancel`` succeeds only on those) and waits for the
        others."""
        pending, self._pending = self._pending, []
        for w in pending:
            crc = 0
            for f, piece, offset in w.pieces:
                piece_crc = _crc_and_pwrite(self._fd, piece, offset) if f.cancel() else f.result()
                crc = crc32_combine(crc, piece_crc, piece.nbytes)
            w.crc, w.pieces = crc, None
            _pwrite_all(self._fd, self._descriptor(w), self._base + w.descriptor_at)

    def close(self) -> None:
        """Wait for (or, after an error, drain) the writer threads; safe to call twice."""
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None

    def serialization_id(self) -> str:
        self._complete_pending()
        crc_combined = 0
        for w in self._written:
            if w.size:
                crc_combined = _hash_combine(crc_combined, w.crc)
        return "%020d%020d" % (self._name_order.combined_hash(), crc_combined)

    def finish(self) -> None:
        if self._finished:
            return
        try:
            self._complete_pending()
        finally:
            self.close()
        self._finished = True
        cd_offset = self._pos
        parts = []
        for w in self._written:
            parts.append(struct.pack(
                "<4sHHHHHHIIIHHHHHII", _CENTRAL_SIG, 0, 0, w.flags, 0, 0, 0, w.crc,
                min(w.size, _U32_MAX), min(w.size, _U32_MAX), len(w.name), len(w.zip64_extra),
                0, 0, 0, 0, min(w.header_offset, _U32_MAX)))
            parts.append(w.name)
            parts.append(w.zip64_extra)
        cd = b"".join(parts)
        zip64_eocd_offset = self._pos + len(cd)
        n = len(self._written)
        tail = (struct.pack("<4sQHHIIQQQQ", _ZIP64_EOCD_SIG, 44, 0x031E, 45, 0, 0, n, n, len(cd),
                            cd_offset)
                + struct.pack("<4sIQI", _ZIP64_LOCATOR_SIG, 0, zip64_eocd_offset, 1)
                + struct.pack("<4sHHHHIIH", _EOCD_SIG, 0, 0, min(n, 0xFFFF), min(n, 0xFFFF),
                              min(len(cd), _U32_MAX), min(cd_offset, _U32_MAX), 0))
        self._write(cd + tail)
        if self._fd is not None:
            self._f.seek(self._base + self._pos)   # leave the stream after the archive


# ---------------------------------------------------------------------------------------------
# reader
# ---------------------------------------------------------------------------------------------

@dataclass
class Record:
    name: str              # relative to the archive folder
    header_offset: int
    method: int
    flags: int
    crc: int
    compressed_size: int
    size: int
    data_offset: int = -1  # resolved lazily from the local header


class ZipReader:
    """Reads the central directory of a zip archive held in a seekable binary stream."""

    def __init__(self, stream):
        self._f = stream
        try:
            stream.seek(0, 2)
            self.file_size = stream.tell()
        except (OSError, ValueError) as e:
            raise ZipFormatError(f"failed reading zip archive: stream is not seekable ({e})") from e
        self._lock = threading.Lock()
        self._buf = None
        self.records: dict[str, Record] = {}
        self.archive_name = ""
        self._read_directory()

    # -- low level --------------------------------------------------------------------------
    def use_buffer(self, buf) -> None:
        """Read headers and records from ``buf``, the whole file mapped in memory (a uint8 numpy
        array), instead of seeking and reading the stream: no system call per record."""
        if len(buf) != self.file_size:
            raise ZipFormatError(f"failed reading zip archive: the file has {len(buf)} bytes "
                                 f"mapped but {self.file_size} when opened (it changed)")
        self._buf = buf

    def _pread(self, offset: int, n: int) -> bytes:
        if offset < 0 or n < 0 or offset + n > self.file_size:
            raise ZipFormatError(
                f"failed reading zip archive: read of {n} bytes at offset {offset} is past the "
                f"end of the file ({self.file_size} bytes); the file is truncated or corrupt")
        if self._buf is not None:
            return self._buf[offset:offset + n].tobytes()
        with self._lock:
            self._f.seek(offset)
            data = self._f.read(n)
        if len(data) != n:
            raise ZipFormatError("failed reading zip archive: short read (file truncated?)")
        return data

    def _read_directory(self) -> None:
        size = self.file_size
        if size < 22:
            raise ZipFormatError("failed reading zip archive: failed finding central directory "
                                 "(file too small)")
        tail_len = min(size, 22 + 0xFFFF)
        tail = self._pread(size - tail_len, tail_len)
        pos = tail.rfind(_EOCD_SIG)
        while pos >= 0 and pos + 22 > len(tail):
            pos = tail.rfind(_EOCD_SIG, 0, pos)
        if pos < 0:
            raise ZipFormatError("failed reading zip archive: failed finding central directory "
                                 "(no end-of-central-directory record; truncated file?)")
        eocd_offset = size - tail_len + pos
        (_, disk, cd_disk, n_disk, n_total, cd_size, cd_offset, _comment) = struct.unpack(
            "<4sHHHHIIH", tail[pos:pos + 22])
        if disk != 0 or cd_disk != 0 or n_disk != n_total:
            raise ZipFormatError("failed reading zip archive: multi-disk archives are not supported")
        # zip64 end record, when the locator sits right before the classic end record
        if eocd_offset >= 20:
            loc = self._pread(eocd_offset - 20, 20)
            if loc[:4] == _ZIP64_LOCATOR_SIG:
                (_, _, z64_offset, _) = struct.unpack("<4sIQI", loc)
                rec = self._pread(z64_offset, 56)
                if rec[:4] != _ZIP64_EOCD_SIG:
                    raise ZipFormatError("failed reading zip archive: bad zip64 end record")
                (_, _, _, _, _, _, n_disk64, n_total64, cd_size64, cd_offset64) = struct.unpack(
                    "<4sQHHIIQQQQ", rec)
                n_total, cd_size, cd_offset = n_total64, cd_size64, cd_offset64
        if cd_offset + cd_size > eocd_offset or n_total * 46 > cd_size:
            raise ZipFormatError("failed reading zip archive: central directory is out of bounds "
                                 "(corrupt or truncated file)")
        cd = self._pread(cd_offset, cd_size)
        p = 0
        first = True
        for _ in range(n_total):
            if p + 46 > len(cd) or cd[p:p + 4] != _CENTRAL_SIG:
                raise ZipFormatError("failed reading zip archive: corrupt central directory entry")
            (_, _, _, flags, method, _, _, crc, csize, usize, nlen, elen, clen, _, _, _,
             hoff) = struct.unpack("<4sHHHHHHIIIHHHHHII", cd[p:p + 46])
            name_b = cd[p + 46:p + 46 + nlen]
            extra = cd[p + 46 + nlen:p + 46 + nlen + elen]
            p += 46 + nlen + elen + clen
            if p > len(cd):
                raise ZipFormatError("failed reading zip archive: corrupt central directory entry")
            if usize == _U32_MAX or csize == _U32_MAX or hoff == _U32_MAX:
                usize, csize, hoff = self._apply_zip64(extra, usize, csize, hoff)
            try:
                name = name_b.decode("utf-8") if flags & _FLAG_UTF8 else name_b.decode("cp437")
            except UnicodeDecodeError:
                raise ZipFormatError("failed reading zip archive: undecodable record name") from None
            if first:
                first = False
                slash = name.find("/")
                if slash < 0:
                    raise ZipFormatError(f"file in archive is not in a subdirectory: {name}")
                self.archive_name = name[:slash]
            prefix = self.archive_name + "/"
            if not name.startswith(prefix):
                raise ZipFormatError(f"file in archive is not in a subdirectory {prefix}: {name}")
            rel = name[len(prefix):]
            if rel in self.records:
                raise ZipFormatError(f"failed reading zip archive: duplicate record {rel}")
            if hoff + 30 > cd_offset or csize > size:
                raise ZipFormatError(f"failed reading zip archive: record {rel} is out of bounds")
            self.records[rel] = Record(rel, hoff, method, flags, crc, csize, usize)

    @staticmethod
    def _apply_zip64(extra: bytes, usize: int, csize: int, hoff: int):
        p = 0
        while p + 4 <= len(extra):
            tag, ln = struct.unpack("<HH", extra[p:p + 4])
            body = extra[p + 4:p + 4 + ln]
            if tag == 1:
                q = 0
                def take():
                    nonlocal q
                    if q + 8 > len(body):
                        raise ZipFormatError("failed reading zip archive: bad zip64 extra field")
                    v = struct.unpack("<Q", body[q:q + 8])[0]
                    q += 8
                    return v
                if usize == _U32_MAX:
                    usize = take()
                if csize == _U32_MAX:
                    csize = take()
                if hoff == _U32_MAX:
                    hoff = take()
                return usize, csize, hoff
            p += 4 + ln
        raise ZipFormatError("failed reading zip archive: missing zip64 extra field")

    # -- records ----------------------------------------------------------------------------
    def has_record(self, name: str) -> bool:
        return name in self.records

    def entry(self, name: str) -> Record:
        """The directory entry of record ``name``, without reading its local header (so without
        touching the file): a loader that reads records later, in file order, resolves the header
        then (:meth:`resolve`), right before the data it precedes."""
        rec = self.records.get(name)
        if rec is None:
            raise ZipFormatError(f"failed locating file {name} in the archive: file not found")
        return rec

    def get(self, name: str) -> Record:
        rec = self.entry(name)
        if rec.data_offset < 0:
            self.resolve(rec, self._pread(rec.header_offset, 30))
        return rec

    LOCAL_HEADER_SIZE = 30

    def resolve(self, rec: Record, hdr: bytes) -> None:
        """Set ``rec.data_offset`` from ``hdr``, the first 30 bytes of its local header, after
        checking the header and that the record lies inside the file."""
        name = rec.name
        if len(hdr) < 30 or hdr[:4] != _LOCAL_SIG:
            raise ZipFormatError(f"failed reading record {name}: bad local header signature")
        nlen, elen = struct.unpack("<HH", hdr[26:30])
        off = rec.header_offset + 30 + nlen + elen
        if off + rec.compressed_size > self.file_size:
            raise ZipFormatError(
                f"record {name} ({rec.compressed_size} bytes at offset {off}) extends past the "
                f"end of the file ({self.file_size} bytes)")
        if rec.method not in (0, 8):
            raise ZipFormatError(f"record {name} uses unsupported compression method {rec.method}")
        if rec.method == 0 and rec.compressed_size != rec.size:
            raise ZipFormatError(f"record {name}: stored record with inconsistent sizes")
        rec.data_offset = off

    def read(self, name: str, check_crc: bool = True) -> bytes:
        """The record's bytes; their CRC-32 is checked against the central directory unless
        ``check_crc`` is False (the small records: data.pkl, version, byteorder...)."""
        rec = self.get(name)
        raw = self._pread(rec.data_offset, rec.compressed_size)
        if rec.method == 0:
            out = raw
        else:
            try:
                d = zlib.decompressobj(-15)
                out = d.decompress(raw, rec.size + 1)
            except zlib.error as e:
                raise ZipFormatError(f"record {name}: corrupt deflate data ({e})") from None
            if len(out) != rec.size:
                raise ZipFormatError(f"record {name}: decompressed size {len(out)} != {rec.size}")
        if check_crc:
            self.check_crc(name, out)
        return out

    def check_crc(self, name: str, data) -> None:
        """Raise ZipFormatError unless ``data`` (the record's bytes) has the CRC-32 the central
        directory records for ``name``."""
        rec = self.records[name]
        got = _crc32(data) if rec.size else 0
        if got != rec.crc:
            raise ZipFormatError(
                f"record {name}: CRC-32 mismatch (the archive records {rec.crc:#010x}, the data "
                f"has {got:#010x}); the file is corrupt")

    def read_into(self, name: str, out) -> None:
        """Read record ``name`` into the writable buffer ``out`` (sizes must match).  A deflated
        record is inflated piece by piece straight into ``out``: no second full-size copy."""
        rec = self.get(name)
        mv = memoryview(out).cast("B")
        if mv.nbytes != rec.size:
            raise ZipFormatError(f"record {name}: size {rec.size} does not match {mv.nbytes}")
        if rec.method != 0:
            self._inflate_into(name, rec, mv)
            return
        with self._lock:
            self._f.seek(rec.data_offset)
            got = 0
            readinto = getattr(self._f, "readinto", None)
            while got < rec.size:
                if readinto is not None:
                    n = readinto(mv[got:])
                else:
                    chunk = self._f.read(rec.size - got)
                    n = len(chunk)
                    mv[got:got + n] = chunk
                if not n:
                    raise ZipFormatError(f"record {name}: short read (file truncated?)")
                got += n

    _INFLATE_IN = 1 << 20      # compressed bytes read at a time
    _INFLATE_OUT = 1 << 20     # at most this much inflated output is held outside ``out``

    def _inflate_into(self, name: str, rec: Record, mv: memoryview) -> None:
        d = zlib.decompressobj(-15)
        pos, end = rec.data_offset, rec.data_offset + rec.compressed_size
        got = 0
        too_long = False
        try:
            while not d.eof:
                if d.unconsumed_tail:
                    data = d.unconsumed_tail
                elif pos < end:
                    data = self._pread(pos, min(self._INFLATE_IN, end - pos))
                    pos += len(data)
                else:
                    break                     # input used up before the end of the stream
                # one byte more than fits, so that too long a stream is noticed
                piece = d.decompress(data, min(self._INFLATE_OUT, rec.size - got + 1))
                if got + len(piece) > rec.size:
                    too_long = True
                    break
                mv[got:got + len(piece)] = piece
                got += len(piece)
            if not d.eof and not too_long:
                rest = d.flush()
                too_long = got + len(rest) > rec.size
                if not too_long:
                    mv[got:got + len(rest)] = rest
                    got += len(rest)
        except zlib.error as e:
            raise ZipFormatError(f"record {name}: corrupt deflate data ({e})") from None
        if too_long or got != rec.size:
            raise ZipFormatError(f"record {name}: the inflated data does not have the {rec.size} "
                                 "bytes the archive records")
