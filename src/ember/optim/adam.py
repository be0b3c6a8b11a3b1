"""Adam / AdamW (torch/optim/adam.py, adamw.py; single-tensor rule, torch's op order in float32)."""
import math

import numpy as np

from .optimizer import (Optimizer, _check_lr, _closure_loss, _scalar_step, _use_grad, _value, _zeros_like)

__all__ = ["Adam", "AdamW"]


def _lerp(a, b, w, f):
    """torch's lerp: a + w*(b-a) for w < 0.5, else b - (b-a)*(1-w)."""
    if w < 0.5:
        return a + f(w) * (b - a)
    return b - (b - a) * f(1 - w)


def _check_adam_args(lr, eps, betas, weight_decay):
    _check_lr(lr)
    if not 0.0 <= eps:
        raise ValueError(f"Invalid epsilon value: {eps}")
    if not 0.0 <= betas[0] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
    if not 0.0 <= betas[1] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
    if not 0.0 <= weight_decay:
        raise ValueError(f"Invalid weight_decay value: {weight_decay}")


def _adam_update(p, state, grad, lr, beta1, beta2, eps, wd, amsgrad, maximize, decoupled):
    """One parameter's update, in place on its buffers with two scratch arrays (no per-op dispatch, no
    fresh arrays per operation), each numpy op rounding exactly like torch's single-tensor step:
    p *= 1 - lr*wd | grad += wd*p;  m.lerp_(grad, 1-beta1);  v = v*beta2 + (1-beta2)*grad*grad;
    p += -step_size * (m / (sqrt(v) / sqrt(bc2) + eps))."""
    f = p._np.dtype.type
    pn = p._np
    if maximize:
        grad = -grad
    step_t = state["step"]
    step_t._np[...] += 1
    step_t._version_counter.bump()
    if wd != 0:
        if decoupled:
            pn *= f(1 - lr * wd)
        else:
            grad = grad + f(wd) * pn
    m, v = state["exp_avg"], state["exp_avg_sq"]
    mn, vn = m._np, v._np
    tmp = np.subtract(grad, mn)                         # lerp(m, grad, w) as torch rounds it
    w = 1 - beta1
    if w < 0.5:
        tmp *= f(w)
        mn += tmp
    else:
        tmp *= f(1 - w)
        np.subtract(grad, tmp, out=mn)
    np.multiply(grad, f(1 - beta2), out=tmp)
    tmp *= grad
    vn *= f(beta2)
    vn += tmp
    step = float(step_t._np)
    step_size = lr / (1 - beta1 ** step)
    bias_correction2_sqrt = math.sqrt(1 - beta2 ** step)
    if amsgrad:
        mx = state["max_exp_avg_sq"]
        np.maximum(mx._np, vn, out=mx._np)
        mx._version_counter.bump()
        vn = mx._np
    np.sqrt(vn, out=tmp)
    tmp /= f(bias_correction2_sqrt)
    tmp += f(eps)
    np.divide(mn, tmp, out=tmp)
    tmp *= f(-step_size)
    pn += tmp
    for t in (p, m, v):
        t._version_counter.bump()


class Adam(Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *,
                 foreach=None, maximize=False, capturable=False, differentiable=False, fused=None,
                 decoupled_weight_decay=False):
        _check_adam_args(lr, eps, betas, weight_decay)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad, maximize=maximize,
                        foreach=foreach, capturable=capturable, differentiable=differentiable, fused=fused,
                        decoupled_weight_decay=decoupled_weight_decay)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("amsgrad", False)
            group.setdefault("maximize", False)
            group.setdefault("foreach", None)
            group.setdefault("capturable", False)
            group.setdefault("differentiable", False)
            group.setdefault("decoupled_weight_decay", False)
            group.setdefault("fused", None)

    @_use_grad
    def step(self, closure=None):
        loss = _closure_loss(closure)
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            beta1, beta2 = _value(beta1), _value(beta2)
            lr, eps, wd = _value(group["lr"]), group["eps"], group["weight_decay"]
            amsgrad, maximize, decoupled = group["amsgrad"], group["maximize"], group["decoupled_weight_decay"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = _scalar_step()
                    state["exp_avg"] = _zeros_like(p)
                    state["exp_avg_sq"] = _zeros_like(p)
                    if amsgrad:
                        state["max_exp_avg_sq"] = _zeros_like(p)
                _adam_update(p, state, p.grad._np, lr, beta1, beta2, eps, wd, amsgrad, maximize, decoupled)
        return loss


class AdamW(Adam):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, *,
                 maximize=False, foreach=None, capturable=False, differentiable=False, fused=None):
        super().__init__(params, lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad,
                         foreach=foreach, maximize=maximize, capturable=capturable, differentiable=differentiable,
                         fused=fused, decoupled_weight_decay=True)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group["decoupled_weight_decay"] = True
