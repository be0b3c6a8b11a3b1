"""Tensor.to and the dtype/device shorthands (.float(), .cpu(), .cuda(), .type_as(), ...) as the `TensorConversions`
mixin `ember.Tensor` inherits: torch's hand-written argument parsing (python_variable_methods.cpp
THPVariable_to) over the aten `to` overloads."""
from ._core import dtype as D
from ._core.device import as_device, device as _device
from ._arg_parser import _is_dtype
from ._core.tensor_impl import TensorImpl as Tensor
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


def _to(self, *args, **kwargs):
    if _TF and (_TFM or self.__class__ not in _TFP or not _tf_plain(args, kwargs)):      # __torch_function__ (see _core/torch_function.py)
        r = _tf_varargs(_to, (self, *args), kwargs, "ember.Tensor.to")
        if r is not _NOT_HANDLED:
            return r
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
    return _aten.to.dtype_layout(self, device=as_device(device), non_blocking=non_blocking, copy=copy,
                                 memory_format=memory_format)


def _caster(dt):
    def method(self, memory_format="preserve_format"):
        if _TF and (_TFM or self.__class__ not in _TFP):
            r = _tf_bound(method, locals(), ("self",), "ember.Tensor." + method.__name__)
            if r is not _NOT_HANDLED:
                return r
        return _aten.to.dtype(self, dt, False, False, memory_format)
    method.__name__ = dt.name
    return method


def _cpu(self, memory_format="preserve_format"):
    if _TF:
        r = _tf_bound(_cpu, locals(), ("self",), "ember.Tensor.cpu")
        if r is not _NOT_HANDLED:
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
    return _aten.to.dtype(self, other.dtype)


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
