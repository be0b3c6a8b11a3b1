"""dtypes and torch's type-promotion lattice (c10/core/ScalarType.h in PyTorch)."""
import numpy as np

_MLD_ITEMSIZE = {"bfloat16": 2}   # float8 types: 1 byte


def _ml_dtypes():
    """ml_dtypes supplies numpy dtypes for bfloat16 and float8. Its import costs ~1 s here, so it
    is loaded on first use of one of those dtypes, not by `import ember`."""
    import ml_dtypes
    for d in _LAZY:
        object.__setattr__(d, "_np_lazy", np.dtype(getattr(ml_dtypes, d.name)))
        _BY_NP[d._np_lazy] = d
    return ml_dtypes


class dtype:
    """A tensor element type. Compared by identity; one object per type."""

    __slots__ = ("name", "itemsize", "is_floating_point", "is_complex", "is_signed", "_np", "_kind", "_rank")

    def __init__(self, name, np_dtype, kind, rank):
        self.name = name
        if np_dtype is not None:
            self._np = np.dtype(np_dtype)
            self.itemsize = self._np.itemsize
        else:
            self.itemsize = _MLD_ITEMSIZE.get(name, 1)
        self._kind = kind  # 'b' bool, 'u' unsigned, 'i' signed int, 'f' float, 'c' complex
        self._rank = rank
        self.is_floating_point = kind == "f"
        self.is_complex = kind == "c"
        self.is_signed = kind in "ifc"

    def __repr__(self):
        return "ember." + self.name

    def __reduce__(self):
        return (dtype_from_name, (self.name,))

    @property
    def abbr(self):
        """torch's short name: f32, bf16, f8e4m3fn, i64, u8, b8, c64 ..."""
        n = self.name
        if n == "bool":
            return "b8"
        if n == "bfloat16":
            return "bf16"
        if n.startswith("float8_"):
            return "f8" + n[7:]
        for long, short in (("uint", "u"), ("int", "i"), ("float", "f"), ("complex", "c")):
            if n.startswith(long):
                return short + n[len(long):]
        return n

    def to_real(self):
        return {complex64: float32, complex128: float64}.get(self, self)

    def to_complex(self):
        return {float32: complex64, float64: complex128, float16: complex64, bfloat16: complex64}.get(self, self)


class _LazyDtype(dtype):
    """A dtype whose numpy dtype comes from ml_dtypes, imported on first access."""

    __slots__ = ("_np_lazy",)

    @property
    def _np(self):
        try:
            return self._np_lazy
        except AttributeError:
            _ml_dtypes()
            return self._np_lazy


def _mk(name, npd, kind, rank):
    return dtype(name, npd, kind, rank)


def _mk_lazy(name, kind, rank):
    return _LazyDtype(name, None, kind, rank)


bool_ = _mk("bool", np.bool_, "b", 0)
uint8 = _mk("uint8", np.uint8, "u", 1)
int8 = _mk("int8", np.int8, "i", 1)
int16 = _mk("int16", np.int16, "i", 2)
uint16 = _mk("uint16", np.uint16, "u", 2)
int32 = _mk("int32", np.int32, "i", 3)
uint32 = _mk("uint32", np.uint32, "u", 3)
int64 = _mk("int64", np.int64, "i", 4)
uint64 = _mk("uint64", np.uint64, "u", 4)
float8_e4m3fn = _mk_lazy("float8_e4m3fn", "f", 0)
float8_e5m2 = _mk_lazy("float8_e5m2", "f", 0)
float8_e4m3fnuz = _mk_lazy("float8_e4m3fnuz", "f", 0)
float8_e5m2fnuz = _mk_lazy("float8_e5m2fnuz", "f", 0)
float16 = _mk("float16", np.float16, "f", 1)
bfloat16 = _mk_lazy("bfloat16", "f", 1)
float32 = _mk("float32", np.float32, "f", 2)
float64 = _mk("float64", np.float64, "f", 3)
complex64 = _mk("complex64", np.complex64, "c", 2)
complex128 = _mk("complex128", np.complex128, "c", 3)

ALL_DTYPES = (bool_, uint8, int8, int16, uint16, int32, uint32, int64, uint64,
              float8_e4m3fn, float8_e5m2, float8_e4m3fnuz, float8_e5m2fnuz,
              float16, bfloat16, float32, float64, complex64, complex128)

_BY_NAME = {d.name: d for d in ALL_DTYPES}
# torch's aliases
_BY_NAME.update({"half": float16, "float": float32, "double": float64, "long": int64, "int": int32,
                 "short": int16, "cfloat": complex64, "cdouble": complex128, "chalf": None})
_BY_NAME.pop("chalf")
_LAZY = tuple(d for d in ALL_DTYPES if isinstance(d, _LazyDtype))
_BY_NP = {d._np: d for d in ALL_DTYPES if not isinstance(d, _LazyDtype)}


def dtype_from_name(name):
    """The dtype called `name` ('float32', 'long', 'bfloat16', ...); KeyError if unknown."""
    return _BY_NAME[name]


def from_numpy_dtype(npd):
    npd = np.dtype(npd)
    if npd not in _BY_NP and npd.kind == "V" or npd.name in ("bfloat16",) or npd.name.startswith("float8"):
        _ml_dtypes()
    try:
        return _BY_NP[npd]
    except KeyError:
        raise TypeError(f"can't convert np.ndarray of type {np.dtype(npd)}. The only supported types are: "
                        "float64, float32, float16, complex64, complex128, int64, int32, int16, int8, "
                        "uint64, uint32, uint16, uint8, and bool.") from None


# ---------------------------------------------------------------- promotion
_promote_cache = {}


def promote_types(a, b):
    """torch.promote_types: the smallest dtype both a and b can be cast to without losing category."""
    for i, (name, v) in enumerate((("type1", a), ("type2", b))):
        if not isinstance(v, dtype):
            raise TypeError(f"promote_types(): argument '{name}' (position {i + 1}) must be ember.dtype, "
                            f"not {type(v).__name__}")
    key = (a, b)
    r = _promote_cache.get(key)
    if r is None:
        r = _promote_cache[key] = _promote(a, b)
    return r


def _promote(a, b):
    if a is b:
        return a
    ka, kb = a._kind, b._kind
    if a.name.startswith("float8") or b.name.startswith("float8"):
        raise RuntimeError(f"Promotion for Float8 Types is not supported, attempted to promote {a.name} and {b.name}")
    if ka == "b":
        return b
    if kb == "b":
        return a
    order = "uifc"
    if ka == kb:
        if ka == "u":
            return a if a._rank > b._rank else b
        if {a, b} == {float16, bfloat16}:
            return float32
        return a if a._rank > b._rank else b
    # different categories
    if {ka, kb} == {"u", "i"}:
        u, s = (a, b) if ka == "u" else (b, a)
        if u is uint8:
            return s if s._rank > 1 else int16
        if u._rank < s._rank:
            return s
        raise RuntimeError(f"Promotion for uint16, uint32, uint64 types is not supported, attempted to promote {a.name} and {b.name}")
    hi, lo = (a, b) if order.index(ka) > order.index(kb) else (b, a)
    if hi._kind == "f":
        return hi
    # complex with something lower
    if lo._kind == "f" and lo is float64:
        return complex128
    return hi


# categories for result_type: 0 bool, 1 integer, 2 floating, 3 complex
def category(d):
    return {"b": 0, "u": 1, "i": 1, "f": 2, "c": 3}[d._kind]
