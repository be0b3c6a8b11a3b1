"""torch._decomp.decompositions: composite aten ops written in a smaller core set (pointwise math, reductions,
views, mm), registered in `ember._decomp.decomposition_table`.

Each function takes the op's arguments (as the schema names them) and calls `ember.ops.aten.*` only, so
under make_fx its body is traced into the core ops. Every entry is checked against the op it replaces on the
op database (tests/fx/test_decompositions.py).
"""
import math

from ember._ops import ops
from ember.kernels.meta.shape import stack_spec

from .registry import register_decomposition

aten = ops.aten

_MEAN, _SUM, _NONE = 1, 2, 0


def _reduce(x, reduction):
    if reduction == _MEAN:
        return aten.mean.default(x)
    if reduction == _SUM:
        return aten.sum.default(x)
    return x


# ---------------------------------------------------------------- shape
@register_decomposition(aten.stack.default)
def stack(tensors, dim=0):
    """An unsqueeze per tensor, then one cat (torch's _refs.stack), with the op's own checks."""
    tensors = list(tensors)
    d = stack_spec(tensors, dim)[2]
    return aten.cat.default([aten.unsqueeze.default(t, d) for t in tensors], d)


# ---------------------------------------------------------------- activations
@register_decomposition(aten.silu.default)
def silu(self):
    return aten.mul.Tensor(self, aten.sigmoid.default(self))


@register_decomposition(aten.gelu.default)
def gelu(self, *, approximate="none"):
    if approximate == "tanh":
        inner = aten.mul.Tensor(aten.add.Tensor(self, aten.mul.Tensor(aten.pow.Tensor_Scalar(self, 3), 0.044715)),
                                math.sqrt(2 / math.pi))
        return aten.mul.Tensor(aten.mul.Tensor(self, 0.5), aten.add.Tensor(aten.tanh.default(inner), 1))
    cdf = aten.mul.Tensor(aten.add.Tensor(aten.erf.default(aten.mul.Tensor(self, 1 / math.sqrt(2))), 1), 0.5)
    return aten.mul.Tensor(self, cdf)


@register_decomposition(aten.hardsigmoid.default)
def hardsigmoid(self):
    return aten.div.Tensor(aten.clamp.default(aten.add.Tensor(self, 3), 0, 6), 6)


@register_decomposition(aten.hardswish.default)
def hardswish(self):
    return aten.mul.Tensor(self, hardsigmoid(self))


@register_decomposition(aten.hardtanh.default)
def hardtanh(self, min_val=-1, max_val=1):
    return aten.clamp.default(self, min_val, max_val)


@register_decomposition(aten.relu6.default)
def relu6(self):
    return aten.clamp.default(self, 0, 6)


@register_decomposition(aten.leaky_relu.default)
def leaky_relu(self, negative_slope=0.01):
    return aten.where.self(aten.gt.Scalar(self, 0), self, aten.mul.Tensor(self, negative_slope))


@register_decomposition(aten.elu.default)
def elu(self, alpha=1, scale=1, input_scale=1):
    neg = aten.mul.Tensor(aten.expm1.default(aten.mul.Tensor(self, input_scale)), alpha * scale)
    return aten.where.self(aten.gt.Scalar(self, 0), aten.mul.Tensor(self, scale), neg)


@register_decomposition(aten.selu.default)
def selu(self):
    return elu(self, 1.6732632423543772848170429916717, 1.0507009873554804934193349852946)


@register_decomposition(aten.celu.default)
def celu(self, alpha=1.0):
    return elu(self, alpha, 1, 1.0 / alpha)


@register_decomposition(aten.softplus.default)
def softplus(self, beta=1, threshold=20):
    scaled = aten.mul.Tensor(self, beta)
    soft = aten.div.Tensor(aten.log1p.default(aten.exp.default(scaled)), beta)
    return aten.where.self(aten.gt.Scalar(scaled, threshold), self, soft)


@register_decomposition(aten.mish.default)
def mish(self):
    return aten.mul.Tensor(self, aten.tanh.default(softplus(self)))


@register_decomposition(aten.glu.default)
def glu(self, dim=-1):
    a, b = aten.chunk.default(self, 2, dim)
    return aten.mul.Tensor(a, aten.sigmoid.default(b))


# ---------------------------------------------------------------- softmax family
@register_decomposition(aten._softmax.default)
def _softmax(self, dim, half_to_float):
    shifted = aten.sub.Tensor(self, aten.amax.default(self, [dim], True))
    e = aten.exp.default(shifted)
    return aten.div.Tensor(e, aten.sum.dim_IntList(e, [dim], True))


@register_decomposition(aten._log_softmax.default)
def _log_softmax(self, dim, half_to_float):
    shifted = aten.sub.Tensor(self, aten.amax.default(self, [dim], True))
    lse = aten.log.default(aten.sum.dim_IntList(aten.exp.default(shifted), [dim], True))
    return aten.sub.Tensor(shifted, lse)


@register_decomposition(aten.logsumexp.default)
def logsumexp(self, dim, keepdim=False):
    dim = [dim] if isinstance(dim, int) else list(dim)
    if self.dim() == 0:
        return aten.clone.default(self)
    m = aten.amax.default(self, dim, True)
    m = aten.where.self(aten.eq.Scalar(aten.abs.default(m), math.inf), aten.zeros_like.default(m), m)
    s = aten.sum.dim_IntList(aten.exp.default(aten.sub.Tensor(self, m)), dim, True)
    out = aten.add.Tensor(aten.log.default(s), m)
    return out if keepdim else aten.squeeze.dims(out, dim)


# ---------------------------------------------------------------- linear algebra and pointwise composites
@register_decomposition(aten.addmm.default)
def addmm(self, mat1, mat2, *, beta=1, alpha=1):
    prod = aten.mm.default(mat1, mat2)
    if alpha != 1:
        prod = aten.mul.Tensor(prod, alpha)
    if beta == 0:
        return prod                  # torch: beta=0 ignores self (even nan/inf)
    return aten.add.Tensor(aten.mul.Tensor(self, beta) if beta != 1 else self, prod)


@register_decomposition(aten.addcmul.default)
def addcmul(self, tensor1, tensor2, *, value=1):
    return aten.add.Tensor(self, aten.mul.Tensor(aten.mul.Tensor(tensor1, tensor2), value))


@register_decomposition(aten.addcdiv.default)
def addcdiv(self, tensor1, tensor2, *, value=1):
    return aten.add.Tensor(self, aten.mul.Tensor(aten.div.Tensor(tensor1, tensor2), value))


@register_decomposition(aten.lerp.Scalar)
def lerp_scalar(self, end, weight):
    return aten.add.Tensor(self, aten.mul.Tensor(aten.sub.Tensor(end, self), weight))


@register_decomposition(aten.rsub.Tensor)
def rsub(self, other, *, alpha=1):
    return aten.sub.Tensor(other, self, alpha=alpha)


@register_decomposition(aten.square.default)
def square(self):
    return aten.mul.Tensor(self, self)


@register_decomposition(aten.logaddexp.default)
def logaddexp(self, other):
    m = aten.maximum.default(self, other)
    diff = aten.neg.default(aten.abs.default(aten.sub.Tensor(self, other)))
    return aten.add.Tensor(m, aten.log1p.default(aten.exp.default(diff)))


@register_decomposition(aten.hypot.default)
def hypot(self, other):
    return aten.sqrt.default(aten.add.Tensor(aten.mul.Tensor(self, self), aten.mul.Tensor(other, other)))


@register_decomposition(aten.outer.default)
def outer(self, vec2):
    return aten.mul.Tensor(aten.unsqueeze.default(self, 1), aten.unsqueeze.default(vec2, 0))


@register_decomposition(aten.mv.default)
def mv(self, vec):
    return aten.squeeze.dim(aten.mm.default(self, aten.unsqueeze.default(vec, 1)), 1)


@register_decomposition(aten.dot.default)
def dot(self, tensor):
    return aten.sum.default(aten.mul.Tensor(self, tensor))


# ---------------------------------------------------------------- normalization and losses
@register_decomposition(aten.native_layer_norm.default)
def native_layer_norm(input, normalized_shape, weight, bias, eps):
    axes = list(range(input.dim() - len(normalized_shape), input.dim()))
    mean = aten.mean.dim(input, axes, True)
    centered = aten.sub.Tensor(input, mean)
    var = aten.mean.dim(aten.mul.Tensor(centered, centered), axes, True)
    rstd = aten.rsqrt.default(aten.add.Tensor(var, eps))
    out = aten.mul.Tensor(centered, rstd)
    if weight is not None:
        out = aten.mul.Tensor(out, weight)
    if bias is not None:
        out = aten.add.Tensor(out, bias)
    return out, mean, rstd


@register_decomposition(aten.mse_loss.default)
def mse_loss(self, target, reduction=_MEAN):
    d = aten.sub.Tensor(self, target)
    return _reduce(aten.mul.Tensor(d, d), reduction)


@register_decomposition(aten.l1_loss.default)
def l1_loss(self, target, reduction=_MEAN):
    return _reduce(aten.abs.default(aten.sub.Tensor(self, target)), reduction)


@register_decomposition(aten.huber_loss.default)
def huber_loss(self, target, reduction=_MEAN, delta=1.0):
    z = aten.abs.default(aten.sub.Tensor(self, target))
    quad = aten.mul.Tensor(aten.mul.Tensor(z, z), 0.5)
    lin = aten.mul.Tensor(aten.sub.Tensor(z, 0.5 * delta), delta)
    return _reduce(aten.where.self(aten.lt.Scalar(z, delta), quad, lin), reduction)


@register_decomposition(aten.smooth_l1_loss.default)
def smooth_l1_loss(self, target, reduction=_MEAN, beta=1.0):
    z = aten.abs.default(aten.sub.Tensor(self, target))
    if beta == 0:
        return _reduce(z, reduction)
    quad = aten.div.Tensor(aten.mul.Tensor(aten.mul.Tensor(z, z), 0.5), beta)
    lin = aten.sub.Tensor(z, 0.5 * beta)
    return _reduce(aten.where.self(aten.lt.Scalar(z, beta), quad, lin), reduction)


@register_decomposition(aten.binary_cross_entropy.default)
def binary_cross_entropy(self, target, weight=None, reduction=_MEAN):
    log_p = aten.clamp.default(aten.log.default(self), -100)
    log_1mp = aten.clamp.default(aten.log.default(aten.rsub.Scalar(self, 1)), -100)
    loss = aten.neg.default(aten.add.Tensor(aten.mul.Tensor(target, log_p),
                                            aten.mul.Tensor(aten.rsub.Scalar(target, 1), log_1mp)))
    if weight is not None:
        loss = aten.mul.Tensor(loss, weight)
    return _reduce(loss, reduction)
