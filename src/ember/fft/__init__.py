"""ember.fft: torch.fft, the discrete Fourier transforms and their helpers.

Every transform is torch's composite of SpectralOps.cpp over the three aten ops of native/fft.yaml
(`_fft_r2c`, `_fft_c2r`, `_fft_c2c`, kernels in kernels/cpu/fft.py): the input is promoted (integers and
bool to the default dtype, real to complex where the transform needs it; half and bfloat16 are refused as
torch's cpu backend refuses them), cropped or zero-padded to the requested length `n` / `s` along each
transformed dim, and transformed with the normalization `norm` names for this direction ("backward": the
inverse scales by 1/n, "forward": the forward does, "ortho": both by 1/sqrt(n)). Gradients come from the
derivatives of the three aten ops (native/derivatives/fft.yaml)."""
from .._core.unimplemented import missing_attribute as _missing_attribute
import ember as _e
from .._tensor import Tensor  # noqa: F401  (torch.fft.Tensor)

from .._core import dtype as _D
from .._core.strides import wrap_dim as _wrap_dim
from ..kernels.common import _tname, resize_out as _resize_out
from ..kernels.out_rules import (exact as _exact, fft_complex as _fft_complex, fft_conjugated as _fft_conjugated,
                                 fft_real as _fft_real, resize_counted as _resize_counted, write_outs as _write_outs)

__all__ = ["fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft", "rfft2", "irfft2", "rfftn", "irfftn",
           "hfft", "ihfft", "hfft2", "ihfft2", "hfftn", "ihfftn", "fftfreq", "rfftfreq", "fftshift", "ifftshift"]

_NONE, _BY_ROOT_N, _BY_N = 0, 1, 2
_COMPLEX = {"float32": _D.complex64, "float64": _D.complex128}


# ------------------------------------------------------------------ argument handling (SpectralOps.cpp)
def _norm_mode(norm, forward):
    """torch's norm_from_string: the normalization applied by a transform in this direction."""
    if norm is None or norm == "backward":
        return _NONE if forward else _BY_N
    if norm == "forward":
        return _BY_N if forward else _NONE
    if norm == "ortho":
        return _BY_ROOT_N
    raise RuntimeError(f'Invalid normalization mode: "{norm}"')


def _promote(x, require_complex=False):
    """torch's promote_tensor_fft: integers and bool go to the default dtype; only float32/float64 and their
    complex types are supported on cpu."""
    if not isinstance(x, _e.Tensor):
        raise TypeError(f"fft(): argument 'input' (position 1) must be Tensor, not {type(x).__name__}")
    dt = x.dtype
    if not (dt.is_floating_point or dt.is_complex):
        dt = _e.get_default_dtype()
    if dt.name not in ("float32", "float64", "complex64", "complex128"):
        raise RuntimeError(f"Unsupported dtype {_scalar_name(dt)}")
    if require_complex and not dt.is_complex:
        dt = _COMPLEX[dt.name]
    return x if dt == x.dtype else x.to(dt)


def _scalar_name(dt):
    return {"float16": "Half", "bfloat16": "BFloat16"}.get(dt.name, dt.name)


def _check_n(n):
    if n < 1:
        raise RuntimeError(f"Invalid number of data points ({n}) specified")


def _resize(x, dims, sizes):
    """torch's resize_fft_input: crop each dim to its length or zero-pad it at the end."""
    pads = [0] * (2 * x.dim())
    must_pad = False
    for d, n in zip(dims, sizes):
        have = x.shape[d]
        if have > n:
            x = x.narrow(d, 0, n)
        elif have < n:
            must_pad = True
            pads[2 * (x.dim() - 1 - d) + 1] = n - have
    if must_pad:
        x = _e.constant_pad_nd(x, pads, 0)
    return x


def _one_dim(x, n, dim):
    if x.dim() == 0:
        raise IndexError("Dimension specified as -1 but tensor has no dimensions" if dim == -1 else
                         f"Dimension specified as {dim} but tensor has no dimensions")
    d = _wrap_dim(dim, x.dim())
    if n is None:
        n = x.shape[d]
    _check_n(n)
    return d, n


def _shape_and_dims(x, s, dim):
    """torch's canonicalize_fft_shape_and_dim_args: the dims and lengths of an n-dimensional transform."""
    if isinstance(dim, int):
        dim = [dim]
    if dim is not None:
        dims = [_wrap_dim(d, x.dim()) for d in dim]
        if s is not None and len(s) != len(dim):
            raise RuntimeError("When given, dim and shape arguments must have the same length")
        if len(set(dims)) != len(dims):
            raise RuntimeError("FFT dims must be unique")
    elif s is not None:
        if len(s) > x.dim():
            raise RuntimeError(f"Got shape with {len(s)} values but input tensor only has {x.dim()} dimensions.")
        dims = list(range(x.dim() - len(s), x.dim()))
    else:
        dims = list(range(x.dim()))
    if s is not None:
        sizes = [x.shape[d] if n == -1 else int(n) for d, n in zip(dims, s)]
    else:
        sizes = [x.shape[d] for d in dims]
    for n in sizes:
        _check_n(n)
    return dims, sizes


def _out(result, out, rule, resize=_resize_out):
    """torch's fft out=: `rule` (out_rules.fft_complex / fft_real) names the transform torch's message names;
    the result is cast into `out`, resized with the usual warning."""
    if out is None:
        return result
    with _e.no_grad():
        return _write_outs((result,), (out,), rule, resize=resize, dispatch=True)[0]


def _freq_out(name, n, out, dtype):
    """fftfreq/rfftfreq out=: computed in `out`'s dtype through arange's out= (its resize warning)."""
    if out is None:
        return dtype
    if not (out.dtype.is_floating_point or out.dtype.is_complex):
        raise RuntimeError(f"{name} requires a floating point or complex dtype")
    if out.dtype.is_complex:
        raise NotImplementedError(f"\"arange_cpu\" not implemented for '{_tname(out.dtype)}'")
    return out.dtype


# ------------------------------------------------------------------ the three kinds of transform
def _c2c(x, dims, sizes, norm, forward):
    x = _resize(_promote(x, require_complex=True), dims, sizes)
    return _e._fft_c2c(x, dims, _norm_mode(norm, forward), forward)


def _r2c(name, x, dims, sizes, norm, forward, onesided):
    """Real input: r2c; the inverse transforms of real input are the conjugate of the forward one."""
    if x.dtype.is_complex:
        what = "real-valued" if name.endswith("n") else "real"
        raise RuntimeError(f"{name} expects a {what} input tensor, but got {_complex_name(x.dtype)}")
    x = _resize(_promote(x), dims, sizes)
    r = _e._fft_r2c(x, dims, _norm_mode(norm, forward), onesided)
    return r if forward else r.conj()


def _c2r(x, dims, sizes, last_n, norm, forward):
    """Hermitian input, real output: the last dim holds last_n // 2 + 1 values; hfft conjugates first."""
    x = _promote(x, require_complex=True)
    x = _resize(x, dims, list(sizes[:-1]) + [last_n // 2 + 1])
    if forward:
        x = x.conj()
    return _e._fft_c2r(x, dims, _norm_mode(norm, forward), last_n)


def _complex_name(dt):
    return {"complex64": "ComplexFloat", "complex128": "ComplexDouble"}.get(dt.name, dt.name)


def _full(name, x, dims, sizes, norm, forward):
    """fft/ifft of any input: c2c for complex input, a two-sided r2c for real input."""
    if x.dtype.is_complex:
        return _c2c(x, dims, sizes, norm, forward)
    return _r2c(name, x, dims, sizes, norm, forward, onesided=False)


# ------------------------------------------------------------------ one-dimensional transforms
def fft(input, n=None, dim=-1, norm=None, *, out=None):
    d, n = _one_dim(input, n, dim)
    return _out(_full("fft", input, [d], [n], norm, True), out, _fft_complex("fft"))


def ifft(input, n=None, dim=-1, norm=None, *, out=None):
    d, n = _one_dim(input, n, dim)
    return _out(_full("ifft", input, [d], [n], norm, False), out,
                _fft_complex("ifft") if input.dtype.is_complex else _fft_conjugated("ifft"))


def rfft(input, n=None, dim=-1, norm=None, *, out=None):
    d, n = _one_dim(input, n, dim)
    return _out(_r2c("rfft", input, [d], [n], norm, True, onesided=True), out, _fft_complex("rfft"))


def ihfft(input, n=None, dim=-1, norm=None, *, out=None):
    d, n = _one_dim(input, n, dim)
    return _out(_r2c("ihfft", input, [d], [n], norm, False, onesided=True), out, _fft_conjugated("ihfft"))


def _c2r_one_dim(input, n, dim):
    d, _ = _one_dim(input, 1, dim)
    n = 2 * (input.shape[d] - 1) if n is None else n
    _check_n(n)
    return d, n


def irfft(input, n=None, dim=-1, norm=None, *, out=None):
    d, n = _c2r_one_dim(input, n, dim)
    return _out(_c2r(input, [d], [n], n, norm, False), out, _fft_real("irfft"))


def hfft(input, n=None, dim=-1, norm=None, *, out=None):
    d, n = _c2r_one_dim(input, n, dim)
    return _out(_c2r(input, [d], [n], n, norm, True), out, _fft_real("hfft"))


# ------------------------------------------------------------------ n-dimensional transforms
def fftn(input, s=None, dim=None, norm=None, *, out=None):
    """(torch promotes real input to complex here, unlike the one-dimensional fft)"""
    dims, sizes = _shape_and_dims(input, s, dim)
    return _out(_c2c(input, dims, sizes, norm, True), out, _fft_complex("fftn"))


def ifftn(input, s=None, dim=None, norm=None, *, out=None):
    dims, sizes = _shape_and_dims(input, s, dim)
    return _out(_c2c(input, dims, sizes, norm, False), out, _fft_complex("fftn"))


def rfftn(input, s=None, dim=None, norm=None, *, out=None):
    dims, sizes = _shape_and_dims(input, s, dim)
    _need_dims("rfftn", dims)
    return _out(_r2c("rfftn", input, dims, sizes, norm, True, onesided=True), out, _fft_complex("rfftn"))


def ihfftn(input, s=None, dim=None, norm=None, *, out=None):
    """torch's order: a onesided r2c of the last dim, conjugated, then an inverse c2c of the other dims."""
    dims, sizes = _shape_and_dims(input, s, dim)
    _need_dims("ihfftn", dims)
    if input.dtype.is_complex:
        raise RuntimeError(f"Only supports floating-point dtypes, but found: {_complex_name(input.dtype)}")
    half = _r2c("ihfftn", _resize(input, dims[:-1], sizes[:-1]), dims[-1:], sizes[-1:], norm, False, onesided=True)
    if len(dims) == 1:
        return _out(half, out, _fft_conjugated("ihfftn", reverse=True))
    return _out(_e._fft_c2c(half, dims[:-1], _norm_mode(norm, False), False), out, _fft_complex("ihfftn"))


def _c2r_shape_and_dims(name, input, s, dim):
    """irfftn/hfftn: the last transformed dim's output length defaults to 2 * (size - 1)."""
    if s is not None and s[-1] == -1 or s is None:
        dims, sizes = _shape_and_dims(input, None if s is None else [1 if n == -1 else n for n in s], dim)
        if s is not None:
            sizes = [input.shape[d] if n == -1 else n for d, n in zip(dims, s)]
        _need_dims(name, dims)
        last = 2 * (input.shape[dims[-1]] - 1)
    else:
        dims, sizes = _shape_and_dims(input, s, dim)
        _need_dims(name, dims)
        last = sizes[-1]
    _check_n(last)
    return dims, sizes, last


def _need_dims(name, dims):
    if not dims:
        raise RuntimeError(f"{name} must transform at least one axis")


def irfftn(input, s=None, dim=None, norm=None, *, out=None):
    dims, sizes, last = _c2r_shape_and_dims("irfftn", input, s, dim)
    return _out(_c2r(input, dims, sizes, last, norm, False), out, _fft_real("irfftn"))


def hfftn(input, s=None, dim=None, norm=None, *, out=None):
    dims, sizes, last = _c2r_shape_and_dims("hfftn", input, s, dim)
    return _out(_c2r(input, dims, sizes, last, norm, True), out, _fft_real("hfftn"))


def fft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    return fftn(input, s, dim, norm, out=out)


def ifft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    return ifftn(input, s, dim, norm, out=out)


def rfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    return rfftn(input, s, dim, norm, out=out)


def irfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    return irfftn(input, s, dim, norm, out=out)


def hfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    return hfftn(input, s, dim, norm, out=out)


def ihfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    return ihfftn(input, s, dim, norm, out=out)


# ------------------------------------------------------------------ helpers
def fftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """The sample frequencies [0, 1, ..., (n-1)//2, -(n//2), ..., -1] / (d * n)."""
    dtype = _freq_out("fftfreq", n, out, dtype)
    r = _e.arange(n, dtype=dtype, device=device)
    r = _e.cat([r[:(n + 1) // 2], r[(n + 1) // 2:] - n]) if n > 1 else r
    r = r * (1.0 / (n * d))
    r = r.to(dtype) if dtype is not None else r
    return _out(r.requires_grad_(requires_grad), out, _exact, _resize_counted)


def rfftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """The non-negative sample frequencies of rfft: [0, 1, ..., n//2] / (d * n)."""
    dtype = _freq_out("rfftfreq", n, out, dtype)
    r = _e.arange(n // 2 + 1, dtype=dtype, device=device) * (1.0 / (n * d))
    r = r.to(dtype) if dtype is not None else r
    return _out(r.requires_grad_(requires_grad), out, _exact, _resize_counted)


def _shift_dims(input, dim):
    if dim is None:
        return list(range(input.dim()))
    return [dim] if isinstance(dim, int) else list(dim)


def fftshift(input, dim=None):
    """Moves the zero frequency to the centre: a roll by size // 2 along each dim."""
    dims = _shift_dims(input, dim)
    return _e.roll(input, [input.shape[d] // 2 for d in dims], dims)


def ifftshift(input, dim=None):
    """The inverse of fftshift: a roll by (size + 1) // 2 along each dim."""
    dims = _shift_dims(input, dim)
    return _e.roll(input, [(input.shape[d] + 1) // 2 for d in dims], dims)


def __getattr__(name):   # torch names ember lacks say so (see ember/_core/unimplemented.py)
    return _missing_attribute(__name__, name)
