"""cpu kernels of a whole recurrent layer (torch's `mkldnn_rnn_layer` and its backward, aten/src/ATen/native/mkldnn/
RNN.cpp, run here on numpy): every time step of one direction of one LSTM or GRU layer in one op, so a sequence
costs one autograd node instead of a few per step.

Why the loops look like this: the input projection of all steps is one gemm before the loop, and in the backward
the weight and input gradients are one gemm each after it; inside the loop only the hidden gemm and a handful
of whole-step ufuncs remain. The backward needs only `dh` (and `dc`) from the step after: every gate gradient is
`dh` or `dc` times a factor that depends on the forward values alone, so the factors of all steps are computed
with a few ufuncs over the whole sequence before the loop. Gates are kept as (L, N, gate, H): a step's gates are
one contiguous (N, gate*H) block, the layout the gemms read and write; in the LSTM's backward the three gates
driven by dc (i, f, g) are adjacent in torch's order. A step's pointwise part is one call of csrc/rnn.c (numpy's
float32 exp and tanh are scalar loops that dominated small layers), with the numpy steps kept for no C.

Threads (session 13): every gemm here goes through runtime/gemm.py's `matmul` (split over ember's C pool when big
enough, the same bits as numpy's call), since OpenBLAS is held at one thread once ember splits a gemm; `_xwt`'s
swapped product too (w's rows in blocks). Per-step hidden gemm at 2 threads, us min/median at load ~9, split / one
call: NT 32x256x1024 159-184/309-451 / 287/290-303, NT 32x256x768 118/136-154 / 210/212, the backward's
32x1024x256 109/113 / 191/193. A contiguous copy of w_hh^T per call (NN) was measured as the alternative to the NT
gemm above 48 rows: 40-3700 us per copy against 20-190 us gained per step, not done.
Whole layer under load (LSTM/GRU 128->256, 20 steps, batch 32, fwd+bwd, 2 threads, load 8.6, ms, min of 24 calls):
all numpy (one thread) caller cpu 25.2 / 17.0, wall 58.7 / 36.3; one-off gemms split 21.8 / 14.0, wall 67.2 / 46.0;
every gemm split 21.5 / 15.3, wall 74.0 / 38.4. The split moves work off the caller but, on a machine whose cores
are taken by other processes, the caller then waits for a pool worker that is not running (the per-step gemms pay
it 40 times a call); with the second core free it gains what the gemm figures above show. Kept as the rest of
ember's splits (torch's OpenMP team fares worse there: median 240-1500 ms for the same layers). A/B on another
machine: `rnn_layer._matmul = np.matmul` turns every split here off (`_xwt` too).

Modes are torch's mkldnn numbers (ideep::rnn_kind): 2 LSTM, 3 GRU. The workspace holds, per step in processing
order, the activated gates and (LSTM) the cell state and its tanh: (L, N, 6, H) [i, f, g, o, c, tanh c] for LSTM, (L, N, 4, H)
[r, z, n, hn + b_hn] for GRU. Half precision computes in float32.
"""
import numpy as np

from ..meta import rnn as M
from .rnn import _sigmoid_
from .runtime import clib
from .runtime.gemm import SPLIT_MACS as _SPLIT_MACS, matmul as _matmul
from .runtime.arrays import acc, wrap
from .runtime.clib import address as _addr
from ..._core.tensor_impl import TensorImpl as _Tensor

_wrap_fresh = _Tensor._wrap_fresh


def _result(a, dtype, fresh=False):
    """wrap(a, dtype, fresh) (a fresh contiguous tensor of `a`, copied unless it owns its data or `fresh`)
    without its generality when `a` already has the dtype's numpy type: one of a layer's several results."""
    if a.dtype == dtype._np:
        return _wrap_fresh(a if a.flags.c_contiguous and (fresh or a.flags.owndata) else a.copy(), dtype)
    return wrap(a, dtype, fresh)

_C_SUFFIX = {np.dtype(np.float32): "f32", np.dtype(np.float64): "f64"}



_F32 = np.dtype(np.float32)
_SWAP_MAX_ROWS = 48


def _xwt(x, w):
    """x @ w^T for x (m, k) and w (n, k): the input projection and each step's hidden product.

    For float32 at 1-48 rows it is computed as (w @ x^T)^T, a view of an (n, m) result: the same k-long sums in
    the same order, so bit for bit x @ w^T (tests/ops/test_rnn_layer.py; nn/functional/linear.py `_direct` gives
    the measurements behind the swap), on a path of OpenBLAS's that is 2x faster at a cell's shapes. numpy hands
    x @ w^T to cblas as a row-major NT gemm, which OpenBLAS (0.3.31, one thread, AVX-512 EPYC) runs slowly at
    few rows: min CPU us, NT / swapped, load ~6: LSTMCell(51, 51) at batch 8 (8 x 51 @ 51 x 204) 8.5 / 4.4,
    its input projection (k = 1) 3.0 / 1.2, (16 x 64 @ 64 x 192) 11.4 / 6.1, one row (a BiLSTM at batch 1,
    1 x 32 @ 32 x 128) 1.36 / 0.79. float64 stays NT (linear.py: with
    two threads dgemm's split differs between the orders in the last bit)."""
    m = x.shape[0]
    if x.dtype is _F32 and 0 < m <= _SWAP_MAX_ROWS and w.flags.c_contiguous:
        # (a strided x, a cell's input column x.split(1, dim=1)[t], is copied: a few rows, and BLAS would copy it)
        xt = (x if x.flags.c_contiguous else np.ascontiguousarray(x)).T
        if m * x.shape[1] * w.shape[0] < _SPLIT_MACS:
            return w.dot(xt).T
        return _matmul(w, xt).T         # split over the pool: w.dot(x.T)'s bits
    return _matmul(x, w.T)


def _seq(a, reverse, batch_first):
    """(L, N, *) in processing order from the user's layout (a view)."""
    if batch_first:
        a = a.swapaxes(0, 1)
    return a[::-1] if reverse else a


def _unseq(a, reverse, batch_first):
    if reverse:
        a = a[::-1]
    return a.swapaxes(0, 1) if batch_first else a


def _lstm_step_np(z, gh, c, hn):
    """lstm_step of csrc/rnn.c in numpy (no C compiler): z (n, 6, h) in place, h into hn; returns c."""
    za = z[:, :4]
    za += gh
    g = np.tanh(za[:, 2])
    with np.errstate(over="ignore"):
        _sigmoid_(za)
    za[:, 2] = g
    cn = z[:, 4]
    np.multiply(z[:, 1], c, out=cn)                         # c = f * c + i * g
    cn += z[:, 0] * g
    np.tanh(cn, out=z[:, 5])                                # h = o * tanh(c)
    np.multiply(z[:, 3], z[:, 5], out=hn)
    return cn


def _gru_step_np(gi, gh, b_hn, hp, z, ho):
    """gru_step of csrc/rnn.c in numpy: z (n, 4, h) = [r, z, n, gh_n + b_hn], h into ho."""
    rz = z[:, :2]
    np.add(gi[:, :2], gh[:, :2], out=rz)
    with np.errstate(over="ignore"):
        _sigmoid_(rz)
    hn = z[:, 3]
    if b_hn is not None:
        np.add(gh[:, 2], b_hn, out=hn)
    else:
        hn[...] = gh[:, 2]
    ng = z[:, 2]
    np.multiply(z[:, 0], hn, out=ng)                        # n = tanh(i_n + r * (h_n + b_hn))
    ng += gi[:, 2]
    np.tanh(ng, out=ng)
    np.subtract(hp, ng, out=ho)                             # h = n + z * (h - n)
    ho *= z[:, 1]
    ho += ng


def _one_step(input, weight0, weight1, weight2, weight3, hx_, cx_, mode, h, batch_first):
    """A one-step layer with biases in float32/float64 (an LSTMCell / GRUCell call, decompositions/rnn.py
    `_one_step`) as two products and one C call (csrc/rnn.c lstm_cell / gru_cell), or None for anything else
    (the general path below checks and computes it). The same products, bias additions in the same order and
    the same step function as the general path: the same bits (tests/ops/test_rnn_layer.py).

    Why: the general path spends ~18 us of Python and numpy calls around a cell's ~4 us of arithmetic (bias
    adds, the workspace copy, contiguous copies, the copies of hy and cy); here the products are read through
    their strides (the swapped product w @ x^T needs no transpose copy) and the C call writes the workspace,
    the output, hy and cy. LSTMCell(51, 51) at batch 8, CPU-time minima, load ~5: kernel 27.0 -> 20.1 us, of
    which the two products are ~8.4 (OpenBLAS at 8 rows) and the ctypes call of 16 arguments ~3."""
    a = input._np
    if a is None or len(input._size) != 3:
        return None
    dt = a.dtype
    sfx = _C_SUFFIX.get(dt)
    if sfx is None:
        return None
    lstm = mode == M.LSTM
    if batch_first:
        n, L, i = input._size
    else:
        L, n, i = input._size
    g = 4 if lstm else 3
    gh_ = g * h
    if (L != 1 or weight0._size != (gh_, i) or weight1._size != (gh_, h) or weight2._size != (gh_,)
            or weight3._size != (gh_,) or hx_._size != (n, h) or (lstm and cx_._size != (n, h))):
        return None
    arrs = (weight0._np, weight1._np, weight2._np, weight3._np, hx_._np) + ((cx_._np,) if lstm else ())
    for arr in arrs:
        if arr is None or arr.dtype != dt:
            return None
    fn = clib.kernel("rnn", f"lstm_cell_{sfx}" if lstm else f"gru_cell_{sfx}",
                     "pllpllppplppppll" if lstm else "pllpllppppppll", "i")
    if fn is None:
        return None
    w_ih, w_hh, b_ih, b_hh, hp = arrs[:5]
    if not b_ih.flags.c_contiguous:
        b_ih = np.ascontiguousarray(b_ih)
    if not b_hh.flags.c_contiguous:
        b_hh = np.ascontiguousarray(b_hh)
    hp = np.ascontiguousarray(hp)
    gi = _xwt(a.reshape(n, i), w_ih)
    gh = _xwt(hp, w_hh)
    isz = dt.itemsize
    out = np.empty((1, n, h), dt)
    hy = np.empty((n, h), dt)
    if lstm:
        c = arrs[5]
        if c.strides[1] != isz or c.strides[0] % isz:
            c = np.ascontiguousarray(c)
        ws = np.empty((1, n, 6, h), dt)
        cy = np.empty((n, h), dt)
        rc = fn(_addr(gi), gi.strides[0] // isz, gi.strides[1] // isz, _addr(gh), gh.strides[0] // isz,
                gh.strides[1] // isz, _addr(b_ih), _addr(b_hh), _addr(c), c.strides[0] // isz, _addr(ws), _addr(out),
                _addr(hy), _addr(cy), n, h)
    else:
        ws = np.empty((1, n, 4, h), dt)
        cy = np.empty((0,), dt)
        rc = fn(_addr(gi), gi.strides[0] // isz, gi.strides[1] // isz, _addr(gh), gh.strides[0] // isz,
                gh.strides[1] // isz, _addr(b_ih), _addr(b_hh), _addr(hp), _addr(ws), _addr(out), _addr(hy), n, h)
    if rc:
        raise MemoryError("mkldnn_rnn_layer: out of memory")
    dtype = input.dtype
    return (_wrap_fresh(out.reshape(n, 1, h) if batch_first else out, dtype), _wrap_fresh(hy, dtype),
            _wrap_fresh(cy, dtype), _wrap_fresh(ws, dtype))


def mkldnn_rnn_layer(input, weight0, weight1, weight2, weight3, hx_, cx_, reverse, batch_sizes, mode, hidden_size,
                     num_layers, has_biases, bidirectional, batch_first, train):
    if has_biases and not len(batch_sizes) and (mode == M.LSTM or mode == M.GRU):
        r = _one_step(input, weight0, weight1, weight2, weight3, hx_, cx_, mode, hidden_size, batch_first)
        if r is not None:
            return r
    M.check_rnn_layer(input, weight0, weight1, weight2, weight3, hx_, cx_, batch_sizes, mode, hidden_size, has_biases,
                      batch_first)
    h = hidden_size
    x = _seq(acc(input), reverse, batch_first)
    L, n, i = x.shape
    lstm = mode == M.LSTM
    g = 4 if lstm else 3
    w_ih = acc(weight0)
    w_hh = acc(weight1)
    p = _xwt(x.reshape(L * n, i), w_ih)
    b_hh = acc(weight3).reshape(g, h) if has_biases else None
    if has_biases:
        gates = np.add(p, acc(weight2), out=np.empty(p.shape, p.dtype)).reshape(L, n, g, h)
        if lstm:
            gates += b_hh
        else:
            gates[:, :, :2] += b_hh[:2]            # r and z take both biases; n's hidden bias goes inside r * (.)
    else:
        gates = np.ascontiguousarray(p).reshape(L, n, g, h)
    out = np.empty((L, n, h), gates.dtype)
    hp = acc(hx_)
    sfx = _C_SUFFIX.get(gates.dtype)
    lstm_c = clib.kernel("rnn", f"lstm_step_{sfx}", "ppplpll") if sfx and lstm else None
    gru_c = clib.kernel("rnn", f"gru_step_{sfx}", "ppppppll") if sfx and not lstm else None
    if lstm:
        ws = np.empty((L, n, 6, h), gates.dtype)
        ws[:, :, :4] = gates
        c = np.ascontiguousarray(acc(cx_), gates.dtype)
        hp = np.ascontiguousarray(hp, gates.dtype)
        for t in range(L):
            z = ws[t]
            gh = np.ascontiguousarray(_xwt(hp, w_hh))    # the C step reads (n, 4h) rows
            hn = out[t]
            if lstm_c is not None:
                lstm_c(_addr(z), _addr(gh), _addr(c), c.strides[0] // c.itemsize, _addr(hn),
                       n, h)
                cn = z[:, 4]
            else:
                cn = _lstm_step_np(z, gh.reshape(n, 4, h), c, hn)
            hp, c = hn, cn
        cy = _result(c, input.dtype)
    else:
        ws = np.empty((L, n, 4, h), gates.dtype)
        b_hn = np.ascontiguousarray(b_hh[2]) if has_biases else None
        hp = np.ascontiguousarray(hp, gates.dtype)
        for t in range(L):
            gh = np.ascontiguousarray(_xwt(hp, w_hh))
            ho = out[t]
            if gru_c is not None:
                gru_c(_addr(gates[t]), _addr(gh), None if b_hn is None else _addr(b_hn),
                      _addr(hp), _addr(ws[t]), _addr(ho), n, h)
            else:
                _gru_step_np(gates[t], gh.reshape(n, 3, h), b_hn, hp, ws[t], ho)
            hp = ho
        cy = _result(np.empty((0,), out.dtype), input.dtype)
    dt = input.dtype
    return _result(_unseq(out, reverse, batch_first), dt), _result(hp, dt), cy, _result(ws, dt, fresh=True)


def _one_step_backward(input, weight1, weight2, hx_, cx_tmp, grad_output, grad_hy, grad_cy, mode, h, batch_first,
                       workspace):
    """The backward of a one-step layer with biases in float32/float64 (an LSTMCell / GRUCell call; see
    `_one_step`), or None for anything else: the general path's C step and products on the same arrays in the
    same order, without what only longer sequences need (the stacked previous hidden states, the workspace
    and output views per step). The two bias grads are one sum (the general path sums the same (N, gates) array
    twice). Same bits (tests/ops/test_rnn_layer.py). LSTMCell(51, 51) at batch 8, CPU-time minima: 30.1 -> 26.5
    us; the four products (~3 us each at these shapes) are most of what is left."""
    a = input._np
    ws = workspace._np
    if a is None or ws is None or len(input._size) != 3:
        return None
    dt = a.dtype
    sfx = _C_SUFFIX.get(dt)
    lstm = mode == M.LSTM
    if batch_first:
        n, L, i = input._size
    else:
        L, n, i = input._size
    if (sfx is None or L != 1 or ws.dtype != dt or not ws.flags.c_contiguous
            or ws.shape != ((1, n, 6, h) if lstm else (1, n, 4, h))):
        return None
    step = clib.kernel("rnn", f"{'lstm' if lstm else 'gru'}_back_step_{sfx}", "pplppppll" if lstm else "ppppppll")
    if step is None:
        return None
    arrs = [weight1._np, weight2._np, hx_._np]
    if lstm:
        arrs.append(cx_tmp._np)
    for t in (grad_output, grad_hy, grad_cy):
        if t is not None:
            arrs.append(t._np)
    for arr in arrs:
        if arr is None or arr.dtype != dt:
            return None
    g = 4 if lstm else 3
    hx = np.ascontiguousarray(hx_._np)
    go = None
    if grad_output is not None:
        go = np.ascontiguousarray(grad_output._np.reshape(n, h))
    dh = np.array(grad_hy._np, dt, order="C") if grad_hy is not None else np.zeros((n, h), dt)
    w_hh = weight2._np
    d = np.empty((1, n, g + (0 if lstm else 1), h), dt)
    if lstm:
        dc = np.array(grad_cy._np, dt, order="C") if grad_cy is not None else np.zeros((n, h), dt)
        cx = np.ascontiguousarray(cx_tmp._np)
        step(_addr(ws), _addr(cx), h, None if go is None else _addr(go), _addr(dh), _addr(dc), _addr(d), n, h)
        d_in = d_hid = d.reshape(n, 4 * h)
        dh = _matmul(d_in, w_hh)
        grad_cx = dc
    else:
        direct = np.empty((n, h), dt)
        step(_addr(ws), _addr(hx), None if go is None else _addr(go), _addr(dh), _addr(d), _addr(direct), n, h)
        d_hid = d[:, :, :3].reshape(n, 3 * h)
        dh = _matmul(d_hid, w_hh)
        dh += direct
        d_in = d[:, :, [0, 1, 3]].reshape(n, 3 * h)
        grad_cx = np.zeros(tuple(cx_tmp._size), dt)
    x2 = (a.swapaxes(0, 1) if batch_first else a).reshape(n, i)
    grad_x = _matmul(d_in, weight1._np).reshape(1, n, i)
    grad_w_ih = _matmul(d_in.T, x2)
    grad_w_hh = _matmul(d_hid.T, hx)
    grad_b_ih = d_in.sum(0)
    grad_b_hh = grad_b_ih.copy() if lstm else d_hid.sum(0)
    dtype = input.dtype
    return (_result(_unseq(grad_x, False, batch_first), dtype, fresh=True), _result(grad_w_ih, dtype),
            _result(grad_w_hh, dtype), _wrap_fresh(grad_b_ih, dtype), _wrap_fresh(grad_b_hh, dtype),
            _result(dh, dtype), _wrap_fresh(grad_cx, dtype))


def mkldnn_rnn_layer_backward(input, weight1, weight2, weight3, weight4, hx_, cx_tmp, output, hy_, cy_, grad_output,
                              grad_hy, grad_cy, reverse, mode, hidden_size, num_layers, has_biases, train,
                              bidirectional, batch_sizes, batch_first, workspace):
    """(grad input, grad w_ih, grad w_hh, grad b_ih, grad b_hh, grad hx, grad cx)."""
    if has_biases and not len(batch_sizes) and (mode == M.LSTM or mode == M.GRU):
        r = _one_step_backward(input, weight1, weight2, hx_, cx_tmp, grad_output, grad_hy, grad_cy, mode, hidden_size,
                               batch_first, workspace)
        if r is not None:
            return r
    h = hidden_size
    x = _seq(acc(input), reverse, batch_first)
    L, n, i = x.shape
    lstm = mode == M.LSTM
    g = 4 if lstm else 3
    ws = acc(workspace)
    out = _seq(acc(output), reverse, batch_first)
    hx = acc(hx_)
    dtype = ws.dtype
    h_prev = np.empty((L, n, h), dtype)                     # the hidden state each step read
    h_prev[0] = hx
    h_prev[1:] = out[:-1]
    go = _seq(acc(grad_output), reverse, batch_first) if grad_output is not None else None
    dh = np.array(acc(grad_hy), dtype, order="C") if grad_hy is not None else np.zeros((n, h), dtype)
    w_hh = acc(weight2)
    d = np.empty((L, n, g + (0 if lstm else 1), h), dtype)
    sfx = _C_SUFFIX.get(dtype)
    step = clib.kernel("rnn", f"{'lstm' if lstm else 'gru'}_back_step_{sfx}", "pplppppll" if lstm else "ppppppll") \
        if sfx else None
    if step is not None:
        ws = np.ascontiguousarray(ws)
        if go is not None:
            go = np.ascontiguousarray(go, dtype)
    if step is not None and lstm:
        dc = np.array(acc(grad_cy), dtype, order="C") if grad_cy is not None else np.zeros((n, h), dtype)
        cx = np.ascontiguousarray(acc(cx_tmp), dtype)
        for t in range(L - 1, -1, -1):
            cp, stride = (cx, h) if t == 0 else (ws[t - 1, :, 4], 6 * h)
            step(_addr(ws[t]), _addr(cp), stride, None if go is None else _addr(go[t]), _addr(dh),
                 _addr(dc), _addr(d[t]), n, h)
            dh = _matmul(d[t].reshape(n, 4 * h), w_hh)
        d_in = d_hid = d.reshape(L * n, 4 * h)
        grad_cx = dc
    elif step is not None:
        direct = np.empty((n, h), dtype)
        for t in range(L - 1, -1, -1):
            step(_addr(ws[t]), _addr(h_prev[t]), None if go is None else _addr(go[t]), _addr(dh),
                 _addr(d[t]), _addr(direct), n, h)
            dh = _matmul(d[t, :, :3].reshape(n, 3 * h), w_hh)
            dh += direct
        d_hid = d[:, :, :3].reshape(L * n, 3 * h)
        d_in = d[:, :, [0, 1, 3]].reshape(L * n, 3 * h)
        grad_cx = None
    elif lstm:
        ig, fg, gg, og, c, tc = (ws[:, :, k] for k in range(6))
        c_prev = np.empty((L, n, h), dtype)
        c_prev[0] = acc(cx_tmp)
        c_prev[1:] = c[:-1]
        p = np.empty((L, n, 4, h), dtype)
        np.subtract(1, ig, out=p[:, :, 0])                  # di = dc * g i (1 - i)
        p[:, :, 0] *= ig
        p[:, :, 0] *= gg
        np.subtract(1, fg, out=p[:, :, 1])                  # df = dc * c_prev f (1 - f)
        p[:, :, 1] *= fg
        p[:, :, 1] *= c_prev
        np.multiply(gg, gg, out=p[:, :, 2])                 # dg = dc * i (1 - g^2)
        np.subtract(1, p[:, :, 2], out=p[:, :, 2])
        p[:, :, 2] *= ig
        np.subtract(1, og, out=p[:, :, 3])                  # do = dh * tanh(c) o (1 - o)
        p[:, :, 3] *= og
        p[:, :, 3] *= tc
        b = np.multiply(tc, tc)                             # dc += dh * o (1 - tanh(c)^2)
        np.subtract(1, b, out=b)
        b *= og
        dc = acc(grad_cy).astype(dtype, copy=True) if grad_cy is not None else np.zeros((n, h), dtype)
        for t in range(L - 1, -1, -1):
            if go is not None:
                dh += go[t]
            dc += dh * b[t]
            dt_ = d[t]
            np.multiply(dc[:, None], p[t, :, :3], out=dt_[:, :3])
            np.multiply(dh, p[t, :, 3], out=dt_[:, 3])
            dc *= fg[t]
            dh = _matmul(dt_.reshape(n, 4 * h), w_hh)
        d_in = d_hid = d.reshape(L * n, 4 * h)
        grad_cx = dc
    else:
        r, z, ng, hn = (ws[:, :, k] for k in range(4))
        p = d                                               # factors, then (in place) the gates' grads
        pn = np.subtract(1, z)                              # dn = dh * (1 - z)(1 - n^2)
        pn *= 1 - ng * ng
        np.subtract(1, r, out=p[:, :, 0])                   # dr = dn * hn r (1 - r)
        p[:, :, 0] *= r
        p[:, :, 0] *= hn
        p[:, :, 0] *= pn
        np.subtract(h_prev, ng, out=p[:, :, 1])             # dz = dh * (h - n) z (1 - z)
        p[:, :, 1] *= z
        p[:, :, 1] *= 1 - z
        np.multiply(pn, r, out=p[:, :, 2])                  # the hidden n gate: dn * r
        p[:, :, 3] = pn
        for t in range(L - 1, -1, -1):
            if go is not None:
                dh += go[t]
            dt_ = d[t]
            dt_ *= dh[:, None]
            nh = _matmul(dt_[:, :3].reshape(n, 3 * h), w_hh)
            nh += dh * z[t]
            dh = nh
        d_hid = d[:, :, :3].reshape(L * n, 3 * h)
        d_in = d[:, :, [0, 1, 3]].reshape(L * n, 3 * h)
        grad_cx = None
    x2 = x.reshape(L * n, i)
    grad_x = _matmul(d_in, acc(weight1)).reshape(L, n, i)
    grad_w_ih = _matmul(d_in.T, x2)
    grad_w_hh = _matmul(d_hid.T, h_prev.reshape(L * n, h))
    if has_biases:
        grad_b_ih, grad_b_hh = d_in.sum(0), d_hid.sum(0)
    else:
        grad_b_ih, grad_b_hh = np.zeros(tuple(weight3._size), dtype), np.zeros(tuple(weight4._size), dtype)
    dt = input.dtype
    return (_result(_unseq(grad_x, reverse, batch_first), dt, fresh=True), _result(grad_w_ih, dt), _result(grad_w_hh, dt),
            _result(grad_b_ih, dt), _result(grad_b_hh, dt), _result(dh, dt),
            _result(grad_cx, dt) if grad_cx is not None else _result(np.zeros(tuple(cx_tmp._size), dtype), dt))
