"""Meta functions of torch's spectral ops (`_fft_r2c`, `_fft_c2r`, `_fft_c2c`): result shapes and dtypes,
and the input checks of aten/src/ATen/native/SpectralOps.cpp. The cpu kernels in kernels/cpu/fft.py
allocate from these."""
from ..._core import dtype as D
from ..._core.strides import wrap_dim
from ..common import alloc

_COMPLEX_OF = {"float32": D.complex64, "float64": D.complex128}
_REAL_OF = {"complex64": D.float32, "complex128": D.float64}


def fft_dims(self, dim):
    """The transformed dims, wrapped; torch requires them unique."""
    dims = [wrap_dim(d, self.dim()) for d in dim]
    if len(set(dims)) != len(dims):
        raise RuntimeError("FFT dims must be unique")
    return dims


def r2c_shape(self, dim, onesided):
    dims = fft_dims(self, dim)
    if not (self.dtype.is_floating_point and self.dtype.name in _COMPLEX_OF):
        raise RuntimeError(f"_fft_r2c expects a real floating point input, but got {self.dtype}")
    size = list(self._size)
    if onesided and dims:
        size[dims[-1]] = size[dims[-1]] // 2 + 1
    return size, _COMPLEX_OF[self.dtype.name], dims


def c2r_shape(self, dim, last_dim_size):
    dims = fft_dims(self, dim)
    if not self.dtype.is_complex:
        raise RuntimeError(f"_fft_c2r expects a complex input, but got {self.dtype}")
    if last_dim_size < 1:
        raise RuntimeError(f"Invalid number of data points ({last_dim_size}) specified")
    size = list(self._size)
    if dims:
        size[dims[-1]] = int(last_dim_size)
    return size, _REAL_OF[self.dtype.name], dims


def c2c_shape(self, dim):
    dims = fft_dims(self, dim)
    if not self.dtype.is_complex:
        raise RuntimeError(f"_fft_c2c expects a complex input, but got {self.dtype}")
    return list(self._size), self.dtype, dims


def fft_r2c(self, dim, normalization, onesided):
    size, dt, _ = r2c_shape(self, dim, onesided)
    return alloc(size, dt, self.device)


def fft_c2r(self, dim, normalization, last_dim_size):
    size, dt, _ = c2r_shape(self, dim, last_dim_size)
    return alloc(size, dt, self.device)


def fft_c2c(self, dim, normalization, forward):
    size, dt, _ = c2c_shape(self, dim)
    return alloc(size, dt, self.device)


def fft_out(self, *args, out):
    return out
