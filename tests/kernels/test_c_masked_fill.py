"""masked_fill / masked_fill_ with a bool mask broadcast over leading dims (plain attention's causal mask on
(B, H, T, T) scores and its backward's `grad.masked_fill(mask, 0)`) run csrc/masked_fill.c over ember's C pool
(kernels/cpu/index.py `_masked_fill_rep`): the elements of np.where's result, bit for bit, at every thread count,
for every chunk boundary against the mask's period; torch's results (parity)."""
import numpy as np
import pytest

import ember
from ember import _cc
from ember.kernels.cpu import index as K
from ember.kernels.cpu.runtime import clib

needs_cc = pytest.mark.skipif(not _cc.available(), reason="no C compiler (or EMBER_DISABLE_C set)")

# (input shape, mask shape): a trailing-shape mask, one with leading 1s, odd periods that chunks of 64 elements
# cut (a mask of the input's own shape is csrc/elementwise_flat.c's, tests/kernels/test_c_flat.py)
CASES = [((16, 4, 64, 64), (64, 64)), ((16, 4, 64, 64), (1, 1, 64, 64)), ((2, 3, 70, 70), (3, 70, 70)),
         ((5, 3, 37, 29), (1, 37, 29)), ((2, 4097), (4097,)), ((9, 1031), (1031,)), ((2, 4, 50, 50), (50, 50))]
VALUES = (float("-inf"), 0.0, -0.0, 2.5, float("nan"), 7, -(2 ** 40) - 3, 1e-45)


@pytest.fixture(params=[1, 2, 3])
def threads(request):
    old = ember.get_num_threads()
    ember.set_num_threads(request.param)
    yield request.param
    ember.set_num_threads(old)


def _same(got, want, msg=""):
    assert got.dtype == want.dtype and got.shape == want.shape, msg
    np.testing.assert_array_equal(got.reshape(-1).view(np.uint8), want.reshape(-1).view(np.uint8), err_msg=msg)


def _spy(monkeypatch):
    calls = []
    real = K._masked_fill_rep

    def spy(a, m, value, out):
        r = real(a, m, value, out)
        calls.append(r)
        return r
    monkeypatch.setattr(K, "_masked_fill_rep", spy)
    return calls


@needs_cc
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape,mshape", CASES)
def test_repeated_mask_bit_identical_to_numpy(threads, dtype, shape, mshape, monkeypatch):
    calls = _spy(monkeypatch)
    rng = np.random.default_rng(0)
    a = rng.standard_normal(shape).astype(dtype)
    m = rng.random(mshape) > 0.4
    for v in VALUES:
        want = np.where(m, dtype(v), a)
        _same(ember.from_numpy(a.copy()).masked_fill(ember.from_numpy(m), v).numpy(), want, f"masked_fill {v}")
        y = ember.from_numpy(a.copy())
        assert y.masked_fill_(ember.from_numpy(m), v) is y
        _same(y.numpy(), want, f"masked_fill_ {v}")
    assert calls and all(calls)                    # the C kernel ran every time


@needs_cc
def test_sliced_mask_and_paths_it_declines(monkeypatch):
    """A slice mask[:T, :T] of a bigger causal mask (not contiguous) is copied and taken; a mask broadcast over a
    trailing dim, a non-contiguous input, a small input or C off keep numpy's paths, with the same results."""
    calls = _spy(monkeypatch)
    rng = np.random.default_rng(1)
    big = ember.ones(64, 64, dtype=ember.bool).triu(1)
    a = rng.standard_normal((8, 4, 50, 50)).astype(np.float32)
    _same(ember.from_numpy(a).masked_fill(big[:50, :50], float("-inf")).numpy(),
          np.where(np.triu(np.ones((50, 50), bool), 1), np.float32(-np.inf), a))
    assert calls == [True]
    m = rng.random((8, 4, 50, 1)) > 0.5            # broadcast over the last dim: not a repeat
    _same(ember.from_numpy(a).masked_fill(ember.from_numpy(m), 1.5).numpy(), np.where(m, np.float32(1.5), a))
    t = ember.from_numpy(a).transpose(2, 3)        # not contiguous
    m2 = rng.random((50, 50)) > 0.5
    _same(t.masked_fill(ember.from_numpy(m2), 1.5).numpy(), np.where(m2, np.float32(1.5), a.swapaxes(2, 3)))
    small = a[:1, :1, :10, :10].copy()
    _same(ember.from_numpy(small).masked_fill(ember.from_numpy(m2[:10, :10]), 2.0).numpy(),
          np.where(m2[:10, :10], np.float32(2.0), small))
    with clib.use_c(False):
        _same(ember.from_numpy(a).masked_fill(big[:50, :50], 0.0).numpy(),
              np.where(np.triu(np.ones((50, 50), bool), 1), np.float32(0.0), a))
    assert calls[1:] == [False, False]     # the transposed input and C off (the others never reach the kernel)


@pytest.mark.parity
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_attention_mask_and_its_gradient_match_torch(threads, dtype):
    """Plain attention's masked_fill then softmax, forward and gradient, against torch's (the gradient of
    masked_fill is grad.masked_fill(mask, 0): the same kernel)."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(2)
    a = rng.standard_normal((4, 4, 64, 64)).astype(dtype)
    g = rng.standard_normal((4, 4, 64, 64)).astype(dtype)
    outs = []
    for lib in (ember, torch):
        mask = lib.ones(64, 64, dtype=lib.bool).triu(1)
        x = lib.tensor(a, requires_grad=True)
        y = x.masked_fill(mask[:64, :64], float("-inf"))
        y.backward(lib.tensor(g))
        outs.append((y.detach().numpy(), x.grad.numpy()))
    for got, want in zip(*outs):
        _same(got, want)
    e = ember.tensor(a)
    t = torch.tensor(a)
    e.masked_fill_(ember.ones(1, 1, 64, 64, dtype=ember.bool).tril() == 0, -1e4)
    t.masked_fill_(torch.ones(1, 1, 64, 64, dtype=torch.bool).tril() == 0, -1e4)
    _same(e.numpy(), t.numpy())
