import warnings

import numpy as np
import pytest

import ember
import ember.nn.functional as EF
from _nn_util import DTYPES, RNG, arr, close, meta_matches, pair


def both(torch, name, e_args, t_args, **kw):
    tf = getattr(torch.nn.functional, name, None) or getattr(torch, name)
    return getattr(EF, name)(*e_args, **kw), tf(*t_args, **kw)


@pytest.mark.parity
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_margin_losses(dtype, reduction):
    torch = pytest.importorskip("torch")
    a, ta = pair(torch, arr(5, 4, dtype=dtype))
    b, tb = pair(torch, arr(5, 4, dtype=dtype))
    c, tc = pair(torch, arr(5, 4, dtype=dtype))
    y, ty = pair(torch, np.sign(arr(5, 4, dtype=dtype)))
    y1, ty1 = pair(torch, np.sign(arr(5, dtype=dtype)))
    close(*both(torch, "margin_ranking_loss", (a, b, y), (ta, tb, ty), margin=0.3, reduction=reduction))
    close(*both(torch, "hinge_embedding_loss", (a, y), (ta, ty), margin=0.5, reduction=reduction))
    close(*both(torch, "soft_margin_loss", (a, y), (ta, ty), reduction=reduction))
    close(*both(torch, "cosine_embedding_loss", (a, b, y1), (ta, tb, ty1), margin=0.2, reduction=reduction))
    for kw in (dict(), dict(p=1, swap=True, margin=0.5)):
        close(*both(torch, "triplet_margin_loss", (a, b, c), (ta, tb, tc), reduction=reduction, **kw))
    pos, tpos = pair(torch, arr(5, 4, dtype=dtype, low=0.1, high=3))
    for kw in (dict(log_input=True), dict(log_input=False, full=True)):
        close(*both(torch, "poisson_nll_loss", (a if kw["log_input"] else pos, pos * 2),
                    (ta if kw["log_input"] else tpos, tpos * 2), reduction=reduction, **kw))
    close(*both(torch, "gaussian_nll_loss", (a, b, pos), (ta, tb, tpos), reduction=reduction, full=True))
    t01, tt01 = pair(torch, (arr(5, 4, dtype=dtype, low=0, high=1) > 0.5).astype(dtype))
    close(*both(torch, "multilabel_soft_margin_loss", (a, t01), (ta, tt01), reduction=reduction))
    close(*both(torch, "huber_loss", (a, b), (ta, tb), reduction=reduction, weight=tpos if False else None))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for red in ("batchmean", reduction):
            close(*both(torch, "kl_div", (a, b), (ta, tb), reduction=red, log_target=True))


@pytest.mark.parity
@pytest.mark.parametrize("dtype", DTYPES)
def test_distances(dtype):
    torch = pytest.importorskip("torch")
    a, ta = pair(torch, arr(5, 4, dtype=dtype))
    b, tb = pair(torch, arr(5, 4, dtype=dtype))
    close(*both(torch, "cosine_similarity", (a, b), (ta, tb)))
    close(*both(torch, "cosine_similarity", (a, b[:1]), (ta, tb[:1]), dim=-1))
    close(*both(torch, "pairwise_distance", (a, b), (ta, tb)))
    close(*both(torch, "pairwise_distance", (a, b), (ta, tb), p=1.5, keepdim=True))
    x, tx = pair(torch, arr(2, 30, 4, dtype=dtype))
    y, ty = pair(torch, arr(2, 7, 4, dtype=dtype))
    for p in (0.0, 1.0, 2.0, 3.0, float("inf")):
        close(*both(torch, "cdist", (x[:, :5], y), (tx[:, :5], ty), p=p))
    close(ember.cdist(x, y), torch.cdist(tx, ty), rtol=1e-3, atol=1e-3)
    meta_matches(ember.cdist, x, y)


@pytest.mark.parity
@pytest.mark.parametrize("dtype", DTYPES)
def test_bilinear_pixel_shuffle(dtype):
    torch = pytest.importorskip("torch")
    a, ta = pair(torch, arr(3, 4, dtype=dtype))
    b, tb = pair(torch, arr(3, 5, dtype=dtype))
    w, tw = pair(torch, arr(6, 4, 5, dtype=dtype))
    bb, tbb = pair(torch, arr(6, dtype=dtype))
    close(*both(torch, "bilinear", (a, b, w, bb), (ta, tb, tw, tbb)))
    x, tx = pair(torch, arr(2, 8, 3, 5, dtype=dtype))
    close(*both(torch, "pixel_shuffle", (x, 2), (tx, 2)))
    x, tx = pair(torch, arr(2, 3, 4, 6, dtype=dtype))
    close(*both(torch, "pixel_unshuffle", (x, 2), (tx, 2)))
    with pytest.raises(RuntimeError, match="divisible by the square of upscale_factor"):
        EF.pixel_shuffle(ember.randn(1, 5, 2, 2), 2)


@pytest.mark.parity
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,p", [((2, 3, 5), [1, 2]), ((2, 3, 5, 4), [1, 2, 2, 0]), ((3, 4, 5), [2, 1, 1, 3]),
                                     ((1, 2, 3, 4, 5), [1, 1, 1, 1, 1, 1])])
@pytest.mark.parametrize("mode", ["constant", "reflect", "replicate", "circular"])
def test_pad(dtype, shape, p, mode):
    torch = pytest.importorskip("torch")
    x, tx = pair(torch, arr(*shape, dtype=dtype))
    close(*both(torch, "pad", (x, p), (tx, p), mode=mode))
    if mode == "constant":
        close(*both(torch, "pad", (x, [-1, 2]), (tx, [-1, 2]), value=2.5))
    meta_matches(lambda t: EF.pad(t, p, mode=mode), x)


@pytest.mark.parity
def test_pad_reflect_error():
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError) as te:
        torch.nn.functional.pad(torch.randn(1, 2, 3), [3, 3], mode="reflect")
    with pytest.raises(RuntimeError) as ee:
        EF.pad(ember.randn(1, 2, 3), [3, 3], mode="reflect")
    assert str(ee.value) == str(te.value)


@pytest.mark.parity
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("mode,align", [("nearest", None), ("nearest-exact", None), ("bilinear", False),
                                        ("bilinear", True), ("bicubic", False), ("bicubic", True), ("area", None)])
@pytest.mark.parametrize("kw", [dict(size=(7, 5)), dict(scale_factor=2), dict(scale_factor=(1.5, 0.7)),
                                dict(size=(3, 2))])
def test_interpolate2d(dtype, mode, align, kw):
    torch = pytest.importorskip("torch")
    x, tx = pair(torch, arr(2, 3, 4, 6, dtype=dtype))
    close(*both(torch, "interpolate", (x,), (tx,), mode=mode, align_corners=align, **kw))


@pytest.mark.parity
@pytest.mark.parametrize("mode,align", [("nearest", None), ("linear", False), ("linear", True)])
@pytest.mark.parametrize("kw", [dict(size=9), dict(scale_factor=2.5), dict(scale_factor=0.5, recompute_scale_factor=True)])
def test_interpolate1d(mode, align, kw):
    torch = pytest.importorskip("torch")
    x, tx = pair(torch, arr(2, 3, 6))
    close(*both(torch, "interpolate", (x,), (tx,), mode=mode, align_corners=align, **kw))


@pytest.mark.parity
def test_functional_wrappers():
    torch = pytest.importorskip("torch")
    F = torch.nn.functional
    x, tx = pair(torch, arr(4, 5))
    t, tt = pair(torch, RNG.integers(0, 5, 4))
    close(EF.cross_entropy(x, t, reduction="sum"), F.cross_entropy(tx, tt, reduction="sum"))
    close(EF.nll_loss(x, t, reduction="none"), F.nll_loss(tx, tt, reduction="none"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        close(EF.softmax(x), F.softmax(tx))
        close(EF.log_softmax(x, 0), F.log_softmax(tx, 0))
    img, timg = pair(torch, arr(2, 3, 6, 6))
    v, i = EF.max_pool2d(img, 3, 2, 1, return_indices=True)
    tv, ti = F.max_pool2d(timg, 3, 2, 1, return_indices=True)
    close(v, tv)
    close(i, ti)
    close(EF.avg_pool2d(img, 2), F.avg_pool2d(timg, 2))
    close(EF.adaptive_max_pool2d(img, (None, 2)), F.adaptive_max_pool2d(timg, (None, 2)))
    with pytest.raises(ValueError, match="Expected more than 1 value per channel when training"):
        EF.batch_norm(ember.randn(1, 3), None, None, training=True)
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, but got 1.5"):
        EF.dropout(x, 1.5)
    w, tw = pair(torch, arr(6, 3))
    close(EF.embedding(t, w, padding_idx=-1), F.embedding(tt, tw, padding_idx=-1))
    ember.manual_seed(0)
    y = EF.dropout2d(ember.ones(2, 8, 3, 3), 0.5)
    assert set(np.unique(y.numpy())) <= {0.0, 2.0}


@pytest.mark.parity
@pytest.mark.parametrize("dtype", DTYPES)
def test_normalize_lrn(dtype):
    torch = pytest.importorskip("torch")
    x, tx = pair(torch, arr(2, 5, 4, 3, dtype=dtype))
    close(EF.normalize(x), torch.nn.functional.normalize(tx))
    close(EF.normalize(x, p=1, dim=-1), torch.nn.functional.normalize(tx, p=1, dim=-1))
    close(EF.local_response_norm(x, 3), torch.nn.functional.local_response_norm(tx, 3))
    close(EF.local_response_norm(x[:, :, 0], 2), torch.nn.functional.local_response_norm(tx[:, :, 0], 2))
