"""CompositeImplicitAutograd decompositions of the second tier of nn ops (torch's Loss.cpp,
Distance.cpp, PixelShuffle.cpp, PadNd.cpp): margin/embedding losses, distances, pixel shuffle, pad."""
import math

from .common import size_str
from .nn_implicit import A


def _reduce(loss, reduction):
    if reduction == 0:
        return loss
    return A().mean.default(loss) if reduction == 1 else A().sum.default(loss)


def _zeros(t):
    return A().zeros_like.default(t)


# ---------------------------------------------------------------- losses
def margin_ranking_loss(input1, input2, target, margin=0.0, reduction=1):
    d = A().sub.Tensor(input1, input2)
    out = A().clamp_min.default(A().add.Scalar(A().mul.Tensor(A().neg.default(target), d), margin), 0)
    return _reduce(out, reduction)


def hinge_embedding_loss(self, target, margin=1.0, reduction=1):
    clamp = A().clamp_min.default(A().add.Scalar(A().neg.default(self), margin), 0)
    out_margin = A().where.self(A().ne.Scalar(target, 1), clamp, _zeros(clamp))
    out_self = A().where.self(A().ne.Scalar(target, -1), self, _zeros(self))
    return _reduce(A().add.Tensor(out_margin, out_self), reduction)


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=1):
    td = target.dim()
    if td > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if input1.dim() != input2.dim():
        raise RuntimeError(f"cosine_embedding_loss : All input tensors should have same dimension but got sizes: "
                           f"input1: {size_str(input1._size)}, input2: {size_str(input2._size)}")
    if td == 1 and input1.dim() != 2 or td == 0 and input1.dim() != 1:
        raise RuntimeError(f"{td}D target tensor expects {td + 1}D input tensors, but found inputs with sizes "
                           f"{size_str(input1._size)} and {size_str(input2._size)}.")
    eps = 1e-12
    prod = A().sum.dim_IntList(A().mul.Tensor(input1, input2), [td])
    m1 = A().add.Scalar(A().sum.dim_IntList(A().mul.Tensor(input1, input1), [td]), eps)
    m2 = A().add.Scalar(A().sum.dim_IntList(A().mul.Tensor(input2, input2), [td]), eps)
    cos = A().div.Tensor(prod, A().sqrt.default(A().mul.Tensor(m1, m2)))
    pos = A().add.Scalar(A().neg.default(cos), 1)
    neg = A().clamp_min.default(A().sub.Scalar(cos, margin), 0)
    out = A().add.Tensor(A().where.self(A().eq.Scalar(target, 1), pos, _zeros(cos)),
                         A().where.self(A().eq.Scalar(target, -1), neg, _zeros(cos)))
    return _reduce(out, reduction)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-06, swap=False, reduction=1):
    ad, pd, nd = anchor.dim(), positive.dim(), negative.dim()
    if not (ad == pd == nd):
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the same number of "
                           f"dimensions, but got: anchor {ad}D, positive {pd}D, and negative {nd}D inputs")
    dpos = pairwise_distance(anchor, positive, p, eps)
    dneg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        dneg = A().minimum.default(dneg, pairwise_distance(positive, negative, p, eps))
    out = A().clamp_min.default(A().add.Tensor(A().add.Scalar(dpos, margin), A().neg.default(dneg)), 0)
    return _reduce(out, reduction)


def poisson_nll_loss(input, target, log_input, full, eps, reduction):
    if log_input:
        loss = A().sub.Tensor(A().exp.default(input), A().mul.Tensor(target, input))
    else:
        loss = A().sub.Tensor(input, A().mul.Tensor(target, A().log.default(A().add.Scalar(input, eps))))
    if full:
        st = A().add.Tensor(A().sub.Tensor(A().mul.Tensor(target, A().log.default(target)), target),
                            A().mul.Scalar(A().log.default(A().mul.Scalar(target, 2 * math.pi)), 0.5))
        loss = A().add.Tensor(loss, A().where.self(A().le.Scalar(target, 1), _zeros(st), st))
    return _reduce(loss, reduction)


# ---------------------------------------------------------------- distances
def pairwise_distance(x1, x2, p=2.0, eps=1e-06, keepdim=False):
    d = max(x1.dim(), x2.dim())
    diff = A().add.Scalar(A().sub.Tensor(x1, x2), eps)
    return A().linalg_vector_norm.default(diff, p, [d - 1] if d else None, keepdim)


def cosine_similarity(x1, x2, dim=1, eps=1e-08):
    from .common import broadcast_shapes
    shape = list(broadcast_shapes(x1._size, x2._size))
    x1, x2 = A().expand.default(x1, shape), A().expand.default(x2, shape)
    n1 = A().clamp_min.default(A().linalg_vector_norm.default(x1, 2, [dim], True), eps)
    n2 = A().clamp_min.default(A().linalg_vector_norm.default(x2, 2, [dim], True), eps)
    return A().sum.dim_IntList(A().mul.Tensor(A().div.Tensor(x1, n1), A().div.Tensor(x2, n2)), [dim])


def cdist(x1, x2, p=2.0, compute_mode=None):
    if x1.dim() < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X1 got: {x1.dim()}D")
    if x2.dim() < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X2 got: {x2.dim()}D")
    if x1._size[-1] != x2._size[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {x1._size[-1]} X2: {x2._size[-1]}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    return A()._cdist_forward.default(x1, x2, p, compute_mode)


# ---------------------------------------------------------------- pixel shuffle
def pixel_shuffle(self, upscale_factor):
    r = upscale_factor
    if self.dim() < 3:
        raise RuntimeError(f"pixel_shuffle expects input to have at least 3 dimensions, but got input with "
                           f"{self.dim()} dimension(s)")
    if r <= 0:
        raise RuntimeError(f"pixel_shuffle expects a positive upscale_factor, but got {r}")
    *b, c, h, w = self._size
    if c % (r * r):
        raise RuntimeError(f"pixel_shuffle expects its input's 'channel' dimension to be divisible by the square "
                           f"of upscale_factor, but input.size(-3)={c} is not divisible by {r * r}")
    n = len(b)
    x = A().reshape.default(self, b + [c // (r * r), r, r, h, w])
    x = A().permute.default(x, list(range(n)) + [n, n + 3, n + 1, n + 4, n + 2])
    return A().reshape.default(x, b + [c // (r * r), h * r, w * r])


def pixel_unshuffle(self, downscale_factor):
    r = downscale_factor
    if self.dim() < 3:
        raise RuntimeError(f"pixel_unshuffle expects input to have at least 3 dimensions, but got input with "
                           f"{self.dim()} dimension(s)")
    if r <= 0:
        raise RuntimeError(f"pixel_unshuffle expects a positive downscale_factor, but got {r}")
    *b, c, h, w = self._size
    if h % r:
        raise RuntimeError(f"pixel_unshuffle expects height to be divisible by downscale_factor, but input.size(-2)="
                           f"{h} is not divisible by {r}")
    if w % r:
        raise RuntimeError(f"pixel_unshuffle expects width to be divisible by downscale_factor, but input.size(-1)="
                           f"{w} is not divisible by {r}")
    n = len(b)
    x = A().reshape.default(self, b + [c, h // r, r, w // r, r])
    x = A().permute.default(x, list(range(n)) + [n, n + 2, n + 4, n + 1, n + 3])
    return A().reshape.default(x, b + [c * r * r, h // r, w // r])


# ---------------------------------------------------------------- pad
def pad(self, pad, mode="constant", value=None):
    pad = [int(p) for p in pad]
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > self.dim():
        raise RuntimeError("Padding length should be less than or equal to two times the input dimension but got "
                           f"padding length {len(pad)} and input of dimension {self.dim()}")
    if mode == "constant":
        return A().constant_pad_nd.default(self, pad, 0 if value is None else value)
    if mode not in ("reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if value is not None and value != 0:
        raise RuntimeError(f"Padding mode \"{mode}\" doesn't take in value argument")
    k = len(pad) // 2
    if k > 3 or self.dim() not in (k + 1, k + 2):
        raise NotImplementedError(f"Only 2D, 3D, 4D, 5D padding with non-constant padding are supported for now")
    if mode == "reflect":
        return getattr(A(), f"reflection_pad{k}d").default(self, pad)
    if mode == "replicate":
        return getattr(A(), f"replication_pad{k}d").default(self, pad)
    if mode == "circular":
        return A()._pad_circular.default(self, pad)
    raise RuntimeError(f"Unrecognised padding mode {mode}")


def bilinear(input1, input2, weight, bias=None):
    t = A().matmul.default(A().unsqueeze.default(A().unsqueeze.default(input1, -2), -3), weight)   # ..., O, 1, J
    out = A().sum.dim_IntList(A().mul.Tensor(A().squeeze.dim(t, -2), A().unsqueeze.default(input2, -2)), [-1])
    return out if bias is None else A().add.Tensor(out, bias)


def embedding_bag(weight, indices, offsets, scale_grad_by_freq=False, mode=0, sparse=False,
                  per_sample_weights=None, include_last_offset=False, padding_idx=None):
    return A()._embedding_bag.default(weight, indices, offsets, scale_grad_by_freq, mode, sparse, per_sample_weights,
                                      include_last_offset, -1 if padding_idx is None else padding_idx)


def grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners):
    if input.dim() == 4:
        return A().grid_sampler_2d.default(input, grid, interpolation_mode, padding_mode, align_corners)
    raise NotImplementedError("grid_sampler: only 4-D (2d) inputs are supported")


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction=1, zero_infinity=False):
    def as_list(v):                    # a tensor (0-d for unbatched input), an int, or a sequence of ints
        v = v.tolist() if hasattr(v, "tolist") else v
        return [int(x) for x in v] if isinstance(v, (list, tuple)) else [int(v)]
    il, tl = as_list(input_lengths), as_list(target_lengths)
    unbatched = log_probs.dim() == 2
    if unbatched:
        log_probs = A().unsqueeze.default(log_probs, 1)
        if targets.dim() == 1:
            targets = A().unsqueeze.default(targets, 0)
        il, tl = il[:1] if il else [log_probs._size[0]], tl[:1] if tl else [targets._size[-1]]
    res = A()._ctc_loss.default(log_probs, targets, il, tl, blank, zero_infinity)[0]
    if zero_infinity:
        res = A().where.self(A().eq.Scalar(res, float("inf")), A().zeros_like.default(res), res)
    if reduction == 1:
        tlen = A().clamp_min.default(A().to.dtype(_as_tensor(tl, res), res.dtype), 1)
        return A().mean.default(A().div.Tensor(res, tlen))
    if reduction == 2:
        return A().sum.default(res)
    return A().squeeze.dim(res, 0) if unbatched else res


def _as_tensor(values, like):
    import numpy as np
    from .._core.tensor_impl import TensorImpl as Tensor
    t = Tensor._wrap_np(np.asarray(values, dtype=np.int64))
    return t if like.device.type == "cpu" else A()._to_copy.default(t, device=like.device)
