"""Every hand-written function of the `ember` namespace (torch/functional.py, torch/_tensor.py's helpers and
the hand-written parts of python_torch_functions.cpp): the ones that are not one generated binding.

- tensors from Python data and numpy: tensor, as_tensor / asarray, from_numpy, from_dlpack;
- the forms torch adds in Python on top of an aten schema: split with a list of sizes, unbind and chunk
  returning tuples, varargs tensor lists (einsum, meshgrid, broadcast_tensors, block_diag,
  cartesian_prod), tensordot's dims forms, nonzero(as_tuple=True), where(condition), unique's optional
  outputs, norm's p='fro'/'nuc', cdist's compute_mode names;
- small predicates and helpers: broadcast_shapes, result_type, is_tensor, is_floating_point, is_complex, is_conj,
  is_neg, numel;
- torch.gradient (ReduceOps.cpp's seven overloads, written in ops so autograd sees them).

`ember/__init__.py` re-exports `__all__`; `Tensor` methods that share these (split, nonzero, unique, norm)
call them from its class body. Argument errors come from `_arg_parser`, as a binding's would.
"""
import numbers

import numpy as np

from . import _arg_parser as _ap
from ._core import dtype as D
from ._core.device import as_device, default_device_or_none
from ._core.promotion import get_default_dtype, result_type as _result_type
from ._core.size import Size
from ._core.storage import UntypedStorage
from ._core.tls import state as _tls
from ._core.torch_function import NOT_HANDLED as _NOT_HANDLED, handle_locals as _tf_handle_locals, register as _tf_register
from ._core.tensor_impl import FACTORY_REFUSAL, TensorImpl as Tensor
from ._generated import functions as _F
from ._ops import ops

_TF = False      # the __torch_function__ check: kept current by _tf_register (see _core/torch_function.py)
_tf_register(globals())

__all__ = ["tensor", "as_tensor", "asarray", "from_numpy", "from_dlpack",
           "split", "unbind", "chunk", "nonzero", "where", "einsum", "tensordot", "meshgrid", "broadcast_tensors",
           "block_diag", "cartesian_prod", "atleast_1d", "atleast_2d", "atleast_3d", "unique", "unique_consecutive",
           "broadcast_shapes", "norm", "cdist", "lu", "result_type", "is_tensor", "is_floating_point", "is_complex",
           "is_conj", "is_neg", "numel", "equal", "chain_matmul", "split_copy", "split_with_sizes_copy",
           "unbind_copy", "is_nonzero", "is_same_size", "is_signed", "is_inference", "typename", "unravel_index",
           "detach_", "real", "imag", "get_device", "is_storage", "has_lapack", "has_mkl", "has_openmp", "has_spectral",
           "gradient", "frombuffer", "empty_permuted", "stft", "histogramdd"]

has_lapack = has_spectral = True       # ember's numpy builds give both (torch's build flags)
has_mkl = has_openmp = False           # no MKL or OpenMP in ember's kernels

_aten = ops.aten


# ------------------------------------------------------------------ tensors from data
def _infer_dtype(data):
    """torch's inference for Python data: every leaf has a type (bool -> bool, int -> int64, float -> the
    default dtype, complex -> the default complex, a numpy scalar -> its own dtype) and the result is their
    promotion (so [np.int32(1), 2] is int64, [np.float32(1), 2.0] float32). None: the data holds tensors or
    arrays (probed by numpy instead)."""
    out = None
    stack = [data]
    while stack:
        x = stack.pop()
        if isinstance(x, Tensor):
            return None
        if isinstance(x, (list, tuple)):
            stack.extend(x)
            continue
        if isinstance(x, np.ndarray):
            return None
        if isinstance(x, np.generic) and not isinstance(x, (np.str_, np.bytes_, np.void, np.object_)):
            leaf = D.from_numpy_dtype(x.dtype)
        elif isinstance(x, bool):
            leaf = D.bool_
        elif isinstance(x, numbers.Integral):
            leaf = D.int64
        elif isinstance(x, numbers.Real):
            leaf = get_default_dtype()
        elif isinstance(x, numbers.Complex):
            leaf = D.complex128 if get_default_dtype() is D.float64 else D.complex64
        else:
            raise TypeError(f"Could not infer dtype of {type(x).__name__}")
        out = leaf if out is None else D.promote_types(out, leaf)
    return get_default_dtype() if out is None else out


def _has_any(data):
    if isinstance(data, (list, tuple)):
        return any(_has_any(x) for x in data)
    return True


def _to_int_array(data, dt):
    """Python data as an array of the integer dtype `dt`, as torch's tensor() stores it (see _int_leaves): numpy's
    own conversion (which refuses an int out of range), after a probe of the data's kind for the dtypes narrower
    than int64 (numpy would truncate -0.5 or 255.5 into uint8, torch refuses them); the per-number rules where the
    data holds floats or numpy refused it. (A probe costs ~0.1 us on a 3-element list; int64 skips it: there
    numpy's truncation and errors are torch's but for floats within 1 of the range's ends.)"""
    npdt = dt._np
    if npdt != np.int64:
        try:
            probe = np.array(data)
        except (OverflowError, ValueError):
            probe = None
        if probe is None or probe.dtype.kind in "fO":
            return np.array(_int_leaves(data, dt), dtype=npdt)
    try:
        return np.array(data, dtype=npdt)
    except (OverflowError, ValueError):
        return np.array(_int_leaves(data, dt), dtype=npdt)


def _int_leaves(data, dt):
    """`data` (nested lists of numbers) with each number converted as torch's tensor() stores it into the integer
    dtype `dt` (tensor_new.cpp's store_scalar: an int is unpacked as a C long long, "Overflow when unpacking long
    long" past int64, then c10's checked_convert: "value cannot be converted to type uint8 without overflow",
    where an unsigned dtype also takes the negatives down to -max and wraps them: tensor([-2], dtype=uint8) is 254;
    a float must lie within the dtype's range, not NaN, and is truncated). Run only where numpy refused the data,
    so the common case pays nothing."""
    if isinstance(data, (list, tuple)):
        return [_int_leaves(x, dt) for x in data]
    if isinstance(data, Tensor) or isinstance(data, np.ndarray):
        return _to_numpy(data, dt)
    info = np.iinfo(dt._np)
    lo, hi = int(info.min), int(info.max)
    if isinstance(data, (bool, np.bool_)):
        return int(data)
    if isinstance(data, (int, np.integer)):
        v = int(data)
        if not -2 ** 63 <= v < 2 ** 63:
            raise ValueError("Overflow when unpacking long long")
        if v > hi or v < (-hi if lo == 0 else lo):
            raise RuntimeError(f"value cannot be converted to type {dt.name} without overflow")
        return v % (hi + 1) if lo == 0 else v
    if isinstance(data, (float, np.floating)):
        f = float(data)
        if f != f or f < lo or f > hi:
            raise RuntimeError(f"value cannot be converted to type {dt.name} without overflow")
        return int(f)
    return data


def _to_numpy(data, dt):
    if isinstance(data, Tensor):
        return data.numpy(force=True).astype(dt._np)
    if isinstance(data, (list, tuple)) and any(isinstance(x, Tensor) for x in data):
        data = [_to_numpy(x, dt) for x in data]
    half = dt._np.kind == "V" or dt._np == np.float16
    if dt._np.kind in "iu":
        return _to_int_array(data, dt)
    arr = np.array(data, dtype=None if half else dt._np)
    if arr.dtype == object:
        raise ValueError("expected a sequence of equal-length sequences of numbers")
    if half and arr.dtype != dt._np:
        from .kernels.cpu.copy_half import from_numbers
        return from_numbers(arr, dt._np)        # through float32, as c10 stores each number
    return arr.astype(dt._np, copy=False)


def _is_seq(x):
    return isinstance(x, (list, tuple, str, bytes)) or (hasattr(x, "__len__") and hasattr(x, "__getitem__")
                                                      and not isinstance(x, (dict, np.ndarray, Tensor)))


def _check_data(data, dtype):
    """torch's checks of Python data for tensor() (torch/csrc/utils/tensor_new.cpp), run when ember's numpy
    path failed, to raise torch's error: the shape from the first elements (compute_sizes: "too many
    dimensions 'str'"), the dtype of every leaf (infer_scalar_type: "Could not infer dtype of NoneType",
    "new(): invalid data type 'str'"), then each sequence against that shape (recursive_store: "expected
    sequence of length 2 at dim 1 (got 3)", "not a sequence"). Returns the shape when it holds no element
    (torch stores nothing then: [[], [1]] is a (2, 0) tensor), None when no check fails."""
    sizes, x = [], data
    while _is_seq(x):
        sizes.append(len(x))
        if len(sizes) > 64:
            raise ValueError(f"too many dimensions '{type(x).__name__}'")
        if not len(x):
            break
        x = x[0]
    leaves, stack = [], [data]
    while stack:
        x = stack.pop()
        if isinstance(x, (str, bytes)):
            raise TypeError(f"new(): invalid data type '{type(x).__name__}'")
        if _is_seq(x):
            stack.extend(reversed(list(x)))
        elif isinstance(x, (numbers.Number, np.generic, np.ndarray, Tensor)):
            leaves.append(x)
        else:
            raise RuntimeError(f"Could not infer dtype of {type(x).__name__}")
    if 0 in sizes:
        return tuple(sizes)
    integral = dtype.is_floating_point is False and not dtype.is_complex if dtype is not None else all(
        isinstance(v, numbers.Integral) for v in leaves)

    def store(seq, dim):
        if dim == len(sizes):
            if _is_seq(seq):
                raise TypeError(f"'{type(seq).__name__}' object cannot be interpreted as an integer" if integral
                                else f"must be real number, not {type(seq).__name__}")
            return
        if not _is_seq(seq):
            raise TypeError("not a sequence")
        if len(seq) != sizes[dim]:
            raise ValueError(f"expected sequence of length {sizes[dim]} at dim {dim} (got {len(seq)})")
        for item in seq:
            store(item, dim + 1)

    store(data, 0)
    return None


_NDARRAY_LIST_WARNED = []


def tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False):
    if _TF:
        _r = _tf_handle_locals(tensor, locals())
        if _r is not _NOT_HANDLED:
            return _r
    from .kernels.common import as_dtype
    if requires_grad is not False and requires_grad is not True:
        _ap.check_bool("tensor", "requires_grad", None, requires_grad)
    dt = as_dtype(dtype)
    dev = as_device(device if device is not None else default_device_or_none())
    if data.__class__ in (list, tuple) and data and isinstance(data[0], np.ndarray) and not _NDARRAY_LIST_WARNED:
        _NDARRAY_LIST_WARNED.append(True)       # TORCH_WARN_ONCE
        import warnings
        warnings.warn("Creating a tensor from a list of numpy.ndarrays is extremely slow. Please consider converting "
                      "the list to a single numpy.ndarray with numpy.array() before converting to a tensor.",
                      UserWarning, stacklevel=2)
    if isinstance(data, Tensor):
        import warnings
        warnings.warn("To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or "
                      "sourceTensor.detach().clone().requires_grad_(True), rather than torch.tensor(sourceTensor).",
                      UserWarning, stacklevel=2)
        t = data.detach().clone()
        if dt is not None:
            t = t.to(dt)
    elif isinstance(data, np.ndarray):
        dt = dt or D.from_numpy_dtype(data.dtype)
        t = Tensor._wrap_np(np.array(data, dtype=dt._np, copy=True), dt)
    else:
        if isinstance(data, (str, bytes)):
            raise TypeError(f"new(): invalid data type '{type(data).__name__}'")
        try:
            given = dt
            if dt is None:
                dt = _infer_dtype(data)
                if dt is None:
                    probe = np.asarray([x.numpy(force=True) if isinstance(x, Tensor) else x for x in data]) if isinstance(data, (list, tuple)) else np.asarray(data)
                    dt = D.from_numpy_dtype(probe.dtype) if probe.dtype != np.float64 or any(isinstance(x, np.ndarray) for x in data) else get_default_dtype()
            t = Tensor._wrap_np(np.array(_to_numpy(data, dt), copy=True), dt)
        except (TypeError, ValueError):
            sizes = _check_data(data, given)     # torch's own error for ragged or odd data, else re-raised
            if sizes is None:
                raise
            t = Tensor._wrap_np(np.empty(sizes, (given or get_default_dtype())._np), given or get_default_dtype())
    if dev is not None and dev.type != "cpu":
        t = t.to(dev)
    if _tls.mode_stack:
        t = ops.aten.lift_fresh.default(t)     # as torch: a mode (fake, make_fx) sees a fresh constant
    if requires_grad:
        t._set_requires_grad(True, FACTORY_REFUSAL)
    return t


def as_tensor(data, dtype=None, device=None):
    if _TF:
        _r = _tf_handle_locals(as_tensor, locals())
        if _r is not _NOT_HANDLED:
            return _r
    from .kernels.common import as_dtype
    _ap.check_dtype("as_tensor", "dtype", None, dtype)
    dt = as_dtype(dtype)
    dev = as_device(device)
    if isinstance(data, Tensor):
        r = data
        if dt is not None and dt is not r.dtype:
            r = r.to(dt)
        if dev is not None and dev != r.device:
            r = r.to(dev)
        return r
    if isinstance(data, np.ndarray) and (dev is None or dev.type == "cpu"):
        t = from_numpy(data)
        return t if dt is None or dt is t.dtype else t.to(dt)
    return tensor(data, dtype=dt, device=dev)


asarray = as_tensor


def from_numpy(ndarray):
    """A tensor sharing memory with `ndarray` (writes through either are seen by both)."""
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(ndarray).__name__})")
    dt = D.from_numpy_dtype(ndarray.dtype)
    if any(s < 0 for s in ndarray.strides):
        raise ValueError("At least one stride in the given numpy array is negative, and tensors with negative "
                         "strides are not currently supported. (You can probably work around this by making a copy "
                         "of your array  with array.copy().) ")    # (torch's message: double space, trailing space)
    if any(s % ndarray.itemsize for s in ndarray.strides):
        raise ValueError("given numpy array strides not a multiple of the element byte size. Copy the numpy array "
                         "to reallocate the memory.")
    if not ndarray.flags.writeable:
        # torch warns once and shares the memory writable: every in-place op writes it (ember's numpy kernels
        # would raise ValueError on a read-only array, its C kernels would write: one behaviour, torch's)
        _warn_not_writable()
        ndarray = _writable(ndarray)
    base = ndarray
    while isinstance(base.base, np.ndarray):
        base = base.base
    # build a byte view spanning the array's extent, sharing memory
    isz = ndarray.itemsize
    if ndarray.size == 0:
        # torch's strides for an empty array are all 0 (tensor_from_numpy: an empty array's strides say nothing),
        # where numpy's are its contiguous ones: from_numpy(np.zeros((0, 3))).stride() is (0, 0)
        st = UntypedStorage._from_numpy(np.empty(0, np.uint8))
        st._resizable = False
        t = Tensor._from_storage(st, 0, ndarray.shape, (0,) * ndarray.ndim, dt)
        t._np = ndarray
        return t
    extent = 1 + sum((n - 1) * (s // isz) for n, s in zip(ndarray.shape, ndarray.strides))
    flat = np.lib.stride_tricks.as_strided(ndarray, shape=(extent,), strides=(isz,)) if ndarray.ndim else ndarray.reshape(1)
    st = UntypedStorage._from_numpy(flat.view(np.uint8))
    st._resizable = False
    t = Tensor._from_storage(st, 0, ndarray.shape, tuple(s // isz for s in ndarray.strides), dt)
    t._np = ndarray
    return t


class _Capsule:
    """A bare DLPack capsule (the legacy `to_dlpack` result) presented as an exporter, for np.from_dlpack."""

    def __init__(self, capsule):
        self.capsule = capsule

    def __dlpack__(self, stream=None, **kwargs):
        return self.capsule

    def __dlpack_device__(self):
        return (1, 0)       # kDLCPU: the only device a capsule ember can read lives on


def from_dlpack(ext):
    """A tensor sharing the memory of `ext` (an object with __dlpack__, e.g. a torch or numpy array, or a
    DLPack capsule), without a copy."""
    if isinstance(ext, Tensor):
        return ext
    if type(ext).__name__ == "PyCapsule":
        return from_numpy(_writable(np.from_dlpack(_Capsule(ext))))
    if not hasattr(ext, "__dlpack__"):
        raise TypeError(f"from_dlpack expects an object with __dlpack__ or a DLPack capsule, got "
                        f"{type(ext).__name__}")
    return from_numpy(np.from_dlpack(ext))


_NOT_WRITABLE = []


def _warn_not_writable():
    """torch's TORCH_WARN_ONCE in tensor_numpy.cpp: once per process."""
    if not _NOT_WRITABLE:
        _NOT_WRITABLE.append(True)
        import warnings
        warnings.warn("The given NumPy array is not writable, and PyTorch does not support non-writable tensors. "
                      "This means writing to this tensor will result in undefined behavior. You may want to copy "
                      "the array to protect its data or make it writable before converting it to a tensor. This "
                      "type of warning will be suppressed for the rest of this program.", UserWarning, stacklevel=3)


def _writable(arr):
    """numpy marks an array read from a legacy (unversioned) capsule read-only, which has no flag for it;
    torch's tensor from such a capsule is writable: the same memory as a writable array (holding `arr`)."""
    if arr.flags.writeable or arr.size == 0:
        return arr
    import ctypes
    lo = sum((n - 1) * s for n, s in zip(arr.shape, arr.strides) if s < 0)
    hi = sum((n - 1) * s for n, s in zip(arr.shape, arr.strides) if s > 0) + arr.itemsize
    start = arr.ctypes.data + lo

    class _Buffer(ctypes.c_char * (hi - lo)):
        pass
    buf = _Buffer.from_address(start)
    buf.owner = arr                         # the capsule's memory lives as long as this array
    return np.ndarray(arr.shape, arr.dtype, buffer=buf, offset=-lo, strides=arr.strides)


# ------------------------------------------------------------------ views returning tuples


def split(tensor, split_size_or_sections, dim=0):
    if _TF:
        _r = _tf_handle_locals(split, locals())
        if _r is not _NOT_HANDLED:
            return _r
    if _ap._is_int(split_size_or_sections):
        return tuple(_aten.split.Tensor(tensor, int(split_size_or_sections), dim))
    _ap.check_tensor("split", "tensor", 1, tensor)
    _ap.check_int_list("split_with_sizes", "split_sizes", 2, split_size_or_sections)
    _ap.check_int("split_with_sizes", "dim", 3, dim)
    return tuple(_aten.split_with_sizes.default(tensor, list(split_size_or_sections), dim))


def unbind(input, dim=0):
    if _TF:
        _r = _tf_handle_locals(unbind, locals())
        if _r is not _NOT_HANDLED:
            return _r
    _ap.check_tensor("unbind", "input", 1, input)
    _ap.check_int("unbind", "dim", 2, dim)
    return tuple(_aten.unbind.int(input, dim))


def chunk(input, chunks, dim=0):
    if _TF:
        _r = _tf_handle_locals(chunk, locals())
        if _r is not _NOT_HANDLED:
            return _r
    _ap.check_tensor("chunk", "input", 1, input)
    _ap.check_int("chunk", "chunks", 2, chunks)
    _ap.check_int("chunk", "dim", 3, dim)
    return tuple(_aten.chunk.default(input, chunks, dim))


# ------------------------------------------------------------------ shape ops' Python forms
def _tensors(args, fname=None):
    ts = list(args[0]) if len(args) == 1 and isinstance(args[0], (list, tuple)) else list(args)
    if fname is not None:
        _ap.check_tensors(fname, "tensors", 1, ts)
    return ts


def nonzero(input, *, out=None, as_tuple=False):
    if _TF:
        _r = _tf_handle_locals(nonzero, locals())
        if _r is not _NOT_HANDLED:
            return _r
    _ap.check_bool("nonzero", "as_tuple", None, as_tuple)
    if not as_tuple:
        return _F.nonzero(input, out=out)
    x = input.unsqueeze(0) if input.dim() == 0 else input
    return tuple(_F.nonzero(x).unbind(1))


# torch.where's five signatures as its parser lists them (the generated binding merges the three Number forms
# into the Tensor one and lists two)
_WHERE_SIGS = ("(Tensor condition)", "(Tensor condition, Tensor input, Tensor other, *, Tensor out = None)",
               "(Tensor condition, Number self, Tensor other)", "(Tensor condition, Tensor input, Number other)",
               "(Tensor condition, Number self, Number other)")


def where(condition, input=None, other=None, *extra, out=None):
    if extra:       # (torch's parser counts the most positional arguments any signature takes: 3)
        raise TypeError(f"where() takes 3 positional arguments but {3 + len(extra)} were given")
    if _TF:
        _r = _tf_handle_locals(where, locals())
        if _r is not _NOT_HANDLED:
            return _r
    if input is None and other is None:
        return tuple(_F.where(condition))
    try:
        if out is not None:
            return _F.where(condition, input, other, out=out)
        return _F.where(condition, input, other)
    except TypeError as e:
        if not str(e).startswith("where() received an invalid combination"):
            raise
        # (`where(c, x)` reads as other=None here: taken as the two-argument call torch reports, "got (Tensor,
        # Tensor)"; an explicit `where(c, x, None)` is reported the same way)
        args = (condition, input) if other is None else (condition, input, other)
        raise _ap._no_match("where", args, {} if out is None else {"out": out}, _WHERE_SIGS, False) from None


def _sublist_equation(args):
    """einsum's sublist format (op, [0, 1], op, [1, 2], [0, 2]) as an equation string."""
    letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"

    def sub(lst):
        return "".join("..." if s is Ellipsis else letters[s] for s in lst)
    ops, terms = list(args[0::2]), [sub(s) for s in args[1::2]]
    out = None
    if len(args) % 2 == 1:
        out = sub(args[-1])
        ops = ops[:-1]
    return ",".join(terms) + ("" if out is None else "->" + out), ops


def einsum(*args):
    if _TF:
        _r = _tf_handle_locals(einsum, locals())
        if _r is not _NOT_HANDLED:
            return _r
    if not args:
        raise ValueError("einsum(): must specify the equation string and at least one operand, or at least one "
                         "operand and its subscripts list")
    if isinstance(args[0], str):
        if len(args) == 1:
            raise ValueError("einsum(): must specify the equation string and at least one operand, or at least "
                             "one operand and its subscripts list")
        return _F.einsum(args[0], _tensors(args[1:], "einsum"))
    eq, ops = _sublist_equation(args)
    return _F.einsum(eq, ops)


def tensordot(a, b, dims=2, out=None):
    if _TF:
        _r = _tf_handle_locals(tensordot, locals())
        if _r is not _NOT_HANDLED:
            return _r
    if isinstance(dims, Tensor):
        dims = dims.tolist()
    _ap.check_tensor("tensordot", "a", 1, a)
    _ap.check_tensor("tensordot", "b", 2, b)
    if not (isinstance(dims, int) or isinstance(dims, (list, tuple)) and len(dims) == 2):
        raise RuntimeError(f"tensordot expects dims to be int or tuple[list[int], list[int]] or list[list[int]] "
                           f"containing two lists, but got dims={dims}")
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        da, db = list(range(a.dim() - dims, a.dim())), list(range(dims))
    else:
        da, db = dims
        da = [da] if isinstance(da, int) else list(da)
        db = [db] if isinstance(db, int) else list(db)
    return _F.tensordot(a, b, da, db, out=out)


def _pieces(r):
    return None if r is None else tuple(r)


def split_copy(input, split_size, dim=0, *, out=None):
    """torch.split_copy: the pieces of split(), each a fresh tensor (a tuple, as torch's binding returns)."""
    if _TF:
        _r = _tf_handle_locals(split_copy, locals())
        if _r is not _NOT_HANDLED:
            return _r
    return _pieces(_F.split_copy(input, split_size, dim, out=out))


def split_with_sizes_copy(input, split_sizes, dim=0, *, out=None):
    if _TF:
        _r = _tf_handle_locals(split_with_sizes_copy, locals())
        if _r is not _NOT_HANDLED:
            return _r
    return _pieces(_F.split_with_sizes_copy(input, split_sizes, dim, out=out))


def unbind_copy(input, dim=0, *, out=None):
    if _TF:
        _r = _tf_handle_locals(unbind_copy, locals())
        if _r is not _NOT_HANDLED:
            return _r
    return _pieces(_F.unbind_copy(input, dim, out=out))


def chain_matmul(*matrices, out=None):
    """torch.chain_matmul(*matrices): the deprecated form of linalg.multi_dot (one matrix: a copy)."""
    if _TF:
        _r = _tf_handle_locals(chain_matmul, locals())
        if _r is not _NOT_HANDLED:
            return _r
    _ap.check_tensors("chain_matmul", "matrices", 1, matrices)
    if out is None:
        return _F.chain_matmul(list(matrices))
    return _F.chain_matmul(list(matrices), out=out)


def meshgrid(*tensors, indexing=None):
    if _TF:
        _r = _tf_handle_locals(meshgrid, locals())
        if _r is not _NOT_HANDLED:
            return _r
    ts = _tensors(tensors, "meshgrid")
    if indexing is not None:
        _ap.check_str("meshgrid", "indexing", None, indexing)
    if indexing is None:
        return tuple(_F.meshgrid(ts))
    return tuple(_F.meshgrid(ts, indexing=indexing))


def broadcast_tensors(*tensors):
    if _TF:
        _r = _tf_handle_locals(broadcast_tensors, locals())
        if _r is not _NOT_HANDLED:
            return _r
    return tuple(_F.broadcast_tensors(_tensors(tensors, "broadcast_tensors")))


def block_diag(*tensors):
    if _TF:
        _r = _tf_handle_locals(block_diag, locals())
        if _r is not _NOT_HANDLED:
            return _r
    _ap.check_tensors("block_diag", "tensors", 1, tensors)
    return _F.block_diag(list(tensors))


def _atleast(name, tensors):
    """torch.atleast_Nd(t) is one tensor; atleast_Nd(a, b) and atleast_Nd([a, b]) are tuples."""
    op = getattr(_aten, name).default
    if len(tensors) == 1 and not isinstance(tensors[0], (list, tuple)):
        _ap.check_tensors(name, "input", 1, tensors)
        return op(tensors[0])
    ts = _tensors(tensors, name)
    return tuple(op(t) for t in ts)


def atleast_1d(*tensors):
    if _TF:
        _r = _tf_handle_locals(atleast_1d, locals())
        if _r is not _NOT_HANDLED:
            return _r
    return _atleast("atleast_1d", tensors)


def atleast_2d(*tensors):
    if _TF:
        _r = _tf_handle_locals(atleast_2d, locals())
        if _r is not _NOT_HANDLED:
            return _r
    return _atleast("atleast_2d", tensors)


def atleast_3d(*tensors):
    if _TF:
        _r = _tf_handle_locals(atleast_3d, locals())
        if _r is not _NOT_HANDLED:
            return _r
    return _atleast("atleast_3d", tensors)


def cartesian_prod(*tensors):
    if _TF:
        _r = _tf_handle_locals(cartesian_prod, locals())
        if _r is not _NOT_HANDLED:
            return _r
    _ap.check_tensors("cartesian_prod", "tensors", 1, tensors)
    return _F.cartesian_prod(list(tensors))


# ------------------------------------------------------------------ unique
def _pick(out, return_inverse, return_counts):
    vals, inv, cnt = out
    if return_inverse and return_counts:
        return vals, inv, cnt
    if return_inverse:
        return vals, inv
    if return_counts:
        return vals, cnt
    return vals


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    if _TF:
        _r = _tf_handle_locals(unique, locals())
        if _r is not _NOT_HANDLED:
            return _r
    if dim is None:
        out = _F._unique2(input, sorted, return_inverse, return_counts)
    else:
        out = _F.unique_dim(input, dim, sorted, return_inverse, return_counts)
    return _pick(out, return_inverse, return_counts)


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    if _TF:
        _r = _tf_handle_locals(unique_consecutive, locals())
        if _r is not _NOT_HANDLED:
            return _r
    return _pick(_F.unique_consecutive(input, return_inverse, return_counts, dim), return_inverse, return_counts)


# ------------------------------------------------------------------ norms, distances, broadcasting
_CDIST_MODES = {"use_mm_for_euclid_dist_if_necessary": None, "use_mm_for_euclid_dist": 1,
                "donot_use_mm_for_euclid_dist": 2}


def broadcast_shapes(*shapes):
    norm_shapes = []
    for s in shapes:
        if _ap._is_int(s):
            s = (s,)
        elif not hasattr(s, "__iter__"):
            raise RuntimeError(f"Input shapes should be of type ints, a tuple of ints, or a list of ints, got {s}")
        for v in s:
            if not _ap._is_int(v):
                raise TypeError(f"broadcast_shapes(): a shape holds {type(v).__name__} {v!r}, expected int")
        norm_shapes.append(tuple(int(v) for v in s))
    return Size(_broadcast_in_order(norm_shapes))


def _broadcast_in_order(shapes):
    """torch.broadcast_shapes: grow the result argument by argument, naming the first one that does
    not fit the result so far (torch's message, with the dim counted from the end)."""
    n = max((len(s) for s in shapes), default=0)
    out = [1] * n
    for k, s in enumerate(shapes):
        for i in range(-1, -len(s) - 1, -1):
            d = s[i]
            if d < 0:
                raise ValueError("Attempting to broadcast a dimension with negative length!")
            if d == 1 or d == out[i]:
                continue
            if out[i] != 1:
                raise RuntimeError(f"Attempting to broadcast a dimension of length {d} at {i}! Mismatching argument "
                                   f"at index {k} had {tuple(s)}; but expected shape should be broadcastable to "
                                   f"{out}")
            out[i] = d
    return tuple(out)


_LINALG = []      # the generated linalg bindings, once norm has loaded them


def norm(input, p="fro", dim=None, keepdim=False, out=None, dtype=None):
    """torch.norm: p may be a number, 'fro' or 'nuc' (torch/functional.py); built on linalg's vector and
    matrix norms."""
    if _TF:
        _r = _tf_handle_locals(norm, locals())
        if _r is not _NOT_HANDLED:
            return _r
    if p == "fro" and dim is None and keepdim is False and out is None and dtype is None and _LINALG \
            and isinstance(input, Tensor):
        return _LINALG[0].linalg_vector_norm(input, 2, None, False)     # `x.norm()`: nothing left to check
    _ap.check_tensor("norm", "input", 1, input)
    if dim is not None and not isinstance(dim, int):
        _ap.check_int_list("norm", "dim", 3, dim)
    _ap.check_bool("norm", "keepdim", 4, keepdim)
    _ap.check_tensor("norm", "out", None, out, optional=True)
    _ap.check_dtype("norm", "dtype", None, dtype)
    if isinstance(p, str) and p not in ("fro", "nuc"):
        raise RuntimeError(f"linalg.matrix_norm: Order {p} not supported.")
    if isinstance(dim, int):
        dim = (dim,)
    from ._generated import linalg_functions as _linalg   # ember._linalg, loaded on first use
    if not _LINALG:
        _LINALG.append(_linalg)
    if p == "nuc":
        return _linalg.linalg_matrix_norm(input, "nuc", list(dim) if dim is not None else list(range(input.dim())),
                                          keepdim, dtype=dtype, out=out)
    return _linalg.linalg_vector_norm(input, 2 if p in ("fro", None) else p, dim, keepdim, dtype=dtype, out=out)


def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """torch.cdist (torch/functional.py): compute_mode is a name here, the op's int code below."""
    if _TF:
        _r = _tf_handle_locals(cdist, locals())
        if _r is not _NOT_HANDLED:
            return _r
    if compute_mode not in _CDIST_MODES:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    return _F.cdist(x1, x2, p, _CDIST_MODES[compute_mode])


def lu(A, pivot=True, get_infos=False, out=None):
    """torch.lu (deprecated for linalg.lu_factor): (LU, pivots) or, with get_infos, (LU, pivots, infos);
    never raises on singular inputs."""
    if _TF:
        _r = _tf_handle_locals(lu, locals())
        if _r is not _NOT_HANDLED:
            return _r
    LU, piv, info = _F._lu_with_info(A, pivot=pivot, check_errors=not get_infos)
    res = (LU, piv, info) if get_infos else (LU, piv)
    if out is None:
        return res
    if len(out) != len(res):
        raise TypeError(f"expected tuple of {len(res)} elements but got {len(out)}")
    from .kernels.common import resize_internal
    for o, r in zip(out, res):
        resize_internal(o, r.shape).copy_(r)
    return tuple(out)


# ------------------------------------------------------------------ predicates
def result_type(tensor1, tensor2):
    if _TF:
        _r = _tf_handle_locals(result_type, locals())
        if _r is not _NOT_HANDLED:
            return _r
    return _result_type(tensor1, tensor2)


def is_tensor(obj):
    return isinstance(obj, Tensor)


def is_floating_point(input):
    if _TF:
        _r = _tf_handle_locals(is_floating_point, locals())
        if _r is not _NOT_HANDLED:
            return _r
    _ap.check_tensor("is_floating_point", "input", 1, input)
    return input.dtype.is_floating_point


def is_complex(input):
    if _TF:
        _r = _tf_handle_locals(is_complex, locals())
        if _r is not _NOT_HANDLED:
            return _r
    _ap.check_tensor("is_complex", "input", 1, input)
    return input.dtype.is_complex


def is_conj(input):
    """The lazy conjugate bit (x.conj() of a complex tensor is a view with it set)."""
    if _TF:
        _r = _tf_handle_locals(is_conj, locals())
        if _r is not _NOT_HANDLED:
            return _r
    _ap.check_tensor("is_conj", "input", 1, input)
    return input.is_conj()


def is_neg(input):
    """The lazy negative bit (x.conj().imag is a view with it set)."""
    if _TF:
        _r = _tf_handle_locals(is_neg, locals())
        if _r is not _NOT_HANDLED:
            return _r
    _ap.check_tensor("is_neg", "input", 1, input)
    return input.is_neg()


def numel(input):
    if _TF:
        _r = _tf_handle_locals(numel, locals())
        if _r is not _NOT_HANDLED:
            return _r
    _ap.check_tensor("numel", "input", 1, input)
    return input.numel()


def equal(input, other):
    """torch.equal: True when both tensors have the same size and the same elements (values compared after
    type promotion, so an int64 and a float32 tensor of equal values are equal; NaN never equals NaN)."""
    if _TF:
        _r = _tf_handle_locals(equal, locals())
        if _r is not _NOT_HANDLED:
            return _r
    _ap.check_tensor("equal", "input", 1, input)
    _ap.check_tensor("equal", "other", 2, other)
    if input.device.type == "meta" or other.device.type == "meta":
        raise NotImplementedError("aten::equal: attempted to run this operator with Meta tensors, but there was no "
                                  "fake impl or Meta kernel registered.")
    if input.shape != other.shape:
        return False
    return bool(_F.eq(input.detach(), other.detach()).all())


def is_nonzero(input):
    """The truth value of a one-element tensor (torch's errors for zero or several elements)."""
    if _TF:
        _r = _tf_handle_locals(is_nonzero, locals())
        if _r is not _NOT_HANDLED:
            return _r
    _ap.check_tensor("is_nonzero", "input", 1, input)
    n = input.numel()
    if n == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if n > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return bool(input.detach().item())


def real(input):
    if _TF:
        _r = _tf_handle_locals(real, locals())
        if _r is not _NOT_HANDLED:
            return _r
    _ap.check_tensor("real", "input", 1, input)
    return input.real


def imag(input):
    if _TF:
        _r = _tf_handle_locals(imag, locals())
        if _r is not _NOT_HANDLED:
            return _r
    _ap.check_tensor("imag", "input", 1, input)
    return input.imag


def get_device(input):
    if _TF:
        _r = _tf_handle_locals(get_device, locals())
        if _r is not _NOT_HANDLED:
            return _r
    _ap.check_tensor("get_device", "input", 1, input)
    return input.get_device()


def is_storage(obj):
    return isinstance(obj, UntypedStorage)


def detach_(input):
    if _TF:
        _r = _tf_handle_locals(detach_, locals())
        if _r is not _NOT_HANDLED:
            return _r
    _ap.check_tensor("detach_", "input", 1, input)
    return input.detach_()


def is_same_size(input, other):
    if _TF:
        _r = _tf_handle_locals(is_same_size, locals())
        if _r is not _NOT_HANDLED:
            return _r
    _ap.check_tensor("is_same_size", "input", 1, input)
    _ap.check_tensor("is_same_size", "other", 2, other)
    return input.shape == other.shape


def is_signed(input):
    if _TF:
        _r = _tf_handle_locals(is_signed, locals())
        if _r is not _NOT_HANDLED:
            return _r
    _ap.check_tensor("is_signed", "input", 1, input)
    return input.is_signed()


def is_inference(input):
    if _TF:
        _r = _tf_handle_locals(is_inference, locals())
        if _r is not _NOT_HANDLED:
            return _r
    _ap.check_tensor("is_inference", "input", 1, input)
    return input.is_inference()


def typename(obj):
    """torch.typename: a tensor's type() string, else the object's dotted class or function name."""
    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(obj, "__module__", "") or ""
    if hasattr(obj, "__qualname__"):
        qualname = obj.__qualname__
    elif hasattr(obj, "__name__"):
        qualname = obj.__name__
    else:
        module = obj.__class__.__module__ or ""
        qualname = obj.__class__.__qualname__
    return qualname if module in ("", "builtins") else f"{module}.{qualname}"


def unravel_index(indices, shape):
    """Flat indices -> a tuple of coordinate tensors for `shape` (torch/functional.py's unravel_index)."""
    if _TF:
        _r = _tf_handle_locals(unravel_index, locals())
        if _r is not _NOT_HANDLED:
            return _r
    if indices.dtype.is_complex or indices.dtype.is_floating_point or indices.dtype == D.bool_:
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    if isinstance(shape, numbers.Integral) and not isinstance(shape, bool):
        shape = (int(shape),)
    elif isinstance(shape, (list, tuple, Size)):
        for d in shape:
            if not isinstance(d, numbers.Integral) or isinstance(d, bool):
                raise TypeError(f"expected 'shape' sequence to only contain ints, but got {type(d)}")
        shape = tuple(int(d) for d in shape)
    elif isinstance(shape, str):
        raise TypeError(f"expected 'shape' sequence to only contain ints, but got {type(shape[0]) if shape else str}")
    else:
        raise TypeError(f"expected 'shape' to be int or sequence of ints, but got {type(shape)}")
    if any(d < 0 for d in shape):
        raise ValueError(f"'shape' cannot have negative values, but got {shape}")
    coefs, acc = [], 1
    for d in reversed(shape):
        coefs.append(acc)
        acc *= d
    coefs = tensor(coefs[::-1], dtype=D.int64, device=indices.device)
    sizes = tensor(list(shape), dtype=D.int64, device=indices.device)
    return _F.remainder(_F.floor_divide(indices.unsqueeze(-1), coefs), sizes).unbind(-1)


# ------------------------------------------------------------------ gradient (ReduceOps.cpp's gradient overloads)
_GRADIENT_SIGS = (
    "(Tensor input, *, tuple of ints dim, int edge_order = 1)",
    "(Tensor input, *, Number spacing, tuple of ints dim, int edge_order = 1)",
    "(Tensor input, *, Number spacing = None, int dim = None, int edge_order = 1)",
    "(Tensor input, *, tuple of Scalars spacing, int dim = None, int edge_order = 1)",
    "(Tensor input, *, tuple of Scalars spacing, tuple of ints dim, int edge_order = 1)",
    "(Tensor input, *, tuple of Tensors spacing, int dim = None, int edge_order = 1)",
    "(Tensor input, *, tuple of Tensors spacing, tuple of ints dim, int edge_order = 1)",
)


def gradient(input, *args, spacing=None, dim=None, edge_order=1):
    """Central differences inside, one-sided (edge_order 1 or 2) at the ends, per dimension: torch.gradient.
    `spacing` is one number for every dimension, one number per dimension, or per dimension the coordinates of
    the samples (1-D tensors); the result is a tuple with one tensor per differentiated dimension."""
    if _TF:
        _r = _tf_handle_locals(gradient, locals())
        if _r is not _NOT_HANDLED:
            return _r
    def no_match():
        kw = {k: v for k, v, d in (("spacing", spacing, None), ("dim", dim, None), ("edge_order", edge_order, 1))
              if v is not d}
        err = _ap._no_match("gradient", (input,) + args, kw, _GRADIENT_SIGS, False)
        return TypeError(str(err))

    if args or not isinstance(input, Tensor) or not _ap._is_int(edge_order):
        raise no_match()
    if dim is None or _ap._is_int(dim):
        dims, dim_given = (list(range(input.dim())) if dim is None else [int(dim)]), dim is not None
    elif _ap._is_intlist(dim):
        dims, dim_given = [int(d) for d in dim], True
    else:
        raise no_match()
    if spacing is None or _ap._is_scalar(spacing):
        unit = 1.0 if spacing is None else spacing.item() if isinstance(spacing, Tensor) else spacing
        spacing_size = len(dims) if spacing is not None or _ap._is_intlist(dim) else None
        spacing = [unit] * len(dims)
        coordinates = False
    elif isinstance(spacing, (list, tuple)) and all(_ap._is_scalar(s) and not isinstance(s, Tensor)
                                                    for s in spacing):
        spacing, spacing_size, coordinates = list(spacing), len(spacing), False
    elif _ap._is_tensorlist(spacing):
        spacing, spacing_size, coordinates = list(spacing), len(spacing), True
    else:
        raise no_match()
    _gradient_check(input, spacing_size, dims if dim_given else None, edge_order)
    if coordinates:
        for c in spacing:
            if c.device != input.device:
                raise RuntimeError(f"torch.gradient expected each tensor to be on the same device, but got devices "
                                   f"{input.device} and {c.device}!")
    out = []
    for i, d in enumerate(dims):
        d = d + input.dim() if d < 0 else d
        part = _gradient_coordinates if coordinates else _gradient_uniform
        out.append(part(input, spacing[i], d, edge_order))
    return tuple(out)


def _gradient_check(x, spacing_size, dims, edge_order):
    if x.dtype is D.uint8:
        raise RuntimeError("torch.gradient does not support uint8 input.")
    if spacing_size is not None and dims is None and spacing_size != x.dim():
        raise RuntimeError("torch.gradient expected spacing to be unspecified, a scalar, or a list of length equal "
                           f"to 'self.dim() = {x.dim()}', since dim argument was not given, but got a list of "
                           f"length {spacing_size}")
    if spacing_size is not None and dims is not None and spacing_size != len(dims):
        raise RuntimeError("torch.gradient expected spacing to be unspecified, a scalar or it's spacing and dim "
                           f"arguments to have the same length, but got a spacing argument of length {spacing_size} "
                           f"and a dim argument of length {len(dims)}.")
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    from ._core.strides import wrap_dim
    if dims is not None:
        seen = set()
        for d in dims:
            w = wrap_dim(d, x.dim())
            if w in seen:
                raise RuntimeError(f"dim {w} appears multiple times in the list of dims")
            seen.add(w)
    for d in (range(x.dim()) if dims is None else dims):
        if x.shape[d] < edge_order + 1:
            raise RuntimeError("torch.gradient expected each dimension size to be at least edge_order+1")


def _gradient_uniform(x, h, d, edge_order):
    """One dimension with samples `h` apart (gradient_helper_float)."""
    n = x.shape[d]
    sl = lambda a, b: x.narrow(d, a, b - a)       # noqa: E731  (x[a:b] along d)
    center = (sl(2, n) - sl(0, n - 2)) / h
    if edge_order == 1:
        first = (sl(1, 2) - sl(0, 1)) / h
        last = (sl(n - 1, n) - sl(n - 2, n - 1)) / h
    else:
        first = (-1.5 * sl(0, 1) + 2 * sl(1, 2) - 0.5 * sl(2, 3)) / h
        last = (0.5 * sl(n - 3, n - 2) - 2 * sl(n - 2, n - 1) + 1.5 * sl(n - 1, n)) / h
    return _F.cat([first, center / 2, last], d)


def _gradient_coordinates(x, coords, d, edge_order):
    """One dimension sampled at the 1-D `coords` (gradient_helper): second-order differences for uneven steps."""
    if coords.dim() != 1:
        raise RuntimeError("torch.gradient expected each element of spacing to have one dimension, but got an "
                           f"element with {coords.dim()} dimensions!")
    n = x.shape[d]
    sl = lambda a, b: x.narrow(d, a, b - a)       # noqa: E731
    shape = [1] * x.dim()
    shape[d] = -1
    dx = _F.diff(coords, 1, 0)
    dx1, dx2 = dx[:-1], dx[1:]
    a = (-dx2 / (dx1 * (dx1 + dx2))).reshape(shape)
    b = ((dx2 - dx1) / (dx1 * dx2)).reshape(shape)
    c = (dx1 / (dx2 * (dx1 + dx2))).reshape(shape)
    center = a * sl(0, n - 2) + b * sl(1, n - 1) + c * sl(2, n)
    if edge_order == 1:
        first = (sl(1, 2) - sl(0, 1)) / dx[0]
        last = (sl(n - 1, n) - sl(n - 2, n - 1)) / dx[-1]
    else:
        h0, h1 = dx[0], dx[1]
        first = (-(2.0 * h0 + h1) / (h0 * (h0 + h1)) * sl(0, 1) + (h0 + h1) / (h0 * h1) * sl(1, 2)
                 + -h0 / (h1 * (h0 + h1)) * sl(2, 3))
        h0, h1 = dx[-1], dx[-2]
        last = (h0 / (h1 * (h0 + h1)) * sl(n - 3, n - 2) - (h0 + h1) / (h0 * h1) * sl(n - 2, n - 1)
                + (2 * h0 + h1) / (h0 * (h0 + h1)) * sl(n - 1, n))
    return _F.cat([first, center, last], d)


# ------------------------------------------------------------------ range (deprecated; ember/__init__ binds it as range)
_NO_END = object()


def deprecated_range(start=0, end=_NO_END, step=1, *, out=None, dtype=None, layout=None, device=None,
                     pin_memory=False, requires_grad=False):
    """torch.range: like arange but `end` included, and the default float dtype even for integer bounds."""
    import math
    import warnings
    if end is _NO_END:
        raise TypeError('range() missing 1 required positional arguments: "end"')
    warnings.warn("torch.range is deprecated and will be removed in a future release because its behavior is "
                  "inconsistent with Python's range builtin. Instead, use torch.arange, which produces values in "
                  "[start, end).", stacklevel=2)
    from .kernels.common import as_dtype
    dt = as_dtype(dtype) if dtype is not None else (out.dtype if out is not None else get_default_dtype())
    vals = [v.item() if isinstance(v, Tensor) else v for v in (start, end, step)]
    if not (dt.is_floating_point or dt.is_complex):
        vals = [int(v) for v in vals]                 # integral dtypes compute in int64, as torch's accscalar
    s, e, st = vals
    if st == 0:
        raise RuntimeError("step must be nonzero")
    if (st > 0 and e < s) or (st < 0 and e > s):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    size = (e - s) / st + 1
    if not math.isfinite(size):
        raise RuntimeError(f"unsupported range: {s} -> {e}")
    n = int(size)
    idx = _F.arange(n, dtype=D.float64 if dt.is_floating_point or dt.is_complex else D.int64, device=device)
    result = (idx * st + s).to(dt)
    if out is not None:
        from .kernels.common import resize_internal
        resize_internal(out, result.shape)
        out.copy_(result)
        return out
    return result.requires_grad_(requires_grad) if requires_grad else result


# ------------------------------------------------------------------ frombuffer, empty_permuted
_FROMBUFFER_WARNED = [False]


def frombuffer(buffer, *, dtype=None, count=-1, offset=0, requires_grad=False):
    """A 1-D tensor over the bytes of a Python buffer (bytes, bytearray, array, mmap, ...), sharing its memory."""
    import warnings
    if dtype is None:
        raise TypeError('frombuffer() missing 1 required positional arguments: "dtype"')
    try:
        view = memoryview(buffer)
    except TypeError:
        raise ValueError("object does not implement Python buffer protocol.") from None
    if view.readonly and not _FROMBUFFER_WARNED[0]:
        _FROMBUFFER_WARNED[0] = True
        warnings.warn("The given buffer is not writable, and PyTorch does not support non-writable tensors. This "
                      "means you can write to the underlying (supposedly non-writable) buffer using the tensor. You "
                      "may want to copy the buffer to protect its data or make it writable before converting it to a "
                      "tensor. This type of warning will be suppressed for the rest of this program.", stacklevel=2)
    length = view.nbytes
    elsize = dtype.itemsize
    if not (length > 0 and count != 0):
        raise ValueError(f"both buffer length ({length}) and count ({count}) must not be 0")
    if not (0 <= offset < length):
        raise ValueError(f"offset ({offset} bytes) must be non-negative and no greater than buffer length ({length} "
                         "bytes) minus 1")
    if count <= 0 and (length - offset) % elsize:
        raise ValueError(f"buffer length ({length - offset} bytes) after offset ({offset} bytes) must be a multiple "
                         f"of element size ({elsize})")
    n = (length - offset) // elsize if count < 0 else count
    if offset + n * elsize > length:
        raise ValueError(f"requested buffer length ({n} * {elsize} bytes) after offset ({offset} bytes) must not be "
                         f"greater than actual buffer length ({length} bytes)")
    arr = np.frombuffer(view.cast("B"), dtype=dtype._np, count=n, offset=offset)
    t = from_numpy(_writable(arr))          # (warned above, as torch, not again by from_numpy)
    return t._set_requires_grad(True, FACTORY_REFUSAL) or t if requires_grad else t


def empty_permuted(size, physical_layout, *, dtype=None, layout=None, device=None, requires_grad=False,
                   pin_memory=False):
    """An uninitialized tensor of shape `size` whose memory holds the dims in the order `physical_layout`
    (outermost first): empty_permuted((2, 3, 4), (0, 2, 1)) has strides (12, 1, 3)."""
    size, perm = tuple(size), tuple(physical_layout)
    if len(size) != len(perm):
        raise RuntimeError("Number of dimensions in size does not match the length of the physical_layout; i.e. "
                           f"len(size) = {len(size)} is not equal to len(physical_layout) = {len(perm)}")
    if len(set(perm)) != len(perm) or any(not 0 <= p < len(perm) for p in perm):
        raise RuntimeError("Duplicate dim not allowed")
    inverse = [0] * len(perm)
    for i, p in enumerate(perm):
        inverse[p] = i
    phys = _F.empty([size[p] for p in perm], dtype=dtype, device=device)
    out = phys.permute(*inverse) if perm else phys
    return out._set_requires_grad(True, FACTORY_REFUSAL) or out if requires_grad else out


def stft(input, n_fft, hop_length=None, win_length=None, window=None, center=True, pad_mode="reflect",
         normalized=False, onesided=None, return_complex=None, align_to_window=None):
    """torch.stft (torch/functional.py): the short-time Fourier transform; the centred form pads the signal by
    n_fft // 2 with pad_mode before aten's stft (kernels/decompositions/fft.py)."""
    if _TF:
        _r = _tf_handle_locals(stft, locals())
        if _r is not _NOT_HANDLED:
            return _r
    _ap.check_tensor("stft", "input", 1, input)
    return ops.aten.stft.center(input, n_fft, hop_length, win_length, window, center, pad_mode, normalized,
                                onesided, return_complex, align_to_window)


def histogramdd(input, bins, *, range=None, weight=None, density=False):
    """torch.histogramdd: the histogram of the points in input's innermost dim; bins an int (every coordinate),
    a list of ints (bin counts, edges over range or the points' extent) or a list of edge tensors. Returns
    return_types.histogramdd(hist, bin_edges)."""
    if _TF:
        _r = _tf_handle_locals(histogramdd, locals())
        if _r is not _NOT_HANDLED:
            return _r
    from .return_types import histogramdd as _result
    _ap.check_tensor("histogramdd", "input", 1, input)
    if isinstance(bins, int):
        bins = [bins] * (input.shape[-1] if input.dim() else 1)
    bins = list(bins)
    if bins and all(isinstance(b, int) for b in bins):
        edges = ops.aten._histogramdd_bin_edges.default(input, bins, range=range, weight=weight, density=density)
        hist = ops.aten._histogramdd_from_bin_cts.default(input, bins, range=range, weight=weight, density=density)
    else:
        hist = ops.aten._histogramdd_from_bin_tensors.default(input, bins, weight=weight, density=density)
        edges = bins
    return _result(hist, tuple(edges))
