"""cpu kernels of torch's spectral ops (`_fft_r2c`, `_fft_c2r`, `_fft_c2c`): numpy.fft does the transforms
(pocketfft, as torch's cpu backend without MKL). numpy >= 2 computes complex64/float32 in single precision
like torch; older numpy computes in double, and either way the result is cast to torch's dtype.

torch's `normalization` (0: none, 1: 1/sqrt(n), 2: 1/n) maps onto numpy's `norm`, whose names say which
direction is scaled: for a forward transform "backward" scales nothing, for an inverse one "forward" does."""
import numpy as np

from ..._core.tensor_impl import TensorImpl as Tensor
from ..common import check_out
from ..meta import fft as M

_FORWARD_NORM = {0: "backward", 1: "ortho", 2: "forward"}
_INVERSE_NORM = {0: "forward", 1: "ortho", 2: "backward"}


def _wrap(arr, dtype, shape):
    arr = np.asarray(arr, dtype=dtype._np).reshape(shape)
    return Tensor._wrap_np(np.ascontiguousarray(arr), dtype)


def _trivial(self, size, dims):
    """An empty result (numpy refuses zero-length axes; torch.fft checks transform lengths before this) or
    no transformed dim (the identity, as torch's kernels leave it)."""
    return 0 in size or self.numel() == 0 or not dims


def _identity(self, size, dt):
    if 0 in size or self.numel() == 0:
        return _wrap(np.zeros(size), dt, size)
    return _wrap(self._np if dt.is_complex else self._np.real, dt, size)


def fft_r2c(self, dim, normalization, onesided):
    size, dt, dims = M.r2c_shape(self, dim, onesided)
    if _trivial(self, size, dims):
        return _identity(self, size, dt)
    norm = _FORWARD_NORM[int(normalization)]
    if onesided:
        r = np.fft.rfftn(self._np, axes=dims, norm=norm)
    else:
        r = np.fft.fftn(self._np, axes=dims, norm=norm)
    return _wrap(r, dt, size)


def fft_c2r(self, dim, normalization, last_dim_size):
    size, dt, dims = M.c2r_shape(self, dim, last_dim_size)
    if _trivial(self, size, dims):
        return _identity(self, size, dt)
    s = [self._size[d] for d in dims[:-1]] + [int(last_dim_size)]
    r = np.fft.irfftn(self._np, s=s, axes=dims, norm=_INVERSE_NORM[int(normalization)])
    return _wrap(r, dt, size)


def fft_c2c(self, dim, normalization, forward):
    size, dt, dims = M.c2c_shape(self, dim)
    if _trivial(self, size, dims):
        return _identity(self, size, dt)
    if forward:
        r = np.fft.fftn(self._np, axes=dims, norm=_FORWARD_NORM[int(normalization)])
    else:
        r = np.fft.ifftn(self._np, axes=dims, norm=_INVERSE_NORM[int(normalization)])
    return _wrap(r, dt, size)


def _into(out, r):
    check_out(out, r._size, r.dtype, "out")
    np.copyto(out._np, r._np, casting="unsafe")
    return out


def fft_r2c_out(self, dim, normalization, onesided, *, out):
    return _into(out, fft_r2c(self, dim, normalization, onesided))


def fft_c2r_out(self, dim, normalization, last_dim_size, *, out):
    return _into(out, fft_c2r(self, dim, normalization, last_dim_size))


def fft_c2c_out(self, dim, normalization, forward, *, out):
    return _into(out, fft_c2c(self, dim, normalization, forward))
