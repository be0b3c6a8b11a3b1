"""The generated C entry runs the fused attention and its backward (ember/_inductor/codegen/attention_calls.py):
ember's fused attention kernels (attention.c) with no Python between kernels, eager's values and
gradients (bitwise)."""
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
    assert "ember_attn_flash_fwd_f32(" in fwd.c_source
    assert "ember_attn_flash_bwd_f32(" in bwd.c_source


@pytest.mark.parametrize("scale", [None, 0.3])
def test_float64_and_scale_equal_eager(scale):
    x, w, g = (_t(3, 7, 12, dtype=np.float64), _t(12, 36, dtype=np.float64, seed=1),
               _t(3, 7, 12, dtype=np.float64, seed=2))
    c = _run(_attention(True, scale, heads=3), [x, w, g], 1e-11)
    assert "ember_attn_flash_fwd_f64(" in c.source()
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


def _masked_case(kind, seed=0):
    """q, k, v (2, 3, 6, 4) arrays and an attn_mask array whose query row 2 is fully masked (head 1 of image 0
    only, for the 4-d masks)."""
    rng = np.random.default_rng(seed)
    q, k, v = (rng.standard_normal((2, 3, 6, 4)).astype(np.float32) for _ in range(3))
    if kind == "bool":                        # (L, S), True = attend
        m = rng.random((6, 6)) > 0.3
        m[2] = False
    elif kind == "bool_bcast":                # (B, 1, 1, S) key padding
        m = rng.random((2, 1, 1, 6)) > 0.4
        m[1] = False
    else:                                     # additive (B, H, L, S) with -inf entries
        m = rng.standard_normal((2, 3, 6, 6)).astype(np.float32)
        m[rng.random(m.shape) > 0.7] = -np.inf
        m[0, 1, 2] = -np.inf
    return q, k, v, m


def _sdpa_loss(lib, causal=False):
    def f(q, k, v, m, g):
        y = lib.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=m, is_causal=causal)
        return (y * g).sum(), y
    return f


def _run_masked(lib, arrays, compiled=False, causal=False):
    q, k, v, m = arrays
    ts = [lib.tensor(a).requires_grad_() for a in (q, k, v)]
    mt = None if m is None else lib.tensor(m)
    g = lib.tensor(np.random.default_rng(9).standard_normal(q.shape).astype(np.float32))
    f = _sdpa_loss(lib, causal)
    c = Compiled(f) if compiled else None
    loss, y = (c or f)(*ts, mt, g)
    loss.backward()
    return c, y.detach().numpy(), [t.grad.numpy() for t in ts]


@pytest.mark.parametrize("kind", ["bool", "bool_bcast", "additive"])
def test_masked_attention_runs_in_c_and_equals_eager(kind):
    """scaled_dot_product_attention with an attn_mask takes the math path (matmul, masked softmax, matmul): its
    gemms and the safe softmax (a fully masked row gives zeros, as torch's _safe_softmax) run in the C entry.
    Within 1e-5 of eager (the generated softmax and sums round differently from eager's kernels)."""
    arrays = _masked_case(kind)
    c, y, grads = _run_masked(ember, arrays, compiled=True)
    _, y_ref, grads_ref = _run_masked(ember, arrays)
    assert len(c.modules) == 2
    for m in c.modules:
        assert _python_calls(m) == []
        assert len(m.entry_names) == 1
    assert np.isfinite(y).all() and all(np.isfinite(gr).all() for gr in grads)
    np.testing.assert_allclose(y, y_ref, rtol=1e-5, atol=1e-6)
    for a, b in zip(grads, grads_ref):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)
    row = y[0, 1, 2] if kind == "additive" else (y[1] if kind == "bool_bcast" else y[:, :, 2])
    assert (row == 0).all()                                  # the fully masked rows


@pytest.mark.parity
@pytest.mark.parametrize("kind", ["bool", "bool_bcast", "additive", "causal", "nan"])
def test_parity_masked_attention_with_torch(kind):
    """Compiled values and gradients against torch's (fully masked rows: zeros and no gradient; a NaN in q: NaN
    in its rows, as torch's math backend gives: torch's CPU flash kernel, its default here, gives that row zeros
    in the forward, as if fully masked, and NaN gradients)."""
    torch = pytest.importorskip("torch")
    from torch.nn.attention import SDPBackend, sdpa_kernel
    q, k, v, m = _masked_case("bool" if kind in ("causal", "nan") else kind)
    causal = kind == "causal"
    if kind in ("causal", "nan"):
        m = None
    if kind == "nan":
        q[1, 0, 3, 2] = np.nan
    c, y, grads = _run_masked(ember, (q, k, v, m), compiled=True, causal=causal)
    if kind == "nan":
        with sdpa_kernel(SDPBackend.MATH):
            _, y_t, grads_t = _run_masked(torch, (q, k, v, m), causal=causal)
    else:
        _, y_t, grads_t = _run_masked(torch, (q, k, v, m), causal=causal)
    assert all(_python_calls(mod) == [] for mod in c.modules)
    np.testing.assert_allclose(y, y_t, rtol=1e-5, atol=1e-6)           # (NaN where torch has NaN)
    for a, b in zip(grads, grads_t):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)
    if kind == "nan":
        assert np.isnan(y[1, 0, 3]).all() and not np.isnan(y[0]).any()


@pytest.mark.parity
def test_expanded_scalar_gradient_of_fused_attention():
    """attention(...).sum().backward(): the output gradient is a 0-stride expanded scalar, copied in C into a
    matrix BLAS reads (eager's matmul reads it through numpy) before the backward runs."""
    q, k, v, _ = _masked_case("bool", seed=3)

    def run(lib, compiled):
        ts = [lib.tensor(a).requires_grad_() for a in (q, k, v)]

        def f(q, k, v):
            return lib.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True).sum()
        c = Compiled(f) if compiled else None
        (c or f)(*ts).backward()
        return c, [t.grad.numpy() for t in ts]

    c, grads = run(ember, True)
    _, ref = run(ember, False)
    bwd = c.modules[1]
    assert _python_calls(bwd) == [] and "go_c = (float*)malloc(" in bwd.c_source
    assert "ember_attn_flash_bwd_f32(" in bwd.c_source
    for a, b in zip(grads, ref):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    torch = pytest.importorskip("torch")
    _, tgrads = run(torch, False)
    for a, b in zip(grads, tgrads):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)


def _gpt_attention_step(plain, threads, compiled):
    """benchmarks/train_step.py's attention at its size (16 x 64 tokens, 4 heads of 32): the output for one fixed
    gradient and the gradient of the fused qkv input, at `threads` threads (eager's and the generated code's)."""
    from ember._inductor import config
    rng = np.random.default_rng(7)
    qkv = rng.standard_normal((16, 64, 384)).astype(np.float32)
    g = rng.standard_normal((16, 64, 128)).astype(np.float32)
    mask = ember.tensor(np.triu(np.ones((64, 64), bool), 1))

    def f(qkv):
        q, k, v = qkv.split(128, dim=2)
        q, k, v = (t.view(16, 64, 4, 32).transpose(1, 2) for t in (q, k, v))
        if plain:
            a = (q @ k.transpose(-2, -1)) * (1.0 / 32 ** 0.5)
            y = F.softmax(a.masked_fill(mask, float("-inf")), dim=-1) @ v
        else:
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return y.transpose(1, 2).contiguous().view(16, 64, 128)
    prev = ember.get_num_threads()
    ember.set_num_threads(threads)
    try:
        with config.patch({"cpp.threads": threads}):
            x = ember.tensor(qkv, requires_grad=True)
            c = Compiled(f) if compiled else None
            out = (c or f)(x)
            out.backward(ember.tensor(g))
    finally:
        ember.set_num_threads(prev)
    return c, out.detach().numpy().copy(), x.grad.numpy().copy()


@pytest.mark.parametrize("plain", [False, True], ids=["sdpa", "plain"])
def test_gpt_attention_splits_pairs_over_the_pool_with_the_same_bits(plain):
    """At 2 threads the compiled attention shares its (batch, head) pairs (sdpa: attention_calls' task; plain
    softmax: the bmms' matrices, blas_calls.batch_split) out over ember's pool: the bits of 1 thread, and eager's
    at 1 and 2 threads (the same gemm per matrix, eager's softmax.c and attention row kernels, rowsum(dO * O) by
    the cblas dot np.vecdot calls)."""
    c1, y1, g1 = _gpt_attention_step(plain, 1, True)
    c2, y2, g2 = _gpt_attention_step(plain, 2, True)
    np.testing.assert_array_equal(y2, y1)
    np.testing.assert_array_equal(g2, g1)
    for threads in (1, 2):
        _, ye, ge = _gpt_attention_step(plain, threads, False)
        np.testing.assert_array_equal(y2, ye)
        np.testing.assert_array_equal(g2, ge)
    src1, src2 = c1.source(), c2.source()
    if plain:
        assert src2.count("64 matrices over the pool") == 6 and "matrices over the pool" not in src1
    else:
        assert src2.count("64 (batch, head) pairs over the pool") == 2 and "over the pool" not in src1
    for m in c2.modules:
        assert _python_calls(m) == [] and len(m.entry_names) == 1
