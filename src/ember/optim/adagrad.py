"""Adagrad (torch/optim/adagrad.py; single-tensor rule, one rounding per torch op so float16/bfloat16
params match torch)."""
import numpy as np

from ._opmath import Ops
from .optimizer import (Optimizer, _check_lr, _closure_loss, _scalar_step, _set, _use_grad, _value)
from .._tensor import Tensor

__all__ = ["Adagrad"]


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
                o = Ops(p._np.dtype)
                grad = -p.grad._np if group["maximize"] else p.grad._np
                _set(state["step"], state["step"]._np + 1)
                step = state["step"].item()
                if wd != 0:
                    grad = o.add(grad, p._np, wd)
                clr = lr / (1 + (step - 1) * lr_decay)
                s = state["sum"]
                _set(s, o.addcmul(s._np, grad, grad, 1))
                std = o.add_scalar(o.sqrt(s._np), eps)
                _set(p, o.addcdiv(p._np, grad, std, -clr))
        return loss
