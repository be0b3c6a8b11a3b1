"""cpu kernels for activation functions (nn.functional calls these ops); each is one numpy
expression over the input, through the (functional, in-place, out) factory of kernels/cpu/elementwise_math.py."""
import ctypes

import numpy as np

from ..._core.tensor_impl import TensorImpl as Tensor, INFERENCE_VC as _INFERENCE_VC, _CPU_KS, _INFERENCE, _PUBLIC
from ..._core.tls import state as _tls
from ..common import check_out
from ..meta.activation import ACTIVATION_KINDS, check_rrelu_with_noise, gelu_backward_spec, glu_shape
from ..._random import _gen
from ..meta.elementwise_math import unary_kind_dtype
from .runtime.pool import split_run
from .runtime import clib, cparts, flat
from . import activation_gelu
from .elementwise_math import make_unary_p
from .elementwise_special import erf
from ..meta.elementwise_common import ARITH
from .elementwise import make_unary, split_flat

_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def _check_approximate(approximate):
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")


_C_NAMES = {np.dtype(np.float32): ("gelu_f32", "gelu_backward_f32"),
            np.dtype(np.float64): ("gelu_f64", "gelu_backward_f64")}
# elements: below this GELU runs on the calling thread. Measured in the GPT train step (benchmarks/train_step.py,
# 16x64x512 activations): splitting over the pool made each GELU slower (~2.0 vs ~1.5 ms) and the step 10-20 ms
# slower, although alone (input hot in this core's cache, workers idle) a split call is faster (0.9 vs 1.3 ms):
# in a real step the input was just written by this core and the other core is busy (BLAS, other processes).
# That was Python's pool (a worker must wake and take the GIL). From flat.MIN_ELEMS with 2+ threads GELU runs on
# the C pool (runtime/flat.py: the caller works too and never waits for a worker that has not started), where a
# busy other core costs a call about nothing (GELU is compute bound: a worker that joins halves it);
# _C_MIN_SPLIT stays the Python pool's bound, for when the C pool is unavailable.
_C_MIN_SPLIT = 1 << 22


def _gelu_part(dtype, backward):
    """The address of csrc/gelu.c's pool-chunk form (gelu_part_f32, gelu_backward_part_f64, ...), or 0."""
    names = _C_NAMES.get(dtype)
    return cparts.entry("gelu", names[backward].replace("_f", "_part_f")) if names is not None else 0


def _gelu_c(arrays, approximate, backward):
    """GELU (or grad * GELU') by csrc/gelu.c over same-shape float32/float64 arrays, split over the
    thread pool; None when C is off or the dtypes/shapes do not fit (the numpy path runs then)."""
    x = arrays[-1]
    names = _C_NAMES.get(x.dtype)
    if names is None or any(a.dtype != x.dtype or a.shape != x.shape for a in arrays):
        return None
    fn = clib.kernel("gelu", names[backward], "pppli" if backward else "ppli")
    if fn is None:
        return None
    ins = [np.ascontiguousarray(a).reshape(-1) for a in arrays]
    out = np.empty(x.size, x.dtype)
    approx = 0 if approximate == "none" else 1
    if x.size >= flat.MIN_ELEMS and flat.splits():
        part = _gelu_part(x.dtype, backward)
        if part and flat.run_address(part, ins + [out], x.size, approx):
            return out.reshape(x.shape)

    def run(*chunks):
        if chunks[0].size:
            fn(*(c.ctypes.data for c in chunks), chunks[0].size, approx)
    split_run(run, ins + [out], 0, _C_MIN_SPLIT)
    return out.reshape(x.shape)


def _gelu(a, approximate="none"):
    _check_approximate(approximate)
    if activation_gelu.single(a) and a.dtype != np.float32:
        a = a.astype(np.float32)        # the half types compute in float32
    r = _gelu_c((a,), approximate, False)
    if r is not None:
        return r
    if approximate == "none":
        if activation_gelu.single(a):
            return activation_gelu.gelu(a if a.dtype == np.float32 else a.astype(np.float32))
        return 0.5 * a * (1.0 + erf(a * np.sqrt(0.5)).astype(a.dtype))
    # float64 constants: float32 input computes in float64 here (more accurate than float32's 1 + tanh, which
    # cancels); so unlike torch and the C kernel, |x| > 1.8e19 does not overflow x^2 into a NaN gradient
    k = np.sqrt(2.0 / np.pi)
    return 0.5 * a * (1.0 + np.tanh(k * (a + 0.044715 * (a * a * a))))


def _gelu_backward_np(g, a, approximate):
    """grad * GELU'(x): csrc/gelu.c, else one numpy expression (float32 path of activation_gelu.py for
    single precision)."""
    if activation_gelu.single(a):
        g, a = g.astype(np.float32, copy=False), a.astype(np.float32, copy=False)
    r = _gelu_c((g, a), approximate, True)
    if r is not None:
        return r
    if approximate == "none":
        if activation_gelu.single(a):
            f32 = np.float32
            return activation_gelu.gelu_grad(g if g.dtype == f32 else g.astype(f32), a if a.dtype == f32 else a.astype(f32))
        cdf = 0.5 * (1.0 + erf(a * np.sqrt(0.5)))
        return g * (cdf + a * np.exp(-0.5 * a * a) / np.sqrt(2.0 * np.pi))
    k, c = np.sqrt(2.0 / np.pi), 0.044715
    t = np.tanh(k * (a + c * (a * a * a)))
    return g * (0.5 * (1.0 + t) + 0.5 * a * (1.0 - t * t) * k * (1.0 + 3.0 * c * (a * a)))


def gelu_backward(grad_output, self, approximate="none"):
    _check_approximate(approximate)
    shape, rdt = gelu_backward_spec(grad_output, self)
    g, a = grad_output._np, self._np
    if g.dtype != rdt._np:
        g = g.astype(rdt._np)
    if a.dtype != rdt._np:
        a = a.astype(rdt._np)
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        r = _gelu_backward_np(g, a, approximate)
    if r.shape == shape and r.dtype == rdt._np and r.flags.c_contiguous:
        return Tensor._wrap_np(r, rdt)
    return Tensor._wrap_np(np.array(np.broadcast_to(r, shape), dtype=rdt._np, order="C"), rdt)   # (0-d stays 0-d)


def _softplus_np(a):
    return np.logaddexp(0, a)


def _softplus(a, beta=1, threshold=20):
    return np.where(a * beta > threshold, a, np.log1p(np.exp(a * beta)) / beta)


def _elu(a, alpha=1, scale=1, input_scale=1):
    return np.where(a > 0, a * scale, (np.expm1(a * input_scale)) * (alpha * scale))


def _hardtanh(a, min_val=-1, max_val=1):
    """torch's hardtanh_out: no bool; an integer tensor clamps to the limits converted to integers (toLong),
    which uint8 refuses when negative."""
    if a.dtype.kind == "b":
        raise RuntimeError("Bool inputs not supported for hardtanh")
    if a.dtype == np.uint8 and (int(min_val) < 0 or int(max_val) < 0):
        raise RuntimeError("cannot do hardtanh on an unsigned type with negative limits")
    return np.clip(a, min_val, max_val)


def _threshold(a, threshold, value):
    if a.dtype.kind == "b":
        raise NotImplementedError("\"threshold_cpu\" not implemented for 'Bool'")
    return np.where(a <= threshold, np.asarray(value).astype(a.dtype), a)


_TABLE = {
    "gelu": _gelu,
    "silu": lambda a: a / (1 + np.exp(-a)),
    "mish": lambda a: a * np.tanh(_softplus_np(a)),
    "softplus": _softplus,
    "elu": _elu,
    "selu": lambda a: _elu(a, _SELU_ALPHA, _SELU_SCALE, 1),
    "celu": lambda a, alpha=1.0: _elu(a, alpha, 1, 1.0 / alpha),
    "leaky_relu": lambda a, negative_slope=0.01: np.where(a > 0, a, a * negative_slope),
    "hardtanh": _hardtanh,
    "hardsigmoid": lambda a: np.clip(a + 3, 0, 6) / 6,
    "hardswish": lambda a: a * np.clip(a + 3, 0, 6) / 6,
    "log_sigmoid": lambda a: -_softplus_np(-a),
    "threshold": _threshold,
    "hardshrink": lambda a, lambd=0.5: np.where((a >= -lambd) & (a <= lambd), a.dtype.type(0), a),
}
for _n, _f in _TABLE.items():
    globals()[_n], globals()[_n + "_"], globals()[_n + "_out"] = make_unary_p(_f, _n, ACTIVATION_KINDS[_n])

_gelu_general = gelu
_APPROX = {"none": 0, "tanh": 1}


def gelu(self, approximate="none"):
    """The functional GELU: a contiguous float32/float64 cpu input below the pool split runs csrc/gelu.c
    directly (the general path's kernel on the same arrays, without its checks, closure and pool call: most
    of a small GELU's cost); everything else takes the general path (make_unary_p over _gelu)."""
    a = self._np
    approx = _APPROX.get(approximate) if approximate.__class__ is str else None
    if (a is not None and approx is not None and a.flags.c_contiguous
            and (a.size < flat.MIN_ELEMS or a.size < _C_MIN_SPLIT and not flat.splits())):
        names = _C_NAMES.get(a.dtype)
        fn = clib.kernel("gelu", names[0], "ppli") if names is not None else None
        if fn is not None:
            out = np.empty(a.shape, a.dtype)
            if a.size:
                fn(clib.address(a), clib.address(out), a.size, approx)
            return Tensor._wrap_fresh(out, self.dtype)
    return _gelu_general(self, approximate=approximate)


def _glu_np(self, dim):
    d, shape = glu_shape(self, dim)                  # torch checks the halved dim before the dtype
    unary_kind_dtype(self, "float_only", "glu")
    a, b = np.split(self._np, 2, axis=d)
    with np.errstate(over="ignore"):
        return a / (1 + np.exp(-b)), shape


def glu(self, dim=-1):
    r, _ = _glu_np(self, dim)
    return Tensor._wrap_np(np.ascontiguousarray(r), self.dtype)


def glu_out(self, dim=-1, out=None):
    r, shape = _glu_np(self, dim)
    check_out(out, shape, self.dtype, "glu")
    np.copyto(out._np, r, casting="unsafe")
    return out


def _relu(a, out):
    """torch's clamp_min(a, 0): a < 0 becomes 0, NaN and -0.0 stay as they are."""
    if a.dtype == np.bool_:
        raise RuntimeError("Boolean inputs not supported for relu")       # (torch's relu, before its clamp_min)
    if not relu_into(a, out):
        neg = a < 0
        np.copyto(out, a, casting="unsafe")
        out[neg] = 0


_wrap_fresh = Tensor._wrap_fresh
_relu_general, relu_, _relu_out = make_unary(_relu, ARITH, "relu")


def relu(self):
    """relu of a small contiguous float tensor (below the C kernel's size): one np.maximum(0, a) where that
    is torch's relu bit for bit on this machine (`_relu_zero`), else a copy and a masked store of zeros (half
    the time of the general path's empty + casting copy); everything else takes make_unary's path."""
    a = self._np
    if a is None:
        return _relu_general(self)
    dt = self.dtype
    z = _RELU_ZERO_OF.get(dt, _UNSET)      # keyed by ember dtype: no numpy dtype read (~150 instructions each)
    if z is _UNSET:
        z = _RELU_ZERO_OF[dt] = _relu_zero(a.dtype) if a.dtype.kind == "f" else None
    if z is not None and a.size < MIN_ELEMS and (self._stride is None or a.flags.c_contiguous):
        # (`_stride` None: a c-contiguous `_np`, TensorImpl's invariant, without numpy's flags object)
        if z is not False and a.ndim:
            t = _new(_PUBLIC[0])            # _wrap_fresh inlined
            t._np = r = np.maximum(z, a)
            t._size = r.shape
            t.dtype = dt
            t._ks = _CPU_KS
            if _INFERENCE[0] and _tls.inference_mode:
                t._vc = _INFERENCE_VC
            return t
        r = a.copy()
        r[a < 0] = 0
        return _wrap_fresh(r, self.dtype)
    return _relu_general(self)


_RELU_ZERO_OF = {}  # ember dtype -> its 0-dim zero when np.maximum(zero, a) is relu (see _relu_zero), False when
                    # it is not, None for a dtype not stored as a numpy float
_UNSET = object()
_new = object.__new__


def _relu_zero(dtype):
    """A 0-dim zero of `dtype` if np.maximum(zero, a) gives torch's relu(a) (clamp_min: a unless a < 0, so
    -0.0 and NaN, with its sign, stay as they are) for every short array, else False. numpy's vector loops
    return their second operand unless the first is greater, so the zero goes first; its scalar loops
    (float16, other CPUs) may return the first of two equal zeros. Probed once per dtype over the lengths
    and offsets that take a short array through numpy's vector body and tail, with -0.0 in every lane."""
    z = np.zeros((), dtype)
    with np.errstate(invalid="ignore"):
        probe = np.array([-0.0, np.nan, -np.nan, 0.0, -1.5, 2.5, -np.inf, np.inf] * 10, dtype)
        want = probe.copy()
        want[probe < 0] = 0
        for off in range(8):
            for n in range(1, 66):
                if np.maximum(z, probe[off:off + n]).tobytes() != want[off:off + n].tobytes():
                    return False
    return z


_SUFFIX = {np.dtype(np.float32): "f32", np.dtype(np.float64): "f64"}


MIN_ELEMS = 1 << 12   # below this, numpy's one or two calls beat a foreign call (each pointer costs ~1.4 us)


def _fn(name, dtype, sig):
    sfx = _SUFFIX.get(dtype)
    return None if sfx is None else clib.kernel("relu", f"{name}_{sfx}", sig)


def relu_into(x, y):
    """y = relu(x) for c-contiguous arrays of one shape and float dtype (y may be x); False if not done."""
    if x.size < MIN_ELEMS or x.dtype != y.dtype or x.shape != y.shape or not (
            x.flags.c_contiguous and y.flags.c_contiguous):
        return False
    if flat.run("relu", [x, y]):         # ember's C pool (runtime/flat.py); below: relu.c on Python's pool
        return True
    f = _fn("relu", x.dtype, "ppl")
    if f is None:
        return False
    if x.size:
        split_flat(lambda xs, ys: f(xs.ctypes.data, ys.ctypes.data, xs.size), [x.reshape(-1), y.reshape(-1)])
    return True


def relu_backward(g, r):
    """where(r <= 0, 0, g) for c-contiguous float arrays of one shape and dtype, or None."""
    if g.size < MIN_ELEMS or r.dtype != g.dtype or r.shape != g.shape or not (
            g.flags.c_contiguous and r.flags.c_contiguous):
        return None
    f = _fn("relu_backward", g.dtype, "pppl")
    if f is None:
        return None
    gi = np.empty(g.shape, g.dtype)
    if g.size:
        split_flat(lambda gs, rs, gis: f(gs.ctypes.data, rs.ctypes.data, gis.ctypes.data, gs.size),
                   [g.reshape(-1), r.reshape(-1), gi.reshape(-1)])
    return gi


def _hardshrink_checked(f):
    from ..meta.activation import check_hardshrink_out

    def g(self, lambd=0.5, *, out):
        check_hardshrink_out(self, out)
        return f(self, lambd, out=out)
    g.__name__ = "hardshrink_out"
    return g


hardshrink_out = _hardshrink_checked(hardshrink_out)


# ------------------------------------------------------------------ softshrink
def _softshrink_np(a, lambd=0.5):
    """x - sign(x) lambd outside [-lambd, lambd], 0 inside; nan stays nan (torch's kernel)."""
    x = a if a.itemsize >= 4 else a.astype(np.float32)       # half / bfloat16 compute in float32
    lam = x.dtype.type(lambd)
    return np.where(np.abs(x) <= lam, x.dtype.type(0), x - np.copysign(lam, x))


_softshrink, _, _softshrink_out = make_unary_p(_softshrink_np, "softshrink", "same")


def softshrink(self, lambd=0.5):
    from ..meta.activation import softshrink_check
    softshrink_check(self, lambd)
    return _softshrink(self, lambd)


def softshrink_out(self, lambd=0.5, *, out):
    from ..meta.activation import check_hardshrink_out, softshrink_check
    softshrink_check(self, lambd)
    check_hardshrink_out(self, out)
    return _softshrink_out(self, lambd, out=out)


def _hardshrink_backward_np(grad_out, self, lambd, rdt):
    """grad_out where self is outside [-lambd, lambd], else 0, in the result dtype. A nan self gives 0: torch's
    vectorised loop (what all but a tensor's tail goes through) does so, its scalar tail loop passes grad."""
    g, x = grad_out._np.astype(rdt._np, copy=False), self._np.astype(rdt._np, copy=False)
    return np.where((x < -lambd) | (x > lambd), g, rdt._np.type(0))


def hardshrink_backward(grad_out, self, lambd):
    from ..meta.activation import hardshrink_backward_spec
    shape, rdt = hardshrink_backward_spec(grad_out, self)
    r = _hardshrink_backward_np(grad_out, self, lambd, rdt)
    return Tensor._wrap_np(np.array(np.broadcast_to(r, shape), dtype=rdt._np, order="C"), rdt)


def hardshrink_backward_grad_input(grad_out, self, lambd, *, grad_input):
    from ..out_rules import write_outs
    return write_outs((hardshrink_backward(grad_out, self, lambd),), (grad_input,))[0]


def softshrink_backward(grad_output, self, lambd):
    """grad_output where |self| > lambd (or self is nan), else 0."""
    from ..meta.activation import softshrink_backward_spec
    shape, rdt = softshrink_backward_spec(grad_output, self)
    r = np.where(np.abs(self._np) <= lambd, 0, grad_output._np)
    return Tensor._wrap_np(np.array(np.broadcast_to(r, shape), dtype=rdt._np, order="C"), rdt)   # (0-d stays 0-d)


# ------------------------------------------------------------------ rrelu_with_noise
def _rrelu_train(a, lower, upper, generator):
    """(output, noise) arrays: every element <= 0 gets its own slope drawn from U(lower, upper) (in C order, one
    draw per such element, as torch's loop), the others slope 1. Computed at float32 for half types (opmath)."""
    a = np.ascontiguousarray(a)
    op = np.float64 if a.dtype == np.float64 else np.float32
    neg = a <= 0
    slopes = np.ones(a.shape, op)
    count = int(np.count_nonzero(neg))
    if count and float(lower) > float(upper):
        raise RuntimeError("Expected from <= to to be true, but got false.  (Could this error message be improved?  "
                           "If so, please report an enhancement request to PyTorch.)")
    draws = _gen(generator).random(count)
    slopes[neg] = (float(lower) + (float(upper) - float(lower)) * draws).astype(op)
    with np.errstate(all="ignore"):
        out = (a.astype(op) * slopes).astype(a.dtype)
    return out, slopes.astype(a.dtype)


def rrelu_with_noise(self, noise, lower=0.125, upper=1.0 / 3, training=False, generator=None):
    """RReLU: random negative slopes in training (written into `noise`), their mean in eval (leaky_relu)."""
    check_rrelu_with_noise(self, noise, training)
    if not training:
        return leaky_relu(self, (float(lower) + float(upper)) / 2)
    out, slopes = _rrelu_train(self._np, lower, upper, generator)
    noise._np[...] = slopes
    return Tensor._wrap_fresh(out, self.dtype)


def rrelu_with_noise_(self, noise, lower=0.125, upper=1.0 / 3, training=False, generator=None):
    check_rrelu_with_noise(self, noise, training)
    if not training:
        return leaky_relu_(self, (float(lower) + float(upper)) / 2)
    out, slopes = _rrelu_train(self._np, lower, upper, generator)
    noise._np[...] = slopes
    self._np[...] = out
    return self
