"""Convolutions (conv1d-3d, conv_transpose, unfold/fold): values, grads, meta and errors against torch."""
import pytest
import ember
from ._nn_util import DTYPES, arr, close, meta_matches, pair
import ember.nn.functional as EF


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
@pytest.mark.parametrize("shape,kw", [((2, 3, 6, 5), dict(kernel_size=2)),
                                      ((3, 7, 7), dict(kernel_size=(3, 2), dilation=(1, 2), padding=1, stride=2))])
def test_unfold_fold(dtype, shape, kw):
    torch = pytest.importorskip("torch")
    x, tx = pair(torch, arr(*shape, dtype=dtype))
    u, tu = EF.unfold(x, **kw), torch.nn.functional.unfold(tx, **kw)
    close(u, tu)
    meta_matches(lambda t: EF.unfold(t, **kw), x)
    close(EF.fold(u, shape[-2:], **kw), torch.nn.functional.fold(tu, shape[-2:], **kw))
