"""Tensor.to and the dtype/device shorthands (.float(), .cpu(), .cuda(), .type_as(), ...) as the `TensorConversions`
mixin `ember.Tensor` inherits: torch's hand-written argument parsing (python_variable_methods.cpp
THPVariable_to) over the aten `to` overloads."""
from ._core import dtype as D
from ._core.device import CPU as _CPU, as_device, device as _device
from ._arg_parser import _is_dtype
from ._core.dispatch_keys import AUTOGRAD_BIT as _AUTOGRAD_BIT, BACKEND_BITS as _BACKEND_BITS, CPU_BIT as _CPU_BIT
from ._core.dtype import dtype as _DTYPE
from ._core.tensor_impl import TensorImpl as Tensor, TENSOR_TYPES as _TENSOR_TYPES
from ._core.tls import GRAD_OFF as _GRAD_OFF, KEYS_ACTIVE as _KEYS_ACTIVE, state as _tls
from . import _ops as _opsmod
from ._ops import ops
from ._core.torch_function import NOT_HANDLED as _NOT_HANDLED, bound as _tf_bound, varargs as _tf_varargs, register as _tf_register, \
    PLAIN_TYPES as _tf_PLAIN, plain_args as _tf_plain

_TF = False      # the __torch_function__ check: kept current by _tf_register (see _core/torch_function.py)
_TFM = False     # a mode is pushed (likewise); with plain arguments (PLAIN_TYPES) nothing else can override
_TFP = _tf_PLAIN
_tf_register(globals())

_aten = ops.aten


def _is_device(x):
    return isinstance(x, (str, _device)) or (isinstance(x, int) and not isinstance(x, bool))


_TO_COPY = []    # aten._to_copy.default's dispatch cache (key set -> kernel), read on the first direct call


def _to_copy_cache():
    if not _TO_COPY:
        _TO_COPY.append(_aten._to_copy.default._dispatch_cache)
    return _TO_COPY[0]


def _direct(self, dt, dev=None):
    """`self.to(dev, dt)` for an ember dtype `dt` or None (keep self's) and `dev` None or self's own device (the
    string "cpu" or an unindexed cpu device, self on cpu), non_blocking and copy False, preserve_format, without
    the two dispatcher passes of to.* (CompositeImplicitAutograd: decompositions/copy.py's _to_impl) and
    _to_copy: self itself when nothing changes (torch's to_will_alias), else _to_copy's kernel for self's key set
    taken from that op's dispatch cache, as the generated bindings take theirs (the Autograd kernel when self
    needs grad: the same ToCopyBackward0 node). NotImplemented when the call is not that plain: another device
    (or "cpu:0", which torch copies), a dispatch mode or other thread-local keys active (they see the calls they
    saw before), a dispatch observer set (the profiler sees aten.to.* and aten._to_copy, as torch's sees aten::to
    and aten::_to_copy), a key set not resolved yet, a tensor of no backend. Callgrind, instructions per call on
    4-element tensors (session 14 -> 15, torch 2.13), with kernels/cpu/copy.py's small casts: `.to(float16)`
    79.5k -> 22.6k (15.4k), `.double()` 79.3k -> 20.8k (11.7k), `.half()` 84.9k -> 20.9k (9.4k), needing grad
    `.to(float64)` 82.0k -> 30.3k (22.3k), `.to("cpu")` 35.7k -> 4.7k (5.0k), `.cpu()` 23.2k -> 3.4k (3.3k)."""
    ks = self._ks
    if ks & _BACKEND_BITS and not _KEYS_ACTIVE[0] and _opsmod._observer is None:
        if dev is not None and not (ks & _CPU_BIT and (dev == "cpu" if dev.__class__ is str else (
                dev.__class__ is _device and dev.type == "cpu" and dev.index is None))):
            return NotImplemented
        if dt is None or dt is self.dtype:
            return self
        k = (_TO_COPY[0] if _TO_COPY else _to_copy_cache()).get(
            ks & ~_tls._exclude if _GRAD_OFF and ks & _AUTOGRAD_BIT else ks)
        if k is not None:
            return k(self, dtype=dt)
    return NotImplemented


_DIRECT_KW = frozenset(("dtype", "device"))


def _direct_args(self, args, kwargs):
    """_direct for the common argument forms of Tensor.to: (dtype), (device), (tensor), (device, dtype) and the
    keywords dtype= / device=; NotImplemented for any other form (the general parse below)."""
    if not kwargs:
        if len(args) == 1:
            a = args[0]
            c = a.__class__
            if c is _DTYPE:
                return _direct(self, a)
            if c is str or c is _device:
                return _direct(self, None, a)
            if c in _TENSOR_TYPES:
                return _direct(self, a.dtype, a.device)
        elif len(args) == 2 and args[1].__class__ is _DTYPE and args[0].__class__ in (str, _device):
            return _direct(self, args[1], args[0])
    elif not args and kwargs.keys() <= _DIRECT_KW:
        dt = kwargs.get("dtype")
        dev = kwargs.get("device")
        if (dt is None or dt.__class__ is _DTYPE) and (dev is None or dev.__class__ in (str, _device)):
            return _direct(self, dt, dev)
    return NotImplemented


def _to(self, *args, **kwargs):
    if _TF and (_TFM or self.__class__ not in _TFP or not _tf_plain(args, kwargs)):      # __torch_function__ (see _core/torch_function.py)
        r = _tf_varargs(_to, (self, *args), kwargs, "ember.Tensor.to")
        if r is not _NOT_HANDLED:
            return r
    if self.__class__ in _TENSOR_TYPES and (r := _direct_args(self, args, kwargs)) is not NotImplemented:
        return r                # the common forms: `x.to(dtype)`, `x.to(device)`, `x.to(other)`, ...
    non_blocking = kwargs.pop("non_blocking", False)
    copy = kwargs.pop("copy", False)
    memory_format = kwargs.pop("memory_format", None)
    dtype = kwargs.pop("dtype", None)
    device = kwargs.pop("device", None)
    other = kwargs.pop("other", None)
    if kwargs:
        raise TypeError(f"to() got an unexpected keyword argument '{next(iter(kwargs))}'")
    args = list(args)
    if args and isinstance(args[0], Tensor):
        other = args.pop(0)
    elif args and _is_dtype(args[0]):
        dtype = args.pop(0)
    elif args and args[0] is not None and _is_device(args[0]):
        device = args.pop(0)
        if args and (_is_dtype(args[0]) or args[0] is None):
            dtype = args.pop(0)
    elif args and args[0] is None:
        args.pop(0)
    if args and isinstance(args[0], bool):
        non_blocking = args.pop(0)
    if args and isinstance(args[0], bool):
        copy = args.pop(0)
    if args:
        raise TypeError(f"to() received an invalid combination of arguments - got {tuple(type(a).__name__ for a in args)}"
                        ", but expected one of:\n * (torch.device device = None, torch.dtype dtype = None, bool "
                        "non_blocking = False, bool copy = False, *, torch.memory_format memory_format = None)\n"
                        " * (torch.dtype dtype, bool non_blocking = False, bool copy = False, *, torch.memory_format "
                        "memory_format = None)\n * (Tensor tensor, bool non_blocking = False, bool copy = False, *, "
                        "torch.memory_format memory_format = None)")
    if other is not None:
        return _aten.to.other(self, other, non_blocking, copy, memory_format)
    if device is None:
        if dtype is None:
            return _aten.to.dtype_layout(self, non_blocking=non_blocking, copy=copy, memory_format=memory_format)
        return _aten.to.dtype(self, dtype, non_blocking, copy, memory_format)
    if dtype is not None:       # both given: torch's dispatch_to(self, device, dtype, ...) is to.device
        return _aten.to.device(self, as_device(device), dtype, non_blocking, copy, memory_format)
    # torch's dispatch_to for a device alone: self's options with that device (a mode sees dtype, layout, device)
    return _aten.to.dtype_layout(self, dtype=self.dtype, layout=self.layout, device=as_device(device),
                                 non_blocking=non_blocking, copy=copy, memory_format=memory_format)


def _caster(dt):
    def method(self, memory_format="preserve_format"):
        if _TF and (_TFM or self.__class__ not in _TFP):
            r = _tf_bound(method, locals(), ("self",), "ember.Tensor." + method.__name__)
            if r is not _NOT_HANDLED:
                return r
        if (memory_format == "preserve_format" and self.__class__ in _TENSOR_TYPES
                and (r := _direct(self, dt)) is not NotImplemented):
            return r
        # (torch's shorthands pass no memory format to _to_copy unless given one: a mode sees `dtype` only)
        return _aten.to.dtype(self, dt, False, False, None if memory_format == "preserve_format" else memory_format)
    method.__name__ = dt.name
    return method


def _cpu(self, memory_format="preserve_format"):
    if _TF:
        r = _tf_bound(_cpu, locals(), ("self",), "ember.Tensor.cpu")
        if r is not _NOT_HANDLED:
            return r
    if (memory_format == "preserve_format" and self.__class__ in _TENSOR_TYPES
            and (r := _direct(self, None, _CPU)) is not NotImplemented):
        return r
    return _aten.to.dtype_layout(self, device=_device("cpu"), memory_format=memory_format)


def _cuda(self, device=None, non_blocking=False, memory_format="preserve_format"):
    """Tensor.cuda(): ember has no CUDA backend, so torch's CPU-build error (as Module.cuda)."""
    raise AssertionError("Torch not compiled with CUDA enabled")


def _type_as(self, other):
    if _TF:
        r = _tf_bound(_type_as, locals(), ("self", "other"), "ember.Tensor.type_as")
        if r is not _NOT_HANDLED:
            return r
    if (self.__class__ in _TENSOR_TYPES and other.__class__ in _TENSOR_TYPES
            and (r := _direct(self, other.dtype)) is not NotImplemented):
        return r
    # torch's type_as is `self.to(other.options())`: a mode sees _to_copy given other's dtype, layout and device
    return _aten.to.dtype_layout(self, dtype=other.dtype, layout=other.layout, device=other.device)


_to.__name__, _cpu.__name__, _type_as.__name__ = "to", "cpu", "type_as"   # (torch's names, as overrides see them)


class TensorConversions:
    """to(), cpu(), type_as() and one method per dtype shorthand (float(), long(), ...)."""
    __slots__ = ()
    to = _to
    cpu = _cpu
    cuda = _cuda
    type_as = _type_as
    float = _caster(D.float32)
    double = _caster(D.float64)
    half = _caster(D.float16)
    bfloat16 = _caster(D.bfloat16)
    int = _caster(D.int32)
    long = _caster(D.int64)
    short = _caster(D.int16)
    char = _caster(D.int8)
    byte = _caster(D.uint8)
    bool = _caster(D.bool_)
    cfloat = _caster(D.complex64)
    cdouble = _caster(D.complex128)
