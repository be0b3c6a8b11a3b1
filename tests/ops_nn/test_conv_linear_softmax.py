import numpy as np
import pytest

import ember
from _nn_util import DTYPES, arr, close, meta_matches, pair


@pytest.mark.parity
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("cfg", [
    dict(d=2, x=(2, 3, 7, 6), w=(4, 3, 3, 3), kw={}),
    dict(d=2, x=(2, 4, 9, 8), w=(6, 2, 3, 2), kw=dict(stride=2, padding=1, dilation=(2, 1), groups=2)),
    dict(d=2, x=(3, 5, 5), w=(2, 3, 3, 3), kw=dict(padding="same")),
    dict(d=2, x=(1, 3, 6, 6), w=(2, 3, 2, 4), kw=dict(padding="same", dilation=1)),
    dict(d=2, x=(1, 3, 6, 6), w=(2, 3, 3, 3), kw=dict(padding="valid", stride=(1, 2))),
    dict(d=1, x=(2, 3, 10), w=(4, 3, 3), kw=dict(stride=2, padding=2, dilation=3)),
    dict(d=1, x=(2, 4, 10), w=(4, 1, 3), kw=dict(groups=4, padding="same")),
    dict(d=3, x=(1, 2, 5, 4, 6), w=(3, 2, 2, 3, 2), kw=dict(stride=(1, 2, 1), padding=1)),
])
def test_conv(dtype, cfg):
    torch = pytest.importorskip("torch")
    x, tx = pair(torch, arr(*cfg["x"], dtype=dtype))
    w, tw = pair(torch, arr(*cfg["w"], dtype=dtype))
    b, tb = pair(torch, arr(cfg["w"][0], dtype=dtype))
    fe = getattr(ember, f"conv{cfg['d']}d")
    ft = getattr(torch.nn.functional, f"conv{cfg['d']}d")
    close(fe(x, w, b, **cfg["kw"]), ft(tx, tw, tb, **cfg["kw"]))
    close(fe(x, w, **cfg["kw"]), ft(tx, tw, **cfg["kw"]))
    meta_matches(fe, x, w, b, **cfg["kw"])


@pytest.mark.parity
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("cfg", [
    dict(d=2, x=(2, 4, 5, 5), w=(4, 3, 3, 3), kw={}),
    dict(d=2, x=(2, 4, 5, 4), w=(4, 2, 3, 2), kw=dict(stride=2, padding=1, output_padding=1, groups=2)),
    dict(d=2, x=(4, 3, 3), w=(4, 2, 2, 2), kw=dict(stride=(2, 3), dilation=2, padding=(0, 1))),
    dict(d=1, x=(2, 3, 7), w=(3, 5, 4), kw=dict(stride=3, padding=2, output_padding=2)),
    dict(d=1, x=(1, 2, 4), w=(2, 2, 3), kw=dict(padding=3, dilation=2)),
])
def test_conv_transpose(dtype, cfg):
    torch = pytest.importorskip("torch")
    x, tx = pair(torch, arr(*cfg["x"], dtype=dtype))
    w, tw = pair(torch, arr(*cfg["w"], dtype=dtype))
    cout = cfg["w"][1] * cfg["kw"].get("groups", 1)
    b, tb = pair(torch, arr(cout, dtype=dtype))
    fe = getattr(ember, f"conv_transpose{cfg['d']}d")
    ft = getattr(torch.nn.functional, f"conv_transpose{cfg['d']}d")
    close(fe(x, w, b, **cfg["kw"]), ft(tx, tw, tb, **cfg["kw"]))
    meta_matches(fe, x, w, b, **cfg["kw"])


@pytest.mark.parity
@pytest.mark.parametrize("call", [
    lambda m, x, w: m.conv2d(x[0, 0], w),
    lambda m, x, w: m.conv2d(x, w[:, :2]),
    lambda m, x, w: m.conv2d(x, w, groups=2),
    lambda m, x, w: m.conv2d(x, w, stride=0),
    lambda m, x, w: m.conv2d(x[..., :2, :2], w),
    lambda m, x, w: m.conv2d(x, w, m.ones(3)),
    lambda m, x, w: m.conv2d(x, w, stride=2, padding="same"),
    lambda m, x, w: m.conv1d(x, w),
])
def test_conv_errors(call):
    torch = pytest.importorskip("torch")
    x, tx = pair(torch, arr(1, 4, 5, 5))
    w, tw = pair(torch, arr(8, 4, 3, 3))
    with pytest.raises(Exception) as te:
        call(torch, tx, tw)
    with pytest.raises(type(te.value)) as ee:
        call(ember, x, w)
    assert str(ee.value) == str(te.value)


def test_conv_error_message_channels():
    x, w = ember.randn(1, 4, 5, 5), ember.randn(8, 3, 3, 3)
    with pytest.raises(RuntimeError, match=r"Given groups=1, weight of size \[8, 3, 3, 3\], expected input\[1, 4, 5, "
                                           r"5\] to have 3 channels, but got 4 channels instead"):
        ember.conv2d(x, w)
    with pytest.raises(RuntimeError, match=r"Expected 3D \(unbatched\) or 4D \(batched\) input to conv2d, but got "
                                           r"input of size: \[2, 3\]"):
        ember.conv2d(ember.randn(2, 3), w)


@pytest.mark.parity
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("xs,ws,bias", [((5, 3), (4, 3), True), ((2, 5, 3), (4, 3), True), ((3,), (4, 3), False),
                                        ((2, 2, 3), (1, 3), False)])
def test_linear(dtype, xs, ws, bias):
    torch = pytest.importorskip("torch")
    x, tx = pair(torch, arr(*xs, dtype=dtype))
    w, tw = pair(torch, arr(*ws, dtype=dtype))
    b, tb = pair(torch, arr(ws[0], dtype=dtype) if bias else None)
    close(ember._nn.linear(x, w, b), torch.nn.functional.linear(tx, tw, tb))
    meta_matches(ember._nn.linear, x, w, b)


@pytest.mark.parity
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,dim", [((3, 5), 1), ((3, 5), 0), ((2, 3, 4), -1), ((), 0), ((4, 0), 1)])
def test_softmax(dtype, shape, dim):
    torch = pytest.importorskip("torch")
    a = arr(*shape, dtype=dtype) * 30
    x, tx = pair(torch, a)
    close(ember.softmax(x, dim), torch.softmax(tx, dim))
    close(ember.log_softmax(x, dim), torch.log_softmax(tx, dim))
    close(x.softmax(dim), tx.softmax(dim))
    close(ember.softmax(x, dim, dtype=ember.float64), torch.softmax(tx, dim, dtype=torch.float64))
    meta_matches(ember.log_softmax, x, dim)


@pytest.mark.parity
def test_softmax_stable_and_inf():
    torch = pytest.importorskip("torch")
    x, tx = pair(torch, np.array([[1000., 1001., -np.inf], [-np.inf, -np.inf, 0.]], np.float32))
    close(ember.softmax(x, 1), torch.softmax(tx, 1))
    close(ember.log_softmax(x, 1), torch.log_softmax(tx, 1))


@pytest.mark.parity
@pytest.mark.parametrize("dim", [0, 1])
def test_softmax_rows_with_pos_inf_or_all_neg_inf_are_nan(dim):
    torch = pytest.importorskip("torch")
    a = np.array([[1., np.inf, 2., 0.], [-np.inf] * 4, [3., 1., 2., 0.], [np.inf, np.inf, 0., 1.]], np.float32)
    x, tx = pair(torch, a if dim == 1 else a.T.copy())
    for f in ("softmax", "log_softmax"):
        e, t = getattr(ember, f)(x, dim), getattr(torch, f)(tx, dim)
        assert np.isnan(t.numpy()).any()
        close(e, t)


@pytest.mark.parity
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,ns,affine", [((2, 3, 4), [4], True), ((2, 3, 4), [3, 4], False), ((5, 6), [6], True)])
def test_layer_norm(dtype, shape, ns, affine):
    torch = pytest.importorskip("torch")
    x, tx = pair(torch, arr(*shape, dtype=dtype))
    w, tw = pair(torch, arr(*ns, dtype=dtype) if affine else None)
    b, tb = pair(torch, arr(*ns, dtype=dtype) if affine else None)
    close(ember.layer_norm(x, ns, w, b, 1e-5), torch.layer_norm(tx, ns, tw, tb, 1e-5))
    for e, t in zip(ember.native_layer_norm(x, ns, w, b, 1e-3), torch.native_layer_norm(tx, ns, tw, tb, 1e-3)):
        close(e, t)
    meta_matches(ember.native_layer_norm, x, ns, w, b, 1e-5)


@pytest.mark.parity
def test_layer_norm_errors():
    torch = pytest.importorskip("torch")
    for ns in ([5], [2, 4]):
        with pytest.raises(RuntimeError) as te:
            torch.layer_norm(torch.randn(2, 3, 4), ns)
        with pytest.raises(RuntimeError) as ee:
            ember.layer_norm(ember.randn(2, 3, 4), ns)
        assert str(ee.value) == str(te.value)
    for edt, tdt in ((ember.int64, torch.int64), (ember.complex64, torch.complex64)):
        with pytest.raises(NotImplementedError) as te:
            torch.layer_norm(torch.ones(2, 3, dtype=tdt), [3])
        with pytest.raises(NotImplementedError) as ee:
            ember.layer_norm(ember.ones(2, 3, dtype=edt), [3])
        assert str(ee.value) == str(te.value)
