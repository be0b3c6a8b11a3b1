"""Adamax (torch/optim/adamax.py; single-tensor rule, one rounding per torch op so float16/bfloat16 params match torch)."""

from ._opmath import Ops
from .adam import _check_adam_args
from .optimizer import _PerParamOptimizer, _closure_loss, _scalar_step, _set, _use_grad, _value, _zeros_like

__all__ = ["Adamax"]


class Adamax(_PerParamOptimizer):
    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, foreach=None, *,
                 maximize=False, differentiable=False, capturable=False):
        _check_adam_args(lr, eps, betas, weight_decay)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, foreach=foreach, maximize=maximize,
                        differentiable=differentiable, capturable=capturable)
        super().__init__(params, defaults)

    @staticmethod
    def _init(state, p):
        state["step"] = _scalar_step()
        state["exp_avg"] = _zeros_like(p)
        state["exp_inf"] = _zeros_like(p)

    @_use_grad
    def step(self, closure=None):
        loss = _closure_loss(closure)
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            lr, eps, wd = _value(group["lr"]), group["eps"], group["weight_decay"]
            for p, state, f, grad, step in self._each(group, self._init):
                o = Ops(p._np.dtype)
                if wd != 0:
                    grad = o.add(grad, p._np, wd)
                ea, ei = state["exp_avg"], state["exp_inf"]
                _set(ea, o.lerp(ea._np, grad, 1 - beta1))
                _set(ei, o.maximum(o.mul(ei._np, beta2), o.add_scalar(o.abs(grad), eps)))
                clr = lr / (1 - beta1 ** step)
                _set(p, o.addcdiv(p._np, ea._np, ei._np, -clr))
        return loss
