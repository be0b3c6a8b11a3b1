"""ember.special: torch.special, the special mathematical functions.

Three kinds of entries, as in torch:
- aliases of ops that also live at the top level (expit is sigmoid, gammaln is lgamma, psi is digamma,
  multigammaln is mvlgamma, erf, logit, xlogy, softmax, ...);
- the special_* aten ops with kernels of their own (i0e, i1, i1e, erfcx, ndtri, log_ndtr, zeta, entr,
  xlog1py; schemas in native/elementwise_special.yaml with torch's python_module special, numerics in
  kernels/cpu/elementwise_special_math.py), called through their generated bindings
  (`_generated/special_functions.py`, torch._C._special);
- composites written in ember ops, differentiable through them: ndtr.
- the Bessel-type special_* ops (airy_ai, bessel_j0/j1/y0/y1, modified_bessel_i0/i1/k0/k1,
  scaled_modified_bessel_k0/k1, spherical_bessel_j0): their generated bindings themselves, as torch binds
  them (argument names `input` or `x` from the schema), numerics in kernels/cpu/elementwise_special_bessel.py;
- the orthogonal polynomials (chebyshev_polynomial_t/u/v/w and their shifted kinds, hermite_polynomial_h/he,
  laguerre_polynomial_l, legendre_polynomial_p): aten ops of native/elementwise_polynomial.yaml with torch's
  (Tensor, Tensor), (Scalar, Tensor) and (Tensor, Scalar) overloads;
- gammainc / gammaincc: the aten ops special_gammainc / special_gammaincc, composites of igamma / igammac."""
from .._core.unimplemented import missing_attribute as _missing_attribute
import math as _math
import numbers as _numbers

import ember as _e
from .._generated import special_functions as _special
from ..kernels.out_rules import write_outs as _write_outs

__all__ = ["airy_ai", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "modified_bessel_i0", "modified_bessel_i1",
           "modified_bessel_k0", "modified_bessel_k1", "scaled_modified_bessel_k0", "scaled_modified_bessel_k1",
           "spherical_bessel_j0"]
__all__ += ["digamma", "entr", "erf", "erfc", "erfcx", "erfinv", "exp2", "expit", "expm1", "gammaln", "i0", "i0e",
           "i1", "i1e", "log1p", "log_ndtr", "log_softmax", "logit", "logsumexp", "multigammaln", "ndtr", "ndtri",
           "polygamma", "psi", "round", "sinc", "softmax", "xlog1py", "xlogy", "zeta"]
_POLYNOMIALS = ("chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v", "chebyshev_polynomial_w",
                "hermite_polynomial_h", "hermite_polynomial_he", "laguerre_polynomial_l", "legendre_polynomial_p",
                "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
                "shifted_chebyshev_polynomial_w")
__all__ += list(_POLYNOMIALS) + ["gammainc", "gammaincc"]

def _check(name, input):
    if not isinstance(input, _e.Tensor):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")


def _special_unary(name):
    binding = getattr(_special, f"special_{name}")

    def f(input, *, out=None):
        return binding(input, out=out)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"torch.special.{name}: the aten op special_{name} (kernels/cpu/elementwise_special_ops.py)."
    return f


i0e = _special_unary("i0e")
i1 = _special_unary("i1")
i1e = _special_unary("i1e")
erfcx = _special_unary("erfcx")
ndtri = _special_unary("ndtri")
log_ndtr = _special_unary("log_ndtr")

# the Bessel-type functions (torch.special binds the aten ops directly: special_bessel_j0(input, *, out=None))
airy_ai = _special.special_airy_ai
bessel_j0 = _special.special_bessel_j0
bessel_j1 = _special.special_bessel_j1
bessel_y0 = _special.special_bessel_y0
bessel_y1 = _special.special_bessel_y1
modified_bessel_i0 = _special.special_modified_bessel_i0
modified_bessel_i1 = _special.special_modified_bessel_i1
modified_bessel_k0 = _special.special_modified_bessel_k0
modified_bessel_k1 = _special.special_modified_bessel_k1
scaled_modified_bessel_k0 = _special.special_scaled_modified_bessel_k0
scaled_modified_bessel_k1 = _special.special_scaled_modified_bessel_k1
spherical_bessel_j0 = _special.special_spherical_bessel_j0


def _polynomial(name):
    binding = getattr(_special, f"special_{name}")

    def f(input, n, *, out=None):
        return binding(input, n, out=out)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = (f"torch.special.{name}(input, n): the polynomial of degree n at input, the aten op special_{name} "
                 "(kernels/cpu/elementwise_polynomial.py).")
    return f


for _name in _POLYNOMIALS:
    globals()[_name] = _polynomial(_name)


def gammainc(input, other, *, out=None):
    """The regularized lower incomplete gamma function P(input, other) (torch.igamma)."""
    return _special.special_gammainc(input, other, out=out)


def gammaincc(input, other, *, out=None):
    """The regularized upper incomplete gamma function Q(input, other) = 1 - P (torch.igammac)."""
    return _special.special_gammaincc(input, other, out=out)


def _as_tensor(x, like):
    if isinstance(x, _e.Tensor):
        return x
    if isinstance(x, _numbers.Number):
        return _e.tensor(x, dtype=like.dtype if like is not None and like.dtype.is_floating_point
                         else _e.get_default_dtype())
    raise TypeError(f"argument must be Tensor or Number, not {type(x).__name__}")


def zeta(input, other, *, out=None):
    """The Hurwitz zeta function sum_k (k + other)^-input."""
    if not isinstance(input, _e.Tensor) and not isinstance(other, _e.Tensor):
        raise TypeError("special_zeta(): at least one of 'input' and 'other' must be a Tensor")
    a = _as_tensor(input, other if isinstance(other, _e.Tensor) else None)
    b = _as_tensor(other, a)
    return _special.special_zeta(a, b, out=out)


# ------------------------------------------------------------------ aliases of top-level ops
def expit(input, *, out=None):
    return _e.sigmoid(input, out=out)


def gammaln(input, *, out=None):
    return _e.lgamma(input, out=out)


def digamma(input, *, out=None):
    return _e.digamma(input, out=out)


psi = digamma


def polygamma(n, input, *, out=None):
    return _e.polygamma(n, input, out=out)


def multigammaln(input, p, *, out=None):
    return _e.mvlgamma(input, p, out=out)


def i0(input, *, out=None):
    return _e.i0(input, out=out)


def erf(input, *, out=None):
    return _e.erf(input, out=out)


def erfc(input, *, out=None):
    return _e.erfc(input, out=out)


def erfinv(input, *, out=None):
    return _e.erfinv(input, out=out)


def exp2(input, *, out=None):
    return _e.exp2(input, out=out)


def expm1(input, *, out=None):
    return _e.expm1(input, out=out)


def log1p(input, *, out=None):
    return _e.log1p(input, out=out)


def logit(input, eps=None, *, out=None):
    return _e.logit(input, eps, out=out)


def round(input, *, decimals=0, out=None):  # noqa: A001  (torch's name)
    if out is not None:
        return _e.round(input, decimals=decimals, out=out)
    return _e.round(input, decimals=decimals)


def xlogy(input, other, *, out=None):
    return _e.xlogy(input, other, out=out)


def softmax(input, dim, *, dtype=None):
    return _e.softmax(input, dim, dtype)


def log_softmax(input, dim, *, dtype=None):
    return _e.log_softmax(input, dim, dtype)


def logsumexp(input, dim, keepdim=False, *, out=None):
    return _e.logsumexp(input, dim, keepdim, out=out)


# ------------------------------------------------------------------ composites
def _float(x):
    return x if x.dtype.is_floating_point or x.dtype.is_complex else x.to(_e.get_default_dtype())


def _finish(r, out):
    """out= of the composites: TensorIterator's rule (castable, resize with torch's warning)."""
    if out is None:
        return r
    with _e.no_grad():
        return _write_outs((r,), (out,), dispatch=True)[0]


def ndtr(input, *, out=None):
    """The standard normal CDF, 0.5 erfc(-x / sqrt(2))."""
    _check("special_ndtr", input)
    # the halving is mul.Scalar, as torch's composite ends (MulBackward1)
    return _finish(_e.ops.aten.mul.Scalar(_e.erfc(_float(input) * (-1 / _math.sqrt(2))), 0.5), out)


def entr(input, *, out=None):
    """-x log(x) for x > 0, 0 at 0, -inf below (nan stays nan): the aten op special_entr."""
    return _special.special_entr(input, out=out)


def sinc(input, *, out=None):
    return _e.sinc(input, out=out)


def xlog1py(input, other, *, out=None):
    """input * log1p(other), 0 where input is 0 (unless other is nan): the aten op special_xlog1py."""
    return _special.special_xlog1py(input, other, out=out)


def __getattr__(name):   # torch names ember lacks say so (see ember/_core/unimplemented.py)
    return _missing_attribute(__name__, name)
