"""RNN, LSTM, GRU and their cells (torch/nn/modules/rnn.py).

Parameter names, shapes and gate order are torch's (weight_ih_l{k}[_reverse], weight_hh_l{k}, bias_ih_l{k},
bias_hh_l{k}, weight_hr_l{k} for LSTM projections; LSTM gates i,f,g,o; GRU gates r,z,n), so state_dicts move
between ember and torch. The recurrence is written with ember ops (one input matmul per layer for every time
step, then one hidden matmul per step); an LSTM or GRU step's pointwise part is the fused cell
(`_thnn_fused_lstm_cell` / `_thnn_fused_gru_cell`, one autograd node), as torch's CUDA path does. Packed sequences run as padded batches
with a per-step length mask.
Shapes: L sequence length, N batch, D directions, H hidden size, H_out = proj_size or H.
"""
import math
import numbers
import warnings

import ember
from .. import functional as F
from .. import init
from ..parameter import Parameter
from ..utils.rnn import PackedSequence, _pack_like, pad_packed_sequence
from .module import Module
from ..._ops import ops as _ops
from ..._core.tls import KEYS_ACTIVE as _KEYS_ACTIVE
from ...kernels.decompositions.rnn import autocast_cpu_active as _autocast_cpu_active

_aten = _ops.aten
_PROJ_WARNED = []      # torch warns about LSTM projections once per process

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}
_LAYER_MODES = {"LSTM": 2, "GRU": 3}      # the modes of mkldnn_rnn_layer (torch's mkldnn numbers)


class RNNBase(Module):
    __constants__ = ["mode", "input_size", "hidden_size", "num_layers", "bias", "batch_first", "dropout",
                     "bidirectional", "proj_size"]

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
                 bidirectional=False, proj_size=0, device=None, dtype=None):
        kw = {"device": device, "dtype": dtype}
        super().__init__()
        self.mode, self.input_size, self.hidden_size, self.num_layers = mode, input_size, hidden_size, num_layers
        self.bias, self.batch_first, self.dropout = bias, batch_first, float(dropout)
        self.bidirectional, self.proj_size = bidirectional, proj_size
        num_directions = 2 if bidirectional else 1
        if (not isinstance(dropout, numbers.Number) or not 0 <= dropout <= 1 or isinstance(dropout, bool)):
            raise ValueError("dropout should be a number in range [0, 1] representing the probability of an element "
                             "being zeroed")
        if dropout > 0 and num_layers == 1:
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so non-zero dropout "
                          f"expects num_layers greater than 1, but got dropout={dropout} and "
                          f"num_layers={num_layers}", stacklevel=2)
        if not isinstance(hidden_size, int):
            raise TypeError(f"hidden_size should be of type int, got: {type(hidden_size).__name__}")
        if input_size <= 0:
            raise ValueError("input_size must be greater than zero")
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if mode not in _GATES:
            raise ValueError("Unrecognized RNN mode: " + mode)
        gate_size = _GATES[mode] * hidden_size
        self._flat_weights_names = []
        self._all_weights = []
        real_hidden = proj_size if proj_size > 0 else hidden_size
        for layer in range(num_layers):
            for direction in range(num_directions):
                layer_input = input_size if layer == 0 else real_hidden * num_directions
                params = [Parameter(ember.empty((gate_size, layer_input), **kw)),
                          Parameter(ember.empty((gate_size, real_hidden), **kw))]
                names = ["weight_ih_l{}{}", "weight_hh_l{}{}"]
                if bias:
                    params += [Parameter(ember.empty(gate_size, **kw)), Parameter(ember.empty(gate_size, **kw))]
                    names += ["bias_ih_l{}{}", "bias_hh_l{}{}"]
                if proj_size > 0:
                    params.append(Parameter(ember.empty((proj_size, hidden_size), **kw)))
                    names.append("weight_hr_l{}{}")
                suffix = "_reverse" if direction == 1 else ""
                names = [n.format(layer, suffix) for n in names]
                for n, p in zip(names, params):
                    setattr(self, n, p)
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    @property
    def _flat_weights(self):
        return [getattr(self, n, None) for n in self._flat_weights_names]

    @property
    def all_weights(self):
        return [[getattr(self, w) for w in ws] for ws in self._all_weights]

    def flatten_parameters(self):
        pass

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def extra_repr(self):
        s = "{input_size}, {hidden_size}"
        if self.proj_size != 0:
            s += ", proj_size={proj_size}"
        if self.num_layers != 1:
            s += ", num_layers={num_layers}"
        if self.bias is not True:
            s += ", bias={bias}"
        if self.batch_first is not False:
            s += ", batch_first={batch_first}"
        if self.dropout != 0:
            s += ", dropout={dropout}"
        if self.bidirectional is not False:
            s += ", bidirectional={bidirectional}"
        return s.format(**self.__dict__)

    # ------------------------------------------------------------------ checks
    def _check_input(self, input):
        if input.dtype != self._flat_weights[0].dtype:
            raise ValueError(f"RNN input dtype ({input.dtype}) does not match weight dtype "
                             f"({self._flat_weights[0].dtype}). Convert input: input.to({self._flat_weights[0].dtype})"
                             f", or convert model: model.to({input.dtype})")
        if self.input_size != input.shape[-1]:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected {self.input_size}, got "
                               f"{input.shape[-1]}")

    def _check_hidden(self, hx, expected, msg="Expected hidden size {}, got {}"):
        if tuple(hx.shape) != expected:
            raise RuntimeError(msg.format(expected, list(hx.shape)))

    # ------------------------------------------------------------------ recurrence
    def _cell(self, gi, h, c, w_hh, b_ih, b_hh, w_hr, fused=True):
        """One step. gi: (N, G) precomputed input gates (without b_ih for LSTM and GRU, whose fused cell adds
        both biases, as torch's fused kernels do); h: (N, H_out); c: (N, H) for LSTM. fused=False (under CPU
        autocast) is torch's CPU math cell instead, op for op: gi then holds b_ih, the gates come out of the
        linear maps in the autocast dtype and the state keeps its own (a float32 `c`; GRU's `h`)."""
        if not fused and self.mode == "LSTM":
            i, f, g, o = (gi + F.linear(h, w_hh, b_hh)).unsafe_chunk(4, 1)
            c = ember.sigmoid(f) * c + ember.sigmoid(i) * ember.tanh(g)
            h = ember.sigmoid(o) * ember.tanh(c)
            return (h if w_hr is None else F.linear(h, w_hr)), c
        if not fused and self.mode == "GRU":
            ir, iz, in_ = gi.unsafe_chunk(3, 1)
            hr, hz, hn = F.linear(h, w_hh, b_hh).unsafe_chunk(3, 1)
            r, z = ember.sigmoid(hr + ir), ember.sigmoid(hz + iz)
            n = ember.tanh(in_ + hn * r)
            return (h - n) * z + n, None
        if self.mode == "LSTM":
            h, c, _ = _aten._thnn_fused_lstm_cell.default(gi, F.linear(h, w_hh), c, b_ih, b_hh)
            if w_hr is not None:
                h = F.linear(h, w_hr)
            return h, c
        if self.mode == "GRU":
            return _aten._thnn_fused_gru_cell.default(gi, F.linear(h, w_hh), h, b_ih, b_hh)[0], None
        act = ember.tanh if self.mode == "RNN_TANH" else ember.relu
        return act(gi + F.linear(h, w_hh, b_hh)), None

    def _layer(self, x, w_ih, w_hh, b_ih, b_hh, h, c, reverse):
        """One direction of one layer over the whole sequence as one op (torch's mkldnn_rnn_layer, one autograd
        node); taken when no mode or autocast is active (those see the per-step ops)."""
        mode = _LAYER_MODES[self.mode]
        if b_ih is None:
            b_ih = b_hh = ember.zeros(w_ih.shape[0], dtype=w_ih.dtype)
        if c is None:
            c = ember.empty(0, dtype=h.dtype)
        out, hy, cy, _ = _aten.mkldnn_rnn_layer.default(x, w_ih, w_hh, b_ih, b_hh, h, c, reverse, [], mode,
                                                        self.hidden_size, 1, self.bias, self.bidirectional, False,
                                                        self.training)
        return out, hy, (cy if self.mode == "LSTM" else None)

    def _run(self, x, h0, c0, lengths):
        """x: (L, N, H_in); h0: (layers*D, N, H_out); c0 same with H (LSTM) or None;
        lengths: None or python list (per batch item). Returns output (L, N, D*H_out), h_n, c_n."""
        D = 2 if self.bidirectional else 1
        L = x.shape[0]
        masks = None
        if lengths is not None:
            lt = ember.tensor(lengths)
            masks = [(lt > t).unsqueeze(1) for t in range(L)]       # (N, 1) bool per step
        hs, cs = [], []
        layer_in = x
        # Under CPU autocast torch runs an LSTM's layers through mkldnn_rnn_layer (on autocast's lower-precision
        # list: a bfloat16 output and state) unless it is packed or has projections; a GRU, and those LSTMs, step
        # through its math cells (a float32 state stays float32)
        autocast = bool(_KEYS_ACTIVE[0]) and _autocast_cpu_active()
        whole = masks is None and self.mode in _LAYER_MODES and (
            not _KEYS_ACTIVE[0] or (autocast and self.mode == "LSTM" and self.proj_size == 0))
        for layer in range(self.num_layers):
            outs = []
            for d in range(D):
                idx = layer * D + d
                names = self._all_weights[idx]
                p = {n.split("_l")[0]: getattr(self, n) for n in names}
                w_ih, w_hh = p["weight_ih"], p["weight_hh"]
                b_ih, b_hh, w_hr = p.get("bias_ih"), p.get("bias_hh"), p.get("weight_hr")
                h, c = h0[idx], (c0[idx] if c0 is not None else None)
                if whole and w_hr is None:
                    out, h, c = self._layer(layer_in, w_ih, w_hh, b_ih, b_hh, h, c, d == 1)
                    outs.append(out)
                    hs.append(h)
                    cs.append(c)
                    continue
                fused = self.mode in ("LSTM", "GRU") and not autocast   # biases go to the fused cell
                gi_all = F.linear(layer_in, w_ih, None if fused else b_ih)    # (L, N, G): one matmul for all steps
                steps = range(L - 1, -1, -1) if d == 1 else range(L)
                out = [None] * L
                for t in steps:
                    nh, nc = self._cell(gi_all[t], h, c, w_hh, b_ih, b_hh, w_hr, fused)
                    if masks is not None:
                        nh = ember.where(masks[t], nh, h)
                        if nc is not None:
                            nc = ember.where(masks[t], nc, c)
                        out[t] = ember.where(masks[t], nh, ember.zeros((), dtype=nh.dtype))
                    else:
                        out[t] = nh
                    h, c = nh, nc
                outs.append(ember.stack(out))
                hs.append(h)
                cs.append(c)
            layer_in = outs[0] if D == 1 else ember.cat(outs, dim=2)
            if self.dropout and self.training and layer < self.num_layers - 1:
                layer_in = F.dropout(layer_in, self.dropout, True)
        h_n = ember.stack(hs)
        c_n = ember.stack(cs) if self.mode == "LSTM" else None
        return layer_in, h_n, c_n

    def _forward(self, input, hx):
        name = {"LSTM": "LSTM", "GRU": "GRU"}.get(self.mode, "RNN")
        D = 2 if self.bidirectional else 1
        h_out = self.proj_size if self.proj_size > 0 else self.hidden_size
        packed = isinstance(input, PackedSequence)
        lengths = None
        if packed:
            pack = input
            padded, lens = pad_packed_sequence(pack)                     # (L, N, *), original order
            lengths = [int(v) for v in lens.tolist()]
            x, batched = padded, True
            self._check_input(x)
        else:
            if input.dim() not in (2, 3):
                raise ValueError(f"{name}: Expected input to be 2D or 3D, got {input.dim()}D "
                                 f"{'tensor ' if name == 'RNN' else ''}instead")
            batched = input.dim() == 3
            x = input if batched else input.unsqueeze(1)
            if batched and self.batch_first:
                x = x.transpose(0, 1)
            self._check_input(x)
        N = x.shape[1]
        if self.mode == "LSTM" and self.proj_size > 0 and not packed and not _PROJ_WARNED and \
                x.dtype is ember.float32 and x.numel():
            # torch's lstm picks oneDNN for a float32 cpu input and falls back for projections, saying so once
            # (TORCH_WARN_ONCE)
            _PROJ_WARNED.append(True)
            warnings.warn("LSTM with projections is not supported with oneDNN. Using default implementation.",
                          UserWarning, stacklevel=2)   # (at forward's line in this file, as torch's rnn.py)
        if self.mode == "LSTM":
            if hx is None:
                h0 = ember.zeros((self.num_layers * D, N, h_out), dtype=x.dtype)
                c0 = ember.zeros((self.num_layers * D, N, self.hidden_size), dtype=x.dtype)
            else:
                h0, c0 = hx
                if not batched:
                    if h0.dim() != 2 or c0.dim() != 2:
                        raise RuntimeError(f"For unbatched 2-D input, hx and cx should also be 2-D but got "
                                           f"({h0.dim()}-D, {c0.dim()}-D) tensors")
                    h0, c0 = h0.unsqueeze(1), c0.unsqueeze(1)
                self._check_hidden(h0, (self.num_layers * D, N, h_out), "Expected hidden[0] size {}, got {}")
                self._check_hidden(c0, (self.num_layers * D, N, self.hidden_size),
                                   "Expected hidden[1] size {}, got {}")
        else:
            c0 = None
            if hx is None:
                h0 = ember.zeros((self.num_layers * D, N, h_out), dtype=x.dtype)
            else:
                h0 = hx
                if not batched:
                    if h0.dim() != 2:
                        raise RuntimeError(f"For unbatched 2-D input, hx should also be 2-D but got {h0.dim()}-D "
                                           "tensor")
                    h0 = h0.unsqueeze(1)
                self._check_hidden(h0, (self.num_layers * D, N, h_out))
        out, h_n, c_n = self._run(x, h0, c0, lengths)
        if packed:
            out = _pack_like(out, lengths, pack)
        elif not batched:
            out, h_n = out.squeeze(1), h_n.squeeze(1)
            c_n = c_n.squeeze(1) if c_n is not None else None
        elif self.batch_first:
            out = out.transpose(0, 1)
        return out, (h_n if self.mode != "LSTM" else (h_n, c_n))

    def forward(self, input, hx=None):
        return self._forward(input, hx)


class RNN(RNNBase):
    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            self.nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            self.nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if self.nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif self.nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(f"Unknown nonlinearity '{self.nonlinearity}'. Select from 'tanh' or 'relu'.")
        super().__init__(mode, *args, **kwargs)


class LSTM(RNNBase):
    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)


class GRU(RNNBase):
    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)


class RNNCellBase(Module):
    __constants__ = ["input_size", "hidden_size", "bias"]

    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        kw = {"device": device, "dtype": dtype}
        super().__init__()
        self.input_size, self.hidden_size, self.bias = input_size, hidden_size, bias
        self.weight_ih = Parameter(ember.empty((num_chunks * hidden_size, input_size), **kw))
        self.weight_hh = Parameter(ember.empty((num_chunks * hidden_size, hidden_size), **kw))
        if bias:
            self.bias_ih = Parameter(ember.empty(num_chunks * hidden_size, **kw))
            self.bias_hh = Parameter(ember.empty(num_chunks * hidden_size, **kw))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    reset_parameters = RNNBase.reset_parameters

    def extra_repr(self):
        s = "{input_size}, {hidden_size}"
        if "bias" in self.__dict__ and self.bias is not True:
            s += ", bias={bias}"
        if "nonlinearity" in self.__dict__ and self.nonlinearity != "tanh":
            s += ", nonlinearity={nonlinearity}"
        return s.format(**self.__dict__)

    def _prep(self, input, hx, name):
        if input.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.dim()}D instead")
        if hx is not None:                  # torch's cell modules check the hidden state's dims too
            for i, h in enumerate(hx) if name == "LSTMCell" else ((None, hx),):
                if h.dim() not in (1, 2):
                    what = "hidden" if i is None else f"hx[{i}]"
                    raise ValueError(f"{name}: Expected {what} to be 1D or 2D, got {h.dim()}D instead")
        batched = input.dim() == 2
        x = input if batched else input.unsqueeze(0)
        return x, batched

    def _step(self, x, h, c):
        args = (self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        if self.mode == "LSTM":
            return ember.lstm_cell(x, (h, c), *args)
        cell = {"GRU": ember.gru_cell, "RNN_TANH": ember.rnn_tanh_cell, "RNN_RELU": ember.rnn_relu_cell}[self.mode]
        return cell(x, h, *args), None


class RNNCell(RNNCellBase):
    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device, dtype=dtype)
        self.nonlinearity = nonlinearity
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity: {nonlinearity}")

    @property
    def mode(self):
        return "RNN_TANH" if self.nonlinearity == "tanh" else "RNN_RELU"

    def forward(self, input, hx=None):
        x, batched = self._prep(input, hx, "RNNCell")
        h = ember.zeros((x.shape[0], self.hidden_size), dtype=x.dtype) if hx is None else \
            (hx if batched else hx.unsqueeze(0))
        h, _ = self._step(x, h, None)
        return h if batched else h.squeeze(0)


class GRUCell(RNNCellBase):
    mode = "GRU"

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        x, batched = self._prep(input, hx, "GRUCell")
        h = ember.zeros((x.shape[0], self.hidden_size), dtype=x.dtype) if hx is None else \
            (hx if batched else hx.unsqueeze(0))
        h, _ = self._step(x, h, None)
        return h if batched else h.squeeze(0)


class LSTMCell(RNNCellBase):
    mode = "LSTM"

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        x, batched = self._prep(input, hx, "LSTMCell")
        if hx is None:
            z = ember.zeros((x.shape[0], self.hidden_size), dtype=x.dtype)
            hx = (z, z)
        elif not batched:
            hx = (hx[0].unsqueeze(0), hx[1].unsqueeze(0))
        h, c = self._step(x, hx[0], hx[1])
        return (h, c) if batched else (h.squeeze(0), c.squeeze(0))
