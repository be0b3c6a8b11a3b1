"""The one place where serialization touches ember's tensor runtime.

Everything else in ``ember.serialization`` deals in bytes, pickles and names; this module turns
storage records into ``ember.UntypedStorage`` objects and (storage, offset, size, stride, dtype)
into ``ember.Tensor`` views, and answers the questions the saver asks about a tensor.
"""
from __future__ import annotations

import numpy as np

# -- dtype tables (FORMAT.md 4.1) ------------------------------------------------------------

# classic dtypes: pickled as _rebuild_tensor_v2 with a typed storage class
CLASSIC_STORAGE = {
    "float64": "DoubleStorage", "float32": "FloatStorage", "float16": "HalfStorage",
    "bfloat16": "BFloat16Storage", "int64": "LongStorage", "int32": "IntStorage",
    "int16": "ShortStorage", "int8": "CharStorage", "uint8": "ByteStorage", "bool": "BoolStorage",
    "complex128": "ComplexDoubleStorage", "complex64": "ComplexFloatStorage",
}
STORAGE_DTYPE = {v: k for k, v in CLASSIC_STORAGE.items()}
# torch names of element types that have no numpy representation in ember
ITEMSIZE_FALLBACK = {"complex32": 4, "bits8": 1, "bits16": 2, "bits1x8": 1, "bits2x4": 1,
                     "bits4x2": 1, "float8_e8m0fnu": 1, "float4_e2m1fn_x2": 1, "qint8": 1,
                     "quint8": 1, "qint32": 4, "quint4x2": 1, "quint2x4": 1}


def _ember():
    import ember
    return ember


_DTYPE_BY_NAME: dict = {}        # torch dtype name -> ember dtype or None, filled as names are met


def dtype_by_name(name: str):
    """ember dtype for a torch dtype name, or None when ember has no such dtype."""
    try:
        return _DTYPE_BY_NAME[name]
    except KeyError:
        pass
    from ember._core.dtype import dtype_from_name
    try:
        d = dtype_from_name(name)
    except KeyError:
        d = None
    if d is not None and d.name != name:
        d = None
    if type(name) is str and len(_DTYPE_BY_NAME) < 256:
        _DTYPE_BY_NAME[name] = d
    return d


def all_dtypes():
    from ember._core.dtype import ALL_DTYPES
    return ALL_DTYPES


def is_dtype(obj) -> bool:
    from ember._core.dtype import dtype
    return isinstance(obj, dtype)


def is_tensor(obj) -> bool:
    return isinstance(obj, _ember().Tensor)


def is_storage(obj) -> bool:
    return isinstance(obj, _ember().UntypedStorage)


def is_size(obj) -> bool:
    return isinstance(obj, _ember().Size)


def is_device(obj) -> bool:
    return isinstance(obj, _ember().device)


def parameter_class():
    """ember.nn.Parameter once nn exists, else None."""
    try:
        from ember.nn import Parameter
    except Exception:  # nn not built yet
        return None
    return Parameter


def is_parameter(obj) -> bool:
    P = parameter_class()
    if P is not None and isinstance(obj, P):
        return True
    return bool(getattr(type(obj), "_is_param", False)) and is_tensor(obj)


def make_size(items):
    return _ember().Size(items)


def make_device(*args):
    return _ember().device(*args)


# -- storages ---------------------------------------------------------------------------------

_CLASSES: list = []     # [Tensor, UntypedStorage], looked up on first use (ember's runtime loads first)


def _classes():
    if not _CLASSES:
        from ember._core.storage import UntypedStorage
        from ember._tensor import Tensor
        _CLASSES.extend((Tensor, UntypedStorage))
    return _CLASSES


def storage_from_buffer(buf: np.ndarray):
    """Wrap a 1-D uint8 array (owned buffer or a slice of a mapped file) as a cpu storage, no copy."""
    return (_CLASSES or _classes())[1]._from_numpy(buf)


def meta_storage(nbytes: int):
    return _ember().UntypedStorage(nbytes, device="meta")


def storage_nbytes(st) -> int:
    return int(st.nbytes())


def storage_device_type(st) -> str:
    return st.device.type


def storage_array(st):
    """The storage's bytes as a 1-D uint8 numpy array (None on meta)."""
    data = st._data
    if data is None:
        return None
    return data


# -- tensors ----------------------------------------------------------------------------------

def tensor_meta(t):
    """(storage, storage_offset, size, stride, dtype, requires_grad, device_type) of a tensor."""
    return (t.untyped_storage(), int(t.storage_offset()), tuple(int(s) for s in t.size()),
            tuple(int(s) for s in t.stride()), t.dtype, bool(t.requires_grad), t.device.type)


def tensor_flags(t) -> dict:
    """The lazy conj/neg bits torch records in the rebuild metadata."""
    out = {}
    if getattr(t, "is_conj", None) is not None and t.is_conj():
        out["conj"] = True
    if getattr(t, "is_neg", None) is not None and t.is_neg():
        out["neg"] = True
    return out


def parameter_data(p):
    """A plain tensor viewing the Parameter's data (torch pickles ``param.data``)."""
    detach = getattr(p, "detach", None)
    if detach is not None:
        return detach()
    return _ember().Tensor._from_storage(p.untyped_storage(), p.storage_offset(), tuple(p.size()),
                                         tuple(p.stride()), p.dtype)


def _numpy(t):
    try:
        return t.numpy(force=True)
    except TypeError:
        return t.numpy()


def view(storage, offset: int, size: tuple, stride: tuple, dtype):
    return (_CLASSES or _classes())[0]._from_storage(storage, offset, size, stride, dtype)


def set_requires_grad(t, flag: bool):
    if flag:
        t.requires_grad_(True)
    return t


def apply_flags(t, metadata: dict):
    """Apply {'conj': True} / {'neg': True} as torch's _set_tensor_metadata does: the rebuilt view keeps its
    storage and gets the lazy conj / neg bit, so its logical values are the conjugates / negatives."""
    from .._core.dispatch_keys import CONJ_BIT, NEG_BIT
    if metadata.get("conj"):
        t._ks |= CONJ_BIT
    if metadata.get("neg"):
        t._ks |= NEG_BIT
    return t


def _contiguous_strides(size):
    strides = []
    acc = 1
    for s in reversed(size):
        strides.append(acc)
        acc *= max(s, 1)
    return tuple(reversed(strides))


def make_parameter(t, requires_grad: bool):
    P = parameter_class()
    if P is None:
        return set_requires_grad(t, requires_grad)
    return P(t, requires_grad=requires_grad)


def check_python_attr(obj, name) -> str | None:
    """Why a checkpoint may not set attribute ``name`` on ``obj`` (None when it may).

    torch's ``_set_obj_state`` sets a rebuilt tensor's pickled ``__dict__`` entries with
    ``setattr``; on a torch tensor they land beside the C++ TensorImpl, so they can never change
    its sizes, strides, offset or storage.  ember keeps those in the Python object itself, so only
    names that cannot reach them are accepted: not private (ember's internal fields all start with
    ``_``: ``_size``, ``_stride``, ``_offset``, ``_storage``, ``_np``, ...), not a dunder such as
    ``__dict__``/``__class__``, not anything defined on the class (methods, properties, class
    defaults such as ``grad_fn``) and not a field the instance already holds (``dtype``)."""
    if type(name) is not str or not name.isidentifier():
        return "attribute names must be identifiers"
    if name.startswith("_"):
        return "private and special attributes hold ember's internal state"
    if any(name in vars(c) for c in type(obj).__mro__):
        return f"{name!r} is defined by {type(obj).__name__} itself"
    d = getattr(obj, "__dict__", None)
    if d is None or name in d:
        return f"{name!r} is one of {type(obj).__name__}'s own fields"
    return None


def set_python_attrs(obj, state: dict, refuse):
    """Set a checkpoint's plain attributes on a rebuilt tensor or parameter (torch's
    ``_set_obj_state``), all or none: every name is checked before anything is set, and
    ``refuse(message)`` builds the exception for the first one that may not be set.
    ``requires_grad`` is the one property torch's setter accepts here (a bool)."""
    plain = {}
    requires_grad = None
    for k, v in state.items():
        if k == "requires_grad" and type(v) is bool:
            requires_grad = v
            continue
        why = check_python_attr(obj, k)
        if why is not None:
            raise refuse(f"the checkpoint sets attribute {k!r} of a {type(obj).__name__}, which "
                         f"ember refuses: {why}")
        plain[k] = v
    if requires_grad is not None:
        obj.requires_grad_(requires_grad)
    obj.__dict__.update(plain)
    return obj


def contiguous_bytes(t):
    """The tensor's elements as a contiguous uint8 array (for safetensors)."""
    arr = np.ascontiguousarray(_numpy(t))
    return arr.reshape(-1).view(np.uint8)
