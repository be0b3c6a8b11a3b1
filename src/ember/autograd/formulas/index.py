"""Backward helpers of the indexing ops (torch's FunctionsManual.cpp): index/index_put, gather, the reducing
scatters (scatter_reduce.two, index_reduce) and index_fill's value."""

from ..._generated import functions as at  # the ember.* bindings below the facade (torch's at:: functions)
from ._common import const_zeros_like, sum_to, _aten, _zeros, index_of, _eval, _f64, _i64

__all__ = ["gather_backward", "index_backward", "index_fill_value_backward", "index_put_backward_self",
           "index_put_backward_values", "index_reduce_backward_", "scatter_reduce_backward_"]


def index_backward(grad, sizes, indices):
    """index.Tensor backward: zeros.index_put(indices, grad, accumulate=True)."""
    return _aten().index_put.default(_zeros(sizes, grad.dtype), indices, grad, True)


def index_put_backward_self(grad, indices, values, accumulate):
    if accumulate:
        return grad
    return _aten().index_put.default(grad, indices, const_zeros_like(values), False)


def index_put_backward_values(grad, indices, sizes):
    return sum_to(index_of(grad, indices), sizes)


def gather_backward(grad, self, fn):
    """Backward of an op that only copies input elements (reflection/replication/circular pad,
    nearest upsampling): run it on the element numbers to learn where each output came from, then
    add the gradient back there. Written in ops, so tracing modes and fake tensors record it."""
    pos = _eval(fn, at.arange(self.numel(), dtype=_f64(), device=self.device).reshape(self._size))
    src = pos.reshape(-1).to(_i64())
    return const_zeros_like(self).reshape(-1).index_put((src,), grad.reshape(-1), True).reshape(self._size)


def _fit(g, shape):
    """Pad an index-shaped src grad with zeros up to src's shape (src elements past index's extent are unused)."""
    if tuple(g.shape) == tuple(shape):
        return g
    pad = []
    for have, want in reversed(list(zip(g.shape, shape))):
        pad += [0, int(want) - int(have)]
    return at.constant_pad_nd(g, pad, 0.0)


def _hit(self, dim, index):
    """Bool mask of the positions of self that some index entry points at."""
    return self.new_zeros(self.shape).scatter(dim, index, 1.0) != 0


def _pair(gs, gsrc, want_self, want_src):
    return (gs if want_self else None, gsrc if want_src else None)


def scatter_reduce_backward_(grad, self, dim, index, src, reduce, include_self, result, mask=(True, True)):
    """(grad of self, grad of src) of scatter_reduce(self, dim, index, src, reduce, include_self=...)."""
    if self.dim() == 0:
        gs, gsrc = scatter_reduce_backward_(grad.reshape(1), self.reshape(1), 0, index.reshape(1), src.reshape(1),
                                            reduce, include_self, result.reshape(1), mask)
        return (gs.reshape(()) if gs is not None else None, gsrc.reshape(src.shape) if gsrc is not None else None)
    src_used = src
    if tuple(src.shape) != tuple(index.shape):
        src_used = src[tuple(slice(0, int(n)) for n in index.shape)]
    hit = _hit(self, dim, index)
    # the weight of self in its own position: 1 where self takes part, 0 where it is left out
    self_in = hit.logical_not() if not include_self else None

    def self_grad(g):
        return g if self_in is None else g.masked_fill(hit, 0.0)

    if reduce == "sum":
        return _pair(self_grad(grad), _fit(grad.gather(dim, index), src.shape), *mask)
    if reduce == "mean":
        ones = at.ones_like(src_used)
        base = self.new_ones(self.shape) if include_self else self.new_zeros(self.shape)
        count = base.scatter_add(dim, index, ones)
        count = count.masked_fill(count == 0, 1.0)
        g = grad / count
        return _pair(self_grad(g), _fit(g.gather(dim, index), src.shape), *mask)
    if reduce == "prod":
        gs, gsrc = _prod_backward(grad, self, dim, index, src_used, include_self, result, hit)
        return _pair(self_grad(gs), _fit(gsrc, src.shape), *mask)
    if reduce in ("amax", "amin"):
        # like torch, an excluded self that ties with the extremum still counts in the share (it gets 0)
        self_is = self == result
        src_is = src_used == result.gather(dim, index)
        count = self_is.to(grad.dtype).scatter_add(dim, index, src_is.to(grad.dtype))
        g = grad / count.masked_fill(count == 0, 1.0)
        gs = self_grad(g.masked_fill(self_is.logical_not(), 0.0))
        gsrc = g.gather(dim, index).masked_fill(src_is.logical_not(), 0.0)
        return _pair(gs, _fit(gsrc, src.shape), *mask)
    # the forward's "max"/"min" aliases have no backward, as in torch
    raise RuntimeError(f"Expected 'reduce' to be one of 'sum', 'prod', 'mean', 'amax', 'amin' but got {reduce}.")


def _safe(x):
    return x.masked_fill(x == 0, 1.0)


def _prod_backward(grad, self, dim, index, src, include_self, result, hit):
    """Product of the other contributions, correct with zeros (see the module docstring)."""
    self_zero = self == 0
    src_zero = src == 0
    base = self_zero.to(grad.dtype) if include_self else self.new_zeros(self.shape)
    zeros = base.scatter_add(dim, index, src_zero.to(grad.dtype))
    # the product of the nonzero contributions of each position
    nonzero = at.scatter_reduce(self.masked_fill(self_zero, 1.0), dim, index, src.masked_fill(src_zero, 1.0),
                               "prod", include_self=include_self)
    only_zero = nonzero.masked_fill(zeros != 1, 0.0)
    # self's own position: nothing scattered there (no include_self needed) or include_self
    self_others = at.where(self_zero, only_zero, result / _safe(self))
    self_others = at.where(hit.logical_not() & self_zero, at.ones_like(self), self_others)
    src_others = at.where(src_zero, only_zero.gather(dim, index), result.gather(dim, index) / _safe(src))
    return grad * self_others, grad.gather(dim, index) * src_others


def _spread(index, dim, source):
    """index_reduce's 1-d index as a scatter index shaped like source."""
    n = source.dim()
    shape = [1] * n
    shape[dim] = -1
    return index.reshape(shape).expand(source.shape).contiguous()


def index_reduce_backward_(grad, self, dim, index, source, reduce, include_self, result, mask=(True, True)):
    """(grad of self, grad of source) of index_reduce: scatter_reduce along dim with index spread over source."""
    if self.dim() == 0:
        gs, gsrc = scatter_reduce_backward_(grad.reshape(1), self.reshape(1), 0, index.reshape(-1),
                                            source.reshape(1), reduce, include_self, result.reshape(1), mask)
        return (gs.reshape(()) if gs is not None else None, gsrc.reshape(source.shape) if gsrc is not None else None)
    d = dim % self.dim()
    return scatter_reduce_backward_(grad, self, d, _spread(index, d, source), source, reduce, include_self,
                                    result, mask)


def index_fill_value_backward(grad, dim, index):
    """The 0-dim value lands once on every filled position (an index listed twice fills it once)."""
    return (grad - grad.index_fill(dim, index, 0)).sum()
