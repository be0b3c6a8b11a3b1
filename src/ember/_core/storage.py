"""UntypedStorage: a flat, resizable byte buffer on a device (c10/core/StorageImpl.h).

On cpu the bytes live in a 1-D numpy uint8 array (`_data`); on meta there are no bytes, only a size.
Every view of a tensor holds the same storage object. Each cpu tensor caches a numpy view of the
bytes, so when `resize_` has to move the bytes to a bigger buffer, every live tensor on them is
re-pointed at the new buffer, so views keep sharing memory as they do in torch, where the storage is
resized in place. The storage keeps weak references to the tensors made on it by the general
constructors (`_track`); the view ops' fast path (`TensorImpl._cpu_view`, t/view/select/slice on
every call) only sets `_viewed`, as a weak reference per view costs more than the view's geometry
does: a move then finds those tensors by a scan of the collector's objects (`gc.get_referrers`),
which only the rare growing resize of a viewed storage pays.
"""
import gc
import weakref

import numpy as np

from .device import CPU, META, as_device
from .symint import hint_int


class UntypedStorage:
    __slots__ = ("_data", "_nbytes", "device", "_resizable", "_views", "_views_cap", "_viewed", "__weakref__")

    def __init__(self, nbytes=0, device=None):
        dev = as_device(device) or CPU
        if isinstance(nbytes, (bytes, bytearray)):
            self._data = np.frombuffer(bytearray(nbytes), dtype=np.uint8)
            self._nbytes = len(nbytes)
        else:
            nbytes = hint_int(nbytes)        # a symbolic size: a meta storage records its example byte size
            if nbytes < 0:
                raise RuntimeError(f"Storage size must be non-negative, got {nbytes}")
            self._nbytes = nbytes
            self._data = None if dev.type == "meta" else np.zeros(nbytes, dtype=np.uint8)
        self.device = dev
        self._resizable = True
        self._views = []
        self._views_cap = 64
        self._viewed = False

    @classmethod
    def _from_numpy(cls, buf):
        """Wrap a 1-D uint8 array (which may be a memmap) without copying."""
        self = object.__new__(cls)
        self._data = buf
        self._nbytes = buf.shape[0]
        self.device = CPU
        self._resizable = False
        self._views = []
        self._views_cap = 64
        self._viewed = False
        return self

    @classmethod
    def _meta(cls, nbytes):
        self = object.__new__(cls)
        self._data = None
        self._nbytes = hint_int(nbytes)      # symbolic sizes: the example byte size
        self.device = META
        self._resizable = True
        self._views = []
        self._views_cap = 64
        self._viewed = False
        return self

    def _track(self, tensor):
        """Remember (weakly) a cpu tensor whose cached numpy view points into these bytes. Dead
        references are swept when the list reaches twice its size after the last sweep (amortised O(1))."""
        v = self._views
        v.append(weakref.ref(tensor))
        if len(v) >= self._views_cap:
            self._sweep_views()

    def _sweep_views(self):
        v = self._views
        v[:] = [r for r in v if r() is not None]
        self._views_cap = max(64, 2 * len(v))

    def __getstate__(self):
        """Pickle/copy the bytes, not the (process-local, weak) list of views."""
        return {"_data": self._data, "_nbytes": self._nbytes, "device": self.device, "_resizable": self._resizable}

    def __setstate__(self, state):
        for k, v in state.items():
            setattr(self, k, v)
        self._views = []
        self._views_cap = 64
        self._viewed = False

    def _rebind_views(self, old):
        """After the bytes moved from `old` to `self._data`: re-point every live tensor view."""
        live = []
        for r in self._views:
            t = r()
            if t is None:
                continue
            live.append(r)
            if t._np is not None and getattr(t, "_storage", None) is self:
                t._rebind_np(self._data)
        self._views = live
        if self._viewed:
            for t in self._untracked_tensors():
                if t._np is not None:
                    t._rebind_np(self._data)

    def _untracked_tensors(self):
        """The tensors holding this storage, found among the collector's objects (the views `_cpu_view`
        made are not in `_views`); a tensor whose attributes live in a dict of its own is found through it."""
        found = []
        for r in gc.get_referrers(self):
            if r.__class__ is dict and r.get("_storage") is self:
                found += [o for o in gc.get_referrers(r)
                          if hasattr(type(o), "_rebind_np") and getattr(o, "__dict__", None) is r]
            elif hasattr(type(r), "_rebind_np") and getattr(r, "_storage", None) is self:
                found.append(r)
        return found

    def nbytes(self):
        return self._nbytes

    def share_memory_(self, *args, **kwargs):
        """Move the bytes into memory other processes can map (no-op if already there); see shared_memory."""
        from .shared_memory import share
        share(self)
        return self

    def is_shared(self):
        from .shared_memory import is_shared
        return is_shared(self)

    def size(self):
        return self._nbytes

    def __len__(self):
        return self._nbytes

    def data_ptr(self):
        if self._data is None:
            return 0
        return self._data.__array_interface__["data"][0]

    def element_size(self):
        return 1

    @property
    def is_meta(self):
        return self.device.type == "meta"

    def resize_(self, nbytes):
        nbytes = int(nbytes)
        if nbytes < 0:
            raise RuntimeError(f"Storage size must be non-negative, got {nbytes}")
        if not self._resizable:
            raise RuntimeError("Trying to resize storage that is not resizable")
        if self._data is not None and nbytes != self._nbytes:
            old = self._data
            new = np.zeros(nbytes, dtype=np.uint8)
            n = min(nbytes, self._nbytes)
            new[:n] = old[:n]
            self._data = new
            self._nbytes = nbytes
            self._rebind_views(old)
        self._nbytes = nbytes
        return self

    def tolist(self):
        return [] if self._data is None else self._data.tolist()

    def __bytes__(self):
        return b"" if self._data is None else self._data.tobytes()

    def clone(self):
        if self._data is None:
            return UntypedStorage._meta(self._nbytes)
        return UntypedStorage._from_numpy(self._data.copy())

    def copy_(self, other):
        if other.nbytes() != self._nbytes:
            raise RuntimeError(f"size mismatch: storage has {self._nbytes} bytes, source has {other.nbytes()}")
        if self._data is not None and other._data is not None:
            self._data[...] = other._data
        return self

    def fill_(self, value):
        if self._data is not None:
            self._data[...] = value
        return self

    def __repr__(self):
        head = " " + "\n ".join(str(int(b)) for b in self._data[:20]) + ("\n ..." if self._nbytes > 20 else "") \
            if self._data is not None and self._nbytes else ""
        return f"{head}\n[ember.storage.UntypedStorage(device={self.device}) of size {self._nbytes}]"
