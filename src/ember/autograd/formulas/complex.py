"""Backward helpers for complex inputs (torch's FunctionsManual.cpp): sgn's backward and abs's forward rule."""

from ..._generated import functions as at  # the ember.* bindings below the facade (torch's at:: functions)

__all__ = ["abs_jvp", "angle_backward", "angle_jvp", "polar_backward", "sgn_backward"]


def sgn_backward(self, grad, result):
    """sgn(z) = z / |z|. Real inputs: zero. Complex: (grad - sgn^2 * conj(grad)) / (2 |z|), and zero
    where z = 0."""
    if not self.dtype.is_complex:
        return grad.mul(0)
    a = self.abs()
    val = (grad - result * result * grad.conj()) / (2 * a)
    return at.where(a == 0, at.zeros((), dtype=val.dtype), val)


def abs_jvp(self, self_t):
    """Forward rule of abs: sgn(x) * t for real x; for complex z the real part of conj(t) * sgn(z)
    (|z| is not holomorphic: torch's handle_r_to_c(self_t.conj() * self.sgn()))."""
    if not self.dtype.is_complex:
        return self_t * self.sgn()
    return (self_t.conj() * self.sgn()).real


def angle_backward(grad, self):
    """angle(z) = atan2(imag, real): zero for real inputs; for complex z, i * grad * z / |z|^2 (zero at 0)."""
    if not self.dtype.is_complex:
        return grad.mul(0)
    val = grad * self / self.abs().pow(2) * 1j
    return at.where(self == 0, at.zeros((), dtype=val.dtype), val)


def angle_jvp(self, self_t):
    """torch's handle_r_to_c(angle_backward(self_t.conj(), self).conj()): the real part for a complex input."""
    r = angle_backward(self_t.conj(), self).conj()
    return r.real if r.dtype.is_complex else r


def polar_backward(grad, result):
    """(grad of abs, grad of angle) of result = abs e^(i angle): Re(conj(grad) sgn(result)) and
    Re(conj(grad) i result) (torch's polar_backward)."""
    g = grad.conj()
    return (g * result.sgn()).real, (g * (result * 1j)).real
