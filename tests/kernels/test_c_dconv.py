"""csrc/dconv.c (direct stride-1 convolution) against torch and the im2col path: every rank,
groups, padding, dilation, transposed, odd channel counts, both block widths, non-finite inputs;
when it is chosen, and that it is actually used."""
import itertools

import numpy as np
import pytest

import ember
from ember import _cc
from ember.kernels.cpu.runtime import clib
from ember.kernels.cpu import conv_direct

F = ember.nn.functional
needs_c = pytest.mark.skipif(not _cc.available(), reason="no C compiler")


def _fn(lib, d, transposed):
    return getattr(lib.nn.functional, ("conv_transpose" if transposed else "conv") + f"{d}d")


def _grads(lib, d, tr, x, w, b, kw, go):
    """output and grads (x, w, b) as numpy, through lib's autograd."""
    tx, tw = lib.tensor(x, requires_grad=True), lib.tensor(w, requires_grad=True)
    tb = None if b is None else lib.tensor(b, requires_grad=True)
    y = _fn(lib, d, tr)(tx, tw, tb, **kw)
    y.backward(lib.tensor(go))
    out = [y.detach().numpy(), tx.grad.numpy(), tw.grad.numpy()]
    return out + ([] if b is None else [tb.grad.numpy()])


def _cases():
    """stride-1 convolutions: ranks, groups, paddings (one beyond the kernel's reach, so the input
    gradient cannot be a padded forward), dilations, output channel counts 1..7 (both block widths
    and their zero rows), transposed."""
    sp = {1: (11,), 2: (7, 9), 3: (4, 5, 6)}
    ks = {1: (3,), 2: (3, 2), 3: (2, 3, 2)}
    for d, groups, pd, dl, og, tr in itertools.product((1, 2, 3), (1, 2), (0, 1, 3), (1, 2), (1, 3, 7), (False, True)):
        if tr and (d == 3 or pd == 3):
            continue                     # no conv_transpose3d; padding beyond the kernel makes no output
        cin = 2 * groups
        if tr:
            yield d, tr, (2, cin) + sp[d], (cin, og) + ks[d], dict(padding=pd, dilation=dl, groups=groups)
        else:
            yield d, tr, (3, cin) + sp[d], (og * groups, 2) + ks[d], dict(padding=pd, dilation=dl, groups=groups)


@pytest.fixture
def direct_everywhere(monkeypatch):
    """dconv for every stride-1 convolution, however many channels."""
    monkeypatch.setattr(conv_direct, "FWD_LIMIT", 1 << 40)
    monkeypatch.setattr(conv_direct, "GRAD_INPUT_LIMIT", 1 << 40)
    monkeypatch.setattr(conv_direct, "GRAD_WEIGHT_LIMIT", 1 << 40)
    monkeypatch.setattr(conv_direct, "MAX_WASTE", 1e9)


@needs_c
@pytest.mark.parity
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_direct_conv_matches_torch(dtype, direct_everywhere):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    tol = dict(rtol=2e-4, atol=2e-4) if dtype == np.float32 else dict(rtol=1e-10, atol=1e-10)
    for d, tr, xs, ws, kw in _cases():
        x, w = rng.standard_normal(xs).astype(dtype), rng.standard_normal(ws).astype(dtype)
        b = rng.standard_normal(ws[1] * kw["groups"] if tr else ws[0]).astype(dtype)
        ty = _fn(torch, d, tr)(torch.tensor(x), torch.tensor(w), **kw)
        go = rng.standard_normal(tuple(ty.shape)).astype(dtype)
        ref = _grads(torch, d, tr, x, w, b, kw, go)
        got = _grads(ember, d, tr, x, w, b, kw, go)
        for a, r in zip(got, ref):
            assert a.dtype == r.dtype and a.shape == r.shape
            np.testing.assert_allclose(a, r, **tol, err_msg=f"{d}-d {xs} {ws} {kw} transposed={tr}")


@needs_c
@pytest.mark.parametrize("n", [1, 2, 7])
def test_direct_conv_threads_over_images_like_the_im2col_path(n, direct_everywhere, monkeypatch):
    """Batches big enough for the thread pool, odd image counts: the same as the im2col path."""
    rng = np.random.default_rng(1)
    x = rng.standard_normal((n, 6, 30, 29)).astype(np.float32)
    w = rng.standard_normal((16, 6, 5, 5)).astype(np.float32)
    b = rng.standard_normal(16).astype(np.float32)
    go = rng.standard_normal((n, 16, 28, 27)).astype(np.float32)
    kw = dict(padding=1)
    direct = _grads(ember, 2, False, x, w, b, kw, go)
    monkeypatch.setattr(conv_direct, "usable", lambda *a, **k: False)
    im2col = _grads(ember, 2, False, x, w, b, kw, go)
    for a, r in zip(direct, im2col):
        np.testing.assert_allclose(a, r, rtol=1e-4, atol=2e-3)


@needs_c
@pytest.mark.parity
def test_non_finite_inputs_keep_torchs_weight_gradient(direct_everywhere):
    """An inf or NaN input must reach only the weight taps that see it (the direct loop would also
    multiply it by the zero gradient of a thrown-away position, so it hands the case over)."""
    torch = pytest.importorskip("torch")
    x = np.ones((2, 2, 6, 7), np.float64)
    x[0, 0, 2, 0], x[1, 1, 4, 6], x[1, 0, 0, 3] = np.inf, np.nan, -np.inf
    w = np.full((3, 2, 3, 3), 0.25)
    go = np.random.default_rng(2).standard_normal((2, 3, 4, 5))
    ref = _grads(torch, 2, False, x, w, None, {}, go)
    got = _grads(ember, 2, False, x, w, None, {}, go)
    for a, r in zip(got, ref):
        np.testing.assert_array_equal(np.isnan(a), np.isnan(r))
        np.testing.assert_allclose(a[~np.isnan(r)], r[~np.isnan(r)], rtol=1e-12)
    assert np.isfinite(ref[2]).any() and not np.isfinite(ref[2]).all()
    assert conv_direct.weight_grad(x, go, w.shape, (0, 0), (1, 1), 1) is None       # handed over
    x[np.isnan(x) | np.isinf(x)] = 7.0
    assert conv_direct.weight_grad(x, go, w.shape, (0, 0), (1, 1), 1) is not None


@needs_c
def test_lenet_convolutions_take_the_direct_path(monkeypatch):
    assert clib.kernel("dconv", "dconv_fwd_f32", "pppppllllll", "i") is not None
    assert clib.kernel("dconv", "dconv_wgrad_f64", "ppppllllll", "i") is not None
    calls = []
    for name in ("forward", "input_grad", "weight_grad"):
        real = getattr(conv_direct, name)
        monkeypatch.setattr(conv_direct, name, lambda *a, _r=real, _n=name: calls.append(_n) or _r(*a))
    x = ember.randn(4, 6, 14, 14, requires_grad=True)
    conv = ember.nn.Conv2d(6, 16, 5)
    conv(x).sum().backward()
    assert calls == ["forward", "input_grad", "weight_grad"]
    calls.clear()
    F.conv2d(x, ember.randn(8, 6, 3, 3), stride=2).sum().backward()     # stride 2: im2col
    assert calls == []


def test_usable_rules():
    x = np.zeros((2, 16, 28, 28), np.float32)
    small = (16, 16, 5, 5)
    if not clib.enabled():
        assert not conv_direct.usable(x, small, (1, 1), (0, 0), (1, 1), 1)
        return
    assert conv_direct.usable(x, small, (1, 1), (0, 0), (1, 1), 1)
    assert not conv_direct.usable(x, small, (2, 2), (0, 0), (1, 1), 1)                   # stride
    assert not conv_direct.usable(x.astype(np.float16), small, (1, 1), (0, 0), (1, 1), 1)
    assert not conv_direct.usable(x, small, (1, 1), (0, 0), (1, 1), 1, out=(23, 24))    # cropped output
    assert not conv_direct.usable(x, (128, 16, 5, 5), (1, 1), (0, 0), (1, 1), 1)        # BLAS wins
    assert conv_direct.usable(x, (32, 16, 5, 5), (1, 1), (0, 0), (1, 1), 1, limit=conv_direct.GRAD_INPUT_LIMIT)
    assert not conv_direct.usable(np.zeros((2, 16, 4, 40), np.float32), (4, 16, 1, 30), (1, 1), (0, 0), (1, 1), 1)
    assert not conv_direct.usable(x[:0], small, (1, 1), (0, 0), (1, 1), 1)               # empty batch
    x32 = np.zeros((2, 32, 16, 16), np.float32)
    assert conv_direct.usable(x32, (32, 32, 3, 3), (1, 1), (1, 1), (1, 1), 1, limit=conv_direct.GRAD_INPUT_LIMIT)
    assert conv_direct.usable(x32, (32, 32, 3, 3), (1, 1), (1, 1), (1, 1), 1, limit=conv_direct.GRAD_WEIGHT_LIMIT)
    assert not conv_direct.usable(x32, (64, 32, 5, 5), (1, 1), (1, 1), (1, 1), 1, limit=conv_direct.GRAD_WEIGHT_LIMIT)


def _chan_cases():
    """stride-1 convolutions whose output channels fill one, part of one or several channel-vector blocks
    (two 32-byte vectors: 16 float32 or 8 float64 lanes), every rank, groups, padding, dilation."""
    sp = {1: (13,), 2: (9, 7), 3: (4, 6, 5)}
    ks = {1: (3,), 2: (3, 2), 3: (2, 3, 2)}
    for d, groups, pd, dl, og in itertools.product((1, 2, 3), (1, 2), (0, 2), (1, 2), (1, 5, 8, 16, 17)):
        yield (3, 2 * groups) + sp[d], (og * groups, 2) + ks[d], dict(padding=pd, dilation=dl, groups=groups)


@needs_c
@pytest.mark.parity
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_channel_vector_kernels_match_the_grid_kernel_and_torch(dtype, direct_everywhere, monkeypatch):
    """dconv.c's channel-vector kernels (output channels as vector lanes, real positions only): the forward
    and the input gradient have the grid kernel's bits (the same fma chain per output), the weight gradient
    agrees with torch; both against torch."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(3)
    tol = dict(rtol=2e-4, atol=2e-4) if dtype == np.float32 else dict(rtol=1e-10, atol=1e-10)
    for xs, ws, kw in _chan_cases():
        d = len(xs) - 2
        x, w = rng.standard_normal(xs).astype(dtype), rng.standard_normal(ws).astype(dtype)
        b = rng.standard_normal(ws[0]).astype(dtype)
        ty = _fn(torch, d, False)(torch.tensor(x), torch.tensor(w), **kw)
        go = rng.standard_normal(tuple(ty.shape)).astype(dtype)
        ref = _grads(torch, d, False, x, w, b, kw, go)
        got = {}
        for chan in (True, False):
            monkeypatch.setattr(conv_direct, "CHANNEL_VECTORS", chan)
            got[chan] = _grads(ember, d, False, x, w, b, kw, go)
            for a, r in zip(got[chan], ref):
                assert a.dtype == r.dtype and a.shape == r.shape
                np.testing.assert_allclose(a, r, **tol, err_msg=f"{xs} {ws} {kw} chan={chan}")
        msg = f"{xs} {ws} {kw}"
        np.testing.assert_array_equal(got[True][0], got[False][0], err_msg=msg)      # forward
        np.testing.assert_array_equal(got[True][1], got[False][1], err_msg=msg)      # input gradient


@needs_c
def test_channel_vector_kernels_run(monkeypatch):
    """LeNet's second convolution (16 channels of 10x10 outputs on a 14-wide grid) takes the
    channel-vector forward and weight gradient by their cost; its first (6 channels) the grid kernel."""
    seen = []
    real = conv_direct.cparts.run
    monkeypatch.setattr(conv_direct.cparts, "run", lambda fn, *a: seen.append(fn) or real(fn, *a))
    x = ember.randn(4, 6, 14, 14, requires_grad=True)
    ember.nn.Conv2d(6, 16, 5)(x).sum().backward()
    e = conv_direct.cparts.entry
    assert e("dconv", "dconv_fwdc_part_f32") in seen and e("dconv", "dconv_wgradc_part_f32") in seen
    seen.clear()
    ember.nn.Conv2d(1, 6, 5, padding=2)(ember.randn(4, 1, 28, 28)).sum().backward()
    assert e("dconv", "dconv_fwd_part_f32") in seen and e("dconv", "dconv_wgrad_part_f32") in seen
    assert e("dconv", "dconv_fwdc_part_f32") not in seen


@needs_c
@pytest.mark.parametrize("chan", [True, False])
def test_weight_gradient_bits_do_not_depend_on_the_thread_count(chan, monkeypatch):
    """The batch's partial sums are fixed by the batch size (wgrad_grain), not by the threads that run them."""
    monkeypatch.setattr(conv_direct, "CHANNEL_VECTORS", chan)
    rng = np.random.default_rng(4)
    x = rng.standard_normal((64, 6, 14, 14)).astype(np.float32)
    go = rng.standard_normal((64, 16, 10, 10)).astype(np.float32)
    prev = ember.get_num_threads()
    try:
        got = []
        for t in (1, 2, 3):
            ember.set_num_threads(t)
            got.append(conv_direct.weight_grad(x, go, (16, 6, 5, 5), (0, 0), (1, 1), 1))
    finally:
        ember.set_num_threads(prev)
    assert got[0] is not None
    np.testing.assert_array_equal(got[0], got[1])
    np.testing.assert_array_equal(got[0], got[2])


@needs_c
@pytest.mark.parity
def test_channel_vector_weight_gradient_keeps_non_finite_inputs_to_their_taps(direct_everywhere, monkeypatch):
    """Only real output positions multiply in the channel-vector weight gradient, so it keeps inf and NaN
    inputs itself (the grid kernel hands them to im2col)."""
    torch = pytest.importorskip("torch")
    monkeypatch.setattr(conv_direct, "CHANNEL_VECTORS", True)
    x = np.ones((2, 2, 6, 7), np.float64)
    x[0, 0, 2, 0], x[1, 1, 4, 6], x[1, 0, 0, 3] = np.inf, np.nan, -np.inf
    w = np.full((9, 2, 3, 3), 0.25)
    go = np.random.default_rng(2).standard_normal((2, 9, 4, 5))
    ref = _grads(torch, 2, False, x, w, None, {}, go)
    got = _grads(ember, 2, False, x, w, None, {}, go)
    for a, r in zip(got, ref):
        np.testing.assert_array_equal(np.isnan(a), np.isnan(r))
        np.testing.assert_allclose(a[~np.isnan(r)], r[~np.isnan(r)], rtol=1e-12)
    assert conv_direct.weight_grad(x, go, w.shape, (0, 0), (1, 1), 1) is not None


@needs_c
@pytest.mark.parity
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_row_blocks_keep_the_grid_kernels_bits(dtype, monkeypatch):
    """dconv_fwd computes blocks from each output row's start when rows are short on a wide grid (LeNet's second
    input gradient: 14-wide rows on an 18-wide grid; a 16-wide output of a 20-wide grid; a 3-d case): the same
    bits as the channel-vector kernel (whose bits are the whole grid's), and torch's values."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(5)
    tol = dict(rtol=2e-4, atol=2e-4) if dtype == np.float32 else dict(rtol=1e-10, atol=1e-10)
    for xs, ws, kw in (((2, 6, 14, 14), (16, 6, 5, 5), {}), ((2, 3, 16, 16), (6, 3, 5, 5), dict(padding=2)),
                       ((2, 2, 3, 14, 14), (4, 2, 2, 5, 5), dict(padding=(1, 2, 2)))):
        d = len(xs) - 2
        x, w = rng.standard_normal(xs).astype(dtype), rng.standard_normal(ws).astype(dtype)
        ty = _fn(torch, d, False)(torch.tensor(x), torch.tensor(w), **kw)
        go = rng.standard_normal(tuple(ty.shape)).astype(dtype)
        ref = _grads(torch, d, False, x, w, None, kw, go)
        got = {}
        for chan in (True, False):
            monkeypatch.setattr(conv_direct, "CHANNEL_VECTORS", chan)
            got[chan] = _grads(ember, d, False, x, w, None, kw, go)
            for a, r in zip(got[chan], ref):
                np.testing.assert_allclose(a, r, **tol, err_msg=f"{xs} {ws} chan={chan}")
        np.testing.assert_array_equal(got[True][0], got[False][0])
        np.testing.assert_array_equal(got[True][1], got[False][1])
