"""The public Tensor (torch/_tensor.py over torch._C.TensorBase): `TensorImpl` (`_core/tensor_impl.py`)
underneath, the generated binding methods (`_generated/tensor_methods.py`, class `TensorMethods`), and
the hand-written methods: indexing (`_indexing.TensorIndexing`), `to` and the dtype shorthands
(`_conversions.TensorConversions`), and in the class body the Python operators, autograd entry points
(backward, hooks), conversions to Python numbers, repr, pickling, and the methods torch writes in Python
(split, unique, norm, nonzero(as_tuple=True), ...). Every method is named in this class statement or
inherited from a base named in it; no other module adds attributes to Tensor.

Importing this module registers Tensor as the class TensorImpl's constructors produce and sets the hook
that loads the Autograd kernels the first time a tensor requires grad.
"""
import numpy as np

from ._core import dtype as _dt
from ._core.device import META
from ._core.dispatch_keys import AUTOGRAD_BIT
from ._core.tensor_impl import TensorImpl, register_tensor_class, set_autograd_loader
from ._core.tls import state as _tls
from ._core import torch_function as _tf
from ._core.torch_function import NOT_HANDLED as _NOT_HANDLED
from ._conversions import TensorConversions
from ._generated import functions as _F
from ._generated.tensor_methods import TensorMethods
from ._indexing import TensorIndexing
from ._ops import ops

_T_WARNED = [False, False, False, False]   # Tensor.T's deprecation warnings (n-D, 0-D), H's (0-D), float()'s of a
#                                            tensor requiring grad: once per process
_BOOL_DIRECT = frozenset((_dt.float32, _dt.float64, _dt.int64, _dt.int32, _dt.int16, _dt.int8, _dt.uint8, _dt.bool_,
                          _dt.complex64, _dt.complex128))     # numpy's truth of an element is bool(item())
from . import functional as _functional
from ._tensor_types import legacy_new

_TF = False      # the __torch_function__ check: kept current by _tf.register (see _core/torch_function.py)
_TFM = False     # a mode is pushed (likewise)
_TFP = _tf.PLAIN_TYPES
_tf.register(globals())

_aten = ops.aten
_M = TensorMethods
# the Python operators below name TensorMethods' own entries, not `_M.add` (which would load the method's op family
# at import: see ember/_bindings.py, LazyMethod)
_V = vars(TensorMethods)


def _reflected(name, compute):
    """A reflected operator torch writes in Python (torch/_tensor.py, under
    _handle_torch_function_and_wrap_type_error_to_not_implemented): `__torch_function__` sees `Tensor.<name>`
    itself (`1 - a` is Tensor.__rsub__, `2 ** a` Tensor.__rpow__), and a TypeError becomes NotImplemented, so
    Python raises its own "unsupported operand type(s)" error. `compute(self, other)` is the operator."""
    def m(self, other):
        try:
            if _TF and (_TFM or self.__class__ not in _TFP or other.__class__ not in _TFP):
                r = _tf.handle_locals(m, locals())
                if r is not _NOT_HANDLED:
                    return r
            return compute(self, other)
        except TypeError:
            return NotImplemented
    m.__name__, m.__qualname__ = name, "Tensor." + name
    return m


def _reflected_binding(name):
    """A reflected operator torch's C TensorBase defines as its binding (`__radd__` is `add`, `__rand__`
    `bitwise_and`, under TypeError_to_NotImplemented_): `1 + a` is `a.add(1)`, so `__torch_function__` sees
    Tensor.add, as for `a + 1`."""
    def m(self, other):
        try:
            return getattr(_M, name)(self, other)
        except TypeError:
            return NotImplemented
    m.__name__, m.__qualname__ = "__r" + name.replace("bitwise_", "") + "__", "Tensor.__r" + name + "__"
    return m


def _convert(ret, cls):
    """torch._tensor._convert: the default __torch_function__'s re-wrapping of a result in the subclass `cls`:
    tensors that are not `cls` instances become `cls` aliases (as_subclass), lists and tuples (and the named
    tuples of multi-output ops) are converted element by element; anything else is returned as it is."""
    if cls is Tensor:
        return ret
    if isinstance(ret, Tensor) and not isinstance(ret, cls):
        ret = ret.as_subclass(cls)
    if isinstance(ret, (tuple, list)):
        items = [_convert(r, cls) for r in ret]
        tp = type(ret)
        ret = tp(*items) if hasattr(tp, "_fields") else tp(items)   # a return_types named tuple takes its fields
    return ret


def _instance_attr(name):
    """The property torch has for `name` where ember keeps an instance attribute (`dtype`) or an instance
    attribute over a class default None (`grad_fn`, `_base`): on plain tensors the attribute is read directly and
    the property is on the class only while a TorchFunctionMode is pushed; a subclass taking part in the protocol
    has it for good (see _core/torch_function.py, "Attribute reads"). Its getter runs the protocol's check, its
    setter (ember's own writes: torch's are read-only) stores the value as it is."""
    def raw(self):
        return self.__dict__.get(name)

    def store(self, value):
        self.__dict__[name] = value

    def get(self):
        return check((self,), {})
    get.__name__ = get.__qualname__ = name
    prop = property(get, store)
    check = _tf.make_check(prop.__get__, raw)
    return prop


_INSTANCE_PROPS = {n: _instance_attr(n) for n in ("dtype", "grad_fn", "_base")}


_REAL_TORCH_MSG = (
    "an ember Tensor was passed to {} of the real `torch` package, which cannot run on it. After `import ember as "
    "torch`, a line such as `from torch.nn.utils.rnn import pack_padded_sequence` or `import torch.nn.functional "
    "as F` still imports PyTorch itself; import those names from ember instead (`from ember.nn.utils.rnn "
    "import ...`) or reach them through the `torch` name (`torch.nn.functional`).")


def _from_real_torch(func):
    """True for a function of PyTorch itself (not ember's): real torch calls ember.Tensor.__torch_function__
    when an ember tensor reaches one of its functions, and running `func` again would recurse until Python's
    limit; the porting mistake behind it gets a clear error instead."""
    mod = getattr(func, "__module__", None) or getattr(getattr(func, "__objclass__", None), "__module__", None)
    return isinstance(mod, str) and (mod == "torch" or mod.startswith("torch."))


class _ClassLevel:
    """On the metaclass: `ember.Tensor.grad_fn` (and `._base`, and on any subclass) is the property of
    _INSTANCE_PROPS, as torch's class-level read gives its getset descriptor (`Tensor.grad_fn.__get__(t)` works),
    while instance reads never look at the metaclass: a plain tensor's `t.grad_fn` stays the instance attribute
    over TensorImpl's class default None, at full speed (a property on the class would cost every read its
    getter's call). A data descriptor of the metaclass wins over the class dicts, so writing a class attribute of
    that name goes through `set_class_attr`."""
    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __get__(self, cls, meta=None):
        if cls is None:
            return self
        return _INSTANCE_PROPS[self.name]

    def __set__(self, cls, value):
        set_class_attr(cls, self.name, value)

    def __delete__(self, cls):
        set_class_attr(cls, self.name, _DELETE)


_DELETE = object()


def set_class_attr(cls, name, value):
    """setattr (delattr for _DELETE) on a Tensor class of `name`, past the metaclass's _ClassLevel descriptor
    (taken off the metaclass for the write: only mode pushes and pops and subclass definitions write these)."""
    desc = _TensorMeta.__dict__.get(name)
    if desc is not None:
        delattr(_TensorMeta, name)
    try:
        if value is _DELETE:
            delattr(cls, name)
        else:
            setattr(cls, name, value)
    finally:
        if desc is not None:
            setattr(_TensorMeta, name, desc)


class _TensorMeta(type):
    """torch._C._TensorMeta, the metaclass of Tensor and of its subclasses (Parameter's _ParameterMeta derives
    from it): class-level reads of the attributes ember keeps on instances (see _ClassLevel)."""
    grad_fn = _ClassLevel("grad_fn")
    _base = _ClassLevel("_base")


class Tensor(TensorIndexing, TensorConversions, TensorMethods, TensorImpl, metaclass=_TensorMeta):
    __array_priority__ = 1000   # make numpy defer to Tensor's reflected operators
    # `ember.Tensor.dtype` is the property a mode is given for `x.dtype` (torch's getset descriptor); a staticmethod
    # is not a data descriptor, so a tensor's own `dtype` attribute is read past it at full speed
    dtype = staticmethod(_INSTANCE_PROPS["dtype"])

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        """The default override (torch's Tensor.__torch_function__): run `func` with the protocol off for
        subclasses (modes still apply) and give tensor results the class `cls`, the most derived class among the
        call's overloaded types; NotImplemented when `cls` is not a subclass of every one of them (two unrelated
        subclasses). Results of `.grad` / `._base` reads are not re-wrapped (get_default_nowrap_functions)."""
        if kwargs is None:
            kwargs = {}
        for t in types:
            if not issubclass(cls, t):
                return NotImplemented
        if _from_real_torch(func):
            raise TypeError(_REAL_TORCH_MSG.format("torch." + str(getattr(func, "__name__", func))))
        with _tf.DisableTorchFunctionSubclass():
            ret = func(*args, **kwargs)
            if func in _NOWRAP:
                return ret
            return _convert(ret, cls)

    def __new__(cls, *args, **kwargs):
        """`ember.Tensor(...)`, torch's legacy constructor: sizes (uninitialized) or data in the default
        dtype; see `_tensor_types`. (Tensors made by ops never come through here.)"""
        t = legacy_new(None, args, kwargs)
        if cls is not Tensor:
            t.__class__ = cls          # a Python subclass without its own __new__: the same tensor, as `cls`
        return t

    # ------------------------------------------------------------ Python operators
    __add__ = _V["add"]
    __iadd__ = _V["add_"]
    __sub__ = _V["sub"]
    __isub__ = _V["sub_"]
    __mul__ = _V["mul"]
    __imul__ = _V["mul_"]
    __truediv__ = _V["div"]
    __itruediv__ = _V["div_"]
    __floordiv__ = _V["floor_divide"]
    __ifloordiv__ = _V["floor_divide_"]
    __mod__ = _V["remainder"]
    __imod__ = _V["remainder_"]
    __pow__ = _V["pow"]
    __ipow__ = _V["pow_"]
    __neg__ = _V["neg"]
    __abs__ = _V["abs"]

    def __invert__(self):
        if _TF:
            _r = _tf.handle_locals(Tensor.__invert__, locals())
            if _r is not _NOT_HANDLED:
                return _r
        if self.dtype.is_floating_point or self.dtype.is_complex:
            raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type tensors")
        return self.bitwise_not()

    __and__ = _V["bitwise_and"]
    __iand__ = _V["bitwise_and_"]
    __or__ = _V["bitwise_or"]
    __ior__ = _V["bitwise_or_"]
    __xor__ = _V["bitwise_xor"]
    __ixor__ = _V["bitwise_xor_"]
    __lshift__ = _V["bitwise_left_shift"]
    __ilshift__ = _V["bitwise_left_shift_"]
    __rshift__ = _V["bitwise_right_shift"]
    __irshift__ = _V["bitwise_right_shift_"]
    def __eq__(self, other):
        # torch turns the binding's TypeError into NotImplemented for ==/!= (TypeError_to_NotImplemented_), so
        # Python falls back to identity: `t == None`, `t == "s"` and `t in [None, t]` give a bool, not an error
        if _TF:
            _r = _tf.handle_locals(Tensor.__eq__, locals())
            if _r is not _NOT_HANDLED:
                return _r
        try:
            return _M.eq(self, other)
        except TypeError:
            return NotImplemented

    def __ne__(self, other):
        if _TF:
            _r = _tf.handle_locals(Tensor.__ne__, locals())
            if _r is not _NOT_HANDLED:
                return _r
        try:
            return _M.ne(self, other)
        except TypeError:
            return NotImplemented
    __lt__ = _V["lt"]
    __le__ = _V["le"]
    __gt__ = _V["gt"]
    __ge__ = _V["ge"]
    __matmul__ = _V["matmul"]
    # reflected operators (`1 - a`): torch's C ones are the bindings themselves, its Python ones are named
    # functions of their own; `1 / a` is `a.reciprocal() * 1`, as torch computes it (not div: the bits differ in
    # about a quarter of float32 quotients)
    __radd__ = _reflected_binding("add")
    __rmul__ = _reflected_binding("mul")
    __rand__ = _reflected_binding("bitwise_and")
    __ror__ = _reflected_binding("bitwise_or")
    __rxor__ = _reflected_binding("bitwise_xor")
    __rsub__ = _reflected("__rsub__", lambda self, other: _F.rsub(self, other))
    __rdiv__ = _reflected("__rdiv__", lambda self, other: self.reciprocal() * other)
    __rtruediv__ = __rdiv__
    __rfloordiv__ = _reflected("__rfloordiv__", lambda self, other: _aten.floor_divide.default(other, self))
    __rmod__ = _reflected("__rmod__", lambda self, other: _aten.remainder.Scalar_Tensor(other, self))
    __rpow__ = _reflected("__rpow__", lambda self, other: _aten.pow.Scalar(other, self))
    __rlshift__ = _reflected("__rlshift__", lambda self, other: _aten.bitwise_left_shift.Scalar_Tensor(other, self))
    __rrshift__ = _reflected("__rrshift__", lambda self, other: _aten.bitwise_right_shift.Scalar_Tensor(other, self))
    __rmatmul__ = _reflected("__rmatmul__", lambda self, other: _F.matmul(other, self))

    def __imatmul__(self, other):
        if _TF:
            _r = _tf.handle_locals(Tensor.__imatmul__, locals())
            if _r is not _NOT_HANDLED:
                return _r
        return self.copy_(self.matmul(other))

    __pos__ = _V["positive"]     # torch's: the same tensor, and the bool tensor's error; a mode sees `positive`

    # ------------------------------------------------------------ methods torch writes in Python
    def is_nonzero(self):
        if _TF:
            _r = _tf.handle_locals(Tensor.is_nonzero, locals())
            if _r is not _NOT_HANDLED:
                return _r
        return _functional.is_nonzero(self)

    def is_same_size(self, other):
        if _TF:
            _r = _tf.handle_locals(Tensor.is_same_size, locals())
            if _r is not _NOT_HANDLED:
                return _r
        return _functional.is_same_size(self, other)

    def split(self, split_size, dim=0):
        if _TF:
            _r = _tf.handle_locals(Tensor.split, locals())
            if _r is not _NOT_HANDLED:
                return _r
        return _functional.split(self, split_size, dim)

    def unbind(self, dim=0):
        if _TF:       # a C binding in torch: plain tensors are not in `types`, kwargs None
            _r = _tf.bound(Tensor.unbind, locals(), ("self",), "unbind")
            if _r is not _NOT_HANDLED:
                return _r
        return tuple(_aten.unbind.int(self, dim))

    def chunk(self, chunks, dim=0):
        if _TF:
            _r = _tf.bound(Tensor.chunk, locals(), ("self",), "chunk")
            if _r is not _NOT_HANDLED:
                return _r
        return tuple(_aten.chunk.default(self, chunks, dim))

    def nonzero(self, *, as_tuple=False):
        if _TF:
            _r = _tf.handle_locals(Tensor.nonzero, locals())
            if _r is not _NOT_HANDLED:
                return _r
        return _functional.nonzero(self, as_tuple=as_tuple)

    def stft(self, n_fft, hop_length=None, win_length=None, window=None, center=True, pad_mode="reflect",
             normalized=False, onesided=None, return_complex=None, align_to_window=None):
        if _TF:
            _r = _tf.handle_locals(Tensor.stft, locals())
            if _r is not _NOT_HANDLED:
                return _r
        return _functional.stft(self, n_fft, hop_length, win_length, window, center, pad_mode, normalized, onesided,
                                return_complex, align_to_window)

    def norm(self, p="fro", dim=None, keepdim=False, dtype=None):
        if _TF:
            _r = _tf.handle_locals(Tensor.norm, locals())
            if _r is not _NOT_HANDLED:
                return _r
        return _functional.norm(self, p, dim, keepdim, dtype=dtype)

    def unique(self, sorted=True, return_inverse=False, return_counts=False, dim=None):
        if _TF:
            _r = _tf.handle_locals(Tensor.unique, locals())
            if _r is not _NOT_HANDLED:
                return _r
        return _functional.unique(self, sorted, return_inverse, return_counts, dim)

    def unique_consecutive(self, return_inverse=False, return_counts=False, dim=None):
        if _TF:
            _r = _tf.handle_locals(Tensor.unique_consecutive, locals())
            if _r is not _NOT_HANDLED:
                return _r
        return _functional.unique_consecutive(self, return_inverse, return_counts, dim)

    # ------------------------------------------------------------ autograd
    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        if _TF:
            _r = _tf.handle_locals(Tensor.backward, locals())
            if _r is not _NOT_HANDLED:
                return _r
        from .autograd import backward
        backward(self, gradient, retain_graph, create_graph, inputs=inputs)

    def register_hook(self, hook):
        """hook(grad) -> Tensor or None, run when the gradient w.r.t. this tensor is computed."""
        if _TF:
            _r = _tf.handle_locals(Tensor.register_hook, locals())
            if _r is not _NOT_HANDLED:
                return _r
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self.grad_fn is None:
            from .autograd.graph import grad_accumulator
            acc = self._grad_acc_strong = grad_accumulator(self)   # hooks live as long as the tensor
            return acc._register_tensor_pre_hook(0, hook)
        return self.grad_fn._register_tensor_pre_hook(self._output_nr, hook)

    def register_post_accumulate_grad_hook(self, hook):
        if _TF:
            _r = _tf.handle_locals(Tensor.register_post_accumulate_grad_hook, locals())
            if _r is not _NOT_HANDLED:
                return _r
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
        if _TF:
            _r = _tf.handle_locals(Tensor.retain_grad, locals())
            if _r is not _NOT_HANDLED:
                return _r
        if not self._requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self.grad_fn is None or self._retains_grad:
            return
        import weakref
        fn = self.grad_fn
        if fn._retains_grad is None:
            fn._retains_grad = {}
            fn._hooked = True
        fn._retains_grad[self._output_nr] = weakref.ref(self)
        self._retains_grad = True

    # __len__, __bool__, __float__, __int__: the protocol's check is switched in (see _CHECKED_METHODS)
    def __len__(self):
        if not self._size:
            raise TypeError("len() of a 0-d tensor")
        return self._size[0]

    def __iter__(self):
        # not dispatched itself, as torch's (gh-54457): a mode sees its dim() and unbind(0)
        if self.dim() == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def __bool__(self):
        a = self._np
        if a is not None and a.size == 1 and self.dtype in _BOOL_DIRECT:
            return bool(a)     # numpy's truth of the one element, item()'s too (a conj/neg bit keeps it)
        if self.numel() != 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(self.item())

    def __float__(self):
        if self._requires_grad and not _T_WARNED[3] and _tls.grad_enabled:
            # TORCH_WARN_ONCE in torch's python_variable_methods, only while grad mode is on (LBFGS's
            # float(loss) inside its no_grad step is silent)
            _T_WARNED[3] = True
            import warnings
            warnings.warn("Converting a tensor with requires_grad=True to a scalar may lead to unexpected behavior.\n"
                          "Consider using tensor.detach() first.", UserWarning, stacklevel=2)
        return float(self.item().real if self.dtype.is_complex else self.item())

    def __int__(self):
        return int(self.item())

    def __index__(self):
        if _TF:
            _r = _tf.handle_locals(Tensor.__index__, locals())
            if _r is not _NOT_HANDLED:
                return _r
        if self.dtype.is_floating_point or self.dtype.is_complex or self.numel() != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def __complex__(self):
        if _TF:
            _r = _tf.handle_locals(Tensor.__complex__, locals())
            if _r is not _NOT_HANDLED:
                return _r
        return complex(self.item())

    def __hash__(self):
        return id(self)

    def __repr__(self, *, tensor_contents=None):
        if _TF:
            _r = _tf.handle_locals(Tensor.__repr__, locals())
            if _r is not _NOT_HANDLED:
                return _r
        from ._tensor_str import tensor_repr
        return tensor_repr(self)

    def __format__(self, spec):
        if _TF:
            _r = _tf.handle_locals(Tensor.__format__, locals())
            if _r is not _NOT_HANDLED:
                return _r
        if self.dim() == 0 and self._np is not None:
            return self.item().__format__(spec)
        return object.__format__(self, spec)

    def __reduce_ex__(self, proto):
        """Plain pickling (multiprocessing, copy): the values as a numpy array; views are not kept
        (ember.save keeps storages and views); a conj or neg view pickles its logical values."""
        arr = None if self._np is None else np.ascontiguousarray(self._logical_np())
        return (_rebuild_pickled, (type(self), arr, self.dtype.name, self._size, self._requires_grad))

    def __deepcopy__(self, memo):
        if _TF:
            _r = _tf.handle_locals(Tensor.__deepcopy__, locals())
            if _r is not _NOT_HANDLED:
                return _r
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
        if _TF:
            _r = _tf.handle_locals(Tensor.__dlpack__, locals())
            if _r is not _NOT_HANDLED:
                return _r
        if self.requires_grad:      # torch's check: the exported buffer would escape autograd
            raise BufferError("Can't export tensors that require gradient, use tensor.detach()")
        return self.numpy(force=True).__dlpack__(**kwargs) if kwargs else self.numpy(force=True).__dlpack__()

    def share_memory_(self):
        """Move the storage into shared memory (processes started afterwards, or sent the tensor, share it);
        a no-op if it is already shared. Returns self."""
        if _TF:
            _r = _tf.handle_locals(Tensor.share_memory_, locals())
            if _r is not _NOT_HANDLED:
                return _r
        self.untyped_storage().share_memory_()
        return self

    def is_shared(self):
        if _TF:
            _r = _tf.handle_locals(Tensor.is_shared, locals())
            if _r is not _NOT_HANDLED:
                return _r
        return self.untyped_storage().is_shared()

    def __dlpack_device__(self):
        if _TF:
            _r = _tf.handle_locals(Tensor.__dlpack_device__, locals())
            if _r is not _NOT_HANDLED:
                return _r
        return (1, 0)

    def as_subclass(self, cls):
        """torch's Tensor.as_subclass: `self` seen as a `cls` instance sharing its storage and version counter
        and attached to the autograd graph (aten.alias, so a result of a tensor that requires grad has an
        AliasBackward0 grad_fn and gradients flow back to `self`). The alias is made without
        __torch_function__, as torch does, then given the class `cls`."""
        if not isinstance(cls, type):
            raise TypeError(f"cls must be a type (got {type(cls).__name__})")
        if not issubclass(cls, Tensor):
            raise TypeError("Creating a Tensor subclass from a class that does not inherit from Tensor is not "
                            "possible. Make sure your class inherits from Tensor.")
        if _TF and not _tf.is_torch_function_all_disabled():
            with _tf.DisableTorchFunction():       # torch's alias here is C++: a mode sees none of its reads
                return Tensor.as_subclass(self, cls)
        out = _aten.alias(self)
        if type(out) is not cls:
            out.__class__ = cls
        return out

    # data is a detached alias sharing storage
    @property
    def data(self):
        if _TF:
            _r = _tf.handle_getter(Tensor.data, self)
            if _r is not _NOT_HANDLED:
                return _r
        return self.detach()

    @data.setter
    def data(self, other):
        if _TF:
            _r = _tf.handle_setter(Tensor.data, self, other)
            if _r is not _NOT_HANDLED:
                return
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
        if _TF:
            _r = _tf.handle_getter(Tensor.T, self)
            if _r is not _NOT_HANDLED:
                return _r
        n = self.dim()
        if n != 2 and not _T_WARNED[n == 0]:        # TORCH_WARN_ONCE, one per message
            _T_WARNED[n == 0] = True
            import warnings
            warnings.warn("Tensor.T is deprecated on 0-D tensors. This function is the identity in these cases."
                          if n == 0 else "The use of `x.T` on tensors of dimension other than 2 to reverse their shape "
                          "is deprecated and it will throw an error in a future release. Consider `x.mT` to transpose "
                          "batches of matrices or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the "
                          "dimensions of a tensor.", UserWarning, stacklevel=2)
        return self.permute(tuple(range(n - 1, -1, -1)))

    def __contains__(self, element):
        """torch's Tensor.__contains__: `x in t` is `(x == t).any()` for a tensor or a number."""
        if _TF:
            _r = _tf.handle_locals(Tensor.__contains__, locals())
            if _r is not _NOT_HANDLED:
                return _r
        import numbers
        from ._core.symint import SymInt, SymFloat, SymBool
        if isinstance(element, (TensorImpl, numbers.Number, SymInt, SymFloat, SymBool)):
            return bool((element == self).any().item())
        raise RuntimeError(f"Tensor.__contains__ only supports Tensor or scalar, but you passed in a {type(element)}.")

    @property
    def mT(self):
        if _TF:
            _r = _tf.handle_getter(Tensor.mT, self)
            if _r is not _NOT_HANDLED:
                return _r
        return self.transpose(-2, -1)

    @property
    def H(self):
        """torch's matrix_H: a matrix's conjugate transpose; a 0-D tensor's conj (warned once), others refused."""
        if _TF:
            _r = _tf.handle_getter(Tensor.H, self)
            if _r is not _NOT_HANDLED:
                return _r
        n = self.dim()
        if n == 0 and not _T_WARNED[2]:
            _T_WARNED[2] = True
            import warnings
            warnings.warn("Tensor.H is deprecated on 0-D tensors. Consider using x.conj().", UserWarning, stacklevel=2)
        if n != 2 and n != 0:
            raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got {n}-D tensor."
                               + (" For batches of matrices, consider using tensor.mH" if n > 2 else ""))
        t = self.transpose(-2, -1) if n == 2 else self
        return t.conj() if self.is_complex() else t

    @property
    def mH(self):
        if _TF:
            _r = _tf.handle_getter(Tensor.mH, self)
            if _r is not _NOT_HANDLED:
                return _r
        return self.mT.conj() if self.is_complex() else self.mT

    @property
    def real(self):
        if _TF:
            _r = _tf.handle_getter(Tensor.real, self)
            if _r is not _NOT_HANDLED:
                return _r
        if not self.is_complex():
            return self
        # a conjugated tensor's real part is its base's (torch's at::real)
        return _aten.view_as_real(_aten._conj(self) if self.is_conj() else self).select(-1, 0)

    @property
    def imag(self):
        if _TF:
            _r = _tf.handle_getter(Tensor.imag, self)
            if _r is not _NOT_HANDLED:
                return _r
        if not self.is_complex():
            raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
        if self.is_conj():      # the imaginary part of conj(z) is -imag(z): a neg view (torch's at::imag)
            return _aten.view_as_real(_aten._conj(self))._neg_view().select(-1, 1)
        return _aten.view_as_real(self).select(-1, 1)

    def type(self, dtype=None, non_blocking=False):
        if _TF:
            _r = _tf.handle_locals(Tensor.type, locals())
            if _r is not _NOT_HANDLED:
                return _r
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
        elif isinstance(getattr(dtype, "dtype", None), _dt.dtype):     # ember.LongTensor and the other legacy types
            dtype = dtype.dtype
        elif not isinstance(dtype, _dt.dtype) and dtype not in (float, int, bool, complex):
            raise TypeError("dtype must be a type, str, or dtype object")
        return self.to(dtype)

    def lu(self, pivot=True, get_infos=False):
        """torch.Tensor.lu: the deprecated torch.lu on this tensor."""
        if _TF:
            _r = _tf.handle_locals(Tensor.lu, locals())
            if _r is not _NOT_HANDLED:
                return _r
        return _functional.lu(self, pivot=pivot, get_infos=get_infos)

    def equal(self, other):
        if _TF:
            _r = _tf.handle_locals(Tensor.equal, locals())
            if _r is not _NOT_HANDLED:
                return _r
        return _functional.equal(self, other)

    def new_tensor(self, data, dtype=None, device=None, requires_grad=False):
        if _TF:
            _r = _tf.handle_locals(Tensor.new_tensor, locals())
            if _r is not _NOT_HANDLED:
                return _r
        return _functional.tensor(data, dtype=dtype or self.dtype, device=device or self.device, requires_grad=requires_grad)


register_tensor_class(Tensor)
_tf.set_public_tensor(Tensor)
# torch.overrides.get_default_nowrap_functions: reads whose result the default __torch_function__ leaves as it is
_NOWRAP = {Tensor.grad.__get__, _INSTANCE_PROPS["_base"].__get__}

# ------------------------------------------------------------------ the protocol on attribute reads
# The methods and properties torch dispatches that ember writes without a check (see _core/torch_function.py,
# "Attribute reads"): while a mode is pushed their code is swapped for the check, and a subclass taking part in the
# protocol gets checked copies. Method name -> (exact, kwargs_dict) of `_tf.make_check`: `exact` False for the ones
# torch binds through its argument parser (plain tensors not in `types`), kwargs_dict for the ones torch writes in
# Python. Aliases (ndimension, nelement) are the same function: a mode sees `dim`, `numel`, as torch's.
_CHECKED_METHODS = {
    "size": (False, False), "stride": (False, False), "is_contiguous": (False, False),
    "requires_grad_": (False, False), "numpy": (False, False),
    "storage_offset": (True, False), "dim": (True, False), "numel": (True, False), "element_size": (True, False),
    "get_device": (True, False), "is_floating_point": (True, False), "is_complex": (True, False),
    "is_signed": (True, False), "is_conj": (True, False), "is_neg": (True, False), "untyped_storage": (True, False),
    "data_ptr": (True, False), "_is_view": (True, False), "is_inference": (True, False), "detach_": (True, False),
    "tolist": (True, False), "item": (True, False), "__bool__": (True, False), "__float__": (True, False),
    "__int__": (True, False), "__len__": (True, True), "__array__": (True, True),
}
_CHECKED_PROPERTIES = ("shape", "grad", "device", "requires_grad", "ndim", "is_leaf", "nbytes", "itemsize",
                       "output_nr", "_version", "retains_grad", "is_meta", "is_cpu", "is_cuda", "is_sparse",
                       "is_quantized", "is_nested", "layout")


def _checked_reads():
    """name -> what a participating subclass gets in its class dict (checked copies of Tensor's own)."""
    copies = {}
    done = {}
    for name in list(_CHECKED_METHODS) + ["ndimension", "nelement"]:
        f = getattr(Tensor, name)
        if f not in done:
            exact, kwd = _CHECKED_METHODS[f.__name__]
            done[f] = _tf.switched(f, _tf.make_check(f, _tf.own_copy(f), exact, kwd))
        copies[name] = done[f]
    for name in _CHECKED_PROPERTIES:
        prop = getattr(Tensor, name)
        parts = []
        for acc, api in ((prop.fget, prop.__get__), (prop.fset, prop.__set__), (prop.fdel, prop.__delete__)):
            parts.append(None if acc is None else _tf.switched(acc, _tf.make_check(api, _tf.own_copy(acc))))
        copies[name] = property(*parts, doc=prop.__doc__)
    copies.update(_INSTANCE_PROPS)
    return copies


_SUBCLASS_COPIES = _checked_reads()
_OWN_CLASSES = frozenset(Tensor.__mro__)


def _install_checked_reads(cls):
    """A Tensor subclass taking part in the protocol: the checked reads go in its class dict, for every name it
    (or a class between it and Tensor) does not define itself."""
    for name, obj in _SUBCLASS_COPIES.items():
        owner = next(k for k in cls.__mro__ if name in k.__dict__)
        if owner in _OWN_CLASSES:
            set_class_attr(cls, name, obj)


def _switch_instance_props(on):
    """A mode is pushed (on) or the last one popped: `dtype`, `grad_fn`, `_base` read through their properties
    meanwhile (the instance attributes stay where they are; the properties read and write them)."""
    for name, prop in _INSTANCE_PROPS.items():
        if on:
            set_class_attr(Tensor, name, prop)
        elif name == "dtype":
            Tensor.dtype = staticmethod(prop)
        else:
            set_class_attr(Tensor, name, _DELETE)


_tf._SUBCLASS_HOOK[0] = _install_checked_reads
_tf._SWITCH_HOOKS.append(_switch_instance_props)


def _load_autograd_kernels():
    from ._generated import autograd_registrations  # noqa: F401  (registering is the import)


set_autograd_loader(_load_autograd_kernels)


def _rebuild_pickled(cls, arr, dtype_name, size, requires_grad):
    dtype = _dt.dtype_from_name(dtype_name)
    if arr is None:
        t = _aten.empty.memory_format(size, dtype=dtype, device=META)
    else:
        t = Tensor._wrap_np(arr, dtype)
    if cls is not Tensor:
        return cls(t, requires_grad) if getattr(cls, "_is_param", False) else cls._wrap_np(arr, dtype)
    if requires_grad:
        t.requires_grad_()
    return t
