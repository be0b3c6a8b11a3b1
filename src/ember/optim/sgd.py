"""SGD with momentum, dampening, nesterov, weight decay, maximize (torch/optim/sgd.py, single-tensor rule;
one rounding per torch op, so float16/bfloat16 params match torch bit for bit)."""
import numpy as np

from ..kernels.cpu.runtime import clib
from ._opmath import Ops
from .._core import dtype as _D
from .._grad_mode import no_grad
from .._tensor import Tensor
from .optimizer import Optimizer, _check_lr, _closure_loss, _compiling, _set, _use_grad, _value

__all__ = ["SGD"]


def _sgd_update(p, state, grad, lr, momentum, dampening, weight_decay, nesterov, maximize):
    """One parameter's update in place (torch's single-tensor rounding: buf = buf*momentum +
    (1-dampening)*grad; p += -lr*grad), with one scratch array instead of a fresh array per operation."""
    f = p._np.dtype.type
    pn = p._np
    if momentum != 0 and _sgd_c(p, state, grad, lr, momentum, dampening, weight_decay, nesterov, maximize):
        return
    if maximize:
        grad = -grad
    if weight_decay != 0:
        grad = grad + f(weight_decay) * pn
    if momentum != 0:
        buf = state.get("momentum_buffer")
        if buf is None:
            buf = state["momentum_buffer"] = Tensor._wrap_np(np.array(grad, copy=True), p.dtype)
        else:
            bn = buf._np
            bn *= f(momentum)
            bn += grad if dampening == 0 else grad * f(1 - dampening)
            buf._version_counter.bump()
        grad = grad + f(momentum) * buf._np if nesterov else buf._np
    tmp = np.multiply(grad, f(-lr))
    pn += tmp
    p._version_counter.bump()


_SGD_C = {np.dtype(np.float32): "sgd_momentum_f32", np.dtype(np.float64): "sgd_momentum_f64"}


def _sgd_c(p, state, grad, lr, momentum, dampening, weight_decay, nesterov, maximize):
    """_sgd_update's momentum step (the buffer already made) in one pass of kernels/cpu/csrc/sgd.c, the same
    operations in the same order (bit-identical); False, having changed nothing, when C is off or the arrays are
    not contiguous of the parameter's float32/float64 dtype and shape."""
    pn = p._np
    name = _SGD_C.get(pn.dtype)
    buf = state.get("momentum_buffer")
    if name is None or buf is None:
        return False
    bn = buf._np
    for a in (pn, grad, bn):
        if a.dtype != pn.dtype or a.shape != pn.shape or not a.flags.c_contiguous:
            return False
    if np.may_share_memory(pn, grad) or np.may_share_memory(pn, bn) or np.may_share_memory(grad, bn):
        return False
    fn = clib.kernel("sgd", name, "pppliiiidddd")
    if fn is None:
        return False
    fn(pn.ctypes.data, grad.ctypes.data, bn.ctypes.data, pn.size, bool(maximize), weight_decay != 0,
       dampening != 0, bool(nesterov), weight_decay, momentum, 1 - dampening, -lr)
    buf._version_counter.bump()
    p._version_counter.bump()
    return True


def _sgd_states(opt):
    """Per group, (param, momentum buffer or None, first) for the parameters with a gradient; a missing buffer is
    made now. It indexes a dict by tensors: under ember.compile this call runs eagerly at a graph break and the
    update after it is captured, so that nothing it returns may differ in a guarded Python value between the
    first step and the next ones (torch's compiled step does not recompile after the first step either):
      - no dampening: a missing buffer is made as zeros: the update's buf * momentum + grad is then eager's first
        buffer (the gradient), and `first` is None;
      - dampening: eager's first buffer is the gradient itself, not buf * momentum + (1 - dampening) * grad, so
        `first` is a 0-dim bool tensor (a graph input whose value is not guarded) that the update's `where`
        reads."""
    out = []
    for group in opt.param_groups:
        rows = []
        momentum, dampening = group["momentum"], group["dampening"]
        for p in group["params"]:
            if p.grad is None:
                continue
            buf, first = None, None
            if momentum != 0:
                state = opt.state[p]
                buf = state.get("momentum_buffer")
                fresh = buf is None
                if fresh:
                    buf = state["momentum_buffer"] = Tensor._wrap_np(np.zeros_like(p._np), p.dtype)
                if dampening != 0:
                    first = Tensor._wrap_np(np.array(fresh), _D.bool_)
            rows.append((p, buf, first))
        out.append(rows)
    return out


def _sgd_update_captured(opt, states):
    """SGD's update as tensor ops, the path ember.compile captures (one fused kernel per parameter writing it and its
    momentum buffer in place); eager's ops and roundings for float32/float64. float16/bfloat16 parameters (and their
    buffers) are read into float32, updated there and stored back rounded once, as torch's inductor computes them
    (eager rounds after every op: results differ from eager's by a rounding or so)."""
    for group, rows in zip(opt.param_groups, states):
        lr, momentum, dampening = group["lr"], group["momentum"], group["dampening"]
        wd, nesterov, maximize = group["weight_decay"], group["nesterov"], group["maximize"]
        for p, buf, first in rows:
            low = p.dtype.itemsize == 2
            pw = p.float() if low else p
            grad = p.grad.float() if low else p.grad
            if maximize:
                grad = -grad
            if wd != 0:
                grad = grad + pw * wd
            if momentum != 0:
                bw = buf.float() if low else buf
                new = bw * momentum + (grad if dampening == 0 else grad * (1 - dampening))
                if first is not None:
                    new = grad.where(first, new)
                buf.copy_(new)
                grad = grad + new * momentum if nesterov else new
            p.copy_(pw + grad * -lr)


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

    def step(self, closure=None):
        if _compiling():
            loss = _closure_loss(closure)          # under ember.compile: see _sgd_update_captured
            states = _sgd_states(self)
            with no_grad():
                _sgd_update_captured(self, states)
            return loss
        return self._step(closure)

    @_use_grad
    def _step(self, closure=None):
        loss = _closure_loss(closure)
        for group in self.param_groups:
            lr, momentum, dampening = _value(group["lr"]), group["momentum"], group["dampening"]
            weight_decay, nesterov, maximize = group["weight_decay"], group["nesterov"], group["maximize"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                if p._np.dtype.itemsize == 2:   # float16/bfloat16: torch's one rounding per op (see _opmath)
                    o = Ops(p._np.dtype)
                    grad = p.grad._np
                    if maximize:
                        grad = o.neg(grad)
                    if weight_decay != 0:
                        grad = o.add(grad, p._np, weight_decay)
                    if momentum != 0:
                        state = self.state[p]
                        buf = state.get("momentum_buffer")
                        if buf is None:
                            buf = Tensor._wrap_np(np.array(grad, copy=True), p.dtype)
                        else:
                            _set(buf, o.add(o.mul(buf._np, momentum), grad, 1 - dampening))
                        state["momentum_buffer"] = buf
                        grad = o.add(grad, buf._np, momentum) if nesterov else buf._np
                    _set(p, o.add(p._np, grad, -lr))
                else:                            # float32/float64: in place, few scratch arrays
                    _sgd_update(p, self.state[p] if momentum != 0 else None, p.grad._np, lr, momentum, dampening,
                                weight_decay, nesterov, maximize)
        return loss
