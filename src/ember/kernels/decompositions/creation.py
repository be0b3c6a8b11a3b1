"""Composite factories: logspace with 0-d tensor start/end (torch's RangeFactories.cpp composites, which read
their values and call the Scalar overload), and the window functions (torch's TensorFactories.cpp
hann/hamming/blackman/bartlett/kaiser_window, built from arange and pointwise ops in the result dtype)."""
import math

from ..._core import dtype as D
from ..._core.promotion import get_default_dtype
from ..._ops import ops
from ..common import c_type_name, resize_internal
from ..._core.memory_format import format_name

aten = ops.aten


def _value(t, what):
    if getattr(t, "dim", None) is None:
        return t
    if t.dim() != 0:
        raise RuntimeError(f"logspace only supports 0-dimensional start and end tensors, but got {what} with "
                           f"{t.dim()} dimension(s).")
    return t.item()


def logspace(start, end, steps, base=10.0, *, dtype=None, layout=None, device=None, pin_memory=None):
    return aten.logspace.default(_value(start, "start"), _value(end, "end"), steps, base, dtype=dtype, layout=layout,
                                 device=device, pin_memory=pin_memory)


def logspace_out(start, end, steps, base=10.0, *, out):
    """Computed in out's dtype; a wrongly sized `out` is resized without a warning (torch's logspace_out)."""
    r = aten.logspace.default(_value(start, "start"), _value(end, "end"), steps, base, dtype=out.dtype,
                              device=out.device)
    if tuple(out._size) != tuple(r._size):
        resize_internal(out, r._size)
    return out.copy_(r)


# ---------------------------------------------------------------- window functions
# c10's names of the layouts (TensorOptions printing)
_C10_LAYOUT = {"strided": "Strided", "sparse_coo": "Sparse", "sparse_csr": "SparseCsr", "sparse_csc": "SparseCsc",
               "sparse_bsr": "SparseBsr", "sparse_bsc": "SparseBsc", "_mkldnn": "Mkldnn", "jagged": "Jagged"}


def _options(dtype, layout):
    dt = "float (default)" if dtype is None else c_type_name(dtype)
    lay = "Strided (default)" if layout is None else _C10_LAYOUT.get(format_name(layout), str(layout))
    return (f"TensorOptions(dtype={dt}, device=cpu, layout={lay}, requires_grad=false (default), "
            f"pinned_memory=false, memory_format=(nullopt))")


def _window_checks(name, window_length, dtype, layout):
    if layout is not None and format_name(layout) != "strided":
        raise RuntimeError(f"{name} is not implemented for sparse types, got: {_options(dtype, layout)}")
    if dtype is not None and not (dtype.is_floating_point or dtype.is_complex):
        raise RuntimeError(f"{name} expects floating point dtypes, got: {_options(dtype, layout)}")
    if window_length < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got window_length={window_length}")


def _trivial(window_length, kw):
    """The empty and one-point windows (every window function returns these before its formula)."""
    if window_length == 0:
        return aten.empty.memory_format([0], **kw)
    if window_length == 1:
        return aten.ones.default([1], **kw)
    return None


def _kw(dtype, layout, device, pin_memory):
    return dict(dtype=get_default_dtype() if dtype is None else dtype, layout=layout, device=device,
                pin_memory=pin_memory)


def hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype=None, layout=None, device=None,
                   pin_memory=None, _name="hamming_window"):
    _window_checks(_name, window_length, dtype, layout)
    kw = _kw(dtype, layout, device, pin_memory)
    t = _trivial(window_length, kw)
    if t is not None:
        return t
    n = window_length + 1 if periodic else window_length
    w = aten.mul.Scalar(aten.arange.default(n, **kw), 2 * math.pi / (n - 1))
    w = aten.add.Scalar(aten.mul.Scalar(aten.cos.default(w), -beta), alpha)
    return aten.narrow.default(w, 0, 0, n - 1) if periodic else w


def hann_window(window_length, periodic=True, *, dtype=None, layout=None, device=None, pin_memory=None):
    _window_checks("hann_window", window_length, dtype, layout)
    return hamming_window(window_length, periodic, 0.5, 0.5, dtype=dtype, layout=layout, device=device,
                          pin_memory=pin_memory, _name="hann_window")


def blackman_window(window_length, periodic=True, *, dtype=None, layout=None, device=None, pin_memory=None):
    _window_checks("blackman_window", window_length, dtype, layout)
    kw = _kw(dtype, layout, device, pin_memory)
    t = _trivial(window_length, kw)
    if t is not None:
        return t
    n = window_length + 1 if periodic else window_length
    w = aten.mul.Scalar(aten.arange.default(n, **kw), math.pi / (n - 1))
    w = aten.add.Scalar(aten.sub.Tensor(aten.mul.Scalar(aten.cos.default(aten.mul.Scalar(w, 4)), 0.08),
                                        aten.mul.Scalar(aten.cos.default(aten.mul.Scalar(w, 2)), 0.5)), 0.42)
    return aten.narrow.default(w, 0, 0, n - 1) if periodic else w


def bartlett_window(window_length, periodic=True, *, dtype=None, layout=None, device=None, pin_memory=None):
    _window_checks("bartlett_window", window_length, dtype, layout)
    kw = _kw(dtype, layout, device, pin_memory)
    t = _trivial(window_length, kw)
    if t is not None:
        return t
    n = window_length + 1 if periodic else window_length
    w = aten.mul.Scalar(aten.arange.default(n, **kw), 2.0 / (n - 1))
    half = ((n - 1) >> 1) + 1
    w = aten.cat.default([aten.narrow.default(w, 0, 0, half),
                          aten.add.Scalar(aten.neg.default(aten.narrow.default(w, 0, half, n - half)), 2)])
    return aten.narrow.default(w, 0, 0, n - 1) if periodic else w


def kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=None, layout=None, device=None, pin_memory=None):
    _window_checks("kaiser_window", window_length, dtype, layout)
    kw = _kw(dtype, layout, device, pin_memory)
    t = _trivial(window_length, kw)
    if t is not None:
        return t
    n = window_length + 1 if periodic else window_length
    alpha = (n - 1) / 2.0
    r = aten.div.Scalar(aten.sub.Scalar(aten.arange.default(n, **kw), alpha), alpha)      # (k - alpha) / alpha
    arg = aten.mul.Scalar(aten.sqrt.default(aten.rsub.Scalar(aten.mul.Tensor(r, r), 1)), beta)
    w = aten.div.Tensor(aten.i0.default(arg), aten.i0.default(aten.full.default([], beta, dtype=kw["dtype"])))
    return aten.narrow.default(w, 0, 0, n - 1) if periodic else w
