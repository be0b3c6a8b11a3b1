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
