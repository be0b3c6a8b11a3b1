"""torch._subclasses.fake_tensor: FakeTensor and FakeTensorMode, tensors with a device and no data.

A FakeTensor is a Tensor over a meta storage that reports `fake_device` (cpu) as its device and carries the
Python dispatch key. Under FakeTensorMode (or through FakeTensor.__torch_dispatch__ outside it) every op
runs with the Python key excluded: autograd records as usual, and the op's Meta kernel (the same meta
function the cpu kernel allocates with) computes the output geometry. Factory ops get device="meta".
Results of pure ops are cached by argument metadata. `from_tensor` converts real tensors, memoized per
tensor and per storage, so two real views of one storage become two fakes over one meta storage.

Errors: ops whose output shape depends on data (nonzero, masked_select, unique ...) raise
DynamicOutputShapeException, `.item()` / `.tolist()` / `bool()` raise DataDependentOutputException, mixing a
real tensor into a fake computation raises AssertionError (torch's message), and an op without a meta
kernel raises UnsupportedOperatorException naming it.
"""
import contextlib
import weakref

from ember._core.device import CPU, META, device as _device
from ember._core.symint import SymBool, SymFloat, SymInt
from ember._core.tls import state as _tls
from ember._core.torch_function import _disabled_torch_function_impl
from ember._core.dispatch_keys import META_BIT, PYTHON_BIT, DispatchKey
from ember._dispatch.modes import TorchDispatchMode
from ember._tensor import Tensor


class UnsupportedFakeTensorException(RuntimeError):
    pass


class UnsupportedOperatorException(RuntimeError):
    """An op without a Meta kernel (or one whose kernel needs data); `func` names it."""

    def __init__(self, func, reason=""):
        self.func = func
        super().__init__(f"{func}{': ' + reason if reason else ''}")


class DynamicOutputShapeException(RuntimeError):
    def __init__(self, func):
        self.func = func
        super().__init__(str(func))


class DataDependentOutputException(RuntimeError):
    def __init__(self, func):
        self.func = func
        super().__init__(str(func))


# outputs whose shape is decided by the values of the input
_DYNAMIC_OUTPUT_SHAPE = {"nonzero", "masked_select", "unique", "_unique", "_unique2", "unique_dim",
                         "unique_consecutive", "argwhere", "bincount", "nonzero_numpy", "nonzero_static_",
                         "_ctc_loss_dynamic"}
_DATA_DEPENDENT = {"_local_scalar_dense", "item", "equal", "allclose", "is_nonzero"}


class _LocalScalarDense:
    """Stands for aten._local_scalar_dense in messages (ember's Tensor.item reads data directly)."""

    def __str__(self):
        return "aten._local_scalar_dense.default"


_ITEM = _LocalScalarDense()


class FakeTensor(Tensor):
    """A tensor without data whose metadata (sizes, strides, dtype, device) behaves like a real one's."""

    fake_mode = None
    fake_device = CPU
    __torch_function__ = _disabled_torch_function_impl    # as torch's: ops on it are ops on tensors
    _alias_fields = ("fake_mode", "fake_device")   # copied by nn's alias (Parameter(fake), Buffer(fake))

    # inside a kernel the tensor is what it really is, a meta tensor (kernels allocate on their inputs' device)
    @property
    def device(self):
        return META if _IN_KERNEL[0] else self.fake_device

    @property
    def is_meta(self):
        return True if _IN_KERNEL[0] else self.fake_device.type == "meta"

    @property
    def is_cpu(self):
        return False if _IN_KERNEL[0] else self.fake_device.type == "cpu"

    def get_device(self):
        return -1

    def __repr__(self, *, tensor_contents=None):
        dev = "" if self.fake_device.type == "cpu" else f", device='{self.fake_device}'"
        dt = "" if self.dtype.name == "float32" else f", dtype={self.dtype}"
        return f"FakeTensor(..., size={tuple(self._size)}{dt}{dev})"

    # data access: impossible without data
    def item(self):
        raise DataDependentOutputException(_ITEM)

    def tolist(self):
        raise DataDependentOutputException(_ITEM)

    def numpy(self, *, force=False):
        raise DataDependentOutputException(_ITEM)

    def __array__(self, dtype=None, copy=None):
        raise DataDependentOutputException(_ITEM)

    def __bool__(self):
        raise DataDependentOutputException(_ITEM)

    __float__ = __int__ = __complex__ = __index__ = __bool__

    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        mode = None
        for a in _flat(args, kwargs):
            if isinstance(a, FakeTensor):
                mode = a.fake_mode
                break
        with mode:
            return func(*args, **(kwargs or {}))

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        with self.fake_mode:
            out = self.clone().detach().requires_grad_(self.requires_grad)
        memo[id(self)] = out
        return out


def _flat(args, kwargs):
    for a in list(args) + list((kwargs or {}).values()):
        if isinstance(a, (list, tuple)):
            yield from a
        else:
            yield a


_IN_KERNEL = [0]


@contextlib.contextmanager
def _exclude_python_key():
    old = _tls.exclude
    _tls.exclude = old | PYTHON_BIT
    _IN_KERNEL[0] += 1
    try:
        yield
    finally:
        _IN_KERNEL[0] -= 1
        _tls.exclude = old


def _make_fake(t, mode, device=CPU):
    """Turn a meta tensor produced by a Meta kernel into a FakeTensor in place (identity, grad_fn, views kept)."""
    if isinstance(t, FakeTensor):
        return t
    if t._np is not None or not t._ks & META_BIT:
        raise AssertionError(f"expected a meta tensor from a Meta kernel, got a {t.device} tensor")
    t.__class__ = FakeTensor
    t.fake_mode = mode
    t.fake_device = device
    t._ks |= PYTHON_BIT
    return t


class FakeTensorConverter:
    """Real tensor -> FakeTensor, memoized by tensor (weakly) and by storage so aliasing is preserved."""

    def __init__(self):
        self.tensor_memo = weakref.WeakValueDictionary()     # id(real) -> fake
        self._real_refs = {}                                  # id(real) -> weakref(real), to detect id reuse
        self.storage_memo = {}                                # id(real storage) -> (weakref(storage), meta storage)

    def from_real_tensor(self, mode, t, *, static_shapes=True, source=None, symbolic_context=None):
        """The fake of real tensor `t`. With a ShapeEnv on `mode` and `static_shapes=False` (or a
        `symbolic_context` naming dynamic dims) its sizes and strides are SymInts with `source` as their origin;
        a tensor already converted keeps the sizes it got first (memo)."""
        if isinstance(t, FakeTensor):
            if t.fake_mode is not mode:
                raise UnsupportedFakeTensorException("Mixing fake modes NYI")
            return t
        key = id(t)
        ref = self._real_refs.get(key)
        if ref is not None and ref() is t and key in self.tensor_memo:
            return self.tensor_memo[key]
        from ember._core.storage import UntypedStorage
        real_storage = t.untyped_storage() if t._np is not None else t._storage
        skey = id(real_storage)
        entry = self.storage_memo.get(skey)
        if entry is None or entry[0]() is not real_storage:
            meta_storage = UntypedStorage(real_storage.nbytes(), device=META)
            self.storage_memo[skey] = (weakref.ref(real_storage), meta_storage)
        else:
            meta_storage = entry[1]
        shape, stride, offset = t.shape, t.stride(), t.storage_offset()
        if mode.shape_env is not None and (not static_shapes or symbolic_context is not None):
            shape, stride, offset = mode.shape_env.create_symbolic_sizes_strides_storage_offset(
                t, source, symbolic_context)
        out = Tensor._from_storage(meta_storage, offset, shape, stride, t.dtype)
        out = _make_fake(out, mode, CPU if t._np is not None else META)
        if t._base is not None:
            base = self.from_real_tensor(mode, t._base)
            out._base = base
            out._vc = base._version_counter
        if t.requires_grad:
            out.requires_grad_(True)
        self.tensor_memo[key] = out
        self._real_refs[key] = weakref.ref(t)
        return out


def _schema_info(func):
    info = _SCHEMA_CACHE.get(func)
    if info is None:
        schema = func._schema
        args = schema.arguments.flat_all
        mutates = any(a.is_write for a in args)
        aliases = any(r.annotation is not None for r in schema.returns)
        device_pos = None
        names = [a.name for a in schema.arguments.flat_positional]
        if "device" in names:
            device_pos = names.index("device")
        has_device = any(a.name == "device" for a in args)
        info = _SCHEMA_CACHE[func] = (mutates, aliases, has_device, device_pos)
    return info


_SCHEMA_CACHE = {}
_SYM_TYPES = (SymInt, SymFloat, SymBool)


class FakeTensorMode(TorchDispatchMode):
    """Run ops on FakeTensors: outputs computed by the Meta kernels, cached by argument metadata."""

    def __init__(self, *, allow_non_fake_inputs=False, shape_env=None, static_shapes=None):
        self.allow_non_fake_inputs = allow_non_fake_inputs
        self.fake_tensor_converter = FakeTensorConverter()
        self.cache = {}
        self.cache_hits = 0
        self.cache_misses = 0
        self.cache_bypasses = {}
        self.enter_depth = 0
        self.shape_env = shape_env
        # torch's default: with a ShapeEnv, converted tensors get symbolic sizes
        self.static_shapes = shape_env is None if static_shapes is None else static_shapes

    def __enter__(self):
        self.enter_depth += 1
        return super().__enter__()

    def __exit__(self, *exc):
        self.enter_depth -= 1
        return super().__exit__(*exc)

    def from_tensor(self, tensor, *, static_shapes=None, source=None, symbolic_context=None):
        if static_shapes is None:
            static_shapes = self.static_shapes
        return self.fake_tensor_converter.from_real_tensor(self, tensor, static_shapes=static_shapes, source=source,
                                                           symbolic_context=symbolic_context)

    def cache_info(self):
        return {"hits": self.cache_hits, "misses": self.cache_misses, "bypasses": dict(self.cache_bypasses),
                "size": len(self.cache)}

    def cache_clear(self):
        self.cache.clear()
        self.cache_hits = self.cache_misses = 0
        self.cache_bypasses = {}

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = dict(kwargs or {})
        name = func._packet.__name__ if hasattr(func, "_packet") else str(func)
        if name in _DYNAMIC_OUTPUT_SHAPE or (name == "repeat_interleave" and kwargs.get("output_size") is None
                                            and func._overloadname == "Tensor"):
            raise DynamicOutputShapeException(func)
        if name in _DATA_DEPENDENT:
            raise DataDependentOutputException(func)
        if name == "index" and _has_mask_index(args, kwargs):
            raise DynamicOutputShapeException(func)      # x[bool_mask]: the count of True decides the shape
        if name in ("lift_fresh", "lift_fresh_copy") and args and type(args[0]) is not FakeTensor \
                and isinstance(args[0], Tensor):
            return self.from_tensor(args[0])       # a constant made fresh from a Python value (x[0] = 5)
        args, kwargs, any_fake = self._validate_and_convert(func, args, kwargs)
        mutates, aliases, has_device, device_pos = _schema_info(func)
        out_device = CPU
        if has_device:
            dev = kwargs.get("device")
            if device_pos is not None and len(args) > device_pos:
                dev = args[device_pos]
                args = list(args)
                args[device_pos] = META
                args = tuple(args)
            else:
                kwargs["device"] = META
            if dev is not None and _device(dev).type == "meta":
                out_device = META
        else:
            for a in _flat(args, kwargs):
                if isinstance(a, FakeTensor):
                    out_device = a.fake_device
                    break
        key = None
        if not mutates and not aliases and not _needs_autograd(args, kwargs):
            key = _cache_key(func, args, kwargs)
            if key is not None:
                hit = self.cache.get(key)
                if hit is not None:
                    self.cache_hits += 1
                    return self._replay(hit, out_device)
                self.cache_misses += 1
            else:
                self.cache_bypasses[name] = self.cache_bypasses.get(name, 0) + 1
        if not (func.has_kernel_for_dispatch_key(DispatchKey.Meta)
                or func.has_kernel_for_dispatch_key(DispatchKey.Autograd)):
            raise UnsupportedOperatorException(func, "no Meta kernel is registered for it")
        try:
            with _exclude_python_key():
                out = func(*args, **kwargs)
        except NotImplementedError as e:
            if "Meta" in str(e) and "Could not run" in str(e):
                raise UnsupportedOperatorException(func, "no Meta kernel is registered for it") from e
            raise
        except (AttributeError, TypeError) as e:
            if "NoneType" in str(e):
                raise UnsupportedOperatorException(func, "its kernel reads tensor data, which a fake tensor does "
                                                         "not have") from e
            raise
        out = _wrap_outputs(out, self, out_device)
        if key is not None:
            self.cache[key] = _describe(out)
        return out

    def _validate_and_convert(self, func, args, kwargs):
        any_fake = False
        bad = None

        def conv(a):
            nonlocal any_fake, bad
            if isinstance(a, FakeTensor):
                any_fake = True
                if a.fake_mode is not self:
                    raise UnsupportedFakeTensorException("Mixing fake modes NYI")
                return a
            if isinstance(a, Tensor):
                if a._np is None and a._ks & META_BIT and not isinstance(a, FakeTensor):
                    return a                  # a plain meta tensor takes part as is
                if self.allow_non_fake_inputs:
                    return self.from_tensor(a)
                bad = a
            return a

        new_args = tuple([conv(x) for x in a] if isinstance(a, list) else
                         tuple(conv(x) for x in a) if isinstance(a, tuple) else conv(a) for a in args)
        new_kwargs = {k: ([conv(x) for x in v] if isinstance(v, list) else conv(v)) for k, v in kwargs.items()}
        if bad is not None:
            raise AssertionError("Please convert all Tensors to FakeTensors first or instantiate FakeTensorMode with "
                                 f"'allow_non_fake_inputs'. Found in {_render_call(func, args, kwargs)}")
        return new_args, new_kwargs, any_fake

    def _replay(self, desc, out_device):
        from ember import empty_strided

        def build(d):
            if isinstance(d, tuple) and d and d[0] == "__tensor__":
                _, shape, stride, dtype = d
                with _exclude_python_key():
                    t = empty_strided(shape, stride, dtype=dtype, device="meta")
                return _make_fake(t, self, out_device)
            if isinstance(d, list):
                return [build(x) for x in d]
            if isinstance(d, tuple) and d and d[0] == "__tuple__":
                return d[1](*(build(x) for x in d[2])) if d[1] is not tuple else tuple(build(x) for x in d[2])
            return d
        return build(desc)


def _needs_autograd(args, kwargs):
    if not _tls.grad_enabled:
        return False
    return any(isinstance(a, Tensor) and a.requires_grad for a in _flat(args, kwargs))


def _cache_key(func, args, kwargs):
    parts = [func]
    try:
        for a in list(args) + sorted(kwargs.items(), key=lambda kv: kv[0]):
            parts.append(_key_of(a))
    except TypeError:
        return None
    try:
        key = tuple(parts)
        hash(key)
        return key
    except TypeError:
        pass
    try:                              # symbolic sizes (unhashable SymInts) stand as their expressions
        key = _sym_key(tuple(parts))
        hash(key)
        return key
    except TypeError:
        return None


def _sym_key(x):
    """x with each SymInt/SymFloat/SymBool replaced by ("sym", its expression): a cache key within one ShapeEnv
    (a hit skips the meta kernel, whose guards the first run recorded already)."""
    if x.__class__ in _SYM_TYPES:
        return ("sym", x.node.expr)
    if x.__class__ is tuple or x.__class__ is list:
        return tuple(_sym_key(v) for v in x)
    return x


def _key_of(a):
    if isinstance(a, Tensor):
        return ("T", a.dtype, tuple(a._size), a.stride(), a.storage_offset(), a.device.type)
    if isinstance(a, (list, tuple)):
        return (type(a).__name__,) + tuple(_key_of(x) for x in a)
    if a is None or isinstance(a, (int, float, bool, str, complex)):
        return (type(a).__name__, a)
    if a.__class__ in _SYM_TYPES:
        return ("sym", a.node.expr)
    from ember._core.dtype import dtype
    if isinstance(a, dtype) or a is META or a is CPU:
        return a
    if isinstance(a, _device):
        return str(a)
    if type(a) is tuple and len(a) == 2:          # (key, value) from kwargs
        return (a[0], _key_of(a[1]))
    raise TypeError("uncacheable argument")


def _describe(out):
    if isinstance(out, Tensor):
        return ("__tensor__", tuple(out._size), out.stride(), out.dtype)
    if isinstance(out, list):
        return [_describe(x) for x in out]
    if isinstance(out, tuple):
        return ("__tuple__", type(out) if hasattr(out, "_fields") else tuple, tuple(_describe(x) for x in out))
    return out


def _wrap_outputs(out, mode, device):
    if isinstance(out, Tensor):
        if isinstance(out, FakeTensor):
            return out
        return _make_fake(out, mode, device)
    if isinstance(out, list):
        return [_wrap_outputs(x, mode, device) for x in out]
    if isinstance(out, tuple):
        vals = [_wrap_outputs(x, mode, device) for x in out]
        return type(out)(*vals) if hasattr(out, "_fields") else tuple(vals)
    return out


def _render_call(func, args, kwargs):
    def r(a):
        if isinstance(a, FakeTensor):
            return repr(a)
        if isinstance(a, Tensor):
            return f"tensor([...], size={tuple(a.shape)})"
        if isinstance(a, (list, tuple)):
            return "[" + ", ".join(r(x) for x in a) + "]"
        return repr(a)
    parts = [r(a) for a in args] + [f"{k}={r(v)}" for k, v in kwargs.items()]
    return f"{func}({', '.join(parts)})"


def unset_fake_temporarily():
    """Pop a FakeTensorMode off the mode stack for the length of a with-block (torch's helper)."""
    from ember._dispatch.modes import _pop_mode_temporarily

    @contextlib.contextmanager
    def cm():
        if _tls.mode_stack and isinstance(_tls.mode_stack[-1], FakeTensorMode):
            with _pop_mode_temporarily():
                yield
        else:
            yield
    return cm()


def _has_mask_index(args, kwargs):
    """Whether aten.index's index list holds a bool/uint8 tensor (a mask: a data-dependent output shape)."""
    from ember._core import dtype as _dt
    indices = args[1] if len(args) > 1 else kwargs.get("indices", ())
    return any(getattr(i, "dtype", None) in (_dt.bool_, _dt.uint8) for i in indices or ())
