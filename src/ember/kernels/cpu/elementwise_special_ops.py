"""cpu kernels of torch.special's pointwise ops with kernels of their own (lgamma, digamma, polygamma,
mvlgamma, i0, igamma/igammac, special_i0e/i1/i1e/erfcx/ndtri/log_ndtr/zeta, and the Bessel-type functions):
float64 numpy numerics from elementwise_special_math.py (igamma's from elementwise_special_igamma.py; the
Bessel-type ones in the input's dtype, as torch, from elementwise_special_bessel.py), cast to the result dtype the
meta functions (kernels/meta/elementwise_special.py) give, in the layout they pick."""
import math

import numpy as np

from ..common import check_out
from ..out_rules import write_outs
from ..meta import elementwise_special as M
from ..meta.elementwise_common import check_inplace
from . import elementwise_special_bessel as B
from . import elementwise_special_igamma as IG
from . import elementwise_special_math as S
from .elementwise import _alloc, _opmath, make_binary
from ..meta.elementwise_common import ARITH, FLOAT_OUT


def _unary(name, fn):
    def compute(self, args, kw):
        return fn(_opmath(self._np), *args, **kw)      # (half precision computed in float32, rounded once)

    def functional(self, *args, **kw):
        rdt = M.float_dtype(self, name)
        out = _alloc(self._size, rdt, self)
        np.copyto(out._np, compute(self, args, kw), casting="unsafe")
        return out

    def inplace(self, *args, **kw):
        check_inplace(self, self._size, M.float_dtype(self, name), name)
        np.copyto(self._np, compute(self, args, kw), casting="unsafe")
        return self

    def out_variant(self, *args, out=None, **kw):
        rdt = M.float_dtype(self, name)
        r = compute(self, args, kw)
        check_out(out, self._size, rdt, name)
        np.copyto(out._np, r, casting="unsafe")
        return out
    return functional, inplace, out_variant


def _mvlgamma(a, p):
    """log of the multivariate gamma function: sum_i lgamma(a - i/2) + p (p - 1) / 4 log(pi)."""
    x = np.asarray(a, dtype=np.float64)            # (torch 2.13 no longer checks x > (p - 1) / 2)
    r = np.full(x.shape, p * (p - 1) / 4 * math.log(math.pi))
    for i in range(p):
        r = r + S.lgamma(x - i / 2)
    return r


def _check_p(p):
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")


for _n, _f in {"sinc": lambda a: np.sinc(np.asarray(a, dtype=np.float64) if a.dtype.kind in "iub" else a),
               "lgamma": S.lgamma, "digamma": S.digamma, "i0": S.i0, "special_i0e": S.i0e, "special_i1": S.i1,
               "special_i1e": S.i1e, "special_erfcx": S.erfcx, "special_ndtri": S.ndtri,
               "special_log_ndtr": S.log_ndtr}.items():
    globals()[_n], globals()[_n + "_"], globals()[_n + "_out"] = _unary(_n, _f)

_mv, _mv_, _mv_out = _unary("mvlgamma", _mvlgamma)


def mvlgamma(self, p):
    _check_p(p)
    return _mv(self, p)


def mvlgamma_(self, p):
    _check_p(p)
    return _mv_(self, p)


def mvlgamma_out(self, p, *, out):
    _check_p(p)
    return write_outs((_mv(self, p),), (out,), M.mvlgamma_out_rule(self))[0]


_pg, _pg_, _pg_out = _unary("polygamma", lambda a, n: S.polygamma(n, a))


def polygamma(n, self):
    M.polygamma(n, self)
    return _pg(self, n)


def polygamma_(self, n):
    M.polygamma_(self, n)
    return _pg_(self, n)


def polygamma_out(n, self, *, out):
    M.polygamma_out(n, self, out=out)
    return _pg_out(self, n, out=out)


def special_zeta(self, other):
    rdt = M.zeta_dtype(self, other)
    meta = M.special_zeta(self, other)
    out = _alloc(tuple(meta._size), rdt, self, other)
    np.copyto(out._np, S.zeta(self._np, other._np), casting="unsafe")
    return out


def special_zeta_out(self, other, *, out):
    r = special_zeta(self, other)
    check_out(out, r._size, r.dtype, "special_zeta")
    np.copyto(out._np, r._np, casting="unsafe")
    return out


def _igamma_kernels(name, fn):
    """igamma / igammac (self = a, other = x): float64 numerics of elementwise_special_igamma.py, written in the
    result dtype (half and bfloat16 compute in float32 in torch; float64 here, then rounded)."""
    def compute(a, b, out):
        np.copyto(out, fn(a, b), casting="unsafe")

    functional, inplace, out_variant = make_binary(compute, ARITH, name)

    def f(self, other):
        M.igamma_spec(self, other, name)
        return functional(self, other)

    def f_(self, other):
        M.igamma_spec(self, other, name)
        return inplace(self, other)

    def f_out(self, other, *, out):
        M.igamma_spec(self, other, name)
        return out_variant(self, other, out)
    return f, f_, f_out


igamma, igamma_, igamma_out = _igamma_kernels("igamma", IG.igamma)
igammac, igammac_, igammac_out = _igamma_kernels("igammac", IG.igammac)


def _entr(a):
    """-x log x for x > 0, 0 at 0, -inf below 0, nan stays nan."""
    x = np.asarray(a, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.where(x > 0, -x * np.log(np.where(x > 0, x, 1.0)), np.where(x == 0, 0.0, -np.inf))
    return np.where(np.isnan(x), x, r)


special_entr, _, special_entr_out = _unary("special_entr", _entr)


def _xlog1py(a, b, out):
    """a * log1p(b), 0 where a == 0 unless b is nan."""
    with np.errstate(divide="ignore", invalid="ignore"):
        a, b = np.asarray(a), np.asarray(b)
        np.copyto(out, np.where(np.isnan(b), np.nan, np.where(a == 0, 0.0, a * np.log1p(b))), casting="unsafe")


_xlog1py_f, _, _xlog1py_out = make_binary(_xlog1py, FLOAT_OUT, "special_xlog1py")


def special_xlog1py(self, other):
    M.special_xlog1py(self, other)
    return _xlog1py_f(self, other)


def special_xlog1py_out(self, other, *, out):
    M.special_xlog1py(self, other)
    return _xlog1py_out(self, other, out=out)


# ------------------------------------------------------------------ the Bessel-type functions
def _bessel(name):
    fn = getattr(B, name.replace("special_", ""))

    def compute(x, d):
        a = x._np
        return fn(a if a.dtype == d._np else a.astype(d._np))

    def functional(x):
        d = M.bessel_dtype(x)
        M.check_bessel_dtype(d, name)
        out = _alloc(x._size, d, x)
        np.copyto(out._np, compute(x, d), casting="unsafe")
        return out

    def out_variant(x, *, out):
        d = M.bessel_dtype(x)
        check_out(out, x._size, d, name)
        M.check_bessel_dtype(d, name)
        np.copyto(out._np, compute(x, d), casting="unsafe")
        return out
    return functional, out_variant


for _n in M.BESSEL:
    globals()[_n], globals()[_n + "_out"] = _bessel(_n)
