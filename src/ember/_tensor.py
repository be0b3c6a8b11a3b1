"""Tensor: a strided view (sizes, strides, offset, dtype) over an UntypedStorage (c10 TensorImpl +
torch/_tensor.py). Operator methods are attached by the generated `_generated/tensor_methods.py`.

On cpu a tensor caches `_np`, a numpy ndarray viewing exactly its elements in the storage; kernels
read and write through it. A tensor made from a fresh numpy result creates its storage lazily.
"""
import numpy as np

from ._core import dtype as _dt
from ._core.device import CPU, META, device as _device
from ._core.size import Size
from ._core.storage import UntypedStorage
from ._core.strides import contiguous_strides, is_contiguous, is_channels_last, is_non_overlapping_and_dense
from ._core.tls import state as _tls
from ._core.version import VersionCounter
from ._dispatch.keys import AUTOGRAD_BIT, CPU_BIT, INPLACE_OR_VIEW_BIT, META_BIT

_CPU_KS = CPU_BIT | INPLACE_OR_VIEW_BIT
_INFERENCE = [0]   # threads currently in inference_mode: constructors check the thread-local flag only then


class _InferenceVersionCounter:
    """Shared by every inference tensor: no version tracking; writing through it outside
    inference_mode is torch's in-place error (the ADInplaceOrView bump is where in-place lands)."""
    __slots__ = ()

    @property
    def value(self):
        self.check_write()
        return 0

    def check_write(self):
        if not _tls.inference_mode:
            raise RuntimeError("Inplace update to inference tensor outside InferenceMode is not allowed."
                               "You can make a clone to get a normal tensor before doing inplace update."
                               "See https://github.com/pytorch/rfcs/pull/17 for more details.")

    @value.setter
    def value(self, v):
        pass

    def bump(self):
        self.value += 1


INFERENCE_VC = _InferenceVersionCounter()
_META_KS = META_BIT | INPLACE_OR_VIEW_BIT


class Tensor:
    _is_param = False
    __array_priority__ = 1000   # make numpy defer to Tensor's reflected operators
    # defaults shared by every tensor until set on the instance (keeps tensor creation cheap)
    _storage = None
    _offset = 0
    _stride = None
    _base = None
    _requires_grad = False
    grad_fn = None
    _grad = None
    _retains_grad = False
    _backward_hooks = None
    _post_acc_hooks = None
    _output_nr = 0
    _vc = None

    # ------------------------------------------------------------ construction (internal)
    @classmethod
    def _from_storage(cls, storage, storage_offset, size, stride, dtype, arr=None):
        """A tensor viewing `storage` (no copy). The core constructor everything else uses.
        `arr`, when given, is the numpy view of exactly these elements that the caller already has
        (a reshape or transpose of its input's view), saving the build from the raw bytes."""
        self = object.__new__(cls)
        self._storage = storage
        self._offset = int(storage_offset)
        self._size = tuple(map(int, size))
        self._stride = tuple(map(int, stride))
        self.dtype = dtype
        if storage.device.type == "meta":
            self._np = None
            self._ks = _META_KS
        else:
            self._ks = _CPU_KS
            self._np = _np_view(storage._data, self._offset, self._size, self._stride, dtype) if arr is None else arr
            storage._track(self)
        if _INFERENCE[0] and _tls.inference_mode:
            self._vc = INFERENCE_VC
        return self

    @classmethod
    def _wrap_np(cls, arr, dtype=None):
        """Wrap a freshly computed numpy array (owned by nobody else) as a cpu tensor."""
        if not isinstance(arr, np.ndarray):
            arr = np.asarray(arr)
        if dtype is None:
            dtype = _dt.from_numpy_dtype(arr.dtype)
        if arr.ndim and not (arr.flags.c_contiguous or _dense_positive(arr)):
            arr = np.ascontiguousarray(arr)
        self = object.__new__(cls)
        self._np = arr
        self._size = arr.shape
        self.dtype = dtype
        self._ks = _CPU_KS
        if _INFERENCE[0] and _tls.inference_mode:
            self._vc = INFERENCE_VC
        return self

    @classmethod
    def _wrap_fresh(cls, arr, dtype):
        """_wrap_np for a contiguous ndarray a kernel just allocated (no checks: the hot path)."""
        self = object.__new__(cls)
        self._np = arr
        self._size = arr.shape
        self.dtype = dtype
        self._ks = _CPU_KS
        if _INFERENCE[0] and _tls.inference_mode:
            self._vc = INFERENCE_VC
        return self

    @property
    def _version_counter(self):
        vc = self._vc
        if vc is None:
            vc = self._vc = VersionCounter()
        return vc

    @_version_counter.setter
    def _version_counter(self, vc):
        self._vc = vc

    # ------------------------------------------------------------ metadata
    @property
    def shape(self):
        return Size(self._size)

    def size(self, dim=None):
        if dim is None:
            return Size(self._size)
        from ._core.strides import wrap_dim
        return self._size[wrap_dim(dim, len(self._size))]

    def stride(self, dim=None):
        st = self._stride
        if st is None:
            st = self._stride = _np_strides(self._np, self.dtype)
        if dim is None:
            return st
        from ._core.strides import wrap_dim
        return st[wrap_dim(dim, len(self._size))]

    def storage_offset(self):
        return self._offset

    def dim(self):
        return len(self._size)

    ndimension = dim

    @property
    def ndim(self):
        return len(self._size)

    def numel(self):
        n = 1
        for s in self._size:
            n *= s
        return n

    nelement = numel

    def element_size(self):
        return self.dtype.itemsize

    @property
    def itemsize(self):
        return self.dtype.itemsize

    @property
    def nbytes(self):
        return self.numel() * self.dtype.itemsize

    @property
    def device(self):
        return META if self._ks & META_BIT else CPU

    @property
    def is_meta(self):
        return bool(self._ks & META_BIT)

    @property
    def is_cpu(self):
        return not self._ks & META_BIT

    is_cuda = False
    is_sparse = False
    is_quantized = False
    is_nested = False
    layout = "strided"

    def get_device(self):
        return -1

    def is_floating_point(self):
        return self.dtype.is_floating_point

    def is_complex(self):
        return self.dtype.is_complex

    def is_signed(self):
        return self.dtype.is_signed

    def is_conj(self):
        return False

    def is_neg(self):
        return False

    def is_contiguous(self, memory_format=None):
        if memory_format in ("channels_last",) or getattr(memory_format, "name", None) == "channels_last":
            return is_channels_last(self._size, self.stride())
        return is_contiguous(self._size, self.stride())

    def is_non_overlapping_and_dense(self):
        return is_non_overlapping_and_dense(self._size, self.stride())

    def _rebind_np(self, buf):
        """Re-point the cached numpy view at `buf`, the storage's bytes after they moved (resize_).
        A view the (shrunk) storage no longer holds keeps the old bytes."""
        try:
            self._np = _np_view(buf, self.storage_offset(), self._size, self.stride(), self.dtype)
        except (TypeError, ValueError):
            pass

    def untyped_storage(self):
        st = self._storage
        if st is None:
            arr = self._np
            flat = arr.reshape(-1) if arr.flags.c_contiguous else np.ravel(arr, order="K")
            st = self._storage = UntypedStorage._from_numpy(flat.view(np.uint8) if flat.size else
                                                            np.zeros(0, np.uint8))
            st._resizable = True
            st._track(self)
        return st

    def data_ptr(self):
        if self._np is None:
            return 0
        return self._np.__array_interface__["data"][0] if self._np.size else self.untyped_storage().data_ptr() + self._offset * self.dtype.itemsize

    @property
    def _version(self):
        if self._vc is INFERENCE_VC:
            raise RuntimeError("Inference tensors do not track version counter.")
        return self._version_counter.value

    def _is_view(self):
        return self._base is not None

    # ------------------------------------------------------------ autograd state
    @property
    def _is_inference(self):
        """Made under inference_mode (or a view of such a tensor): it shares INFERENCE_VC."""
        return self._vc is INFERENCE_VC

    def is_inference(self):
        return self._vc is INFERENCE_VC

    @property
    def requires_grad(self):
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value):
        self._set_requires_grad(bool(value))

    def _set_requires_grad(self, value):
        if value and self.grad_fn is None and not (self.dtype.is_floating_point or self.dtype.is_complex):
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        if not value and self.grad_fn is not None:
            raise RuntimeError("you can only change requires_grad flags of leaf variables. If you want to use a "
                               "computed variable in a subgraph that doesn't require differentiation use "
                               "var_no_grad = var.detach().")
        if value and getattr(self, "_is_inference", False):
            from ._core.tls import state as _st
            if not _st.inference_mode:
                raise RuntimeError("Setting requires_grad=True on inference tensor outside InferenceMode is not "
                                   "allowed.")
        if value:
            _ensure_autograd()
        self._requires_grad = value
        self._ks = (self._ks | AUTOGRAD_BIT) if value else (self._ks & ~AUTOGRAD_BIT)

    def requires_grad_(self, requires_grad=True):
        self._set_requires_grad(bool(requires_grad))
        return self

    @property
    def is_leaf(self):
        return self.grad_fn is None

    @property
    def grad(self):
        return self._grad

    @grad.setter
    def grad(self, value):
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of type {type(value).__name__}")
            if value.shape != self.shape:
                raise RuntimeError(f"assigned grad has data of a different size: expected {list(self.shape)}, "
                                   f"got {list(value.shape)}")
            if value.dtype is not self.dtype:
                raise RuntimeError(f"assigned grad has data of a different type: expected {self.dtype}, got {value.dtype}")
        self._grad = value

    @grad.deleter
    def grad(self):
        self._grad = None

    @property
    def retains_grad(self):
        return self._retains_grad

    @property
    def output_nr(self):
        return self._output_nr

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        from .autograd import backward
        backward(self, gradient, retain_graph, create_graph, inputs=inputs)

    def register_hook(self, hook):
        """hook(grad) -> Tensor or None, run when the gradient w.r.t. this tensor is computed."""
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self.grad_fn is None:
            from .autograd.graph import grad_accumulator
            acc = self._grad_acc_strong = grad_accumulator(self)   # hooks live as long as the tensor
            return acc._register_tensor_pre_hook(0, hook)
        return self.grad_fn._register_tensor_pre_hook(self._output_nr, hook)

    def register_post_accumulate_grad_hook(self, hook):
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self.grad_fn is not None:
            raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
        from .autograd.graph import RemovableHandle
        if self._post_acc_hooks is None:
            self._post_acc_hooks = {}
        h = RemovableHandle(self._post_acc_hooks)
        self._post_acc_hooks[h.id] = hook
        return h

    def retain_grad(self):
        if not self._requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self.grad_fn is None or self._retains_grad:
            return
        import weakref
        fn = self.grad_fn
        if fn._retains_grad is None:
            fn._retains_grad = {}
        fn._retains_grad[self._output_nr] = weakref.ref(self)
        self._retains_grad = True

    def detach(self):
        """A tensor sharing storage and version counter with self, outside the autograd graph."""
        if self._np is not None:
            self.untyped_storage()
        self._version_counter   # materialize it so the alias shares it
        d = object.__new__(Tensor)
        d.__dict__.update(self.__dict__)
        for k in _AUTOGRAD_ATTRS:
            d.__dict__.pop(k, None)
        d._ks = self._ks & ~AUTOGRAD_BIT
        return d

    def detach_(self):
        if self._base is not None and self.grad_fn is not None:
            raise RuntimeError("Can't detach views in-place. Use detach() instead.")
        self.grad_fn = None
        self._requires_grad = False
        self._output_nr = 0
        self._ks &= ~AUTOGRAD_BIT
        return self

    # ------------------------------------------------------------ data access
    def numpy(self, *, force=False):
        if self._np is None:
            raise RuntimeError("Can't call numpy() on Tensor on the meta device: it has no data")
        if self._requires_grad and not force:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")
        return self._np

    def __array__(self, dtype=None, copy=None):
        a = self.numpy(force=True)
        if dtype is not None:
            a = a.astype(dtype)
        return a.copy() if copy else a

    def tolist(self):
        if self._np is None:
            raise NotImplementedError("Cannot copy out of meta tensor; no data!")
        a = self._np
        if self.dtype._kind == "f" and self.dtype._np.itemsize <= 2 or self.dtype.name.startswith("float8"):
            a = a.astype(np.float32)
        return a.tolist()

    def item(self):
        if self.numel() != 1:
            raise RuntimeError(f"a Tensor with {self.numel()} elements cannot be converted to Scalar")
        if self._np is None:
            raise RuntimeError("Tensor.item() cannot be called on meta tensors")
        v = self._np.reshape(-1)[0]
        if self.dtype.is_complex:
            return complex(v)
        if self.dtype.is_floating_point:
            return float(v)
        if self.dtype is _dt.bool_:
            return bool(v)
        return int(v)

    def __len__(self):
        if not self._size:
            raise TypeError("len() of a 0-d tensor")
        return self._size[0]

    def __iter__(self):
        if not self._size:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def __bool__(self):
        if self.numel() != 1:
            raise RuntimeError(f"Boolean value of Tensor with more than one value is ambiguous")
        return bool(self.item())

    def __float__(self):
        return float(self.item().real if self.dtype.is_complex else self.item())

    def __int__(self):
        return int(self.item())

    def __index__(self):
        if self.dtype.is_floating_point or self.dtype.is_complex or self.numel() != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def __complex__(self):
        return complex(self.item())

    def __hash__(self):
        return id(self)

    def __repr__(self, *, tensor_contents=None):
        from ._tensor_str import tensor_repr
        return tensor_repr(self)

    def __format__(self, spec):
        if self.dim() == 0 and self._np is not None:
            return self.item().__format__(spec)
        return object.__format__(self, spec)

    def __reduce_ex__(self, proto):
        """Plain pickling (multiprocessing, copy): the values as a numpy array; views are not kept
        (ember.save keeps storages and views)."""
        arr = None if self._np is None else np.ascontiguousarray(self._np)
        return (_rebuild_pickled, (type(self), arr, self.dtype.name, self._size, self._requires_grad))

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        new = self.clone().detach() if self._np is not None else self.detach().clone()
        new.requires_grad_(self.requires_grad)
        if self.grad is not None:
            new._grad = self.grad.clone()
        if type(self) is not Tensor:
            new = type(self).__new__(type(self), new, self.requires_grad) if self._is_param else new
        memo[id(self)] = new
        return new

    def __dlpack__(self, stream=None, **kwargs):
        return self.numpy(force=True).__dlpack__(**kwargs) if kwargs else self.numpy(force=True).__dlpack__()

    def __dlpack_device__(self):
        return (1, 0)

    # data is a detached alias sharing storage
    @property
    def data(self):
        return self.detach()

    @data.setter
    def data(self, other):
        if not isinstance(other, Tensor):
            raise TypeError("data must be a Tensor")
        self._storage = other.untyped_storage() if other._np is not None else other._storage
        self._np = other._np
        if self._np is not None:
            self._storage._track(self)
        self._size, self._stride, self._offset = other._size, other.stride(), other._offset
        self.dtype = other.dtype
        self._ks = (other._ks & ~AUTOGRAD_BIT) | (self._ks & AUTOGRAD_BIT)

    @property
    def T(self):
        return self.permute(*range(self.dim() - 1, -1, -1))

    @property
    def mT(self):
        return self.transpose(-2, -1)

    @property
    def H(self):
        return self.T.conj() if self.is_complex() else self.T

    @property
    def mH(self):
        return self.mT.conj() if self.is_complex() else self.mT

    @property
    def real(self):
        if not self.is_complex():
            return self
        from ._ops import ops
        return ops.aten.view_as_real(self).select(-1, 0)

    @property
    def imag(self):
        if not self.is_complex():
            raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
        from ._ops import ops
        return ops.aten.view_as_real(self).select(-1, 1)

    def type(self, dtype=None, non_blocking=False):
        if dtype is None:
            return "ember." + {"float32": "FloatTensor", "float64": "DoubleTensor", "float16": "HalfTensor",
                               "bfloat16": "BFloat16Tensor", "int64": "LongTensor", "int32": "IntTensor",
                               "int16": "ShortTensor", "int8": "CharTensor", "uint8": "ByteTensor",
                               "bool": "BoolTensor", "complex64": "ComplexFloatTensor",
                               "complex128": "ComplexDoubleTensor"}.get(self.dtype.name, self.dtype.name)
        if isinstance(dtype, str):
            name = dtype.rsplit(".", 1)[-1].replace("Tensor", "")
            dtype = _dt.dtype_from_name({"Float": "float32", "Double": "float64", "Half": "float16",
                                         "Long": "int64", "Int": "int32", "Short": "int16", "Char": "int8",
                                         "Byte": "uint8", "Bool": "bool", "BFloat16": "bfloat16"}.get(name, name))
        elif not isinstance(dtype, _dt.dtype) and dtype not in (float, int, bool, complex):
            raise TypeError("dtype must be a type, str, or dtype object")
        return self.to(dtype)

    def lu(self, pivot=True, get_infos=False):
        """torch.Tensor.lu: the deprecated torch.lu on this tensor."""
        from .linalg._lu import legacy_lu
        return legacy_lu(self, pivot=pivot, get_infos=get_infos)

    def new_tensor(self, data, dtype=None, device=None, requires_grad=False):
        from ._creation import tensor
        return tensor(data, dtype=dtype or self.dtype, device=device or self.device, requires_grad=requires_grad)



_AUTOGRAD_LOADED = False
_AUTOGRAD_ATTRS = ("_requires_grad", "grad_fn", "_grad", "_retains_grad", "_backward_hooks", "_post_acc_hooks",
                   "_output_nr", "_grad_acc_ref", "_grad_acc_strong")


def _ensure_autograd():
    """Register the generated Autograd kernels the first time any tensor requires grad (keeps
    `import ember` free of the autograd package)."""
    global _AUTOGRAD_LOADED
    if not _AUTOGRAD_LOADED:
        _AUTOGRAD_LOADED = True
        from ._generated import autograd_registrations  # noqa: F401


def _rebuild_pickled(cls, arr, dtype_name, size, requires_grad):
    dtype = _dt.dtype_from_name(dtype_name)
    if arr is None:
        from .kernels.common import empty_tensor
        t = empty_tensor(size, dtype, META)
    else:
        t = Tensor._wrap_np(arr, dtype)
    if cls is not Tensor:
        return cls(t, requires_grad) if getattr(cls, "_is_param", False) else cls._wrap_np(arr, dtype)
    if requires_grad:
        t.requires_grad_()
    return t


def _np_view(buf, offset, size, stride, dtype):
    isz = dtype.itemsize
    if not size:
        return np.ndarray((), dtype._np, buffer=buf, offset=offset * isz)
    if 0 in size:
        return np.empty(size, dtype._np)
    return np.ndarray(size, dtype._np, buffer=buf, offset=offset * isz, strides=[s * isz for s in stride])


def _np_strides(arr, dtype):
    isz = dtype.itemsize
    if arr.size == 0 or arr.ndim == 0:
        return contiguous_strides(arr.shape)
    return tuple((s // isz) if sz != 1 else c for s, sz, c in zip(arr.strides, arr.shape, contiguous_strides(arr.shape)))


def _dense_positive(arr):
    return all(s > 0 for s in arr.strides) and is_non_overlapping_and_dense(arr.shape, arr.strides and tuple(s // arr.itemsize for s in arr.strides))
