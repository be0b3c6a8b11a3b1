"""The generated C entry runs the fused attention and its backward (ember/_inductor/codegen/attention_calls.py):
gemms and ember's attention row kernels with no Python between kernels, eager's values and gradients."""
import numpy as np
import pytest

import ember
import ember.nn.functional as F
from ember.kernels.cpu.runtime import blas, clib

from ._compiled import Compiled, fresh_caches

pytestmark = pytest.mark.skipif(blas.cblas_gemm() is None or not clib.enabled(),
                                reason="needs numpy's OpenBLAS and ember's C kernels")


@pytest.fixture(autouse=True)
def _fresh():
    yield from fresh_caches()


def _t(*shape, dtype=np.float32, seed=0):
    return ember.tensor(np.random.default_rng(seed).standard_normal(shape).astype(dtype))


def _python_calls(module):
    return [ln for ln in module.py_source.splitlines() if "_op_" in ln and "# aten." in ln]


def _attention(causal, scale=None, heads=4):
    def f(x, w, g):
        B, T, C = x.shape
        q, k, v = (x @ w).split(C, dim=2)                       # strided (B, T, H, E) views, as a GPT's
        q, k, v = (t.view(B, T, heads, C // heads).transpose(1, 2) for t in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=causal, scale=scale)
        return (y.transpose(1, 2).reshape(B, T, C) * g).sum()
    return f


def _run(f, tensors, tol):
    a = [t.clone().requires_grad_() for t in tensors[:2]] + [tensors[2]]
    b = [t.clone().requires_grad_() for t in tensors[:2]] + [tensors[2]]
    c = Compiled(f)
    out = c(*a)
    out.backward()
    ref = f(*b)
    ref.backward()
    np.testing.assert_allclose(out.item(), ref.item(), rtol=tol, atol=tol)
    for x, y in zip(a[:2], b[:2]):
        np.testing.assert_allclose(x.grad.numpy(), y.grad.numpy(), rtol=tol, atol=tol)
    return c


@pytest.mark.parametrize("causal", [True, False])
def test_gpt_attention_forward_and_backward_run_in_c(causal):
    x, w, g = _t(2, 9, 16), _t(16, 48, seed=1) * 0.3, _t(2, 9, 16, seed=2)
    c = _run(_attention(causal), [x, w, g], 2e-5)
    assert len(c.modules) == 2
    for m in c.modules:
        assert _python_calls(m) == []
        assert len(m.entry_names) == 1
        assert m.attention
    fwd, bwd = c.modules
    assert "ember_attn_softmax_fwd_f32(" in fwd.c_source
    assert "ember_attn_probs_f32(" in bwd.c_source and "ember_attn_softmax_bwd_f32(" in bwd.c_source


@pytest.mark.parametrize("scale", [None, 0.3])
def test_float64_and_scale_equal_eager(scale):
    x, w, g = (_t(3, 7, 12, dtype=np.float64), _t(12, 36, dtype=np.float64, seed=1),
               _t(3, 7, 12, dtype=np.float64, seed=2))
    c = _run(_attention(True, scale, heads=3), [x, w, g], 1e-11)
    assert "ember_attn_softmax_fwd_f64(" in c.source()
    assert all(_python_calls(m) == [] for m in c.modules)


def test_inference_without_logsumexp_output():
    x, w = _t(2, 5, 8), _t(8, 24, seed=1)

    def f(x, w):
        q, k, v = (x @ w).split(8, dim=2)
        q, k, v = (t.view(2, 5, 2, 4).transpose(1, 2) for t in (q, k, v))
        return F.scaled_dot_product_attention(q, k, v, is_causal=True).sum(-1)

    c = Compiled(f)
    with ember.no_grad():
        got = c(x, w)
        ref = f(x, w)
    np.testing.assert_allclose(got.numpy(), ref.numpy(), rtol=1e-5, atol=1e-6)
    assert all(_python_calls(m) == [] for m in c.modules)
