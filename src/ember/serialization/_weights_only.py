"""The weights-only unpickler: an opcode interpreter that never imports or calls anything
outside a fixed allowlist (FORMAT.md section 5, torch 2.13's rules).

``GLOBAL module name`` is looked up in a dictionary of torch names -> ember objects (plus the
names the user registered with :func:`add_safe_globals`).  Nothing is imported by name, no
attribute is fetched by name, and only the 34 opcodes torch interprets are accepted.
"""
from __future__ import annotations

import _compat_pickle
import codecs
import contextlib
import pickle
import struct
import threading
from collections import Counter, OrderedDict
from pickle import UnpicklingError

from . import _tensors

__all__ = ["add_safe_globals", "clear_safe_globals", "get_safe_globals", "safe_globals",
           "RestrictedUnpickler", "globals_in_pickle"]

_BLOCKED_MODULES = ("sys", "os", "posix", "nt")


# =============================================================================================
# objects the allowlisted names stand for
# =============================================================================================

class StorageType:
    """Stands for torch.FloatStorage, torch.storage.UntypedStorage, ... inside persistent ids."""

    def __init__(self, torch_name: str, dtype_name: str, device_type: str = "cpu"):
        self.torch_name = torch_name
        self.dtype_name = dtype_name
        self.device_type = device_type

    def __repr__(self):
        return f"<storage class {self.torch_name}>"

    def __call__(self, *args, **kwargs):
        raise UnpicklingError(f"ember does not construct {self.torch_name} objects from pickles")


class TorchMarker:
    """An allowlisted torch name that ember accepts in a GLOBAL but does not call
    (torch.Tensor as the type of a rebuilt subclass, legacy tensor types, qschemes...)."""

    def __init__(self, torch_name: str):
        self.torch_name = torch_name

    def __repr__(self):
        return f"<torch {self.torch_name}>"

    def __call__(self, *args, **kwargs):
        raise UnpicklingError(f"ember does not support calling {self.torch_name} while loading")


class MissingDtype:
    """A torch dtype that ember does not implement (int4, qint8, complex32, ...)."""

    def __init__(self, name: str):
        self.name = name

    def __repr__(self):
        return f"<torch dtype {self.name} (not available in ember)>"

    def __call__(self, *args, **kwargs):
        raise UnpicklingError(f"torch.{self.name} is not callable")


class LoadedStorage:
    """What a persistent id resolves to: the bytes plus the dtype named by its storage class."""

    __slots__ = ("untyped", "dtype_name", "key", "nbytes")

    def __init__(self, untyped, dtype_name: str, key: str):
        self.untyped = untyped
        self.dtype_name = dtype_name
        self.key = key
        self.nbytes = _tensors.storage_nbytes(untyped)


TENSOR_TYPE = TorchMarker("Tensor")
PARAMETER_TYPE = TorchMarker("nn.parameter.Parameter")


def _unsupported(name):
    def fn(*args, **kwargs):
        raise RuntimeError(f"ember cannot rebuild objects saved with torch.{name} "
                           "(quantized, sparse, nested or device-specific tensors are not supported)")
    fn.__name__ = name.rsplit(".", 1)[-1]
    return fn


def _check_int(name, v):
    if type(v) is not int:
        raise RuntimeError(f"{name} must be an int, got {type(v).__name__}")
    return v


def _check_shape(name, seq):
    if not isinstance(seq, (tuple, list)):
        raise RuntimeError(f"{name} must be a tuple of ints, got {type(seq).__name__}")
    for v in seq:
        _check_int(name, v)
    return tuple(seq)


def _view_checked(storage, storage_offset, size, stride, dtype):
    """torch's Tensor.set_ checks: non-negative offset/sizes/strides, the view inside storage."""
    if type(storage) is not LoadedStorage:
        raise UnpicklingError(f"expected a storage from a persistent id, got {type(storage).__name__}")
    _check_int("storage_offset", storage_offset)
    size = size if type(size) is tuple else _check_shape("size", size)
    stride = stride if type(stride) is tuple else _check_shape("stride", stride)
    if len(size) != len(stride):
        raise RuntimeError(f"mismatch in length of strides and shape: size {size}, stride {stride}")
    if storage_offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {storage_offset}")
    # one pass: every entry an int (bool is not), sizes and strides >= 0, the last element's index
    last = storage_offset
    empty = False
    for n, st in zip(size, stride):
        if type(n) is not int:
            _check_int("size", n)
        if type(st) is not int:
            _check_int("stride", st)
        if n < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension: {size}")
        if st < 0:
            raise RuntimeError(f"as_strided: Negative strides are not supported at the moment, got {stride}")
        if n == 0:
            empty = True
        last += (n - 1) * st
    itemsize = dtype.itemsize
    nbytes = storage.nbytes
    needed = 0 if empty else (last + 1) * itemsize
    if needed > nbytes:
        raise RuntimeError(
            f"Trying to resize storage that is not resizable: the view (offset {storage_offset}, "
            f"size {size}, stride {stride}, {dtype.name}) needs {needed} bytes but storage "
            f"{storage.key!r} has {nbytes}")
    return _tensors.view(storage.untyped, storage_offset, size, stride, dtype)


def _storage_dtype(storage):
    if not isinstance(storage, LoadedStorage):
        raise UnpicklingError(f"expected a storage from a persistent id, got {type(storage).__name__}")
    d = _tensors.dtype_by_name(storage.dtype_name)
    if d is None:
        raise RuntimeError(f"ember has no dtype {storage.dtype_name!r} (storage {storage.key!r})")
    return d


def _rebuild_tensor(storage, storage_offset, size, stride):
    return _view_checked(storage, storage_offset, size, stride, _storage_dtype(storage))


def _finish(t, requires_grad, metadata):
    if type(requires_grad) is not bool:
        raise RuntimeError("requires_grad must be a bool")
    if metadata is not None:
        if not isinstance(metadata, dict):
            raise RuntimeError("tensor metadata must be a dict")
        t = _tensors.apply_flags(t, metadata)
    return _tensors.set_requires_grad(t, requires_grad)


def _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, backward_hooks,
                       metadata=None):
    t = _rebuild_tensor(storage, storage_offset, size, stride)
    return _finish(t, requires_grad, metadata)


def _rebuild_tensor_v3(storage, storage_offset, size, stride, requires_grad, backward_hooks,
                       dtype, metadata=None):
    if isinstance(dtype, MissingDtype):
        raise RuntimeError(f"ember has no dtype {dtype.name!r}")
    if not _tensors.is_dtype(dtype):
        raise RuntimeError(f"_rebuild_tensor_v3 expects a dtype, got {type(dtype).__name__}")
    t = _view_checked(storage, storage_offset, size, stride, dtype)
    return _finish(t, requires_grad, metadata)


def _rebuild_parameter(data, requires_grad, backward_hooks):
    if not _tensors.is_tensor(data) or type(requires_grad) is not bool:
        raise RuntimeError("_rebuild_parameter expects (tensor, bool, hooks)")
    return _tensors.make_parameter(data, requires_grad)


def _rebuild_parameter_with_state(data, requires_grad, backward_hooks, state):
    p = _rebuild_parameter(data, requires_grad, backward_hooks)
    return _set_state(p, state)


def _set_state(obj, state):
    if state is None:
        return obj
    if isinstance(state, tuple):
        if len(state) != 2:
            raise RuntimeError(f"Invalid serialized state: a tuple of {len(state)} items "
                               "(expected (dict_state, slots_state))")
        dict_state, slots = state
        for part in (dict_state, slots):
            if part:
                _set_state(obj, part)
        return obj
    if not isinstance(state, dict) or not all(type(k) is str for k in state):
        raise RuntimeError("object state must be a dict with str keys")
    return _tensors.set_python_attrs(obj, state, _refused)


def _refused(msg: str) -> UnpicklingError:
    return UnpicklingError(f"Weights only load failed: {msg}. Nothing was set or executed.")


def _rebuild_from_type_v2(func, new_type, args, state):
    if func not in (_rebuild_tensor_v2, _rebuild_tensor_v3, _rebuild_parameter,
                    _rebuild_parameter_with_state, _rebuild_tensor):
        raise UnpicklingError(f"_rebuild_from_type_v2 with an unsupported function {func!r}")
    if not isinstance(args, tuple):
        raise RuntimeError("_rebuild_from_type_v2 expects an argument tuple")
    ret = func(*args)
    if new_type is PARAMETER_TYPE and not _tensors.is_parameter(ret):
        ret = _tensors.make_parameter(ret, ret.requires_grad)
    elif new_type is not TENSOR_TYPE and new_type is not PARAMETER_TYPE:
        raise UnpicklingError(f"tensor subclass {new_type!r} is not supported by ember")
    return _set_state(ret, state)


def _rebuild_meta_tensor_no_storage(dtype, size, stride, requires_grad):
    if not _tensors.is_dtype(dtype):
        raise RuntimeError("_rebuild_meta_tensor_no_storage expects a dtype")
    size = _check_shape("size", size)
    stride = _check_shape("stride", stride)
    if len(size) != len(stride) or any(s < 0 for s in size + stride):
        raise RuntimeError(f"invalid meta tensor geometry: size {size}, stride {stride}")
    numel = 1
    for s in size:
        numel *= s
    nbytes = (sum((n - 1) * st for n, st in zip(size, stride)) + 1) * dtype.itemsize if numel else 0
    storage = LoadedStorage(_tensors.meta_storage(nbytes), dtype.name, "<meta>")
    return _finish(_view_checked(storage, 0, size, stride, dtype), requires_grad, None)


def _size(*args):
    if len(args) != 1:
        raise RuntimeError("torch.Size expects one tuple")
    return _tensors.make_size(_check_shape("torch.Size", args[0]))


def _device(*args):
    if not 1 <= len(args) <= 2 or type(args[0]) is not str or (
            len(args) == 2 and args[1] is not None and type(args[1]) is not int):
        raise RuntimeError(f"torch.device expects (str[, int]), got {args!r}")
    return _tensors.make_device(*args)


_TEXT_ENCODINGS = {"latin1", "latin-1", "iso-8859-1", "iso8859-1", "l1", "utf-8", "utf8", "ascii"}


def _codecs_encode(obj, encoding="utf-8", errors="strict"):
    if type(obj) is not str or type(encoding) is not str or encoding.lower() not in _TEXT_ENCODINGS:
        raise UnpicklingError(f"_codecs.encode is only allowed for text encodings, got {encoding!r}")
    if errors not in ("strict", "surrogatepass"):
        raise UnpicklingError(f"_codecs.encode: unsupported error handler {errors!r}")
    return codecs.encode(obj, encoding, errors)


def _bytearray(*args):
    if not args:
        return bytearray()
    if len(args) == 1 and type(args[0]) is bytes:
        return bytearray(args[0])
    if len(args) == 2 and type(args[0]) is str:
        return bytearray(_codecs_encode(args[0], args[1]))
    raise UnpicklingError("bytearray() while loading only accepts bytes")


def _set(*args):
    if not args:
        return set()
    if len(args) == 1 and type(args[0]) in (list, tuple, set):
        return set(args[0])
    raise UnpicklingError("set() while loading only accepts a list")


def _complex(real=0.0, imag=0.0):
    if type(real) not in (int, float) or type(imag) not in (int, float):
        raise UnpicklingError("complex() while loading only accepts two numbers")
    return complex(real, imag)


def _get_layout(name):
    raise RuntimeError(f"ember does not support tensor layout {name!r} (sparse tensors)")


# =============================================================================================
# the allowlist
# =============================================================================================

_QUANT_STORAGES = ("QInt8", "QInt32", "QUInt8", "QUInt4x2", "QUInt2x4")
_QUANT_DTYPES = {"QInt8": "qint8", "QInt32": "qint32", "QUInt8": "quint8", "QUInt4x2": "quint4x2",
                 "QUInt2x4": "quint2x4"}
_DTYPE_NAMES = (
    "float16", "float32", "float64", "bfloat16", "complex32", "complex64", "complex128", "bool",
    "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    *[f"int{i}" for i in range(1, 8)], *[f"uint{i}" for i in range(1, 8)],
    "float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz", "float8_e8m0fnu",
    "float4_e2m1fn_x2", "bits8", "bits16", "bits1x8", "bits2x4", "bits4x2",
    "qint8", "qint32", "quint8", "quint4x2", "quint2x4",
)
_LEGACY_TENSOR_KINDS = ("Double", "Float", "Half", "BFloat16", "Long", "Int", "Short", "Char",
                        "Byte", "Bool")

_allowed_lock = threading.Lock()
_allowed: dict[str, object] | None = None
_allowed_callables: dict[int, object] = {}
_allowed_classes: tuple = (OrderedDict, Counter, set, complex, bytearray)


def default_allowlist() -> dict[str, object]:
    """torch name -> ember object for torch 2.13's default weights_only allowlist."""
    global _allowed
    if _allowed is not None:
        return _allowed
    with _allowed_lock:
        if _allowed is not None:
            return _allowed
        a: dict[str, object] = {
            "collections.OrderedDict": OrderedDict,
            "collections.Counter": Counter,
            "torch.nn.parameter.Parameter": PARAMETER_TYPE,
            "torch.Tensor": TENSOR_TYPE,
            "torch.Size": _size,
            "torch.device": _device,
            "torch.serialization._get_layout": _get_layout,
            "_codecs.encode": _codecs_encode,
            "builtins.bytearray": _bytearray,
            "builtins.set": _set,
            "builtins.complex": _complex,
            "torch._utils._rebuild_tensor": _rebuild_tensor,
            "torch._utils._rebuild_tensor_v2": _rebuild_tensor_v2,
            "torch._utils._rebuild_tensor_v3": _rebuild_tensor_v3,
            "torch._utils._rebuild_parameter": _rebuild_parameter,
            "torch._utils._rebuild_parameter_with_state": _rebuild_parameter_with_state,
            "torch._utils._rebuild_meta_tensor_no_storage": _rebuild_meta_tensor_no_storage,
            "torch._tensor._rebuild_from_type_v2": _rebuild_from_type_v2,
        }
        for name in ("_rebuild_qtensor", "_rebuild_sparse_tensor", "_rebuild_nested_tensor",
                     "_rebuild_wrapper_subclass", "_rebuild_device_tensor_from_numpy",
                     "_rebuild_device_tensor_from_cpu_tensor"):
            a["torch._utils." + name] = _unsupported("_utils." + name)
        for name in _DTYPE_NAMES:
            a["torch." + name] = _tensors.dtype_by_name(name) or MissingDtype(name)
        for dtype_name, cls in _tensors.CLASSIC_STORAGE.items():
            a[f"torch.{cls}"] = StorageType(f"torch.{cls}", dtype_name)
            a[f"torch.cuda.{cls}"] = StorageType(f"torch.cuda.{cls}", dtype_name, "cuda")
        for q in _QUANT_STORAGES:
            a[f"torch.{q}Storage"] = StorageType(f"torch.{q}Storage", _QUANT_DTYPES[q])
        a["torch.storage.UntypedStorage"] = StorageType("torch.storage.UntypedStorage", "uint8")
        a["torch.storage.TypedStorage"] = TorchMarker("storage.TypedStorage")
        for kind in _LEGACY_TENSOR_KINDS:
            for prefix in ("torch.", "torch.cuda."):
                a[f"{prefix}{kind}Tensor"] = TorchMarker(f"{prefix[6:]}{kind}Tensor")
            if kind != "Bool":
                for prefix in ("torch.sparse.", "torch.cuda.sparse."):
                    a[f"{prefix}{kind}Tensor"] = TorchMarker(f"{prefix[6:]}{kind}Tensor")
        for q in ("per_tensor_affine", "per_tensor_symmetric", "per_channel_affine",
                  "per_channel_symmetric", "per_channel_affine_float_qparams"):
            a["torch." + q] = TorchMarker(q)
        _allowed_callables.update({id(v): v for v in a.values() if callable(v)})
        _allowed = a
    return _allowed


# -- user additions (torch.serialization.add_safe_globals & co) --------------------------------

_user_globals: dict[str, object] = {}
_user_lock = threading.RLock()


def _name_of(obj) -> str:
    module = getattr(obj, "__module__", None)
    name = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None)
    if not module or not name:
        raise TypeError(f"cannot determine the name of {obj!r}; pass (obj, 'module.name')")
    return f"{module}.{name}"


def _entries(safe_globals):
    out = {}
    for g in safe_globals:
        if isinstance(g, tuple):
            if len(g) != 2 or not isinstance(g[1], str):
                raise TypeError("safe global tuples must be (object, 'module.name')")
            out[g[1]] = g[0]
        else:
            out[_name_of(g)] = g
    return out


def add_safe_globals(safe_globals: list) -> None:
    """Allow these functions/classes in ``load(weights_only=True)``.  Entries are objects (named
    ``module.qualname``) or ``(object, "module.name")`` tuples naming the GLOBAL to accept."""
    with _user_lock:
        _user_globals.update(_entries(safe_globals))


def get_safe_globals() -> list:
    """The user-added safe globals (objects, or (object, name) when registered under a name
    different from the object's own)."""
    with _user_lock:
        out = []
        for name, obj in _user_globals.items():
            try:
                own = _name_of(obj)
            except TypeError:
                own = None
            out.append(obj if own == name else (obj, name))
        return out


def clear_safe_globals() -> None:
    with _user_lock:
        _user_globals.clear()


@contextlib.contextmanager
def safe_globals(safe_globals: list):
    """Context manager: the given globals are allowed inside the ``with`` block only."""
    with _user_lock:
        saved = dict(_user_globals)
        _user_globals.update(_entries(safe_globals))
    try:
        yield
    finally:
        with _user_lock:
            _user_globals.clear()
            _user_globals.update(saved)


def user_globals() -> dict[str, object]:
    with _user_lock:
        return dict(_user_globals)


def map_python2_name(module: str, name: str) -> tuple[str, str]:
    if (module, name) in _compat_pickle.NAME_MAPPING:
        return _compat_pickle.NAME_MAPPING[(module, name)]
    if module in _compat_pickle.IMPORT_MAPPING:
        return _compat_pickle.IMPORT_MAPPING[module], name
    return module, name


def _is_blocked(module: str) -> bool:
    return module in _BLOCKED_MODULES or module.split(".", 1)[0] in _BLOCKED_MODULES


# =============================================================================================
# the interpreter
# =============================================================================================

_OPNAMES = {
    0x80: "PROTO", 0x2E: "STOP", 0x28: "MARK", 0x63: "GLOBAL", 0x52: "REDUCE", 0x62: "BUILD",
    0x81: "NEWOBJ", 0x51: "BINPERSID", 0x61: "APPEND", 0x65: "APPENDS", 0x73: "SETITEM",
    0x75: "SETITEMS", 0x74: "TUPLE", 0x85: "TUPLE1", 0x86: "TUPLE2", 0x87: "TUPLE3",
    0x29: "EMPTY_TUPLE", 0x5D: "EMPTY_LIST", 0x7D: "EMPTY_DICT", 0x8F: "EMPTY_SET", 0x4E: "NONE",
    0x88: "NEWTRUE", 0x89: "NEWFALSE", 0x4A: "BININT", 0x4B: "BININT1", 0x4D: "BININT2",
    0x8A: "LONG1", 0x47: "BINFLOAT", 0x58: "BINUNICODE", 0x55: "SHORT_BINSTRING", 0x71: "BINPUT",
    0x72: "LONG_BINPUT", 0x68: "BINGET", 0x6A: "LONG_BINGET",
}

_unpack_i = struct.Struct("<i").unpack_from
_unpack_I = struct.Struct("<I").unpack_from
_unpack_H = struct.Struct("<H").unpack_from
_unpack_d = struct.Struct(">d").unpack_from


class _Truncated(Exception):
    pass


class RestrictedUnpickler:
    """Interprets one pickle from ``data`` starting at ``pos`` (``self.pos`` is just past STOP
    afterwards, so back-to-back pickles of the legacy format can be read one after another)."""

    def __init__(self, data, pos: int = 0, persistent_load=None, what: str = "data.pkl"):
        self.data = memoryview(data).cast("B") if not isinstance(data, bytes) else data
        self.pos = pos
        self.persistent_load = persistent_load
        self.what = what
        self.allowed = default_allowlist()
        self.user = user_globals()
        self.user_callables = {id(v): v for v in self.user.values()}
        # what REDUCE may call: torch's allowlist and the user's safe globals, by identity
        self.callables = {**_allowed_callables, **self.user_callables} if self.user_callables \
            else _allowed_callables

    def _error(self, msg: str) -> UnpicklingError:
        return UnpicklingError(f"Weights only load failed ({self.what}): {msg}. "
                               "ember.load(weights_only=True) refuses it; nothing was executed. "
                               "Re-run with weights_only=False only if you trust the file's source.")

    def _readline(self) -> str:
        data = self.data
        p = self.pos
        limit = min(len(data), p + 4096)
        for i in range(p, limit):
            if data[i] == 0x0A:
                self.pos = i + 1
                return bytes(data[p:i]).decode("utf-8")
        raise _Truncated()

    def load(self):
        try:
            return self._load()
        except _Truncated:
            raise self._error("pickle data was truncated") from None
        except (UnpicklingError, RuntimeError):
            raise
        except RecursionError:
            raise self._error("object nesting too deep") from None
        except (IndexError, KeyError, TypeError, ValueError, AttributeError, OverflowError,
                struct.error, UnicodeDecodeError, MemoryError) as e:
            raise self._error(f"malformed pickle ({type(e).__name__}: {e})") from None

    def _load(self):
        # The loop keeps the read position in a local (``self.pos`` is written back at STOP and
        # around GLOBAL) and tests the opcodes in the order of how often a state dict's pickle
        # uses them (LONG_BINPUT, BINGET, BININT2, BINUNICODE, REDUCE, MARK, TUPLE, ...): a
        # 273-tensor state dict has 8k opcodes, so the interpreter's per-opcode cost is most of
        # an mmap load.
        data = self.data
        stack: list = []
        metastack: list = []
        memo: dict = {}
        n = len(data)
        pos = self.pos
        append = stack.append

        def pop_mark():
            nonlocal stack, append
            items = stack
            if not metastack:
                raise self._error("MARK expected on the stack")
            stack = metastack.pop()
            append = stack.append
            return items

        while True:
            if pos >= n:
                raise _Truncated()
            op = data[pos]
            pos += 1
            if op == 0x72:  # LONG_BINPUT
                if pos + 4 > n:
                    raise _Truncated()
                (idx,) = _unpack_I(data, pos)
                pos += 4
                if not stack:
                    raise self._error("LONG_BINPUT on an empty stack")
                memo[idx] = stack[-1]
            elif op == 0x68:  # BINGET
                if pos >= n:
                    raise _Truncated()
                idx = data[pos]
                pos += 1
                if idx not in memo:
                    raise self._error(f"memo key {idx} missing")
                append(memo[idx])
            elif op == 0x4D:  # BININT2
                if pos + 2 > n:
                    raise _Truncated()
                append(data[pos] | (data[pos + 1] << 8))
                pos += 2
            elif op == 0x58:  # BINUNICODE
                if pos + 4 > n:
                    raise _Truncated()
                (ln,) = _unpack_I(data, pos)
                pos += 4
                if pos + ln > n:
                    raise _Truncated()
                append(str(data[pos:pos + ln], "utf-8", "surrogatepass"))
                pos += ln
            elif op == 0x52:  # REDUCE
                args = stack.pop()
                func = stack[-1]
                stack[-1] = self._call(func, args)
            elif op == 0x28:  # MARK
                metastack.append(stack)
                stack = []
                append = stack.append
            elif op == 0x74:  # TUPLE
                items = pop_mark()
                append(tuple(items))
            elif op == 0x4B:  # BININT1
                if pos >= n:
                    raise _Truncated()
                append(data[pos])
                pos += 1
            elif op == 0x85:  # TUPLE1
                stack[-1] = (stack[-1],)
            elif op == 0x29:  # EMPTY_TUPLE
                append(())
            elif op == 0x51:  # BINPERSID
                pid = stack.pop()
                if self.persistent_load is None:
                    raise self._error("persistent ids are not allowed here")
                append(self.persistent_load(pid))
            elif op == 0x89:  # NEWFALSE
                append(False)
            elif op == 0x71:  # BINPUT
                if pos >= n:
                    raise _Truncated()
                if not stack:
                    raise self._error("BINPUT on an empty stack")
                memo[data[pos]] = stack[-1]
                pos += 1
            elif op == 0x86:  # TUPLE2
                if len(stack) < 2:
                    raise self._error("TUPLE2 needs two items")
                b = stack.pop()
                stack[-1] = (stack[-1], b)
            elif op == 0x4A:  # BININT
                if pos + 4 > n:
                    raise _Truncated()
                (v,) = _unpack_i(data, pos)
                pos += 4
                append(v)
            elif op == 0x87:  # TUPLE3
                if len(stack) < 3:
                    raise self._error("TUPLE3 needs three items")
                c = stack.pop()
                b = stack.pop()
                stack[-1] = (stack[-1], b, c)
            elif op == 0x5D:  # EMPTY_LIST
                append([])
            elif op == 0x7D:  # EMPTY_DICT
                append({})
            elif op == 0x8F:  # EMPTY_SET
                append(set())
            elif op == 0x4E:  # NONE
                append(None)
            elif op == 0x88:  # NEWTRUE
                append(True)
            elif op == 0x47:  # BINFLOAT
                if pos + 8 > n:
                    raise _Truncated()
                (v,) = _unpack_d(data, pos)
                pos += 8
                append(v)
            elif op == 0x8A:  # LONG1
                if pos >= n:
                    raise _Truncated()
                ln = data[pos]
                pos += 1
                if pos + ln > n:
                    raise _Truncated()
                append(int.from_bytes(data[pos:pos + ln], "little", signed=True))
                pos += ln
            elif op == 0x55:  # SHORT_BINSTRING
                if pos >= n:
                    raise _Truncated()
                ln = data[pos]
                pos += 1
                if pos + ln > n:
                    raise _Truncated()
                append(str(data[pos:pos + ln], "utf-8"))
                pos += ln
            elif op == 0x6A:  # LONG_BINGET
                if pos + 4 > n:
                    raise _Truncated()
                (idx,) = _unpack_I(data, pos)
                pos += 4
                if idx not in memo:
                    raise self._error(f"memo key {idx} missing")
                append(memo[idx])
            elif op == 0x61:  # APPEND
                item = stack.pop()
                target = stack[-1]
                if type(target) is not list:
                    raise self._error(f"can only APPEND to lists, but got {type(target).__name__}")
                target.append(item)
            elif op == 0x65:  # APPENDS
                items = pop_mark()
                target = stack[-1]
                if type(target) is not list:
                    raise self._error(f"can only APPENDS to lists, but got {type(target).__name__}")
                target.extend(items)
            elif op == 0x73:  # SETITEM
                v = stack.pop()
                k = stack.pop()
                target = stack[-1]
                if type(target) not in (dict, OrderedDict, Counter):
                    raise self._error(f"can only SETITEM into dict, OrderedDict or Counter, but got "
                                      f"{type(target).__name__}")
                target[k] = v
            elif op == 0x75:  # SETITEMS
                items = pop_mark()
                target = stack[-1]
                if type(target) not in (dict, OrderedDict, Counter):
                    raise self._error(f"can only SETITEMS into dict, OrderedDict or Counter, but got "
                                      f"{type(target).__name__}")
                if len(items) % 2:
                    raise self._error("SETITEMS with an odd number of items")
                for i in range(0, len(items), 2):
                    target[items[i]] = items[i + 1]
            elif op == 0x63:  # GLOBAL
                self.pos = pos
                module = self._readline()
                name = self._readline()
                pos = self.pos
                append(self._resolve_global(module, name))
            elif op == 0x81:  # NEWOBJ
                args = stack.pop()
                cls = stack[-1]
                stack[-1] = self._newobj(cls, args)
            elif op == 0x62:  # BUILD
                state = stack.pop()
                self._build(stack[-1], state)
            elif op == 0x80:  # PROTO
                if pos >= n:
                    raise _Truncated()
                pos += 1
            elif op == 0x2E:  # STOP
                if len(stack) != 1 or metastack:
                    raise self._error("malformed pickle: STOP with an unbalanced stack")
                self.pos = pos
                return stack[0]
            else:
                raise self._error(f"Unsupported operand {op} ({_opname(op)})")

    # -- the checked operations -------------------------------------------------------------
    def _resolve_global(self, module: str, name: str):
        module, name = map_python2_name(module, name)
        full = f"{module}.{name}"
        if _is_blocked(module):
            raise self._error(
                f"Trying to load unsupported GLOBAL {full} whose module {module} is blocked")
        if full in self.user:
            return self.user[full]
        if full in self.allowed:
            return self.allowed[full]
        shown = name if module == "builtins" else full
        raise self._error(
            f"Unsupported global: GLOBAL {shown} was not an allowed global by default. Please use "
            f"`ember.serialization.add_safe_globals([{shown}])` or the "
            f"`ember.serialization.safe_globals([{shown}])` context manager to allowlist this "
            "global if you trust this class/function")

    def _call(self, func, args):
        if not isinstance(args, tuple):
            raise self._error("REDUCE arguments must be a tuple")
        if id(func) not in self.callables:
            raise self._error(f"Trying to call reduce for unrecognized function {func!r}")
        try:
            return func(*args)
        except (UnpicklingError, RuntimeError):
            raise
        except Exception as e:  # an allowed callable refused its arguments
            raise self._error(f"calling {getattr(func, '__name__', func)!r} failed: "
                              f"{type(e).__name__}: {e}") from None

    def _newobj(self, cls, args):
        if not isinstance(args, tuple):
            raise self._error("NEWOBJ arguments must be a tuple")
        if cls is PARAMETER_TYPE:
            if not args or not _tensors.is_tensor(args[0]):
                raise self._error("NEWOBJ of Parameter needs a tensor")
            return _tensors.make_parameter(args[0], bool(args[1]) if len(args) > 1 else True)
        if isinstance(cls, type) and (id(cls) in self.user_callables or cls in _allowed_classes):
            try:
                return cls.__new__(cls, *args)
            except Exception as e:
                raise self._error(f"NEWOBJ of {cls.__name__} failed: {e}") from None
        raise self._error(f"Trying to instantiate unsupported class {cls!r}")

    def _build(self, inst, state):
        if type(inst) is OrderedDict:
            if not isinstance(state, dict):
                raise self._error("BUILD state of an OrderedDict must be a dict")
            inst.__dict__.update(state)
        elif _tensors.is_parameter(inst):
            # torch: Tensor.__setstate__, whose current form is (requires_grad, _, hooks);
            # 4- and 5-item states are the legacy set_/Variable forms
            if not (isinstance(state, tuple) and len(state) == 3 and type(state[0]) is bool
                    and (state[2] is None or (isinstance(state[2], dict) and not state[2]))):
                raise self._error("BUILD of a Parameter only accepts the state "
                                  "(requires_grad, _, backward_hooks) with no hooks")
            inst.requires_grad_(state[0])
        elif _tensors.is_tensor(inst):
            # torch calls inst.set_(*state): the legacy (storage, offset, size, stride) form
            raise self._error("BUILD of a Tensor (the legacy Tensor.set_ state) is not supported "
                              "by ember")
        elif id(type(inst)) in self.user_callables:
            setstate = getattr(inst, "__setstate__", None)
            if setstate is not None:
                setstate(state)
                return
            slotstate = None
            if isinstance(state, tuple) and len(state) == 2:
                state, slotstate = state
            if state:
                inst.__dict__.update(state)
            if slotstate:
                for k, v in slotstate.items():
                    setattr(inst, k, v)
        else:
            raise self._error(
                "Can only build Tensor, Parameter, OrderedDict or types allowlisted via "
                f"`add_safe_globals`, but got {type(inst)}")


def _opname(op: int) -> str:
    for code, desc in pickle.__dict__.items():
        if len(code) <= 16 and code.isupper() and isinstance(desc, bytes) and desc == bytes((op,)):
            return code
    return "unknown opcode"


def globals_in_pickle(data) -> list[str]:
    """Every ``GLOBAL module.name`` in a pickle (Python-2 names mapped), in order of first use,
    found by parsing only (stdlib ``pickletools.genops``): nothing is imported or executed."""
    import pickletools
    seen: dict[str, None] = {}
    try:
        for opcode, arg, _ in pickletools.genops(bytes(data)):
            if opcode.name in ("GLOBAL", "INST"):
                module, name = arg.split(" ", 1)
                module, name = map_python2_name(module, name)
                seen.setdefault(f"{module}.{name}", None)
    except Exception as e:
        raise UnpicklingError(f"could not parse the pickle: {e}") from None
    return list(seen)
