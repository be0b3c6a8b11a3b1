"""CompositeImplicitAutograd kernels of the distances (torch's Distance.cpp: cdist, pdist, dist,
pairwise_distance, cosine_similarity)."""

from ..._ops import ops
from ..common import _tname

aten = ops.aten


def pairwise_distance(x1, x2, p=2.0, eps=1e-06, keepdim=False):
    d = max(x1.dim(), x2.dim())
    diff = aten.add.Scalar(aten.sub.Tensor(x1, x2), eps)
    return aten.norm.ScalarOpt_dim(diff, p, [d - 1] if d else [0], keepdim)     # torch's at::norm (NormBackward1)


def cosine_similarity(x1, x2, dim=1, eps=1e-08):
    from ..common import broadcast_shapes
    shape = list(broadcast_shapes(x1._size, x2._size))
    x1, x2 = aten.expand.default(x1, shape), aten.expand.default(x2, shape)
    n1 = aten.clamp_min.default(aten.linalg_vector_norm.default(x1, 2, [dim], True), eps)
    n2 = aten.clamp_min.default(aten.linalg_vector_norm.default(x2, 2, [dim], True), eps)
    return aten.sum.dim_IntList(aten.mul.Tensor(aten.div.Tensor(x1, n1), aten.div.Tensor(x2, n2)), [dim])


def cdist(x1, x2, p=2.0, compute_mode=None):
    if x1.dim() < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X1 got: {x1.dim()}D")
    if x2.dim() < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X2 got: {x2.dim()}D")
    if x1._size[-1] != x2._size[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {x1._size[-1]} X2: {x2._size[-1]}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    return aten._cdist_forward.default(x1, x2, p, compute_mode)


def pdist(self, p=2.0):
    """The p-norm distance of every pair of rows i < j, in row-major pair order (torch's pdist)."""
    if self.dim() != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {self.dim()}D")
    if not self.dtype.is_floating_point:
        raise RuntimeError("pdist only supports floating-point dtypes")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    n = self._size[0]
    pairs = aten.triu_indices.default(n, n, 1, device=self.device)
    diff = aten.sub.Tensor(aten.index_select.default(self, 0, aten.select.int(pairs, 0, 0)),
                           aten.index_select.default(self, 0, aten.select.int(pairs, 0, 1)))
    return aten.linalg_vector_norm.default(diff, p, [1])


def dist(self, other, p=2):
    """The p-norm of self - other (broadcast), as one 0-dim tensor."""
    d = aten.sub.Tensor(self, other)
    if not (d.dtype.is_floating_point or d.dtype.is_complex):
        raise RuntimeError(f"norm(): input dtype should be either floating point or complex. Got {_tname(d.dtype)} "
                           "instead.")
    return aten.linalg_vector_norm.default(d, p)
