"""Adam / AdamW (torch/optim/adam.py, adamw.py; single-tensor rule, torch's op order;
one rounding per torch op, so float16/bfloat16 params match torch bit for bit)."""
import math

from ._opmath import Ops
from .optimizer import (Optimizer, _check_lr, _closure_loss, _scalar_step, _set, _use_grad, _value, _zeros_like)

__all__ = ["Adam", "AdamW"]


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
                o = Ops(p._np.dtype)
                grad = p.grad._np
                if maximize:
                    grad = o.neg(grad)
                step_t = state["step"]
                _set(step_t, step_t._np + 1)
                if wd != 0:
                    if decoupled:
                        _set(p, o.mul(p._np, 1 - lr * wd))
                    else:
                        grad = o.add(grad, p._np, wd)
                exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
                _set(exp_avg, o.lerp(exp_avg._np, grad, 1 - beta1))
                _set(exp_avg_sq, o.addcmul(o.mul(exp_avg_sq._np, beta2), grad, grad, 1 - beta2))
                step = step_t.item()
                bias_correction1 = 1 - beta1 ** step
                bias_correction2 = 1 - beta2 ** step
                step_size = lr / bias_correction1
                bias_correction2_sqrt = math.sqrt(bias_correction2)
                if amsgrad:
                    mx = state["max_exp_avg_sq"]
                    _set(mx, o.maximum(mx._np, exp_avg_sq._np))
                    sq = mx._np
                else:
                    sq = exp_avg_sq._np
                denom = o.add_scalar(o.div(o.sqrt(sq), bias_correction2_sqrt), eps)
                _set(p, o.addcdiv(p._np, exp_avg._np, denom, -step_size))
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
