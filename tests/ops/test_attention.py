"""scaled_dot_product_attention against torch; is_causal's cached bias."""
import numpy as np
import pytest
import ember
from ._nn_util import DTYPES, RNG, arr, close, meta_matches, pair
from ember._dispatch.modes import TorchDispatchMode


@pytest.mark.parity
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("cfg", [
    dict(q=(2, 3, 4, 8), k=(2, 3, 5, 8), v=(2, 3, 5, 6)),
    dict(q=(2, 3, 4, 8), k=(2, 3, 4, 8), v=(2, 3, 4, 8), is_causal=True),
    dict(q=(2, 3, 4, 8), k=(2, 3, 6, 8), v=(2, 3, 6, 8), is_causal=True, scale=0.3),
    dict(q=(3, 4, 8), k=(3, 5, 8), v=(3, 5, 2), mask="bool"),
    dict(q=(2, 2, 4, 8), k=(2, 2, 5, 8), v=(2, 2, 5, 8), mask="float"),
    dict(q=(2, 4, 4, 8), k=(2, 2, 5, 8), v=(2, 2, 5, 8), enable_gqa=True),
])
def test_sdpa(dtype, cfg):
    torch = pytest.importorskip("torch")
    cfg = dict(cfg)
    q, tq = pair(torch, arr(*cfg.pop("q"), dtype=dtype))
    k, tk = pair(torch, arr(*cfg.pop("k"), dtype=dtype))
    v, tv = pair(torch, arr(*cfg.pop("v"), dtype=dtype))
    kind = cfg.pop("mask", None)
    L, S = q.shape[-2], k.shape[-2]
    m = tm = None
    if kind == "bool":
        a = RNG.random((L, S)) > 0.3
        a[:, 0] = True
        m, tm = pair(torch, a)
    elif kind == "float":
        m, tm = pair(torch, arr(L, S, dtype=dtype))
    close(ember._nn.scaled_dot_product_attention(q, k, v, m, **cfg),
          torch.nn.functional.scaled_dot_product_attention(tq, tk, tv, tm, **cfg))
    meta_matches(lambda *a: ember._nn.scaled_dot_product_attention(*a, **cfg), q, k, v, m)


F = ember.nn.functional


def _qkv(L, S, seed=0):
    rng = np.random.default_rng(seed)
    return [ember.tensor(rng.standard_normal(s).astype(np.float32), requires_grad=True)
            for s in ((2, 3, L, 8), (2, 3, S, 8), (2, 3, S, 8))]


@pytest.mark.parametrize("L,S", [(5, 5), (4, 7), (7, 4), (1, 1)])
def test_causal_matches_explicit_mask_and_repeats(L, S):
    q, k, v = _qkv(L, S)
    mask = ember.tensor(np.tril(np.ones((L, S), bool)))
    ref = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    ref.sum().backward()
    ref_grads = [t.grad.numpy().copy() for t in (q, k, v)]
    for _ in range(3):                                  # the second and third calls use the cached bias
        for t in (q, k, v):
            t.grad = None
        out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        out.sum().backward()
        np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), rtol=1e-6, atol=1e-6)
        for t, g in zip((q, k, v), ref_grads):
            np.testing.assert_allclose(t.grad.numpy(), g, rtol=1e-5, atol=1e-6)


def test_float64_and_meta_get_their_own_bias():
    q = ember.randn(1, 1, 3, 2, dtype=ember.float64)
    F.scaled_dot_product_attention(q.float(), q.float(), q.float(), is_causal=True)
    out = F.scaled_dot_product_attention(q, q, q, is_causal=True)
    assert out.dtype == ember.float64
    m = ember.empty(1, 1, 3, 2, device="meta")
    r = F.scaled_dot_product_attention(m, m, m, is_causal=True)
    assert r.device.type == "meta" and r.shape == (1, 1, 3, 2)


def test_under_dispatch_mode_and_inference_mode():
    q, k, v = _qkv(4, 4)
    ref = F.scaled_dot_product_attention(q, k, v, is_causal=True).detach().numpy()   # fills the cache
    seen = []

    class Log(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen.append(str(func))
            return func(*args, **(kwargs or {}))
    with Log():
        out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    # (torch's mode sees the composite op decomposed: the fused flash op, not scaled_dot_product_attention)
    assert "aten._scaled_dot_product_flash_attention_for_cpu.default" in seen
    assert "aten.scaled_dot_product_attention.default" not in seen
    np.testing.assert_array_equal(out.detach().numpy(), ref)
    with ember.inference_mode():
        out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    assert out.is_inference()
    np.testing.assert_array_equal(out.numpy(), ref)
    out = F.scaled_dot_product_attention(q, k, v, is_causal=True)     # the cache holds no inference tensor
    out.sum().backward()
    assert q.grad is not None
