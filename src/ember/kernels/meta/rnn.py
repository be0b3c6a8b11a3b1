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
