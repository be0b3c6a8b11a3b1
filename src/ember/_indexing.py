"""Tensor indexing: the `TensorIndexing` mixin with __getitem__ / __setitem__ that `ember.Tensor` inherits
(torch/csrc/autograd/python_variable_indexing.cpp and ATen's TensorIndexing.h).

Basic indices become view ops in order: an int selects (dim removed), a slice slices, None and a Python
bool unsqueeze, Ellipsis skips dims. Tensor and list indices are collected per dim and applied at the
end with one `index` (get) or `index_put_` (set) call on the view built so far, so x[0, :, idx] is
select + index, and a result from basic indexing alone is a view sharing storage.
"""
import numbers
import sys

import numpy as np

from ._core.symint import SymInt
from ._core.scalar_value import check_number as _check_scalar
from ._core import dtype as D
from ._ops import ops
from ._core.dispatch_keys import AUTOGRAD_BIT
from ._core.tls import GRAD_OFF as _GRAD_OFF, KEYS_ACTIVE as _KEYS_ACTIVE, state as _tls
from ._core.torch_function import NOT_HANDLED as _NOT_HANDLED, binding_call as _tf_binding, register as _tf_register, \
    PLAIN_TYPES as _tf_PLAIN, plain_args as _tf_plain
from ._core.tensor_impl import _CPU_KS, INFERENCE_VC, TensorImpl as Tensor
_cpu_view_of = Tensor._cpu_view_of
from .functional import tensor as _tensor

_TF = False      # the __torch_function__ check: kept current by _tf_register (see _core/torch_function.py)
_TFM = False     # a mode is pushed (likewise); with plain arguments (PLAIN_TYPES) nothing else can override
_TFP = _tf_PLAIN
_tf_register(globals())

_aten = ops.aten
_select = _aten.select.int
_slice = _aten.slice.Tensor
_select_cache = _select._dispatch_cache
_slice_cache = _slice._dispatch_cache
_INVALID = ("only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid indices "
            "(got {})")


def _as_index_tensor(seq, device):
    try:
        t = _tensor(seq, device=device)
    except (TypeError, ValueError):
        raise IndexError(_INVALID.format(type(seq).__name__)) from None
    if t.numel() == 0:
        return t.long()
    if t.dtype.is_floating_point or t.dtype.is_complex:
        raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    return t


def _normalize(index, device):
    """The index as a tuple of int / slice / None / Ellipsis / bool / Tensor entries."""
    if not isinstance(index, tuple):
        if isinstance(index, list) and _treat_as_tuple(index):
            index = tuple(index)
        else:
            index = (index,)
    out = []
    for x in index:
        if isinstance(x, (list, range)) or (hasattr(x, "__array__") and not isinstance(x, Tensor)):
            x = _as_index_tensor(list(x) if isinstance(x, range) else x, device)
        elif not isinstance(x, (bool, slice, Tensor)) and x is not None and x is not Ellipsis:
            if isinstance(x, numbers.Integral) or hasattr(x, "__index__"):
                try:
                    x = x.__index__()
                except TypeError:
                    raise IndexError(_INVALID.format(type(x).__name__)) from None
            else:
                raise IndexError(_INVALID.format(type(x).__name__))
        out.append(x)
    return out


def _treat_as_tuple(seq):
    """torch's legacy numpy rule: a short list holding slices, None, Ellipsis, tensors or sequences is a tuple."""
    if len(seq) >= 32:
        return False
    return any(isinstance(x, (Tensor, slice, list, tuple)) or x is None or x is Ellipsis for x in seq)


def _consumed(x):
    if isinstance(x, bool) or x is None or x is Ellipsis:
        return 0
    if isinstance(x, Tensor):
        if x.dtype in (D.bool_, D.uint8):
            return x.dim()
        return 1
    return 1


def _bool_index(value, device):
    from .kernels.common import empty_tensor
    t = empty_tensor((1 if value else 0,), D.int64, device)
    if t._np is not None:
        t._np[...] = 0
    return t


def _is_full(start, stop, n):
    """A step-1 slice start:stop that keeps all n entries: torch's applySlice returns the tensor itself for it
    (when the index is a tuple; a lone slice, x[:], is always a slice op). Known only for int bounds."""
    return ((start is None or start.__class__ is int and start == 0)
            and (stop is None or stop.__class__ is int and n.__class__ is int and stop >= n))


def apply_slicing(self, index, skip_full=False):
    """(view after basic indexing, list of Optional index tensors for the advanced part or None).
    skip_full: `:` entries leave their dim as it is instead of slicing it (getitem with a tuple index)."""
    items = _normalize(index, self.device)
    if self.dim() == 0 and any(isinstance(x, int) and not isinstance(x, bool) for x in items):
        raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                         "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
    specified = sum(_consumed(x) for x in items)
    if specified > self.dim():
        raise IndexError(f"too many indices for tensor of dimension {self.dim()}")
    if sum(1 for x in items if x is Ellipsis) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    result, dim = self, 0
    adv, covered = [], 0          # advanced index list and how many result dims it spans

    def record(t):
        nonlocal dim, covered
        while covered < dim:
            adv.append(None)
            covered += 1
        adv.append(t)
        k = t.dim() if t.dtype in (D.bool_, D.uint8) else 1
        covered += k
        dim += k

    for pos, x in enumerate(items):     # torch's messages name the index's position (its real_dim), not dim
        if isinstance(x, bool):
            result = _aten.unsqueeze.default(result, dim)
            record(_bool_index(x, self.device))
        elif isinstance(x, int):
            if result.dim() == 0:
                raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                                 "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
            n = result._size[dim]
            if not -n <= x < n:
                raise IndexError(f"index {x} is out of bounds for dimension {pos} with size {n}")
            result = _aten.select.int(result, dim, x)
        elif isinstance(x, slice):
            step = 1 if x.step is None else _int(x.step)
            if step <= 0:
                raise ValueError("step must be greater than zero")
            if not (skip_full and step == 1 and _is_full(x.start, x.stop, result._size[dim])):
                result = _aten.slice.Tensor(result, dim, _opt_int(x.start), _opt_int(x.stop), step)
            dim += 1
        elif x is None:
            result = _aten.unsqueeze.default(result, dim)
            dim += 1
        elif x is Ellipsis:
            dim += self.dim() - specified
        elif isinstance(x, Tensor):
            if x.dim() == 0 and not x.dtype.is_floating_point and not x.dtype.is_complex:
                if x.dtype in (D.bool_, D.uint8):
                    result = _aten.unsqueeze.default(result, dim)
                    record(_bool_index(bool(x.item()) if x._np is not None else True, self.device))
                else:
                    n = result._size[dim]
                    v = x.item()
                    if not -n <= v < n:
                        raise IndexError(f"index {v} is out of bounds for dimension {pos} with size {n}")
                    result = _aten.select.int(result, dim, v)
                continue
            if x.dtype.is_floating_point or x.dtype.is_complex:
                raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
            record(x)
    return result, (adv if adv else None)


def _int(v):
    if isinstance(v, Tensor):
        return int(v.item())
    if v.__class__ is SymInt:
        return v                   # a symbolic bound (x[:n] with n a size) stays symbolic
    try:
        return v.__index__()
    except (AttributeError, TypeError):
        raise TypeError("slice indices must be integers or None or have an __index__ method") from None


def _opt_int(v):
    return None if v is None else _int(v)


def _basic(self, index):
    """x[i], x[i, j], x[a:b], x[i, a:b:s]: ints and slices of ints only, each within range and no more
    than the tensor's dims (the common case, without apply_slicing's general pass); None otherwise."""
    size = self._size
    if index.__class__ is int:
        if size and -size[0] <= index < size[0]:
            if not _KEYS_ACTIVE[0]:
                # select.int's dispatch inlined (OpOverload.__call__ for one tensor argument; see _ops.py)
                ks = self._ks
                if ks & AUTOGRAD_BIT and _GRAD_OFF:
                    ks &= ~_tls._exclude
                k = _select_cache.get(ks)
                if k is not None:
                    return k(self, 0, index)
            return _select(self, 0, index)
        return None
    if index.__class__ is not tuple or len(index) > len(size):
        return None
    for x in index:
        c = x.__class__
        if c is slice:
            if not (x.start is None or x.start.__class__ is int) or not (x.stop is None or x.stop.__class__ is int) \
                    or not (x.step is None or x.step.__class__ is int and x.step > 0):
                return None
        elif c is not int:
            return None
    result, dim = self, 0
    for x in index:
        if x.__class__ is int:
            n = result._size[dim]
            if not -n <= x < n:
                return None
            result = _select(result, dim, x)
        else:
            step = 1 if x.step is None else x.step
            if step == 1 and _is_full(x.start, x.stop, result._size[dim]):
                dim += 1            # `:` in a tuple index keeps the dim as it is (torch's applySlice)
                continue
            k = None
            if not _KEYS_ACTIVE[0]:
                ks = result._ks
                if ks & AUTOGRAD_BIT and _GRAD_OFF:
                    ks &= ~_tls._exclude
                k = _slice_cache.get(ks)
            result = (_slice if k is None else k)(result, dim, x.start, x.stop, step)
            dim += 1
    return result


# The select.int kernels the direct path below (_int_tuple) recognises in the op's dispatch cache: the
# ADInplaceOrView twin of the meta select kernel (a plain cpu tensor, or one needing grad in no_grad mode) and the
# generated Autograd kernel, with what recording needs from autograd (SelectBackward0, the graph helpers, the
# forward-AD and anomaly flags). Learnt from the cache on first sight: both modules load lazily, and importing
# ember must not load autograd (tests/autograd/test_engine.py).
_SEL_VIEW = _SEL_AG = _SelectBackward0 = _FW = _ANOMALY = None


def _learn_select(k):
    global _SEL_VIEW, _SEL_AG, _SelectBackward0, _FW, _ANOMALY, _gedge, _new_node, _next_seq, _META_CACHE, _cpu_meta
    mod = sys.modules.get("ember.kernels.meta.view")
    if mod is not None and k is mod.select._as_view:
        _SEL_VIEW = k
        return
    mod = sys.modules.get("ember._generated.autograd.view")
    if mod is not None and k is mod.select_int:
        from .autograd import graph
        from .autograd.anomaly_mode import ENABLED_ANYWHERE as _ANOMALY
        from .autograd.forward_ad import _FW
        _gedge, _new_node, _next_seq = graph.gradient_entry, graph.new_node, graph.next_sequence_nr
        _META_CACHE, _cpu_meta = graph.META_CACHE, graph.cpu_meta
        _SelectBackward0 = mod.SelectBackward0
        _SEL_AG = k


def _int_tuple(self, index):
    """x[i, j, ...], x[:, i], x[i, :, j] with plain ints and bare `:` only (at least one int), each int within
    range and no more entries than x has dims: torch's applySlicing, one select per int at the dim it has reached
    (x[i, j] is select(select(x, 0, i), 0, j), two SelectBackward0 nodes when recorded; a `:` in a tuple index
    keeps its dim and records nothing); None otherwise (the general path then raises torch's errors).

    A cpu tensor whose select.int kernel is the view kernel or the Autograd one (no modes, no forward AD, no
    anomaly mode, no math bits) takes the direct path: the result's size, stride and offset computed once and one
    view made of `x` by the constructor the view kernel uses (`_cpu_view_of`: `_base`, shared version counter,
    no_grad-view flags as the chain would set them), then, when recorded, the chain's nodes built in order with
    what the generated kernel gives each (sequence number, next edge, dim / index / input sizes, input_meta):
    the intermediate views are never made. The crf tagger's `feats[t, k]` (66 per step, benchmarks/small_models.py)
    is the user: 4.65 -> 2.89 us with grad (torch 2.33), 2.03 -> 1.32 without (torch 1.70), load ~8.
    Other inputs (a flagged view, a tensor subclass key, meta) go through the op's cache one select at a time."""
    size = self._size
    nd = len(size)
    if len(index) > nd or _KEYS_ACTIVE[0]:
        return None
    d = 0
    ints = False
    for i in index:
        if i.__class__ is int:
            m = size[d]
            if not -m <= i < m:
                return None
            ints = True
        elif i.__class__ is not slice or i.start is not None or i.stop is not None or i.step is not None:
            return None
        d += 1
    if not ints:
        return None
    ks = self._ks
    if ks & AUTOGRAD_BIT and _GRAD_OFF:
        ks &= ~_tls._exclude
    k = _select_cache.get(ks)
    if k is not None and (a := self._np) is not None:
        if k is not _SEL_VIEW and k is not _SEL_AG:
            _learn_select(k)
        if k is _SEL_VIEW or k is _SEL_AG and self._requires_grad and not _FW[0] and not _ANOMALY[0]:
            st = self._stride or self.stride()
            off = self._offset
            rsize, rst = [], []
            d = 0
            for i in index:
                if i.__class__ is int:
                    off += (i + size[d] if i < 0 else i) * st[d]
                else:
                    rsize.append(size[d])
                    rst.append(st[d])
                d += 1
            if rsize:
                rsize += size[d:]
                rst += st[d:]
            elif d < nd:
                rsize, rst = size[d:], st[d:]
            res = _cpu_view_of(self, off, rsize, rst, a[index] if d < nd else a[index + (Ellipsis,)])
            if k is _SEL_VIEW:
                return res
            if res._ks == _CPU_KS:
                return _record_selects(self, index, res)
            # (the view was flagged: a multi-output node's input; the chain below records it as torch does)
    result, d = self, 0
    for i in index:
        if i.__class__ is int:
            ks = result._ks
            if ks & AUTOGRAD_BIT and _GRAD_OFF:
                ks &= ~_tls._exclude
            k = _select_cache.get(ks)
            result = _select(result, d, i) if k is None else k(result, d, i)
        else:
            d += 1
    return result


def _record_selects(self, index, res):
    """The SelectBackward0 nodes of x[i, j, ...] (see _int_tuple), each as the generated select.int Autograd
    kernel builds it, on `res`, the unflagged plain cpu view that chain would end with (index: ints and `:`)."""
    if self._base is not None:
        edge = _gedge(self)
    elif (f := self.grad_fn) is not None:
        edge = f if (o := self._output_nr) == 0 else (f, o)
    else:
        edge = self
    size = self._size
    dtype = res.dtype
    metas = _META_CACHE.get(dtype)
    d = 0
    for i in index:
        if i.__class__ is not int:
            d += 1
            continue
        node = _new_node(_SelectBackward0)
        node._sequence_nr = _next_seq()
        node.next_edges = (edge,)
        node.s_dim = d
        node.s_index = i
        node.s_self_sym_sizes = size
        size = size[:d] + size[d + 1:] if d else size[1:]
        meta = None if metas is None else metas.get(size)
        node.input_meta = meta if meta is not None else _cpu_meta(size, dtype)
        edge = node
    res._gfv = res._vc.value
    res._output_nr = 0
    res.grad_fn = node
    res._requires_grad = True
    res._ks = _CPU_KS | AUTOGRAD_BIT
    return res


def getitem(self, index):
    if _TF and (_TFM or self.__class__ not in _TFP or index.__class__ not in _TFP
                and not (index.__class__ is tuple and _tf_plain(index, None))):
        # __torch_function__ (see _core/torch_function.py): self, and tensors in the index, can be overloaded
        r = _tf_binding(getitem, (self, index), (self, index), "ember.Tensor.__getitem__")
        if r is not _NOT_HANDLED:
            return r
    c = index.__class__
    if c is tuple and index:
        result = _int_tuple(self, index)
        if result is not None:
            return result
    if c is int:
        size = self._size          # x[i]: _basic's int case, without its frame
        if size and -size[0] <= index < size[0]:
            if not _KEYS_ACTIVE[0]:
                ks = self._ks
                if ks & AUTOGRAD_BIT and _GRAD_OFF:
                    ks &= ~_tls._exclude
                k = _select_cache.get(ks)
                if k is not None:
                    if k is _SEL_VIEW:          # (no grad to record: the view kernel, first)
                        return k(self, 0, index)
                    if k is not _SEL_AG:
                        _learn_select(k)
                    if (k is _SEL_AG and self._requires_grad and (a := self._np) is not None and not _FW[0]
                            and not _ANOMALY[0]):
                        # recorded x[i] on a cpu tensor: _int_tuple's direct path for one int, without the
                        # generated kernel's frame and checks
                        st = self._stride or self.stride()
                        res = _cpu_view_of(self, self._offset + (index + size[0] if index < 0 else index) * st[0],
                                           size[1:], st[1:], a[index] if len(size) > 1 else a[index, ...])
                        if res._ks == _CPU_KS:
                            return _record_selects(self, (index,), res)
                    return k(self, 0, index)
            return _select(self, 0, index)
    if c is slice and self._size:
        # x[a:b], x[a:b:s] with int (or absent) bounds: _basic's slice case without its loops
        start, stop, step = index.start, index.stop, index.step
        if ((start is None or start.__class__ is int) and (stop is None or stop.__class__ is int)
                and (step is None or step.__class__ is int and step > 0)):
            if not _KEYS_ACTIVE[0]:
                ks = self._ks
                if ks & AUTOGRAD_BIT and _GRAD_OFF:
                    ks &= ~_tls._exclude
                k = _slice_cache.get(ks)
                if k is not None:
                    return k(self, 0, start, stop, 1 if step is None else step)
            return _slice(self, 0, start, stop, 1 if step is None else step)
    if c is int or c is tuple:
        result = _basic(self, index)
        if result is not None:
            return result if result is not self else _aten.alias.default(self)
    result, adv = apply_slicing(self, index, c is tuple)
    if adv is not None:
        return _aten.index.Tensor(result, adv)
    if result is self:
        return _aten.alias.default(self)
    return result


def _check_number(self, value):
    """torch's conversion of an assigned Python number to the tensor's dtype (valueToTensor: an int unpacked to
    int64, a float to double, then c10's checked_convert, `_core/scalar_value.py`): RuntimeError where
    the value overflows the dtype. Returns the value to store (a negative int for uint8 wrapped)."""
    if isinstance(value, np.bool_):
        raise TypeError(f"can't assign a numpy.bool to a {self.type()}")
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool) and not -2 ** 63 <= value < 2 ** 63:
        raise ValueError("Overflow when unpacking long long")       # (valueToTensor's unpacking, not the parser's)
    return _check_scalar(self.dtype, value, reduced=False)     # torch stores inf for x[i] = 1e6 in float16


def _value_tensor(self, value):
    if isinstance(value, Tensor):
        # basic indexing casts through copy_; index_put_ requires equal dtypes (as in torch)
        return value
    if isinstance(value, np.ndarray) or isinstance(value, np.generic) and not isinstance(
            value, (np.integer, np.bool_, float, complex)):
        raise TypeError(f"can't assign a numpy.{type(value).__name__} to a {self.type()}")
    if isinstance(value, (numbers.Number,)) or hasattr(value, "dtype") and getattr(value, "shape", None) == ():
        value = _check_number(self, value)
        from .kernels.common import empty_tensor
        t = empty_tensor((), self.dtype, self.device)
        if t._np is not None:
            import warnings
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                np.copyto(t._np, value, casting="unsafe")
        return _aten.lift_fresh.default(t)      # torch's: tracing modes see a fresh constant
    raise TypeError(f"can't assign a {type(value).__name__} to a {self.type()}")


def _strip_leading_ones(v):
    s = v._size
    i = 0
    while i < len(s) and s[i] == 1:
        i += 1
    return v if i == 0 else _aten.view.default(v, s[i:])


# the largest float32/float64: a Python number within it is stored by numpy exactly as the general path's
# 0-dim tensor of the target dtype stores it (no overflow to infinity, so no warning to silence either)
_FLOAT_MAX = {np.dtype(np.float32): 3.4028234663852886e38, np.dtype(np.float64): 1.7976931348623157e308}


def _set_number(self, index, value):
    """x[i] = number, x[a:b] = number on a float32/float64 cpu tensor that nothing records (no grad, no mode,
    no math bit, not an inference tensor): the general path's select/slice + fill_ of a fresh 0-dim value,
    as one numpy store and the version bump fill_ does; False where that is not the case."""
    a = self._np
    top = _FLOAT_MAX.get(a.dtype) if a is not None else None
    size = self._size
    if top is None or not -top <= value <= top or not size or self._vc is INFERENCE_VC:
        return False
    c = index.__class__
    if c is int:
        if not -size[0] <= index < size[0]:
            return False
    elif c is not slice or not ((index.start is None or index.start.__class__ is int)
                                and (index.stop is None or index.stop.__class__ is int)
                                and (index.step is None or index.step.__class__ is int and index.step > 0)):
        return False
    if 0 in (self._stride or self.stride()):
        return False        # (may write one element twice: fill_'s overlap check decides)
    a[index] = value
    self._version_counter.value += 1
    return True


def setitem(self, index, value):
    if _TF and (_TFM or self.__class__ not in _TFP or value.__class__ not in _TFP or index.__class__ not in _TFP
                and not (index.__class__ is tuple and _tf_plain(index, None))):
        r = _tf_binding(setitem, (self, index, value), (self, index, value), "ember.Tensor.__setitem__")
        if r is not _NOT_HANDLED:
            return
    c = value.__class__
    if (c is float or c is int and -2 ** 63 <= value < 2 ** 63) and self._ks == _CPU_KS and not _KEYS_ACTIVE[0] and _set_number(self, index, value):
        return
    value = _value_tensor(self, value)
    result, adv = apply_slicing(self, index)
    value = _strip_leading_ones(value)
    if adv is not None:
        _aten.index_put_.default(result, adv, value, False)
    elif value._size == result._size or value._size:
        _aten.copy_.default(result, value)
    else:
        _aten.fill_.Tensor(result, value)       # a 0-dim value into a bigger slice (torch's copy_to)


getitem.__name__, setitem.__name__ = "__getitem__", "__setitem__"    # what __torch_function__ overrides see


class TensorIndexing:
    """x[index] and x[index] = value."""
    __slots__ = ()
    __getitem__ = getitem
    __setitem__ = setitem
