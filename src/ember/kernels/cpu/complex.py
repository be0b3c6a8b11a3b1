"""cpu conj_physical / conj_physical_: the complex conjugate (a copy, or nothing in place, for every other dtype,
as in torch)."""
import numpy as np

from .elementwise import _alloc


def conj_physical(self):
    out = _alloc(self._size, self.dtype, self)
    if self.dtype.is_complex:
        np.conjugate(self._np, out=out._np)
    else:
        np.copyto(out._np, self._np)
    return out


def conj_physical_(self):
    if self.dtype.is_complex:
        np.conjugate(self._np, out=self._np)
    return self


def _angle_np(self, rdt):
    a = self._np
    if self.dtype.is_complex:
        return np.angle(a)
    a = a.astype(rdt._np) if a.dtype != rdt._np else a
    with np.errstate(invalid="ignore"):
        return np.where(np.isnan(a), a, np.where(a < 0, np.pi, 0)).astype(rdt._np)


def angle(self):
    """The argument of a complex number; pi for negative reals, 0 otherwise (nan stays nan)."""
    from ..meta.complex import angle_dtype
    rdt = angle_dtype(self)
    out = _alloc(self._size, rdt, self)
    np.copyto(out._np, _angle_np(self, rdt), casting="unsafe")
    return out


def angle_out(self, *, out):
    from ..meta.complex import angle_out as meta
    meta(self, out=out)
    from ..meta.complex import angle_dtype
    np.copyto(out._np, _angle_np(self, angle_dtype(self)), casting="unsafe")
    return out


def complex(real, imag):
    """real + i imag, broadcast."""
    from ..meta.complex import complex_args
    shape, dt = complex_args(real, imag)
    out = _alloc(shape, dt, real, imag)
    o = out._np
    o.real[...] = real._np
    o.imag[...] = imag._np
    return out


def polar(abs, angle):
    """abs (cos angle + i sin angle), broadcast."""
    from ..meta.complex import complex_args
    shape, dt = complex_args(abs, angle)
    out = _alloc(shape, dt, abs, angle)
    o, r, t = out._np, abs._np, angle._np
    np.multiply(r, np.cos(t), out=o.real)
    np.multiply(r, np.sin(t), out=o.imag)
    return out
