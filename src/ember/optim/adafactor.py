"""Adafactor (torch/optim/_adafactor.py; single-tensor rule): second moments of a matrix kept factored as a row
and a column mean of the squared gradient (a full one for vectors), the relative step size min(lr, 1/sqrt(t))
scaled by the parameter's RMS, and the update clipped to RMS d."""
import math

from .._dtype_info import finfo
from .optimizer import _PerParamOptimizer, _closure_loss, _scalar_step, _use_grad, _value, _zeros_like, Tensor

__all__ = ["Adafactor"]


class Adafactor(_PerParamOptimizer):
    def __init__(self, params, lr=1e-2, beta2_decay=-0.8, eps=(None, 1e-3), d=1.0, weight_decay=0.0, *,
                 foreach=None, maximize=False):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= _value(lr):
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 >= beta2_decay:
            raise ValueError(f"beta2_decay should be <= 0 but is: {beta2_decay}")
        if eps[0] is not None and not 0.0 <= eps[0]:
            raise ValueError(f"epsilon1 should be >= 0 but is: {eps[0]}")
        if not 0.0 <= eps[1]:
            raise ValueError(f"epsilon2 should be >= 0 but is: {eps[1]}")
        if not 1.0 <= d:
            raise ValueError(f"Clipping threshold d should be >= 1 but is: {d}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight_decay should be >= 0 but is: {weight_decay}")
        defaults = dict(lr=lr, beta2_decay=beta2_decay, eps=eps, d=d, weight_decay=weight_decay, foreach=foreach,
                        maximize=maximize)
        super().__init__(params, defaults)

    @staticmethod
    def _init(state, p):
        state["step"] = _scalar_step()
        if p.grad.dim() > 1:
            state["row_var"] = p.grad.new_zeros(list(p.grad.shape[:-1]) + [1])
            state["col_var"] = p.grad.new_zeros(list(p.grad.shape[:-2]) + [1, p.grad.shape[-1]])
        else:
            state["variance"] = _zeros_like(p)

    @_use_grad
    def step(self, closure=None):
        loss = _closure_loss(closure)
        for group in self.param_groups:
            lr, beta2_decay, (eps1, eps2) = _value(group["lr"]), group["beta2_decay"], group["eps"]
            d, wd, maximize = group["d"], group["weight_decay"], group["maximize"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                if p.dtype.is_complex:
                    raise NotImplementedError("Adafactor of complex parameters is not implemented in ember")
                state = self.state[p]
                if len(state) == 0:
                    self._init(state, p)
                grad = -p.grad if maximize else p.grad
                e1 = finfo(p.dtype).eps if eps1 is None else eps1
                state["step"].add_(1)
                t = state["step"].item()
                one_minus_beta2 = t ** beta2_decay
                rho = min(lr, 1 / (t ** 0.5))
                alpha = max(eps2, p.norm(2).item() / (p.numel() ** 0.5)) * rho
                if wd != 0:
                    p.mul_(1 - lr * wd)
                if grad.dim() > 1:
                    row_var, col_var = state["row_var"], state["col_var"]
                    row_var.lerp_(grad.norm(dim=-1, keepdim=True).square_().div_(grad.size(-1)), one_minus_beta2)
                    col_var.lerp_(grad.norm(dim=-2, keepdim=True).square_().div_(grad.size(-2)), one_minus_beta2)
                    var_estimate = row_var @ col_var
                    var_estimate.div_(row_var.mean(dim=-2, keepdim=True).clamp_(min=e1))
                else:
                    variance = state["variance"]
                    variance.lerp_(grad * grad, one_minus_beta2)
                    var_estimate = variance.clone()
                update = var_estimate.clamp_(min=e1 * e1).rsqrt_()
                update.mul_(grad)
                denom = max(1.0, update.norm(2).item() / (math.sqrt(update.numel()) * d))
                p.add_(update, alpha=-alpha / denom)
        return loss


