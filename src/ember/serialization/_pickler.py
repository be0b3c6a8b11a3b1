"""A protocol-2 pickler that writes the same bytes as CPython's C pickler.

Why not ``pickle.Pickler``: torch's ``data.pkl`` names torch's own functions and classes
(``GLOBAL 'torch._utils _rebuild_tensor_v2'``, ``'torch FloatStorage'`` ...).  The stdlib
pickler only writes a GLOBAL after importing the named module to check it, which would need
torch.  This pickler follows CPython's rules (memo by object identity, batching of 1000, the
protocol-2 special cases for bytes/bytearray/set) and lets the caller substitute a
:class:`GlobalRef` for any object it wants to spell with a foreign name.
"""
from __future__ import annotations

import _compat_pickle
import copyreg
import io
import pickle
import struct
import sys
from types import FunctionType

_BATCHSIZE = 1000

PROTO = b"\x80"
STOP = b"."
MARK = b"("
POP = b"0"
POP_MARK = b"1"
EMPTY_DICT = b"}"
EMPTY_LIST = b"]"
EMPTY_TUPLE = b")"
TUPLE = b"t"
TUPLE1 = b"\x85"
TUPLE2 = b"\x86"
TUPLE3 = b"\x87"
SETITEM = b"s"
SETITEMS = b"u"
APPEND = b"a"
APPENDS = b"e"
BINUNICODE = b"X"
BININT = b"J"
BININT1 = b"K"
BININT2 = b"M"
LONG1 = b"\x8a"
LONG4 = b"\x8b"
BINFLOAT = b"G"
NONE = b"N"
NEWTRUE = b"\x88"
NEWFALSE = b"\x89"
GLOBAL = b"c"
REDUCE = b"R"
BUILD = b"b"
NEWOBJ = b"\x81"
BINPERSID = b"Q"
BINPUT = b"q"
LONG_BINPUT = b"r"
BINGET = b"h"
LONG_BINGET = b"j"

_TUPLESIZE_TO_OP = (EMPTY_TUPLE, TUPLE1, TUPLE2, TUPLE3)


class GlobalRef:
    """Stands for the object ``module.name`` of another library (pickled as ``GLOBAL``).

    Instances are interned, so every use of one name is the same object and the pickler's
    identity memo turns repeats into ``BINGET`` exactly as for the real object."""

    _interned: dict[tuple[str, str], "GlobalRef"] = {}
    __slots__ = ("module", "name")

    def __new__(cls, module: str, name: str):
        key = (module, name)
        ref = cls._interned.get(key)
        if ref is None:
            ref = object.__new__(cls)
            ref.module = module
            ref.name = name
            cls._interned[key] = ref
        return ref

    def __repr__(self):
        return f"GlobalRef({self.module}.{self.name})"

    def __reduce__(self):  # only meaningful inside ember's pickler
        raise pickle.PicklingError(f"{self!r} can only be pickled by ember.serialization")


def _fresh_str(s: str) -> str:
    """A new str object equal to ``s`` (so the memo does not merge it with interned constants)."""
    if len(s) <= 1:
        return s  # CPython caches these; the C side gets the cached one too
    return "".join(list(s))


class Pickler:
    """``Pickler(write, persistent_id=None, reducer_override=None).dump(obj)``

    * ``persistent_id(obj)`` returns ``None`` or the id to write with ``BINPERSID``;
    * ``reducer_override(obj)`` returns ``NotImplemented`` or a reduce tuple
      ``(callable, args[, state[, listitems[, dictitems]]])`` in which ``callable`` may be a
      :class:`GlobalRef`, or a :class:`GlobalRef` alone to pickle ``obj`` by that name.
    """

    def __init__(self, write, persistent_id=None, reducer_override=None, protocol: int = 2):
        if protocol != 2:
            raise ValueError(
                f"ember.save only writes pickle protocol 2 (torch's default; torch's weights_only "
                f"loader cannot read other protocols), got pickle_protocol={protocol}")
        self.write = write
        self._persistent_id = persistent_id
        self._reducer_override = reducer_override
        self.memo: dict[int, tuple[int, object]] = {}

    # -- entry point ------------------------------------------------------------------------
    def dump(self, obj) -> None:
        self.write(PROTO + b"\x02")
        self.save(obj)
        self.write(STOP)

    # -- memo -------------------------------------------------------------------------------
    def memoize(self, obj) -> None:
        idx = len(self.memo)
        self.write(BINPUT + bytes((idx,)) if idx < 256 else LONG_BINPUT + struct.pack("<I", idx))
        self.memo[id(obj)] = (idx, obj)

    def _get(self, idx: int) -> None:
        self.write(BINGET + bytes((idx,)) if idx < 256 else LONG_BINGET + struct.pack("<I", idx))

    # -- dispatch ---------------------------------------------------------------------------
    def save(self, obj, save_persistent_id: bool = True) -> None:
        if save_persistent_id and self._persistent_id is not None:
            pid = self._persistent_id(obj)
            if pid is not None:
                self.save(pid, save_persistent_id=False)
                self.write(BINPERSID)
                return
        t = type(obj)
        if obj is None:
            self.write(NONE)
            return
        if t is bool:
            self.write(NEWTRUE if obj else NEWFALSE)
            return
        if t is int:
            self._save_int(obj)
            return
        if t is float:
            self.write(BINFLOAT + struct.pack(">d", obj))
            return
        x = self.memo.get(id(obj))
        if x is not None:
            self._get(x[0])
            return
        if t is str:
            data = obj.encode("utf-8", "surrogatepass")
            if len(data) > 0xFFFFFFFF:
                raise pickle.PicklingError("cannot serialize a string larger than 4GiB")
            self.write(BINUNICODE + struct.pack("<I", len(data)) + data)
            self.memoize(obj)
            return
        if t is tuple:
            self._save_tuple(obj)
            return
        if t is list:
            self.write(EMPTY_LIST)
            self.memoize(obj)
            self._batch_appends_exact(obj)
            return
        if t is dict:
            self.write(EMPTY_DICT)
            self.memoize(obj)
            self._batch_setitems_exact(obj)
            return
        if t is GlobalRef:
            self.write(GLOBAL + obj.module.encode("utf-8") + b"\n" + obj.name.encode("utf-8") + b"\n")
            self.memoize(obj)
            return
        if t is bytes:
            self._save_bytes(obj)
            return
        if t is bytearray:
            self.save_reduce(bytearray, (bytes(obj),) if obj else (), obj=obj)
            return
        if t is set:
            self.save_reduce(set, (list(obj),), obj=obj)
            return
        if self._reducer_override is not None:
            rv = self._reducer_override(obj)
            if type(rv) is GlobalRef:   # obj is pickled by name, like a class or function
                self.write(GLOBAL + rv.module.encode("utf-8") + b"\n" + rv.name.encode("utf-8") + b"\n")
                self.memoize(obj)
                return
            if rv is not NotImplemented:
                self._save_reduce_value(obj, rv)
                return
        if t is type or isinstance(obj, type):
            self._save_type(obj)
            return
        if t is FunctionType:
            self.save_global(obj)
            return
        reduce = copyreg.dispatch_table.get(t)
        if reduce is not None:
            rv = reduce(obj)
        else:
            reduce_ex = getattr(obj, "__reduce_ex__", None)
            if reduce_ex is None:
                raise pickle.PicklingError(f"Can't pickle {t.__name__!r} object: {obj!r}")
            rv = reduce_ex(2)
        if isinstance(rv, str):
            self.save_global(obj, rv)
            return
        self._save_reduce_value(obj, rv)

    def _save_reduce_value(self, obj, rv) -> None:
        if not isinstance(rv, tuple):
            raise pickle.PicklingError(f"{type(obj).__name__}.__reduce__ must return a string or tuple")
        if not 2 <= len(rv) <= 6:
            raise pickle.PicklingError(f"tuple returned by {type(obj).__name__}.__reduce__ must "
                                       "contain 2 through 6 elements")
        self.save_reduce(*rv, obj=obj)

    # -- scalars ----------------------------------------------------------------------------
    def _save_int(self, obj: int) -> None:
        if 0 <= obj <= 0xFF:
            self.write(BININT1 + bytes((obj,)))
        elif 0 <= obj <= 0xFFFF:
            self.write(BININT2 + struct.pack("<H", obj))
        elif -0x80000000 <= obj <= 0x7FFFFFFF:
            self.write(BININT + struct.pack("<i", obj))
        else:
            data = pickle.encode_long(obj)
            if len(data) < 256:
                self.write(LONG1 + bytes((len(data),)) + data)
            else:
                self.write(LONG4 + struct.pack("<i", len(data)) + data)

    def _save_bytes(self, obj: bytes) -> None:
        if not obj:
            self.save_reduce(bytes, (), obj=obj)
        else:
            # CPython uses one interned 'latin1' string for every bytes object
            self.save_reduce(_codecs_encode(), (str(obj, "latin1"), _LATIN1), obj=obj)

    # -- containers -------------------------------------------------------------------------
    def _save_tuple(self, obj: tuple) -> None:
        n = len(obj)
        if n == 0:
            self.write(EMPTY_TUPLE)
            return
        if n <= 3:
            for item in obj:
                self.save(item)
            x = self.memo.get(id(obj))
            if x is not None:  # recursive tuple: drop the items, fetch the memoized one
                self.write(POP * n)
                self._get(x[0])
                return
            self.write(_TUPLESIZE_TO_OP[n])
            self.memoize(obj)
            return
        self.write(MARK)
        for item in obj:
            self.save(item)
        x = self.memo.get(id(obj))
        if x is not None:
            self.write(POP_MARK)
            self._get(x[0])
            return
        self.write(TUPLE)
        self.memoize(obj)

    def _batch_appends_exact(self, obj: list) -> None:
        n = len(obj)
        if n == 0:
            return
        if n == 1:
            self.save(obj[0])
            self.write(APPEND)
            return
        total = 0
        while total < len(obj):
            self.write(MARK)
            this_batch = 0
            while total < len(obj):
                self.save(obj[total])
                total += 1
                this_batch += 1
                if this_batch == _BATCHSIZE:
                    break
            self.write(APPENDS)

    def _batch_setitems_exact(self, obj: dict) -> None:
        size = len(obj)
        if size == 0:
            return
        if size == 1:
            for k, v in obj.items():
                self.save(k)
                self.save(v)
            self.write(SETITEM)
            return
        items = iter(list(obj.items()))
        while True:
            i = 0
            self.write(MARK)
            for k, v in items:
                self.save(k)
                self.save(v)
                i += 1
                if i == _BATCHSIZE:
                    break
            self.write(SETITEMS)
            if len(obj) != size:
                raise RuntimeError("dictionary changed size during iteration")
            if i != _BATCHSIZE:
                break

    def _batch_appends(self, items) -> None:
        it = iter(items)
        while True:
            tmp = []
            for x in it:
                tmp.append(x)
                if len(tmp) == _BATCHSIZE:
                    break
            n = len(tmp)
            if n > 1:
                self.write(MARK)
                for x in tmp:
                    self.save(x)
                self.write(APPENDS)
            elif n:
                self.save(tmp[0])
                self.write(APPEND)
            if n < _BATCHSIZE:
                return

    def _batch_setitems(self, items) -> None:
        it = iter(items)
        while True:
            first = next(it, _SENTINEL)
            if first is _SENTINEL:
                return
            second = next(it, _SENTINEL)
            if second is _SENTINEL:
                k, v = first
                self.save(k)
                self.save(v)
                self.write(SETITEM)
                return
            self.write(MARK)
            n = 0
            for pair in _chain_two(first, second, it):
                k, v = pair
                self.save(k)
                self.save(v)
                n += 1
                if n == _BATCHSIZE:
                    break
            self.write(SETITEMS)
            if n != _BATCHSIZE:
                return

    # -- reduce / globals -------------------------------------------------------------------
    def save_reduce(self, func, args, state=None, listitems=None, dictitems=None,
                    state_setter=None, *, obj=None) -> None:
        if not isinstance(args, tuple):
            raise pickle.PicklingError("args from save_reduce() must be a tuple")
        if not callable(func) and not isinstance(func, GlobalRef):
            raise pickle.PicklingError("func from save_reduce() must be callable")
        func_name = getattr(func, "__name__", "")
        if func_name == "__newobj_ex__":
            raise pickle.PicklingError("__newobj_ex__ needs pickle protocol 4; ember writes protocol 2")
        if func_name == "__newobj__" and not isinstance(func, GlobalRef):
            cls = args[0]
            if not hasattr(cls, "__new__"):
                raise pickle.PicklingError("args[0] from __newobj__ args has no __new__")
            if obj is not None and cls is not obj.__class__:
                raise pickle.PicklingError("args[0] from __newobj__ args has the wrong class")
            self.save(cls)
            self.save(args[1:])
            self.write(NEWOBJ)
        else:
            self.save(func)
            self.save(args)
            self.write(REDUCE)
        if obj is not None:
            x = self.memo.get(id(obj))
            if x is not None:
                self.write(POP)
                self._get(x[0])
            else:
                self.memoize(obj)
        if listitems is not None:
            self._batch_appends(listitems)
        if dictitems is not None:
            self._batch_setitems(dictitems)
        if state is not None:
            if state_setter is not None:
                raise pickle.PicklingError("state_setter needs pickle protocol 5")
            self.save(state)
            self.write(BUILD)

    def _save_type(self, obj) -> None:
        if obj is type(None):
            return self.save_reduce(type, (None,), obj=obj)
        if obj is type(NotImplemented):
            return self.save_reduce(type, (NotImplemented,), obj=obj)
        if obj is type(...):
            return self.save_reduce(type, (...,), obj=obj)
        self.save_global(obj)

    def save_global(self, obj, name: str | None = None) -> None:
        if name is None:
            name = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None)
        if name is None:
            raise pickle.PicklingError(f"Can't pickle {obj!r}: it has no name")
        if "<locals>" in name.split("."):
            # CPython's C pickler (which torch.save uses): AttributeError for a function or class defined
            # inside another (a lambda forward hook saved with its module)
            raise AttributeError(f"Can't pickle local object {name!r}")
        module_name = pickle.whichmodule(obj, name)
        try:
            __import__(module_name, level=0)
            module = sys.modules[module_name]
            found = module
            for part in name.split("."):
                found = getattr(found, part)
        except (ImportError, KeyError, AttributeError):
            raise pickle.PicklingError(
                f"Can't pickle {obj!r}: attribute lookup {name} on {module_name} failed") from None
        if found is not obj:
            raise pickle.PicklingError(
                f"Can't pickle {obj!r}: it's not the same object as {module_name}.{name}")
        if "." in name:
            raise pickle.PicklingError(
                f"Can't pickle {obj!r}: nested name {name!r} needs pickle protocol 4")
        code = copyreg._extension_registry.get((module_name, name))
        if code:
            raise pickle.PicklingError("copyreg extension codes are not supported by ember.save")
        r_name = _compat_pickle.REVERSE_NAME_MAPPING
        r_import = _compat_pickle.REVERSE_IMPORT_MAPPING
        if (module_name, name) in r_name:
            module_name, name = r_name[(module_name, name)]
        elif module_name in r_import:
            module_name = r_import[module_name]
        try:
            line = GLOBAL + module_name.encode("ascii") + b"\n" + name.encode("ascii") + b"\n"
        except UnicodeEncodeError:
            raise pickle.PicklingError(
                f"can't pickle global identifier '{module_name}.{name}' using pickle protocol 2")
        self.write(line)
        self.memoize(obj)


_SENTINEL = object()
_LATIN1 = "latin1"


def _chain_two(a, b, rest):
    yield a
    yield b
    yield from rest


def _codecs_encode():
    import _codecs
    return _codecs.encode


def dumps(obj, **kw) -> bytes:
    buf = io.BytesIO()
    Pickler(buf.write, **kw).dump(obj)
    return buf.getvalue()
