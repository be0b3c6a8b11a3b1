"""Rprop (torch/optim/rprop.py; single-tensor rule, one rounding per torch op so float16/bfloat16 params match
torch): each element's step size grows by etaplus while its gradient keeps its sign, shrinks by etaminus when
the sign flips (and that step is skipped), clamped to step_sizes; the parameter moves by -sign(grad) * step size."""
import numpy as np

from ._opmath import Ops
from .optimizer import _PerParamOptimizer, _check_lr, _closure_loss, _scalar_step, _set, _use_grad, _value, _zeros_like
from .._tensor import Tensor

__all__ = ["Rprop"]


class Rprop(_PerParamOptimizer):
    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *, capturable=False, foreach=None,
                 maximize=False, differentiable=False):
        _check_lr(lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        defaults = dict(lr=lr, etas=etas, step_sizes=step_sizes, foreach=foreach, maximize=maximize,
                        differentiable=differentiable, capturable=capturable)
        super().__init__(params, defaults)

    @_use_grad
    def step(self, closure=None):
        loss = _closure_loss(closure)
        for group in self.param_groups:
            etaminus, etaplus = group["etas"]
            lo, hi = group["step_sizes"]
            lr = _value(group["lr"])

            def init(state, p, lr=lr):
                if p.dtype.is_complex:
                    raise NotImplementedError("Rprop of complex parameters is not implemented in ember")
                state["step"] = _scalar_step()
                state["prev"] = _zeros_like(p)
                state["step_size"] = Tensor._wrap_np(np.full(p._size, lr, dtype=p._np.dtype), p.dtype)

            for p, state, f, grad, step in self._each(group, init):
                o = Ops(p._np.dtype)
                prev, size = state["prev"], state["step_size"]
                sign = np.sign(o.tmul(grad, prev._np))
                factor = np.where(sign > 0, f(etaplus), np.where(sign < 0, f(etaminus), f(1)))
                _set(size, np.clip(o.tmul(size._np, factor), f(lo), f(hi)))
                grad = np.where(factor == f(etaminus), f(0), grad)
                _set(p, o.addcmul(p._np, np.sign(grad), size._np, -1))
                _set(prev, grad)
        return loss
