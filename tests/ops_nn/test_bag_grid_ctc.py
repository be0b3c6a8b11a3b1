import numpy as np
import pytest

import ember
import ember.nn.functional as EF
from _nn_util import DTYPES, RNG, arr, close, meta_matches, pair


@pytest.mark.parity
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
@pytest.mark.parametrize("padding_idx", [None, 2])
def test_embedding_bag(dtype, mode, padding_idx):
    torch = pytest.importorskip("torch")
    w, tw = pair(torch, arr(7, 3, dtype=dtype))
    i, ti = pair(torch, np.array([1, 2, 4, 5, 4, 3, 2, 6]))
    o, to = pair(torch, np.array([0, 2, 2, 5]))
    close(EF.embedding_bag(i, w, o, mode=mode, padding_idx=padding_idx),
          torch.nn.functional.embedding_bag(ti, tw, to, mode=mode, padding_idx=padding_idx))
    i2, ti2 = pair(torch, RNG.integers(0, 7, (3, 4)))
    close(EF.embedding_bag(i2, w, mode=mode), torch.nn.functional.embedding_bag(ti2, tw, mode=mode))
    if mode == "sum":
        ps, tps = pair(torch, arr(8, dtype=dtype))
        o8, to8 = pair(torch, np.array([0, 2, 2, 5, 8]))
        close(EF.embedding_bag(i, w, o8, mode=mode, per_sample_weights=ps, include_last_offset=True),
              torch.nn.functional.embedding_bag(ti, tw, to8, mode=mode, per_sample_weights=tps,
                                                include_last_offset=True))


@pytest.mark.parity
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("mode", ["bilinear", "nearest", "bicubic"])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align", [False, True])
def test_grid_sample(dtype, mode, padding_mode, align):
    torch = pytest.importorskip("torch")
    x, tx = pair(torch, arr(2, 3, 5, 6, dtype=dtype))
    g, tg = pair(torch, arr(2, 4, 3, 2, dtype=dtype, low=-1.3, high=1.3))
    close(EF.grid_sample(x, g, mode, padding_mode, align),
          torch.nn.functional.grid_sample(tx, tg, mode, padding_mode, align))
    meta_matches(lambda a, b: EF.grid_sample(a, b, mode, padding_mode, align), x, g)


@pytest.mark.parity
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("concat", [False, True])
def test_ctc_loss(dtype, reduction, concat):
    torch = pytest.importorskip("torch")
    T, B, C, S = 12, 3, 5, 4
    lp, tlp = pair(torch, torch.log_softmax(torch.from_numpy(arr(T, B, C, dtype=dtype)), -1).numpy())
    tgt = RNG.integers(1, C, (B, S))
    tgt[0, 1] = tgt[0, 0]                      # a repeated label
    il, tl = [12, 9, 7], [4, 2, 3]
    if concat:
        tgt = np.concatenate([tgt[b, :tl[b]] for b in range(B)])
    t, tt = pair(torch, tgt)
    close(EF.ctc_loss(lp, t, il, tl, reduction=reduction),
          torch.nn.functional.ctc_loss(tlp, tt, il, tl, reduction=reduction))
    ilt, tilt = pair(torch, np.array(il))
    tlt, ttlt = pair(torch, np.array(tl))
    close(EF.ctc_loss(lp, t, ilt, tlt, reduction=reduction, zero_infinity=True),
          torch.nn.functional.ctc_loss(tlp, tt, tilt, ttlt, reduction=reduction, zero_infinity=True))
