"""Adadelta (torch/optim/adadelta.py; single-tensor rule, one rounding per torch op so float16/bfloat16 params match torch)."""

from ._opmath import Ops
from .optimizer import _PerParamOptimizer, _check_lr, _closure_loss, _scalar_step, _set, _use_grad, _value, _zeros_like

__all__ = ["Adadelta"]


class Adadelta(_PerParamOptimizer):
    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *, capturable=False,
                 maximize=False, differentiable=False):
        _check_lr(lr)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize, capturable=capturable,
                        foreach=foreach, differentiable=differentiable)
        super().__init__(params, defaults)

    @staticmethod
    def _init(state, p):
        state["step"] = _scalar_step()
        state["square_avg"] = _zeros_like(p)
        state["acc_delta"] = _zeros_like(p)

    @_use_grad
    def step(self, closure=None):
        loss = _closure_loss(closure)
        for group in self.param_groups:
            lr, rho, eps, wd = _value(group["lr"]), group["rho"], group["eps"], group["weight_decay"]
            for p, state, f, grad, step in self._each(group, self._init):
                o = Ops(p._np.dtype)
                if wd != 0:
                    grad = o.add(grad, p._np, wd)
                sq, acc = state["square_avg"], state["acc_delta"]
                _set(sq, o.addcmul(o.mul(sq._np, rho), grad, grad, 1 - rho))
                std = o.sqrt(o.add_scalar(sq._np, eps))
                delta = o.tmul(o.tdiv(o.sqrt(o.add_scalar(acc._np, eps)), std), grad)
                _set(acc, o.addcmul(o.mul(acc._np, rho), delta, delta, 1 - rho))
                _set(p, o.add(p._np, delta, -lr))
        return loss
