"""RMSprop (torch/optim/rmsprop.py; single-tensor rule, one rounding per torch op so float16/bfloat16
params match torch)."""

from ._opmath import Ops
from .optimizer import (Optimizer, _check_lr, _closure_loss, _scalar_step, _set, _use_grad, _value, _zeros_like)

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=False,
                 capturable=False, foreach=None, maximize=False, differentiable=False):
        _check_lr(lr)
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= momentum:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= alpha:
            raise ValueError(f"Invalid alpha value: {alpha}")
        defaults = dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered, weight_decay=weight_decay,
                        capturable=capturable, foreach=foreach, maximize=maximize, differentiable=differentiable)
        super().__init__(params, defaults)

    @_use_grad
    def step(self, closure=None):
        loss = _closure_loss(closure)
        for group in self.param_groups:
            lr, alpha, eps, wd = _value(group["lr"]), group["alpha"], group["eps"], group["weight_decay"]
            momentum, centered, maximize = group["momentum"], group["centered"], group["maximize"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = _scalar_step()
                    state["square_avg"] = _zeros_like(p)
                    if momentum > 0:
                        state["momentum_buffer"] = _zeros_like(p)
                    if centered:
                        state["grad_avg"] = _zeros_like(p)
                o = Ops(p._np.dtype)
                grad = -p.grad._np if maximize else p.grad._np
                _set(state["step"], state["step"]._np + 1)
                if wd != 0:
                    grad = o.add(grad, p._np, wd)
                sq = state["square_avg"]
                _set(sq, o.addcmul(o.mul(sq._np, alpha), grad, grad, 1 - alpha))
                if centered:
                    ga = state["grad_avg"]
                    _set(ga, o.lerp(ga._np, grad, 1 - alpha))
                    avg = o.sqrt(o.addcmul(sq._np, ga._np, ga._np, -1))
                else:
                    avg = o.sqrt(sq._np)
                avg = o.add_scalar(avg, eps)
                if momentum > 0:
                    buf = state["momentum_buffer"]
                    _set(buf, o.addcdiv(o.mul(buf._np, momentum), grad, avg))
                    _set(p, o.add(p._np, buf._np, -lr))
                else:
                    _set(p, o.addcdiv(p._np, grad, avg, -lr))
        return loss
