"""The pickling behind torch.distributed's object collectives (all_gather_object, broadcast_object_list, ...).

torch unpickles whatever a peer sends.  ember's peers are trusted no further than a checkpoint file: objects are
pickled as usual, tensors travel as (dtype, shape, raw bytes) records, and unpickling accepts only plain data
(None, bool, int, float, complex, str, bytes, tuple, list, dict, set, frozenset, OrderedDict, slice, range,
ember dtypes and tensors, numpy arrays of plain dtypes).  Any other global is refused with UnpicklingError.
"""
from __future__ import annotations

import collections
import io
import pickle

import numpy as np

_SAFE = {
    ("builtins", "set"): set, ("builtins", "frozenset"): frozenset, ("builtins", "complex"): complex,
    ("builtins", "slice"): slice, ("builtins", "range"): range, ("builtins", "bytearray"): bytearray,
    ("collections", "OrderedDict"): collections.OrderedDict,
}


class _Pickler(pickle.Pickler):
    def persistent_id(self, obj):
        import ember
        if isinstance(obj, ember.Tensor):
            t = obj.detach()
            a = np.ascontiguousarray(t._np)
            return ("tensor", t.dtype.name, tuple(t.shape), a.tobytes(), bool(obj.requires_grad))
        if isinstance(obj, ember.dtype):
            return ("dtype", obj.name)
        if isinstance(obj, np.ndarray):
            if obj.dtype.kind not in "biufcV" or obj.dtype.hasobject:
                raise pickle.PicklingError(f"cannot send a numpy array of dtype {obj.dtype}")
            return ("ndarray", obj.dtype.str, obj.shape, np.ascontiguousarray(obj).tobytes())
        return None


class _Unpickler(pickle.Unpickler):
    def find_class(self, module, name):
        try:
            return _SAFE[(module, name)]
        except KeyError:
            raise pickle.UnpicklingError(
                f"ember.distributed refuses to unpickle {module}.{name} from a peer: object collectives carry "
                "plain data only (containers, numbers, strings, bytes, tensors, numpy arrays)") from None

    def persistent_load(self, pid):
        import ember

        from .._core import dtype as D
        kind = pid[0]
        if kind == "tensor":
            _, dname, shape, raw, rg = pid
            dt = getattr(D, dname if dname != "bool" else "bool_")
            if not isinstance(dt, ember.dtype):
                raise pickle.UnpicklingError(f"unknown dtype {dname!r}")
            arr = np.frombuffer(bytearray(raw), dtype=dt._np).reshape(shape)
            t = ember.from_numpy(arr)
            return t.requires_grad_(True) if rg else t
        if kind == "dtype":
            dt = getattr(D, pid[1] if pid[1] != "bool" else "bool_", None)
            if not isinstance(dt, ember.dtype):
                raise pickle.UnpicklingError(f"unknown dtype {pid[1]!r}")
            return dt
        if kind == "ndarray":
            _, dstr, shape, raw = pid
            dt = np.dtype(dstr)
            if dt.hasobject:
                raise pickle.UnpicklingError("object arrays are refused")
            return np.frombuffer(bytearray(raw), dtype=dt).reshape(shape)
        raise pickle.UnpicklingError(f"unknown persistent id {kind!r}")


def dumps(obj) -> bytes:
    buf = io.BytesIO()
    _Pickler(buf, protocol=4).dump(obj)
    return buf.getvalue()


def loads(data: bytes):
    return _Unpickler(io.BytesIO(data)).load()
