"""view_as_real / view_as_complex: the same storage seen as (..., 2) reals or as complex numbers; `_conj` /
`_neg_view`: the same storage with the lazy conj / neg bit flipped (one kernel for cpu and meta: metadata only,
like the other views)."""
from ..._core import dtype as D
from ..._core.dispatch_keys import CONJ_BIT, MATH_BITS, NEG_BIT
from .view import make_view
from ..common import alloc

_REAL = {"complex64": D.float32, "complex128": D.float64}
_COMPLEX = {"float32": D.complex64, "float64": D.complex128}


def _flipped(self, bit):
    out = make_view(self, self._size, self.stride(), self._offset, arr=self._np)
    out._ks = (out._ks & ~MATH_BITS) | ((self._ks & MATH_BITS) ^ bit)
    return out


def _conj(self):
    return _flipped(self, CONJ_BIT)


def _neg_view(self):
    return _flipped(self, NEG_BIT)


def view_as_real(self):
    if not self.dtype.is_complex:
        raise RuntimeError("view_as_real is only supported for complex tensors")
    if self._ks & CONJ_BIT:
        raise RuntimeError("view_as_real doesn't work on unresolved conjugated tensors.  To resolve the conjugate "
                           "tensor so you can view it as real, use self.resolve_conj(); however, be warned that the "
                           "resulting tensor will NOT alias the original.")
    size = tuple(self._size) + (2,)
    stride = tuple(2 * s for s in self.stride()) + (1,)
    return make_view(self, size, stride, 2 * self._offset, _REAL[self.dtype.name])


def view_as_complex(self):
    name = self.dtype.name
    if name == "float16":
        raise NotImplementedError("view_as_complex of a float16 tensor needs complex32, which ember does not have")
    if name not in _COMPLEX:
        raise RuntimeError(f"view_as_complex is only supported for half, float and double tensors, but got a "
                           f"tensor of scalar type: {_scalar_name(self.dtype)}")
    if self.dim() == 0 or self._size[-1] != 2:
        raise RuntimeError("Tensor must have a last dimension of size 2")
    st = self.stride()
    if st[-1] != 1:
        raise RuntimeError("Tensor must have a last dimension with stride 1")
    if any(s % 2 for s in st[:-1]):
        raise RuntimeError("Tensor must have a stride divisible by 2 for all but last dimension")
    if self._offset % 2:
        raise RuntimeError("Tensor must have a storage_offset divisible by 2")
    return make_view(self, tuple(self._size[:-1]), tuple(s // 2 for s in st[:-1]), self._offset // 2,
                     _COMPLEX[name])


def _scalar_name(dt):
    return {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool",
            "bfloat16": "BFloat16", "complex64": "ComplexFloat", "complex128": "ComplexDouble"}.get(dt.name, dt.name)


def conj_physical(self):
    return alloc(self._size, self.dtype, self.device)


def conj_physical_(self):
    return self


def angle_dtype(self):
    """angle's result dtype: the real dtype of a complex input, the default float dtype for integers."""
    from ..._core.promotion import get_default_dtype
    d = self.dtype
    if d.is_complex:
        return _REAL[d.name]
    return d if d.is_floating_point else get_default_dtype()


def angle(self):
    from .elementwise_common import out_strides
    from ..common import empty_tensor
    return empty_tensor(self._size, angle_dtype(self), self.device, out_strides(self._size, self))


def angle_out(self, *, out):
    from ..common import check_out
    check_out(out, self._size, angle_dtype(self), "angle")
    return out


# ------------------------------------------------------------------ complex / polar
def complex_args(a, b):
    """torch's complex_check_dtype: both half/float/double and of one dtype; the result's (shape, dtype)."""
    from ..common import _tname, broadcast_shapes
    names = {"float16": "Half", "float32": "Float", "float64": "Double"}
    if a.dtype.name not in names or b.dtype.name not in names:
        raise RuntimeError(f"Expected both inputs to be Half, Float or Double tensors but got {_tname(a.dtype)} "
                           f"and {_tname(b.dtype)}")
    if a.dtype is not b.dtype:
        raise RuntimeError(f"Expected object of scalar type {names[a.dtype.name]} but got scalar type "
                           f"{names[b.dtype.name]} for second argument")
    if a.dtype.name == "float16":
        raise NotImplementedError("complex of float16 tensors needs complex32, which ember does not have")
    return broadcast_shapes(a._size, b._size), _COMPLEX[a.dtype.name]


def complex(real, imag):
    from ..._core.device import META
    from ..common import empty_tensor
    from .elementwise_common import out_strides
    shape, dt = complex_args(real, imag)
    return empty_tensor(shape, dt, META, out_strides(shape, real, imag))


polar = complex
