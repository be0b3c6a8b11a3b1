"""Matrix products split over ember's C pool (runtime/gemm.py + csrc/gemm.c): bit for bit numpy's single call
(`a.dot(b)`, `np.matmul`) on every layout, shape and thread count tried, whole matrices of a batch or blocks of
rows / columns; the products numpy computes otherwise (syrk, gemv, unreadable strides) left to numpy; OpenBLAS held
at one thread once ember splits; mm / bmm / matmul / Linear at torch's values and gradients."""
import threading

import numpy as np
import pytest

import ember
from ember.kernels.cpu.runtime import blas, gemm

pytestmark = pytest.mark.skipif(not gemm.available(), reason="C kernels or numpy's cblas unavailable")


@pytest.fixture
def threads():
    old = ember.get_num_threads()
    yield lambda n: ember.set_num_threads(n)
    ember.set_num_threads(old)


def _operand(rng, rows, cols, dtype, transposed):
    """A (rows, cols) matrix, stored transposed (a Fortran-ordered view) when asked."""
    if transposed:
        return rng.standard_normal((cols, rows)).astype(dtype).T
    return rng.standard_normal((rows, cols)).astype(dtype)


SHAPES = [(1024, 128, 512), (1024, 512, 128), (128, 1024, 512), (512, 128, 784), (1024, 128, 65), (65, 1024, 128),
          (130, 129, 131), (77, 300, 1000), (1000, 300, 77), (4096, 64, 64), (1217, 130, 270), (375, 729, 485)]


@pytest.mark.parametrize("m,k,n", SHAPES)
@pytest.mark.parametrize("ta", [False, True])
@pytest.mark.parametrize("tb", [False, True])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_split_mm_is_the_single_call_bit_for_bit(m, k, n, ta, tb, dtype, threads):
    rng = np.random.default_rng(m * 7 + n)
    a, b = _operand(rng, m, k, dtype, ta), _operand(rng, k, n, dtype, tb)
    threads(1)
    want = a.dot(b)
    for t in (2, 3, 4):
        threads(t)
        got = gemm.mm(a, b)
        if got is None and gemm._plan(m, n, k, 1, t, np.dtype(dtype)) is None:
            assert dtype is np.float64          # too few rows (columns) for float64's 24-row (192-column) blocks
            continue
        assert got is not None and got.flags.c_contiguous
        np.testing.assert_array_equal(got, want, err_msg=f"{t} threads", strict=True)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_blocks_respect_the_tile_and_small_matrix_rules(dtype):
    dt = np.dtype(dtype)
    for (m, n, k) in [(130, 131, 129), (1024, 65, 128), (209, 157, 200), (100, 1000, 64), (49, 2000, 300)]:
        for t in (2, 3, 4, 8):
            plan = gemm._plan(m, n, k, 1, t, dt)
            if plan is None:
                continue
            cols, unit, nblk = plan[:3]
            span, rest = (n, m * k) if cols else (m, n * k)
            edges = [span * q // nblk // unit * unit for q in range(nblk)] + [span]
            sizes = np.diff(edges)
            assert unit == gemm.BLOCK[dt][cols] and (sizes > 0).all() and (sizes * rest > gemm.SMALL_MNK).all(), \
                (m, n, k, t)
    assert gemm._plan(64, 120, 200, 1, 2, dt) is None             # below SPLIT_MACS
    assert gemm.BLOCK[np.dtype(np.float64)] == (24, 192)            # float64: 24-row tiles, 192-column panels
    assert gemm._plan(1024, 512, 128, 1, 2, np.dtype(np.float64))[:3] == (0, 24, 4)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_split_bmm_of_strided_views_is_np_matmul_bit_for_bit(dtype, threads):
    """Attention's q @ k^T: (B, H, T, E) views of one (B, T, 3C) buffer, read in place."""
    rng = np.random.default_rng(1)
    B, T, H, E = 16, 64, 4, 32
    qkv = rng.standard_normal((B, T, 3 * H * E)).astype(dtype)
    q = qkv[..., :H * E].reshape(B, T, H, E).transpose(0, 2, 1, 3)
    k = qkv[..., H * E:2 * H * E].reshape(B, T, H, E).transpose(0, 2, 1, 3)
    v = qkv[..., 2 * H * E:].reshape(B, T, H, E).transpose(0, 2, 1, 3)
    kt = k.swapaxes(-1, -2)
    threads(1)
    s_want = np.matmul(q, kt)
    o_want = np.matmul(s_want, v)
    for t in (2, 3):
        threads(t)
        s = gemm.bmm(q, kt)
        assert s is not None
        np.testing.assert_array_equal(s, s_want)
        np.testing.assert_array_equal(gemm.bmm(s, v), o_want)
        flat = np.ascontiguousarray(q).reshape(B * H, T, E)
        out = np.empty((B * H, T, T), dtype)
        assert gemm.bmm(flat, np.ascontiguousarray(kt).reshape(B * H, E, T), out=out) is out
        np.testing.assert_array_equal(out, s_want.reshape(B * H, T, T))
        w = rng.standard_normal((E, 96)).astype(dtype)        # a stack times one shared matrix
        np.testing.assert_array_equal(gemm.bmm(flat, w), np.matmul(flat, w))


def test_products_numpy_computes_otherwise_are_left_to_numpy(threads):
    threads(2)
    rng = np.random.default_rng(2)
    x = rng.standard_normal((512, 512)).astype(np.float32)
    assert gemm.mm(x, x.T) is None                      # syrk
    assert gemm.mm(x[:, :1].copy(), x[:1]) is None      # k = 1
    assert gemm.mm(x[::2, ::2], x[::2, ::2]) is None    # no unit stride: numpy copies first
    assert gemm.mm(x.astype(np.float16), x.astype(np.float16)) is None
    assert gemm.mm(x[:8, :8], x[:8, :8]) is None        # small: one call
    xs = np.stack([x[:256, :256]] * 4)
    assert gemm.bmm(xs, xs.swapaxes(-1, -2)) is None
    np.testing.assert_array_equal(gemm.mm(x, x), x.dot(x))     # shared data, but not a transpose: gemm


def test_non_finite_values_propagate_as_numpy_does(threads):
    threads(2)
    rng = np.random.default_rng(3)
    a = rng.standard_normal((1024, 128)).astype(np.float32)
    b = rng.standard_normal((128, 512)).astype(np.float32)
    a[3, 5], a[700, 0], b[9, 400] = np.inf, np.nan, -np.inf
    with np.errstate(invalid="ignore"):
        threads(1)
        want = a.dot(b)
        threads(2)
        np.testing.assert_array_equal(gemm.mm(a, b), want)


def test_openblas_is_held_at_one_thread_once_ember_splits(threads):
    threads(2)
    a = np.ones((512, 512), np.float32)
    assert gemm.mm(a, a) is not None
    assert blas.held()
    threads(2)
    assert blas.get_num_threads() in (1, None)
    with blas.single_blas():
        pass
    assert blas.get_num_threads() in (1, None)


def test_concurrent_callers_each_get_their_product(threads):
    """A second caller while the pool is busy runs its product inline."""
    threads(2)
    rng = np.random.default_rng(4)
    pairs = [(rng.standard_normal((512, 256)).astype(np.float32), rng.standard_normal((256, 384)).astype(np.float32))
             for _ in range(4)]
    want = [a.dot(b) for a, b in pairs]
    bad = []

    def work(i):
        for _ in range(10):
            if not np.array_equal(gemm.mm(*pairs[i]), want[i]):
                bad.append(i)
    ts = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert not bad


@pytest.mark.parity
def test_linear_mlp_step_matches_torch_at_any_thread_count(threads, monkeypatch):
    """Forward and backward products (the mm formulas' direct path too) go through the split at 2 threads."""
    torch = pytest.importorskip("torch")
    seen = []
    real = gemm.mm
    monkeypatch.setattr(gemm, "mm", lambda *a: seen.append(a[0].shape) or real(*a))
    rng = np.random.default_rng(5)
    x = rng.standard_normal((256, 784)).astype(np.float32)
    w1 = (rng.standard_normal((512, 784)) * 0.05).astype(np.float32)
    w2 = (rng.standard_normal((512, 512)) * 0.05).astype(np.float32)
    tx, tw1, tw2 = (torch.tensor(a, requires_grad=True) for a in (x, w1, w2))
    (torch.relu(tx @ tw1.T) @ tw2).sum().backward()
    grads = {}
    for t in (1, 2):
        threads(t)
        ex, ew1, ew2 = (ember.tensor(a, requires_grad=True) for a in (x, w1, w2))
        y = ember.relu(ex @ ew1.T) @ ew2
        y.sum().backward()
        grads[t] = [g.grad.numpy() for g in (ex, ew1, ew2)] + [y.detach().numpy()]
        for g, tg in zip(grads[t][:3], (tx, tw1, tw2)):
            np.testing.assert_allclose(g, tg.grad.numpy(), rtol=1e-4, atol=1e-3)
        if t == 2:
            assert len(seen) >= 6          # 2 forward products, 2 x 2 gradients
    for g1, g2 in zip(grads[1], grads[2]):
        np.testing.assert_array_equal(g1, g2)            # the thread count does not change a bit


@pytest.mark.parity
def test_batched_matmul_and_bmm_match_torch(threads):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(6)
    q = rng.standard_normal((8, 4, 64, 32)).astype(np.float32)
    k = rng.standard_normal((8, 4, 64, 32)).astype(np.float32)
    outs = {}
    for t in (1, 2):
        threads(t)
        eq, ek = ember.tensor(q, requires_grad=True), ember.tensor(k, requires_grad=True)
        s = eq @ ek.transpose(-2, -1)
        b = ember.bmm(eq.reshape(32, 64, 32), ek.reshape(32, 64, 32).transpose(1, 2))
        (s * s).sum().backward()
        outs[t] = [s.detach().numpy(), b.detach().numpy(), eq.grad.numpy(), ek.grad.numpy()]
    tq, tk = torch.tensor(q, requires_grad=True), torch.tensor(k, requires_grad=True)
    ts = tq @ tk.transpose(-2, -1)
    (ts * ts).sum().backward()
    np.testing.assert_allclose(outs[2][0], ts.detach().numpy(), rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(outs[2][1], ts.detach().numpy().reshape(32, 64, 64), rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(outs[2][2], tq.grad.numpy(), rtol=1e-4, atol=1e-3)
    np.testing.assert_allclose(outs[2][3], tk.grad.numpy(), rtol=1e-4, atol=1e-3)
    for a1, a2 in zip(outs[1], outs[2]):
        np.testing.assert_array_equal(a1, a2)


@pytest.mark.parametrize("full", [False, True])
@pytest.mark.parametrize("m,k,n", [(1024, 128, 512), (128, 512, 784), (130, 129, 131)])
def test_split_addmm_adds_the_bias_as_numpy_does(m, k, n, full, threads):
    rng = np.random.default_rng(7)
    a, b = _operand(rng, m, k, np.float32, False), _operand(rng, k, n, np.float32, True)
    bias = rng.standard_normal((m, n) if full else (n,)).astype(np.float32)
    want = a.dot(b)
    np.add(want, bias, out=want)
    for t in (2, 3):
        threads(t)
        got = gemm.mm(a, b, bias)
        assert got is not None
        np.testing.assert_array_equal(got, want)
        r = ember.addmm(ember.tensor(bias), ember.tensor(a), ember.tensor(b))
        np.testing.assert_array_equal(r.numpy(), want)
    assert gemm.mm(a, b, bias.astype(np.float64)) is None
    assert gemm.mm(a, b, np.ones((1, n), np.float32)) is None


def test_linear_without_grad_splits_too(threads, monkeypatch):
    """F.linear's direct path (nothing for autograd to record: inference) runs the split product with the bias
    fused, the bits of the general addmm path."""
    rng = np.random.default_rng(8)
    x = ember.tensor(rng.standard_normal((4, 64, 128)).astype(np.float32))
    w = ember.tensor(rng.standard_normal((512, 128)).astype(np.float32))
    b = ember.tensor(rng.standard_normal(512).astype(np.float32))
    threads(1)
    want = ember.addmm(b, x.view(256, 128), w.t()).view(4, 64, 512).numpy()
    seen = []
    real = gemm.mm
    monkeypatch.setattr(gemm, "mm", lambda *a: seen.append(len(a)) or real(*a))
    threads(2)
    got = ember.nn.functional.linear(x, w, b).numpy()
    assert seen == [3]
    np.testing.assert_array_equal(got, want)


def test_compiled_entries_get_openblas_threads_back_while_held(threads):
    """A compiled graph's C entry calls cblas itself (no split over ember's pool): blas.native_threads gives
    OpenBLAS the count ember was asked for during the call, one thread again after."""
    if blas.get_num_threads() is None:
        pytest.skip("numpy's OpenBLAS not found")
    threads(2)
    a = np.ones((512, 512), np.float32)
    gemm.mm(a, a)
    assert blas.held() and blas.get_num_threads() == 1
    with blas.native_threads():
        assert blas.get_num_threads() == 2
    assert blas.get_num_threads() == 1
    threads(1)
    with blas.native_threads():
        assert blas.get_num_threads() == 1


def test_split_mm_writes_into_out_and_refuses_unusable_outs(threads):
    threads(2)
    rng = np.random.default_rng(9)
    a, b = _operand(rng, 300, 200, np.float32, False), _operand(rng, 200, 400, np.float32, True)
    out = np.full((300, 400), np.nan, np.float32)
    assert gemm.mm(a, b, out=out) is out
    np.testing.assert_array_equal(out, a.dot(b))
    assert gemm.mm(a, b, out=np.empty((400, 300), np.float32).T) is None           # not c-contiguous
    assert gemm.mm(a, b, out=np.empty((300, 400), np.float64)) is None             # another dtype
    big = np.zeros((300, 600), np.float32)
    assert gemm.mm(big[:, :200], b, out=big[:, 200:]) is None                     # overlaps an operand


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_split_mm_of_random_shapes_is_the_single_call(dtype, threads):
    """Irregular sizes and layouts (float64 blocks at 64-row edges differed in 205 of 450 such cases: its units are
    24 rows and 192 columns, see runtime/gemm.py)."""
    rng = np.random.default_rng(10)
    done = 0
    while done < 40:
        m, k, n = (int(v) for v in np.exp(rng.uniform(np.log(8), np.log(900), 3)))
        if m * n * k < gemm.SPLIT_MACS:
            continue
        ta, tb = rng.integers(0, 2, 2)
        a, b = _operand(rng, m, k, dtype, ta), _operand(rng, k, n, dtype, tb)
        threads(1)
        want = a.dot(b)
        threads(int(rng.integers(2, 5)))
        got = gemm.mm(a, b)
        if got is not None:
            np.testing.assert_array_equal(got, want, err_msg=str((m, k, n, ta, tb)))
            done += 1


def _spy_mm(monkeypatch):
    """Records each split gemm.mm actually ran (a non-None result)."""
    used = []
    real = gemm.mm

    def spy(*a, **kw):
        r = real(*a, **kw)
        if r is not None:
            used.append(a[0].shape)
        return r
    monkeypatch.setattr(gemm, "mm", spy)
    return used


@pytest.mark.parity
@pytest.mark.parametrize("mode", ["LSTM", "GRU"])
def test_rnn_layer_gemms_split_over_the_pool_bit_for_bit(mode, threads, monkeypatch):
    """rnn_layer.py's input projection, per-step hidden gemms and weight gradients run split (OpenBLAS is held at
    one thread once ember splits a gemm, so numpy's calls stayed on one core): the same bits at 1 and 2 threads,
    torch's values and gradients."""
    torch = pytest.importorskip("torch")
    used = _spy_mm(monkeypatch)
    rng = np.random.default_rng(11)
    x = rng.standard_normal((5, 32, 128)).astype(np.float32)
    torch.manual_seed(0)
    ref = getattr(torch.nn, mode)(128, 256)
    tx = torch.tensor(x, requires_grad=True)
    ty, _ = ref(tx)
    (ty * ty).sum().backward()
    outs = {}
    for t in (1, 2):
        threads(t)
        mod = getattr(ember.nn, mode)(128, 256)
        with ember.no_grad():
            for p, tp in zip(mod.parameters(), ref.parameters()):
                p.copy_(ember.tensor(tp.detach().numpy()))
        del used[:]
        ex = ember.tensor(x, requires_grad=True)
        ey, _ = mod(ex)
        (ey * ey).sum().backward()
        outs[t] = [ey.detach().numpy(), ex.grad.numpy()] + [p.grad.numpy() for p in mod.parameters()]
        if t == 2:
            assert len(used) >= 5 + 2, used            # at least the per-step hidden gemms and the projections
            gates = 4 if mode == "LSTM" else 3          # the forward steps' swapped product w_hh @ h^T, split
            assert used.count((gates * 256, 256)) >= 5, used
        np.testing.assert_allclose(outs[t][0], ty.detach().numpy(), rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(outs[t][1], tx.grad.numpy(), rtol=1e-3, atol=1e-3)
        for g, tp in zip(outs[t][2:], ref.parameters()):
            np.testing.assert_allclose(g, tp.grad.numpy(), rtol=1e-3, atol=1e-2)
    for a1, a2 in zip(outs[1], outs[2]):
        np.testing.assert_array_equal(a1, a2)


@pytest.mark.parity
@pytest.mark.parametrize("groups", [1, 2])
def test_one_image_convolution_splits_its_gemms_bit_for_bit(groups, threads, monkeypatch):
    """A batch of one image runs conv_im2col.py's chunks on the calling thread; its gemms now split over the C
    pool: the same bits at 1 and 2 threads as numpy's calls, torch's values and gradients."""
    torch = pytest.importorskip("torch")
    used = _spy_mm(monkeypatch)
    rng = np.random.default_rng(12)
    x = rng.standard_normal((1, 32, 40, 40)).astype(np.float32)
    w = (rng.standard_normal((64, 32 // groups, 3, 3)) * 0.1).astype(np.float32)
    b = rng.standard_normal(64).astype(np.float32)
    tx, tw, tb = (torch.tensor(a, requires_grad=True) for a in (x, w, b))
    ty = torch.nn.functional.conv2d(tx, tw, tb, stride=2, padding=1, groups=groups)
    (ty * ty).sum().backward()
    outs = {}
    for t in (1, 2):
        threads(t)
        del used[:]
        ex, ew, eb = (ember.tensor(a, requires_grad=True) for a in (x, w, b))
        ey = ember.nn.functional.conv2d(ex, ew, eb, stride=2, padding=1, groups=groups)
        (ey * ey).sum().backward()
        outs[t] = [ey.detach().numpy(), ex.grad.numpy(), ew.grad.numpy(), eb.grad.numpy()]
        if t == 2 and groups == 1:
            assert len(used) >= 3, used                 # forward, input and weight gradients
        np.testing.assert_allclose(outs[t][0], ty.detach().numpy(), rtol=1e-4, atol=1e-4)
        for g, tg in zip(outs[t][1:], (tx, tw, tb)):
            np.testing.assert_allclose(g, tg.grad.numpy(), rtol=1e-3, atol=1e-2)
    for a1, a2 in zip(outs[1], outs[2]):
        np.testing.assert_array_equal(a1, a2)


@pytest.mark.parity
def test_scaled_addmm_baddbmm_addbmm_and_broadcast_matmul_split_bit_for_bit(threads, monkeypatch):
    """addmm with beta/alpha, baddbmm, addbmm and matmul's general case called np.matmul on held OpenBLAS (one
    core); their products now go through gemm.matmul: the same bits at 1 and 2 threads, torch's values."""
    torch = pytest.importorskip("torch")
    calls = []
    real_bmm = gemm.bmm
    monkeypatch.setattr(gemm, "bmm", lambda *a, **kw: calls.append("bmm") or real_bmm(*a, **kw))
    used = _spy_mm(monkeypatch)
    rng = np.random.default_rng(13)
    c, m1, m2 = (rng.standard_normal(s).astype(np.float32) for s in ((256, 384), (256, 128), (128, 384)))
    bc, b1, b2 = (rng.standard_normal(s).astype(np.float32) for s in ((8, 64, 96), (8, 64, 128), (8, 128, 96)))
    x, w = rng.standard_normal((64, 6, 128)).astype(np.float32), rng.standard_normal((128, 96)).astype(np.float32)
    T = torch.tensor
    want = [torch.addmm(T(c), T(m1), T(m2), beta=0.5, alpha=2.0), torch.baddbmm(T(bc), T(b1), T(b2), alpha=0.5),
            torch.addbmm(T(bc[0]), T(b1), T(b2)), T(x).transpose(0, 1) @ T(w)]
    outs = {}
    for t in (1, 2):
        threads(t)
        del used[:], calls[:]
        E = ember.tensor
        got = [ember.addmm(E(c), E(m1), E(m2), beta=0.5, alpha=2.0), ember.baddbmm(E(bc), E(b1), E(b2), alpha=0.5),
               ember.addbmm(E(bc[0]), E(b1), E(b2)), E(x).transpose(0, 1) @ E(w)]
        outs[t] = [g.numpy() for g in got]
        for g, tw in zip(outs[t], want):
            np.testing.assert_allclose(g, tw.numpy(), rtol=1e-4, atol=1e-3)
        if t == 2:
            assert len(used) >= 1 and calls.count("bmm") >= 3, (used, calls)    # a non-contiguous stack @ w
    for a1, a2 in zip(outs[1], outs[2]):
        np.testing.assert_array_equal(a1, a2)


def test_nt_products_split_by_openblas_kernel_class():
    """_small: a float32 NT product (a @ b^T) takes OpenBLAS's small-matrix kernels only up to SMALL_NT_MN results
    (and k >= 32), so blocks of such a product below SMALL_MNK multiply-adds may split as long as the whole and
    every block stay in the regular kernels; other layouts keep the SMALL_MNK rule."""
    f32 = np.dtype(np.float32)
    assert gemm._small(8, 128, 512, True)              # 1,024 results: small kernels
    assert not gemm._small(16, 384, 128, True)         # 6,144 results: regular kernels below 1M multiply-adds
    assert not gemm._small(48, 65, 16, True)           # k below 32: regular
    assert gemm._small(16, 384, 128, False)            # NN, TN: the multiply-adds decide
    plan = gemm._plan(384, 16, 128, 1, 2, f32, min_macs=0, nt=True)      # rows of w @ x^T (n=384, m=16, k=128)
    assert plan is not None and plan[0] == 0 and 384 // plan[2] * 16 > gemm.SMALL_NT_MN
    assert gemm._plan(384, 16, 128, 1, 2, f32, min_macs=0, nt=False) is None
    assert gemm._plan(128, 8, 512, 1, 2, f32, min_macs=0, nt=True) is None       # the whole in the small kernels
    assert gemm._plan(128, 12, 512, 1, 2, f32, min_macs=0, nt=True) is None      # 64-row blocks would be small
    assert gemm._plan(384, 16, 128, 1, 2, np.dtype(np.float64), min_macs=0, nt=True) is None   # float32 only


@pytest.mark.parametrize("k,n", [(128, 384), (128, 512), (512, 128), (128, 128), (784, 512), (128, 65), (40, 300)])
@pytest.mark.parametrize("m", [2, 8, 12, 16, 24, 31, 32, 40, 48])
@pytest.mark.parametrize("bias", [False, True])
def test_split_transposed_product_is_numpy_bit_for_bit(k, n, m, bias, threads):
    """mm_t(w, x^T, b) = (w @ x^T)^T + b split over the pool by blocks of rows of w (F.linear's few-row product):
    numpy's single call and strided add, bit for bit, at any thread count, also where blocks are below 1M
    multiply-adds (_small's NT rule); None where it does not split."""
    rng = np.random.default_rng(m * 31 + n + k)
    x = rng.standard_normal((m, k)).astype(np.float32)
    w = rng.standard_normal((n, k)).astype(np.float32)
    b = rng.standard_normal(n).astype(np.float32) if bias else None
    threads(1)
    want = x @ w.T
    want = want + b if bias else want
    assert gemm.mm_t(w, x.T, b, min_macs=0) is None                   # one thread: numpy's call
    for t in (2, 3, 4):
        threads(t)
        got = gemm.mm_t(w, x.T, b, min_macs=0)
        plan = gemm._plan(n, m, k, 1, t, np.dtype(np.float32), min_macs=0, nt=True)
        if got is None:
            assert plan is None or plan[0] != 0 or m * n * k <= gemm.OPENBLAS_SERIAL
            continue
        assert got.shape == (m, n) and got.flags.c_contiguous
        np.testing.assert_array_equal(got, want, err_msg=f"{t} threads", strict=True)
    threads(2)
    assert gemm.mm_t(w, x.T, b, min_macs=m * n * k + 1) is None       # below the caller's threshold


def test_split_transposed_product_declines_what_it_cannot_take(threads):
    threads(2)
    rng = np.random.default_rng(2)
    w = rng.standard_normal((512, 128)).astype(np.float32)
    x = rng.standard_normal((32, 128)).astype(np.float32)
    assert gemm.mm_t(w, x.T.astype(np.float64), min_macs=0) is None                 # mixed dtypes
    assert gemm.mm_t(w, x.T, np.ones(32, np.float32), min_macs=0) is None            # bias of the wrong length
    assert gemm.mm_t(w, x.T, np.ones(1024, np.float32)[::2], min_macs=0) is None     # strided bias
    assert gemm.mm_t(w, x[:1].T, min_macs=0) is None                                 # one column: gemv
    assert gemm.mm_t(w, w.T, min_macs=0) is None                                     # w @ w^T: syrk
    got = gemm.mm_t(w.astype(np.float64), x.T.astype(np.float64), min_macs=0)       # float64: its own units
    want = x.astype(np.float64) @ w.astype(np.float64).T
    assert got is None or np.array_equal(got, want)


def test_transposed_product_holds_openblas_below_its_split(threads):
    """F.linear's few-row product holds OpenBLAS at one thread from OPENBLAS_SERIAL multiply-adds even where it
    does not split (below min_macs), as gemm.mm did for these products before: otherwise numpy's own call of it
    starts OpenBLAS's threads, whose spinning worker takes the core from ember's pool (the module docstring)."""
    if blas.get_num_threads() is None:
        pytest.skip("numpy's OpenBLAS not found")
    threads(2)
    w = np.ones((512, 128), np.float32)
    x = np.ones((5, 128), np.float32)          # 327,680 multiply-adds: above OPENBLAS_SERIAL, below 1M
    monkey = blas._HELD[0]
    try:
        blas._HELD[0] = False
        blas.set_num_threads(2)
        assert gemm.mm_t(w, x.T, min_macs=1 << 20) is None
        assert blas.held() and blas.get_num_threads() == 1
    finally:
        blas._HELD[0] = monkey
        blas.set_num_threads(2)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("m,n", [(384, 48), (16, 16), (17, 33), (5, 3), (128, 64), (512, 40), (100, 1), (1, 100),
                                 (48, 385), (0, 7)])
def test_transpose_add_is_numpys_strided_add(dtype, m, n):
    """gemm.transpose_add(c, b) = c.T + b (csrc/gemm.c: 16 x 16 register tiles on AVX-512, scalar edges), bit for
    bit numpy's np.add(c.T, b); without a bias the exact transpose; NaN, inf and -0.0 kept."""
    from ember.kernels.cpu.runtime import clib
    if not clib.enabled():
        pytest.skip("C kernels off")
    rng = np.random.default_rng(m * 7 + n)
    c = rng.standard_normal((m, n)).astype(dtype)
    flat = c.reshape(-1)
    flat[::11] = np.nan
    flat[3::13] = -0.0
    flat[5::17] = np.inf
    b = rng.standard_normal(m).astype(dtype)
    b[::5] = -0.0
    for bias, want in ((b, np.ascontiguousarray(np.add(c.T, b))), (None, np.ascontiguousarray(c.T))):
        got = gemm.transpose_add(c, bias)
        assert got is not None and got.flags.c_contiguous
        np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))
    assert gemm.transpose_add(c.T) is None if n > 1 and m > 1 else True          # not c-contiguous
    assert gemm.transpose_add(c, b[:-1] if m else None) is None or not m       # bias of the wrong length


def test_one_thread_swapped_linear_uses_the_c_transpose(threads, monkeypatch):
    """F.linear's few-row product without grad on one thread computes (w @ x^T) then gemm.transpose_add: the
    general path's bits (x @ w^T + b)."""
    import ember.nn.functional as F
    seen = []
    real = gemm.transpose_add
    monkeypatch.setattr(gemm, "transpose_add", lambda *a: seen.append(1) or real(*a))
    threads(1)
    rng = np.random.default_rng(5)
    for m, k, n in ((48, 128, 384), (12, 512, 128), (24, 128, 512)):
        x = rng.standard_normal((m, k)).astype(np.float32)
        w = rng.standard_normal((n, k)).astype(np.float32)
        b = rng.standard_normal(n).astype(np.float32)
        with ember.no_grad():
            F.linear(ember.from_numpy(x), ember.from_numpy(w), ember.from_numpy(b))    # (fills dispatch caches)
            del seen[:]
            got = F.linear(ember.from_numpy(x), ember.from_numpy(w), ember.from_numpy(b)).numpy()
        np.testing.assert_array_equal(got, x @ w.T + b, strict=True)
        assert seen == [1]
