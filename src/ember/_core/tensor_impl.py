"""TensorImpl: what every tensor is underneath (c10/core/TensorImpl.h): a strided view (sizes, strides,
offset, dtype) over an UntypedStorage, its dispatch key set, version counter and autograd fields.

`_ops`, `_dispatch`, `kernels` and `autograd` see tensors through this class only. The public
`ember.Tensor` (`ember/_tensor.py`) subclasses it and adds the Python-level methods; it registers
itself with `register_tensor_class`, as torch's `THPVariableClass`, so the constructors here
(`_wrap_fresh`, `_wrap_np`, `_from_storage`) called on `TensorImpl` make public tensors, and called
on any subclass (Parameter, a fake tensor) make that subclass.

On cpu a tensor caches `_np`, a numpy ndarray viewing exactly its elements in the storage; kernels
read and write through it. A tensor made from a fresh numpy result creates its storage lazily.
"""
import numpy as np

from . import dtype as _dt
from .device import CPU, META
from .dispatch_keys import AUTOGRAD_BIT, CONJ_BIT, CPU_BIT, INPLACE_OR_VIEW_BIT, MATH_BITS, META_BIT, NEG_BIT
from .size import Size
from .storage import UntypedStorage
from .symint import size_int
from .strides import (contiguous_strides, is_contiguous, is_channels_last_contiguous,
                      is_non_overlapping_and_dense, wrap_dim)
from .tls import GRAD_OFF as _GRAD_OFF, state as _tls
from .torch_function import note_tensor_subclass
from .memory_format import LAYOUTS, format_name

_CPU_KS = CPU_BIT | INPLACE_OR_VIEW_BIT
_new = object.__new__
_INFERENCE = [0]   # threads currently in inference_mode: constructors check the thread-local flag only then


# ------------------------------------------------------------ version counters (c10's VariableVersion, which
# TensorImpl.h defines too): shared by a tensor and all its views; in-place ops bump it, saved tensors compare it.
class VersionCounter:
    __slots__ = ("value",)

    def __init__(self, value=0):
        self.value = value

    def bump(self):
        self.value += 1


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

# The attributes a tensor instance may hold, most common first (counted over the autograd, core, nn, fx, optim
# and dynamo tests). CPython 3.11 stores an instance's attributes in a values array indexed by keys the class
# shares among its instances; a name joins the shared keys only while the class is young (each new instance
# shrinks the room left), and an instance setting a name outside them gets a full dict of its own: about 5k
# more instructions per tensor made and freed (a view sets _storage/_offset/_stride, which the first tensors,
# fresh op results, never set). `_prime_instance_keys` enters these names when the class is made.
_INSTANCE_ATTRS = ("_np", "_size", "dtype", "_ks", "_stride", "_storage", "_offset", "_vc", "_base",
                   "_requires_grad", "grad_fn", "_output_nr", "_gfv", "_grad_acc_ref", "_no_grad_view", "_grad",
                   "_retains_grad", "_backward_hooks", "_post_acc_hooks", "_grad_acc_strong")


def _forward_op_name(depth):
    """The name torch's view+inplace errors give the op that made a view ("Slice" for SliceBackward0): the view
    kernel `depth` frames up, CamelCased (only looked up on the rare propagated-meta path)."""
    import sys
    name = sys._getframe(depth + 1).f_code.co_name.strip("_")
    name = {"squeeze_dim": "squeeze", "squeeze_dims": "squeeze"}.get(name, name)
    return "".join(w[:1].upper() + w[1:] for w in name.split("_"))


def set_view_creation_meta(view, src, op_name=None, depth=1):
    """torch's CreationMeta for a new `view` of `src` (a tensor needing grad or a flagged view), kept as flags:
    `_no_grad_view` True for a view made in no_grad mode of a tensor needing grad (or of such a view), or the
    making op's name for a view made with grad mode of such a view (NO_GRAD_MODE propagated: torch names that op
    in its error); `_multi_view_meta` for a view made with grad mode of an output of unbind/split/chunk
    (MULTI_OUTPUT_NODE propagated). In-place on either with grad mode is torch's RuntimeError (check_inplace)."""
    d = src.__dict__
    if _GRAD_OFF and not _tls.grad_enabled:     # GRAD_OFF empty: grad mode is on in every thread (see _core/tls)
        view._no_grad_view = True
        if src._requires_grad or src.grad_fn is not None:
            # torch's DifferentiableViewMeta::requires_grad() is its base's: such a view reports requires_grad
            # True (no grad_fn, a leaf), ops on it with grad mode record nodes, and its own edge is None
            # (autograd/graph.py: no AccumulateGrad for it), so no gradient reaches it or its base
            view._requires_grad = True
    elif d.get("_no_grad_view"):
        view._no_grad_view = op_name or _forward_op_name(depth + 1)
    elif d.get("_multi_view_meta") or getattr(src.grad_fn, "_multi_view", False):
        view._multi_view_meta = True
        return
    else:
        return
    view._ks |= AUTOGRAD_BIT     # so in-place ops on it reach the Autograd kernel's check


def _prime_instance_keys(cls):
    """Set each of _INSTANCE_ATTRS on a throwaway first instance of `cls` (see _INSTANCE_ATTRS); names that
    are data descriptors on `cls` (properties, slots) are left out, as an instance never holds them."""
    if any("__del__" in k.__dict__ for k in cls.__mro__):
        return       # a finalizer would see the half-made probe
    try:
        probe = object.__new__(cls)
    except TypeError:
        return
    for name in _INSTANCE_ATTRS:
        owner = next((k for k in cls.__mro__ if name in k.__dict__), None)
        if owner is not None and hasattr(type(owner.__dict__[name]), "__set__"):
            continue
        try:
            object.__setattr__(probe, name, None)
        except (AttributeError, TypeError):
            return


# TensorImpl and every subclass of it: `x.__class__ in TENSOR_TYPES` is the hot paths' isinstance(x, TensorImpl)
# (bindings, the dispatcher's key-set loop), one set lookup instead of a call.
TENSOR_TYPES = set()
_META_KS = META_BIT | INPLACE_OR_VIEW_BIT


_STRIDED = LAYOUTS["strided"]
FACTORY_REFUSAL = "Only Tensors of floating point and complex dtype can require gradients"


class TensorImpl:
    """Invariant the hot paths rely on: `_stride` None (the class default) means `_np` is c-contiguous (a
    tensor made from a fresh numpy result, `_wrap_fresh`/`_wrap_np`); every constructor of another layout sets
    `_stride`, and code replacing `_np` sets `_stride` with it."""
    _is_param = False
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
    # a view's creation flags (set_view_creation_meta), absent on almost every tensor: read as class defaults
    # (about 250 instructions fewer per view than `src.__dict__.get(...)`, which also builds src's dict)
    _no_grad_view = None
    _multi_view_meta = None

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls._tensor_cls = cls    # the constructors below, called on a subclass, make that subclass
        TENSOR_TYPES.add(cls)
        _prime_instance_keys(cls)
        note_tensor_subclass(cls)   # the __torch_function__ protocol: bindings look at their arguments from now on

    # ------------------------------------------------------------ construction (internal)
    @classmethod
    def _from_storage(cls, storage, storage_offset, size, stride, dtype, arr=None):
        """A tensor viewing `storage` (no copy). The core constructor everything else uses.
        `arr`, when given, is the numpy view of exactly these elements that the caller already has
        (a reshape or transpose of its input's view), saving the build from the raw bytes."""
        self = object.__new__(cls._tensor_cls)
        self._storage = storage
        self.dtype = dtype
        if storage.device.type == "meta":
            # a meta (fake) tensor's sizes may be symbolic (SymInt): kept as they are, not specialised by int()
            self._offset = size_int(storage_offset)
            self._size = tuple(map(size_int, size))
            self._stride = tuple(map(size_int, stride))
            self._np = None
            self._ks = _META_KS
        else:
            self._offset = int(storage_offset)
            self._size = tuple(map(int, size))
            self._stride = tuple(map(int, stride))
            self._ks = _CPU_KS
            self._np = _np_view(storage._data, self._offset, self._size, self._stride, dtype) if arr is None else arr
            storage._track(self)
        if _INFERENCE[0] and _tls.inference_mode:
            self._vc = INFERENCE_VC
        return self

    @classmethod
    def _cpu_view(cls, src, storage_offset, size, stride, arr):
        """_from_storage for the view ops' hot path: a cpu tensor on `src`'s storage, of its dtype, whose geometry
        is already Python ints (taken from src's) and whose numpy view `arr` the caller built from src's."""
        storage = src._storage
        if storage is None:
            storage = src.untyped_storage()
        self = _new(_PUBLIC[0] if cls is TensorImpl else cls._tensor_cls)
        self._storage = storage
        self.dtype = src.dtype
        self._offset = storage_offset
        self._size = size if size.__class__ is tuple else tuple(size)
        self._stride = stride if stride.__class__ is tuple else tuple(stride)
        self._ks = _CPU_KS
        self._np = arr
        storage._viewed = True          # not tracked: resize_ finds it by a scan (see _core/storage.py)
        if _INFERENCE[0] and _tls.inference_mode:
            self._vc = INFERENCE_VC
        return self

    @classmethod
    def _cpu_view_of(cls, src, storage_offset, size, stride, arr):
        """_cpu_view whose result is also marked a view of `src`, as the ADInplaceOrView key marks a view op's
        result (`_fallbacks._view_kernel`): `_base` the root of src's views, src's version counter shared, and a
        view made in no_grad mode of a tensor needing grad flagged. The view kernels that key runs rebuilt with
        this constructor (kernels/meta/view.py) make their result and mark it in one step."""
        storage = src._storage
        if storage is None:
            storage = src.untyped_storage()
        self = _new(_PUBLIC[0] if cls is TensorImpl else cls._tensor_cls)
        self._storage = storage
        self.dtype = src.dtype
        self._offset = storage_offset
        self._size = size if size.__class__ is tuple else tuple(size)
        self._stride = stride if stride.__class__ is tuple else tuple(stride)
        self._ks = _CPU_KS
        self._np = arr
        storage._viewed = True
        vc = src._vc
        if vc is None:
            vc = src._version_counter
        self._vc = vc
        root = src._base
        self._base = src if root is None else root
        if src._ks & AUTOGRAD_BIT:
            # (a tensor needing grad has the Autograd key, and so has a flagged view: set_view_creation_meta sets
            # it; a plain tensor skips the two flag reads, class defaults read through the generic lookup)
            if src._requires_grad:
                # set_view_creation_meta leaves the view unmarked when grad mode is on everywhere (tls.GRAD_OFF
                # empty) and src is neither a flagged view nor an output of a node: skip its frame then
                if _GRAD_OFF or src.grad_fn is not None or src._no_grad_view or src._multi_view_meta:
                    set_view_creation_meta(self, src)
            elif src._no_grad_view:
                set_view_creation_meta(self, src)
        return self

    @classmethod
    def _wrap_np(cls, arr, dtype=None):
        """Wrap a freshly computed numpy array (owned by nobody else) as a cpu tensor."""
        if not isinstance(arr, np.ndarray):
            arr = np.asarray(arr)
        if dtype is None:
            dtype = _dt.from_numpy_dtype(arr.dtype)
        dense = False
        if arr.ndim and not arr.flags.c_contiguous:
            if _dense_positive(arr):
                dense = True
            else:
                arr = np.ascontiguousarray(arr)
        self = object.__new__(cls._tensor_cls)
        self._np = arr
        self._size = arr.shape
        self.dtype = dtype
        self._ks = _CPU_KS
        if dense:
            # a tensor whose `_stride` is still None has a c-contiguous `_np` (the elementwise kernels' small
            # path reads that instead of numpy's flags): a dense array in another order gets its strides now
            self._stride = _np_strides(arr, dtype)
        if _INFERENCE[0] and _tls.inference_mode:
            self._vc = INFERENCE_VC
        return self

    @classmethod
    def _wrap_fresh(cls, arr, dtype):
        """_wrap_np for a contiguous ndarray a kernel just allocated (no checks: the hot path)."""
        self = object.__new__(cls._tensor_cls)
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
        return tuple.__new__(Size, self._size)        # (_size holds ints or SymInts already)

    def size(self, dim=None):
        if dim is None:
            return tuple.__new__(Size, self._size)
        return self._size[wrap_dim(dim, len(self._size))]

    def stride(self, dim=None):
        st = self._stride
        if st is None:
            st = self._stride = _np_strides(self._np, self.dtype)
        if dim is None:
            return st
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

    # properties (not class constants) as torch's getset descriptors: `Tensor.is_cuda.__get__` is what a
    # __torch_function__ mode is given for `x.is_cuda` (see _core/torch_function.py, "Attribute reads")
    @property
    def is_cuda(self):
        return False

    @property
    def is_sparse(self):
        return False

    @property
    def is_quantized(self):
        return False

    @property
    def is_nested(self):
        return False

    @property
    def layout(self):
        return _STRIDED

    def to_dense(self, dtype=None, *, masked_grad=None):
        """A strided tensor is dense already: itself, as torch returns it (a copy only for another `dtype`)."""
        return self if dtype is None or dtype is self.dtype else self.to(dtype)

    def is_pinned(self, device=None):
        """No accelerator, so no pinned (page-locked) memory: False, as torch on a CPU-only machine."""
        return False

    def pin_memory(self, device=None):
        raise RuntimeError("Cannot access accelerator device when none is available.")

    def _no_sparse(self, *args, **kwargs):
        raise NotImplementedError("ember does not implement sparse tensors (torch.sparse layouts) yet")

    def _no_mkldnn(self, *args, **kwargs):
        raise NotImplementedError("ember does not implement mkldnn tensors (torch.Tensor.to_mkldnn) yet")

    # torch's conversions to the layouts ember lacks: a clear error naming the missing feature
    to_sparse = to_sparse_coo = to_sparse_csr = to_sparse_csc = to_sparse_bsr = to_sparse_bsc = _no_sparse
    to_mkldnn = _no_mkldnn

    def get_device(self):
        return -1

    def is_floating_point(self):
        return self.dtype.is_floating_point

    def is_complex(self):
        return self.dtype.is_complex

    def is_signed(self):
        return self.dtype.is_signed

    def is_conj(self):
        """The lazy conjugate bit: the logical values are the conjugates of the stored ones."""
        return bool(self._ks & CONJ_BIT)

    def is_neg(self):
        """The lazy negative bit: the logical values are the negatives of the stored ones."""
        return bool(self._ks & NEG_BIT)

    def _logical_np(self):
        """The numpy array of the logical values: `_np` itself, or a resolved copy when a math bit is set."""
        a = self._np
        ks = self._ks
        if ks & MATH_BITS and a is not None:
            if ks & CONJ_BIT:
                a = np.conjugate(a)
            if ks & NEG_BIT:
                a = np.negative(a)
        return a

    def is_contiguous(self, memory_format=None):
        name = format_name(memory_format)
        if name == "channels_last" or name == "channels_last_3d":
            return is_channels_last_contiguous(self._size, self.stride(), 4 if name == "channels_last" else 5)
        return is_contiguous(self._size, self.stride())

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
        self._set_requires_grad(bool(value), "only Tensors of floating point and complex dtype can require "
                                             "gradients")

    def _set_requires_grad(self, value, refusal="only Tensors of floating point dtype can require gradients"):
        """`refusal`: torch's message for an integer or bool tensor differs by path: requires_grad_() (this
        default), the `requires_grad` setter, and factories' requires_grad=True ("Only Tensors of floating
        point and complex dtype can require gradients", FACTORY_REFUSAL)."""
        if value and self.grad_fn is None and not (self.dtype.is_floating_point or self.dtype.is_complex):
            raise RuntimeError(refusal)
        if not value and self.grad_fn is not None:
            raise RuntimeError("you can only change requires_grad flags of leaf variables. If you want to use a "
                               "computed variable in a subgraph that doesn't require differentiation use "
                               "var_no_grad = var.detach().")
        if value and getattr(self, "_is_inference", False):
            if not _tls.inference_mode:
                raise RuntimeError("Setting requires_grad=True on inference tensor outside InferenceMode is not "
                                   "allowed.")
        if value:
            ensure_autograd()
            # the class defaults every op on a leaf reads (the autograd kernels' edge, a view's offset and base)
            # copied onto the instance, values unchanged: CPython 3.11 reads an instance's own attribute in a
            # specialized step and a class default through the generic lookup (about 200 instructions each)
            self.grad_fn, self._base, self._offset, self._output_nr = (self.grad_fn, self._base, self._offset,
                                                                       self._output_nr)
        if not value and self._no_grad_view is True and self._base.requires_grad:
            return          # torch: a no_grad view requires grad while its base does (set_view_creation_meta)
        self._requires_grad = value
        self._ks = (self._ks | AUTOGRAD_BIT) if value else (self._ks & ~AUTOGRAD_BIT)

    def requires_grad_(self, requires_grad=True):
        self._set_requires_grad(bool(requires_grad))
        return self

    def _factory_requires_grad(self):
        """A factory's requires_grad=True (the generated bindings call it): torch's factory message."""
        self._set_requires_grad(True, FACTORY_REFUSAL)

    @property
    def is_leaf(self):
        return self.grad_fn is None

    @property
    def grad(self):
        return self._grad

    @grad.setter
    def grad(self, value):
        if value is not None:
            if not isinstance(value, TensorImpl):
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
        if force:
            return self._logical_np()
        if self._requires_grad:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")
        if self._ks & MATH_BITS:
            _check_no_math_bits(self)
        return self._np

    def __array__(self, dtype=None, copy=None):
        if self._ks & MATH_BITS:
            _check_no_math_bits(self)
        a = self.numpy(force=True)
        if dtype is not None:
            a = a.astype(dtype)
        return a.copy() if copy else a

    def tolist(self):
        if self._np is None:
            raise NotImplementedError("Cannot copy out of meta tensor; no data!")
        a = self._logical_np()
        if self.dtype._kind == "f" and self.dtype._np.itemsize <= 2 or self.dtype.name.startswith("float8"):
            a = a.astype(np.float32)
        return a.tolist()

    def item(self):
        a = self._np
        if a is not None and a.size == 1 and self.dtype in _ITEM_DIRECT and not self._ks & MATH_BITS:
            # numpy's own conversion: the Python float/int/bool/complex of the one element, as below (~0.2 us
            # instead of ~0.35: a loop over branch-heavy `.item()` calls is a whole class of programs)
            return a.item()
        if self.numel() != 1:
            raise RuntimeError(f"a Tensor with {self.numel()} elements cannot be converted to Scalar")
        if self._np is None:
            raise RuntimeError("Tensor.item() cannot be called on meta tensors")
        v = self._logical_np().reshape(-1)[0]
        if self.dtype.is_complex:
            return complex(v)
        if self.dtype.is_floating_point:
            return float(v)
        if self.dtype is _dt.bool_:
            return bool(v)
        return int(v)



# dtypes whose numpy `.item()` is item()'s result (float16/bfloat16/float8 read through float32 below)
_ITEM_DIRECT = frozenset((_dt.float32, _dt.float64, _dt.int64, _dt.int32, _dt.int16, _dt.int8, _dt.uint8, _dt.bool_,
                          _dt.complex64, _dt.complex128))
TensorImpl._tensor_cls = TensorImpl   # until the public Tensor registers itself
_PUBLIC = [TensorImpl]    # TensorImpl._tensor_cls, for the view constructors' hot path (a global read, not a class's)
TENSOR_TYPES.add(TensorImpl)

_AUTOGRAD_ATTRS = ("_requires_grad", "grad_fn", "_grad", "_retains_grad", "_backward_hooks", "_post_acc_hooks",
                   "_output_nr", "_grad_acc_ref", "_grad_acc_strong")
_AUTOGRAD_LOADER = [None]


def register_tensor_class(cls):
    """Make `cls` (the public ember.Tensor) the class TensorImpl's constructors produce."""
    if not issubclass(cls, TensorImpl):
        raise TypeError(f"register_tensor_class expects a subclass of TensorImpl, got {cls!r}")
    TensorImpl._tensor_cls = _PUBLIC[0] = cls


def set_autograd_loader(fn):
    """`fn()` registers the Autograd kernels; run once, the first time a tensor requires grad (a hook
    set by the layer above, which keeps `import ember` free of the generated autograd modules)."""
    _AUTOGRAD_LOADER[0] = fn


def ensure_autograd():
    fn = _AUTOGRAD_LOADER[0]
    if fn is not None:
        _AUTOGRAD_LOADER[0] = None
        fn()


def _check_no_math_bits(t):
    if t._ks & CONJ_BIT:
        raise RuntimeError("Can't call numpy() on Tensor that has conjugate bit set. Use tensor.resolve_conj().numpy() "
                           "instead.")
    raise RuntimeError("Can't call numpy() on Tensor that has negative bit set. Use tensor.resolve_neg().numpy() "
                       "instead.")


def _np_view(buf, offset, size, stride, dtype):
    isz = dtype.itemsize
    if not size:
        return np.ndarray((), dtype._np, buffer=buf, offset=offset * isz)
    if 0 in size:
        return np.empty(size, dtype._np)
    return np.ndarray(size, dtype._np, buffer=buf, offset=offset * isz, strides=[s * isz for s in stride])


def _np_strides(arr, dtype):
    isz = dtype.itemsize
    if arr.size == 0 or arr.ndim == 0 or arr.flags.c_contiguous:     # (numpy ignores size-1 dims' strides)
        return contiguous_strides(arr.shape)
    return tuple((s // isz) if sz != 1 else c for s, sz, c in zip(arr.strides, arr.shape, contiguous_strides(arr.shape)))


def _dense_positive(arr):
    return all(s > 0 for s in arr.strides) and is_non_overlapping_and_dense(arr.shape, arr.strides and tuple(s // arr.itemsize for s in arr.strides))
