"""The zip container: byte-exact re-creation of torch's archives, and robust reading."""
import io
import zipfile

import pytest

from ember.serialization._zip import ZipFormatError, ZipReader, ZipWriter


def _zip_fixtures(manifest):
    return [n for n, e in manifest["fixtures"].items()
            if e["kind"] == "torch_zip" and n != "repacked_by_zipfile.pt"]


def test_rewrite_every_torch_archive_byte_for_byte(fixtures_dir, manifest):
    names = _zip_fixtures(manifest)
    assert len(names) == 13
    for fname in names:
        orig = (fixtures_dir / fname).read_bytes()
        r = ZipReader(io.BytesIO(orig))
        assert r.archive_name == manifest["fixtures"][fname]["archive_name"]
        out = io.BytesIO()
        w = ZipWriter(out, r.archive_name)
        recs = list(r.records)
        assert recs[-1] == ".data/serialization_id"
        for n in recs[:-1]:
            w.write_record(n, r.read(n))
        sid = w.serialization_id()
        assert sid == r.read(recs[-1]).decode(), fname
        w.write_record(recs[-1], sid)
        w.finish()
        assert out.getvalue() == orig, fname


def test_record_offsets_match_manifest(fixtures_dir, manifest):
    for fname in _zip_fixtures(manifest) + ["repacked_by_zipfile.pt"]:
        entry = manifest["fixtures"][fname]
        with open(fixtures_dir / fname, "rb") as f:
            r = ZipReader(f)
            for rec in entry["records"]:
                rel = rec["name"].split("/", 1)[1]
                got = r.get(rel)
                assert got.size == rec["size"]
                assert got.crc == rec["crc32"]
                assert got.header_offset == rec["header_offset"]
                assert got.data_offset == rec["data_offset"]
                if fname != "repacked_by_zipfile.pt":
                    assert got.data_offset % 64 == 0


def test_python_zipfile_reads_our_archives():
    out = io.BytesIO()
    w = ZipWriter(out, "model")
    w.write_record("data.pkl", b"\x80\x02}q\x00.")
    w.write_record("empty", b"")
    w.write_record("data/0", bytes(range(200)))
    w.finish()
    z = zipfile.ZipFile(io.BytesIO(out.getvalue()))
    assert z.namelist() == ["model/data.pkl", "model/empty", "model/data/0"]
    assert z.read("model/data/0") == bytes(range(200))
    assert z.testzip() is None


def test_deflated_records_are_read():
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as z:
        z.writestr("a/data.pkl", b"hello" * 100)
    r = ZipReader(io.BytesIO(out.getvalue()))
    assert r.read("data.pkl") == b"hello" * 100


@pytest.mark.parametrize("cut", [0, 10, 21, 100, -1, -22, -30])
def test_truncated_archives_raise(cut):
    out = io.BytesIO()
    w = ZipWriter(out, "a")
    w.write_record("data.pkl", b"x" * 300)
    w.finish()
    data = out.getvalue()[:cut] if cut >= 0 else out.getvalue()[:len(out.getvalue()) + cut]
    with pytest.raises(RuntimeError):
        r = ZipReader(io.BytesIO(data))
        r.read("data.pkl")


def test_entry_outside_folder_is_refused():
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        z.writestr("a/data.pkl", b"1")
        z.writestr("other.txt", b"1")
    with pytest.raises(ZipFormatError, match="not in a subdirectory"):
        ZipReader(io.BytesIO(out.getvalue()))


def test_missing_record_message():
    out = io.BytesIO()
    w = ZipWriter(out, "a")
    w.write_record("data.pkl", b"1")
    w.finish()
    r = ZipReader(io.BytesIO(out.getvalue()))
    with pytest.raises(RuntimeError, match="data/7"):
        r.read("data/7")


def _deflated_archive(payload: bytes, level=6) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=level) as z:
        z.writestr("a/data/0", payload)
    return out.getvalue()


def test_deflated_record_is_inflated_into_the_destination():
    import tracemalloc

    import numpy as np
    payload = np.arange(8 << 20, dtype=np.int32).tobytes()        # 32 MiB, compresses well
    r = ZipReader(io.BytesIO(_deflated_archive(payload)))
    dest = np.empty(len(payload), dtype=np.uint8)
    tracemalloc.start()
    try:
        r.read_into("data/0", dest)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert dest.tobytes() == payload
    # pieces of at most a few MiB pass through Python objects, never the whole 32 MiB record
    assert peak < len(payload) // 4, peak


@pytest.mark.parametrize("change", ["short", "long", "corrupt"])
def test_deflated_record_of_the_wrong_size_is_refused(change):
    import numpy as np
    payload = bytes(range(256)) * 4096
    data = bytearray(_deflated_archive(payload, level=1))
    r = ZipReader(io.BytesIO(bytes(data)))
    rec = r.get("data/0")
    if change == "corrupt":
        data[rec.data_offset + 3:rec.data_offset + 40] = b"\xff" * 37
        r = ZipReader(io.BytesIO(bytes(data)))
        size = len(payload)
    else:
        size = len(payload) + (1 if change == "short" else -1)
        r.get("data/0").size = size          # the directory claims another size
    with pytest.raises(ZipFormatError):
        r.read_into("data/0", np.empty(size, dtype=np.uint8))


def test_crc32_combine_matches_zlib():
    import os
    import zlib

    from ember.serialization._zip import crc32_combine
    for n, m in [(0, 0), (0, 9), (9, 0), (1, 1), (1000, 3), (5, (1 << 20) + 7), ((1 << 20) + 1, 1 << 16)]:
        a, b = os.urandom(n), os.urandom(m)
        assert crc32_combine(zlib.crc32(a), zlib.crc32(b), m) == zlib.crc32(a + b), (n, m)


def test_file_writes_at_offsets_equal_stream_writes(tmp_path, monkeypatch):
    """Big records go to threads that write pieces with os.pwrite into a real file; the bytes are
    those of the in-order writer, also when the archive starts in the middle of the file."""
    import numpy as np

    from ember.serialization import _zip
    monkeypatch.setattr(_zip, "_PIECE", 1 << 16)          # many pieces per record
    monkeypatch.setattr(_zip, "_CHUNK", 1 << 12)
    monkeypatch.setattr(_zip, "_PARALLEL_MIN_BYTES", 1 << 10)
    rng = np.random.default_rng(0)
    records = [("data.pkl", b"\x80\x02}q\x00."), ("data/0", rng.bytes(300_001)), ("empty", b""),
               ("data/1", rng.integers(0, 9, 70_000, dtype=np.int64)), ("data/2", b"x" * 2000)]

    def archive(stream):
        w = ZipWriter(stream, "m")
        for name, data in records:
            w.write_record(name, data)
        w.write_record(".data/serialization_id", w.serialization_id())
        w.finish()

    ref = io.BytesIO()
    archive(ref)
    p = tmp_path / "f.bin"
    with open(p, "wb") as f:
        f.write(b"prefix")
        archive(f)
        assert f.tell() == 6 + len(ref.getvalue())
        f.write(b"after")
    assert p.read_bytes() == b"prefix" + ref.getvalue() + b"after"
    assert ZipReader(io.BytesIO(ref.getvalue())).read("data/0") == records[1][1]
    with open(p, "ab") as f:                               # O_APPEND: written in order instead
        archive(f)
    assert p.read_bytes() == b"prefix" + ref.getvalue() + b"after" + ref.getvalue()
