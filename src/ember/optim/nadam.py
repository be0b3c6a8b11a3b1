"""NAdam (torch/optim/nadam.py; single-tensor rule, one rounding per torch op so float16/bfloat16 params match torch)."""
import numpy as np

from ._opmath import Ops
from .adam import _check_adam_args
from .optimizer import _PerParamOptimizer, _closure_loss, _scalar_step, _set, _use_grad, _value, _zeros_like

__all__ = ["NAdam"]


class NAdam(_PerParamOptimizer):
    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, momentum_decay=4e-3,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False):
        _check_adam_args(lr, eps, betas, weight_decay)
        if not 0.0 <= momentum_decay:
            raise ValueError(f"Invalid momentum_decay value: {momentum_decay}")
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, momentum_decay=momentum_decay,
                        decoupled_weight_decay=decoupled_weight_decay, maximize=maximize, foreach=foreach,
                        capturable=capturable, differentiable=differentiable)
        super().__init__(params, defaults)

    @staticmethod
    def _init(state, p):
        state["step"] = _scalar_step()
        state["mu_product"] = _scalar_step(1.0)
        state["exp_avg"] = _zeros_like(p)
        state["exp_avg_sq"] = _zeros_like(p)

    @_use_grad
    def step(self, closure=None):
        loss = _closure_loss(closure)
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            lr, eps, wd = _value(group["lr"]), group["eps"], group["weight_decay"]
            md = group["momentum_decay"]
            for p, state, f, grad, step in self._each(group, self._init):
                o = Ops(p._np.dtype)
                bias_correction2 = 1 - beta2 ** step
                if wd != 0:
                    if group["decoupled_weight_decay"]:
                        _set(p, o.mul(p._np, 1 - lr * wd))
                    else:
                        grad = o.add(grad, p._np, wd)
                mu = beta1 * (1.0 - 0.5 * 0.96 ** (step * md))
                mu_next = beta1 * (1.0 - 0.5 * 0.96 ** ((step + 1) * md))
                mp = state["mu_product"]
                _set(mp, mp._np * np.float32(mu))
                ea, eas = state["exp_avg"], state["exp_avg_sq"]
                _set(ea, o.lerp(ea._np, grad, 1 - beta1))
                _set(eas, o.addcmul(o.mul(eas._np, beta2), grad, grad, 1 - beta2))
                denom = o.add_scalar(o.sqrt(o.div(eas._np, bias_correction2)), eps)
                mu_product = mp.item()
                mu_product_next = mu_product * mu_next
                new = o.addcdiv(p._np, grad, denom, -lr * (1.0 - mu) / (1.0 - mu_product))
                _set(p, o.addcdiv(new, ea._np, denom, (-lr * mu_next) / (1.0 - mu_product_next)))
        return loss
