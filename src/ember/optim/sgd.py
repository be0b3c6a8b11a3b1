"""SGD with momentum, dampening, nesterov, weight decay, maximize (torch/optim/sgd.py, single-tensor rule)."""
import numpy as np

from .optimizer import Optimizer, _check_lr, _closure_loss, _set, _use_grad, _value
from .._tensor import Tensor

__all__ = ["SGD"]


class SGD(Optimizer):
    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False, *, maximize=False,
                 foreach=None, differentiable=False, fused=None):
        _check_lr(lr)
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay, nesterov=nesterov,
                        maximize=maximize, foreach=foreach, differentiable=differentiable, fused=fused)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("nesterov", False)
            group.setdefault("maximize", False)
            group.setdefault("foreach", None)
            group.setdefault("differentiable", False)
            group.setdefault("fused", False)

    @_use_grad
    def step(self, closure=None):
        loss = _closure_loss(closure)
        for group in self.param_groups:
            lr, momentum, dampening = _value(group["lr"]), group["momentum"], group["dampening"]
            weight_decay, nesterov, maximize = group["weight_decay"], group["nesterov"], group["maximize"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                f = p._np.dtype.type
                grad = p.grad._np
                if maximize:
                    grad = -grad
                if weight_decay != 0:
                    grad = grad + f(weight_decay) * p._np
                if momentum != 0:
                    state = self.state[p]
                    buf = state.get("momentum_buffer")
                    if buf is None:
                        buf = Tensor._wrap_np(np.array(grad, copy=True), p.dtype)
                    else:
                        _set(buf, buf._np * f(momentum) + f(1 - dampening) * grad)
                    state["momentum_buffer"] = buf
                    grad = grad + f(momentum) * buf._np if nesterov else buf._np
                _set(p, p._np + f(-lr) * grad)
        return loss
