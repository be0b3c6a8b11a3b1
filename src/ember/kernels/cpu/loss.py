"""cpu loss kernels: elementwise numpy formulas (torch's Loss.cpp) followed by the reduction."""
import numpy as np

from ..common import _tname
from ..meta import loss as M
from .runtime.arrays import acc, reduce, wrap
from .runtime import clib
from .runtime.clib import c_rows, c_suffix
from .runtime.fp_errors import quiet

_quiet_di = quiet(divide="ignore", invalid="ignore")


# torch's CPU kernels of these losses dispatch on floating types only (AT_DISPATCH_FLOATING_TYPES...)
_FLOAT_ONLY = {"mse_loss": "mse_cpu", "smooth_l1_loss": "smooth_l1_cpu", "huber_loss": "huber_cpu"}


def _pair(self, target, reduction, name):
    shape, dt = M.pointwise_spec(self, target, reduction, name)
    if not (dt.is_floating_point or dt.is_complex):
        if name in _FLOAT_ONLY:
            raise NotImplementedError(f'"{_FLOAT_ONLY[name]}" not implemented for \'{_tname(dt)}\'')
        if name == "soft_margin_loss":      # composite in torch: its float result cannot be written back
            raise RuntimeError(f"result type Float can't be cast to the desired output type {_tname(dt)}")
    return acc(self), acc(target).astype(acc(self).dtype, copy=False), dt


def mse_loss(self, target, reduction=1):
    x, t, dt = _pair(self, target, reduction, "mse_loss")
    return wrap(reduce((x - t) ** 2, reduction), dt)


def l1_loss(self, target, reduction=1):
    x, t, dt = _pair(self, target, reduction, "l1_loss")
    return wrap(reduce(np.abs(x - t), reduction), dt)


def smooth_l1_loss(self, target, reduction=1, beta=1.0):
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    x, t, dt = _pair(self, target, reduction, "smooth_l1_loss")
    d = np.abs(x - t)
    loss = d if beta == 0 else np.where(d < beta, 0.5 * d * d / beta, d - 0.5 * beta)
    return wrap(reduce(loss, reduction), dt)


def huber_loss(self, target, reduction=1, delta=1.0):
    if delta <= 0:
        raise RuntimeError(f"huber_loss does not support non-positive values for delta.")
    x, t, dt = _pair(self, target, reduction, "huber_loss")
    d = np.abs(x - t)
    return wrap(reduce(np.where(d < delta, 0.5 * d * d, delta * (d - 0.5 * delta)), reduction), dt)


def soft_margin_loss(self, target, reduction=1):
    x, t, dt = _pair(self, target, reduction, "soft_margin_loss")
    return wrap(reduce(np.logaddexp(0, -t * x), reduction), dt)


def binary_cross_entropy(self, target, weight=None, reduction=1):
    if target.dtype is not self.dtype:      # torch's TensorIterator: loss, input and target of one dtype
        raise RuntimeError(f"Found dtype {_tname(target.dtype)} but expected {_tname(self.dtype)}")
    x, t, dt = _pair(self, target, reduction, "binary_cross_entropy")
    _check_bce_range(x, t)
    return wrap(reduce(_bce_elements(self, target, weight), reduction), dt)


def _bce_elements(self, target, weight):
    """torch's binary_cross_entropy_out_cpu, element by element: (t - 1) * max(log1p(-x), -100) - t *
    max(log(x), -100) in the tensor's own dtype, each operation rounded to it (a float16 loss rounds after every
    step, as c10::Half's operators do), the logs by libm's scalar logf/log1pf (log/log1p for float64: torch's
    scalar loop calls std::log, numpy's vectorised log differed in the last bit of ~9% of float32 losses),
    computed in float32 for half precision and rounded; then `loss * weight`. Half-precision losses are returned
    in float32 (exactly their values) for the reduction, which torch accumulates in float."""
    from .elementwise_polynomial import _libm
    x, t = self._np, target._np
    sd = x.dtype
    cd = sd if sd == np.float32 or sd == np.float64 else np.dtype(np.float32)
    if cd == sd and x.shape == t.shape:
        fn = clib.kernel("libm", "bce_f32" if sd == np.float32 else "bce_f64", "pppl")
        if fn is not None:      # the whole formula in one C loop (csrc/libm.c)
            x, t = np.ascontiguousarray(x), np.ascontiguousarray(t)
            loss = np.empty(x.shape, sd)
            if loss.size:
                fn(clib.address(x), clib.address(t), clib.address(loss), loss.size)
            if weight is not None:
                loss = loss * weight._np.astype(sd, copy=False)
            return loss
    lg = _libm(np.log, x.astype(cd)).astype(sd, copy=False)
    l1 = _libm(np.log1p, (-x).astype(cd)).astype(sd, copy=False)
    with np.errstate(invalid="ignore"):
        loss = (t - sd.type(1)) * np.maximum(l1, sd.type(-100)) - t * np.maximum(lg, sd.type(-100))
        if weight is not None:
            loss = loss * weight._np.astype(sd, copy=False)
    return loss if cd == sd else loss.astype(np.float32)


def _check_bce_range(x, t):
    """torch's per-element checks, input then target for each element in order (NaN fails both): the first bad
    element names its tensor."""
    with np.errstate(invalid="ignore"):
        bad_x = ~((x >= 0) & (x <= 1))
        bad_t = ~((t >= 0) & (t <= 1))
    bad = bad_x | bad_t
    if bad.any():
        i = np.flatnonzero(np.broadcast_to(bad, np.broadcast_shapes(x.shape, t.shape)))[0]
        if np.broadcast_to(bad_x, bad.shape).reshape(-1)[i]:
            raise RuntimeError("all elements of input should be between 0 and 1")
        raise RuntimeError("all elements of target should be between 0 and 1")


def binary_cross_entropy_with_logits(self, target, weight=None, pos_weight=None, reduction=1):
    x, t, dt = _pair(self, target, reduction, "binary_cross_entropy_with_logits")
    softplus_neg = np.logaddexp(0, -x)                      # log(1 + exp(-x)), stable
    if pos_weight is not None:
        lw = (acc(pos_weight) - 1) * t + 1
        loss = (1 - t) * x + lw * softplus_neg
    else:
        loss = (1 - t) * x + softplus_neg
    if weight is not None:
        loss = loss * acc(weight)
    return wrap(reduce(loss, reduction), dt)


def _nll(x, t, weight, reduction, ignore_index, dt):
    """x: (M, C) log-probabilities, t: (M,) class indices."""
    c = x.shape[1]
    valid = t != ignore_index
    bad = valid & ((t < 0) | (t >= c))
    if bad.any():
        raise IndexError(f"Target {int(t[bad][-1])} is out of bounds.")
    tc = np.where(valid, t, 0)
    w = (acc(weight)[tc] if weight is not None else np.ones(t.shape, x.dtype)) * valid
    picked = x[np.arange(x.shape[0]), tc] if x.shape[0] else np.zeros(0, x.dtype)
    losses = -picked * w
    losses = np.where(valid, losses, 0)
    total = w.sum(dtype=x.dtype)
    if reduction == 0:
        return losses, np.zeros((), x.dtype)
    s = losses.sum(dtype=x.dtype)
    if reduction == 2:
        return s, total
    return _quiet_di(np.true_divide, s, total), total


def _nll_c_args(x, weight, name, sig):
    """The C nll kernel `name` for log-probabilities x and the weight cast to x's dtype, or (None, None)
    when C cannot take them (no compiler, a dtype other than float32/float64, an empty x)."""
    if x.size == 0:
        return None, None
    w = None if weight is None else np.ascontiguousarray(acc(weight).reshape(-1), x.dtype)
    suf = c_suffix(x, *([] if w is None else [w]))
    fn = clib.kernel("nll", f"{name}_{suf}", sig, "l" if name == "nll_fwd" else None) if suf else None
    return fn, w


def _nll_c(x3, t, weight, reduction, ignore_index):
    """_nll's results from the C kernel for x3 (outer, C, inner) and t (outer*inner,) class indices
    (one pass over the targets), or None to use numpy."""
    fn, w = _nll_c_args(x3, weight, "nll_fwd", "pplllplpp")
    if fn is None or t.size * x3.shape[1] != x3.size:
        return None
    losses = np.empty(t.size, x3.dtype) if reduction == 0 else None
    sums = np.zeros(2)
    bad = fn(x3.ctypes.data, t.ctypes.data, t.size, x3.shape[1], x3.shape[2], None if w is None else w.ctypes.data,
             ignore_index, None if losses is None else losses.ctypes.data, sums.ctypes.data)
    if bad >= 0:
        raise IndexError(f"Target {int(t[bad])} is out of bounds.")
    if reduction == 0:
        return losses, np.zeros((), x3.dtype)
    s, total = x3.dtype.type(sums[0]), x3.dtype.type(sums[1])
    if reduction == 2:
        return s, total
    return _quiet_di(np.true_divide, s, total), total


def nll_loss_forward(self, target, weight, reduction, ignore_index):
    out, dt = M.nll_spec(self, target, weight, reduction, ignore_index, False)
    x = acc(self).reshape(-1, self._size[-1])
    t = np.ascontiguousarray(target._np.reshape(-1), np.int64)
    r = _nll_c(x.reshape(x.shape + (1,)), t, weight, reduction, ignore_index)
    loss, total = r if r is not None else _nll(x, t, weight, reduction, ignore_index, dt)
    return wrap(np.reshape(loss, out), dt), wrap(total, dt)


def nll_loss2d_forward(self, target, weight, reduction, ignore_index):
    out, dt = M.nll_spec(self, target, weight, reduction, ignore_index, True)
    x = acc(self)
    t = np.ascontiguousarray(target._np.reshape(-1), np.int64)
    r = _nll_c(x.reshape(x.shape[0], x.shape[1], -1), t, weight, reduction, ignore_index)
    if r is None:
        r = _nll(np.moveaxis(x, 1, -1).reshape(-1, x.shape[1]), t, weight, reduction, ignore_index, dt)
    loss, total = r
    return wrap(np.reshape(loss, out), dt), wrap(total, dt)


def _nll_backward(go, x2, t, weight, reduction, ignore_index, total_weight):
    valid = t != ignore_index
    tc = np.where(valid, t, 0)
    w = (acc(weight)[tc] if weight is not None else np.ones(t.shape, x2.dtype)) * valid
    g = np.asarray(go, x2.dtype)
    if reduction == 1:
        g = g / np.asarray(total_weight, x2.dtype)
    gi = np.zeros(x2.shape, x2.dtype)
    gi[np.arange(t.size), tc] = -w * (g.reshape(-1) if reduction == 0 else g)
    return gi


def _nll_backward_c(go, x3, t, weight, reduction, ignore_index, total_weight):
    """The (outer, C, inner) gradient written by the C kernel (slabs split over threads), or None to
    use numpy."""
    fn, w = _nll_c_args(x3, weight, "nll_bwd", "ppplllpl")
    if fn is None or t.size * x3.shape[1] != x3.size:
        return None
    g = np.asarray(go, x3.dtype)
    if reduction == 1:
        g = g / np.asarray(total_weight, x3.dtype)
    g = np.ascontiguousarray(g.reshape(-1)) if reduction == 0 else np.full(t.size, g, x3.dtype)
    outer, c, inner = x3.shape
    gi = np.empty(x3.shape, x3.dtype)
    c_rows(fn, [gi.reshape(outer, c * inner), t.reshape(outer, inner), g.reshape(outer, inner)], c, inner,
           None if w is None else w.ctypes.data, ignore_index, min_elems=1 << 21)   # a few 0.01 ms: no split
    return gi


def nll_loss_backward(grad_output, self, target, weight, reduction, ignore_index, total_weight):
    x2 = acc(self).reshape(-1, self._size[-1])
    t = np.ascontiguousarray(target._np.reshape(-1), np.int64)
    gi = _nll_backward_c(grad_output._np, x2.reshape(x2.shape + (1,)), t, weight, reduction, ignore_index,
                         total_weight._np)
    if gi is None:
        gi = _nll_backward(grad_output._np, x2, t, weight, reduction, ignore_index, total_weight._np)
    return wrap(gi.reshape(self._size), self.dtype, fresh=True)


def nll_loss2d_backward(grad_output, self, target, weight, reduction, ignore_index, total_weight):
    x = acc(self)
    t = np.ascontiguousarray(target._np.reshape(-1), np.int64)
    n, c, h, w = x.shape
    gi = _nll_backward_c(grad_output._np, x.reshape(n, c, h * w), t, weight, reduction, ignore_index,
                         total_weight._np)
    if gi is not None:
        return wrap(gi.reshape(x.shape), self.dtype, fresh=True)
    x2 = np.moveaxis(x, 1, -1).reshape(-1, c)
    gi = _nll_backward(grad_output._np, x2, t, weight, reduction, ignore_index, total_weight._np)
    return wrap(np.moveaxis(gi.reshape(n, h, w, c), -1, 1), self.dtype)


def mse_loss_backward(grad_output, self, target, reduction):
    x, t = acc(self), acc(target)
    g = 2 * (x - t) * grad_output._np
    if reduction == 1:
        g = g / max(int(np.prod(np.broadcast_shapes(x.shape, t.shape))), 1)
    return wrap(np.broadcast_to(g, self._size), self.dtype)
