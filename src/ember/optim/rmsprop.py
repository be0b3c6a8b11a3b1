"""RMSprop and Adagrad (torch/optim/rmsprop.py, adagrad.py; single-tensor rules)."""
import numpy as np

from .optimizer import (Optimizer, _check_lr, _closure_loss, _scalar_step, _set, _use_grad, _value, _zeros_like)
from .._tensor import Tensor

__all__ = ["RMSprop", "Adagrad"]


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
                f = p._np.dtype.type
                grad = -p.grad._np if maximize else p.grad._np
                _set(state["step"], state["step"]._np + 1)
                if wd != 0:
                    grad = grad + f(wd) * p._np
                sq = state["square_avg"]
                _set(sq, sq._np * f(alpha) + f(1 - alpha) * grad * grad)
                if centered:
                    ga = state["grad_avg"]
                    w = 1 - alpha
                    _set(ga, ga._np + f(w) * (grad - ga._np) if w < 0.5 else grad - (grad - ga._np) * f(1 - w))
                    avg = np.sqrt(sq._np + f(-1) * ga._np * ga._np)
                else:
                    avg = np.sqrt(sq._np)
                avg = avg + f(eps)
                if momentum > 0:
                    buf = state["momentum_buffer"]
                    _set(buf, buf._np * f(momentum) + grad / avg)
                    _set(p, p._np + f(-lr) * buf._np)
                else:
                    _set(p, p._np + f(-lr) * (grad / avg))
        return loss


class Adagrad(Optimizer):
    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0, eps=1e-10,
                 foreach=None, *, maximize=False, differentiable=False, fused=None):
        _check_lr(lr)
        if not 0.0 <= lr_decay:
            raise ValueError(f"Invalid lr_decay value: {lr_decay}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= initial_accumulator_value:
            raise ValueError(f"Invalid initial_accumulator_value value: {initial_accumulator_value}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        defaults = dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                        initial_accumulator_value=initial_accumulator_value, foreach=foreach, maximize=maximize,
                        differentiable=differentiable, fused=fused)
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                state = self.state[p]
                state["step"] = _scalar_step()
                init_value = group["initial_accumulator_value"]
                state["sum"] = Tensor._wrap_np(np.full(p._size, init_value, dtype=p._np.dtype), p.dtype)

    @_use_grad
    def step(self, closure=None):
        loss = _closure_loss(closure)
        for group in self.param_groups:
            lr, lr_decay, eps, wd = _value(group["lr"]), group["lr_decay"], group["eps"], group["weight_decay"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                f = p._np.dtype.type
                grad = -p.grad._np if group["maximize"] else p.grad._np
                _set(state["step"], state["step"]._np + 1)
                step = state["step"].item()
                if wd != 0:
                    grad = grad + f(wd) * p._np
                clr = lr / (1 + (step - 1) * lr_decay)
                s = state["sum"]
                _set(s, s._np + f(1) * grad * grad)
                std = np.sqrt(s._np) + f(eps)
                _set(p, p._np + f(-clr) * (grad / std))
        return loss
