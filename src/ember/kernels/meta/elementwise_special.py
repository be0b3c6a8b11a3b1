"""Meta functions of torch.special's pointwise ops that have kernels of their own (lgamma, digamma,
polygamma, mvlgamma, i0 and the special_* ops of native/elementwise_special.yaml): same shape, the layout
TensorIterator picks, integers and bool computed in the default float dtype; complex is refused as
torch's cpu kernels refuse it (and, for the Bessel-type functions, float16 / bfloat16 too: torch has float and
double kernels only). The cpu kernels in kernels/cpu/elementwise_special_ops.py allocate from these."""
from ..._core.device import META
from ..._core.promotion import get_default_dtype, result_type
from ..common import broadcast_shapes, check_out, empty_tensor, _tname
from .elementwise_common import FLOAT_OUT, check_inplace, meta_binary, meta_binary_out, out_strides


# the kernel name torch's "not implemented for 'ComplexFloat'" message shows, per op
_KERNEL_NAMES = {"lgamma": "lgamma_vml_cpu", "i0": "i0_vml_cpu", "digamma": "digamma", "polygamma": "polygamma",
                 "mvlgamma": "arange_cpu"}


def float_dtype(x, name):
    d = x.dtype
    if d.is_complex:
        kernel = _KERNEL_NAMES.get(name, name.replace("special_", "") + "_cpu")
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_tname(d)}'")
    return d if d.is_floating_point else get_default_dtype()


def unary(name):
    """(functional, in-place, out) meta functions of a float-valued unary op `name(self, *params)`."""
    def f(self, *args, **kw):
        return empty_tensor(self._size, float_dtype(self, name), META, out_strides(self._size, self))

    def f_(self, *args, **kw):
        check_inplace(self, self._size, float_dtype(self, name), name)
        return self

    def f_out(self, *args, out=None, **kw):
        check_out(out, self._size, float_dtype(self, name), name)
        return out
    return f, f_, f_out


for _n in ("sinc", "lgamma", "digamma", "i0", "mvlgamma", "special_i0e", "special_i1", "special_i1e", "special_erfcx",
           "special_ndtri", "special_log_ndtr"):
    globals()[_n], globals()[_n + "_"], globals()[_n + "_out"] = unary(_n)


def mvlgamma_out_rule(self):
    """torch's mvlgamma_out computes, then checks castability, naming self's dtype and the result's."""
    def rule(i, dtype, out):
        from ..._core.promotion import can_cast
        if not can_cast(dtype, out.dtype):
            raise RuntimeError(f"mvlgamma: result type {_tname(self.dtype)} can't be cast to the desired output type "
                               f"{_tname(dtype)}")
    return rule


def mvlgamma_out(self, p, *, out):
    check_out(out, self._size, float_dtype(self, "mvlgamma"), "mvlgamma", mvlgamma_out_rule(self))
    return out


def _polygamma_check(n):
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")


def polygamma(n, self):
    _polygamma_check(n)
    return lgamma(self)


def polygamma_(self, n):
    _polygamma_check(n)
    return lgamma_(self)


def polygamma_out(n, self, *, out):
    _polygamma_check(n)
    return lgamma_out(self, out=out)


def zeta_dtype(self, other):
    d = result_type(self, other)
    if d.is_complex:
        raise NotImplementedError(f"\"zeta_cpu\" not implemented for '{_tname(d)}'")
    return d if d.is_floating_point else get_default_dtype()


def special_zeta(self, other):
    shape = broadcast_shapes(self._size, other._size)
    return empty_tensor(shape, zeta_dtype(self, other), META, out_strides(shape, self, other))


def special_zeta_out(self, other, *, out):
    check_out(out, broadcast_shapes(self._size, other._size), zeta_dtype(self, other), "special_zeta")
    return out


def igamma_spec(self, other, name):
    """(shape, dtype) of igamma / igammac: TensorIterator's binary op (no promotion of integers to float), and
    torch's cpu loops for the floating dtypes only."""
    from .elementwise_common import ARITH, binary_spec
    shape, _, rdt = binary_spec(self, other, ARITH, name)
    if not rdt.is_floating_point:
        raise NotImplementedError(f"\"{name}_cpu\" not implemented for '{_tname(rdt)}'")
    return shape, rdt


def _igamma_meta(name):
    def f(self, other):
        shape, rdt = igamma_spec(self, other, name)
        return empty_tensor(shape, rdt, META, out_strides(shape, self, other))

    def f_(self, other):
        shape, rdt = igamma_spec(self, other, name)
        check_inplace(self, shape, rdt, name)
        return self

    def f_out(self, other, *, out):
        shape, rdt = igamma_spec(self, other, name)
        check_out(out, shape, rdt, name)
        return out
    return f, f_, f_out


igamma, igamma_, igamma_out = _igamma_meta("igamma")
igammac, igammac_, igammac_out = _igamma_meta("igammac")


special_entr, _, special_entr_out = unary("special_entr")


def _xlog1py_check(self, other):
    from ..._core import dtype as D
    if any(getattr(t, "dtype", D.float32).is_complex for t in (self, other)):
        raise NotImplementedError(f"\"xlog1py_cpu\" not implemented for '{_tname(result_type(self, other))}'")


def special_xlog1py(self, other):
    _xlog1py_check(self, other)
    return _xlog1py_meta(self, other)


def special_xlog1py_out(self, other, *, out):
    _xlog1py_check(self, other)
    return _xlog1py_meta_out(self, other, out=out)


_xlog1py_meta = meta_binary(FLOAT_OUT, "special_xlog1py")
_xlog1py_meta_out = meta_binary_out(FLOAT_OUT, "special_xlog1py")


# ------------------------------------------------------------------ the Bessel-type functions
BESSEL = ("special_airy_ai", "special_bessel_j0", "special_bessel_j1", "special_bessel_y0", "special_bessel_y1",
          "special_modified_bessel_i0", "special_modified_bessel_i1", "special_modified_bessel_k0",
          "special_modified_bessel_k1", "special_scaled_modified_bessel_k0", "special_scaled_modified_bessel_k1",
          "special_spherical_bessel_j0")


def bessel_dtype(x):
    """The dtype a Bessel-type function computes in: the input's, integers and bool in the default dtype."""
    d = x.dtype
    return d if d.is_floating_point or d.is_complex else get_default_dtype()


def check_bessel_dtype(d, name):
    """torch instantiates these kernels for float and double only."""
    if d.name not in ("float32", "float64"):
        raise NotImplementedError(f"\"{name.replace('special_', '')}_cpu\" not implemented for '{_tname(d)}'")


def bessel_unary(name):
    """(functional, out) meta functions of a Bessel-type function; out= checks castability (and resizes)
    before the dtype is refused, in TensorIterator's order."""
    def f(x):
        d = bessel_dtype(x)
        check_bessel_dtype(d, name)
        return empty_tensor(x._size, d, META, out_strides(x._size, x))

    def f_out(x, *, out):
        d = bessel_dtype(x)
        check_out(out, x._size, d, name)
        check_bessel_dtype(d, name)
        return out
    return f, f_out


for _n in BESSEL:
    globals()[_n], globals()[_n + "_out"] = bessel_unary(_n)
