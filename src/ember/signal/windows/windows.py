"""torch.signal.windows.windows: windows of M points as scipy.signal.windows computes them, each a linspace of
the window's phase through an elementwise function (so requires_grad=True gives a graph, as in torch).

sym=True gives the symmetric window (filter design); sym=False the periodic one (spectral analysis): the
window of M + 1 points without its last one. Every function takes the factory keywords dtype (float32 or
float64, default: the default dtype), layout (strided only), device and requires_grad."""
import math
from collections.abc import Iterable

import ember

__all__ = ["bartlett", "blackman", "cosine", "exponential", "gaussian", "general_cosine", "general_hamming",
           "hamming", "hann", "kaiser", "nuttall"]


def _checks(name, M, dtype, layout):
    """torch's _window_function_checks: a non-negative length, a strided float32/float64 result."""
    if M < 0:
        raise ValueError(f"{name} requires non-negative window length, got M={M}")
    if layout != ember.strided:
        raise ValueError(f"{name} is implemented for strided tensors only, got: {layout}")
    if dtype not in (ember.float32, ember.float64):
        raise ValueError(f"{name} expects float32 or float64 dtypes, got: {dtype}")


def _trivial(M, dtype, layout, device, requires_grad):
    """The window of 0 points (empty) and, where the formula divides by M - 1, of 1 point (ones)."""
    make = ember.empty if M == 0 else ember.ones
    return make((M,), dtype=dtype, layout=layout, device=device, requires_grad=requires_grad)


def _phase(start, step, M, dtype, layout, device, requires_grad):
    """start, start + step, ..., start + (M - 1) step, as torch's linspace gives them."""
    return ember.linspace(start, start + (M - 1) * step, M, dtype=dtype, layout=layout, device=device,
                          requires_grad=requires_grad)


def _span(M, sym):
    """The denominator of the window's phase: M - 1 points apart for a symmetric window, M for a periodic."""
    return M if not sym and M > 1 else M - 1


def exponential(M, *, center=None, tau=1.0, sym=True, dtype=None, layout=ember.strided, device=None,
                requires_grad=False):
    """exp(-|n - center| / tau); center defaults to the window's middle."""
    dtype = dtype or ember.get_default_dtype()
    _checks("exponential", M, dtype, layout)
    if tau <= 0:
        raise ValueError(f"Tau must be positive, got: {tau} instead.")
    if sym and center is not None:
        raise ValueError("Center must be None for symmetric windows")
    if M == 0:
        return _trivial(M, dtype, layout, device, requires_grad)
    center = _span(M, sym) / 2.0 if center is None else center
    k = _phase(-center / tau, 1 / tau, M, dtype, layout, device, requires_grad)
    return ember.exp(-ember.abs(k))


def cosine(M, *, sym=True, dtype=None, layout=ember.strided, device=None, requires_grad=False):
    """sin(pi (n + 1/2) / M): the cosine (sine) window."""
    dtype = dtype or ember.get_default_dtype()
    _checks("cosine", M, dtype, layout)
    if M == 0:
        return _trivial(M, dtype, layout, device, requires_grad)
    step = math.pi / (M + 1 if not sym and M > 1 else M)
    return ember.sin(_phase(0.5 * step, step, M, dtype, layout, device, requires_grad))


def gaussian(M, *, std=1.0, sym=True, dtype=None, layout=ember.strided, device=None, requires_grad=False):
    """exp(-(n - middle)^2 / (2 std^2))."""
    dtype = dtype or ember.get_default_dtype()
    _checks("gaussian", M, dtype, layout)
    if std <= 0:
        raise ValueError(f"Standard deviation must be positive, got: {std} instead.")
    if M == 0:
        return _trivial(M, dtype, layout, device, requires_grad)
    scale = 1 / (std * math.sqrt(2))
    k = _phase(-_span(M, sym) / 2.0 * scale, scale, M, dtype, layout, device, requires_grad)
    return ember.exp(-(k ** 2))


def kaiser(M, *, beta=12.0, sym=True, dtype=None, layout=ember.strided, device=None, requires_grad=False):
    """I0(beta sqrt(1 - (2n / (M - 1) - 1)^2)) / I0(beta): the Kaiser window of shape parameter beta."""
    dtype = dtype or ember.get_default_dtype()
    _checks("kaiser", M, dtype, layout)
    if beta < 0:
        raise ValueError(f"beta must be non-negative, got: {beta} instead.")
    if M <= 1:
        return _trivial(M, dtype, layout, device, requires_grad)
    b = ember.tensor(beta, dtype=dtype, device=device)       # in the window's dtype (no nan at the ends)
    step = 2.0 * b / (M if not sym else M - 1)
    end = ember.minimum(b, -b + (M - 1) * step)
    k = ember.linspace(-b, end, M, dtype=dtype, layout=layout, device=device, requires_grad=requires_grad)
    return ember.i0(ember.sqrt(b * b - ember.pow(k, 2))) / ember.i0(b)


def general_cosine(M, *, a, sym=True, dtype=None, layout=ember.strided, device=None, requires_grad=False):
    """sum_i (-1)^i a[i] cos(2 pi i n / (M - 1)): the generalised cosine window of coefficients a."""
    dtype = dtype or ember.get_default_dtype()
    _checks("general_cosine", M, dtype, layout)
    if M <= 1:
        return _trivial(M, dtype, layout, device, requires_grad)
    if not isinstance(a, Iterable):
        raise TypeError("Coefficients must be a list/tuple")
    if not a:
        raise ValueError("Coefficients cannot be empty")
    k = _phase(0, 2 * math.pi / (M if not sym else M - 1), M, dtype, layout, device, requires_grad)
    coef = ember.tensor([(-1) ** i * w for i, w in enumerate(a)], dtype=dtype, device=device,
                        requires_grad=requires_grad)
    i = ember.arange(coef.shape[0], dtype=dtype, device=device, requires_grad=requires_grad)
    return (coef.unsqueeze(-1) * ember.cos(i.unsqueeze(-1) * k)).sum(0)


def general_hamming(M, *, alpha=0.54, sym=True, dtype=None, layout=ember.strided, device=None, requires_grad=False):
    """alpha - (1 - alpha) cos(2 pi n / (M - 1)): the generalised Hamming window."""
    return general_cosine(M, a=[alpha, 1.0 - alpha], sym=sym, dtype=dtype, layout=layout, device=device,
                          requires_grad=requires_grad)


def hamming(M, *, sym=True, dtype=None, layout=ember.strided, device=None, requires_grad=False):
    """The Hamming window: general_hamming with alpha = 0.54."""
    return general_hamming(M, sym=sym, dtype=dtype, layout=layout, device=device, requires_grad=requires_grad)


def hann(M, *, sym=True, dtype=None, layout=ember.strided, device=None, requires_grad=False):
    """The Hann window: general_hamming with alpha = 0.5."""
    return general_hamming(M, alpha=0.5, sym=sym, dtype=dtype, layout=layout, device=device,
                           requires_grad=requires_grad)


def blackman(M, *, sym=True, dtype=None, layout=ember.strided, device=None, requires_grad=False):
    """The Blackman window: general_cosine with a = (0.42, 0.5, 0.08)."""
    dtype = dtype or ember.get_default_dtype()
    _checks("blackman", M, dtype, layout)
    return general_cosine(M, a=[0.42, 0.5, 0.08], sym=sym, dtype=dtype, layout=layout, device=device,
                          requires_grad=requires_grad)


def bartlett(M, *, sym=True, dtype=None, layout=ember.strided, device=None, requires_grad=False):
    """1 - |2n / (M - 1) - 1|: the triangular window with zero ends."""
    dtype = dtype or ember.get_default_dtype()
    _checks("bartlett", M, dtype, layout)
    if M <= 1:
        return _trivial(M, dtype, layout, device, requires_grad)
    return 1 - ember.abs(_phase(-1, 2 / (M if not sym else M - 1), M, dtype, layout, device, requires_grad))


def nuttall(M, *, sym=True, dtype=None, layout=ember.strided, device=None, requires_grad=False):
    """The minimum 4-term Blackman-Harris window of Nuttall (general_cosine with its four coefficients)."""
    return general_cosine(M, a=[0.3635819, 0.4891775, 0.1365995, 0.0106411], sym=sym, dtype=dtype, layout=layout,
                          device=device, requires_grad=requires_grad)
