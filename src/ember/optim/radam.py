"""RAdam (torch/optim/radam.py; single-tensor rule, one rounding per torch op so float16/bfloat16 params match torch)."""

from ._opmath import Ops
from .adam import _check_adam_args
from .optimizer import _PerParamOptimizer, _closure_loss, _scalar_step, _set, _use_grad, _value, _zeros_like

__all__ = ["RAdam"]


class RAdam(_PerParamOptimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, decoupled_weight_decay=False,
                 *, foreach=None, maximize=False, capturable=False, differentiable=False):
        _check_adam_args(lr, eps, betas, weight_decay)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, maximize=maximize, foreach=foreach,
                        capturable=capturable, decoupled_weight_decay=decoupled_weight_decay,
                        differentiable=differentiable)
        super().__init__(params, defaults)

    @staticmethod
    def _init(state, p):
        state["step"] = _scalar_step()
        state["exp_avg"] = _zeros_like(p)
        state["exp_avg_sq"] = _zeros_like(p)

    @_use_grad
    def step(self, closure=None):
        loss = _closure_loss(closure)
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            lr, eps, wd = _value(group["lr"]), group["eps"], group["weight_decay"]
            for p, state, f, grad, step in self._each(group, self._init):
                o = Ops(p._np.dtype)
                if wd != 0:
                    if group["decoupled_weight_decay"]:
                        _set(p, o.mul(p._np, 1 - lr * wd))
                    else:
                        grad = o.add(grad, p._np, wd)
                ea, eas = state["exp_avg"], state["exp_avg_sq"]
                _set(ea, o.lerp(ea._np, grad, 1 - beta1))
                _set(eas, o.addcmul(o.mul(eas._np, beta2), grad, grad, 1 - beta2))
                bias_correction1 = 1 - beta1 ** step
                bias_correction2 = 1 - beta2 ** step
                bcea = o.div(ea._np, bias_correction1)
                rho_inf = 2 / (1 - beta2) - 1
                rho_t = rho_inf - 2 * step * beta2 ** step / bias_correction2
                if rho_t > 5.0:
                    rect = ((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
                    adaptive = o.rdiv(bias_correction2 ** 0.5, o.add_scalar(o.sqrt(eas._np), eps))
                    upd = o.mul(o.tmul(o.mul(bcea, lr), adaptive), rect)
                else:
                    upd = o.mul(bcea, lr)
                _set(p, o.add(p._np, upd, -1.0))
        return loss
