"""Meta functions of torch.special's orthogonal polynomials (native/elementwise_polynomial.yaml): TensorIterator's
binary float op (broadcast shape, promoted dtype, integers in the default float dtype, the layout of the
operands), and torch's cpu dtype dispatch (float32 and float64 only: half, bfloat16 and complex are refused
with torch's message). The cpu kernels in kernels/cpu/elementwise_polynomial.py allocate from these."""
from ..common import _tname
from .elementwise_common import FLOAT_OUT, binary_spec, meta_binary, meta_binary_out

NAMES = ("chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v", "chebyshev_polynomial_w",
         "hermite_polynomial_h", "hermite_polynomial_he", "laguerre_polynomial_l", "legendre_polynomial_p",
         "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
         "shifted_chebyshev_polynomial_w")


def check_dtype(x, n, name):
    """(shape, result dtype) of p_n(x); refuses what torch's cpu kernel has no loop for."""
    shape, _, rdt = binary_spec(x, n, FLOAT_OUT, f"special_{name}")
    if rdt.name not in ("float32", "float64"):
        raise NotImplementedError(f"\"{name}_cpu\" not implemented for '{_tname(rdt)}'")
    return shape, rdt


def _meta(name):
    functional, out_variant = meta_binary(FLOAT_OUT, f"special_{name}"), meta_binary_out(FLOAT_OUT, f"special_{name}")

    def f(x, n):
        check_dtype(x, n, name)
        return functional(x, n)

    def f_out(x, n, *, out):
        check_dtype(x, n, name)
        return out_variant(x, n, out=out)
    f.__name__, f_out.__name__ = f"special_{name}", f"special_{name}_out"
    return f, f_out


for _n in NAMES:
    globals()[f"special_{_n}"], globals()[f"special_{_n}_out"] = _meta(_n)
