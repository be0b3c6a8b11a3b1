"""Backward helpers of the special functions (torch's FunctionsManual.cpp: mvlgamma_backward, i1_backward,
i1e_backward), in aten ops so that every backward is differentiable again. The `*_of` helpers call the
special_* ops, which have no top-level binding (torch's python_module special)."""
from ._common import _aten

__all__ = ["sinc_backward", "mvlgamma_backward", "i1_backward", "i1e_backward", "special_i1_of", "special_i1e_of",
           "special_zeta_of", "xlog1py_self_backward"]


def special_i1_of(x):
    return _aten().special_i1.default(x)


def special_i1e_of(x):
    return _aten().special_i1e.default(x)


def special_zeta_of(x, q):
    return _aten().special_zeta.default(x, q)


def sinc_backward(grad, self):
    """d/dx sin(pi x) / (pi x) = (cos(pi x) - sinc(x)) / x, and 0 at x = 0."""
    at = _aten()
    zero = at.eq.Scalar(self, 0)
    safe = at.where.self(zero, at.ones_like.default(self), self)
    d = at.div.Tensor(at.sub.Tensor(at.cos.default(at.mul.Scalar(safe, 3.141592653589793)), at.sinc.default(safe)),
                      safe)
    return grad * at.where.self(zero, at.zeros_like.default(d), d)


def mvlgamma_backward(grad, self, p):
    """d/dx sum_i lgamma(x - i/2) = sum_i digamma(x - i/2)."""
    total = _aten().digamma.default(self)
    for i in range(1, p):
        total = total + _aten().digamma.default(self - i / 2)
    return grad * total


def i1_backward(grad, self, result):
    """I1'(x) = I0(x) - I1(x) / x, and 1/2 at x = 0."""
    at = _aten()
    safe = at.where.self(self == 0, at.ones_like.default(self), self)
    d = at.i0.default(self) - result / safe
    return grad * at.where.self(self == 0, at.full_like.default(d, 0.5), d)


def i1e_backward(grad, self, result):
    """(I1(x) e^-|x|)' = I0e(x) - I1e(x) (sgn(x) + 1/x), and 1/2 at x = 0."""
    at = _aten()
    safe = at.where.self(self == 0, at.ones_like.default(self), self)
    d = at.special_i0e.default(self) - result * (self.sgn() + safe.reciprocal())
    return grad * at.where.self(self == 0, at.full_like.default(d, 0.5), d)



def xlog1py_self_backward(grad, self, other):
    """grad * log1p(other), 0 where grad is 0, and 0 where self == 0 and other <= -1 (torch's formula)."""
    aten = _aten()
    if not hasattr(other, "dim"):                              # the other_scalar overload
        g = aten.special_xlog1py.other_scalar(grad, other)
        return aten.masked_fill.Scalar(g, aten.eq.Scalar(self, 0), 0) if other <= -1 else g
    g = aten.special_xlog1py.default(grad, other)
    return aten.masked_fill.Scalar(g, aten.logical_and.default(aten.eq.Scalar(self, 0), aten.le.Scalar(other, -1)), 0)
