"""cpu kernels of the multi-class margin losses (torch's LossMultiMargin.cpp and LossMultiLabelMargin.cpp)."""

from ..meta.loss_margin import multi_margin_spec
from ..meta.loss_margin import multilabel_margin_spec
import numpy as np
from .runtime.arrays import reduce
from .runtime.arrays import wrap


def _rows(t, nframe, dim):
    return t._np.reshape(nframe, dim)


def _mm_terms(self, target, p, margin, weight, nframe, dim):
    """(z, active, scale): z = margin - x_y + x_i, active = (z > 0) & (i != y), scale = w[y] / C per row."""
    x = _rows(self, nframe, dim)
    y = target._np.reshape(nframe)
    if y.size and (y.min() < 0 or y.max() >= dim):
        raise RuntimeError("target out of range")
    r = np.arange(nframe)
    z = x.dtype.type(margin) - x[r, y][:, None] + x
    active = z > 0
    active[r, y] = False
    scale = np.full(nframe, 1.0 / dim, x.dtype) if weight is None else weight._np.reshape(dim)[y] / x.dtype.type(dim)
    return x, y, z, active, scale


def multi_margin_loss(self, target, p=1, margin=1, weight=None, reduction=1):
    nframe, dim, shape = multi_margin_spec(self, target, p, margin, weight, reduction)
    x, y, z, active, scale = _mm_terms(self, target, p, margin, weight, nframe, dim)
    h = np.where(active, z if p == 1 else z * z, 0)
    loss = h.sum(axis=1) * scale
    return wrap(reduce(loss, reduction).reshape(shape), self.dtype)


def _grad_scale(grad_output, reduction, nframe, dtype):
    """d(reduced loss)/d(loss_n) as a column: grad_output per row ('none'), or its value (/ N for 'mean')."""
    g = grad_output._np.astype(dtype, copy=False)
    if reduction == 0 and g.ndim > 0:
        return g.reshape(nframe, 1)
    g = g.reshape(())
    return (g / dtype.type(max(nframe, 1)) if reduction == 1 else g) * np.ones((nframe, 1), dtype)


def multi_margin_loss_backward(grad_output, self, target, p, margin, weight=None, reduction=1):
    nframe, dim, _ = multi_margin_spec(self, target, p, margin, weight, reduction)
    x, y, z, active, scale = _mm_terms(self, target, p, margin, weight, nframe, dim)
    g = np.where(active, 1 if p == 1 else 2 * z, 0).astype(x.dtype) * scale[:, None]
    g[np.arange(nframe), y] = -g.sum(axis=1)
    g *= _grad_scale(grad_output, reduction, nframe, x.dtype)
    return wrap(g.reshape(self._size), self.dtype)


def _ml_terms(self, target, nframe, dim):
    """(x, yc, valid, z, active): yc the target rows (clipped), valid the entries before the first -1,
    z[n, j, i] = 1 - x[n, y_j] + x[n, i], active = z > 0 where y_j is valid and i is not a target."""
    x = _rows(self, nframe, dim)
    y = target._np.reshape(nframe, dim)
    if y.size and (y.min() < -1 or y.max() >= dim):
        raise RuntimeError("argument #2 'target' is out of range")
    valid = np.cumprod(y >= 0, axis=1).astype(bool)
    yc = np.where(valid, y, 0)
    is_target = np.zeros((nframe, dim), bool)
    rows = np.broadcast_to(np.arange(nframe)[:, None], y.shape)
    is_target[rows[valid], yc[valid]] = True
    z = 1 - np.take_along_axis(x, yc, axis=1)[:, :, None] + x[:, None, :]
    active = (z > 0) & valid[:, :, None] & ~is_target[:, None, :]
    return x, yc, is_target, z, active


def multilabel_margin_loss_forward(self, target, reduction):
    nframe, dim, shape = multilabel_margin_spec(self, target, reduction)
    x, _, is_target, z, active = _ml_terms(self, target, nframe, dim)
    loss = np.where(active, z, 0).sum(axis=(1, 2)) / x.dtype.type(dim)
    return (wrap(reduce(loss, reduction).reshape(shape), self.dtype),
            wrap(is_target.reshape(self._size), self.dtype))


def multilabel_margin_loss_backward(grad_output, self, target, reduction, is_target):
    nframe, dim, _ = multilabel_margin_spec(self, target, reduction)
    x, yc, _, z, active = _ml_terms(self, target, nframe, dim)
    a = active.astype(x.dtype) / x.dtype.type(dim)                 # (N, targets, classes)
    g = a.sum(axis=1)                                               # +1 for each non-target class i
    rows = np.broadcast_to(np.arange(nframe)[:, None], yc.shape)
    np.add.at(g, (rows, yc), -a.sum(axis=2))                        # -1 for the target class y_j
    g *= _grad_scale(grad_output, reduction, nframe, x.dtype)
    return wrap(g.reshape(self._size), self.dtype)


def _into(res, out):
    """Write a computed result into out= (validated and resized by the meta function first)."""
    out._np[...] = res._np
    return out


def multi_margin_loss_out(self, target, p=1, margin=1, weight=None, reduction=1, *, out):
    from ..meta.loss_margin import multi_margin_loss_out as check
    res = multi_margin_loss(self, target, p, margin, weight, reduction)
    return _into(res, check(self, target, p, margin, weight, reduction, out=out))


def multilabel_margin_loss_out(self, target, reduction=1, *, out):
    from ..meta.loss_margin import multilabel_margin_loss_out as check
    res = multilabel_margin_loss_forward(self, target, reduction)[0]
    return _into(res, check(self, target, reduction, out=out))
