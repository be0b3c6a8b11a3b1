"""csrc/ctc.c (the alpha and beta recursions) against the numpy path and torch: repeated labels (no
skip), empty targets, zero and short input lengths (infinite loss), zero_infinity, -inf and NaN
log-probabilities, float32/float64, padded and concatenated targets."""
import numpy as np
import pytest

import ember
from ember import _cc
from ember.kernels.cpu.runtime import clib

needs_c = pytest.mark.skipif(not _cc.available(), reason="no C compiler")


def _case(dtype, seed):
    rng = np.random.default_rng(seed)
    T, B, C, S = 12, 6, 5, 4
    x = rng.standard_normal((T, B, C)).astype(dtype)
    tg = rng.integers(1, C, (B, S))
    tg[1] = [2, 2, 2, 3]                                  # repeats: no skip between equal labels
    il = np.array([12, 10, 0, 3, 12, 1])                  # 0 and too short for the target
    tl = np.array([4, 4, 0, 4, 2, 0])                     # an empty target
    return x, tg, il, tl


def _run(lib, x, tg, il, tl, zero_inf, flat):
    xt = lib.tensor(x, requires_grad=True)
    lp = xt.log_softmax(2)
    targets = lib.tensor(np.concatenate([tg[b, :tl[b]] for b in range(len(tl))]) if flat else tg)
    loss = lib.nn.functional.ctc_loss(lp, targets, lib.tensor(il), lib.tensor(tl), reduction="none",
                                      zero_infinity=zero_inf)
    loss.backward(lib.ones_like(loss))
    return loss.detach().numpy(), xt.grad.numpy()


@needs_c
@pytest.mark.parity
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("zero_inf", [False, True])
@pytest.mark.parametrize("flat", [False, True])
def test_ctc_c_and_numpy_match_torch(dtype, zero_inf, flat):
    torch = pytest.importorskip("torch")
    x, tg, il, tl = _case(dtype, 0)
    ref = _run(torch, x, tg, il, tl, zero_inf, flat)
    tol = dict(rtol=1e-4, atol=1e-5) if dtype == np.float32 else dict(rtol=1e-10, atol=1e-12)
    for on in (True, False):
        with clib.use_c(on):
            got = _run(ember, x, tg, il, tl, zero_inf, flat)
        for g, r in zip(got, ref):
            assert g.dtype == r.dtype
            np.testing.assert_array_equal(np.isinf(g), np.isinf(r))
            fin = np.isfinite(r)
            np.testing.assert_allclose(g[fin], r[fin], **tol, err_msg=f"C={on}")


@needs_c
def test_non_finite_log_probs_give_the_same_on_both_paths():
    x, tg, il, tl = _case(np.float64, 1)
    lp = x - np.log(np.exp(x).sum(2, keepdims=True))
    lp[3, 0, 2] = -np.inf
    lp[5, 4, tg[4, 0]] = np.nan                    # a label of element 4: its loss turns NaN
    out = []
    for on in (True, False):
        with clib.use_c(on):
            loss, alpha = ember.ops.aten._ctc_loss(ember.tensor(lp), ember.tensor(tg), il.tolist(), tl.tolist())
            g = ember.ops.aten._ctc_loss_backward(ember.ones(6, dtype=ember.float64), ember.tensor(lp),
                                                  ember.tensor(tg), il.tolist(), tl.tolist(), loss, alpha, 0)
        out.append([loss.numpy(), alpha.numpy(), g.numpy()])
    for a, b in zip(*out):
        np.testing.assert_array_equal(np.isnan(a), np.isnan(b))
        np.testing.assert_allclose(a[~np.isnan(a)], b[~np.isnan(b)], rtol=1e-12, atol=1e-300)
    assert np.isnan(out[0][0][4]) and np.isfinite(out[0][0][0])


@needs_c
def test_ctc_kernels_are_used():
    for sfx in ("f32", "f64"):
        assert clib.kernel("ctc", f"ctc_alpha_{sfx}", "pppplll") is not None
        assert clib.kernel("ctc", f"ctc_beta_{sfx}", "ppppplll") is not None
