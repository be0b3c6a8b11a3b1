"""The rnn family: lstm_cell / gru_cell / rnn_*_cell and the fused cells (_thnn_fused_lstm_cell,
_thnn_fused_gru_cell) with their backward kernels, against torch (the cells, and torch's differentiable
cell backwards, which run on its CPU), gradcheck and double backward."""
import numpy as np
import pytest

import ember
from ember.autograd import gradcheck, gradgradcheck

aten = ember.ops.aten


def _rand(rng, *shape):
    return rng.standard_normal(shape)


def _pair(torch, x, rg=True):
    return ember.tensor(x, requires_grad=rg), torch.tensor(x, requires_grad=rg)


def _close(e, t, tol=1e-10):
    if t is None:
        assert e is None
        return
    np.testing.assert_allclose(e.detach().numpy(), t.detach().numpy(), rtol=tol, atol=tol)


@pytest.mark.parity
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("cell", ["lstm_cell", "gru_cell", "rnn_tanh_cell", "rnn_relu_cell"])
def test_cell_forward_backward_matches_torch(cell, bias):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    n, i, h = 3, 4, 5
    g = {"lstm_cell": 4, "gru_cell": 3}.get(cell, 1) * h
    arrays = [_rand(rng, n, i), _rand(rng, n, h), _rand(rng, g, i), _rand(rng, g, h)]
    if bias:
        arrays += [_rand(rng, g), _rand(rng, g)]
    pairs = [_pair(torch, a) for a in arrays]
    e_args, t_args = [p[0] for p in pairs], [p[1] for p in pairs]
    if cell == "lstm_cell":
        c = _pair(torch, _rand(rng, n, h))
        e_args[1], t_args[1] = [e_args[1], c[0]], [t_args[1], c[1]]
        pairs.append(c)
    ye, yt = getattr(ember, cell)(*e_args), getattr(torch, cell)(*t_args)
    ye, yt = (ye, yt) if isinstance(yt, tuple) else ((ye,), (yt,))
    for a, b in zip(ye, yt):
        _close(a, b)
    weights = [_rand(rng, n, h) for _ in ye]
    sum(((a * ember.tensor(w)).sum() for a, w in zip(ye, weights)), ember.tensor(0.0)).backward()
    sum(((a * torch.tensor(w)).sum() for a, w in zip(yt, weights)), torch.tensor(0.0)).backward()
    for pe, pt in pairs:
        _close(pe.grad, pt.grad)


@pytest.mark.parity
@pytest.mark.parametrize("which", ["both", "hy", "cy"])
def test_fused_lstm_backward_matches_torch_differentiable_backward(which):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(1)
    n, h = 3, 4
    ig, hg, cx, bi, bh = _rand(rng, n, 4 * h), _rand(rng, n, 4 * h), _rand(rng, n, h), _rand(rng, 4 * h), \
        _rand(rng, 4 * h)
    ehy, ecy, ws = aten._thnn_fused_lstm_cell.default(*(ember.tensor(a) for a in (ig, hg, cx, bi, bh)))
    ghy = None if which == "cy" else _rand(rng, n, h)
    gcy = None if which == "hy" else _rand(rng, n, h)
    mine = aten._thnn_fused_lstm_cell_backward.default(
        None if ghy is None else ember.tensor(ghy), None if gcy is None else ember.tensor(gcy), ember.tensor(cx),
        ecy, ws, True)
    tt = torch.tensor
    ref = torch.ops.aten._thnn_differentiable_lstm_cell_backward(
        None if ghy is None else tt(ghy), None if gcy is None else tt(gcy), tt(ig), tt(hg), tt(bi), tt(bh), tt(cx),
        tt(ecy.numpy()))
    for a, b in zip(mine, ref):
        _close(a, b)
    et = lambda a: None if a is None else ember.tensor(a)  # noqa: E731
    mine = aten._thnn_differentiable_lstm_cell_backward.default(et(ghy), et(gcy), *(ember.tensor(a) for a in (
        ig, hg, bi, bh, cx)), ecy)
    for a, b in zip(mine, ref):
        _close(a, b)
    # the kernel behind the composite (torch has it for CUDA only): (grad_gates, grad_cx, grad_bias) are the
    # differentiable backward's gates grad (input and hidden alike), its grad_cx and its bias grad
    for has_bias in (True, False):
        gates, gcx, gb = aten._thnn_fused_lstm_cell_backward_impl.default(et(ghy), et(gcy), ember.tensor(cx), ecy, ws,
                                                                          has_bias)
        for a, b in ((gates, ref[0]), (gates, ref[1]), (gcx, ref[2]), (gb, ref[3] if has_bias else None)):
            _close(a, b)


@pytest.mark.parity
@pytest.mark.parametrize("bias", [True, False])
def test_fused_gru_backward_matches_torch_differentiable_backward(bias):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(2)
    n, h = 3, 4
    ig, hg, hx = _rand(rng, n, 3 * h), _rand(rng, n, 3 * h), _rand(rng, n, h)
    bi, bh = (_rand(rng, 3 * h), _rand(rng, 3 * h)) if bias else (None, None)
    et = [None if a is None else ember.tensor(a) for a in (ig, hg, hx, bi, bh)]
    hy, ws = aten._thnn_fused_gru_cell.default(*et)
    assert tuple(ws.shape) == (n, 5 * h)
    np.testing.assert_allclose(ws.numpy()[:, 3 * h:4 * h], hx)          # torch's layout: [r, z, n, hx, hn]
    g = _rand(rng, n, h)
    mine = aten._thnn_fused_gru_cell_backward.default(ember.tensor(g), ws, bias)
    tt = torch.tensor
    ref = torch.ops.aten._thnn_differentiable_gru_cell_backward(
        tt(g), tt(ig), tt(hg), tt(hx), None if bi is None else tt(bi), None if bh is None else tt(bh))
    for a, b in zip(mine, ref):
        _close(a, b)
    mine = aten._thnn_differentiable_gru_cell_backward.default(ember.tensor(g), *et)
    for a, b in zip(mine, ref):
        _close(a, b)


def test_fused_cells_gradcheck_and_double_backward():
    rng = np.random.default_rng(3)
    n, h = 2, 3

    def t(*shape):
        return ember.tensor(rng.standard_normal(shape), requires_grad=True)

    lstm_in = (t(n, 4 * h), t(n, 4 * h), t(n, h), t(4 * h), t(4 * h))
    gru_in = (t(n, 3 * h), t(n, 3 * h), t(n, h), t(3 * h), t(3 * h))

    def lstm(*a):
        hy, cy, _ = aten._thnn_fused_lstm_cell.default(*a)
        return hy, cy

    def gru(*a):
        return aten._thnn_fused_gru_cell.default(*a)[0]

    for fn, inputs in ((lstm, lstm_in), (gru, gru_in)):
        assert gradcheck(fn, inputs)
        assert gradgradcheck(fn, inputs)


def test_lstm_cell_grad_of_c_only():
    # only cy reaches the loss: hy gets no grad (the fused backward's grad_hy=None path)
    rng = np.random.default_rng(4)
    x = ember.tensor(rng.standard_normal((2, 3)), requires_grad=True)
    cell = ember.nn.LSTMCell(3, 4).double()
    h, c = cell(x)
    c.sum().backward()
    ref = ember.tensor(x.detach().numpy(), requires_grad=True)
    w_ih, w_hh, b = cell.weight_ih, cell.weight_hh, cell.bias_ih + cell.bias_hh
    i, f, g, o = (ref @ w_ih.t() + b).chunk(4, 1)
    (ember.sigmoid(i) * ember.tanh(g)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), ref.grad.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parity
def test_cell_errors_match_torch():
    torch = pytest.importorskip("torch")
    x, h = np.zeros((3, 4)), np.zeros((3, 5))
    w_ih, w_hh = np.zeros((20, 4)), np.zeros((20, 5))
    cases = [((np.zeros((3, 3)), [h, h], w_ih, w_hh), RuntimeError),
             ((x, [np.zeros((3, 6)), h], w_ih, w_hh), RuntimeError),
             ((x, [np.zeros((2, 5)), h], w_ih, w_hh), RuntimeError),
             ((x, [h], w_ih, w_hh), RuntimeError)]
    for (a, hx, wi, wh), exc in cases:
        with pytest.raises(exc) as te:
            torch.lstm_cell(torch.tensor(a), [torch.tensor(v) for v in hx], torch.tensor(wi), torch.tensor(wh))
        with pytest.raises(exc) as ee:
            ember.lstm_cell(ember.tensor(a), [ember.tensor(v) for v in hx], ember.tensor(wi), ember.tensor(wh))
        assert str(ee.value) == str(te.value)


@pytest.mark.parity
def test_cell_errors_on_each_size_match_torch():
    """Every size the cells check, for lstm_cell's cell state and gru_cell too (the cells read plain 2-D sizes
    first and run the checks only when one does not fit)."""
    torch = pytest.importorskip("torch")
    x, h = np.zeros((3, 4)), np.zeros((3, 5))
    lstm = [(x, [h, np.zeros((3, 6))]), (x, [h, np.zeros((2, 5))]), (np.zeros((3, 3)), [h, h]),
            (np.zeros(4), [h, h])]
    for a, hx in lstm:
        with pytest.raises(Exception) as te:
            torch.lstm_cell(torch.tensor(a), [torch.tensor(v) for v in hx], torch.zeros(20, 4, dtype=torch.float64),
                            torch.zeros(20, 5, dtype=torch.float64))
        with pytest.raises(Exception) as ee:
            ember.lstm_cell(ember.tensor(a), [ember.tensor(v) for v in hx], ember.zeros(20, 4, dtype=ember.float64),
                            ember.zeros(20, 5, dtype=ember.float64))
        assert type(ee.value).__name__ == type(te.value).__name__ and str(ee.value) == str(te.value)
    # (the one-state cells name their state "hidden0", as torch does)
    for name, g in (("gru_cell", 15), ("rnn_tanh_cell", 5), ("rnn_relu_cell", 5)):
        for a, hx in [(x, np.zeros((3, 6))), (x, np.zeros((2, 5))), (np.zeros((3, 3)), h)]:
            with pytest.raises(Exception) as te:
                getattr(torch, name)(torch.tensor(a), torch.tensor(hx), torch.zeros(g, 4, dtype=torch.float64),
                                     torch.zeros(g, 5, dtype=torch.float64))
            with pytest.raises(Exception) as ee:
                getattr(ember, name)(ember.tensor(a), ember.tensor(hx), ember.zeros(g, 4, dtype=ember.float64),
                                     ember.zeros(g, 5, dtype=ember.float64))
            assert type(ee.value).__name__ == type(te.value).__name__ and str(ee.value) == str(te.value)


def test_fused_cell_meta_shapes_and_bad_sizes():
    ig = ember.empty(2, 12, device="meta")
    hy, cy, ws = aten._thnn_fused_lstm_cell.default(ig, ig, ember.empty(2, 3, device="meta"))
    assert (tuple(hy.shape), tuple(cy.shape), tuple(ws.shape)) == ((2, 3), (2, 3), (2, 12))
    hy, ws = aten._thnn_fused_gru_cell.default(ember.empty(2, 9, device="meta"), ember.empty(2, 9, device="meta"),
                                               ember.empty(2, 3, device="meta"))
    assert (tuple(hy.shape), tuple(ws.shape)) == ((2, 3), (2, 15))
    with pytest.raises(RuntimeError, match="previous state"):
        aten._thnn_fused_lstm_cell.default(ember.zeros(2, 12), ember.zeros(2, 12), ember.zeros(2, 4))
    with pytest.raises(RuntimeError, match="hidden_gates"):
        aten._thnn_fused_gru_cell.default(ember.zeros(2, 9), ember.zeros(2, 6), ember.zeros(2, 3))


def _outcome(f):
    try:
        r = f()
    except Exception as e:      # noqa: BLE001 - the exception type and message are what is compared
        return type(e).__name__, str(e)
    return "ok", [tuple(t.shape) for t in (r if isinstance(r, tuple) else (r,))]


@pytest.mark.parity
@pytest.mark.parametrize("xs,hs", [((2, 4), (2, 3, 1)), ((2, 4), (2, 3, 3)), ((3, 4), (3, 3, 3)), ((2, 4), (1, 2, 3)),
                                   ((2, 4), (2, 2, 3)), ((4, 4), (4, 4, 4))])
def test_cells_with_a_3d_hidden_state_match_torch(xs, hs):
    """A 3-d hidden state the size checks let through runs torch's CPU cell math (RNN.cpp): its linear and
    add errors ("mat1 and mat2 shapes cannot be multiplied", broadcast mismatches naming the hidden map as
    tensor a), not ember's one-step mkldnn_rnn_layer error; the modules refuse it first with ValueError."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    x, h = rng.standard_normal(xs).astype(np.float32), rng.standard_normal(hs).astype(np.float32)
    H = hs[-1] if hs[-1] == hs[1] else hs[1]
    for cell, g in (("lstm_cell", 4), ("gru_cell", 3), ("rnn_tanh_cell", 1), ("rnn_relu_cell", 1)):
        if cell == "lstm_cell" and hs == (3, 3, 3):
            continue        # torch's LSTMCell reads a 4th chunk of a size-3 dim there: a segfault
        w = [rng.standard_normal(s).astype(np.float32) for s in ((g * H, xs[1]), (g * H, H), (g * H,), (g * H,))]
        out = []
        for lib in (torch, ember):
            a = [lib.from_numpy(v) for v in [x, h] + w]
            hx = (a[1], a[1]) if cell == "lstm_cell" else a[1]
            out.append(_outcome(lambda: getattr(lib, cell)(a[0], hx, *a[2:])))
        assert out[1] == out[0], cell
    for mod, hx in (("LSTMCell", lambda m: (m.from_numpy(h), m.from_numpy(h))), ("GRUCell", lambda m: m.from_numpy(h)),
                    ("RNNCell", lambda m: m.from_numpy(h))):
        out = [_outcome(lambda: getattr(lib.nn, mod)(xs[1], H)(lib.from_numpy(x), hx(lib))) for lib in (torch, ember)]
        assert out[1] == out[0], mod
