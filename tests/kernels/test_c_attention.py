"""The fused cpu attention op (_scaled_dot_product_flash_attention_for_cpu and its backward; kernels/cpu/
attention.py, csrc/attention.c) that scaled_dot_product_attention uses for 4-d float q/k/v without mask or
dropout: values, grads, logsumexp and layouts against torch's op, with the C row kernels on and off, odd
sizes, non-contiguous inputs, special values; gradcheck / gradgradcheck; and the math path still taken
where the fused op does not apply."""
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
def test_kernels_are_used():
    for suf in ("f32", "f64"):
        assert clib.kernel("attention", f"attn_softmax_fwd_{suf}", "pplllldi") is not None
        assert clib.kernel("attention", f"attn_probs_{suf}", "pplllldi") is not None
        assert clib.kernel("attention", f"attn_softmax_bwd_{suf}", "ppplllldi") is not None
    calls = []
    real = clib.kernel

    def spy(*a, **k):
        calls.append(a[:2])
        return real(*a, **k)
    clib.kernel = spy
    try:
        q = ember.randn(1, 2, 3, 4, requires_grad=True)
        F.scaled_dot_product_attention(q, q, q, is_causal=True).sum().backward()
    finally:
        clib.kernel = real
    for name in ("attn_softmax_fwd_f32", "attn_probs_f32", "attn_softmax_bwd_f32"):
        assert ("attention", name) in calls


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
