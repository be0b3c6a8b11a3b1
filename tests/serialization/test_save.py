"""ember.save: torch's exact bytes, storage sharing, atomic writes, the safe-globals API."""
import collections
import io
import mmap
import os
import pickle

import numpy as np
import pytest

import ember
from ember.serialization import (add_safe_globals, clear_safe_globals, get_safe_globals,
                                 get_unsafe_globals_in_checkpoint, load, safe_globals, save)
from ember.serialization import _tensors, _zip

from .manifest_check import Checker


def _view(base, offset, size, stride, dtype=None):
    return ember.Tensor._from_storage(base.untyped_storage(), offset, size, stride, dtype or base.dtype)


# -- byte reproduction of torch-written fixtures ------------------------------------------------

_NOT_REPRODUCIBLE = {
    "cuda_location.pt": "loaded with map_location='cpu', so the location tag becomes 'cpu'",
    "repacked_by_zipfile.pt": "its zip layout was rewritten by Python's zipfile",
}


def test_resaving_fixtures_reproduces_torch_bytes(fixtures_dir, manifest, tmp_path):
    checked = 0
    for name, entry in manifest["fixtures"].items():
        if entry["kind"] != "torch_zip" or name in _NOT_REPRODUCIBLE:
            continue
        if name == "params_and_meta.pt" and _tensors.parameter_class() is None:
            continue   # needs ember.nn.Parameter
        obj = load(fixtures_dir / name, **(entry.get("load_kwargs") or {}))
        if entry["archive_name"] == "archive":
            buf = io.BytesIO()
            save(obj, buf)
            out = buf.getvalue()
        else:
            p = tmp_path / name
            save(obj, p)
            out = p.read_bytes()
        assert out == (fixtures_dir / name).read_bytes(), name
        checked += 1
    assert checked >= 10


def test_data_pkl_reproduced_for_every_zip_fixture(fixtures_dir, manifest):
    import hashlib
    for name, entry in manifest["fixtures"].items():
        if entry["kind"] != "torch_zip" or name == "cuda_location.pt":
            continue
        if name == "params_and_meta.pt" and _tensors.parameter_class() is None:
            continue
        obj = load(fixtures_dir / name, **(entry.get("load_kwargs") or {}))
        buf = io.BytesIO()
        save(obj, buf)
        r = _zip.ZipReader(io.BytesIO(buf.getvalue()))
        assert hashlib.sha256(r.read("data.pkl")).hexdigest() == entry["data_pkl_sha256"], name


# -- storages -----------------------------------------------------------------------------------

def test_views_share_one_record_and_reload_shared():
    base = ember.tensor(np.arange(24, dtype=np.float32).reshape(4, 6))
    t = _view(base, 0, (6, 4), (1, 6))
    row = _view(base, 6, (6,), (1,))
    part = ember.tensor(np.arange(100, dtype=np.int32))
    three = _view(part, 10, (3,), (1,))
    obj = {"base": base, "t": t, "rows": [row, row], "three": three}
    buf = io.BytesIO()
    save(obj, buf)
    r = _zip.ZipReader(io.BytesIO(buf.getvalue()))
    assert sorted(n for n in r.records if n.startswith("data/")) == ["data/0", "data/1"]
    assert r.get("data/1").size == 400          # the whole storage is saved
    back = load(io.BytesIO(buf.getvalue()))
    st = back["base"].untyped_storage()
    assert back["t"].untyped_storage() is st and back["rows"][0].untyped_storage() is st
    assert back["rows"][0] is back["rows"][1]
    assert back["three"].numpy().tolist() == [10, 11, 12]
    assert back["t"].numpy().tolist() == base.numpy().T.tolist()


def test_different_dtypes_on_one_storage_are_refused():
    base = ember.tensor(np.arange(4, dtype=np.float32))
    as_int = _view(base, 0, (4,), (1,), ember.int32)
    with pytest.raises(RuntimeError, match="view the same data as different types"):
        save([base, as_int], io.BytesIO())


def test_every_dtype_round_trips():
    for d in _tensors.all_dtypes():
        if d._np is None:
            continue
        arr = np.arange(6).astype(d._np).reshape(2, 3)
        t = ember.Tensor._from_storage(
            ember.UntypedStorage._from_numpy(np.ascontiguousarray(arr).reshape(-1).view(np.uint8).copy()),
            0, (2, 3), (3, 1), d)
        buf = io.BytesIO()
        save({"t": t, "dt": d}, buf)
        back = load(io.BytesIO(buf.getvalue()))
        assert back["dt"] is d
        assert back["t"].dtype is d
        np.testing.assert_array_equal(back["t"].numpy().view(np.uint8), arr.view(np.uint8))


def test_meta_tensors_and_requires_grad():
    t = ember.tensor([1.0, 2.0]).requires_grad_()
    m = ember.Tensor._from_storage(ember.UntypedStorage(24, device="meta"), 0, (2, 3), (3, 1), ember.float32)
    buf = io.BytesIO()
    save({"t": t, "m": m, "size": ember.Size([2, 3]), "dev": ember.device("cpu")}, buf)
    back = load(io.BytesIO(buf.getvalue()))
    assert back["t"].requires_grad
    assert back["m"].device.type == "meta" and tuple(back["m"].size()) == (2, 3)
    assert back["size"] == ember.Size([2, 3]) and isinstance(back["size"], ember.Size)
    assert back["dev"] == ember.device("cpu")


# -- paths, archive names, atomic writes --------------------------------------------------------

@pytest.mark.parametrize("fname,archive", [("model.pt", "model"), ("x.tar.gz", "x.tar"),
                                           ("noext", "noext"), ("\u00e9t\u00e9.pt", "archive")])
def test_archive_names(tmp_path, fname, archive):
    p = tmp_path / fname
    save({"a": ember.tensor([1.0])}, str(p))
    assert _zip.ZipReader(open(p, "rb")).archive_name == archive
    assert load(p)["a"].numpy().tolist() == [1.0]


def test_file_objects(tmp_path):
    p = tmp_path / "f.bin"
    with open(p, "wb") as f:
        save({"a": ember.tensor([1, 2])}, f)
    with open(p, "rb") as f:
        assert load(f)["a"].numpy().tolist() == [1, 2]
    assert _zip.ZipReader(open(p, "rb")).archive_name == "archive"


def test_atomic_save_keeps_old_file_on_failure(tmp_path, monkeypatch):
    p = tmp_path / "ckpt.pt"
    save({"v": ember.tensor([1.0])}, p)
    os.chmod(p, 0o640)
    old = p.read_bytes()
    calls = {"n": 0}
    real = _zip.ZipWriter.write_record

    def failing(self, name, data, crc=None):
        calls["n"] += 1
        if name.startswith("data/"):
            raise OSError("disk full (simulated)")
        return real(self, name, data, crc)

    monkeypatch.setattr(_zip.ZipWriter, "write_record", failing)
    with pytest.raises(OSError, match="simulated"):
        save({"v": ember.tensor([2.0, 3.0])}, p)
    monkeypatch.undo()
    assert calls["n"] > 1
    assert p.read_bytes() == old
    assert os.listdir(tmp_path) == ["ckpt.pt"]
    save({"v": ember.tensor([4.0])}, p)
    assert load(p)["v"].numpy().tolist() == [4.0]
    assert oct(os.stat(p).st_mode & 0o777) == oct(0o640)
    assert os.listdir(tmp_path) == ["ckpt.pt"]


def test_unpicklable_object_leaves_no_file(tmp_path):
    p = tmp_path / "x.pt"
    with pytest.raises((pickle.PicklingError, AttributeError, TypeError)):
        save({"f": lambda: 1}, p)
    assert os.listdir(tmp_path) == []


def test_mmap_load_views_the_file(tmp_path):
    big = ember.tensor(np.arange(1 << 20, dtype=np.float32))
    p = tmp_path / "big.pt"
    save({"w": big, "b": ember.tensor([1.0])}, p)
    back = load(p, mmap=True)
    data = back["w"].untyped_storage()._data
    base = data
    while base is not None and not isinstance(base, mmap.mmap):    # the array views a file mapping
        base = getattr(base, "base", None) if isinstance(base, np.ndarray) else getattr(base, "obj", None)
    assert isinstance(base, mmap.mmap)
    r = _zip.ZipReader(open(p, "rb"))
    assert r.get("data/0").data_offset % 64 == 0
    np.testing.assert_array_equal(back["w"].numpy(), big.numpy())
    back["w"][0] = 5.0                      # copy-on-write: the file keeps its bytes
    assert load(p)["w"][0].item() == 0.0
    with pytest.raises(ValueError, match="file path"):
        load(io.BytesIO(p.read_bytes()), mmap=True)


# -- safe globals -------------------------------------------------------------------------------

class Point:
    def __init__(self, x, y):
        self.x, self.y = x, y


def test_custom_classes_need_allowlisting(tmp_path):
    clear_safe_globals()
    p = tmp_path / "pt.pt"
    save({"p": Point(1, 2), "t": ember.tensor([1.0])}, p)
    name = f"{Point.__module__}.Point"
    assert get_unsafe_globals_in_checkpoint(p) == [name]
    with pytest.raises(pickle.UnpicklingError, match="Point"):
        load(p)
    with safe_globals([Point]):
        assert get_unsafe_globals_in_checkpoint(p) == []
        obj = load(p)
        assert isinstance(obj["p"], Point) and (obj["p"].x, obj["p"].y) == (1, 2)
    assert get_safe_globals() == []
    with pytest.raises(pickle.UnpicklingError):
        load(p)
    add_safe_globals([(Point, name)])
    try:
        assert get_safe_globals() == [Point]
        assert load(p)["p"].y == 2
    finally:
        clear_safe_globals()
    assert load(p, weights_only=False)["p"].x == 1


def test_blocked_modules_cannot_be_allowlisted(tmp_path):
    p = tmp_path / "x.pt"
    save({"f": os.getcwd}, p)
    with safe_globals([os.getcwd, (os.getcwd, "posix.getcwd")]):
        with pytest.raises(pickle.UnpicklingError, match="blocked"):
            load(p)


def test_weights_only_false_is_opt_in(fixtures_dir):
    assert load(fixtures_dir / "nested_containers.pt", weights_only=False)
    with pytest.raises(RuntimeError, match="pickle_module"):
        load(fixtures_dir / "nested_containers.pt", pickle_module=pickle, weights_only=True)
    assert load(fixtures_dir / "nested_containers.pt", pickle_module=pickle)


def test_get_unsafe_globals_of_fixtures(fixtures_dir):
    assert get_unsafe_globals_in_checkpoint(fixtures_dir / "optimizer_adamw.pt") == []
    assert get_unsafe_globals_in_checkpoint(fixtures_dir / "malicious_reduce_eval.pt") == ["builtins.eval"]
    assert get_unsafe_globals_in_checkpoint(fixtures_dir / "malicious_global_os_system.pt") == ["os.system"]
    with pytest.raises(ValueError):
        get_unsafe_globals_in_checkpoint(fixtures_dir / "legacy_format.pt")


def test_parallel_fill_of_large_storages(tmp_path):
    rng = np.random.default_rng(0)
    arrays = {f"w{i}": rng.standard_normal((600 + i, 700)).astype(np.float32) for i in range(5)}
    arrays["big"] = rng.standard_normal(40 << 18).astype(np.float32)   # 40 MiB: several pieces
    sd = {k: ember.tensor(a) for k, a in arrays.items()}
    sd["view"] = _view(sd["big"], 5, (10,), (3,))
    p = tmp_path / "large.pt"
    save(sd, p)
    back = load(p)
    for k, a in arrays.items():
        np.testing.assert_array_equal(back[k].numpy(), a)
    assert back["view"].untyped_storage() is back["big"].untyped_storage()
    np.testing.assert_array_equal(back["view"].numpy(), arrays["big"][5:35:3])
    # a file cut short in the middle of the data is refused after the pickle was read
    data = p.read_bytes()
    cut = tmp_path / "cut.pt"
    cut.write_bytes(data[: len(data) // 2] + data[-2000:])
    with pytest.raises(RuntimeError):
        load(cut)


def test_loaded_big_storages_are_private_writable_memory(tmp_path):
    """Storages of 1 MB and more are read into malloc'ed memory (not numpy's huge-page arrays): they are
    writable, owned by the tensor, and independent of the file (which may be replaced or removed)."""
    a = np.arange(1 << 19, dtype=np.float32)                        # 2 MiB
    p = tmp_path / "big.pt"
    save({"a": ember.tensor(a)}, p)
    t = load(p)["a"]
    t.add_(1)
    os.remove(p)
    np.testing.assert_array_equal(t.numpy(), a + 1)
    save({"a": ember.tensor(a)}, p)
    np.testing.assert_array_equal(load(p)["a"].numpy(), a)


def test_a_failed_write_in_the_writer_thread_keeps_the_old_file(tmp_path, monkeypatch):
    """Big records are written by a thread (and the caller) with os.pwrite; a write error there (disk
    full) fails the save like any other: the old file stays, no temporary file is left."""
    p = tmp_path / "ckpt.pt"
    save({"v": ember.tensor([1.0])}, p)
    old = p.read_bytes()
    real = _zip._pwrite_all

    def failing(fd, data, offset):
        if memoryview(data).nbytes >= _zip._CHUNK // 2:
            raise OSError(28, "No space left on device (simulated)")
        return real(fd, data, offset)
    monkeypatch.setattr(_zip, "_pwrite_all", failing)
    big = ember.tensor(np.arange(1 << 20, dtype=np.float32))         # 4 MiB: written in pieces
    with pytest.raises(OSError, match="simulated"):
        save({"v": big}, p)
    monkeypatch.undo()
    assert p.read_bytes() == old
    assert os.listdir(tmp_path) == ["ckpt.pt"]


@pytest.mark.parametrize("source", ["path", "buffer"])
def test_deflated_checkpoint_loads_without_a_second_copy(tmp_path, source, monkeypatch):
    """torch's reader accepts DEFLATE-compressed records (FORMAT.md 2.2); ember inflates each one
    piece by piece into the storage it allocated, so the 32 MiB record never exists twice."""
    import tracemalloc
    import zipfile

    from ember.serialization import _serialization
    # storages from np.empty, which tracemalloc sees (big ones are normally malloc'ed through ctypes)
    monkeypatch.setattr(_serialization, "_storage_bytes", lambda n: np.empty(n, dtype=np.uint8))

    w = np.arange(8 << 20, dtype=np.int32)            # 32 MiB, compresses well
    plain = tmp_path / "plain.pt"
    save({"w": ember.tensor(w), "b": ember.tensor([1.5])}, plain)
    packed = tmp_path / "packed.pt"
    with zipfile.ZipFile(plain) as zin, zipfile.ZipFile(packed, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            zout.writestr(info.filename, zin.read(info.filename))
    assert zipfile.ZipFile(packed).getinfo("plain/data/0").compress_type == zipfile.ZIP_DEFLATED
    f = packed if source == "path" else io.BytesIO(packed.read_bytes())
    tracemalloc.start()
    try:
        back = load(f)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    np.testing.assert_array_equal(back["w"].numpy(), w)
    assert back["b"].tolist() == [1.5]
    # one copy of the record (the storage) plus pieces of about 1 MiB of compressed input and
    # inflated output; reading the record whole before copying it would need twice its size
    assert w.nbytes <= peak < w.nbytes * 5 // 4, peak


def test_mmap_load_reads_the_archive_through_the_mapping(tmp_path, monkeypatch):
    """With mmap=True the zip directory is read from the stream once and every record's local header
    and bytes come from the mapping: the number of reads does not grow with the number of tensors."""
    from ember.serialization import _serialization
    sd = {f"t{i}": ember.tensor(np.full(3, i, dtype=np.float32)) for i in range(60)}
    p = tmp_path / "many.pt"
    save(sd, p)
    reads = []
    real_open = _serialization._open_for_read

    class Counting(io.BufferedReader):
        def read(self, n=-1):
            reads.append(n)
            return super().read(n)

    def counting_open(f):
        stream, path, close = real_open(f)
        stream.close()
        return Counting(io.FileIO(path, "rb")), path, True
    monkeypatch.setattr(_serialization, "_open_for_read", counting_open)
    back = load(p, mmap=True)
    assert [back[f"t{i}"].tolist() for i in range(60)] == [[float(i)] * 3 for i in range(60)]
    assert len(reads) < 10, reads
