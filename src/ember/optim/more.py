"""Adamax, NAdam, RAdam, Adadelta (torch/optim/{adamax,nadam,radam,adadelta}.py; single-tensor rules, one
rounding per torch op so float16/bfloat16 params match torch)."""
import numpy as np

from ._opmath import Ops
from .adam import _check_adam_args
from .optimizer import Optimizer, _check_lr, _closure_loss, _scalar_step, _set, _use_grad, _value, _zeros_like

__all__ = ["Adamax", "NAdam", "RAdam", "Adadelta"]


class _Base(Optimizer):
    def _each(self, group, init):
        for p in group["params"]:
            if p.grad is None:
                continue
            state = self.state[p]
            if len(state) == 0:
                init(state, p)
            f = p._np.dtype.type
            grad = -p.grad._np if group["maximize"] else p.grad._np
            _set(state["step"], state["step"]._np + 1)
            yield p, state, f, grad, state["step"].item()


class Adamax(_Base):
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


class NAdam(_Base):
    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, momentum_decay=4e-3,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False):
        _check_adam_args(lr, eps, betas, weight_decay)
        if not 0.0 <= momentum_decay:
            raise ValueError(f"Invalid momentum_decay value: {momentum_decay}")
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, momentum_decay=momentum_decay,
                        decoupled_weight_decay=decoupled_weight_decay, maximize=maximize, foreach=foreach,
                        capturable=capturable, differentiable=differentiable)
        super().__init__(params, defaults)

    @staticmethod
    def _init(state, p):
        state["step"] = _scalar_step()
        state["mu_product"] = _scalar_step(1.0)
        state["exp_avg"] = _zeros_like(p)
        state["exp_avg_sq"] = _zeros_like(p)

    @_use_grad
    def step(self, closure=None):
        loss = _closure_loss(closure)
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            lr, eps, wd = _value(group["lr"]), group["eps"], group["weight_decay"]
            md = group["momentum_decay"]
            for p, state, f, grad, step in self._each(group, self._init):
                o = Ops(p._np.dtype)
                bias_correction2 = 1 - beta2 ** step
                if wd != 0:
                    if group["decoupled_weight_decay"]:
                        _set(p, o.mul(p._np, 1 - lr * wd))
                    else:
                        grad = o.add(grad, p._np, wd)
                mu = beta1 * (1.0 - 0.5 * 0.96 ** (step * md))
                mu_next = beta1 * (1.0 - 0.5 * 0.96 ** ((step + 1) * md))
                mp = state["mu_product"]
                _set(mp, mp._np * np.float32(mu))
                ea, eas = state["exp_avg"], state["exp_avg_sq"]
                _set(ea, o.lerp(ea._np, grad, 1 - beta1))
                _set(eas, o.addcmul(o.mul(eas._np, beta2), grad, grad, 1 - beta2))
                denom = o.add_scalar(o.sqrt(o.div(eas._np, bias_correction2)), eps)
                mu_product = mp.item()
                mu_product_next = mu_product * mu_next
                new = o.addcdiv(p._np, grad, denom, -lr * (1.0 - mu) / (1.0 - mu_product))
                _set(p, o.addcdiv(new, ea._np, denom, (-lr * mu_next) / (1.0 - mu_product_next)))
        return loss


class RAdam(_Base):
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


class Adadelta(_Base):
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
