"""CompositeImplicitAutograd kernels of the reductions (torch's ReduceOps.cpp composites): the `unbiased`
overloads of var/std/var_mean/std_mean call their `.correction` overload, as torch's do, so every one of them
records the same Node (VarBackward0, StdMeanBackward0, ...)."""
from ..._ops import ops

aten = ops.aten


def _c(unbiased):
    return 1 if unbiased else 0


def var(self, unbiased=True):
    return aten.var.correction(self, None, correction=_c(unbiased))


def var_dim(self, dim, unbiased=True, keepdim=False):
    return aten.var.correction(self, dim, correction=_c(unbiased), keepdim=keepdim)


def std(self, unbiased=True):
    return aten.std.correction(self, None, correction=_c(unbiased))


def std_dim(self, dim, unbiased=True, keepdim=False):
    return aten.std.correction(self, dim, correction=_c(unbiased), keepdim=keepdim)


def var_mean(self, unbiased=True):
    return aten.var_mean.correction(self, None, correction=_c(unbiased))


def var_mean_dim(self, dim, unbiased=True, keepdim=False):
    return aten.var_mean.correction(self, dim, correction=_c(unbiased), keepdim=keepdim)


def std_mean(self, unbiased=True):
    return aten.std_mean.correction(self, None, correction=_c(unbiased))


def std_mean_dim(self, dim, unbiased=True, keepdim=False):
    return aten.std_mean.correction(self, dim, correction=_c(unbiased), keepdim=keepdim)
