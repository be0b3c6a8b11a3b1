"""Helpers for the nn formulas in native/derivatives_nn.yaml (torch's FunctionsManual.cpp, nn part).

Ops with a backward kernel (convolution_backward, native_layer_norm_backward, ...) call it through
the dispatcher; the losses without one are written in ember ops, so their backward is itself
differentiable."""
from .formulas import _aten, ones_like, sum_to, zeros_like

MEAN, SUM = 1, 2


def not_implemented(what):
    raise RuntimeError(f"the derivative for '{what}' is not implemented.")


def _numel(shape):
    n = 1
    for s in shape:
        n *= int(s)
    return n


def _reduced(grad, g, reduction):
    """Elementwise d(loss)/dx `g` times the incoming grad, for a loss reduced by `reduction`."""
    if reduction == MEAN:
        return g * grad / max(_numel(g._size), 1)
    return g * grad


def _to(g, t):
    return sum_to(g, t._size) if g._size != t._size else g


# ---- kernels with a multi-output backward ---------------------------------------------------

def convolution_backward_(grad, input, weight, stride, padding, dilation, transposed, output_padding, groups,
                          mask):
    gi = gw = gb = None
    if mask[0] or mask[1]:
        gi, gw, _ = _aten().convolution_backward.default(grad, input, weight, None, stride, padding, dilation,
                                                         transposed, output_padding, groups,
                                                         [bool(mask[0]), bool(mask[1]), False])
    if mask[2]:
        gb = grad.sum([0] + list(range(2, grad.dim())))
    return gi, gw, gb


def batch_norm_backward_(grad, input, weight, running_mean, running_var, save_mean, save_invstd, training, eps,
                         mask):
    if training:                # the running stats are updated in place and not read in training mode
        running_mean = running_var = None
    return _aten().native_batch_norm_backward.default(grad, input, weight, running_mean, running_var, save_mean,
                                                      save_invstd, training, eps, list(mask))


def max_pool1d_backward_(grad, self, indices):
    """1-d max pool as a 2-d one of height 1: the flat indices are the same."""
    g = _aten().max_pool2d_with_indices_backward.default(
        grad.unsqueeze(-2), self.unsqueeze(-2), [1, 1], [1, 1], [0, 0], [1, 1], False, indices.unsqueeze(-2))
    return g.squeeze(-2)


def adaptive_max_pool2d_backward_(grad, self, indices):
    return _aten().max_pool2d_with_indices_backward.default(grad, self, [1, 1], [1, 1], [0, 0], [1, 1], False,
                                                            indices)


def dropout_scale(p, train):
    if train is None or train:
        return 0.0 if p == 1 else 1.0 / (1.0 - p)
    return 1.0


# ---- losses without a backward kernel ----------------------------------------------------------

def l1_loss_backward(grad, self, target, reduction):
    return _to(_reduced(grad, (self - target).sign(), reduction), self)


def smooth_l1_loss_backward(grad, self, target, reduction, beta):
    d = self - target
    g = d.sign() if beta == 0 else (d / beta).clamp(-1.0, 1.0)
    return _to(_reduced(grad, g, reduction), self)


def huber_loss_backward(grad, self, target, reduction, delta):
    return _to(_reduced(grad, (self - target).clamp(-delta, delta), reduction), self)


def soft_margin_loss_backward(grad, self, target, reduction):
    z = -(self * target)
    return _to(_reduced(grad, -target * z.sigmoid(), reduction), self)


def kl_div_backward_self(grad, self, target, reduction, log_target):
    t = target.exp() if log_target else target
    return _to(_reduced(grad, -t + self * 0, reduction), self)


def kl_div_backward_target(grad, self, target, reduction, log_target):
    if log_target:
        g = target.exp() * (target - self + 1)
    else:
        from .._generated.functions import where
        pos = target > 0
        safe = where(pos, target, ones_like(target))
        g = where(pos, safe.log() + 1 - self, zeros_like(target))
    return _to(_reduced(grad, g + self * 0, reduction), target)


def _w(g, weight):
    return g if weight is None else g * weight


def binary_cross_entropy_backward(grad, self, target, weight, reduction):
    g = (self - target) / ((1 - self) * self).clamp(min=1e-12)
    return _to(_reduced(grad, _w(g, weight), reduction), self)


def binary_cross_entropy_target_backward(grad, self, target, weight, reduction):
    g = (1 - self).log().clamp(min=-100.0) - self.log().clamp(min=-100.0) + target * 0
    return _to(_reduced(grad, _w(g, weight), reduction), target)


def bce_with_logits_backward(grad, self, target, weight, pos_weight, reduction):
    s = self.sigmoid()
    if pos_weight is None:
        g = s - target
    else:
        pt = pos_weight * target
        g = s * (1 - target + pt) - pt
    return _to(_reduced(grad, _w(g, weight), reduction), self)


def bce_with_logits_target_backward(grad, self, target, weight, pos_weight, reduction):
    from .._generated.nn_functions import softplus
    if pos_weight is None:
        g = -self + target * 0
    else:
        g = pos_weight * softplus(-self) - softplus(self) + target * 0
    return _to(_reduced(grad, _w(g, weight), reduction), target)


# ---- ops that move or mix input elements without a backward kernel --------------------------------

def _eval(fn, x):
    from .._grad_mode import no_grad
    with no_grad():
        return fn(x)


def gather_backward(grad, self, fn):
    """Backward of an op that only copies input elements (reflection/replication/circular pad,
    nearest upsampling): run it on the element numbers to learn where each output came from, then
    add the gradient back there."""
    from .formulas import _const
    import numpy as np
    n = self.numel()
    idx = _eval(fn, _const(np.arange(n, dtype=np.float64).reshape(self._size), _f64()))
    src = _const(idx._np.reshape(-1).astype(np.int64), _i64())
    return zeros_like(self).reshape(-1).index_put((src,), grad.reshape(-1), True).reshape(self._size)


def _f64():
    from .._core import dtype as D
    return D.float64


def _i64():
    from .._core import dtype as D
    return D.int64


def _interp_matrix(fn, self, axis):
    """The (in, out) interpolation matrix of a separable resampling op along spatial `axis`: feed it
    one-hot rows, constant along the other axes (the weights along those sum to one)."""
    import numpy as np
    from .formulas import _const
    size = self._size
    k = size[axis]
    e = np.zeros((k, 1) + tuple(size[2:]), np.float64)
    for i in range(k):
        sl = [i, 0] + [slice(None)] * (len(size) - 2)
        sl[axis] = i
        e[tuple(sl)] = 1.0
    out = _eval(fn, _const(e, _f64()))._np
    take = [slice(None), 0] + [0] * (len(size) - 2)
    take[axis] = slice(None)
    return _const(np.ascontiguousarray(out[tuple(take)]), self.dtype)


def interp_backward(grad, self, fn):
    """Backward of linear/bilinear/bicubic upsampling: grad_in = A_h^T grad A_w per plane."""
    g = grad
    if self.dim() == 3:
        return g.matmul(_interp_matrix(fn, self, 2).transpose(0, 1))
    ah = _interp_matrix(fn, self, 2)          # (H, OH)
    aw = _interp_matrix(fn, self, 3)          # (W, OW)
    return ah.matmul(g).matmul(aw.transpose(0, 1))
