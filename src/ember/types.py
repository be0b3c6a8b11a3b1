"""torch.types: the type aliases torch's annotations use (Number, Device, _TensorOrTensors, _size, ...),
over ember's classes, for scripts that import them for their own annotations."""
import os
from collections.abc import Sequence
from typing import IO, Any, TypeAlias, Union  # noqa: F401

from ._core.dtype import dtype as _dtype_cls
from ._tensor import Tensor
from . import Size, SymBool, SymFloat, SymInt, device as _device_cls

__all__ = ["Number", "Device", "FileLike", "Storage", "IntLikeType", "FloatLikeType", "BoolLikeType", "PySymType",
           "py_sym_types", "Size", "SymInt", "SymFloat", "SymBool", "Tensor"]

_bool = bool
_complex = complex
_float = float
_int = int
_str = str
_bytes = bytes
_dtype = _dtype_cls
_device = _device_cls
_layout = str                  # ember's layouts are the strings torch prints ("strided")
_qscheme = str
_dispatchkey = str
_size: TypeAlias = Union[Size, list, tuple]
_symsize: TypeAlias = Union[Size, Sequence]
_TensorOrTensors: TypeAlias = Union[Tensor, Sequence[Tensor]]
_TensorOrOptionalTensors: TypeAlias = Union[Tensor, Sequence[Union[Tensor, None]]]
_Number = (int, float, bool)

IntLikeType: TypeAlias = Union[int, SymInt]
FloatLikeType: TypeAlias = Union[float, SymFloat]
BoolLikeType: TypeAlias = Union[bool, SymBool]
py_sym_types = (SymInt, SymFloat, SymBool)
PySymType: TypeAlias = Union[SymInt, SymFloat, SymBool]
Number: TypeAlias = Union[int, float, bool]
Device: TypeAlias = Union[_device_cls, str, int, None]
FileLike: TypeAlias = Union[str, os.PathLike, IO[bytes]]


class Storage:
    """The protocol torch's serialization expects of a storage (an annotation; ember's is UntypedStorage)."""
    _cdata: int
    device: _device_cls
    dtype: _dtype_cls
    _torch_load_uninitialized: bool

    def __deepcopy__(self, memo):
        raise NotImplementedError

    def _new_shared(self, size):
        raise NotImplementedError

    def _write_file(self, f, is_real_file, save_size, element_size):
        raise NotImplementedError

    def element_size(self):
        raise NotImplementedError

    def is_shared(self):
        raise NotImplementedError

    def share_memory_(self):
        raise NotImplementedError

    def nbytes(self):
        raise NotImplementedError

    def cpu(self):
        raise NotImplementedError

    def data_ptr(self):
        raise NotImplementedError

    def from_file(self, filename, shared=False, nbytes=0):
        raise NotImplementedError

    def _new_with_file(self, f, element_size):
        raise NotImplementedError
