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
    # the grid or the channel-vector kernel, as eager's conv_direct picks
    assert fwd.c_source.count("ember_dconv_fwd_f32(") + fwd.c_source.count("ember_dconv_fwdc_f32(") == 2
    assert bwd.c_source.count("ember_dconv_wgrad_f32(") == 1         # 6 channels: the grid kernel
    assert bwd.c_source.count("ember_dconv_wgradc_f32(") == 1        # 16 channels: the channel-vector kernel
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


def _gemm_calls(src, sfx="f32"):
    """im2col runs the C calls (the preamble declares the function pointer once)."""
    return src.count(f"ember_im2col_batch_{sfx}(x + s") + src.count(f"ember_col2im_batch_{sfx}(cols")


def _exact(f, tensors, grad_of=None):
    """f compiled and eager on copies of `tensors`: equal losses (the generated sum adds its thousands of terms in
    its own order: within 1e-3 absolute) and bit-equal gradients (of the tensors at positions `grad_of`, all by default). Returns the
    Compiled."""
    grad_of = range(len(tensors)) if grad_of is None else grad_of
    a = [t.clone().requires_grad_(i in grad_of) for i, t in enumerate(tensors)]
    b = [t.clone().requires_grad_(i in grad_of) for i, t in enumerate(tensors)]
    c = Compiled(f)
    out = c(*a)
    ref = f(*b)
    np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), rtol=1e-6, atol=1e-3)
    out.backward()
    ref.backward()
    for i in grad_of:
        np.testing.assert_array_equal(a[i].grad.numpy(), b[i].grad.numpy())
    return c


def _linear_loss(conv, **kw):
    """(conv(x, w) * g).sum(): the convolution's output gradient is g itself, so its backward is compared alone."""
    def f(x, w, g):
        return (conv(x, w, **kw) * g).sum()
    return f


@pytest.mark.parametrize("case", ["stride2", "stride_groups_dilation", "conv1d", "conv3d", "channels", "float64"])
def test_im2col_convolution_runs_in_c_and_equals_eager(case):
    """Strided (a ResNet downsampling conv) and many-channel convolutions: eager's im2col + gemm path, from C, bit
    for bit (the same im2col.c, the same cblas gemms on the same operands, eager's image chunks)."""
    conv, kw, dt = F.conv2d, {}, np.float32
    if case == "float64":
        xs, ws, kw, dt = (3, 5, 9, 8), (7, 5, 2, 3), {"stride": 2, "padding": (1, 0)}, np.float64
    elif case == "stride2":
        xs, ws, kw = (2, 8, 12, 12), (16, 8, 3, 3), {"stride": 2, "padding": 1}
    elif case == "stride_groups_dilation":
        xs, ws, kw = (3, 4, 11, 10), (6, 2, 3, 2), {"stride": (2, 3), "padding": (1, 2), "dilation": (2, 1),
                                                    "groups": 2}
    elif case == "conv1d":
        conv, xs, ws, kw = F.conv1d, (3, 4, 20), (5, 4, 3), {"stride": 3}
    elif case == "conv3d":
        conv, xs, ws, kw = F.conv3d, (2, 2, 5, 6, 7), (3, 2, 2, 3, 2), {"stride": 2, "padding": 1}
    else:                                  # stride 1 beyond conv_direct's limits: eager's im2col too
        xs, ws, kw = (2, 80, 6, 6), (96, 80, 3, 3), {"padding": 1}
    x, w = _t(*xs, dtype=dt), _t(*ws, dtype=dt, seed=1)
    g = _t(*conv(x, w, **kw).shape, dtype=dt, seed=2)
    c = _exact(_linear_loss(conv, **kw), [x, w, g], grad_of=(0, 1))
    fwd, bwd = c.modules
    for m in c.modules:
        assert _python_calls(m) == []
        assert len(m.entry_names) == 1
    sfx = "f64" if dt is np.float64 else "f32"
    assert _gemm_calls(fwd.c_source, sfx) == 1 and f"ember_dconv_fwd_{sfx}(" not in fwd.c_source
    assert f"ember_col2im_batch_{sfx}(cols" in bwd.c_source    # both gradients: one im2col pass (eager's backward)


def test_forward_with_bias_and_float64_equals_eager():
    x, w, b = _t(3, 6, 9, 9, dtype=np.float64), _t(4, 6, 3, 3, dtype=np.float64, seed=1), _t(4, dtype=np.float64,
                                                                                              seed=2)

    def f(x, w, b):
        return F.conv2d(x, w, b, stride=2)

    c = Compiled(f)
    with ember.no_grad():
        got, ref = c(x, w, b), f(x, w, b)
    np.testing.assert_array_equal(got.numpy(), ref.numpy())
    assert _python_calls(c.modules[0]) == []
    assert _gemm_calls(c.source(), "f64") == 1


@pytest.mark.parametrize("which", ["input", "weight"])
def test_one_gradient_of_a_strided_convolution(which):
    x, w = _t(2, 3, 10, 10), _t(4, 3, 3, 3, seed=1)
    g = _t(2, 4, 4, 4, seed=2)
    c = _exact(_linear_loss(F.conv2d, stride=2), [x, w, g], grad_of=(0,) if which == "input" else (1,))
    bwd = c.modules[1]
    assert _python_calls(bwd) == []
    if which == "input":
        assert "ember_col2im_batch_f32(cols" in bwd.c_source and "ember_im2col_batch_f32(x + s" not in bwd.c_source
    else:
        assert "ember_im2col_batch_f32(x + s" in bwd.c_source and "ember_col2im_batch_f32(cols" not in bwd.c_source


def test_parts_over_threads_equal_eager():
    """Eager shares the images out over its pool and sums per-part weight gradients: the entry runs the same
    parts (on one BLAS thread each) and sums them in the same order."""
    x, w = _t(4, 64, 8, 8), _t(64, 64, 3, 3, seed=1)
    g = _t(4, 64, 4, 4, seed=2)
    with config.patch({"cpp.threads": 2}):
        c = _exact(_linear_loss(F.conv2d, stride=2, padding=1), [x, w, g], grad_of=(0, 1))
    src = c.source()
    assert "ember_parallel(ember_conv" in src
    assert "2 part(s)" in src


@pytest.mark.parametrize("stride", [1, 2])
def test_expanded_scalar_gradient(stride):
    """conv(x).sum().backward(): the output gradient is a 0-stride expanded scalar, copied in C (as eager's
    np.ascontiguousarray) before the convolution's backward runs."""
    x, w = _t(2, 3, 9, 9), _t(4, 3, 3, 3, seed=1)

    def f(x, w):
        return F.conv2d(x, w, stride=stride, padding=1).sum()

    c = _check(f, [x, w], 1e-5)
    bwd = c.modules[1]
    assert _python_calls(bwd) == []
    assert "go_c = (float*)malloc(" in bwd.c_source                      # the contiguous copy of the gradient
    a, b = x.clone().requires_grad_(), w.clone().requires_grad_()
    f(a, b).backward()
    c2, d = x.clone().requires_grad_(), w.clone().requires_grad_()
    c(c2, d).backward()
    np.testing.assert_array_equal(c2.grad.numpy(), a.grad.numpy())
    np.testing.assert_array_equal(d.grad.numpy(), b.grad.numpy())


def test_non_finite_values_propagate_as_in_eager():
    xs = np.random.default_rng(0).standard_normal((2, 3, 9, 9)).astype(np.float32)
    xs[0, 1, 4, 4] = np.inf
    xs[1, 0, 2, 6] = np.nan
    x, w, g = ember.tensor(xs), _t(4, 3, 3, 3, seed=1), _t(2, 4, 4, 4, seed=2)
    c = _exact(_linear_loss(F.conv2d, stride=2), [x, w, g], grad_of=(1,))    # (NaN where eager has NaN)
    assert all(_python_calls(m) == [] for m in c.modules)
    b = w.clone().requires_grad_()
    _linear_loss(F.conv2d, stride=2)(x, b, g).backward()
    assert np.isnan(b.grad.numpy()).any() and np.isfinite(b.grad.numpy()).any()


def test_transposed_convolution_stays_a_python_call():
    x, w = _t(2, 3, 5, 5), _t(3, 4, 3, 3, seed=1)

    def f(x, w):
        return F.conv_transpose2d(x, w, stride=2).sum()

    c = _check(f, [x, w], 1e-5)
    assert any("aten.convolution.default" in ln for m in c.modules for ln in _python_calls(m))


@pytest.mark.parity
@pytest.mark.parametrize("case", ["stride2_bias", "channels", "sum"])
def test_parity_with_torch(case):
    """Compiled forward and gradients against torch's (float32: within 1e-4 relative, OpenBLAS and oneDNN/MKL
    sum in different orders)."""
    torch = pytest.importorskip("torch")
    if case == "channels":
        xs, ws, kw = (2, 80, 6, 6), (96, 80, 3, 3), {"padding": 1}
    else:
        xs, ws, kw = (3, 8, 13, 11), (16, 8, 3, 3), {"stride": 2, "padding": 1}
    arrays = [np.random.default_rng(i).standard_normal(s).astype(np.float32)
              for i, s in enumerate((xs, ws, ws[:1]))]

    def f(lib):
        def loss(x, w, b):
            y = lib.nn.functional.conv2d(x, w, b, **kw)
            return y.sum() if case == "sum" else (y.tanh() * y).sum()
        return loss

    e = [ember.tensor(a).requires_grad_() for a in arrays]
    t = [torch.tensor(a).requires_grad_() for a in arrays]
    c = Compiled(f(ember))
    out = c(*e)
    out.backward()
    ref = f(torch)(*t)
    ref.backward()
    assert all(_python_calls(m) == [] for m in c.modules)
    np.testing.assert_allclose(out.item(), ref.item(), rtol=1e-4)
    for a, b in zip(e, t):
        scale = np.abs(b.grad.numpy()).max()
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-4, atol=1e-5 * scale)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("cout", [6, 16])
def test_direct_weight_gradient_chunks_equal_eager(threads, cout):
    """A batch of 20 in eager's weight-gradient chunks (conv_direct.wgrad_grain: 3 images, 7 partial sums added
    in order) by eager's kernel (6 channels: the grid kernel; 16: the channel-vector kernel), bit for bit at any
    thread count."""
    from ember.kernels.cpu import conv_direct
    x, w, g = _t(20, 6, 12, 12), _t(cout, 6, 5, 5, seed=1), _t(20, cout, 8, 8, seed=2)
    assert conv_direct.wgrad_grain(20) == 3
    prev = ember.get_num_threads()
    ember.set_num_threads(threads)
    try:
        with config.patch({"cpp.threads": threads}):
            c = _exact(_linear_loss(F.conv2d), [x, w, g], grad_of=(1,))
    finally:
        ember.set_num_threads(prev)
    src = c.source()
    assert ("ember_dconv_wgradc_f32(" in src) == (cout == 16)
    assert "7 part(s)" in src


@pytest.mark.parametrize("threads", [1, 2])
def test_im2col_weight_gradient_ranges_equal_eager(threads):
    """A strided convolution's weight gradient in eager's fixed ranges of images (conv_im2col.wgrad_bounds: 7
    images in chunks of 3, 3 partial sums added in order), bit for bit at any thread count."""
    x, w, g = _t(7, 4, 99, 99), _t(6, 4, 3, 3, seed=1), _t(7, 6, 49, 49, seed=2)
    prev = ember.get_num_threads()
    ember.set_num_threads(threads)
    try:
        with config.patch({"cpp.threads": threads}):
            c = _exact(_linear_loss(F.conv2d, stride=2), [x, w, g], grad_of=(1,))
    finally:
        ember.set_num_threads(prev)
    assert "3 part(s)" in c.source()


def _lenet(seed):
    ember.manual_seed(seed)
    nn = ember.nn
    return nn.Sequential(nn.Conv2d(1, 6, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Conv2d(6, 16, 5), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Flatten(), nn.Linear(400, 120), nn.ReLU(), nn.Linear(120, 84), nn.ReLU(),
                         nn.Linear(84, 10))


@pytest.mark.parametrize("threads", [1, 2])
def test_lenet_step_has_eagers_bits(threads):
    """benchmarks/train_step.py's CNN (batch 64), compiled and eager, from the same weights: the logits and every
    parameter's gradient (backward from one fixed gradient of the logits) bit for bit, at 1 and 2 threads, twice
    (SGD steps in between). The compiled graphs call eager's kernels (dconv.c's, pool.c's, the gemms as eager
    splits them) and sum the bias gradients in numpy's order; the loss is left out: cross_entropy's eager C
    kernels (softmax.c, nll.c) and the generated code round differently."""
    rng = np.random.default_rng(0)
    x = ember.tensor(rng.standard_normal((64, 1, 28, 28)).astype(np.float32))
    g = ember.tensor(rng.standard_normal((64, 10)).astype(np.float32))
    prev = ember.get_num_threads()
    ember.set_num_threads(threads)
    try:
        with config.patch({"cpp.threads": threads}):
            sides = []
            for compiled in (False, True):
                model = _lenet(0)
                opt = ember.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
                c = Compiled(model) if compiled else None
                steps = []
                for _ in range(2):
                    opt.zero_grad(set_to_none=True)
                    out = (c or model)(x)
                    out.backward(g)
                    steps.append([out.detach().numpy().copy()] + [p.grad.numpy().copy() for p in model.parameters()])
                    opt.step()
                sides.append(steps)
    finally:
        ember.set_num_threads(prev)
    for e_step, c_step in zip(*sides):
        for a, b in zip(e_step, c_step):
            np.testing.assert_array_equal(b, a)
    for m in c.modules:
        assert _python_calls(m) == []
        assert len(m.entry_names) == 1
    fwd, bwd = c.modules
    assert fwd.pool and bwd.pool
    # eager's kernels (conv_direct's choice): conv1 (6 channels) by the grid kernel, conv2 (16) by the
    # channel-vector one; conv2's input gradient by the grid kernel
    assert fwd.c_source.count("ember_dconv_fwd_f32(") == 1 and fwd.c_source.count("ember_dconv_fwdc_f32(") == 1
    assert bwd.c_source.count("ember_dconv_fwd_f32(") == 1


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("chan", [True, False])
@pytest.mark.parametrize("case", ["pad_groups", "conv1d"])
def test_forward_kernel_follows_eagers_choice(case, chan, dtype, monkeypatch):
    """The forward and input-gradient convolutions take the kernel eager's conv_direct takes (forced here by
    conv_direct.CHANNEL_VECTORS): the channel-vector dconv_fwdc or the grid dconv_fwd, with eager's values and
    gradients bit for bit (bias included)."""
    from ember.kernels.cpu import conv_direct
    monkeypatch.setattr(conv_direct, "CHANNEL_VECTORS", chan)
    if case == "pad_groups":
        xs, ws, kw, conv = (3, 4, 9, 10), (6, 2, 3, 3), {"padding": 1, "groups": 2}, F.conv2d
        gs = (3, 6, 9, 10)
    else:
        xs, ws, kw, conv = (2, 3, 17), (5, 3, 4), {"padding": 2}, F.conv1d
        gs = (2, 5, 18)
    x, w, b, g = _t(*xs, dtype=dtype), _t(*ws, seed=1, dtype=dtype), _t(ws[0], seed=3, dtype=dtype), \
        _t(*gs, seed=2, dtype=dtype)
    f = lambda x, w, b: (conv(x, w, b, **kw) * g).sum()        # noqa: E731
    c = _exact(f, [x, w, b])
    sfx = "f32" if dtype is np.float32 else "f64"
    src = c.source()
    assert (f"ember_dconv_fwdc_{sfx}(" in src) == chan
    assert (f"ember_dconv_fwd_{sfx}(" in src) == (not chan)
