"""Direct convolutions and max pools shared out over ember's C pool by images / planes (runtime/cparts.py and the
`*_part_*` entry points of csrc/dconv.c and csrc/pool.c): taken at 2 threads, the same values as on one thread
(bit for bit where each image is its own computation; the weight gradient, a sum of per-chunk parts, to rounding),
torch's values, errors and declines (non-finite weight-gradient input, bad pool indices) as before."""
import numpy as np
import pytest

import ember
import ember.nn.functional as F
from ember.kernels.cpu.runtime import clib, cparts

pytestmark = pytest.mark.skipif(not clib.enabled() or not cparts.entry("dconv", "dconv_fwd_part_f32"),
                                reason="C kernels unavailable")


@pytest.fixture
def calls(monkeypatch):
    seen = []
    real = cparts.run

    def run(fn, n, threads, g, *p):
        seen.append((n, threads, g))
        return real(fn, n, threads, g, *p)
    monkeypatch.setattr(cparts, "run", run)
    return seen


def _step(x, w1, w2, threads):
    old = ember.get_num_threads()
    ember.set_num_threads(threads)
    try:
        ex, ew1, ew2 = (ember.tensor(a, requires_grad=True) for a in (x, w1, w2))
        h = F.max_pool2d(F.relu(F.conv2d(ex, ew1, padding=2)), 2)
        y = F.max_pool2d(F.relu(F.conv2d(h, ew2)), 2)
        (y * y).sum().backward()
        return [y.detach().numpy(), ex.grad.numpy(), ew1.grad.numpy(), ew2.grad.numpy()]
    finally:
        ember.set_num_threads(old)


@pytest.mark.parity
def test_lenet_convolutions_and_pools_split_over_the_c_pool(calls):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    x = rng.standard_normal((64, 1, 28, 28)).astype(np.float32)
    w1 = (rng.standard_normal((6, 1, 5, 5)) * 0.2).astype(np.float32)
    w2 = (rng.standard_normal((16, 6, 5, 5)) * 0.1).astype(np.float32)
    one = _step(x, w1, w2, 1)
    assert all(t == 1 for _, t, _ in calls)
    calls.clear()
    two = _step(x, w1, w2, 2)
    assert sum(t == 2 for _, t, _ in calls) >= 6          # forwards, input and weight grads, pools and their backward
    for a, b in zip(one[:2], two[:2]):
        np.testing.assert_array_equal(a, b)               # image by image: the same bits
    for a, b in zip(one[2:], two[2:]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)
    tx, tw1, tw2 = (torch.tensor(a, requires_grad=True) for a in (x, w1, w2))
    tf = torch.nn.functional
    ty = tf.max_pool2d(tf.relu(tf.conv2d(tf.max_pool2d(tf.relu(tf.conv2d(tx, tw1, padding=2)), 2), tw2)), 2)
    (ty * ty).sum().backward()
    for got, want in zip(two, [ty.detach(), tx.grad, tw1.grad, tw2.grad]):
        np.testing.assert_allclose(got, want.numpy(), rtol=1e-4, atol=1e-3)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_weight_grad_with_non_finite_input_still_declines_to_im2col():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((32, 3, 12, 12)).astype(np.float32)
    x[5, 1, 3, 3] = np.inf
    w = rng.standard_normal((4, 3, 3, 3)).astype(np.float32)
    grads = []
    for t in (1, 2):
        old = ember.get_num_threads()
        ember.set_num_threads(t)
        try:
            ew = ember.tensor(w, requires_grad=True)
            F.conv2d(ember.tensor(x), ew).sum().backward()
            grads.append(ew.grad.numpy())
        finally:
            ember.set_num_threads(old)
    np.testing.assert_array_equal(np.isnan(grads[0]), np.isnan(grads[1]))
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-5, atol=1e-4)


def test_max_pool_backward_bad_index_still_declines(calls):
    """An index outside its plane in any chunk: None (the numpy path then raises its error), at 2 threads too."""
    from ember.kernels.cpu import pool_planes
    old = ember.get_num_threads()
    ember.set_num_threads(2)
    try:
        go = np.ones((64, 8, 14, 14), np.float32)
        idx = np.zeros((64, 8, 14, 14), np.int64)
        assert pool_planes.max_pool_backward(go, idx, (64, 8, 28, 28)) is not None
        assert calls and calls[-1][1] == 2
        idx[40, 3, 2, 2] = 10_000
        assert pool_planes.max_pool_backward(go, idx, (64, 8, 28, 28)) is None
    finally:
        ember.set_num_threads(old)
