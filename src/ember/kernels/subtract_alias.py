"""torch.subtract: an alias of sub (CompositeImplicitAutograd decompositions, so autograd is sub's)."""


def _aten():
    from .._ops import ops
    return ops.aten


def subtract(self, other, alpha=1):
    return _aten().sub.Tensor(self, other, alpha=alpha)


def subtract_(self, other, alpha=1):
    return _aten().sub_.Tensor(self, other, alpha=alpha)


def subtract_out(self, other, alpha=1, out=None):
    return _aten().sub.out(self, other, alpha=alpha, out=out)
