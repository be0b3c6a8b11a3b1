"""CompositeImplicitAutograd kernels of the whole recurrent networks (torch's RNN.cpp: lstm, gru, rnn_tanh,
rnn_relu, each in its padded `.input` and packed `.data` form): layers of one or two directions over the
sequence, dropout between layers when training. The flat `params` hold, per layer and direction, w_ih, w_hh,
then b_ih, b_hh when has_biases, then w_hr for an LSTM with projections (hx[0]'s size differs from hx[1]'s).
Each step is the cell op of native/rnn.yaml (the same ops as nn.RNNCell and friends)."""
from ..._ops import ops

aten = ops.aten

_MODES = ("LSTM", "GRU", "RNN_TANH", "RNN_RELU")


def _lstm_step(x, h, c, w_ih, w_hh, b_ih, b_hh, w_hr):
    if w_hr is None:
        return aten.lstm_cell.default(x, [h, c], w_ih, w_hh, b_ih, b_hh)
    gates = aten.add.Tensor(aten.linear.default(x, w_ih, b_ih), aten.linear.default(h, w_hh, b_hh))
    i, f, g, o = aten.chunk.default(gates, 4, 1)
    c = aten.add.Tensor(aten.mul.Tensor(aten.sigmoid.default(f), c),
                        aten.mul.Tensor(aten.sigmoid.default(i), aten.tanh.default(g)))
    h = aten.mul.Tensor(aten.sigmoid.default(o), aten.tanh.default(c))
    return aten.linear.default(h, w_hr), c


def _step(mode, x, h, c, w):
    """One time step of one direction: (h, c) (c None but for LSTM)."""
    w_ih, w_hh, b_ih, b_hh, w_hr = w
    if mode == "LSTM":
        return _lstm_step(x, h, c, w_ih, w_hh, b_ih, b_hh, w_hr)
    cell = {"GRU": aten.gru_cell, "RNN_TANH": aten.rnn_tanh_cell, "RNN_RELU": aten.rnn_relu_cell}[mode]
    return cell.default(x, h, w_ih, w_hh, b_ih, b_hh), None


def _weights(params, has_biases, proj, num_layers, dirs):
    per = 2 + 2 * has_biases + proj
    if len(params) != per * num_layers * dirs:
        raise RuntimeError("got an incorrect number of RNN parameters")
    out = []
    for k in range(num_layers * dirs):
        p = list(params[k * per:(k + 1) * per])
        w_ih, w_hh = p[0], p[1]
        b_ih, b_hh = (p[2], p[3]) if has_biases else (None, None)
        out.append((w_ih, w_hh, b_ih, b_hh, p[-1] if proj else None))
    return out


def _direction(mode, xs, h, c, w, reverse):
    """xs: the per-step inputs; the per-step outputs in time order and the last (h, c)."""
    outs = [None] * len(xs)
    order = range(len(xs) - 1, -1, -1) if reverse else range(len(xs))
    for t in order:
        h, c = _step(mode, xs[t], h, c, w)
        outs[t] = h
    return outs, h, c


def _direction_packed(mode, xs, sizes, h0, c0, w, reverse):
    """Packed steps (xs[t] holds the first sizes[t] sequences, sizes non-increasing): a sequence's final state
    is its state after its own last step."""
    outs = [None] * len(xs)
    if not reverse:
        h, c = h0, c0
        done_h, done_c = [], []
        for t in range(len(xs)):
            bs = sizes[t]
            if bs < h.shape[0]:                   # sequences that ended: their states are final
                done_h.append(aten.slice.Tensor(h, 0, bs)), done_c.append(None if c is None else
                                                                      aten.slice.Tensor(c, 0, bs))
                h = aten.slice.Tensor(h, 0, 0, bs)
                c = None if c is None else aten.slice.Tensor(c, 0, 0, bs)
            h, c = _step(mode, xs[t], h, c, w)
            outs[t] = h
        hy = aten.cat.default([h] + done_h[::-1])
        cy = None if c is None else aten.cat.default([c] + done_c[::-1])
        return outs, hy, cy
    last = sizes[-1]
    h = aten.slice.Tensor(h0, 0, 0, last)
    c = None if c0 is None else aten.slice.Tensor(c0, 0, 0, last)
    for t in range(len(xs) - 1, -1, -1):
        bs = sizes[t]
        if bs > h.shape[0]:                       # sequences that start here (from the end) join with h0
            h = aten.cat.default([h, aten.slice.Tensor(h0, 0, h.shape[0], bs)])
            if c is not None:
                c = aten.cat.default([c, aten.slice.Tensor(c0, 0, c.shape[0], bs)])
        h, c = _step(mode, xs[t], h, c, w)
        outs[t] = h
    return outs, h, c


def _stack(mode, steps, sizes, hx, cx, params, has_biases, num_layers, dropout, train, bidirectional):
    """steps: per-step inputs of the first layer. Returns the last layer's per-step outputs, hy, cy."""
    dirs = 2 if bidirectional else 1
    proj = mode == "LSTM" and hx.shape[2] != cx.shape[2]
    ws = _weights(params, has_biases, proj, num_layers, dirs)
    hs, cs = [], []
    for layer in range(num_layers):
        per_dir = []
        for d in range(dirs):
            k = layer * dirs + d
            h0 = aten.select.int(hx, 0, k)
            c0 = aten.select.int(cx, 0, k) if cx is not None else None
            if sizes is None:
                outs, h, c = _direction(mode, steps, h0, c0, ws[k], d == 1)
            else:
                outs, h, c = _direction_packed(mode, steps, sizes, h0, c0, ws[k], d == 1)
            per_dir.append(outs)
            hs.append(h)
            cs.append(c)
        steps = per_dir[0] if dirs == 1 else [aten.cat.default([a, b], 1) for a, b in zip(*per_dir)]
        if dropout != 0 and train and layer < num_layers - 1:
            steps = [aten.dropout.default(s, dropout, train) for s in steps]
    hy = aten.stack.default(hs)
    cy = aten.stack.default(cs) if mode == "LSTM" else None
    return steps, hy, cy


def _input_form(mode, input, hx, cx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first):
    x = aten.transpose.int(input, 0, 1) if batch_first else input
    steps = list(aten.unbind.int(x, 0))
    outs, hy, cy = _stack(mode, steps, None, hx, cx, params, has_biases, num_layers, dropout, train, bidirectional)
    out = aten.stack.default(outs)
    return (aten.transpose.int(out, 0, 1) if batch_first else out), hy, cy


def _data_form(mode, data, batch_sizes, hx, cx, params, has_biases, num_layers, dropout, train, bidirectional):
    sizes = [int(s) for s in batch_sizes.tolist()]
    steps = list(aten.split_with_sizes.default(data, sizes))
    outs, hy, cy = _stack(mode, steps, sizes, hx, cx, params, has_biases, num_layers, dropout, train, bidirectional)
    return aten.cat.default(outs), hy, cy


def _lstm_hx(hx):
    if len(hx) != 2:
        raise RuntimeError("lstm expects two hidden states")
    return hx[0], hx[1]


def lstm_input(input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first):
    h, c = _lstm_hx(hx)
    return _input_form("LSTM", input, h, c, params, has_biases, num_layers, dropout, train, bidirectional,
                       batch_first)


def lstm_data(data, batch_sizes, hx, params, has_biases, num_layers, dropout, train, bidirectional):
    h, c = _lstm_hx(hx)
    return _data_form("LSTM", data, batch_sizes, h, c, params, has_biases, num_layers, dropout, train, bidirectional)


def _simple(mode):
    def input_form(input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first):
        return _input_form(mode, input, hx, None, params, has_biases, num_layers, dropout, train, bidirectional,
                           batch_first)[:2]

    def data_form(data, batch_sizes, hx, params, has_biases, num_layers, dropout, train, bidirectional):
        return _data_form(mode, data, batch_sizes, hx, None, params, has_biases, num_layers, dropout, train,
                          bidirectional)[:2]
    return input_form, data_form


gru_input, gru_data = _simple("GRU")
rnn_tanh_input, rnn_tanh_data = _simple("RNN_TANH")
rnn_relu_input, rnn_relu_data = _simple("RNN_RELU")
