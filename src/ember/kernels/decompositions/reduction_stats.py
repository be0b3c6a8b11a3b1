"""CompositeImplicitAutograd kernels of torch's statistics composites (ReduceOps.cpp: diff, nanmean;
Sorting.cpp: quantile, nanquantile; Correlation.cpp: cov, corrcoef), written in aten ops so that autograd,
meta tensors and tracing see the ops they are made of. torch's argument checks and messages."""
import numbers
from ..common import warn_user

from ..._core import dtype as D
from ..._core.promotion import get_default_dtype
from ..._core.strides import wrap_dim
from ..._ops import ops

aten = ops.aten


def _tn(dt):
    return {"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16", "int64": "Long",
            "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool",
            "complex64": "ComplexFloat", "complex128": "ComplexDouble"}.get(dt.name, dt.name)


# ------------------------------------------------------------------ diff
def diff(self, n=1, dim=-1, prepend=None, append=None):
    if self.dim() == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    d = wrap_dim(dim, self.dim())
    parts = [t for t in (prepend, self, append) if t is not None]
    x = aten.cat.default(parts, d) if len(parts) > 1 else self
    for _ in range(n):
        length = x.shape[d]
        if length == 0:
            break
        hi = aten.narrow.default(x, d, 1, length - 1)
        lo = aten.narrow.default(x, d, 0, length - 1)
        x = aten.logical_xor.default(hi, lo) if x.dtype is D.bool_ else aten.sub.Tensor(hi, lo)
    return x


# ------------------------------------------------------------------ nansum / nanmean
def nanmean(self, dim=None, keepdim=False, *, dtype=None):
    if not (self.dtype.is_floating_point or self.dtype.is_complex):
        raise RuntimeError("nanmean(): expected input to have floating point or complex dtype but got "
                           f"{_tn(self.dtype)}")
    count = aten.sum.dim_IntList(aten.logical_not.default(aten.isnan.default(self)), dim, keepdim)
    return aten.div.Tensor(aten.nansum.default(self, dim, keepdim, dtype=dtype), count)


# ------------------------------------------------------------------ quantile / nanquantile
_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile(self, q, dim, keepdim, interpolation, ignore_nan):
    """torch's quantile_compute (Sorting.cpp), op for op: sort, view to (*out_shape, n), ranks, gather,
    lerp_ in place, and the in-place squeeze_/unsqueeze_/transpose_ that put q's dim first (the nodes torch
    records: SqueezeBackward4 on top)."""
    scalar_q = isinstance(q, numbers.Number) or q.dim() == 0
    if self.numel() == 0:
        raise RuntimeError("quantile() input tensor must be non-empty")
    if not isinstance(q, numbers.Number) and q.dim() > 1:
        raise RuntimeError("quantile() q must be a scalar or 1D tensor")
    if self.dtype not in (D.float32, D.float64):
        raise RuntimeError("quantile() input tensor must be either float or double dtype")
    if not isinstance(q, numbers.Number) and q.dtype is not self.dtype:
        raise RuntimeError("quantile() q tensor must be same dtype as the input tensor")
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError("quantile() interpolation must be one of linear, lower, higher, midpoint or nearest, "
                           f"but got {interpolation}")
    if isinstance(q, numbers.Number):
        if not 0 <= q <= 1:
            raise RuntimeError(f"quantile() q must be in the range [0, 1] but got {q:g}")
        q = aten.scalar_tensor.default(q, dtype=self.dtype)
    else:
        qa = q._np if getattr(q, "_np", None) is not None else None
        if qa is not None and qa.size and not ((qa >= 0).all() and (qa <= 1).all()):
            raise RuntimeError("quantile() q values must be in the range [0, 1]")
    nd = self.dim()
    # the output shape (quantile_output_shape), then q's dim in front
    if dim is not None and nd > 0:
        d = wrap_dim(dim, nd)
        out_shape = list(self.shape)
        if keepdim:
            out_shape[d] = 1
        else:
            del out_shape[d]
    else:
        out_shape = [1] * nd if keepdim else []
    if dim is None:
        sorted_x = aten.sort.default(aten.flatten.using_ints(self), -1)[0]
    elif wrap_dim(dim, max(nd, 1)) == nd - 1:
        sorted_x = aten.sort.default(self, -1)[0]
    else:
        moved = aten.transpose.int(aten.unsqueeze.default(self, -1), wrap_dim(dim, max(nd, 1)), -1)
        sorted_x = aten.sort.default(moved, -1)[0]
    out_shape.insert(0, q.numel())
    n = sorted_x.shape[-1]
    sorted_x = aten.view.default(sorted_x, out_shape[1:] + [n])
    nan = aten.isnan.default(sorted_x)
    if ignore_nan:
        # ranks over the non-nan values; an all-nan row gets rank 0, so its quantile is nan
        count = aten.sum.dim_IntList(aten.logical_not.default(nan), [-1], True)
        ranks = aten.mul.Tensor(q, aten.sub.Tensor(count, 1))
        ranks = aten.masked_fill.Scalar(ranks, aten.lt.Scalar(ranks, 0), 0)
    else:
        # a row with a nan gets the last rank: its quantile is the nan sorted last
        ranks, has_nan = aten.broadcast_tensors.default([aten.mul.Tensor(q, n - 1),
                                                         aten.any.dim(nan, -1, True)])
        ranks = aten.masked_fill.Scalar(ranks, has_nan, n - 1)
    if interpolation == "lower":
        ranks = aten.floor.default(ranks)
    elif interpolation == "higher":
        ranks = aten.ceil.default(ranks)
    elif interpolation == "nearest":
        ranks = aten.round.default(ranks)
    ranks_below = aten._to_copy.default(ranks, dtype=D.int64)
    values = aten.gather.default(sorted_x, -1, ranks_below)
    if interpolation in ("linear", "midpoint"):
        weights = (aten.full_like.default(ranks, 0.5) if interpolation == "midpoint"
                   else aten.sub.Tensor(ranks, ranks_below))
        above = aten.gather.default(sorted_x, -1, aten._to_copy.default(aten.ceil.default(ranks), dtype=D.int64))
        aten.lerp_.Tensor(values, above, weights)
    if scalar_q:
        return aten.squeeze_.dim(values, -1)
    return aten.squeeze_.dim(aten.transpose_.default(aten.unsqueeze_.default(values, 0), 0, -1), -1)


def quantile(self, q, dim=None, keepdim=False, *, interpolation="linear"):
    return _quantile(self, q, dim, keepdim, interpolation, False)


def nanquantile(self, q, dim=None, keepdim=False, *, interpolation="linear"):
    return _quantile(self, q, dim, keepdim, interpolation, True)


# ------------------------------------------------------------------ cov / corrcoef
def cov(self, *, correction=1, fweights=None, aweights=None):
    if self.dim() > 2:
        raise RuntimeError("cov(): expected input to have two or fewer dimensions but got an input with "
                           f"{self.dim()} dimensions")
    x = aten.reshape.default(self, [1, -1]) if self.dim() < 2 else self
    if not (x.dtype.is_floating_point or x.dtype.is_complex):
        x = x.to(get_default_dtype())
    n_obs = x.shape[1]
    w = None
    if fweights is not None:
        if fweights.dim() > 1:
            raise RuntimeError(f"cov(): expected fweights to have one or fewer dimensions but got fweights with "
                               f"{fweights.dim()} dimensions")
        if fweights.dtype.is_floating_point or fweights.dtype.is_complex:
            raise RuntimeError(f"cov(): expected fweights to have integral dtype but got fweights with "
                               f"{_tn(fweights.dtype)} dtype")
        w = fweights
    if aweights is not None:
        if aweights.dim() > 1:
            raise RuntimeError(f"cov(): expected aweights to have one or fewer dimensions but got aweights with "
                               f"{aweights.dim()} dimensions")
        if not aweights.dtype.is_floating_point:
            raise RuntimeError(f"cov(): expected aweights to have floating point dtype but got aweights with "
                               f"{_tn(aweights.dtype)} dtype")
        w = aweights if w is None else aten.mul.Tensor(w, aweights)
    if w is None:
        avg = aten.mean.dim(x, [1])
        w_sum = n_obs
        norm = n_obs - correction
    else:
        w_sum_t = aten.sum.default(w)
        avg = aten.div.Tensor(aten.sum.dim_IntList(aten.mul.Tensor(x, w), [1]), w_sum_t)
        w_sum = w_sum_t
        if aweights is None:
            norm = aten.sub.Tensor(w_sum_t, correction)
        else:
            norm = aten.sub.Tensor(w_sum_t, aten.div.Tensor(aten.mul.Scalar(aten.sum.default(
                aten.mul.Tensor(w, aweights)), correction), w_sum_t))
    if isinstance(norm, numbers.Real):           # (a SymInt under symbolic tracing too)
        if norm <= 0:
            warn_user("cov(): degrees of freedom is <= 0. Correction should be strictly less than the number "
                      "of observations.")
            norm = 0
    else:
        norm = aten.clamp_min.default(norm, 0)
    del w_sum
    xm = aten.sub.Tensor(x, aten.unsqueeze.default(avg, 1))
    xw = xm if w is None else aten.mul.Tensor(xm, w)
    xt = aten.t.default(xm)
    if xt.dtype.is_complex:
        xt = aten.conj_physical.default(xt)
    c = aten.div.Tensor(aten.mm.default(xw, xt), norm) if not isinstance(norm, numbers.Real) \
        else aten.div.Scalar(aten.mm.default(xw, xt), norm)
    return aten.squeeze.default(c)


def corrcoef(self):
    if self.dim() > 2:
        raise RuntimeError(f"corrcoef(): expected input to have two or fewer dimensions but got an input with "
                           f"{self.dim()} dimensions")
    c = cov(self)
    if c.dim() == 0:
        return aten.div.Tensor(c, c)
    d = aten.diagonal.default(c)
    std = aten.sqrt.default(aten.real.default(d) if d.dtype.is_complex and hasattr(aten, "real") else d)
    c = aten.div.Tensor(c, aten.unsqueeze.default(std, 1))
    c = aten.div.Tensor(c, aten.unsqueeze.default(std, 0))
    if c.dtype.is_complex:
        return c
    return aten.clamp.default(c, -1, 1)
