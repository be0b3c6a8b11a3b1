"""CompositeImplicitAutograd kernels of pooling (torch's Pooling.cpp, AdaptiveAveragePooling*.cpp composites)."""

from ..._ops import ops

aten = ops.aten


def max_pool2d(self, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    return aten.max_pool2d_with_indices.default(self, kernel_size, stride, padding, dilation, ceil_mode)[0]


def max_pool1d(self, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    return aten.max_pool1d_with_indices.default(self, kernel_size, stride, padding, dilation, ceil_mode)[0]


def _one(v, name, arg):
    v = (v,) if isinstance(v, int) else tuple(v)
    if len(v) != 1:
        raise RuntimeError(f"{name}() argument '{arg}' should contain one int (got {len(v)})")
    return [1, int(v[0])]


def _check_1d(self, name):
    if self.dim() not in (2, 3):
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {self.dim()}-dimensional tensor for argument #1 "
                           f"'self' (while checking arguments for {name})")


def max_pool1d_with_indices(self, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """torch's composite, run when autograd records: the 2-d pool over a height-1 plane, both results squeezed
    (SqueezeBackward1, as torch's). The op's CPU kernel pools calls without grad directly."""
    from ..meta.pool import pool_spec
    pool_spec(self, 1, kernel_size, stride, padding, dilation, ceil_mode, "max_pool1d")   # torch's 1-d checks
    k = _one(kernel_size, "max_pool1d", "kernel_size")
    s = k if stride is None or (not isinstance(stride, int) and len(stride) == 0) else \
        _one(stride, "max_pool1d", "stride")
    p = [0, _one(padding, "max_pool1d", "padding")[1]]
    d = _one(dilation, "max_pool1d", "dilation")
    out, idx = aten.max_pool2d_with_indices.default(aten.unsqueeze.default(self, -2), k, s, p, d, ceil_mode)
    return aten.squeeze.dim(out, -2), aten.squeeze.dim(idx, -2)


def avg_pool1d(self, kernel_size, stride=(), padding=0, ceil_mode=False, count_include_pad=True):
    _check_1d(self, "avg_pool1d")
    k = _one(kernel_size, "avg_pool1d", "kernel_size")
    s = k if stride is None or (not isinstance(stride, int) and len(stride) == 0) else \
        _one(stride, "avg_pool1d", "stride")
    p = [0, _one(padding, "avg_pool1d", "padding")[1]]
    out = aten.avg_pool2d.default(aten.unsqueeze.default(self, -2), k, s, p, ceil_mode, count_include_pad, None)
    return aten.squeeze.dim(out, -2)


def adaptive_avg_pool2d(self, output_size):
    return aten._adaptive_avg_pool2d.default(self, output_size)


def adaptive_avg_pool1d(self, output_size):
    _check_1d(self, "adaptive_avg_pool1d")
    o = _one(output_size, "adaptive_avg_pool1d", "output_size")
    return aten.squeeze.dim(aten._adaptive_avg_pool2d.default(aten.unsqueeze.default(self, -2), o), -2)


def adaptive_max_pool1d(self, output_size):
    _check_1d(self, "adaptive_max_pool1d")
    o = _one(output_size, "adaptive_max_pool1d", "output_size")
    v, i = aten.adaptive_max_pool2d.default(aten.unsqueeze.default(self, -2), o)
    return aten.squeeze.dim(v, -2), aten.squeeze.dim(i, -2)


def max_pool3d(self, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    return aten.max_pool3d_with_indices.default(self, kernel_size, stride, padding, dilation, ceil_mode)[0]


def adaptive_avg_pool3d(self, output_size):
    return aten._adaptive_avg_pool3d.default(self, output_size)
