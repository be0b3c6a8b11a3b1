"""Helpers shared by meta and cpu kernels (ATen's native/Resize.h + TensorUtils checks, in miniature):
making outputs, broadcasting, argument coercion, int-list expansion, reduction codes and torch-style
size and dtype formatting."""
from .._core.symint import SymInt, size_int
import threading

import numpy as np

from .._core import dtype as D
from .._core.device import CPU, as_device
from .._core.promotion import can_cast, get_default_dtype
from .._core.storage import UntypedStorage
from .._core.strides import contiguous_strides, storage_nbytes_needed
from .._core.tensor_impl import TensorImpl as Tensor


def as_py_number(v):
    """A numpy scalar standing for a number operand as torch's argument parser reads it (scalar_slow): an integer
    as a Python int, a float as a float, numpy.bool_ as a float too (torch unpacks it with PyFloat_AsDouble:
    `int_tensor + np.bool_(True)` is float32), complex128 (a Python complex) as a complex and complex64 as its
    real part (numpy's ComplexWarning, as in torch). Anything else is returned as it is."""
    if v.__class__.__module__ != "numpy" or not isinstance(v, np.generic):
        return v
    if isinstance(v, np.integer):
        return int(v)
    if isinstance(v, np.complex128):
        return complex(v)
    if isinstance(v, (np.floating, np.bool_, np.complexfloating)):
        return float(v)
    return v


def as_dtype(d):
    if d is None or isinstance(d, D.dtype):
        return d
    if d is float:
        return D.float64
    if d is int:
        return D.int64
    if d is bool:
        return D.bool_
    if d is complex:
        return D.complex128
    if isinstance(d, str):
        return D.dtype_from_name(d)
    raise TypeError(f"expected a dtype, got {type(d).__name__}")


def empty_tensor(shape, dtype, device=CPU, strides=None, zero=False):
    """A new uninitialised tensor with the given shape and strides; `zero`: zero-filled on cpu, by calloc (numpy's
    zeros), whose large blocks are fresh pages the kernel zeroes on first touch, so nothing is written here."""
    shape = tuple(shape)
    if strides is None:
        strides = contiguous_strides(shape)
    dev = as_device(device) or CPU
    if dev.type == "meta":
        st = UntypedStorage._meta(storage_nbytes_needed(shape, strides, 0, dtype.itemsize))
        return Tensor._from_storage(st, 0, shape, strides, dtype)
    if strides == contiguous_strides(shape):
        return Tensor._wrap_np((np.zeros if zero else np.empty)(shape, dtype._np), dtype)
    nbytes = storage_nbytes_needed(shape, strides, 0, dtype.itemsize)
    st = UntypedStorage._from_numpy((np.zeros if zero else np.empty)(nbytes, np.uint8))
    return Tensor._from_storage(st, 0, shape, strides, dtype)


def broadcast_shapes(*shapes):
    """The broadcast shape, folded pair by pair as TensorIterator does (infer_size: the shape so far is
    tensor a, the next operand's tensor b), each pair checked from the last dim backwards as torch checks it,
    so an error names the same sizes and dimension as torch's (the first mismatch from the right). The
    comparisons are made in one order (b == a, b == 1, a == 1; the first shape against ones): with symbolic
    sizes each one records a guard, and compile's recompilation counts depend on which."""
    out = ()
    for s in shapes:
        na, nb = len(out), len(s)
        n = na if na > nb else nb
        r = [1] * n
        for i in range(n - 1, -1, -1):
            k = n - 1 - i
            a = out[na - 1 - k] if na - 1 - k >= 0 else 1
            b = s[nb - 1 - k] if nb - 1 - k >= 0 else 1
            if b == a or b == 1:
                r[i] = a
            elif a == 1:
                r[i] = b
            else:
                raise RuntimeError(
                    f"The size of tensor a ({a}) must match the size of tensor b ({b}) at non-singleton "
                    f"dimension {i}")
        out = tuple(r)
    return out


def shape_of(x):
    return x._size if isinstance(x, Tensor) else ()


def device_of(*xs):
    for x in xs:
        if isinstance(x, Tensor):
            return x.device
    return CPU


def np_of(x):
    """The numpy value of an operand: a tensor's ndarray view, or a Python scalar as is."""
    return x._np if isinstance(x, Tensor) else x


def float_default_if_integral(d):
    return d if d.is_floating_point or d.is_complex else get_default_dtype()


def check_out(out, shape, dtype, name, rule=None, resize=None):
    """out= semantics: `out`'s dtype must accept the result (`rule(0, dtype, out)`, one of kernels/out_rules.py;
    default TensorIterator's castable rule); a wrongly sized out is resized (torch warns, unless `resize` is
    one of out_rules' silent ones)."""
    if rule is None:
        check_out_dtype(out, dtype)
    else:
        rule(0, dtype, out)
    (resize or resize_out)(out, shape)


def check_out_dtype(out, dtype):
    """TensorIterator's out= dtype rule: the result's dtype must be castable to `out`'s."""
    if not can_cast(dtype, out.dtype):
        raise RuntimeError(f"result type {_tname(dtype)} can't be cast to the desired output type {_tname(out.dtype)}")


class _BelowAutograd(threading.local):
    on = False


BELOW_AUTOGRAD = _BelowAutograd()


def resize_internal(t, shape, memory_format=None):
    """`t.resize_(shape)` as torch's kernels call it (out= resizes, resize_as_ after its own check): below the
    Autograd key, so without VariableType's "cannot resize variables that require grad" check, which only the
    user's own resize_ gets. Still dispatched (modes and fake tensors see the resize_)."""
    prev, BELOW_AUTOGRAD.on = BELOW_AUTOGRAD.on, True
    try:
        return t.resize_(shape) if memory_format is None else t.resize_(shape, memory_format=memory_format)
    finally:
        BELOW_AUTOGRAD.on = prev


def resize_out(out, shape):
    """at::native::resize_output: a wrongly sized `out` is resized, with torch's warning if it held elements."""
    if tuple(out._size) != tuple(shape):
        if out.numel() != 0:
            warn_resized(out._size, shape)
        resize_internal(out, shape)


_PKG_DIR = __file__[:-len("kernels/common.py")]        # .../ember/


def warn_user(message, category=UserWarning):
    """warnings.warn attributed to the first frame outside ember, as a warning from torch's C++ (TORCH_WARN)
    is attributed to the Python line that called into it: the user's `torch.add(x, 1, out=y)`, not a line
    of ember's dispatcher or kernels, whatever the depth of the call."""
    import sys
    import warnings
    level = 2           # (stacklevel 2: warn_user's caller)
    f = sys._getframe(1)
    while f is not None and f.f_code.co_filename.startswith(_PKG_DIR):
        f = f.f_back
        level += 1
    warnings.warn(message, category, stacklevel=level)


def warn_resized(had, required):
    """resize_output's deprecation warning for a non-empty `out` of shape `had` resized to `required`."""
    warn_user(f"An output with one or more elements was resized since it had shape {list(had)}, which does not "
              f"match the required output shape {list(required)}. This behavior is deprecated, and in a future "
              "PyTorch release outputs will not be resized unless they have zero elements. You can explicitly "
              "reuse an out tensor t by resizing it, inplace, to zero elements with t.resize_(0).")


def c_type_name(d):
    """The C++ name of a dtype's element type, as torch's dtype-check messages print it ("long int")."""
    return {"float32": "float", "float64": "double", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
            "int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
            "uint8": "unsigned char", "bool": "bool", "complex64": "c10::complex<float>",
            "complex128": "c10::complex<double>"}.get(d.name, d.name)


def _tname(d):
    return {"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16", "int64": "Long",
            "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool",
            "complex64": "ComplexFloat", "complex128": "ComplexDouble"}.get(d.name, d.name)


# ---- nn argument helpers (int-list expansion, reduction codes, error formatting) ----

REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}


def tup(v, n):
    """Expand an int or short int list argument (`stride=1`, `[2]`) to an n-tuple."""
    if isinstance(v, int) or v.__class__ is SymInt:
        return (size_int(v),) * n
    v = tuple(size_int(x) for x in v)
    return v * n if len(v) == 1 and n > 1 else v


def size_str(shape):
    return "[" + ", ".join(str(s) for s in shape) + "]"


def alloc(shape, dtype, device):
    return empty_tensor(tuple(map(size_int, shape)), dtype, device)


def is_meta(*ts):
    return any(isinstance(t, Tensor) and t.device.type == "meta" for t in ts)


def check_floating(t, what):
    if not (t.dtype.is_floating_point or t.dtype.is_complex):
        raise NotImplementedError(f"\"{what}\" not implemented for '{_tn(t.dtype)}'")


def _tn(d):
    return _tname(d)


def reduced_shape(shape, reduction):
    return tuple(shape) if reduction == 0 else ()


FLOAT = (D.float32, D.float64, D.float16, D.bfloat16)
