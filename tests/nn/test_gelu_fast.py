"""GELU's single-precision path (kernels/cpu/activation_gelu.py) and the fused gelu_backward op."""
import numpy as np
import pytest

import ember
from ember.autograd import gradcheck, gradgradcheck
from ember.kernels.cpu import activation_gelu
from ember.kernels.cpu.elementwise_special import erf as erf64

F = ember.nn.functional


def _phi64(x):
    return 0.5 * (1.0 + erf64(np.asarray(x, dtype=np.float64) / np.sqrt(2.0)))


def _phi64_lower(x):
    """Phi(x) for x <= 0 without cancellation: erfc(|x|/sqrt2)/2 via ember's float64 erfc."""
    from ember.kernels.cpu.elementwise_special import erfc
    return 0.5 * erfc(np.abs(np.asarray(x, dtype=np.float64)) / np.sqrt(2.0))


def test_cdf_relative_accuracy_float32():
    x = np.concatenate([np.linspace(-9, 9, 20001), np.random.default_rng(0).standard_normal(20000) * 3])
    x = x.astype(np.float32)
    cdf, gauss = activation_gelu.cdf_and_gauss(x)
    assert cdf.dtype == np.float32 and gauss.dtype == np.float32
    ref = np.where(x <= 0, _phi64_lower(x), _phi64(x))
    rel = np.abs(cdf.astype(np.float64) - ref) / ref
    core = np.abs(x) < 5
    assert rel[core].max() < 4e-6           # a few float32 ulps; x*x's rounding dominates
    assert rel.max() < 5e-5                 # and no cancellation in the lower tail (1 + erf would lose it all)
    np.testing.assert_allclose(gauss, np.exp(-0.5 * x.astype(np.float64) ** 2), rtol=5e-6, atol=1e-30)


def test_cdf_special_values():
    x = np.array([-np.inf, np.inf, np.nan, 0.0, -0.0], dtype=np.float32)
    cdf, _ = activation_gelu.cdf_and_gauss(x)
    assert cdf[0] == 0 and cdf[1] == 1 and np.isnan(cdf[2]) and cdf[3] == 0.5 and cdf[4] == 0.5


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_backward_gradcheck(approximate):
    rng = np.random.default_rng(1)
    g = ember.tensor(rng.standard_normal((3, 4)), requires_grad=True)
    x = ember.tensor(rng.standard_normal((3, 4)) * 2, requires_grad=True)

    def fn(a, b):
        return ember.ops.aten.gelu_backward.default(a, b, approximate=approximate)
    assert gradcheck(fn, (g, x))
    assert gradgradcheck(fn, (g, x))
    assert gradgradcheck(lambda t: F.gelu(t, approximate=approximate), (x,))


def test_gelu_backward_meta_and_errors():
    m = ember.ops.aten.gelu_backward.default(ember.empty(2, 3, device="meta"), ember.empty(3, device="meta"))
    assert m.shape == (2, 3) and m.dtype == ember.float32 and m.device.type == "meta"
    with pytest.raises(RuntimeError, match="approximate"):
        ember.ops.aten.gelu_backward.default(ember.ones(3), ember.ones(3), approximate="erf")
    with pytest.raises(NotImplementedError, match="Long"):
        ember.ops.aten.gelu_backward.default(ember.ones(3, dtype=ember.int64), ember.ones(3, dtype=ember.int64))


@pytest.mark.parity
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_forward_backward_match_torch(dtype, approximate):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(2)
    xn, gn = rng.standard_normal(4000) * 3, rng.standard_normal(4000)
    ex = ember.tensor(xn).to(getattr(ember, dtype)).requires_grad_()
    tx = torch.tensor(xn).to(getattr(torch, dtype)).requires_grad_()
    ey, ty = F.gelu(ex, approximate=approximate), torch.nn.functional.gelu(tx, approximate=approximate)
    ey.backward(ember.tensor(gn).to(ex.dtype))
    ty.backward(torch.tensor(gn).to(tx.dtype))
    assert ey.dtype == ex.grad.dtype == getattr(ember, dtype)
    tol = {"float32": 2e-6, "float64": 1e-12, "float16": 2e-3, "bfloat16": 2e-2}[dtype]
    for e, t in ((ey, ty), (ex.grad, tx.grad)):
        np.testing.assert_allclose(e.detach().float().numpy(), t.detach().float().numpy(), rtol=tol, atol=tol)


@pytest.mark.parity
def test_gelu_backward_forward_ad_matches_torch():
    torch = pytest.importorskip("torch")
    import ember.autograd.forward_ad as fwAD
    rng = np.random.default_rng(3)
    g, x, xt = (rng.standard_normal(6) for _ in range(3))
    with fwAD.dual_level():
        d = fwAD.make_dual(ember.tensor(x), ember.tensor(xt))
        tan = fwAD.unpack_dual(ember.ops.aten.gelu_backward.default(ember.tensor(g), d)).tangent
    ref = torch.func.jvp(lambda a: torch.ops.aten.gelu_backward(torch.tensor(g), a), (torch.tensor(x),),
                         (torch.tensor(xt),))[1]
    np.testing.assert_allclose(tan.numpy(), ref.numpy(), rtol=1e-10, atol=1e-12)


def test_chunked_matches_whole_array():
    """gelu / gelu_grad work in L2-sized chunks; the chunk seams must not change any value."""
    rng = np.random.default_rng(4)
    x = (rng.standard_normal((3, activation_gelu._BLOCK + 7)) * 3).astype(np.float32)
    g = rng.standard_normal(x.shape[-1]).astype(np.float32)          # broadcast against x
    cdf, gauss = activation_gelu.cdf_and_gauss(x)
    np.testing.assert_array_equal(activation_gelu.gelu(x), cdf * x)
    ref = (cdf + gauss * activation_gelu._INV_SQRT_2PI * x) * g
    np.testing.assert_allclose(activation_gelu.gelu_grad(g, x), ref, rtol=1e-6, atol=1e-7)
    assert activation_gelu.gelu(x.T).shape == x.T.shape                   # non-contiguous input
    np.testing.assert_array_equal(activation_gelu.gelu(x.T), (cdf * x).T)
