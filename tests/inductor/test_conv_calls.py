"""The generated C entry calls ember's direct convolution for convolution and convolution_backward externs
(ember/_inductor/codegen/conv_calls.py): a CNN's compiled forward and backward have no Python between kernels,
and give eager's values and gradients."""
import numpy as np
import pytest

import ember
import ember.nn.functional as F
from ember._inductor import config
from ember.kernels.cpu.runtime import clib

from ._compiled import Compiled, fresh_caches

pytestmark = pytest.mark.skipif(not clib.enabled(), reason="ember's C kernels are not available")


@pytest.fixture(autouse=True)
def _fresh():
    yield from fresh_caches()


def _t(*shape, dtype=np.float32, seed=0):
    return ember.tensor(np.random.default_rng(seed).standard_normal(shape).astype(dtype))


def _python_calls(module):
    """Extern ops the wrapper still calls from Python."""
    return [ln for ln in module.py_source.splitlines() if "_op_" in ln and "# aten." in ln]


def _check(f, tensors, tol):
    """Run f compiled and eager on copies of `tensors` (all requiring grad): equal outputs and gradients.
    Returns the Compiled."""
    a = [t.clone().requires_grad_() for t in tensors]
    b = [t.clone().requires_grad_() for t in tensors]
    c = Compiled(f)
    out = c(*a)
    out.backward()
    ref = f(*b)
    ref.backward()
    np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), rtol=tol, atol=tol)
    for x, y in zip(a, b):
        np.testing.assert_allclose(x.grad.numpy(), y.grad.numpy(), rtol=tol, atol=tol)
    return c


def test_cnn_forward_and_backward_have_no_python_convolution():
    x, w1, b1 = _t(4, 1, 12, 12), _t(6, 1, 5, 5, seed=1), _t(6, seed=2)
    w2, b2 = _t(16, 6, 3, 3, seed=3), _t(16, seed=4)

    def f(x, w1, b1, w2, b2):
        h = F.max_pool2d(F.relu(F.conv2d(x, w1, b1, padding=2)), 2)
        return (F.conv2d(h, w2, b2).tanh() ** 2).sum()

    c = _check(f, [x, w1, b1, w2, b2], 1e-5)
    assert len(c.modules) == 2                        # forward and backward graphs
    for m in c.modules:
        assert _python_calls(m) == []
        assert len(m.entry_names) == 1                # every kernel, matmul and convolution: one ctypes call
        assert m.dconv
    fwd, bwd = c.modules
    assert fwd.c_source.count("ember_dconv_fwd_f32(") == 2
    assert bwd.c_source.count("ember_dconv_wgrad_f32(") == 2
    assert bwd.c_source.count("ember_dconv_fwd_f32(") == 2          # input gradients of both layers


@pytest.mark.parametrize("case", ["groups", "dilation", "conv1d", "conv3d"])
def test_float64_variants_equal_eager(case):
    if case == "groups":
        shapes, kw = ((2, 4, 9, 9), (6, 2, 3, 3), (6,)), {"groups": 2, "padding": 1}
        conv = F.conv2d
    elif case == "dilation":
        shapes, kw = ((2, 3, 11, 10), (4, 3, 3, 2), (4,)), {"dilation": 2, "padding": (2, 1)}
        conv = F.conv2d
    elif case == "conv1d":
        shapes, kw = ((3, 2, 20), (5, 2, 4), (5,)), {"padding": 3}
        conv = F.conv1d
    else:
        shapes, kw = ((2, 2, 5, 6, 7), (3, 2, 2, 3, 2), (3,)), {"padding": 1}
        conv = F.conv3d
    ts = [_t(*s, dtype=np.float64, seed=i) for i, s in enumerate(shapes)]

    def f(x, w, b):
        return (conv(x, w, b, **kw) * 1.5).sin().sum()

    c = _check(f, ts, 1e-12)
    assert all(_python_calls(m) == [] for m in c.modules)
    assert "ember_dconv_wgrad_f64(" in c.source()


def test_split_over_threads_equals_eager():
    x, w = _t(8, 3, 32, 32), _t(8, 3, 5, 5, seed=1)

    def f(x, w):
        return F.conv2d(x, w, padding=2).relu().sum()

    with config.patch({"cpp.threads": 2}):
        c = _check(f, [x, w], 1e-4)
    src = c.source()
    assert "ember_parallel(ember_conv" in src
    assert all(_python_calls(m) == [] for m in c.modules)


def test_non_finite_input_weight_gradient_equals_eager():
    xs = np.random.default_rng(0).standard_normal((2, 2, 7, 7)).astype(np.float32)
    xs[0, 1, 3, 3] = np.inf
    xs[1, 0, 0, 5] = np.nan
    x, w, g = ember.tensor(xs), _t(3, 2, 3, 3, seed=1), _t(2, 3, 7, 7, seed=2)

    def f(x, w, g):
        return (F.conv2d(x, w, padding=1) * g).sum()      # a contiguous output gradient

    a, b = w.clone().requires_grad_(), w.clone().requires_grad_()
    c = Compiled(f)
    c(x, a, g).backward()
    f(x, b, g).backward()
    assert np.isnan(b.grad.numpy()).any()
    assert "ember_dconv_wgrad_f32(" in c.source()
    np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-5, atol=1e-5)   # NaN where eager has NaN


def test_strided_convolution_stays_a_python_call():
    x, w = _t(2, 3, 9, 9), _t(4, 3, 3, 3, seed=1)

    def f(x, w):
        return F.conv2d(x, w, stride=2).sum()

    c = _check(f, [x, w], 1e-5)
    assert any("aten.convolution.default" in ln for m in c.modules for ln in _python_calls(m))
    assert "ember_dconv" not in c.source()
