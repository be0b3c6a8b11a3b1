"""csrc/im2col.c (convolution per image: im2col, col2im, bias) and csrc/pool.c (max/avg pool 2-d)
against the numpy fallback and torch: every rank, groups, stride, padding, dilation, transposed,
odd sizes, empty batches, NaN/inf; and the C path must actually be used."""
import itertools

import numpy as np
import pytest

import ember
from ember import _cc
from ember.kernels.cpu.runtime import blas, clib
from ember.kernels.cpu import conv_im2col, conv_direct

F = ember.nn.functional
needs_c = pytest.mark.skipif(not _cc.available(), reason="no C compiler")


def _conv_fn(lib, d, transposed):
    name = ("conv_transpose" if transposed else "conv") + f"{d}d"
    return getattr(lib.nn.functional, name)


def _run(d, transposed, x, w, b, kw, go):
    """ember output and grads (x, w, b) as numpy."""
    ex, ew = ember.tensor(x, requires_grad=True), ember.tensor(w, requires_grad=True)
    eb = None if b is None else ember.tensor(b, requires_grad=True)
    y = _conv_fn(ember, d, transposed)(ex, ew, eb, **kw)
    y.backward(ember.tensor(go))
    out = [y.detach().numpy(), ex.grad.numpy(), ew.grad.numpy()]
    return out + ([] if b is None else [eb.grad.numpy()])


def _cases():
    """(d, transposed, x shape, w shape, kwargs) over ranks, groups, strides, paddings, dilations."""
    sp = {1: (9,), 2: (7, 6), 3: (5, 6, 6)}
    ks = {1: (3,), 2: (3, 2), 3: (2, 3, 1)}
    for d, groups, st, pd, dl, tr in itertools.product((1, 2, 3), (1, 2), (1, 2), (0, 1), (1, 2), (False, True)):
        if tr and d == 3:
            continue                          # no conv_transpose3d in ember.nn.functional
        if tr:
            kw = dict(stride=st, padding=pd, groups=groups, dilation=dl, output_padding=1 if st > 1 else 0)
            yield d, tr, (2, 4) + sp[d], (4, 6 // groups) + ks[d], kw
        else:
            yield d, tr, (3, 4) + sp[d], (6, 4 // groups) + ks[d], dict(stride=st, padding=pd, dilation=dl,
                                                                           groups=groups)


@needs_c
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("direct", [True, False], ids=["dconv-for-stride-1", "im2col-only"])
def test_conv_c_matches_numpy_path_and_torch(dtype, direct, monkeypatch):
    torch = pytest.importorskip("torch")
    if not direct:
        monkeypatch.setattr(conv_direct, "usable", lambda *a, **k: False)
    rng = np.random.default_rng(0)
    tol = dict(rtol=2e-4, atol=2e-4) if dtype == np.float32 else dict(rtol=1e-10, atol=1e-10)
    for d, tr, xs, ws, kw in _cases():
        x, w = rng.standard_normal(xs).astype(dtype), rng.standard_normal(ws).astype(dtype)
        b = rng.standard_normal(ws[1] * kw["groups"] if tr else ws[0]).astype(dtype)
        tx, tw, tb = (torch.tensor(a, requires_grad=True) for a in (x, w, b))
        ty = _conv_fn(torch, d, tr)(tx, tw, tb, **kw)
        go = rng.standard_normal(tuple(ty.shape)).astype(dtype)
        ty.backward(torch.tensor(go))
        ref = [ty.detach().numpy(), tx.grad.numpy(), tw.grad.numpy(), tb.grad.numpy()]
        with clib.use_c(True):
            c = _run(d, tr, x, w, b, kw, go)
        with clib.use_c(False):
            n = _run(d, tr, x, w, b, kw, go)
        for a, e, r in zip(c, n, ref):
            np.testing.assert_allclose(a, r, **tol, err_msg=f"C path, {d}-d {kw} transposed={tr}")
            np.testing.assert_allclose(e, r, **tol, err_msg=f"numpy path, {d}-d {kw} transposed={tr}")
            assert a.dtype == r.dtype and a.shape == r.shape


@needs_c
@pytest.mark.parametrize("n", [1, 2, 5])
def test_conv_c_batch_sizes_big_enough_to_thread(n):
    """Batches big enough to be shared over the pool (and odd counts of images) give the same as
    the numpy path; BLAS gets its thread count back afterwards."""
    rng = np.random.default_rng(1)
    x = rng.standard_normal((n, 8, 33, 31)).astype(np.float32)
    w = rng.standard_normal((16, 8, 5, 3)).astype(np.float32)
    b = rng.standard_normal(16).astype(np.float32)
    go = rng.standard_normal((n, 16, 31, 15)).astype(np.float32)
    kw = dict(stride=(1, 2), padding=(1, 0))
    before = blas._fns()[1]() if blas.available() else None
    with clib.use_c(True):
        c = _run(2, False, x, w, b, kw, go)
    with clib.use_c(False):
        e = _run(2, False, x, w, b, kw, go)
    for a, r in zip(c, e):
        np.testing.assert_allclose(a, r, rtol=1e-4, atol=1e-3)
    if blas.available():        # (one thread for good once a gemm was split over ember's pool: blas.hold_single)
        assert blas._STATE[0] == 0 and blas._fns()[1]() == (1 if blas.held() else before)


def test_single_blas_nests_and_restores():
    if not blas.available():
        pytest.skip("numpy's OpenBLAS not found")
    get = blas._fns()[1]
    before = get()
    with blas.single_blas():
        assert get() == 1
        with blas.single_blas():
            assert get() == 1
        assert get() == 1
    assert get() == before and blas._STATE[0] == 0


@needs_c
def test_conv_c_special_values_and_empty():
    torch = pytest.importorskip("torch")
    x = np.ones((2, 2, 5, 5), np.float32)
    x[0, 0, 1, 1], x[1, 1, 3, 2], x[1, 0, 0, 0] = np.nan, np.inf, -np.inf
    w = np.full((3, 2, 2, 2), 0.5, np.float32)
    with clib.use_c(True):
        y = F.conv2d(ember.tensor(x), ember.tensor(w), padding=1).numpy()
    t = torch.nn.functional.conv2d(torch.tensor(x), torch.tensor(w), padding=1).numpy()
    np.testing.assert_array_equal(np.isnan(y), np.isnan(t))
    np.testing.assert_allclose(y[~np.isnan(t)], t[~np.isnan(t)])
    with clib.use_c(True):                    # empty batch, 1x1 kernel, 1 channel
        e = F.conv2d(ember.zeros(0, 2, 5, 5), ember.tensor(w))
        assert tuple(e.shape) == (0, 3, 4, 4)
        one = F.conv2d(ember.tensor(x[:1, :1]), ember.ones(1, 1, 1, 1)).numpy()
    np.testing.assert_array_equal(one, x[:1, :1])


@needs_c
def test_conv_kernels_are_used(monkeypatch):
    for sfx in ("f32", "f64"):
        for name in ("im2col_batch", "col2im_batch"):
            assert clib.kernel("im2col", f"{name}_{sfx}", "pppll") is not None
        assert clib.kernel("im2col", f"unpack_{sfx}", "pppl" + "ll") is not None
        assert clib.kernel("im2col", f"pack_{sfx}", "ppl" + "ll") is not None
        assert clib.kernel("im2col", f"add_bias_{sfx}", "ppll") is not None
    calls = []
    real = conv_im2col._fn
    monkeypatch.setattr(conv_im2col, "_fn", lambda *a: calls.append(a[0]) or real(*a))
    x = ember.randn(2, 3, 6, 6, requires_grad=True)
    w = ember.randn(4, 3, 3, 3, requires_grad=True)
    F.conv2d(ember.randn(3, 3, 6, 6), w, ember.randn(4), stride=2)   # several images per gemm
    F.conv2d(x, w, stride=2).sum().backward()                        # (stride 1 takes dconv.c)
    assert {"im2col_batch", "col2im_batch", "unpack", "pack"} <= set(calls)


def test_geometry_pads_low_ranks_with_unit_dims():
    g = conv_im2col.geometry((9,), (3,), (4,), (2,), (1,), (1,))
    assert g.tolist() == [1, 1, 9, 1, 1, 3, 1, 1, 4, 1, 1, 2, 0, 0, 1, 1, 1, 1]


def _pool_input(rng, shape, dtype):
    """Random values with ties, NaN, +-inf and an all -inf region."""
    x = rng.integers(-3, 4, shape).astype(dtype)            # many ties
    flat = x.reshape(-1)
    pos = rng.choice(flat.size, size=max(1, flat.size // 15), replace=False)
    flat[pos[0::3]] = np.nan
    flat[pos[1::3]] = np.inf
    flat[pos[2::3]] = -np.inf
    x[..., :2, :3] = -np.inf
    return x


def _max_cases():
    for k, s, p, dl, ceil in itertools.product((1, 2, 3), (1, 2, 3), (0, 1), (1, 2), (False, True)):
        if p <= k // 2:
            yield dict(kernel_size=k, stride=s, padding=p, dilation=dl, ceil_mode=ceil)
    yield dict(kernel_size=(3, 2), stride=(2, 1), padding=(1, 0), dilation=(1, 3), ceil_mode=True)


def _max_both(x, kw, go_rng, d=2):
    """(C path, numpy path) of max pool values, indices and grad_input."""
    fn = F.max_pool2d if d == 2 else F.max_pool1d
    out = []
    for on in (True, False):
        with clib.use_c(on):
            ex = ember.tensor(x, requires_grad=True)
            y, i = fn(ex, return_indices=True, **kw)
            go = np.random.default_rng(go_rng).standard_normal(tuple(y.shape)).astype(x.dtype)
            y.backward(ember.tensor(go))
            out.append((y.detach().numpy(), i.numpy(), ex.grad.numpy(), go))
    return out


@needs_c
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_max_pool_c_matches_numpy_and_torch(dtype):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(2)
    for shape in ((2, 3, 9, 8), (3, 7, 5), (1, 1, 1, 1)):
        x = _pool_input(rng, shape, dtype) if shape[-1] > 3 else rng.standard_normal(shape).astype(dtype)
        for kw in _max_cases():
            try:
                tx = torch.tensor(x, requires_grad=True)
                ty, ti = torch.nn.functional.max_pool2d(tx, return_indices=True, **kw)
            except RuntimeError:
                continue
            if ti.numel() and (ti.max() >= x.shape[-1] * x.shape[-2]):
                continue                                   # a window wholly in the padding
            (cy, ci, cg, go), (ny, ni, ng, _) = _max_both(x, kw, 3)
            ty.backward(torch.tensor(go))
            msg = f"{shape} {kw}"
            np.testing.assert_array_equal(cy, ty.detach().numpy(), err_msg=msg)
            np.testing.assert_array_equal(ci, ti.numpy(), err_msg=msg)
            np.testing.assert_allclose(cg, tx.grad.numpy(), rtol=1e-6, atol=1e-6, err_msg=msg)
            np.testing.assert_array_equal(cy, ny, err_msg=msg)
            fin = np.isfinite(ny).all() and not np.isinf(x).any()
            if fin:                                        # the numpy path agrees where no -inf ties pad
                np.testing.assert_array_equal(ci, ni, err_msg=msg)


@needs_c
@pytest.mark.parity
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_max_pool_2x2_fast_path_matches_torch(dtype):
    """The 2x2 stride-2 unpadded pool (its own loop in pool.c): even and odd planes, windows with
    ties, NaN (a later NaN wins), +-inf and all -inf, against torch and the numpy path. Row lengths
    cover its three cases: whole blocks of eight outputs (33 wide), blocks plus an overlapping last
    eight (28, 21, 18 wide), rows under eight outputs read past their end (10 wide) or, at the end of
    the input, through a copy (2 wide, and the last rows of every shape)."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(7)
    for shape in ((2, 3, 8, 10), (1, 2, 2, 2), (3, 5, 7), (2, 1, 9, 33), (2, 3, 28, 28), (1, 2, 6, 21),
                  (2, 2, 5, 18)):
        x = _pool_input(rng, shape, dtype)
        x.reshape(-1)[:4] = [np.nan, 1.0, np.nan, 2.0]
        for kw in (dict(kernel_size=2), dict(kernel_size=2, stride=2), dict(kernel_size=2, ceil_mode=True)):
            tx = torch.tensor(x, requires_grad=True)
            ty, ti = torch.nn.functional.max_pool2d(tx, return_indices=True, **kw)
            (cy, ci, cg, go), (ny, _, _, _) = _max_both(x, kw, 5)
            ty.backward(torch.tensor(go))
            msg = f"{shape} {kw}"
            np.testing.assert_array_equal(cy, ty.detach().numpy(), err_msg=msg)
            np.testing.assert_array_equal(ci, ti.numpy(), err_msg=msg)
            np.testing.assert_array_equal(cg, tx.grad.numpy(), err_msg=msg)
            np.testing.assert_array_equal(cy, ny, err_msg=msg)


@needs_c
def test_max_pool1d_c_matches_torch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(4)
    x = rng.integers(-3, 4, (2, 3, 13)).astype(np.float32)
    x[0, 1, 4] = np.nan
    for kw in (dict(kernel_size=3, stride=2, padding=1), dict(kernel_size=2, dilation=3, ceil_mode=True)):
        (cy, ci, cg, go), (ny, ni, ng, _) = _max_both(x, kw, 5, d=1)
        tx = torch.tensor(x, requires_grad=True)
        ty, ti = torch.nn.functional.max_pool1d(tx, return_indices=True, **kw)
        ty.backward(torch.tensor(go))
        np.testing.assert_array_equal(cy, ty.detach().numpy())
        np.testing.assert_array_equal(ci, ti.numpy())
        np.testing.assert_allclose(cg, tx.grad.numpy(), rtol=1e-6)
        np.testing.assert_array_equal(cg, ng)


@needs_c
def test_max_pool_c_big_threaded_and_empty(monkeypatch):
    from ember.kernels.cpu import pool_planes
    monkeypatch.setattr(pool_planes, "_MAX_SPLIT", 1 << 12)     # split over the thread pool at this size
    rng = np.random.default_rng(6)
    x = rng.standard_normal((4, 16, 40, 41)).astype(np.float32)
    (cy, ci, cg, _), (ny, ni, ng, _) = _max_both(x, dict(kernel_size=3, stride=2, padding=1), 7)
    np.testing.assert_array_equal(cy, ny)
    np.testing.assert_array_equal(ci, ni)
    np.testing.assert_array_equal(cg, ng)
    with clib.use_c(True):
        y, i = F.max_pool2d(ember.zeros(0, 3, 4, 4), 2, return_indices=True)
        assert tuple(y.shape) == (0, 3, 2, 2) and tuple(i.shape) == (0, 3, 2, 2)


@needs_c
def test_max_pool_backward_c_bad_index_falls_back_to_numpy_error():
    from ember.kernels.cpu import pool_planes
    go = np.ones((1, 1, 2, 2), np.float32)
    bad = np.array([0, 1, 99, 2], np.int64).reshape(1, 1, 2, 2)
    assert pool_planes.max_pool_backward(go, bad, (1, 1, 3, 3)) is None
    ok = pool_planes.max_pool_backward(go, np.array([0, 0, 8, 2], np.int64).reshape(1, 1, 2, 2), (1, 1, 3, 3))
    np.testing.assert_array_equal(ok.reshape(-1), [2, 0, 1, 0, 0, 0, 0, 0, 1])


@needs_c
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_avg_pool_c_matches_numpy_and_torch(dtype):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(8)
    x = rng.standard_normal((2, 3, 9, 8)).astype(dtype)
    tol = dict(rtol=1e-5, atol=1e-6) if dtype == np.float32 else dict(rtol=1e-12, atol=1e-12)
    for k, s, p, ceil, inc, div in itertools.product((1, 2, 3), (1, 2), (0, 1), (False, True), (False, True),
                                                   (None, 3)):
        if p > k // 2:
            continue
        kw = dict(kernel_size=k, stride=s, padding=p, ceil_mode=ceil, count_include_pad=inc, divisor_override=div)
        tx = torch.tensor(x, requires_grad=True)
        ty = torch.nn.functional.avg_pool2d(tx, **kw)
        go = rng.standard_normal(tuple(ty.shape)).astype(dtype)
        ty.backward(torch.tensor(go))
        for on in (True, False):
            with clib.use_c(on):
                ex = ember.tensor(x, requires_grad=True)
                y = F.avg_pool2d(ex, **kw)
                y.backward(ember.tensor(go))
            np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy(), **tol, err_msg=f"{on} {kw}")
            np.testing.assert_allclose(ex.grad.numpy(), tx.grad.numpy(), **tol, err_msg=f"{on} {kw}")


@needs_c
def test_pool_kernels_are_used(monkeypatch):
    from ember.kernels.cpu import pool_planes
    for name in ("max_pool2d", "avg_pool2d", "avg_pool2d_backward"):
        for sfx in ("f32", "f64"):
            assert clib.kernel("pool", f"{name}_{sfx}", "ppppl" if name == "max_pool2d" else "ppplil") is not None
    assert clib.kernel("pool", "max_pool2d_backward_f32", "pppll" + "l", "l") is not None
    calls = []
    real = pool_planes._fn
    monkeypatch.setattr(pool_planes, "_fn", lambda *a: calls.append(a[0]) or real(*a))
    x = ember.randn(2, 3, 6, 6, requires_grad=True)
    (F.max_pool2d(x, 2).sum() + F.avg_pool2d(x, 2).sum()).backward()
    assert {"max_pool2d", "max_pool2d_backward", "avg_pool2d", "avg_pool2d_backward"} <= set(calls)


@needs_c
@pytest.mark.parametrize("which", ["input", "weight", "both"])
def test_conv_c_backward_one_or_both_grads(which):
    """grad_input alone, grad_weight alone (a first layer) and both (the fused pass) agree with
    the numpy path."""
    rng = np.random.default_rng(9)
    x = rng.standard_normal((5, 4, 11, 9)).astype(np.float32)
    w = rng.standard_normal((6, 2, 3, 3)).astype(np.float32)
    go = rng.standard_normal((5, 6, 5, 5)).astype(np.float32)
    res = []
    for on in (True, False):
        with clib.use_c(on):
            ex = ember.tensor(x, requires_grad=which != "weight")
            ew = ember.tensor(w, requires_grad=which != "input")
            F.conv2d(ex, ew, stride=2, padding=(0, 1), groups=2).backward(ember.tensor(go))
            res.append([t.grad.numpy() for t in (ex, ew) if t.requires_grad])
    assert len(res[0]) == (2 if which == "both" else 1)
    for a, b in zip(*res):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("on", [True, False])
def test_empty_batch_backward(on):
    """Empty batches (or zero channels) go through forward and backward on both paths."""
    torch = pytest.importorskip("torch")
    with clib.use_c(on):
        for tr in (False, True):
            x = ember.zeros(0, 3, 8, 8, requires_grad=True)
            w = ember.randn(3, 3, 3, 3, requires_grad=True)
            f = F.conv_transpose2d if tr else F.conv2d
            y = f(x, w)
            y.sum().backward()
            assert tuple(x.grad.shape) == (0, 3, 8, 8) and float(w.grad.abs().sum()) == 0.0
        for shape in ((2, 0, 4, 4), (0, 3, 4, 4)):
            for name in ("max_pool2d", "avg_pool2d"):
                x = ember.zeros(*shape, requires_grad=True)
                tx = torch.zeros(*shape, requires_grad=True)
                try:
                    ty = getattr(torch.nn.functional, name)(tx, 2)
                except RuntimeError:                # torch's avg_pool2d rejects zero channels
                    continue
                y = getattr(F, name)(x, 2)
                y.sum().backward()
                ty.sum().backward()
                assert tuple(y.shape) == tuple(ty.shape) and tuple(x.grad.shape) == tuple(tx.grad.shape)


@needs_c
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_unfold_fold_c_match_numpy_and_torch(dtype, monkeypatch):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(10)
    calls = []
    real = conv_im2col._fn
    monkeypatch.setattr(conv_im2col, "_fn", lambda *a: calls.append(a[0]) or real(*a))
    for shape, k, dl, p, s in itertools.product([(2, 3, 7, 6), (3, 5, 6)], [(2, 3), 1], [1, (2, 1)], [0, 1],
                                                [1, (2, 1)]):
        x = rng.standard_normal(shape).astype(dtype)
        x.reshape(-1)[::7] = np.nan
        t = torch.nn.functional.unfold(torch.tensor(x), k, dl, p, s)
        tf = torch.nn.functional.fold(t, shape[-2:], k, dl, p, s)
        for on in (True, False):
            with clib.use_c(on):
                e = F.unfold(ember.tensor(x), k, dl, p, s).numpy()
                ef = F.fold(ember.tensor(t.numpy()), shape[-2:], k, dl, p, s).numpy()
            np.testing.assert_array_equal(e, t.numpy())
            np.testing.assert_allclose(ef, tf.numpy(), rtol=1e-6, atol=1e-6)
    assert {"im2col_batch", "col2im_batch"} <= set(calls)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_conv_bias_gradient_has_numpys_bits(dtype):
    """convolution_backward's bias gradient by C row sums (flat.sum_rows) then images in order: the bits of
    numpy's multi-axis sum it replaces, for every rank, with or without C."""
    from ember.kernels.cpu import conv
    rng = np.random.default_rng(9)
    for shape in ((64, 6, 28, 28), (64, 16, 10, 10), (5, 3, 1000), (2, 4, 6, 7, 9), (3, 2, 1, 1)):
        go = rng.standard_normal(shape).astype(dtype) * 100
        ref = go.sum(axis=(0,) + tuple(range(2, go.ndim)))
        for on in (True, False):
            with clib.use_c(on):
                got = conv._bias_grad(go)
            assert got.dtype == ref.dtype
            np.testing.assert_array_equal(got, ref, err_msg=f"{shape} C={on}")


@needs_c
@pytest.mark.parametrize("n", [2, 7, 20])
def test_im2col_weight_gradient_bits_do_not_depend_on_the_thread_count(n):
    """conv_im2col's weight gradients (alone, and with the input gradient in one pass) sum fixed ranges of images
    (wgrad_bounds: by batch and chunk size; here chunks of 3 images, so 1, 3 and 7 ranges), whatever the threads
    that run them; the input gradient is the same too."""
    rng = np.random.default_rng(11)
    x = rng.standard_normal((n, 4, 99, 99)).astype(np.float32)
    w = rng.standard_normal((6, 4, 3, 3)).astype(np.float32)
    go = rng.standard_normal((n, 6, 49, 49)).astype(np.float32)
    args = ((2, 2), (0, 0), (1, 1), 1)
    assert conv_im2col.chunk(n, 49 * 49, 36, 4) == min(n, 3)
    assert len(conv_im2col.wgrad_bounds(n, min(n, 3))) - 1 == {2: 1, 7: 3, 20: 7}[n]
    prev = ember.get_num_threads()
    got = []
    try:
        for t in (1, 2, 3):
            ember.set_num_threads(t)
            gw = conv_im2col.weight_grad(x, go, w.shape, *args)
            gi, gw2 = conv_im2col.backward(x, go, w, *args)
            got.append((gw, gi, gw2))
    finally:
        ember.set_num_threads(prev)
    for a in got[1:]:
        for u, v in zip(got[0], a):
            np.testing.assert_array_equal(u, v)
    np.testing.assert_array_equal(got[0][0], got[0][2])
