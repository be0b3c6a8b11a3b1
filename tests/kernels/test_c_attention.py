"""The fused cpu attention op (_scaled_dot_product_flash_attention_for_cpu and its backward; kernels/cpu/
attention.py, csrc/attention.c) that scaled_dot_product_attention uses for 4-d float q/k/v without mask or
dropout: values, grads, logsumexp and layouts against torch's op with C on (the fused kernel) and off (numpy),
odd sizes, non-contiguous inputs, special values, additive masks and fully masked rows; the fused kernel's
documented bits (thread count, AVX-512 or portable loops, a scalar numpy model of its float32 arithmetic);
gradcheck / gradgradcheck; and the math path still taken where the fused op does not apply."""
import numpy as np
import pytest

import ember
from ember import _cc
from ember.kernels.cpu.runtime import clib

F = ember.nn.functional
aten = ember.ops.aten
SHAPES = [(2, 3, 5, 5, 8), (1, 2, 4, 7, 3), (2, 1, 7, 4, 5), (1, 1, 1, 1, 1), (2, 2, 9, 9, 1), (1, 2, 17, 33, 6)]


def _arrays(B, H, L, S, E, dt, seed=0, big=1.0):
    rng = np.random.default_rng(seed)
    return [(rng.standard_normal(s) * big).astype(dt) for s in ((B, H, L, E), (B, H, S, E), (B, H, S, E))]


def _tol(dt):
    return dict(rtol=2e-5, atol=2e-5) if dt == np.float32 else dict(rtol=1e-10, atol=1e-10)


def _run(lib, arrs, go, causal, scale=None, noncontig=False):
    if noncontig:   # (B, L, H, E) storage seen as (B, H, L, E): the layout of q/k/v split from one projection
        ts = [lib.tensor(np.ascontiguousarray(a.transpose(0, 2, 1, 3))).transpose(1, 2).requires_grad_()
              for a in arrs]
    else:
        ts = [lib.tensor(a).requires_grad_() for a in arrs]
    for t in ts:
        t.retain_grad()             # the transposed views are not leaves
    out = lib.nn.functional.scaled_dot_product_attention(*ts, is_causal=causal, scale=scale)
    out.backward(lib.tensor(go))
    return out.detach().numpy(), [t.grad.numpy() for t in ts]


@pytest.mark.parity
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("causal", [True, False])
@pytest.mark.parametrize("use_c", [True, False])
def test_sdpa_matches_torch(shape, dt, causal, use_c):
    torch = pytest.importorskip("torch")
    arrs = _arrays(*shape, dt)
    go = np.random.default_rng(1).standard_normal(shape[:3] + (shape[4],)).astype(dt)
    t_out, t_grads = _run(torch, arrs, go, causal)
    with clib.use_c(use_c):
        for noncontig in (False, True):
            e_out, e_grads = _run(ember, arrs, go, causal, noncontig=noncontig)
            np.testing.assert_allclose(e_out, t_out, **_tol(dt))
            for e, t in zip(e_grads, t_grads):
                np.testing.assert_allclose(e, t, **_tol(dt))


@pytest.mark.parity
@pytest.mark.parametrize("use_c", [True, False])
def test_op_outputs_layouts_and_scale_match_torch(use_c):
    torch = pytest.importorskip("torch")
    q, k, v = _arrays(2, 3, 6, 4, 5, np.float32, seed=3, big=3.0)
    go = np.random.default_rng(4).standard_normal((2, 3, 6, 5)).astype(np.float32)
    tq, tk, tv = (torch.tensor(a) for a in (q, k, v))
    with clib.use_c(use_c):
        for causal in (True, False):
            for scale in (None, 0.3):
                to, tl = torch.ops.aten._scaled_dot_product_flash_attention_for_cpu(tq, tk, tv, is_causal=causal,
                                                                                    scale=scale)
                eq, ek, ev = (ember.tensor(a) for a in (q, k, v))
                eo, el = aten._scaled_dot_product_flash_attention_for_cpu.default(eq, ek, ev, 0.0, causal,
                                                                                 scale=scale)
                for e, t in ((eo, to), (el, tl)):
                    assert e.shape == tuple(t.shape) and e.stride() == t.stride() and e.dtype == ember.float32
                    np.testing.assert_allclose(e.numpy(), t.numpy(), rtol=1e-5, atol=1e-5)
                tg = torch.ops.aten._scaled_dot_product_flash_attention_for_cpu_backward(
                    torch.tensor(go), tq, tk, tv, to, tl, 0.0, causal, scale=scale)
                eg = aten._scaled_dot_product_flash_attention_for_cpu_backward.default(
                    ember.tensor(go), eq, ek, ev, eo, el, 0.0, causal, scale=scale)
                for e, t in zip(eg, tg):
                    assert e.shape == tuple(t.shape) and e.stride() == t.stride()
                    np.testing.assert_allclose(e.numpy(), t.numpy(), rtol=1e-4, atol=1e-5)


@pytest.mark.parity
@pytest.mark.parametrize("use_c", [True, False])
def test_large_scores_match_torch(use_c):
    """Scores around +-1000 (softmax must subtract the row max): finite, and equal to torch's on any CPU."""
    torch = pytest.importorskip("torch")
    q, k, v = _arrays(1, 2, 5, 5, 4, np.float32, seed=5, big=30.0)
    for causal in (True, False):
        with clib.use_c(use_c):
            e = F.scaled_dot_product_attention(*(ember.tensor(a) for a in (q, k, v)), is_causal=causal).numpy()
        t = torch.nn.functional.scaled_dot_product_attention(*(torch.tensor(a) for a in (q, k, v)),
                                                             is_causal=causal).numpy()
        assert np.isfinite(e).all()
        np.testing.assert_allclose(e, t, rtol=1e-5, atol=1e-5)


def _reference(q, k, v, causal):
    """ember's documented result, in float64 numpy: softmax(q k^T / sqrt(E)) v with the row max subtracted and
    keys whose score is -inf (masked, or a -inf key component) skipped; everything else IEEE arithmetic, so
    +inf in q makes its row NaN and NaN in v makes that column NaN wherever the key has weight."""
    q, k, v = (a.astype(np.float64) for a in (q, k, v))
    with np.errstate(all="ignore"):
        s = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
        if causal:
            s = np.where(np.tril(np.ones(s.shape[-2:], bool)), s, -np.inf)
        p = np.where(np.isneginf(s), 0.0, np.exp(s - s.max(-1, keepdims=True)))
        return (p / p.sum(-1, keepdims=True)) @ v


@pytest.mark.parametrize("use_c", [True, False])
def test_special_values_follow_the_documented_rule(use_c):
    """+inf in q, -inf in k, NaN in v. torch's fused kernel handles these in vectorised code whose special-value
    results may depend on the CPU's vector width, so ember is checked against its own rule (`_reference`),
    which torch 2.13 matched on the AVX2 machine this was written on."""
    q, k, v = _arrays(1, 2, 5, 5, 4, np.float32, seed=5, big=30.0)
    q[0, 1, 2, 1] = np.inf
    k[0, 1, 4, 2] = -np.inf
    v[0, 0, 3, 2] = np.nan
    for causal in (True, False):
        with clib.use_c(use_c):
            e = F.scaled_dot_product_attention(*(ember.tensor(a) for a in (q, k, v)), is_causal=causal).numpy()
        want = _reference(q, k, v, causal)
        np.testing.assert_array_equal(np.isnan(e), np.isnan(want))
        assert np.isnan(e[0, 1, 2]).all() and np.isnan(e[0, 0, :, 2]).all()
        np.testing.assert_allclose(e, want, rtol=1e-5, atol=1e-5)


def test_gradcheck_and_gradgradcheck():
    rng = np.random.default_rng(7)
    for causal in (True, False):
        qkv = [ember.tensor(rng.standard_normal(s), requires_grad=True)
               for s in ((1, 2, 4, 3), (1, 2, 5, 3), (1, 2, 5, 3))]
        fn = lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=causal)   # noqa: E731
        assert fn(*qkv).grad_fn.name() == "ScaledDotProductFlashAttentionForCpuBackward0"
        assert ember.autograd.gradcheck(fn, qkv)
        assert ember.autograd.gradgradcheck(fn, qkv)


def test_math_path_where_the_fused_op_does_not_apply():
    """attn_mask, dropout, 3-d input, broadcast batch, other head size of v: the decomposition."""
    q, k, v = (ember.randn(2, 3, 4, 5, requires_grad=True) for _ in range(3))
    mask = ember.tensor(np.tril(np.ones((4, 4), bool)))
    for out in (F.scaled_dot_product_attention(q, k, v, attn_mask=mask),
                F.scaled_dot_product_attention(q[0], k[0], v[0], is_causal=True),
                F.scaled_dot_product_attention(q, k[:1], v[:1], is_causal=True),
                F.scaled_dot_product_attention(q, k, ember.randn(2, 3, 4, 6), is_causal=True)):
        assert "FlashAttention" not in out.grad_fn.name()
    # the fused op's answer equals the math path's (explicit tril mask)
    fused = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    np.testing.assert_allclose(fused.detach().numpy(),
                               F.scaled_dot_product_attention(q, k, v, attn_mask=mask).detach().numpy(),
                               rtol=1e-5, atol=1e-6)


def test_meta_and_errors():
    m = ember.empty(2, 3, 5, 4, device="meta")
    o, lse = aten._scaled_dot_product_flash_attention_for_cpu.default(m, m, m, 0.0, True)
    assert o.device.type == "meta" and o.shape == (2, 3, 5, 4) and o.stride() == (60, 20, 4, 1)
    assert lse.shape == (2, 3, 5) and lse.stride() == (15, 1, 3)
    r = F.scaled_dot_product_attention(m, m, m, is_causal=True)
    assert r.device.type == "meta" and r.shape == (2, 3, 5, 4)
    q = ember.randn(2, 3, 5, 4)
    with pytest.raises(RuntimeError, match="dropout"):
        aten._scaled_dot_product_flash_attention_for_cpu.default(q, q, q, 0.5)
    with pytest.raises(RuntimeError, match="4 dims"):
        aten._scaled_dot_product_flash_attention_for_cpu.default(q[0], q[0], q[0])
    with pytest.raises(RuntimeError, match="same data type"):
        aten._scaled_dot_product_flash_attention_for_cpu.default(q, q, q, attn_mask=ember.ones(5, 5, dtype=ember.bool))
    with pytest.raises(RuntimeError, match="same head size"):
        aten._scaled_dot_product_flash_attention_for_cpu.default(q, q, ember.randn(2, 3, 5, 6))


@pytest.mark.skipif(not _cc.available(), reason="no C compiler")
def test_fused_kernel_is_used():
    """With C, the op and its backward run csrc/attention.c's fused attn_flash_{fwd,bwd} (no numpy products)."""
    from ember.kernels.cpu import attention
    calls = []
    real = attention._flash

    def spy(name, *a, **k):
        calls.append((name, real(name, *a, **k)))
        return calls[-1][1]
    attention._flash = spy
    try:
        for dt in (ember.float32, ember.float64):
            q = ember.randn(1, 2, 3, 4, dtype=dt, requires_grad=True)
            F.scaled_dot_product_attention(q, q, q, is_causal=True).sum().backward()
    finally:
        attention._flash = real
    assert calls == [("fwd", True), ("bwd", True)] * 2


def _split_always(monkeypatch):
    """Every fused call shares its pairs over the pool (no small-work threshold); records the thread counts."""
    from ember.kernels.cpu import attention
    from ember.kernels.cpu.runtime import cparts
    monkeypatch.setattr(attention, "_MIN_SPLIT_MACS", 0)
    seen = []
    real = cparts.run

    def run(fn, n, threads, g, *a, **k):
        seen.append(threads)
        return real(fn, n, threads, g, *a, **k)
    monkeypatch.setattr(cparts, "run", run)
    return seen


def _sdpa_step(xa, B, T, H, E, causal, threads, portable=False, scale=None):
    """out and grad of scaled_dot_product_attention of q, k, v viewed out of one (B, T, 3 H E) projection (the GPT
    layout, read in place) under `threads`, optionally on the kernel's portable loops."""
    set_portable = clib.kernel("attention", "attn_flash_set_portable", "i")
    old = ember.get_num_threads()
    ember.set_num_threads(threads)
    if portable:
        set_portable(1)
    try:
        x = ember.tensor(xa, requires_grad=True)
        q, k, v = (u.view(B, T, H, E).transpose(1, 2) for u in x.split(H * E, dim=2))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=causal, scale=scale)
        (y * y).sum().backward()
        return y.detach().numpy(), x.grad.numpy()
    finally:
        if portable:
            set_portable(0)
        ember.set_num_threads(old)


@pytest.mark.skipif(not _cc.available(), reason="no C compiler")
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("shape", [(8, 64, 4, 32), (3, 37, 2, 21), (2, 19, 3, 70), (4, 16, 2, 16)])
def test_fused_bits_do_not_depend_on_threads_or_avx512(dtype, causal, shape, monkeypatch):
    """csrc/attention.c's documented bits: the same at 1 and 2 threads (pairs split over the C pool) and on the
    portable loops as on the AVX-512 tiles (on an AVX-512 build); T and E not multiples of the blocks."""
    B, T, H, E = shape
    xa = np.random.default_rng(2).standard_normal((B, T, 3 * H * E)).astype(dtype)
    seen = _split_always(monkeypatch)
    one = _sdpa_step(xa, B, T, H, E, causal, 1)
    assert seen == [1, 1]
    for got in (_sdpa_step(xa, B, T, H, E, causal, 2), _sdpa_step(xa, B, T, H, E, causal, 2, portable=True),
                _sdpa_step(xa, B, T, H, E, causal, 1, portable=True)):
        for a, b in zip(one, got):
            np.testing.assert_array_equal(a, b)
    assert seen == [1, 1, 2, 2, 2, 2, 1, 1]


def _numpy_model(q, k, v, go, causal, scale):
    """The fused kernel's arithmetic for float32 in numpy, element by element in its documented order: products
    as fused multiply-add chains in ascending order (float64 products rounded once: exact for float32 inputs),
    16-lane row sums folded as fold16.h, vmath.h's exp. Returns out, lse, dq, dk, dv of one (L, E) pair."""
    f = np.float32

    def fma(a, b, c):
        return f(np.float64(a) * np.float64(b) + np.float64(c))

    def chain(xs, ys):
        acc = f(0)
        for a, b in zip(xs, ys):
            acc = fma(a, b, acc)
        return acc

    def sum16(vals):
        lanes = [f(0)] * 16
        for j, x in enumerate(vals):
            lanes[j % 16] = f(lanes[j % 16] + x)
        for w in (8, 4, 2, 1):
            lanes = [f(lanes[u] + lanes[u + w]) for u in range(w)]
        return lanes[0]

    L, E = q.shape
    S = k.shape[0]
    sc = f(scale)
    out, lse = np.zeros((L, E), f), np.zeros(L, f)
    dq, dk, dv = np.zeros((L, E), f), np.zeros((S, E), f), np.zeros((S, E), f)
    P, DS = np.zeros((L, S), f), np.zeros((L, S), f)
    for i in range(L):
        n = min(i + 1, S) if causal else S
        s = [f(chain(q[i], k[j]) * sc) for j in range(n)]
        m = max(s)
        e = [_vm_expf(f(x - m)) for x in s]
        tot = sum16(e)
        inv = f(1.0 / np.float64(tot))
        P[i, :n] = [f(x * inv) for x in e]
        lse[i] = f(np.float64(m) + np.log(np.float64(tot)))
    for i in range(L):
        for c in range(E):
            out[i, c] = chain(P[i], v[:, c])
    for i in range(L):
        n = min(i + 1, S) if causal else S
        dd = sum16([f(go[i, c] * out[i, c]) for c in range(E)])
        for j in range(n):
            pj = _vm_expf(f(f(chain(q[i], k[j]) * sc) - lse[i]))
            P[i, j] = pj
            DS[i, j] = f(sc * f(pj * f(chain(go[i], v[j]) - dd)))
    for j in range(S):
        for c in range(E):
            dv[j, c] = chain(P[:, j], go[:, c])
            dk[j, c] = chain(DS[:, j], q[:, c])
    for i in range(L):
        for c in range(E):
            dq[i, c] = chain(DS[i], k[:, c])
    return out, lse, dq, dk, dv


def _vm_expf(x):
    """csrc/vmath.h's vm_expf in numpy float32 (fused multiply-adds through float64, exact here)."""
    f = np.float32

    def fma(a, b, c):
        return f(np.float64(a) * np.float64(b) + np.float64(c))
    x = f(x)
    x = f(-110.0) if x < -110 else x
    x = f(100.0) if x > 100 else x
    shift = f(12582912.0)
    kk = fma(x, f(1.44269504088896341), shift)
    n = f(kk - shift)
    r = fma(-n, f(0.693145751953125), x)
    r = fma(-n, f(1.428606765330187e-06), r)
    p = f(1.0 / 5040.0)
    for c in (1.0 / 720.0, 1.0 / 120.0, 1.0 / 24.0, 1.0 / 6.0, 0.5, 1.0, 1.0):
        p = fma(p, r, f(c))
    u = int(np.array(kk, f).view(np.uint32)) - 0x4B400000 + 256
    h = u >> 1
    s1 = np.array((h - 1) << 23, np.uint32).view(f)
    s2 = np.array((u - h - 1) << 23, np.uint32).view(f)
    return f(f(p * s1) * s2)


@pytest.mark.skipif(not _cc.available(), reason="no C compiler")
@pytest.mark.parametrize("causal", [False, True])
def test_fused_float32_bits_follow_the_documented_order(causal):
    """The fused kernel's float32 results equal a scalar numpy model of its documented operations bit for bit
    (fma chains in ascending index order, 16-lane sums, vmath's exp): the AVX-512 tiles compute exactly that."""
    rng = np.random.default_rng(11)
    L, S, E = 19, 21, 18
    q, k, v = (rng.standard_normal((n, E)).astype(np.float32) for n in (L, S, S))
    go = rng.standard_normal((L, E)).astype(np.float32)
    scale = 0.3
    want = _numpy_model(q, k, v, go, causal, scale)
    eq, ek, ev = (ember.tensor(a[None, None]) for a in (q, k, v))
    eo, el = aten._scaled_dot_product_flash_attention_for_cpu.default(eq, ek, ev, 0.0, causal, scale=scale)
    grads = aten._scaled_dot_product_flash_attention_for_cpu_backward.default(
        ember.tensor(go[None, None]), eq, ek, ev, eo, el, 0.0, causal, scale=scale)
    for got, w in zip([eo, el] + list(grads), want):
        np.testing.assert_array_equal(got.numpy().reshape(w.shape), w)


@pytest.mark.parity
@pytest.mark.parametrize("use_c", [True, False])
@pytest.mark.parametrize("chunk_bytes", [1, 1 << 18])
def test_op_with_attn_mask_and_batch_chunks_matches_torch(use_c, chunk_bytes, monkeypatch):
    """The op itself takes an additive attn_mask of q's dtype, broadcast over batch/heads or not;
    the batch runs in chunks (one batch per chunk with chunk_bytes=1)."""
    torch = pytest.importorskip("torch")
    from ember.kernels.cpu import attention
    monkeypatch.setattr(attention, "_CHUNK_BYTES", chunk_bytes)
    rng = np.random.default_rng(9)
    q, k, v = _arrays(3, 2, 5, 6, 4, np.float64, seed=8)
    go = rng.standard_normal((3, 2, 5, 4))
    keep = rng.random((5, 6)) > 0.3
    keep[:, 0] = True                                      # no fully masked row
    masks = [np.where(keep, 0.0, -np.inf), rng.standard_normal((3, 1, 5, 6)), rng.standard_normal((3, 2, 5, 6)), None]
    with clib.use_c(use_c):
        for m in masks:
            for causal in ((False,) if m is not None else (False, True)):
                kw = {} if m is None else {"attn_mask": m}
                to, tl = torch.ops.aten._scaled_dot_product_flash_attention_for_cpu(
                    *(torch.tensor(a) for a in (q, k, v)), is_causal=causal,
                    **{n: torch.tensor(a) for n, a in kw.items()})
                tg = torch.ops.aten._scaled_dot_product_flash_attention_for_cpu_backward(
                    torch.tensor(go), *(torch.tensor(a) for a in (q, k, v)), to, tl, 0.0, causal,
                    **{n: torch.tensor(a) for n, a in kw.items()})
                ek = {n: ember.tensor(a) for n, a in kw.items()}
                eo, el = aten._scaled_dot_product_flash_attention_for_cpu.default(
                    *(ember.tensor(a) for a in (q, k, v)), 0.0, causal, **ek)
                eg = aten._scaled_dot_product_flash_attention_for_cpu_backward.default(
                    ember.tensor(go), *(ember.tensor(a) for a in (q, k, v)), eo, el, 0.0, causal, **ek)
                for e, t in [(eo, to), (el, tl)] + list(zip(eg, tg)):
                    np.testing.assert_allclose(e.numpy(), t.numpy(), rtol=1e-9, atol=1e-10)


def test_forward_ad_matches_the_math_path():
    """torch's fused cpu op has no forward-mode rule; here its tangent (the transposed backward) equals the
    math decomposition's."""
    import ember.autograd.forward_ad as fwAD
    rng = np.random.default_rng(0)
    q, k, v, tq, tk, tv = (rng.standard_normal((2, 3, 4, 5)) for _ in range(6))
    mask = ember.tensor(np.tril(np.ones((4, 4), bool)))
    res = []
    for kw in ({"is_causal": True}, {"attn_mask": mask}):
        with fwAD.dual_level():
            args = [fwAD.make_dual(ember.tensor(a), ember.tensor(t)) for a, t in ((q, tq), (k, tk), (v, tv))]
            p, t = fwAD.unpack_dual(F.scaled_dot_product_attention(*args, **kw))
            res.append((p.numpy(), t.numpy()))
    np.testing.assert_allclose(res[0][0], res[1][0], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(res[0][1], res[1][1], rtol=1e-12, atol=1e-12)


@pytest.mark.parity
@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("use_c", [True, False])
@pytest.mark.parametrize("shape", [(2, 3, 5, 6, 4), (2, 2, 37, 21, 19), (1, 2, 70, 70, 33)])
def test_op_with_masks_and_fully_masked_rows_matches_torch(dt, use_c, shape):
    """The op's additive attn_mask in the fused C kernel (and numpy): broadcast (L, S), (B, 1, L, S), (1, H, 1, S)
    masks, with and without is_causal; a fully masked query row gives out 0, lse 0 and no gradient, as torch's."""
    torch = pytest.importorskip("torch")
    B, H, L, S, E = shape
    rng = np.random.default_rng(3)
    q, k, v = _arrays(B, H, L, S, E, dt, seed=4)
    go = rng.standard_normal((B, H, L, E)).astype(dt)
    keep = rng.random((L, S)) > 0.4
    keep[1] = False
    masks = [np.where(keep, 0, -np.inf).astype(dt), rng.standard_normal((B, 1, L, S)).astype(dt),
             rng.standard_normal((1, H, 1, S)).astype(dt)]
    tol = _tol(dt) if dt == np.float64 else dict(rtol=1e-4, atol=1e-5)
    for m in masks:
        for causal in (False, True):
            tq, tk, tv, tm = (torch.tensor(a) for a in (q, k, v, m))
            to, tl = torch.ops.aten._scaled_dot_product_flash_attention_for_cpu(tq, tk, tv, is_causal=causal,
                                                                                attn_mask=tm)
            tg = torch.ops.aten._scaled_dot_product_flash_attention_for_cpu_backward(
                torch.tensor(go), tq, tk, tv, to, tl, 0.0, causal, attn_mask=tm)
            eq, ek, ev, em = (ember.tensor(a) for a in (q, k, v, m))
            with clib.use_c(use_c):
                eo, el = aten._scaled_dot_product_flash_attention_for_cpu.default(eq, ek, ev, 0.0, causal,
                                                                                 attn_mask=em)
                eg = aten._scaled_dot_product_flash_attention_for_cpu_backward.default(
                    ember.tensor(go), eq, ek, ev, eo, el, 0.0, causal, attn_mask=em)
            for e, t in [(eo, to), (el, tl)] + list(zip(eg, tg)):
                np.testing.assert_allclose(e.numpy(), t.numpy(), **tol)
            if m is masks[0]:
                assert (eo.numpy()[:, :, 1] == 0).all() and (el.numpy()[:, :, 1] == 0).all()
                assert (eg[0].numpy()[:, :, 1] == 0).all()


@pytest.mark.skipif(not _cc.available(), reason="no C compiler")
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_fused_bits_with_a_mask_do_not_depend_on_threads_or_avx512(dtype, monkeypatch):
    """The fused kernel with an additive mask (-inf entries, a fully masked row): the same bits at 1 and 2 threads
    and on the portable loops."""
    seen = _split_always(monkeypatch)
    rng = np.random.default_rng(5)
    B, H, L, S, E = 4, 3, 45, 50, 20
    q, k, v = _arrays(B, H, L, S, E, dtype, seed=6)
    go = rng.standard_normal((B, H, L, E)).astype(dtype)
    m = rng.standard_normal((B, 1, L, S)).astype(dtype)
    m[rng.random(m.shape) > 0.7] = -np.inf
    m[0, 0, 3] = -np.inf
    set_portable = clib.kernel("attention", "attn_flash_set_portable", "i")
    got = []
    for threads, portable in ((1, 0), (2, 0), (2, 1), (1, 1)):
        old = ember.get_num_threads()
        ember.set_num_threads(threads)
        set_portable(portable)
        try:
            eq, ek, ev, em = (ember.tensor(a) for a in (q, k, v, m))
            for causal in (False, True):
                eo, el = aten._scaled_dot_product_flash_attention_for_cpu.default(eq, ek, ev, 0.0, causal,
                                                                                 attn_mask=em)
                eg = aten._scaled_dot_product_flash_attention_for_cpu_backward.default(
                    ember.tensor(go), eq, ek, ev, eo, el, 0.0, causal, attn_mask=em)
                got.append([t.numpy() for t in [eo, el, *eg]])
        finally:
            set_portable(0)
            ember.set_num_threads(old)
    assert seen == [1] * 4 + [2] * 8 + [1] * 4
    for i in range(2, len(got)):                       # (config, causal) in order: against 1 thread, same causal
        for a, b in zip(got[i % 2], got[i]):
            np.testing.assert_array_equal(a, b)


@pytest.mark.parity
def test_sdpa_mask_dtype_error_and_strided_inputs_match_torch():
    """A mask of another float dtype than bool / float32 / q's raises torch's error; q/k/v whose last stride is not
    1 take the math path, as torch's (its flash kernel needs unit last strides)."""
    torch = pytest.importorskip("torch")
    for lib in (torch, ember):
        q = lib.zeros(1, 1, 4, 5)
        for dt in (lib.float64, lib.float16, lib.int32):
            with pytest.raises(RuntimeError) as info:
                lib.nn.functional.scaled_dot_product_attention(q, q, q, attn_mask=lib.zeros(4, 4, dtype=dt))
            want = {"float64": "double", "float16": "c10::Half", "int32": "int"}[str(dt).split(".")[-1]]
            assert str(info.value) == ("Expected attn_mask dtype to be bool or float or to match query dtype, but "
                                       f"got attn_mask.dtype: {want} and  query.dtype: float instead.")
        q64 = lib.zeros(1, 1, 4, 5, dtype=lib.float64)
        assert lib.nn.functional.scaled_dot_product_attention(q64, q64, q64, attn_mask=lib.zeros(4, 4)).dtype == \
            lib.float64
    a = np.random.default_rng(0).standard_normal((2, 3, 6, 10)).astype(np.float32)
    names = []
    for lib in (torch, ember):
        x = lib.tensor(a)[..., ::2].requires_grad_()
        names.append(type(lib.nn.functional.scaled_dot_product_attention(x, x, x).grad_fn).__name__)
        y = lib.tensor(a)[..., :5].requires_grad_()
        names.append(type(lib.nn.functional.scaled_dot_product_attention(y, y, y).grad_fn).__name__)
    assert names[2:] == names[:2] == ["UnsafeViewBackward0", "ScaledDotProductFlashAttentionForCpuBackward0"]


@pytest.mark.parity
@pytest.mark.parametrize("case", ["gqa", "2d", "3d", "empty_batch", "empty_keys", "scale", "dropout0"])
def test_sdpa_shapes_and_options_match_torch(case):
    """Values and gradients against torch beyond the GPT case: enable_gqa (fused, k/v heads repeated), (T, D) and
    (N, T, D) inputs (math path), empty batch (fused op skipped) and empty keys, scale=, dropout_p=0.0 given."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(12)
    shapes = {"gqa": ((2, 4, 9, 8), (2, 2, 11, 8), (2, 2, 11, 8)), "2d": ((7, 5), (9, 5), (9, 5)),
              "3d": ((3, 7, 5), (3, 9, 5), (3, 9, 5)), "empty_batch": ((0, 2, 5, 4),) * 3,
              "empty_keys": ((1, 2, 5, 4), (1, 2, 0, 4), (1, 2, 0, 4)), "scale": ((2, 3, 17, 6),) * 3,
              "dropout0": ((2, 3, 17, 6),) * 3}[case]
    kw = {"gqa": {"enable_gqa": True, "is_causal": True}, "2d": {"is_causal": True}, "3d": {},
          "empty_batch": {"is_causal": True}, "empty_keys": {}, "scale": {"scale": 0.7, "is_causal": True},
          "dropout0": {"dropout_p": 0.0}}[case]
    arrs = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    res = []
    for lib in (torch, ember):
        ts = [lib.tensor(a, requires_grad=True) for a in arrs]
        out = lib.nn.functional.scaled_dot_product_attention(*ts, **kw)
        g = np.random.default_rng(1).standard_normal(tuple(out.shape)).astype(np.float32)
        out.backward(lib.tensor(g))
        res.append([out.detach().numpy()] + [t.grad.numpy() for t in ts])
    for e, t in zip(res[1], res[0]):
        assert e.shape == t.shape
        np.testing.assert_allclose(e, t, rtol=1e-4, atol=1e-5)


def test_sdpa_dropout_takes_the_math_path_with_ember_s_stream():
    """dropout_p > 0: the math path (as torch), dropping whole probabilities with ember's own random stream: the
    same seed gives the same result, and the mean over many draws approaches the undropped output."""
    q = ember.randn(2, 2, 6, 4, requires_grad=True)
    ember.manual_seed(3)
    a = F.scaled_dot_product_attention(q, q, q, dropout_p=0.3)
    ember.manual_seed(3)
    b = F.scaled_dot_product_attention(q, q, q, dropout_p=0.3)
    assert "FlashAttention" not in a.grad_fn.name()
    np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
    ref = F.scaled_dot_product_attention(q, q, q).detach().numpy()
    with ember.no_grad():
        mean = np.mean([F.scaled_dot_product_attention(q, q, q, dropout_p=0.3).numpy() for _ in range(400)], 0)
    np.testing.assert_allclose(mean, ref, atol=0.15)
