"""The nn backward kernels (what derivatives for the nn ops call) against torch's aten backward ops."""
import numpy as np
import pytest

import ember
from ember._ops import ops
from ._nn_util import DTYPES, RNG, arr, close, meta_matches, pair

E = ops.aten


def closeall(es, ts):
    for e, t in zip(es, ts):
        if t is None:
            assert e is None
        else:
            close(e, t)


@pytest.mark.parity
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("cfg", [
    dict(x=(2, 3, 7, 6), w=(4, 3, 3, 3), st=[1, 1], pd=[0, 0], dl=[1, 1], g=1, tr=False, op=[0, 0]),
    dict(x=(2, 4, 9, 8), w=(6, 2, 3, 2), st=[2, 2], pd=[1, 1], dl=[2, 1], g=2, tr=False, op=[0, 0]),
    dict(x=(2, 3, 10), w=(4, 3, 3), st=[3], pd=[1], dl=[1], g=1, tr=False, op=[0]),
    dict(x=(2, 4, 5, 4), w=(4, 2, 3, 2), st=[2, 2], pd=[1, 1], dl=[1, 1], g=2, tr=True, op=[1, 1]),
    # output_padding under dilation: grad_output has a row no input position reached
    dict(x=(2, 4, 9), w=(4, 3, 3), st=[1], pd=[0], dl=[2], g=1, tr=True, op=[1]),
])
def test_convolution_backward(dtype, cfg):
    torch = pytest.importorskip("torch")
    x, tx = pair(torch, arr(*cfg["x"], dtype=dtype))
    w, tw = pair(torch, arr(*cfg["w"], dtype=dtype))
    args = (cfg["st"], cfg["pd"], cfg["dl"], cfg["tr"], cfg["op"], cfg["g"])
    ty = torch.ops.aten.convolution(tx, tw, None, *args)
    go, tgo = pair(torch, arr(*ty.shape, dtype=dtype))
    cout = ty.shape[1]
    closeall(E.convolution_backward.default(go, x, w, [cout], *args, [True, True, True]),
             torch.ops.aten.convolution_backward(tgo, tx, tw, [cout], *args, [True, True, True]))
    meta_matches(lambda a, b, c: E.convolution_backward.default(a, b, c, [cout], *args, [True, True, True]), go, x, w)


@pytest.mark.parity
@pytest.mark.parametrize("dtype", DTYPES)
def test_softmax_backward(dtype):
    torch = pytest.importorskip("torch")
    y, ty = pair(torch, torch.softmax(torch.from_numpy(arr(3, 5, dtype=dtype)), 1).numpy())
    g, tg = pair(torch, arr(3, 5, dtype=dtype))
    tdt = torch.float32 if dtype == np.float32 else torch.float64
    edt = ember.float32 if dtype == np.float32 else ember.float64
    close(E._softmax_backward_data.default(g, y, 1, edt), torch.ops.aten._softmax_backward_data(tg, ty, 1, tdt))
    close(E._log_softmax_backward_data.default(g, y, 0, edt),
          torch.ops.aten._log_softmax_backward_data(tg, ty, 0, tdt))


@pytest.mark.parity
@pytest.mark.parametrize("dtype", DTYPES)
def test_norm_backward(dtype):
    torch = pytest.importorskip("torch")
    x, tx = pair(torch, arr(4, 3, 5, dtype=dtype))
    w, tw = pair(torch, arr(5, dtype=dtype))
    b, tb = pair(torch, arr(5, dtype=dtype))
    g, tg = pair(torch, arr(4, 3, 5, dtype=dtype))
    _, m, r = E.native_layer_norm.default(x, [5], w, b, 1e-5)
    _, tm, tr = torch.native_layer_norm(tx, [5], tw, tb, 1e-5)
    closeall(E.native_layer_norm_backward.default(g, x, [5], m, r, w, b, [True, True, True]),
             torch.ops.aten.native_layer_norm_backward(tg, tx, [5], tm, tr, tw, tb, [True, True, True]))
    w3, tw3 = pair(torch, arr(3, dtype=dtype))
    rm, trm = pair(torch, arr(3, dtype=dtype))
    rv, trv = pair(torch, arr(3, dtype=dtype, low=0.5, high=2))
    for train in (True, False):
        _, sm, si = E.native_batch_norm.default(x, w3, None, rm, rv, train, 0.1, 1e-5)
        _, tsm, tsi = torch.native_batch_norm(tx, tw3, None, trm, trv, train, 0.1, 1e-5)
        closeall(E.native_batch_norm_backward.default(g, x, w3, rm, rv, sm, si, train, 1e-5, [True, True, True]),
                 torch.ops.aten.native_batch_norm_backward(tg, tx, tw3, trm, trv, tsm, tsi, train, 1e-5,
                                                           [True, True, True]))


@pytest.mark.parity
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kw", [dict(kernel_size=[2, 2], stride=[2, 2], padding=[0, 0], ceil_mode=False),
                                dict(kernel_size=[3, 3], stride=[2, 2], padding=[1, 1], ceil_mode=True)])
def test_pool_backward(dtype, kw):
    torch = pytest.importorskip("torch")
    x, tx = pair(torch, arr(2, 3, 7, 6, dtype=dtype))
    k, s, p, c = kw["kernel_size"], kw["stride"], kw["padding"], kw["ceil_mode"]
    v, i = E.max_pool2d_with_indices.default(x, k, s, p, [1, 1], c)
    tv, ti = torch.ops.aten.max_pool2d_with_indices(tx, k, s, p, [1, 1], c)
    g, tg = pair(torch, arr(*tv.shape, dtype=dtype))
    close(E.max_pool2d_with_indices_backward.default(g, x, k, s, p, [1, 1], c, i),
          torch.ops.aten.max_pool2d_with_indices_backward(tg, tx, k, s, p, [1, 1], c, ti))
    for cip in (True, False):
        close(E.avg_pool2d_backward.default(g, x, k, s, p, c, cip, None),
              torch.ops.aten.avg_pool2d_backward(tg, tx, k, s, p, c, cip, None))
    g2, tg2 = pair(torch, arr(2, 3, 4, 4, dtype=dtype))
    close(E._adaptive_avg_pool2d_backward.default(g2, x), torch.ops.aten._adaptive_avg_pool2d_backward(tg2, tx))


@pytest.mark.parity
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", [0, 1, 2])
def test_loss_embedding_dropout_backward(dtype, reduction):
    torch = pytest.importorskip("torch")
    x, tx = pair(torch, arr(5, 4, dtype=dtype))
    t, tt = pair(torch, np.array([0, 3, 1, -100, 2]))
    w, tw = pair(torch, arr(4, dtype=dtype, low=0.5, high=2))
    _, tot = E.nll_loss_forward.default(x, t, w, reduction, -100)
    _, ttot = torch.ops.aten.nll_loss_forward(tx, tt, tw, reduction, -100)
    g, tg = pair(torch, arr(5, dtype=dtype) if reduction == 0 else np.array(1.7, dtype))
    close(E.nll_loss_backward.default(g, x, t, w, reduction, -100, tot),
          torch.ops.aten.nll_loss_backward(tg, tx, tt, tw, reduction, -100, ttot))
    y, ty = pair(torch, arr(5, 4, dtype=dtype))
    gm, tgm = pair(torch, arr(5, 4, dtype=dtype) if reduction == 0 else np.array(0.3, dtype))
    close(E.mse_loss_backward.default(gm, x, y, reduction), torch.ops.aten.mse_loss_backward(tgm, tx, ty, reduction))
    idx, tidx = pair(torch, RNG.integers(0, 6, (3, 4)))
    ge, tge = pair(torch, arr(3, 4, 5, dtype=dtype))
    for freq in (False, True):
        close(E.embedding_dense_backward.default(ge, idx, 6, 2, freq),
              torch.ops.aten.embedding_dense_backward(tge, tidx, 6, 2, freq))
    m, tm = pair(torch, RNG.random((5, 4)) > 0.5)
    close(E.native_dropout_backward.default(gm if reduction == 0 else x, m, 2.0),
          torch.ops.aten.native_dropout_backward(tgm if reduction == 0 else tx, tm, 2.0))


@pytest.mark.parity
@pytest.mark.parametrize("dtype", DTYPES)
def test_group_norm_backward(dtype):
    torch = pytest.importorskip("torch")
    x, tx = pair(torch, arr(2, 6, 3, 2, dtype=dtype))
    w, tw = pair(torch, arr(6, dtype=dtype))
    g, tg = pair(torch, arr(2, 6, 3, 2, dtype=dtype))
    _, m, r = E.native_group_norm.default(x, w, None, 2, 6, 6, 3, 1e-5)
    _, tm, tr = torch.native_group_norm(tx, tw, None, 2, 6, 6, 3, 1e-5)
    closeall(E.native_group_norm_backward.default(g, x, m, r, w, 2, 6, 6, 3, [True, True, True]),
             torch.ops.aten.native_group_norm_backward(tg, tx, tm, tr, tw, 2, 6, 6, 3, [True, True, True]))


@pytest.mark.parity
def test_noncontiguous_inputs():
    torch = pytest.importorskip("torch")
    a = arr(2, 6, 7, 3)
    x, tx = pair(torch, a)
    xe, xt = x.permute(0, 3, 1, 2), tx.permute(0, 3, 1, 2)             # (2, 3, 6, 7), channels-last strides
    w, tw = pair(torch, arr(4, 3, 3, 3))
    close(ember.conv2d(xe, w, padding=1), torch.nn.functional.conv2d(xt, tw, padding=1))
    close(ember.max_pool2d(xe, 2), torch.nn.functional.max_pool2d(xt, 2))
    close(ember._nn.avg_pool2d(xe, 3, 2, 1), torch.nn.functional.avg_pool2d(xt, 3, 2, 1))
    close(ember.softmax(xe, 1), torch.softmax(xt, 1))
    close(ember.layer_norm(xe, [7]), torch.layer_norm(xt, [7]))
    close(ember.batch_norm(xe, None, None, None, None, True, 0.1, 1e-5, False),
          torch.batch_norm(xt, None, None, None, None, True, 0.1, 1e-5, False))
    close(ember._nn.adaptive_avg_pool2d(xe, 3), torch.nn.functional.adaptive_avg_pool2d(xt, 3))
