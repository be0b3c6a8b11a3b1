"""Helpers for native/derivatives_scatter.yaml: the gradients of scatter_reduce.two and index_reduce
(sum, mean, prod, amax, amin; include_self True/False).

Both are written in ember ops over grad, the inputs and the saved result, so the backward is itself
differentiable (double backward). index_reduce is scatter_reduce with its 1-d index spread over source's
shape, so one helper serves both.

Per output position p, the reduction combines self[p] (when include_self, or when nothing is scattered to p)
with every src element whose index points at p:
- sum: each contribution gets grad[p];
- mean: each gets grad[p] / count[p];
- prod: each gets grad[p] times the product of the other contributions (out / x when x != 0; when x is the
  group's only zero, the product of the group's nonzero values; with two zeros or more, 0);
- amax / amin: the contributions equal to out[p] share grad[p] equally, the others get 0 (torch's convention:
  without include_self, a self equal to out[p] still takes a share, which is then dropped).
Without include_self, a position that something was scattered to does not read self: self's grad is 0 there."""


def _e():
    import ember
    return ember


def _fit(g, shape):
    """Pad an index-shaped src grad with zeros up to src's shape (src elements past index's extent are unused)."""
    if tuple(g.shape) == tuple(shape):
        return g
    pad = []
    for have, want in reversed(list(zip(g.shape, shape))):
        pad += [0, int(want) - int(have)]
    return _e().constant_pad_nd(g, pad, 0.0)


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
    E = _e()
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
        ones = E.ones_like(src_used)
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
    raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")


def _safe(x):
    return x.masked_fill(x == 0, 1.0)


def _prod_backward(grad, self, dim, index, src, include_self, result, hit):
    """Product of the other contributions, correct with zeros (see the module docstring)."""
    E = _e()
    self_zero = self == 0
    src_zero = src == 0
    base = self_zero.to(grad.dtype) if include_self else self.new_zeros(self.shape)
    zeros = base.scatter_add(dim, index, src_zero.to(grad.dtype))
    # the product of the nonzero contributions of each position
    nonzero = E.scatter_reduce(self.masked_fill(self_zero, 1.0), dim, index, src.masked_fill(src_zero, 1.0),
                               "prod", include_self=include_self)
    only_zero = nonzero.masked_fill(zeros != 1, 0.0)
    # self's own position: nothing scattered there (no include_self needed) or include_self
    self_others = E.where(self_zero, only_zero, result / _safe(self))
    self_others = E.where(hit.logical_not() & self_zero, E.ones_like(self), self_others)
    src_others = E.where(src_zero, only_zero.gather(dim, index), result.gather(dim, index) / _safe(src))
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
