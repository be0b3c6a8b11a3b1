"""CompositeImplicitAutograd kernels of the recurrent cells (torch's RNN.cpp): the cells as two linear maps and
the fused pointwise op (the path torch takes on CUDA), the fused backward's composite wrapper and the
differentiable backwards (ember ops, used under create_graph)."""
from ..._core.dispatch_keys import DispatchKey
from ..._core.tls import KEYS_ACTIVE, state as _tls
from ..._ops import ops

aten = ops.aten
_AUTOCAST_CPU_BIT = 1 << DispatchKey.AutocastCPU


def autocast_cpu_active():
    """True when CPU autocast applies to the ops a kernel here calls. Torch's CPU cells are always the math ones
    (the fused pointwise op is its CUDA path): under autocast their linear maps give bfloat16/float16 gates while
    the hidden state keeps its dtype, and type promotion in the pointwise tail decides the result's dtype (a
    float32 `cy` and `hy` for a float32 state). The fused cell would refuse the mixed dtypes, so these kernels
    take the math cells then."""
    return bool(_tls._include & _AUTOCAST_CPU_BIT) and not _tls._exclude & _AUTOCAST_CPU_BIT


def _check_input(input, input_size):
    if input.size(1) != input_size:
        raise RuntimeError(f"input has inconsistent input_size: got {input.size(1)} expected {input_size}")


def _check_hidden(input, hx, hidden_size, label):
    if input.size(0) != hx.size(0):
        raise RuntimeError(f"Input batch size {input.size(0)} doesn't match hidden{label} batch size {hx.size(0)}")
    if hx.size(1) != hidden_size:
        raise RuntimeError(f"hidden{label} has inconsistent hidden_size: got {hx.size(1)}, expected {hidden_size}")


def _check_cell(input, hx, w_ih, w_hh, label=0):
    _check_input(input, w_ih.size(1))
    _check_hidden(input, hx, w_hh.size(1), label)


def _cell_fits(input, h, c, w_ih, w_hh):
    """True when the cell's size checks all pass on plain 2-D sizes (the common case, one tuple read per tensor
    instead of six `size(d)` calls, ~2 us of an LSTMCell step); False sends the call through the checks above,
    which raise torch's errors (or pass, for the shapes they do not look at)."""
    s, a, w1, w2 = input._size, h._size, w_ih._size, w_hh._size
    return (len(s) == 2 and len(a) == 2 and len(w1) == 2 and len(w2) == 2 and s[1] == w1[1] and a[0] == s[0]
            and a[1] == w2[1] and (c is None or c._size == a))


def _plain_2d(input, *hs):
    return input.dim() == 2 and all(h.dim() == 2 for h in hs)


def _math_lstm(input, hx, cx, w_ih, w_hh, b_ih, b_hh):
    """torch's CPU LSTMCell as written in RNN.cpp, op by op, for the shapes the checks let through that are not
    plain 2-D (a 3-d hx): its errors are those of its linear / add ops ("mat1 and mat2 shapes cannot be
    multiplied", a broadcast mismatch), and any result its own."""
    gates = aten.add.Tensor(aten.linear.default(hx, w_hh, b_hh), aten.linear.default(input, w_ih, b_ih))
    i, f, g, o = aten.unsafe_chunk.default(gates, 4, 1)
    cy = aten.add.Tensor(aten.mul.Tensor(aten.sigmoid.default(f), cx),
                         aten.mul.Tensor(aten.sigmoid.default(i), aten.tanh.default(g)))
    return aten.mul.Tensor(aten.sigmoid.default(o), aten.tanh.default(cy)), cy


def _math_gru(input, hx, w_ih, w_hh, b_ih, b_hh):
    """torch's CPU GRUCell as written in RNN.cpp (see _math_lstm)."""
    ig = aten.unsafe_chunk.default(aten.linear.default(input, w_ih, b_ih), 3, 1)
    hg = aten.unsafe_chunk.default(aten.linear.default(hx, w_hh, b_hh), 3, 1)
    r = aten.sigmoid.default(aten.add.Tensor(hg[0], ig[0]))
    z = aten.sigmoid.default(aten.add.Tensor(hg[1], ig[1]))
    n = aten.tanh.default(aten.add.Tensor(ig[2], aten.mul.Tensor(hg[2], r)))
    return aten.add.Tensor(aten.mul.Tensor(aten.sub.Tensor(hx, n), z), n)


def lstm_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    if len(hx) != 2:
        raise RuntimeError("lstm_cell expects two hidden states")
    if not _cell_fits(input, hx[0], hx[1], w_ih, w_hh):
        _check_input(input, w_ih.size(1))
        _check_hidden(input, hx[0], w_hh.size(1), 0)
        _check_hidden(input, hx[1], w_hh.size(1), 1)
        if not _plain_2d(input, hx[0], hx[1]):
            return _math_lstm(input, hx[0], hx[1], w_ih, w_hh, b_ih, b_hh)
    if not KEYS_ACTIVE[0]:
        return _one_step(input, hx[0], hx[1], w_ih, w_hh, b_ih, b_hh, 2)
    if autocast_cpu_active():
        return _math_lstm(input, hx[0], hx[1], w_ih, w_hh, b_ih, b_hh)
    igates = aten.mm.default(input, aten.t.default(w_ih))
    hgates = aten.mm.default(hx[0], aten.t.default(w_hh))
    hy, cy, _ = aten._thnn_fused_lstm_cell.default(igates, hgates, hx[1], b_ih, b_hh)
    return hy, cy


def _one_step(input, hx, cx, w_ih, w_hh, b_ih, b_hh, mode):
    """A cell as a one-step mkldnn_rnn_layer: one op and one autograd node instead of two gemms, two transposes
    and the fused cell (taken when no mode or autocast is active: those see the cell's ops)."""
    has_bias = b_ih is not None
    if not has_bias or b_hh is None:
        zero = aten.zeros.default([w_ih.size(0)], dtype=w_ih.dtype)
        b_ih, b_hh = (b_ih if b_ih is not None else zero), (b_hh if b_hh is not None else zero)
    if cx is None:
        cx = aten.empty.memory_format([0], dtype=hx.dtype)
    _, hy, cy, _ = aten.mkldnn_rnn_layer.default(aten.unsqueeze.default(input, 0), w_ih, w_hh, b_ih, b_hh, hx, cx,
                                                 False, [], mode, w_hh.size(1), 1, True, False, False, True)
    return (hy, cy) if mode == 2 else hy


def gru_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    if not _cell_fits(input, hx, None, w_ih, w_hh):
        _check_cell(input, hx, w_ih, w_hh)
        if not _plain_2d(input, hx):
            return _math_gru(input, hx, w_ih, w_hh, b_ih, b_hh)
    if not KEYS_ACTIVE[0]:
        return _one_step(input, hx, None, w_ih, w_hh, b_ih, b_hh, 3)
    if autocast_cpu_active():
        return _math_gru(input, hx, w_ih, w_hh, b_ih, b_hh)
    igates = aten.mm.default(input, aten.t.default(w_ih))
    hgates = aten.mm.default(hx, aten.t.default(w_hh))
    return aten._thnn_fused_gru_cell.default(igates, hgates, hx, b_ih, b_hh)[0]


def _simple_cell(input, hx, w_ih, w_hh, b_ih, b_hh):
    _check_cell(input, hx, w_ih, w_hh)
    # hidden's map first, as torch adds them (a broadcast error names hidden's as tensor a)
    return aten.add.Tensor(aten.linear.default(hx, w_hh, b_hh), aten.linear.default(input, w_ih, b_ih))


def rnn_tanh_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    return aten.tanh.default(_simple_cell(input, hx, w_ih, w_hh, b_ih, b_hh))


def rnn_relu_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    return aten.relu.default(_simple_cell(input, hx, w_ih, w_hh, b_ih, b_hh))


def _sigmoid_backward(grad, y):
    return aten.mul.Tensor(grad, aten.mul.Tensor(y, aten.rsub.Scalar(y, 1)))


def _tanh_backward(grad, y):
    return aten.mul.Tensor(grad, aten.rsub.Scalar(aten.mul.Tensor(y, y), 1))


def _thnn_fused_lstm_cell_backward(grad_hy, grad_cy, cx, cy, workspace, has_bias):
    if grad_hy is None and grad_cy is None:
        return None, None, None, None, None
    grad_gates, grad_cx, grad_bias = aten._thnn_fused_lstm_cell_backward_impl.default(grad_hy, grad_cy, cx, cy,
                                                                                        workspace, has_bias)
    return grad_gates, grad_gates, grad_cx, grad_bias, grad_bias


def _thnn_differentiable_lstm_cell_backward(grad_hy, grad_cy, input_gates, hidden_gates, input_bias, hidden_bias,
                                            cx, cy):
    if grad_hy is None and grad_cy is None:
        return None, None, None, None, None
    gates = aten.add.Tensor(input_gates, hidden_gates)
    if input_bias is not None:
        gates = aten.add.Tensor(gates, input_bias)
    if hidden_bias is not None:
        gates = aten.add.Tensor(gates, hidden_bias)
    i, f, c, o = aten.chunk.default(gates, 4, 1)
    i, f, c, o = aten.sigmoid.default(i), aten.sigmoid.default(f), aten.tanh.default(c), aten.sigmoid.default(o)
    tanh_cy = aten.tanh.default(cy)
    if grad_hy is not None:
        gog = _sigmoid_backward(aten.mul.Tensor(grad_hy, tanh_cy), o)
        gcx = _tanh_backward(aten.mul.Tensor(grad_hy, o), tanh_cy)
        if grad_cy is not None:
            gcx = aten.add.Tensor(gcx, grad_cy)
    else:
        gcx = grad_cy
        gog = aten.zeros_like.default(cx)
    gig = _sigmoid_backward(aten.mul.Tensor(gcx, c), i)
    gfg = _sigmoid_backward(aten.mul.Tensor(gcx, cx), f)
    gcg = _tanh_backward(aten.mul.Tensor(gcx, i), c)
    grad_cx = aten.mul.Tensor(gcx, f)
    grad_gates = aten.cat.default([gig, gfg, gcg, gog], 1)
    grad_bias = aten.sum.dim_IntList(grad_gates, [0], False) if input_bias is not None else None
    return grad_gates, grad_gates, grad_cx, grad_bias, grad_bias


def _thnn_differentiable_gru_cell_backward(grad_hy, input_gates, hidden_gates, hx, input_bias, hidden_bias):
    in_g, h_g = input_gates, hidden_gates
    if input_bias is not None:
        in_g = aten.add.Tensor(in_g, input_bias)
    if hidden_bias is not None:
        h_g = aten.add.Tensor(h_g, hidden_bias)
    ir, ii, in_ = aten.chunk.default(in_g, 3, 1)
    hr, hi, hn = aten.chunk.default(h_g, 3, 1)
    rg = aten.sigmoid.default(aten.add.Tensor(ir, hr))
    ig = aten.sigmoid.default(aten.add.Tensor(ii, hi))
    grad_hx = aten.mul.Tensor(grad_hy, ig)
    ng = aten.tanh.default(aten.add.Tensor(in_, aten.mul.Tensor(rg, hn)))
    gig = _sigmoid_backward(aten.mul.Tensor(grad_hy, aten.sub.Tensor(hx, ng)), ig)
    gin = _tanh_backward(aten.mul.Tensor(grad_hy, aten.rsub.Scalar(ig, 1)), ng)
    ghn = aten.mul.Tensor(gin, rg)
    grg = _sigmoid_backward(aten.mul.Tensor(gin, hn), rg)
    grad_input_gates = aten.cat.default([grg, gig, gin], 1)
    grad_hidden_gates = aten.cat.default([grg, gig, ghn], 1)
    if input_bias is not None:
        return grad_input_gates, grad_hidden_gates, grad_hx, aten.sum.dim_IntList(grad_input_gates, [0], False), \
            aten.sum.dim_IntList(grad_hidden_gates, [0], False)
    return grad_input_gates, grad_hidden_gates, grad_hx, None, None


def rnn_layer_differentiable_backward(input, w_ih, w_hh, b_ih, b_hh, hx, cx, grad_output, grad_hy, grad_cy,
                                      reverse, mode, has_biases, batch_first):
    """mkldnn_rnn_layer's backward in ember ops (used under create_graph): the layer's steps recomputed with the
    fused cells, then back through time with the cells' differentiable backwards. Returns the grads of input,
    w_ih, w_hh, b_ih, b_hh, hx, cx."""
    lstm = mode == 2
    x = aten.transpose.int(input, 0, 1) if batch_first else input
    steps = list(range(x.size(0)))
    if reverse:
        steps.reverse()
    bi, bh = (b_ih, b_hh) if has_biases else (None, None)
    gi_all = aten.matmul.default(x, aten.t.default(w_ih))
    w_hh_t = aten.t.default(w_hh)
    saved = {}
    h, c = hx, cx
    for t in steps:
        gi, gh = aten.select.int(gi_all, 0, t), aten.mm.default(h, w_hh_t)
        if lstm:
            hn, cn, _ = aten._thnn_fused_lstm_cell.default(gi, gh, c, bi, bh)
        else:
            hn, cn = aten._thnn_fused_gru_cell.default(gi, gh, h, bi, bh)[0], None
        saved[t] = (gi, gh, h, c, cn)
        h, c = hn, cn
    go = None
    if grad_output is not None:
        go = aten.transpose.int(grad_output, 0, 1) if batch_first else grad_output
    dh = grad_hy if grad_hy is not None else aten.zeros_like.default(hx)
    dc = None
    if lstm:
        dc = grad_cy if grad_cy is not None else aten.zeros_like.default(cx)
    d_gi = [None] * len(steps)
    g_w_hh = g_b_ih = g_b_hh = None
    for t in reversed(steps):
        gi, gh, hp, cp, cn = saved[t]
        if go is not None:
            dh = aten.add.Tensor(dh, aten.select.int(go, 0, t))
        if lstm:
            dgi, dgh, dc, dbi, dbh = _thnn_differentiable_lstm_cell_backward(dh, dc, gi, gh, bi, bh, cp, cn)
            dh = aten.mm.default(dgh, w_hh)
        else:
            dgi, dgh, dhx, dbi, dbh = _thnn_differentiable_gru_cell_backward(dh, gi, gh, hp, bi, bh)
            dh = aten.add.Tensor(aten.mm.default(dgh, w_hh), dhx)
        d_gi[t] = dgi
        gw = aten.mm.default(aten.t.default(dgh), hp)
        g_w_hh = gw if g_w_hh is None else aten.add.Tensor(g_w_hh, gw)
        if has_biases:
            g_b_ih = dbi if g_b_ih is None else aten.add.Tensor(g_b_ih, dbi)
            g_b_hh = dbh if g_b_hh is None else aten.add.Tensor(g_b_hh, dbh)
    d_all = aten.stack.default(d_gi)                                    # (L, N, G)
    grad_x = aten.matmul.default(d_all, w_ih)
    if batch_first:
        grad_x = aten.transpose.int(grad_x, 0, 1)
    n_rows = d_all.size(0) * d_all.size(1)
    g_w_ih = aten.mm.default(aten.t.default(aten.reshape.default(d_all, [n_rows, d_all.size(2)])),
                             aten.reshape.default(x, [n_rows, x.size(2)]))
    if not has_biases:
        g_b_ih, g_b_hh = aten.zeros_like.default(b_ih), aten.zeros_like.default(b_hh)
    return grad_x, g_w_ih, g_w_hh, g_b_ih, g_b_hh, dh, (dc if lstm else aten.zeros_like.default(cx))
