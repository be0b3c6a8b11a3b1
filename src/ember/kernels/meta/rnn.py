"""Meta functions of the fused recurrent cells (torch's RNN.cpp checkers): the shapes of h, c and the
workspace saved for the backward (the activated gates)."""
from ..common import alloc, size_str


def _check_cell(input_gates, hidden_gates, prev, input_bias, hidden_bias, chunks, name):
    """torch's checkSizes: 2-D gates of one shape (N, chunks * H), the previous state (N, H), biases of
    chunks * H elements; all of one dtype."""
    if input_gates.dim() != 2:
        raise RuntimeError(f"{name}: expected input_gates to be 2-D, but got {input_gates.dim()}-D")
    if tuple(hidden_gates._size) != tuple(input_gates._size):
        raise RuntimeError(f"{name}: expected hidden_gates of size {size_str(input_gates._size)}, but got "
                           f"{size_str(hidden_gates._size)}")
    n, g = input_gates._size
    if g % chunks:
        raise RuntimeError(f"{name}: expected the gates' size(1) to be a multiple of {chunks}, but got {g}")
    h = g // chunks
    if tuple(prev._size) != (n, h):
        raise RuntimeError(f"{name}: expected the previous state of size {size_str((n, h))}, but got "
                           f"{size_str(prev._size)}")
    for what, b in (("input_bias", input_bias), ("hidden_bias", hidden_bias)):
        if b is not None and (b.dim() != 1 or b._size[0] != g):
            raise RuntimeError(f"{name}: expected {what} of size {size_str((g,))}, but got {size_str(b._size)}")
    for what, t in (("hidden_gates", hidden_gates), ("the previous state", prev), ("input_bias", input_bias),
                    ("hidden_bias", hidden_bias)):
        if t is not None and t.dtype is not input_gates.dtype:
            raise RuntimeError(f"{name}: expected {what} to have dtype {input_gates.dtype}, but got {t.dtype}")
    if not input_gates.dtype.is_floating_point:
        raise RuntimeError(f"{name}: expected floating point gates, but got {input_gates.dtype}")
    return n, h


def _thnn_fused_lstm_cell(input_gates, hidden_gates, cx, input_bias=None, hidden_bias=None):
    n, h = _check_cell(input_gates, hidden_gates, cx, input_bias, hidden_bias, 4, "_thnn_fused_lstm_cell")
    dt, dev = input_gates.dtype, input_gates.device
    return alloc((n, h), dt, dev), alloc((n, h), dt, dev), alloc((n, 4 * h), dt, dev)


def _thnn_fused_lstm_cell_backward_impl(grad_hy, grad_cy, cx, cy, workspace, has_bias):
    dt, dev = workspace.dtype, workspace.device
    return alloc(workspace._size, dt, dev), alloc(cx._size, dt, dev), \
        (alloc((workspace._size[1],), dt, dev) if has_bias else None)


def _thnn_fused_gru_cell(input_gates, hidden_gates, hx, input_bias=None, hidden_bias=None):
    n, h = _check_cell(input_gates, hidden_gates, hx, input_bias, hidden_bias, 3, "_thnn_fused_gru_cell")
    dt, dev = input_gates.dtype, input_gates.device
    return alloc((n, h), dt, dev), alloc((n, 5 * h), dt, dev)


def _thnn_fused_gru_cell_backward(grad_hy, workspace, has_bias):
    dt, dev = workspace.dtype, workspace.device
    n, h5 = workspace._size
    h = h5 // 5
    gates = alloc((n, 3 * h), dt, dev), alloc((n, 3 * h), dt, dev)
    bias = (alloc((3 * h,), dt, dev), alloc((3 * h,), dt, dev)) if has_bias else (None, None)
    return gates[0], gates[1], alloc((n, h), dt, dev), bias[0], bias[1]


RNN_RELU, RNN_TANH, LSTM, GRU = 0, 1, 2, 3      # torch's mkldnn mode numbers (ideep::rnn_kind)
_LAYER_GATES = {LSTM: 4, GRU: 3}


def check_rnn_layer(input, weight0, weight1, weight2, weight3, hx_, cx_, batch_sizes, mode, hidden_size, has_biases,
                    batch_first):
    """The arguments of mkldnn_rnn_layer checked; returns (L, N, gates)."""
    name = "mkldnn_rnn_layer"
    if len(batch_sizes):
        raise NotImplementedError(f"ember: {name} with packed batch_sizes is not implemented (pad the sequence)")
    g = _LAYER_GATES.get(mode)
    if g is None:
        raise NotImplementedError(f"ember: {name} supports the LSTM ({LSTM}) and GRU ({GRU}) modes, got {mode}")
    if input.dim() != 3:
        raise RuntimeError(f"{name}: expected a 3-D input, but got {input.dim()}-D")
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"{name}: expected a floating point input, but got {input.dtype}")
    L, n = (input._size[1], input._size[0]) if batch_first else (input._size[0], input._size[1])
    h = hidden_size
    expect = [("weight0", weight0, (g * h, input._size[2])), ("weight1", weight1, (g * h, h)),
              ("hx_", hx_, (n, h))]
    if has_biases:
        expect += [("weight2", weight2, (g * h,)), ("weight3", weight3, (g * h,))]
    if g == 4:
        expect.append(("cx_", cx_, (n, h)))
    for what, t, shape in expect:
        if tuple(t._size) != shape:
            raise RuntimeError(f"{name}: expected {what} of size {size_str(shape)}, but got {size_str(t._size)}")
        if t.dtype is not input.dtype:
            raise RuntimeError(f"{name}: expected {what} to have dtype {input.dtype}, but got {t.dtype}")
    return L, n, g


def mkldnn_rnn_layer(input, weight0, weight1, weight2, weight3, hx_, cx_, reverse, batch_sizes, mode, hidden_size,
                     num_layers, has_biases, bidirectional, batch_first, train):
    """One direction of one recurrent layer over a whole padded sequence: output (L, N, H) ((N, L, H) when
    batch_first), hy and cy (N, H) (cy has no elements for a GRU), the workspace the backward reads."""
    L, n, g = check_rnn_layer(input, weight0, weight1, weight2, weight3, hx_, cx_, batch_sizes, mode, hidden_size,
                              has_biases, batch_first)
    h = hidden_size
    dt, dev = input.dtype, input.device
    out = (n, L, h) if batch_first else (L, n, h)
    return alloc(out, dt, dev), alloc((n, h), dt, dev), alloc((n, h) if g == 4 else (0,), dt, dev), \
        alloc((L, n, g + 2 if g == 4 else g + 1, h), dt, dev)


def mkldnn_rnn_layer_backward(input, weight1, weight2, weight3, weight4, hx_, cx_tmp, output, hy_, cy_, grad_output,
                              grad_hy, grad_cy, reverse, mode, hidden_size, num_layers, has_biases, train,
                              bidirectional, batch_sizes, batch_first, workspace):
    dt, dev = input.dtype, input.device
    return tuple(alloc(t._size, dt, dev) for t in (input, weight1, weight2, weight3, weight4, hx_, cx_tmp))
