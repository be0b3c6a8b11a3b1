"""Adam (torch/optim/adam.py; single-tensor rule, torch's op order; one rounding per torch op, so
float16/bfloat16 params match torch bit for bit). AdamW (adamw.py) is Adam with decoupled weight decay."""
import math

import numpy as np

from ..kernels.cpu.runtime import clib
from ._opmath import Ops
from .._core import dtype as _D
from .._grad_mode import no_grad
from .optimizer import (Optimizer, _check_lr, _closure_loss, _compiling, _scalar_step, _set, _use_grad, _value,
                        _zeros_like)

__all__ = ["Adam"]


def _check_adam_args(lr, eps, betas, weight_decay):
    _check_lr(lr)
    if not 0.0 <= eps:
        raise ValueError(f"Invalid epsilon value: {eps}")
    if not 0.0 <= betas[0] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
    if not 0.0 <= betas[1] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
    if not 0.0 <= weight_decay:
        raise ValueError(f"Invalid weight_decay value: {weight_decay}")


def _adam_update(p, state, grad, lr, beta1, beta2, eps, wd, amsgrad, maximize, decoupled):
    """One parameter's update, in place on its buffers with two scratch arrays (no per-op dispatch, no
    fresh arrays per operation), each numpy op rounding exactly like torch's single-tensor step:
    p *= 1 - lr*wd | grad += wd*p;  m.lerp_(grad, 1-beta1);  v = v*beta2 + (1-beta2)*grad*grad;
    p += -step_size * (m / (sqrt(v) / sqrt(bc2) + eps))."""
    f = p._np.dtype.type
    pn = p._np
    step_t = state["step"]
    step_t._np[...] += 1
    step_t._version_counter.bump()
    if _adam_c(p, state, grad, lr, beta1, beta2, eps, wd, amsgrad, maximize, decoupled, float(step_t._np)):
        return
    if maximize:
        grad = -grad
    if wd != 0:
        if decoupled:
            pn *= f(1 - lr * wd)
        else:
            grad = grad + f(wd) * pn
    m, v = state["exp_avg"], state["exp_avg_sq"]
    mn, vn = m._np, v._np
    tmp = np.subtract(grad, mn)                         # lerp(m, grad, w) as torch rounds it
    w = 1 - beta1
    if w < 0.5:
        tmp *= f(w)
        mn += tmp
    else:
        tmp *= f(1 - w)
        np.subtract(grad, tmp, out=mn)
    np.multiply(grad, f(1 - beta2), out=tmp)
    tmp *= grad
    vn *= f(beta2)
    vn += tmp
    step = float(step_t._np)
    step_size = lr / (1 - beta1 ** step)
    bias_correction2_sqrt = math.sqrt(1 - beta2 ** step)
    if amsgrad:
        mx = state["max_exp_avg_sq"]
        np.maximum(mx._np, vn, out=mx._np)
        mx._version_counter.bump()
        vn = mx._np
    np.sqrt(vn, out=tmp)
    tmp /= f(bias_correction2_sqrt)
    tmp += f(eps)
    np.divide(mn, tmp, out=tmp)
    tmp *= f(-step_size)
    pn += tmp
    for t in (p, m, v):
        t._version_counter.bump()


def _adam_c(p, state, grad, lr, beta1, beta2, eps, wd, amsgrad, maximize, decoupled, step):
    """The same update as _adam_update's numpy ops, in one pass of kernels/cpu/csrc/adam.c (bit-identical);
    False when C is off or the buffers are not contiguous arrays of one float32/float64 dtype."""
    pn = p._np
    fn = _ADAM_C.get(pn.dtype)
    if fn is None:
        return False
    m, v = state["exp_avg"], state["exp_avg_sq"]
    mx = state["max_exp_avg_sq"] if amsgrad else None
    arrays = (pn, grad, m._np, v._np) + ((mx._np,) if amsgrad else ())
    for a in arrays:
        if a.dtype != pn.dtype or a.shape != pn.shape or not a.flags.c_contiguous:
            return False
    fn = clib.kernel("adam", fn, "pppppliiddidddddd")
    if fn is None:
        return False
    w = 1 - beta1
    bias_correction2_sqrt = math.sqrt(1 - beta2 ** step)
    fn(pn.ctypes.data, grad.ctypes.data, m._np.ctypes.data, v._np.ctypes.data, mx._np.ctypes.data if amsgrad else None,
       pn.size, bool(maximize), 0 if wd == 0 else 2 if decoupled else 1, wd, 1 - lr * wd, w < 0.5,
       w if w < 0.5 else 1 - w, beta2, 1 - beta2, bias_correction2_sqrt, eps, -(lr / (1 - beta1 ** step)))
    for t in (p, m, v) + ((mx,) if amsgrad else ()):
        t._version_counter.bump()
    return True


_ADAM_C = {np.dtype(np.float32): "adam_f32", np.dtype(np.float64): "adam_f64"}


def _adam_group_c(opt, items, lr, beta1, beta2, eps, wd, amsgrad, maximize, decoupled):
    """Every (param, state, grad) of a group in one call of csrc/adam.c's adam_<dtype>_multi (the same
    per-parameter update as _adam_c, without ~30 us of Python and ctypes per parameter). False, having
    changed nothing, when C is off or any buffer does not fit (one dtype, contiguous, same shapes); the
    caller then updates each parameter on its own. The buffers' addresses are cached on the optimizer,
    checked by array identity each step (a grad is a fresh array every backward, so it is read anew)."""
    dt = items[0][0]._np.dtype
    name = _ADAM_C.get(dt)
    fn = clib.kernel("adam", name + "_multi", "lppppiiddidddd") if name is not None else None
    if fn is None:
        return False
    cache = opt.__dict__.setdefault("_adam_c_ptrs", {})
    n = len(items)
    ptrs = np.empty((n, 5), np.int64)
    sizes = np.empty(n, np.int64)
    bufs = []
    for i, (p, state, grad) in enumerate(items):
        pn, mn, vn = p._np, state["exp_avg"]._np, state["exp_avg_sq"]._np
        mxn = state["max_exp_avg_sq"]._np if amsgrad else None
        c = cache.get(id(p))
        if c is None or c[0] is not pn or c[1] is not mn or c[2] is not vn or c[3] is not mxn:
            for a in (pn, mn, vn) + ((mxn,) if amsgrad else ()):
                if a.dtype != dt or a.shape != pn.shape or not a.flags.c_contiguous:
                    return False
            c = cache[id(p)] = (pn, mn, vn, mxn, [a.ctypes.data if a is not None else 0 for a in (pn, mn, vn, mxn)])
        if grad.dtype != dt or grad.shape != pn.shape or not grad.flags.c_contiguous:
            return False
        row = c[4]
        ptrs[i] = (row[0], grad.ctypes.data, row[1], row[2], row[3])
        sizes[i] = pn.size
        bufs.append(grad)                   # alive until the call returns
    steps = []
    for p, state, _ in items:
        step_t = state["step"]
        step_t._np[...] += 1
        step_t._version_counter.bump()
        steps.append(float(step_t._np))
    neg_ss = np.array([-(lr / (1 - beta1 ** st)) for st in steps])
    bc2 = np.array([math.sqrt(1 - beta2 ** st) for st in steps])
    w = 1 - beta1
    fn(n, ptrs.ctypes.data, sizes.ctypes.data, neg_ss.ctypes.data, bc2.ctypes.data, bool(maximize),
       0 if wd == 0 else 2 if decoupled else 1, wd, 1 - lr * wd, w < 0.5, w if w < 0.5 else 1 - w, beta2, 1 - beta2,
       eps)
    for p, state, _ in items:
        p._version_counter.bump()
        state["exp_avg"]._version_counter.bump()
        state["exp_avg_sq"]._version_counter.bump()
        if amsgrad:
            state["max_exp_avg_sq"]._version_counter.bump()
    return True


def _adam_states(opt):
    """Per group, the (param, state) pairs of the parameters with a gradient, their states made on the first step.
    It indexes a dict by tensors, so under ember.compile this call runs eagerly at a graph break and the update
    after it is captured (with the states' tensors as guarded graph inputs)."""
    out = []
    for group in opt.param_groups:
        pairs = []
        for p in group["params"]:
            if p.grad is None:
                continue
            state = opt.state[p]
            if len(state) == 0:
                state["step"] = _scalar_step()
                state["exp_avg"] = _zeros_like(p)
                state["exp_avg_sq"] = _zeros_like(p)
                if group["amsgrad"]:
                    state["max_exp_avg_sq"] = _zeros_like(p)
            pairs.append((p, state))
        out.append(pairs)
    return out


def _working(t, low):
    """The value a captured update computes with: float32 for a float16/bfloat16 tensor (`low`), else t."""
    return t.float() if low else t


def _adam_update_captured(opt, pairs):
    """Adam's update as tensor ops, the path ember.compile captures: each parameter's update (p, exp_avg,
    exp_avg_sq, step) becomes one fused kernel writing them in place. The same ops and roundings as _adam_update
    for float32/64 (the bias corrections in float64, as eager's Python floats). float16/bfloat16 parameters and
    their moments are read into float32, updated there and stored back rounded once, as torch's inductor computes
    them (eager rounds after every op: results differ from eager's by a rounding or so)."""
    for group, pairs in zip(opt.param_groups, pairs):
        beta1, beta2 = group["betas"]
        lr, eps, wd = group["lr"], group["eps"], group["weight_decay"]
        amsgrad, maximize, decoupled = group["amsgrad"], group["maximize"], group["decoupled_weight_decay"]
        for p, state in pairs:
            low = p.dtype.itemsize == 2
            pw = _working(p, low)
            grad = _working(p.grad, low)
            if maximize:
                grad = -grad
            step_t = state["step"]
            step_t.add_(1)
            if wd != 0:
                if decoupled:
                    pw = pw * (1 - lr * wd)
                else:
                    grad = grad.add(pw, alpha=wd)
            m, v = state["exp_avg"], state["exp_avg_sq"]
            m_new = _working(m, low).lerp(grad, 1 - beta1)
            v_new = _working(v, low) * beta2 + grad * (1 - beta2) * grad
            m.copy_(m_new)
            v.copy_(v_new)
            step = step_t.to(dtype=_D.float64)
            step_size = (lr / (1 - beta1 ** step)).to(dtype=pw.dtype)
            bc2_sqrt = (1 - beta2 ** step).sqrt().to(dtype=pw.dtype)
            if amsgrad:
                mx = state["max_exp_avg_sq"]
                v_new = _working(mx, low).maximum(v_new)
                mx.copy_(v_new)
            denom = v_new.sqrt() / bc2_sqrt + eps
            p.copy_(pw + m_new / denom * -step_size)


class Adam(Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *,
                 foreach=None, maximize=False, capturable=False, differentiable=False, fused=None,
                 decoupled_weight_decay=False):
        _check_adam_args(lr, eps, betas, weight_decay)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad, maximize=maximize,
                        foreach=foreach, capturable=capturable, differentiable=differentiable, fused=fused,
                        decoupled_weight_decay=decoupled_weight_decay)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("amsgrad", False)
            group.setdefault("maximize", False)
            group.setdefault("foreach", None)
            group.setdefault("capturable", False)
            group.setdefault("differentiable", False)
            group.setdefault("decoupled_weight_decay", False)
            group.setdefault("fused", None)

    def step(self, closure=None):
        if _compiling():
            # under ember.compile: the states eagerly (a graph break), the update captured
            loss = _closure_loss(closure)
            pairs = _adam_states(self)
            with no_grad():
                _adam_update_captured(self, pairs)
            return loss
        return self._step(closure)

    @_use_grad
    def _step(self, closure=None):
        loss = _closure_loss(closure)
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            beta1, beta2 = _value(beta1), _value(beta2)
            lr, eps, wd = _value(group["lr"]), group["eps"], group["weight_decay"]
            amsgrad, maximize, decoupled = group["amsgrad"], group["maximize"], group["decoupled_weight_decay"]
            full = []
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = _scalar_step()
                    state["exp_avg"] = _zeros_like(p)
                    state["exp_avg_sq"] = _zeros_like(p)
                    if amsgrad:
                        state["max_exp_avg_sq"] = _zeros_like(p)
                if p._np.dtype.itemsize == 2:   # float16/bfloat16: torch's one rounding per op (see _opmath)
                    o = Ops(p._np.dtype)
                    grad = p.grad._np
                    if maximize:
                        grad = o.neg(grad)
                    step_t = state["step"]
                    _set(step_t, step_t._np + 1)
                    if wd != 0:
                        if decoupled:
                            _set(p, o.mul(p._np, 1 - lr * wd))
                        else:
                            grad = o.add(grad, p._np, wd)
                    exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
                    _set(exp_avg, o.lerp(exp_avg._np, grad, 1 - beta1))
                    _set(exp_avg_sq, o.addcmul(o.mul(exp_avg_sq._np, beta2), grad, grad, 1 - beta2))
                    step = step_t.item()
                    bias_correction1 = 1 - beta1 ** step
                    bias_correction2 = 1 - beta2 ** step
                    step_size = lr / bias_correction1
                    bias_correction2_sqrt = math.sqrt(bias_correction2)
                    if amsgrad:
                        mx = state["max_exp_avg_sq"]
                        _set(mx, o.maximum(mx._np, exp_avg_sq._np))
                        sq = mx._np
                    else:
                        sq = exp_avg_sq._np
                    denom = o.add_scalar(o.div(o.sqrt(sq), bias_correction2_sqrt), eps)
                    _set(p, o.addcdiv(p._np, exp_avg._np, denom, -step_size))
                else:                            # float32/float64: one C call per group below, or numpy
                    full.append((p, state, p.grad._np))
            if full and not _adam_group_c(self, full, lr, beta1, beta2, eps, wd, amsgrad, maximize, decoupled):
                for p, state, grad in full:
                    _adam_update(p, state, grad, lr, beta1, beta2, eps, wd, amsgrad, maximize, decoupled)
        return loss
