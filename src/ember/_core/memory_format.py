"""torch.memory_format and torch.layout (torch/csrc/MemoryFormat.cpp, torch/csrc/Layout.cpp): one immutable
object per format, compared by identity, printed and pickled by their ember name (`ember.channels_last`).

Kernels still accept a format's name as a `str` (their own defaults are names): `format_name` reads either.
"""

__all__ = ["memory_format", "layout", "format_name", "MEMORY_FORMATS", "LAYOUTS"]


class _Named:
    __slots__ = ("_name",)

    def __new__(cls, *args, **kwargs):
        raise TypeError(f"cannot create 'ember.{cls.__name__}' instances")

    def __setattr__(self, name, value):
        raise AttributeError(f"'ember.{type(self).__name__}' object attribute '{name}' is read-only")

    def __repr__(self):
        return "ember." + self._name

    __str__ = __repr__

    def __reduce__(self):
        return self._name         # a global of the `ember` module (the class's __module__)

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self


class memory_format(_Named):
    """How a dense tensor's strides order its dimensions (contiguous_format, channels_last, ...)."""
    __slots__ = ()


class layout(_Named):
    """How a tensor's elements are stored (ember has strided tensors only; the sparse layouts exist as names)."""
    __slots__ = ()


memory_format.__module__ = layout.__module__ = "ember"


def _make(cls, name):
    self = object.__new__(cls)
    object.__setattr__(self, "_name", name)
    return self


MEMORY_FORMATS = {n: _make(memory_format, n) for n in (
    "contiguous_format", "preserve_format", "channels_last", "channels_last_3d")}
MEMORY_FORMATS["legacy_contiguous_format"] = MEMORY_FORMATS["contiguous_format"]    # one object in torch too
LAYOUTS = {n: _make(layout, n) for n in (
    "strided", "sparse_coo", "sparse_csr", "sparse_csc", "sparse_bsr", "sparse_bsc", "_mkldnn", "jagged")}


def format_name(f):
    """The name of a memory format or layout given as the object or as its name (None stays None)."""
    return f._name if isinstance(f, _Named) else f
