"""ember.save / ember.load: torch 2.13's checkpoint formats (FORMAT.md)."""
from __future__ import annotations

import io
import os
import pickle
import sys
import threading
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from pickle import UnpicklingError

import numpy as np

from . import _tensors
from ._atomic import atomic_write
from ._pickler import GlobalRef, Pickler, _fresh_str
from ._weights_only import (LoadedStorage, RestrictedUnpickler, StorageType, default_allowlist,
                            globals_in_pickle, map_python2_name, user_globals)
from ._zip import ZipReader, ZipWriter

__all__ = ["save", "load", "get_unsafe_globals_in_checkpoint"]

DEFAULT_PROTOCOL = 2
LEGACY_MAGIC_NUMBER = 0x1950A86A20F9469CFC6C
LEGACY_PROTOCOL_VERSION = 1001
_ZIP_MAGIC = b"PK\x03\x04"

_REBUILD_V2 = GlobalRef("torch._utils", "_rebuild_tensor_v2")
_REBUILD_V3 = GlobalRef("torch._utils", "_rebuild_tensor_v3")
_REBUILD_PARAMETER = GlobalRef("torch._utils", "_rebuild_parameter")
_REBUILD_META = GlobalRef("torch._utils", "_rebuild_meta_tensor_no_storage")
_TORCH_SIZE = GlobalRef("torch", "Size")
_TORCH_DEVICE = GlobalRef("torch", "device")
_UNTYPED_STORAGE = GlobalRef("torch.storage", "UntypedStorage")


# =============================================================================================
# save
# =============================================================================================

class _StorageRef:
    """A tensor's storage as it appears in the rebuild arguments (torch passes a TypedStorage
    for v2 tensors and the UntypedStorage itself for v3)."""

    __slots__ = ("storage", "dtype")

    def __init__(self, storage, dtype):
        self.storage = storage
        self.dtype = dtype      # None: untyped (v3 / bare storage)


# types the pickler meets most that are never storages (persistent_id answers None at once)
_PLAIN_TYPES = frozenset({int, float, str, bool, type(None), tuple, list, dict, OrderedDict, bytes, GlobalRef})


class _SaveContext:
    def __init__(self):
        self.keys: dict[int, str] = {}           # id(storage) -> key
        self.storages: list = []                  # in key order
        self.storage_dtypes: dict[int, object] = {}   # data_ptr -> dtype name, as torch checks

    # -- persistent ids -----------------------------------------------------------------------
    def persistent_id(self, obj):
        t = type(obj)
        if t is _StorageRef:
            storage, dtype = obj.storage, obj.dtype
        elif t in _PLAIN_TYPES or not _tensors.is_storage(obj):
            return None
        else:
            storage, dtype = obj, None
        nbytes = _tensors.storage_nbytes(storage)
        if dtype is None:
            storage_type = _UNTYPED_STORAGE
            dtype_name = "uint8"
            numel = nbytes
        else:
            storage_type = GlobalRef("torch", _tensors.CLASSIC_STORAGE[dtype.name])
            dtype_name = dtype.name
            numel = nbytes // dtype.itemsize
        ptr = storage.data_ptr()
        if ptr != 0:
            seen = self.storage_dtypes.setdefault(ptr, dtype_name)
            if seen != dtype_name:
                raise RuntimeError("Cannot save multiple tensors or storages that view the same "
                                   "data as different types")
        key = self.keys.setdefault(id(storage), str(len(self.keys)))
        if len(self.storages) < len(self.keys):
            self.storages.append(storage)
        location = "meta" if _tensors.storage_device_type(storage) == "meta" else "cpu"
        return ("storage", storage_type, key, location, numel)

    # -- ember objects under torch's names ----------------------------------------------------
    def reducer_override(self, obj):
        if _tensors.is_tensor(obj):
            if _tensors.is_parameter(obj):
                return (_REBUILD_PARAMETER,
                        (_tensors.parameter_data(obj), bool(obj.requires_grad), OrderedDict()))
            return self._reduce_tensor(obj)
        if _tensors.is_dtype(obj):
            return GlobalRef("torch", obj.name)
        if _tensors.is_size(obj):
            return (_TORCH_SIZE, (tuple(obj),))
        if _tensors.is_device(obj):
            args = ((_fresh_str(obj.type),) if obj.index is None
                    else (_fresh_str(obj.type), int(obj.index)))
            return (_TORCH_DEVICE, args)
        return NotImplemented

    def _reduce_tensor(self, t):
        storage, offset, size, stride, dtype, requires_grad, device = _tensors.tensor_meta(t)
        if device == "meta":
            return (_REBUILD_META, (dtype, size, stride, requires_grad))
        metadata = _tensors.tensor_flags(t)
        if dtype.name in _tensors.CLASSIC_STORAGE:
            args = (_StorageRef(storage, dtype), offset, size, stride, requires_grad, OrderedDict())
            func = _REBUILD_V2
        else:
            args = (_StorageRef(storage, None), offset, size, stride, requires_grad, OrderedDict(),
                    dtype)
            func = _REBUILD_V3
        if metadata:
            args = args + (metadata,)
        return (func, args)


def _pickle_with_storages(obj, pickle_protocol: int):
    ctx = _SaveContext()
    buf = io.BytesIO()
    Pickler(buf.write, persistent_id=ctx.persistent_id, reducer_override=ctx.reducer_override,
            protocol=pickle_protocol).dump(obj)
    return buf.getvalue(), ctx.storages


def _archive_name_for_path(path: str) -> str:
    base = os.path.basename(path)
    try:
        base.encode("ascii")
    except UnicodeEncodeError:
        return "archive"     # torch writes non-ASCII names through a Python file object
    dot = base.rfind(".")
    name = base[:dot] if dot >= 0 else base
    return name or "archive"


def _write_zip(stream, archive_name: str, data_pkl: bytes, storages: list,
               disable_byteorder_record: bool = False) -> None:
    w = ZipWriter(stream, archive_name)
    w.write_record("data.pkl", data_pkl)
    w.write_record(".format_version", b"1")
    w.write_record(".storage_alignment", b"64")
    if not disable_byteorder_record:
        w.write_record("byteorder", sys.byteorder.encode("ascii"))
    try:
        for i, st in enumerate(storages):
            arr = _tensors.storage_array(st)
            if arr is None:   # meta storage saved directly: torch writes no bytes for it either
                arr = np.zeros(_tensors.storage_nbytes(st), dtype=np.uint8)
            # a big record goes to the writer's threads (checksummed and written in pieces)
            w.write_record(f"data/{i}", arr)
        w.write_record("version", b"3\n")
        if disable_byteorder_record:
            w.write_record("byteorder", sys.byteorder.encode("ascii"))
        w.write_record(".data/serialization_id", w.serialization_id().encode("ascii"))
        w.finish()
    finally:
        w.close()


def _is_path(f) -> bool:
    return isinstance(f, (str, os.PathLike))


def save(obj, f, pickle_module=None, pickle_protocol: int = DEFAULT_PROTOCOL,
         _use_new_zipfile_serialization: bool = True, _disable_byteorder_record: bool = False):
    """Save ``obj`` in torch 2.13's zip checkpoint format (loadable by ``torch.load``).

    ``f`` is a path (``str``/``os.PathLike``: written atomically via a temporary file in the
    same folder, fsynced, renamed over the old file; temporary files of saves that were killed
    are removed by later saves into that folder) or a binary file object with ``write``.  Tensors are saved with their whole
    storage; views of one storage share it in the file and after loading.
    """
    if pickle_module is not None and pickle_module is not pickle:
        raise ValueError("ember.save only supports the standard pickle module")
    if not _use_new_zipfile_serialization:
        raise NotImplementedError("ember.save writes only the zip format "
                                  "(_use_new_zipfile_serialization=True)")
    data_pkl, storages = _pickle_with_storages(obj, pickle_protocol)
    if _is_path(f):
        path = os.fspath(f)
        if isinstance(path, bytes):
            path = os.fsdecode(path)
        name = _archive_name_for_path(path)
        atomic_write(path, lambda s: _write_zip(s, name, data_pkl, storages,
                                                 _disable_byteorder_record))
    else:
        write = getattr(f, "write", None)
        if not callable(write):
            raise AttributeError(f"Buffer of {type(f).__name__} has no callable attribute 'write'")
        _write_zip(f, "archive", data_pkl, storages, _disable_byteorder_record)
        flush = getattr(f, "flush", None)
        if callable(flush):
            flush()


# =============================================================================================
# load
# =============================================================================================

def _weights_only_default(weights_only):
    if weights_only is not None:
        return bool(weights_only)
    if os.environ.get("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", "0") not in ("0", ""):
        return False
    return True


class _Location:
    """Resolves a storage's location tag through ``map_location``."""

    def __init__(self, map_location):
        self.map_location = map_location
        self._targets: dict[str, str] = {}      # location tag -> device type, as resolved
        self.fn = map_location if callable(map_location) and not _tensors.is_device(map_location) \
            else None
        if isinstance(map_location, dict):
            for k, v in map_location.items():
                if not isinstance(k, str):
                    raise TypeError("map_location dict keys must be location strings like 'cuda:0'")
        elif map_location is not None and self.fn is None and not isinstance(map_location, str) \
                and not _tensors.is_device(map_location):
            raise TypeError(f"map_location must be None, a str, a device, a dict or a callable, "
                            f"got {type(map_location).__name__}")

    @staticmethod
    def _device_type(target, location) -> str:
        s = str(target)
        kind = s.split(":", 1)[0]
        if kind in ("cpu", "meta"):
            return kind
        if location is not None and s == location:
            raise RuntimeError(
                f"Attempting to deserialize object on a {kind.upper()} device ({location!r}) but "
                "ember only has 'cpu' and 'meta' devices. Please use ember.load with "
                "map_location='cpu' to map your storages to the CPU.")
        raise RuntimeError(f"ember.load: cannot map storages to device {s!r}; ember has 'cpu' "
                           "and 'meta' devices")

    def target(self, location: str) -> str:
        got = self._targets.get(location)
        if got is None:
            got = self._targets[location] = self._target(location)
        return got

    def _target(self, location: str) -> str:
        m = self.map_location
        if m is None or self.fn is not None:
            return self._device_type(location, location)
        if isinstance(m, dict):
            mapped = m.get(location, location)
            return self._device_type(mapped, location if mapped == location else None)
        return self._device_type(m, None)


class _StorageSource:
    """Where storage bytes come from: a zip reader, optionally with the file mapped in memory.

    For a real file, storages are allocated while the pickle is interpreted and filled after it
    (``finish``), record by record in file order: each record's local header, then its data, as
    torch reads them. Reading in file order is what keeps a cold load (file not in the page
    cache) at the disk's speed: resolving every record's local header while the pickle was
    interpreted (one small read per tensor, scattered over the file, before any data was read)
    broke the kernel's sequential readahead; the 200 MB benchmark file then took ~190 disk
    requests instead of ~65 (4 MB each, /sys/block/vda/stat), and reading the data as 16 MB
    pieces from 4 threads interleaved over one file position did the same.

    The data is read by ``WORKERS`` threads (``os.preadv`` releases the GIL), each taking one
    contiguous part of the file in order through its own file description, so each stream has its
    own readahead state (the kernel keeps one per description; on this project's kernel, 6.18, a
    shared one measured the same request count, 72 against 73): page faults on the fresh storages
    and copies from the page cache then run on two cores. Measured and not adopted: one thread
    (torch's way: the fewest requests, 60-63, but its faults and copies run on one core);
    prefaulting each piece with madvise(MADV_POPULATE_WRITE) before reading into it (CPU minima
    within noise); POSIX_FADV_SEQUENTIAL/WILLNEED hints (tried with the old order: no fewer
    requests). Where the machine is busy, a load's wall time is mostly the ~51k minor faults of
    200 MB of fresh storage (about 90 ms of CPU at load 10; torch's loader takes as many)."""

    WORKERS = 2                  # threads reading (the caller is one of them)
    PARALLEL_MIN_BYTES = 8 << 20  # less data than this is read by the caller alone
    PIECE = 16 << 20             # a part boundary may fall inside a record at a piece boundary
    OWN_FD = True                # each extra thread reads through its own file description

    def __init__(self, reader: ZipReader, mmap_array=None, big_endian=False, fd=None,
                 verify: bool = False):
        self.reader = reader
        self.mmap_array = mmap_array
        self.big_endian = big_endian
        self.fd = fd
        self.pending: list = []          # (buffer, Record) to fill in ``finish``
        self.swaps: list = []            # (storage, dtype name) to byte-swap once filled
        self.verify = verify
        self.to_verify: list = []        # (record name, its bytes as read from the file)

    def load(self, name: str, nbytes: int, device: str, dtype_name: str, defer: bool = True, rec=None):
        if rec is None:
            rec = self.reader.entry(name)
        deferred = defer and self.fd is not None and rec.method == 0 and device != "meta" \
            and self.mmap_array is None
        if not deferred:
            rec = self.reader.get(name)          # the local header, checked now
        if device == "meta":
            return _tensors.meta_storage(nbytes)
        if self.mmap_array is not None:
            if rec.method != 0:
                raise RuntimeError(f"record {name} is compressed; it cannot be memory-mapped")
            buf = self.mmap_array[rec.data_offset:rec.data_offset + nbytes]
            if self.verify:
                self.reader.check_crc(name, buf)     # before a byte swap changes the mapping
            storage = _tensors.storage_from_buffer(buf)
            if self.big_endian:
                _byteswap(storage, dtype_name)   # private (copy-on-write) mapping
            return storage
        buf = _storage_bytes(nbytes)
        storage = _tensors.storage_from_buffer(buf)
        if self.verify:
            self.to_verify.append((name, buf))
        if deferred:
            self.pending.append((buf, rec))
            if self.big_endian:
                self.swaps.append((storage, dtype_name))
            return storage
        if nbytes:
            self.reader.read_into(name, buf)
        if self.verify:
            self.to_verify.pop()
            self.reader.check_crc(name, buf)         # before the byte swap
        if self.big_endian:
            _byteswap(storage, dtype_name)
        return storage

    def finish(self) -> None:
        self._read_pending()
        if self.to_verify:
            self._verify_pending()
        for storage, dtype_name in self.swaps:
            _byteswap(storage, dtype_name)
        self.swaps.clear()

    def _verify_pending(self) -> None:
        jobs, self.to_verify = self.to_verify, []
        if len(jobs) == 1:
            self.reader.check_crc(*jobs[0])
            return
        with ThreadPoolExecutor(max_workers=2) as ex:   # zlib.crc32 releases the GIL
            list(ex.map(lambda job: self.reader.check_crc(*job), jobs))

    def _read_pending(self) -> None:
        if not self.pending:
            return
        pending = sorted(self.pending, key=lambda job: job[1].header_offset)
        self.pending = []
        pieces = []                      # (buffer, record, start, end), in file order
        for buf, rec in pending:
            n = buf.nbytes
            for start in range(0, max(n, 1), self.PIECE):
                pieces.append((buf, rec, start, min(n, start + self.PIECE)))
        total = sum(buf.nbytes for buf, _ in pending)
        workers = max(1, min(self.WORKERS, os.cpu_count() or 1, len(pieces)))
        if workers == 1 or total < self.PARALLEL_MIN_BYTES:
            self._read_run(pieces, self.fd)
            return
        runs, run, acc = [], [], 0
        for piece in pieces:             # contiguous parts of about total / workers bytes
            run.append(piece)
            acc += piece[3] - piece[2]
            if acc >= total * (len(runs) + 1) / workers and len(runs) < workers - 1:
                runs.append(run)
                run = []
        runs.append(run)
        errors: list = [None] * len(runs)

        def work(i):
            fd = _reopen(self.fd) if self.OWN_FD else None
            try:
                self._read_run(runs[i], self.fd if fd is None else fd)
            except BaseException as e:   # noqa: BLE001 - re-raised by the caller
                errors[i] = e
            finally:
                if fd is not None:
                    os.close(fd)
        threads = [threading.Thread(target=work, args=(i,), daemon=True) for i in range(1, len(runs))]
        for t in threads:
            t.start()
        work(0)
        for t in threads:
            t.join()
        for e in errors:                 # the first error in file order
            if e is not None:
                raise e

    def _read_run(self, pieces, fd) -> None:
        reader = self.reader
        for buf, rec, start, end in pieces:
            if rec.data_offset < 0:      # read right before its data: sequential on the disk
                reader.resolve(rec, os.pread(fd, reader.LOCAL_HEADER_SIZE, rec.header_offset))
            if start == end:
                continue
            mv = memoryview(buf)[start:end]
            off = rec.data_offset + start
            got = 0
            while got < len(mv):
                n = os.preadv(fd, [mv[got:]], off + got)
                if n <= 0:
                    raise RuntimeError("failed reading storage data: unexpected end of file")
                got += n


def _reopen(fd: int):
    """A new file description of the file open as ``fd`` (Linux: through /proc), so that a second
    reading thread has its own readahead state; None where that is not possible or the path no
    longer leads to the same file."""
    try:
        fd2 = os.open(f"/proc/self/fd/{fd}", os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    a, b = os.fstat(fd), os.fstat(fd2)
    if (a.st_dev, a.st_ino) != (b.st_dev, b.st_ino):
        os.close(fd2)
        return None
    return fd2


_MALLOC_MIN_BYTES = 1 << 20
_LIBC = []          # [libc] once looked up, [None] where there is none to call


def _libc():
    if not _LIBC:
        import ctypes
        try:
            libc = ctypes.CDLL(None)
            libc.malloc.restype, libc.malloc.argtypes = ctypes.c_void_p, [ctypes.c_size_t]
            libc.free.restype, libc.free.argtypes = None, [ctypes.c_void_p]
        except (OSError, AttributeError, TypeError):    # no C library to call (Windows)
            libc = None
        _LIBC.append(libc)
    return _LIBC[0]


def _storage_bytes(nbytes: int) -> np.ndarray:
    """A writable uint8 array for a loaded storage. Big ones are malloc'ed, as torch's cpu allocator
    does, not np.empty'd: numpy asks the kernel for transparent huge pages on arrays of 4 MB and more
    (madvise MADV_HUGEPAGE), and where the kernel then compacts memory inside the page faults
    (transparent_hugepage/defrag = madvise, as on this project's machines) loading 200 MB took
    1-3.4 s instead of 0.2-0.6 s. The block is freed when the last array viewing it goes."""
    libc = _libc() if nbytes >= _MALLOC_MIN_BYTES else None
    if libc is None:
        return np.empty(nbytes, dtype=np.uint8)
    import ctypes
    import weakref
    ptr = libc.malloc(nbytes)
    if not ptr:
        raise MemoryError(f"cannot allocate {nbytes} bytes for a storage")
    block = (ctypes.c_uint8 * nbytes).from_address(ptr)
    weakref.finalize(block, libc.free, ptr)
    return np.frombuffer(block, dtype=np.uint8)     # its base is `block`, as are its views'


def _itemsize(dtype_name: str) -> int:
    d = _tensors.dtype_by_name(dtype_name)
    if d is not None:
        return d.itemsize
    if dtype_name in _tensors.ITEMSIZE_FALLBACK:
        return _tensors.ITEMSIZE_FALLBACK[dtype_name]
    raise RuntimeError(f"unknown storage dtype {dtype_name}")


def _byteswap(storage, dtype_name: str) -> None:
    d = _tensors.dtype_by_name(dtype_name)
    arr = _tensors.storage_array(storage)
    if arr is None or d is None or d.itemsize == 1:
        return
    width = d.itemsize // 2 if d.is_complex else d.itemsize
    if width > 1 and arr.nbytes % width == 0:
        v = arr.view(np.dtype(f"u{width}"))
        v.byteswap(inplace=True)


def _check_pid(pid, expected_len: int):
    if not isinstance(pid, tuple) or not pid:
        raise UnpicklingError(f"Only persistent_load of storage is allowed, but got {type(pid)}")
    typename = pid[0]
    if isinstance(typename, bytes):
        typename = typename.decode("ascii", "replace")
    if typename != "storage":
        raise UnpicklingError(f"Only persistent_load of storage is allowed, but got {type(pid[0])}"
                              f" {typename!r}")
    if len(pid) != expected_len:
        raise UnpicklingError(f"storage persistent id must have {expected_len} fields, got {len(pid)}")
    storage_type, key, location, numel = pid[1:5]
    if not isinstance(storage_type, StorageType):
        raise UnpicklingError(f"persistent id names {storage_type!r}, which is not a storage class")
    if isinstance(key, bytes):
        key = key.decode("ascii", "replace")
    if isinstance(location, bytes):
        location = location.decode("ascii", "replace")
    if type(key) is not str or type(location) is not str or type(numel) is not int or numel < 0:
        raise UnpicklingError(f"malformed storage persistent id {pid!r}")
    return storage_type, key, location, numel


def _unpickle(data, pos: int, persistent_load, weights_only: bool, what: str, encoding="utf-8"):
    """Load one pickle from ``data`` at ``pos``; returns (object, position after it)."""
    if weights_only:
        u = RestrictedUnpickler(data, pos, persistent_load, what=what)
        return u.load(), u.pos
    stream = io.BytesIO(data)
    stream.seek(pos)
    u = _FullUnpickler(stream, encoding=encoding)
    u._persistent_load = persistent_load
    return u.load(), stream.tell()


class _FullUnpickler(pickle.Unpickler):
    """weights_only=False: the standard unpickler (which can run arbitrary code), with torch's
    names mapped to ember's objects."""

    def find_class(self, module, name):
        module, name = map_python2_name(module, name)
        full = f"{module}.{name}"
        user = user_globals()
        if full in user:
            return user[full]
        allowed = default_allowlist()
        if full in allowed:
            return allowed[full]
        if module == "torch" or module.startswith("torch."):
            raise UnpicklingError(f"ember cannot load the torch object {full}")
        return super().find_class(module, name)

    def persistent_load(self, pid):
        if self._persistent_load is None:
            raise UnpicklingError("unexpected persistent id")
        return self._persistent_load(pid)


def _load_zip(reader: ZipReader, location: _Location, weights_only: bool, mmap_array,
              encoding: str, fd=None, verify: bool = False):
    if reader.has_record("constants.pkl"):
        raise RuntimeError("this file is a TorchScript archive (it has constants.pkl); "
                           "ember.load cannot read TorchScript")
    version_name = "version" if reader.has_record("version") else ".data/version"
    try:
        version = int(reader.read(version_name).decode("ascii").strip())
    except RuntimeError:
        raise
    except ValueError:
        raise RuntimeError(f"record {version_name} does not hold an integer") from None
    if not 1 <= version <= 10:
        raise RuntimeError(f"unsupported checkpoint version {version} (expected 1..10)")
    big_endian = False
    if reader.has_record("byteorder"):
        bo = reader.read("byteorder").decode("ascii", "replace")
        if bo not in ("little", "big"):
            raise RuntimeError(f"unknown byteorder record {bo!r}")
        big_endian = bo != sys.byteorder
    source = _StorageSource(reader, mmap_array, big_endian, fd, verify)
    loaded: dict[str, LoadedStorage] = {}

    def persistent_load(pid):
        storage_type, key, loc, numel = _check_pid(pid, 5)
        if key in loaded:
            return loaded[key]
        itemsize = _itemsize(storage_type.dtype_name)
        nbytes = numel * itemsize
        name = f"data/{key}"
        rec = reader.entry(name)
        if rec.size != nbytes:
            raise RuntimeError(
                f"record size ({rec.size} bytes) does not match expected size ({nbytes} bytes = "
                f"{numel} elements * {itemsize} bytes/element) for storage {name} "
                f"({storage_type.torch_name})")
        if location.fn is None:
            storage = source.load(name, nbytes, location.target(loc), storage_type.dtype_name, rec=rec)
        else:
            storage = _restore(source, name, nbytes, loc, location, storage_type.dtype_name)
        ls = LoadedStorage(storage, storage_type.dtype_name, key)
        loaded[key] = ls
        return ls

    data_pkl = reader.read("data.pkl")
    obj, _ = _unpickle(data_pkl, 0, persistent_load, weights_only, "data.pkl", encoding)
    source.finish()
    return obj


def _restore(source: _StorageSource, name: str, nbytes: int, loc: str, location: _Location,
             dtype_name: str):
    if location.fn is not None:
        # the callable sees the bytes, so read them now
        storage = source.load(name, nbytes, "cpu", dtype_name, defer=False)
        result = location.fn(storage, loc)
        if result is None:
            dev = _Location._device_type(loc, loc)
            return storage if dev == "cpu" else _tensors.meta_storage(nbytes)
        if not _tensors.is_storage(result):
            raise RuntimeError(f"map_location returned {type(result).__name__}, not a storage")
        return result
    return source.load(name, nbytes, location.target(loc), dtype_name)


def _load_legacy(data: bytes, location: _Location, weights_only: bool, encoding: str):
    pos = 0
    magic, pos = _unpickle(data, pos, None, weights_only, "legacy magic number", encoding)
    if type(magic) is not int or magic != LEGACY_MAGIC_NUMBER:
        raise RuntimeError("Invalid magic number; corrupt file?")
    proto, pos = _unpickle(data, pos, None, weights_only, "legacy protocol version", encoding)
    if proto != LEGACY_PROTOCOL_VERSION:
        raise RuntimeError(f"Invalid protocol version: {proto!r}")
    sys_info, pos = _unpickle(data, pos, None, weights_only, "legacy sys_info", encoding)
    little = sys_info.get("little_endian", True) if isinstance(sys_info, dict) else True
    big_endian = bool(little) != (sys.byteorder == "little")

    storages: dict[str, tuple] = {}

    def persistent_load(pid):
        storage_type, key, loc, numel = _check_pid(pid, 6)
        if pid[5] is not None:
            raise RuntimeError("legacy storage views (pre-0.4 checkpoints) are not supported")
        if key in storages:
            return storages[key][0]
        itemsize = _itemsize(storage_type.dtype_name)
        nbytes = numel * itemsize
        dev = "cpu" if location.fn is not None else location.target(loc)
        st = (_tensors.meta_storage(nbytes) if dev == "meta"
              else _tensors.storage_from_buffer(np.zeros(nbytes, dtype=np.uint8)))
        ls = LoadedStorage(st, storage_type.dtype_name, key)
        storages[key] = (ls, numel, itemsize, loc)
        return ls

    obj, pos = _unpickle(data, pos, persistent_load, weights_only, "legacy object", encoding)
    keys, pos = _unpickle(data, pos, None, weights_only, "legacy storage keys", encoding)
    if type(keys) is not list or not all(type(k) is str for k in keys):
        raise UnpicklingError("legacy storage key list is malformed")
    for key in keys:
        if key not in storages:
            raise RuntimeError(f"legacy file lists storage {key!r} that the object does not use")
        ls, numel, itemsize, loc = storages[key]
        if pos + 8 > len(data):
            raise RuntimeError("legacy file truncated in the storage data")
        count = int.from_bytes(data[pos:pos + 8], "little" if not big_endian else "big",
                               signed=True)
        pos += 8
        if count != numel:
            raise RuntimeError(f"storage has wrong size: expected {numel} got {count}")
        nbytes = numel * itemsize
        if pos + nbytes > len(data):
            raise RuntimeError(f"legacy file truncated: storage {key!r} needs {nbytes} bytes")
        arr = _tensors.storage_array(ls.untyped)
        if arr is not None:
            arr[:] = np.frombuffer(data, dtype=np.uint8, count=nbytes, offset=pos)
            if big_endian:
                _byteswap(ls.untyped, ls.dtype_name)
        pos += nbytes
    if location.fn is not None:
        for ls, _, _, loc in storages.values():
            result = location.fn(ls.untyped, loc)
            if result is not None and result is not ls.untyped:
                raise RuntimeError("map_location callables that replace storages are not "
                                   "supported for legacy-format files")
    return obj


def _open_for_read(f):
    """(stream, path or None, close?)"""
    if _is_path(f):
        path = os.fspath(f)
        if isinstance(path, bytes):
            path = os.fsdecode(path)
        return open(path, "rb"), path, True
    if not callable(getattr(f, "read", None)):
        raise TypeError(f"ember.load expects a path or a binary file object, got {type(f).__name__}")
    seekable = getattr(f, "seekable", None)
    try:
        ok = seekable() if callable(seekable) else (f.seek(0, 1) is not None or True)
    except (OSError, ValueError, AttributeError):
        ok = False
    if not ok:
        return io.BytesIO(f.read()), None, False
    return f, None, False


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None,
         encoding: str = "utf-8", verify_crc: bool = False, **pickle_load_args):
    """Load an object saved by ``torch.save`` or ``ember.save``.

    ``weights_only=True`` (the default) only accepts torch's allowlist of globals (tensors,
    containers, primitive types; extend it with :func:`add_safe_globals`): loading an untrusted
    file never runs code.  ``map_location`` is a device string/object, a dict of location tags,
    or a callable ``(storage, location) -> storage``.  ``mmap=True`` (paths only) maps storages
    from the file instead of reading them.  The CRC-32 of the pickle record is always checked;
    ``verify_crc=True`` (an ember extension) also checks every storage record's CRC-32 against
    the zip directory, so a flipped byte in tensor data raises instead of loading silently: it
    costs one pass of zlib.crc32 over the data on two threads (about 0.5 s per GB measured;
    a 100 MB file from the page cache loads in 0.08 s instead of 0.035 s, and ``mmap=True``
    then reads the whole file).  ``.safetensors`` paths are read with
    :func:`ember.utils.safetensors.load_file`.
    """
    if weights_only is None and pickle_module is not None:
        weights_only = False     # torch: an explicit pickle_module means a full unpickle
    weights_only = _weights_only_default(weights_only)
    if pickle_module is not None:
        if weights_only:
            raise RuntimeError("Can not safely load weights when explicit pickle_module is "
                               "specified")
        if pickle_module is not pickle:
            raise ValueError("ember.load only supports the standard pickle module")
    if pickle_load_args:
        enc = pickle_load_args.pop("encoding", None)
        if pickle_load_args:
            raise TypeError(f"unsupported load arguments: {sorted(pickle_load_args)}")
        encoding = enc or encoding
    location = _Location(map_location)
    if _is_path(f) and os.fspath(f).__str__().endswith(".safetensors"):
        from . import safetensors as _st
        dev = "cpu" if map_location is None or location.fn is not None else \
            _Location._device_type(map_location if not isinstance(map_location, dict) else "cpu", None)
        return _st.load_file(os.fspath(f), device=dev)
    if mmap and not _is_path(f):
        raise ValueError("f must be a file path in order to use the mmap argument")
    stream, path, close = _open_for_read(f)
    try:
        start = stream.tell()
        magic = stream.read(4)
        stream.seek(start)
        if magic == _ZIP_MAGIC:
            if start:
                stream = _Slice(stream, start)
            reader = ZipReader(stream)
            mmap_array = None
            if mmap:
                mmap_array = _map_file(stream)
                reader.use_buffer(mmap_array)
            fd = None
            if path is not None and start == 0 and hasattr(os, "preadv"):
                fd = stream.fileno()
            return _load_zip(reader, location, weights_only, mmap_array, encoding, fd,
                             bool(verify_crc))
        if mmap:
            raise RuntimeError("mmap can only be used with files saved with the zip format "
                               "(ember.save / torch.save since 1.6)")
        data = stream.read()
        if len(data) >= 262 and data[257:262] == b"ustar":
            raise RuntimeError("this is a pre-1.0 torch tar checkpoint, which ember.load cannot read")
        return _load_legacy(data, location, weights_only, encoding)
    finally:
        if close:
            stream.close()


def _map_file(stream) -> np.ndarray:
    """The whole file mapped copy-on-write (writes to a loaded tensor stay in this process, like
    torch's mmap load with MAP_PRIVATE), as a plain uint8 array: its slices are the storages
    (a plain ndarray slices faster than an np.memmap, which runs Python code per slice)."""
    import mmap
    mapping = mmap.mmap(stream.fileno(), 0, access=mmap.ACCESS_COPY)
    return np.frombuffer(mapping, dtype=np.uint8)     # keeps the mapping alive


class _Slice(io.RawIOBase):
    """A view of a stream starting at ``base`` (zip offsets are relative to the archive start)."""

    def __init__(self, f, base: int):
        self._f = f
        self._base = base

    def seek(self, pos, whence=0):
        if whence == 0:
            return self._f.seek(self._base + pos) - self._base
        return self._f.seek(pos, whence) - self._base

    def tell(self):
        return self._f.tell() - self._base

    def read(self, n=-1):
        return self._f.read(n)

    def readinto(self, b):
        return self._f.readinto(b)

    def readable(self):
        return True

    def seekable(self):
        return True


def get_unsafe_globals_in_checkpoint(f) -> list[str]:
    """The GLOBALs of a checkpoint's ``data.pkl`` that ``load(weights_only=True)`` would refuse
    (not in the default allowlist, not added with ``add_safe_globals``).  Parses only."""
    stream, _, close = _open_for_read(f)
    try:
        start = stream.tell()
        magic = stream.read(4)
        stream.seek(start)
        if magic != _ZIP_MAGIC:
            raise ValueError("Expected input to be a checkpoint returned by torch.save")
        if start:
            stream = _Slice(stream, start)
        reader = ZipReader(stream)
        if reader.has_record("constants.pkl"):
            raise ValueError("Expected input to be a checkpoint returned by torch.save but got a "
                             "torch.jit.save-ed file")
        safe = set(default_allowlist()) | set(user_globals())
        return [g for g in globals_in_pickle(reader.read("data.pkl")) if g not in safe]
    finally:
        if close:
            stream.close()
