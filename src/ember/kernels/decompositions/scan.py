"""CompositeImplicitAutograd kernels of the scans (torch's Integration.cpp cumulative_trapezoid): a cumsum of the
trapezoids' areas, built from other ember ops."""
from ..._core.strides import wrap_dim
from ..._ops import ops
from .reduction import _no_bool, _real_dx, sample_spacing

aten = ops.aten


def _areas(y, dim, dx):
    pair = aten.add.Tensor(aten.slice.Tensor(y, dim, 0, -1), aten.slice.Tensor(y, dim, 1))
    half = aten.div.Scalar(dx, 2.0) if hasattr(dx, "dim") else dx / 2.0
    scaled = aten.mul.Tensor(half, pair) if hasattr(half, "dim") else aten.mul.Scalar(pair, half)
    return aten.cumsum.default(scaled, dim)


def cumulative_trapezoid_x(y, x, *, dim=-1):
    dim = wrap_dim(dim, y.dim())
    _no_bool("cumulative_trapezoid", y, x)
    return _areas(y, dim, sample_spacing("cumulative_trapezoid", y, x, dim))


def cumulative_trapezoid_dx(y, *, dx=1, dim=-1):
    _no_bool("cumulative_trapezoid", y)
    return _areas(y, wrap_dim(dim, y.dim()), _real_dx("cumulative_trapezoid", dx))
