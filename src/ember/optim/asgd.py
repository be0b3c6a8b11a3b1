"""ASGD, averaged SGD (torch/optim/asgd.py; single-tensor rule): SGD with a decaying step eta and weight decay
lambd, keeping in state["ax"] the running average of the iterates from step t0 on (mu = 1 / max(1, step - t0))."""
import numpy as np

from .._core import dtype as D
from .._tensor import Tensor
from ._opmath import Ops
from .optimizer import _PerParamOptimizer, _check_lr, _closure_loss, _scalar_step, _set, _use_grad, _value, _zeros_like

__all__ = ["ASGD"]


def _scalar(v):
    return Tensor._wrap_np(np.array(v, dtype=np.float32), D.float32)


class ASGD(_PerParamOptimizer):
    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0, foreach=None,
                 maximize=False, differentiable=False, capturable=False):
        _check_lr(lr)
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0, weight_decay=weight_decay, foreach=foreach,
                        maximize=maximize, differentiable=differentiable, capturable=capturable)
        super().__init__(params, defaults)

    @_use_grad
    def step(self, closure=None):
        loss = _closure_loss(closure)
        for group in self.param_groups:
            lr, lambd, alpha, t0, wd = (_value(group["lr"]), group["lambd"], group["alpha"], group["t0"],
                                        group["weight_decay"])

            def init(state, p, lr=lr):
                state["step"] = _scalar_step()
                state["eta"] = _scalar(lr)
                state["mu"] = _scalar(1.0)
                state["ax"] = _zeros_like(p)

            for p, state, f, grad, step in self._each(group, init):
                o = Ops(p._np.dtype)
                if wd != 0:
                    grad = o.add(grad, p._np, wd)
                eta = state["eta"].item()
                _set(p, o.mul(p._np, 1 - lambd * eta))
                _set(p, o.add(p._np, grad, -eta))
                ax, mu = state["ax"], state["mu"].item()
                if mu != 1:
                    _set(ax, o.add(ax._np, o.mul(o.add(p._np, ax._np, -1), mu)))
                else:
                    _set(ax, p._np)
                _set(state["eta"], lr / ((1 + lambd * lr * step) ** alpha))
                _set(state["mu"], 1 / max(1, step - t0))
        return loss
