"""cpu kernels of torch.special's orthogonal polynomials p_n(x) (torch's aten/src/ATen/native/Math.h
*_polynomial_*_forward), vectorised numpy in the result dtype (float32 or float64, as torch computes).

torch's per-element rules, kept here so float64 agrees to rounding:
- n is read in the result dtype and truncated to an integer (a non-finite or out-of-range n becomes the
  most negative int64, as the x86 conversion does); n < 0 gives 0;
- the points where the value is known exactly (|x| == 1, or x in {0, 1} for the shifted kinds, x == 0 for
  Laguerre) give it exactly;
- Chebyshev kinds with n above a small threshold and |x| < 1 (|2x - 1| < 1 shifted) use the trigonometric
  form (T_n = cos(n t), U_n = sin((n + 1) t) / sin t, V_n = cos((n + 1/2) t) / cos(t / 2),
  W_n = sin((n + 1/2) t) / sin(t / 2), t = acos x);
- otherwise the three-term recurrence from p_0 = 1 and p_1, stopped once a value is nan; Hermite's gives
  nan above n = 128 (float32) / 512 (float64).
The recurrence loops over the degree k, never over elements: each step updates the elements whose n has
not been reached yet (and whose value is not yet nan)."""
import numpy as np

from ..meta import elementwise_polynomial as M
from ..meta.elementwise_common import FLOAT_OUT
from .elementwise import make_binary
from .runtime import clib

_INT64_MIN = np.iinfo(np.int64).min


_LIBM_NAMES = {np.arccos: "acos", np.cos: "cos", np.sin: "sin", np.log: "log", np.log1p: "log1p"}
_SUFFIX = {np.dtype(np.float32): "f32", np.dtype(np.float64): "f64"}


def _libm(f, v):
    """f(v) (np.arccos, np.cos, np.sin, np.log or np.log1p) by libm's scalar function of v's dtype (csrc/libm.c: acosf, cosf, sinf
    as torch calls them): numpy's own float32/float64 versions take vectorised paths that differ by an ulp
    between AVX2 and AVX-512 machines, an error the trigonometric form multiplies by n. Without a C compiler,
    an 80-bit long double evaluation rounded to v's dtype (the same bits on every CPU; within an ulp of libm)."""
    v = np.ascontiguousarray(v)
    fn = clib.kernel("libm", f"{_LIBM_NAMES[f]}_{_SUFFIX[v.dtype]}", "ppl")
    if fn is None:
        return f(v.astype(np.longdouble)).astype(v.dtype)
    out = np.empty_like(v)
    if v.size:
        fn(v.ctypes.data, out.ctypes.data, v.size)
    return out


def _degree(n, dt):
    """n as torch's kernel sees it: in the compute dtype, then truncated to int64."""
    v = np.asarray(n, dtype=dt)
    ok = np.isfinite(v) & (np.abs(v) < 2.0 ** 63)
    return np.where(ok, np.trunc(np.where(ok, v, 0)), _INT64_MIN).astype(np.int64)


def _fma(a, b, c):
    """a * b + c rounded once, as torch's compiled kernels contract it (a fused multiply-add): float32 through
    float64 (exact products), float64 through numpy's longdouble (x87 extended precision where the platform
    has it: nearly exact)."""
    wide = np.float64 if b.dtype == np.float32 else np.longdouble
    return (np.asarray(a, wide) * b.astype(wide) + np.asarray(c, wide)).astype(b.dtype)


def _recurrence(q1, step, first, last):
    """p_k for k = first .. last (per element), from p_(first-2) = 1 and p_(first-1) = q1: p_k = step(k, sel,
    p_(k-2), p_(k-1)) on the selected elements `sel`; an element stops at its last k or once its value is nan."""
    p, q = np.ones_like(q1), q1.copy()
    sel = np.nonzero(last >= first)[0]
    k = first
    while sel.size:
        qs = q[sel]
        q[sel] = step(k, sel, p[sel], qs)
        p[sel] = qs
        k += 1
        sel = sel[(last[sel] >= k) & ~np.isnan(q[sel])]
    return q


class _Cases:
    """The result built case by case in torch's order: the first rule that applies to an element wins."""

    def __init__(self, x):
        self.r = np.zeros_like(x)
        self.todo = np.ones(x.shape, dtype=bool)

    def set(self, mask, value):
        m = mask & self.todo
        if m.any():
            self.r[m] = np.broadcast_to(value, m.shape)[m] if np.ndim(value) else value
            self.todo &= ~m
        return m


def _chebyshev(x, n, kind, shifted):
    """Chebyshev polynomials of the first to fourth kind (T, U, V, W), on [-1, 1] or shifted to [0, 1]."""
    T = x.dtype.type
    c = _Cases(x)
    nf = n.astype(x.dtype)
    even = n % 2 == 0
    two_n1 = (2 * n + 1).astype(x.dtype)
    c.set(n < 0, T(0))
    if shifted:
        y = x + x - T(1)
        top, bottom = x == T(1), x == T(0)
    else:
        y = x
        top, bottom = (np.abs(x) == T(1)) & (x > T(0)), (np.abs(x) == T(1)) & ~(x > T(0))
    sign = np.where(even, T(1), T(-1))
    if kind == "t":
        c.set(top, T(1))
        c.set(bottom, sign)
    elif kind == "u":
        c.set(top, (n + 1).astype(x.dtype))
        c.set(bottom, sign * (n + 1).astype(x.dtype))
    elif kind == "v":
        c.set(top, T(1))
        c.set(bottom, sign * two_n1)
    else:
        c.set(top, two_n1)
        c.set(bottom, sign)
    threshold = {"t": 6, "u": 8, "v": 8, "w": 8}[kind] if not shifted else {"t": 6, "u": 6, "v": 6, "w": 4}[kind]
    trig = c.todo & (n > threshold) & (np.abs(y) < T(1))
    if trig.any():
        t = _libm(np.arccos, np.where(trig, y, T(0)))
        if kind == "t":
            c.set(trig, _libm(np.cos, nf * t))
        elif kind == "u":
            s = _libm(np.sin, t)
            n1 = (n + 1).astype(x.dtype)
            c.set(trig & (s != T(0)), _libm(np.sin, n1 * t) / np.where(s != T(0), s, T(1)))
            c.set(trig, n1 * _libm(np.cos, n1 * t) / y)
        elif kind == "v":
            half = _libm(np.sin, t / T(2)) != T(1)
            c.set(trig & half, _libm(np.cos, (nf + T(0.5)) * t) / _libm(np.cos, t / T(2)))
            c.set(trig, sign * two_n1)
        else:
            half = _libm(np.cos, t / T(2)) != T(1)
            c.set(trig & half, _libm(np.sin, (nf + T(0.5)) * t) / np.where(half, _libm(np.sin, t / T(2)), T(1)))
            if not shifted:
                c.set(trig & (x > T(0)), two_n1)
            c.set(trig, sign)
    c.set(n == 0, T(1))
    q1 = {"t": y, "u": y + y, "v": y + y - T(1), "w": y + y + T(1)}[kind]
    c.set(n == 1, q1)
    if c.todo.any():
        i = np.nonzero(c.todo)[0]
        twice = (y + y)[i]
        c.r[i] = _recurrence(q1[i], lambda k, s, p, q: _fma(twice[s], q, -p), 2, n[i])
    return c.r


def _hermite(x, n, physicists):
    T = x.dtype.type
    c = _Cases(x)
    c.set(n < 0, T(0))
    c.set(n == 0, T(1))
    q1 = x + x if physicists else x.copy()
    c.set(n == 1, q1)
    c.set(n > (128 if x.dtype == np.float32 else 512), T(np.nan))
    if c.todo.any():
        i = np.nonzero(c.todo)[0]
        xi = x[i]
        if physicists:       # H_k = 2x H_(k-1) - 2(k-1) H_(k-2)
            step = lambda k, s, p, q: _fma(xi[s] + xi[s], q, -(T(2 * (k - 1)) * p))  # noqa: E731
        else:                # He_k = x He_(k-1) - (k-1) He_(k-2)
            step = lambda k, s, p, q: _fma(xi[s], q, -(T(k - 1) * p))  # noqa: E731
        c.r[i] = _recurrence(q1[i], step, 2, n[i])
    return c.r


def _laguerre(x, n):
    T = x.dtype.type
    c = _Cases(x)
    c.set(n < 0, T(0))
    c.set(np.abs(x) == T(0), T(1))
    c.set(n == 0, T(1))
    q1 = T(1) - x
    c.set(n == 1, q1)
    if c.todo.any():
        i = np.nonzero(c.todo)[0]
        one_x = q1[i]
        # L_(j+1) = ((2j + 1 - x) L_j - j L_(j-1)) / (j + 1), j = k - 1
        c.r[i] = _recurrence(q1[i], lambda k, s, p, q: _fma(T(2 * (k - 1)) + one_x[s], q, -(T(k - 1) * p)) / T(k),
                             2, n[i])
    return c.r


def _legendre(x, n):
    T = x.dtype.type
    c = _Cases(x)
    c.set(n < 0, T(0))
    one = np.abs(x) == T(1)
    c.set(one, np.where((x > T(0)) | (n % 2 == 0), T(1), T(-1)))
    c.set(n == 0, T(1))
    c.set(n == 1, x)
    if c.todo.any():
        i = np.nonzero(c.todo)[0]
        xi = x[i]
        # P_(j+1) = ((2j + 1) x P_j - j P_(j-1)) / (j + 1), j = k - 1
        c.r[i] = _recurrence(xi.copy(), lambda k, s, p, q: _fma(T(2 * k - 1) * xi[s], q, -(T(k - 1) * p)) / T(k),
                             2, n[i])
    return c.r


_FORMS = {
    "chebyshev_polynomial_t": lambda x, n: _chebyshev(x, n, "t", False),
    "chebyshev_polynomial_u": lambda x, n: _chebyshev(x, n, "u", False),
    "chebyshev_polynomial_v": lambda x, n: _chebyshev(x, n, "v", False),
    "chebyshev_polynomial_w": lambda x, n: _chebyshev(x, n, "w", False),
    "shifted_chebyshev_polynomial_t": lambda x, n: _chebyshev(x, n, "t", True),
    "shifted_chebyshev_polynomial_u": lambda x, n: _chebyshev(x, n, "u", True),
    "shifted_chebyshev_polynomial_v": lambda x, n: _chebyshev(x, n, "v", True),
    "shifted_chebyshev_polynomial_w": lambda x, n: _chebyshev(x, n, "w", True),
    "hermite_polynomial_h": lambda x, n: _hermite(x, n, True),
    "hermite_polynomial_he": lambda x, n: _hermite(x, n, False),
    "laguerre_polynomial_l": _laguerre,
    "legendre_polynomial_p": _legendre,
}


def evaluate(name, x, n, dt):
    """p_n(x) of polynomial `name` for numpy (or Python number) x and n, computed in numpy dtype dt."""
    x, n = np.broadcast_arrays(np.asarray(x, dtype=dt), np.asarray(n))
    shape = x.shape
    with np.errstate(all="ignore"):
        r = _FORMS[name](x.ravel().copy(), _degree(n.ravel(), dt))
    return r.reshape(shape)


def _kernels(name):
    def compute(x, n, out):
        out[...] = evaluate(name, x, n, out.dtype)

    functional, _, out_variant = make_binary(compute, FLOAT_OUT, f"special_{name}")

    def f(x, n):
        M.check_dtype(x, n, name)
        return functional(x, n)

    def f_out(x, n, *, out):
        M.check_dtype(x, n, name)
        return out_variant(x, n, out)
    f.__name__, f_out.__name__ = f"special_{name}", f"special_{name}_out"
    return f, f_out


for _n in M.NAMES:
    globals()[f"special_{_n}"], globals()[f"special_{_n}_out"] = _kernels(_n)
