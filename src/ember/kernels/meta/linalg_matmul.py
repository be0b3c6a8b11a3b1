"""Meta functions for mm, bmm, mv, dot, addmm, baddbmm, addbmm, addmv, addr and matmul: torch's shape/dtype checks and result shapes.
The cpu kernels (kernels/cpu/linalg_matmul.py) call the same `*_spec` functions before computing."""
from ..._core import dtype as D
from ..._core.device import META
from ..common import _tname, broadcast_shapes, check_out, empty_tensor

_CNAME = {"float32": "float", "float64": "double", "int64": "long int", "int32": "int", "int16": "short int",
          "int8": "signed char", "uint8": "unsigned char", "bool": "bool", "float16": "c10::Half",
          "bfloat16": "c10::BFloat16", "complex64": "c10::complex<float>", "complex128": "c10::complex<double>"}


def _x(shape):
    return "x".join(str(s) for s in shape)


def _check_dtype(a, b):
    if a.dtype is not b.dtype:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {_CNAME.get(a.dtype.name, a.dtype.name)}"
                           f" != {_CNAME.get(b.dtype.name, b.dtype.name)}")
    if a.dtype is D.bool_ and a.numel() and b.numel():   # torch only reaches the typed kernel with work to do
        raise NotImplementedError("\"addmm_impl_cpu_\" not implemented for 'Bool'")


def mm_spec(self, mat2):
    if self.dim() != 2:
        raise RuntimeError("self must be a matrix")
    if mat2.dim() != 2:
        raise RuntimeError("mat2 must be a matrix")
    if self._size[1] != mat2._size[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({_x(self._size)} and {_x(mat2._size)})")
    _check_dtype(self, mat2)
    return (self._size[0], mat2._size[1]), self.dtype


def bmm_spec(self, mat2):
    if self.dim() != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if mat2.dim() != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    b, n, m = self._size
    if mat2._size[:2] != (b, m):
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{b}, {m}] but got: "
                           f"[{mat2._size[0]}, {mat2._size[1]}].")
    if self.dtype is not mat2.dtype:        # torch's bmm words it so (matmul and einsum reach it), not as mm does
        raise RuntimeError(f"expected scalar type {_tname(self.dtype)} but found {_tname(mat2.dtype)}")
    _check_dtype(self, mat2)
    return (b, n, mat2._size[2]), self.dtype


def mv_spec(self, vec):
    if self.dim() != 2 or vec.dim() != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {self.dim()}, {vec.dim()}")
    if self._size[1] != vec._size[0]:
        raise RuntimeError(f"size mismatch, got input ({self._size[0]}), mat ({_x(self._size)}), vec ({vec._size[0]})")
    _check_mv_dtype(self, vec)
    return (self._size[0],), self.dtype


def _check_mv_dtype(mat, vec):
    """torch's mv is addmv into a result made like `vec`: its dtype message names that result, mat and vec."""
    if mat.dtype is not vec.dtype:
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got {_tname(vec.dtype)}, "
                           f"{_tname(mat.dtype)}, and {_tname(vec.dtype)}")
    _check_dtype(mat, vec)


def dot_spec(self, tensor):
    if self.dim() != 1 or tensor.dim() != 1:
        raise RuntimeError(f"1D tensors expected, but got {self.dim()}D and {tensor.dim()}D tensors")
    if self.dtype is not tensor.dtype:
        from ..common import _tname
        raise RuntimeError(f"dot : expected both vectors to have same dtype, but found {_tname(self.dtype)} and "
                           f"{_tname(tensor.dtype)}")
    n, m = self._size[0], tensor._size[0]
    if n != m:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{n}] and src [{m}] to have the same number "
                           f"of elements, but got {n} and {m} elements respectively")
    if self.dtype is D.bool_:
        raise NotImplementedError("\"dot\" not implemented for 'Bool'")
    return (), self.dtype


def _check_add_mm_dtypes(self, mat1, mat2):
    """addmm / addbmm (and linear with a bias): torch compares self with mat2 first, then mat1 with mat2."""
    if self.dtype is not mat2.dtype:
        raise RuntimeError(f"self and mat2 must have the same dtype, but got {_tname(self.dtype)} and "
                           f"{_tname(mat2.dtype)}")
    if mat1.dtype is not mat2.dtype:
        raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got {_tname(mat1.dtype)} and "
                           f"{_tname(mat2.dtype)}")


def addmm_spec(self, mat1, mat2):
    if mat1.dim() == 2 and mat2.dim() == 2:
        _check_add_mm_dtypes(self, mat1, mat2)
    shape, dt = mm_spec(mat1, mat2)
    if not all(s == 1 or s == t for s, t in zip(reversed(self._size), reversed(shape))) or self.dim() > 2:
        raise RuntimeError(f"The expanded size of the tensor ({shape[-1]}) must match the existing size "
                           f"({self._size[-1]}) at non-singleton dimension 1.  Target sizes: {list(shape)}.  "
                           f"Tensor sizes: {list(self._size)}")
    _check_dtype(self, mat1)
    return shape, dt


def _expandable(self, shape):
    """torch's expand check of `self` (the added term) against the product's shape."""
    if self.dim() > len(shape):
        raise RuntimeError(f"expand({self.type()}{{{list(self._size)}}}, size={list(shape)}): the number of sizes "
                           f"provided ({len(shape)}) must be greater or equal to the number of dimensions in the "
                           f"tensor ({self.dim()})")
    off = len(shape) - self.dim()
    for i, s in enumerate(self._size):
        if s != 1 and s != shape[off + i]:
            raise RuntimeError(f"The expanded size of the tensor ({shape[off + i]}) must match the existing size ({s}) "
                               f"at non-singleton dimension {off + i}.  Target sizes: {list(shape)}.  "
                               f"Tensor sizes: {list(self._size)}")


def baddbmm_spec(self, batch1, batch2):
    if self.dtype is not batch1.dtype:      # (batch1 against batch2 is bmm's check, in its words)
        raise RuntimeError(f"Input dtypes must be the same, got: input {_CNAME.get(self.dtype.name, self.dtype.name)}, "
                           f"batch1: {_CNAME.get(batch1.dtype.name, batch1.dtype.name)}, "
                           f"batch2: {_CNAME.get(batch2.dtype.name, batch2.dtype.name)}")
    shape, dt = bmm_spec(batch1, batch2)
    _expandable(self, shape)
    return shape, dt


_OUT_DTYPE_MESSAGES = {   # torch's meta functions word the rule differently for bmm
    "bmm": "out_dtype only supported for torch.float32 output with float16/bfloat16 inputs or same as input dtypes"}


def _check_out_dtype(self, out_dtype, name="mm"):
    """torch's rule for the out_dtype overloads: the input dtype, or float32 for half / bfloat16 inputs."""
    if not (out_dtype is self.dtype or out_dtype is D.float32 and self.dtype in (D.float16, D.bfloat16)):
        raise RuntimeError(_OUT_DTYPE_MESSAGES.get(name, "out_dtype must be the same as input dtype or fp32 for "
                                                         "fp16/bf16 inputs"))


def _out_dtype_overloads(name, spec, dtype_of):
    """(functional, out) meta functions of `name`.dtype / .dtype_out: the op with its result in out_dtype
    (float32 accumulation of half / bfloat16 inputs), torch's CUDA-only overloads, so only meta functions here."""
    def functional(*args, **kwargs):
        *tensors, out_dtype = args
        shape, _ = spec(*tensors)
        _check_out_dtype(dtype_of(*tensors), out_dtype, name)
        return empty_tensor(shape, out_dtype, META)

    def out_variant(*args, out, **kwargs):
        *tensors, out_dtype = args
        shape, _ = spec(*tensors)
        _check_out_dtype(dtype_of(*tensors), out_dtype, name)
        check_out(out, shape, out_dtype, name)
        return out
    functional.__name__, out_variant.__name__ = f"{name}_dtype", f"{name}_dtype_out"
    return functional, out_variant


mm_dtype, mm_dtype_out = _out_dtype_overloads("mm", mm_spec, lambda a, b: a)
bmm_dtype, bmm_dtype_out = _out_dtype_overloads("bmm", bmm_spec, lambda a, b: a)
addmm_dtype, addmm_dtype_out = _out_dtype_overloads("addmm", addmm_spec, lambda s, a, b: a)
baddbmm_dtype, baddbmm_dtype_out = _out_dtype_overloads("baddbmm", baddbmm_spec, lambda s, a, b: s)


def addbmm_spec(self, batch1, batch2):
    if batch1.dim() == 3 and batch2.dim() == 3:
        _check_add_mm_dtypes(self, batch1, batch2)
    shape, dt = bmm_spec(batch1, batch2)
    if self.dtype is not batch1.dtype:
        raise RuntimeError(f"self and mat2 must have the same dtype, but got {_tname(self.dtype)} and "
                           f"{_tname(batch1.dtype)}")
    shape = shape[1:]
    _expandable(self, shape)
    return shape, dt


def addmv_spec(self, mat, vec):
    if self.dtype is not mat.dtype or self.dtype is not vec.dtype:
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got {_tname(self.dtype)}, "
                           f"{_tname(mat.dtype)}, and {_tname(vec.dtype)}")
    if mat.dim() != 2 or vec.dim() != 1 or self.dim() > 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got {self.dim()}, {mat.dim()}, {vec.dim()}")
    if mat._size[1] != vec._size[0] or (self.dim() == 1 and self._size[0] not in (1, mat._size[0])):
        raise RuntimeError(f"size mismatch, got input ({self._size[0] if self.dim() else 1}), mat ({_x(mat._size)}), "
                           f"vec ({vec._size[0]})")
    _check_dtype(mat, vec)
    return (mat._size[0],), self.dtype


def addr_spec(self, vec1, vec2, beta=1, alpha=1):
    from ..._core.promotion import result_type
    for name, v in (("vec1", vec1), ("vec2", vec2)):
        if v.dim() != 1:
            raise RuntimeError(f"addr: Expected 1-D argument {name}, but got {v.dim()}-D")
    dt = result_type(self, vec1, vec2)
    if dt is D.bool_:
        if isinstance(beta, (float, complex)) or isinstance(alpha, (float, complex)):
            raise RuntimeError("Boolean beta only supported for Boolean results.")
    elif not (dt.is_floating_point or dt.is_complex):
        if isinstance(beta, float) or isinstance(alpha, float):
            raise RuntimeError("For integral input tensors, argument beta must not be a floating point number."
                               if isinstance(beta, float) else
                               "For integral input tensors, argument alpha must not be a floating point number.")
    shape = (vec1._size[0], vec2._size[0])
    _expandable(self, shape)
    return shape, dt


def matmul_spec(self, other):
    """torch.matmul's cases: dot, mv, (1-D @ 2-D as a row), mm, and broadcast batched matmul."""
    da, db = self.dim(), other.dim()
    if da == 0 or db == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are {da}D and {db}D")
    if da == 1 and db == 1:
        return dot_spec(self, other)
    if da == 2 and db == 1:
        return mv_spec(self, other)
    if da == 1 and db == 2:
        if self._size[0] != other._size[0]:
            raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied (1x{self._size[0]} and {_x(other._size)})")
        _check_dtype(self, other)
        return (other._size[1],), self.dtype
    if da == 2 and db == 2:
        return mm_spec(self, other)
    sa = self._size if da > 1 else (1,) + self._size
    sb = other._size if db > 1 else other._size + (1,)
    if sa[-1] != sb[-2]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{_numel(broadcast_shapes(sa[:-2], sb[:-2]))}, {sa[-1]}] but got: "
                           f"[{_numel(broadcast_shapes(sa[:-2], sb[:-2]))}, {sb[-2]}].")
    batch = broadcast_shapes(sa[:-2], sb[:-2])
    if db > 2 and self.dtype is not other.dtype:     # torch folds a 2-D/1-D `other` into mm/mv, else it is bmm
        raise RuntimeError(f"expected scalar type {_tname(self.dtype)} but found {_tname(other.dtype)}")
    if db == 1:
        _check_mv_dtype(self, other)
    _check_dtype(self, other)
    shape = batch + ((sa[-2],) if da > 1 else ()) + ((sb[-1],) if db > 1 else ())
    return shape, self.dtype


def _numel(s):
    n = 1
    for x in s:
        n *= x
    return n


def _meta(spec):
    def f(self, other, *rest, **kw):
        shape, dt = spec(self, other, *rest)
        return empty_tensor(shape, dt, self.device)
    f.__name__ = spec.__name__[:-5]
    return f


mm = _meta(mm_spec)
bmm = _meta(bmm_spec)
mv = _meta(mv_spec)
dot = _meta(dot_spec)
matmul = _meta(matmul_spec)
addmm = _meta(addmm_spec)
baddbmm = _meta(baddbmm_spec)
addmv = _meta(addmv_spec)
addbmm = _meta(addbmm_spec)


def addr(self, vec1, vec2, *, beta=1, alpha=1):
    shape, dt = addr_spec(self, vec1, vec2, beta, alpha)
    return empty_tensor(shape, dt, self.device)


def _inplace(name, functional):
    def f(self, *args, **kw):
        from .elementwise_common import check_inplace
        r = functional(self, *args, **kw)
        check_inplace(self, r._size, r.dtype, name)
        return self
    f.__name__ = name + "_"
    return f


baddbmm_ = _inplace("baddbmm", baddbmm)
addmv_ = _inplace("addmv", addmv)
addbmm_ = _inplace("addbmm", addbmm)
addr_ = _inplace("addr", addr)
