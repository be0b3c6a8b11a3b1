"""cpu kernels of the fused recurrent cells (torch's CUDA kernels in aten/src/ATen/native/cuda/RNN.cu, run here
on numpy): the pointwise part of an LSTM or GRU step in a few numpy passes, writing the activated gates to the
workspace the backward reads. Half precision computes in float32."""
import numpy as np

from ..meta import rnn as M
from .runtime.arrays import acc, wrap


def _sigmoid_(a):
    """a = 1 / (1 + exp(-a)) in place (exp overflowing to inf gives the exact limit 0)."""
    np.negative(a, out=a)
    np.exp(a, out=a)
    a += 1
    np.reciprocal(a, out=a)


def _gates(input_gates, hidden_gates, input_bias, hidden_bias):
    w = np.add(acc(input_gates), acc(hidden_gates))
    if input_bias is not None:
        w += acc(input_bias)
    if hidden_bias is not None:
        w += acc(hidden_bias)
    return w


def _thnn_fused_lstm_cell(input_gates, hidden_gates, cx, input_bias=None, hidden_bias=None):
    """hy, cy and the workspace [i, f, g, o] (the activated gates, (N, 4H)) of one LSTM step."""
    _, h = M._check_cell(input_gates, hidden_gates, cx, input_bias, hidden_bias, 4, "_thnn_fused_lstm_cell")
    w = _gates(input_gates, hidden_gates, input_bias, hidden_bias)
    with np.errstate(over="ignore"):
        g = np.tanh(w[:, 2 * h:3 * h])
        _sigmoid_(w)
    w[:, 2 * h:3 * h] = g
    cy = np.multiply(w[:, h:2 * h], acc(cx))            # f * c + i * g
    g *= w[:, :h]
    cy += g
    hy = np.tanh(cy)
    hy *= w[:, 3 * h:]                                  # o * tanh(cy)
    dt = input_gates.dtype
    return wrap(hy, dt, fresh=True), wrap(cy, dt, fresh=True), wrap(w, dt, fresh=True)


def _thnn_fused_lstm_cell_backward_impl(grad_hy, grad_cy, cx, cy, workspace, has_bias):
    """(grad of the gates (N, 4H), grad of cx, grad of the bias or None) from the saved workspace."""
    w = acc(workspace)
    h = w.shape[1] // 4
    i, f, g, o = w[:, :h], w[:, h:2 * h], w[:, 2 * h:3 * h], w[:, 3 * h:]
    gates = np.empty_like(w)
    gi, gf, gg, go = gates[:, :h], gates[:, h:2 * h], gates[:, 2 * h:3 * h], gates[:, 3 * h:]
    if grad_hy is not None:
        dh = acc(grad_hy)
        tc = np.tanh(acc(cy))
        np.subtract(1, o, out=go)                       # dh * tanh(cy) * o (1 - o)
        go *= o
        go *= tc
        go *= dh
        np.multiply(tc, tc, out=tc)                     # gcx = dh * o * (1 - tanh(cy)^2) (+ grad_cy)
        np.subtract(1, tc, out=tc)
        tc *= o
        tc *= dh
        gcx = tc
        if grad_cy is not None:
            gcx += acc(grad_cy)
    else:
        go[...] = 0
        gcx = acc(grad_cy) if grad_cy is not None else np.zeros(o.shape, w.dtype)
    np.subtract(1, i, out=gi)                           # gcx * g * i (1 - i)
    gi *= i
    gi *= g
    gi *= gcx
    np.subtract(1, f, out=gf)                           # gcx * cx * f (1 - f)
    gf *= f
    gf *= acc(cx)
    gf *= gcx
    np.multiply(g, g, out=gg)                           # gcx * i * (1 - g^2)
    np.subtract(1, gg, out=gg)
    gg *= i
    gg *= gcx
    dt = workspace.dtype
    grad_cx = np.multiply(gcx, f)
    grad_bias = wrap(gates.sum(0), dt, fresh=True) if has_bias else None
    return wrap(gates, dt, fresh=True), wrap(grad_cx, dt, fresh=True), grad_bias


def _thnn_fused_gru_cell(input_gates, hidden_gates, hx, input_bias=None, hidden_bias=None):
    """hy and the workspace [r, z, n, hx, hn + b_hn] ((N, 5H), torch's layout) of one GRU step."""
    n, h = M._check_cell(input_gates, hidden_gates, hx, input_bias, hidden_bias, 3, "_thnn_fused_gru_cell")
    gi, gh = acc(input_gates), acc(hidden_gates)
    ws = np.empty((n, 5 * h), gi.dtype)
    rz, ng, hn = ws[:, :2 * h], ws[:, 2 * h:3 * h], ws[:, 4 * h:]
    np.add(gi[:, :2 * h], gh[:, :2 * h], out=rz)
    if input_bias is not None:
        b = acc(input_bias)
        rz += b[:2 * h]
    if hidden_bias is not None:
        bh = acc(hidden_bias)
        rz += bh[:2 * h]
        np.add(gh[:, 2 * h:], bh[2 * h:], out=hn)
    else:
        hn[...] = gh[:, 2 * h:]
    with np.errstate(over="ignore"):
        _sigmoid_(rz)
    np.multiply(ws[:, :h], hn, out=ng)                  # n = tanh(i_n + b_in + r * (h_n + b_hn))
    ng += gi[:, 2 * h:]
    if input_bias is not None:
        ng += b[2 * h:]
    np.tanh(ng, out=ng)
    x = acc(hx)
    ws[:, 3 * h:4 * h] = x
    hy = np.subtract(x, ng)                             # n + z * (hx - n)
    hy *= ws[:, h:2 * h]
    hy += ng
    dt = input_gates.dtype
    return wrap(hy, dt, fresh=True), wrap(ws, dt, fresh=True)


def _thnn_fused_gru_cell_backward(grad_hy, workspace, has_bias):
    """(grad of the input gates, of the hidden gates (N, 3H), of hx, of the two biases or None)."""
    ws = acc(workspace)
    h = ws.shape[1] // 5
    r, z, ng, x, hn = (ws[:, k * h:(k + 1) * h] for k in range(5))
    dh = acc(grad_hy)
    gin_all = np.empty((ws.shape[0], 3 * h), ws.dtype)
    grg, gz, gin = gin_all[:, :h], gin_all[:, h:2 * h], gin_all[:, 2 * h:]
    np.subtract(x, ng, out=gz)                          # dh * (hx - n) * z (1 - z)
    gz *= dh
    t = np.subtract(1, z)
    gz *= t
    gz *= z
    np.multiply(ng, ng, out=gin)                        # dh * (1 - z) * (1 - n^2)
    np.subtract(1, gin, out=gin)
    gin *= t
    gin *= dh
    np.subtract(1, r, out=grg)                          # gin * hn * r (1 - r)
    grg *= r
    grg *= hn
    grg *= gin
    ghid = gin_all.copy()
    np.multiply(gin, r, out=ghid[:, 2 * h:])            # the hidden n gate's grad: gin * r
    grad_hx = np.multiply(dh, z)
    dt = workspace.dtype
    bias = (wrap(gin_all.sum(0), dt, fresh=True), wrap(ghid.sum(0), dt, fresh=True)) if has_bias else (None, None)
    return wrap(gin_all, dt, fresh=True), wrap(ghid, dt, fresh=True), wrap(grad_hx, dt, fresh=True), bias[0], bias[1]
