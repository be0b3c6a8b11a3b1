"""ember.load's reading of storage records: in file order (header, then data), split over threads."""
import io
import os

import numpy as np
import pytest

import ember
from ember.serialization import _serialization, load, save
from ember.serialization._zip import ZipFormatError, ZipReader


def _state(n=12, big=300_000):
    """Tensors of mixed sizes: every third one above a MiB, the others a few KB."""
    rng = np.random.default_rng(0)
    return {f"t{i}": ember.tensor(rng.standard_normal(big if i % 3 == 0 else 1000 + i)
                                  .astype(np.float32)) for i in range(n)}


def _check(back, sd):
    assert list(back) == list(sd)
    for k in sd:
        np.testing.assert_array_equal(back[k].numpy(), sd[k].numpy())


@pytest.fixture
def reads(monkeypatch):
    """Offsets of the file reads a load makes through ``os.pread``/``os.preadv`` and the stream."""
    got = []
    real_pread, real_preadv = os.pread, os.preadv

    def pread(fd, n, off):
        got.append(off)
        return real_pread(fd, n, off)

    def preadv(fd, bufs, off, *a):
        got.append(off)
        return real_preadv(fd, bufs, off, *a)
    monkeypatch.setattr(os, "pread", pread)
    monkeypatch.setattr(os, "preadv", preadv)
    real_open = _serialization._open_for_read

    class Tracing(io.BufferedReader):
        def read(self, n=-1):
            got.append(self.tell())
            return super().read(n)

    def tracing_open(f):
        stream, path, close = real_open(f)
        stream.close()
        return Tracing(io.FileIO(path, "rb")), path, True
    monkeypatch.setattr(_serialization, "_open_for_read", tracing_open)
    return got


def test_records_are_read_in_file_order(tmp_path, reads, monkeypatch):
    """Every record's local header is read right before its data, records in file order: reading the
    headers while the pickle is interpreted (one small read per tensor scattered over the file before
    any data) broke the kernel's readahead on a cold load (3x the disk requests)."""
    monkeypatch.setattr(_serialization._StorageSource, "WORKERS", 1, raising=False)
    sd = _state()
    p = tmp_path / "m.pt"
    save(sd, p)
    _check(load(p), sd)
    with open(p, "rb") as f:
        z = ZipReader(f)
        recs = [z.get(n) for n in z.records if n.startswith("data/")]
    lo = min(r.header_offset for r in recs)
    hi = max(r.data_offset + r.size for r in recs)
    # from the first storage record's header on (the directory, found from the end, comes before)
    storage_reads = [off for off in reads[reads.index(lo):] if lo <= off < hi]
    assert storage_reads == sorted(storage_reads), storage_reads
    headers = sorted(r.header_offset for r in recs)
    assert [off for off in storage_reads if off in headers] == headers


@pytest.mark.parametrize("own_fd", [True, False])
@pytest.mark.parametrize("workers", [2, 3])
def test_reading_split_over_threads(tmp_path, monkeypatch, own_fd, workers):
    """Parts may start inside a record (the thread reads that record's header itself)."""
    monkeypatch.setattr(_serialization._StorageSource, "WORKERS", workers)
    monkeypatch.setattr(_serialization._StorageSource, "OWN_FD", own_fd)
    monkeypatch.setattr(_serialization._StorageSource, "PARALLEL_MIN_BYTES", 1)
    monkeypatch.setattr(_serialization._StorageSource, "PIECE", 100_000)
    monkeypatch.setattr(os, "cpu_count", lambda: 4)
    sd = _state()
    p = tmp_path / "m.pt"
    save(sd, p)
    _check(load(p), sd)
    _check(load(p, verify_crc=True), sd)


def test_a_bad_header_late_in_the_file_is_reported(tmp_path, monkeypatch):
    """A corrupt local header found by a reading thread raises the reader's error in the caller."""
    monkeypatch.setattr(_serialization._StorageSource, "PARALLEL_MIN_BYTES", 1)
    monkeypatch.setattr(_serialization._StorageSource, "PIECE", 100_000)
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    sd = _state()
    p = tmp_path / "m.pt"
    save(sd, p)
    with open(p, "rb") as f:
        last = max((r for n, r in ZipReader(f).records.items() if n.startswith("data/")),
                   key=lambda r: r.header_offset)
    data = bytearray(p.read_bytes())
    data[last.header_offset:last.header_offset + 4] = b"XXXX"
    p.write_bytes(bytes(data))
    with pytest.raises(ZipFormatError, match="bad local header signature"):
        load(p)


def test_a_load_opens_no_extra_descriptor_for_small_files(tmp_path, monkeypatch):
    opened = []
    real = _serialization._reopen
    monkeypatch.setattr(_serialization, "_reopen", lambda fd: opened.append(fd) or real(fd))
    sd = {"w": ember.tensor(np.arange(10, dtype=np.float32))}
    p = tmp_path / "s.pt"
    save(sd, p)
    _check(load(p), sd)
    assert opened == []
