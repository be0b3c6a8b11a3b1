"""max_pool2d (values and indices) and avg_pool2d lowered to windowed reductions in generated C: equal to eager
for strides, padding, dilation, ceil_mode, count_include_pad, divisor_override, NaN; gradients through the
(extern) backward kernels equal eager's. Where eager has its C max pool (float32/float64), the max pool and its
backward are instead calls to that kernel from the C entry (codegen/pool_calls.py): eager's bits, no Python."""
import numpy as np
import pytest

import ember
import ember.nn.functional as F
from ember._inductor import lowering
from ember.kernels.cpu.runtime import clib
from ember.testing import assert_close

from ._compiled import Compiled, fresh_caches

_fresh = pytest.fixture(autouse=True)(fresh_caches)


@pytest.fixture(params=[False, True], ids=["lowered", "pool_c"])
def pool_in_c(request, monkeypatch):
    """Both ways of compiling a max pool: generated loops (the lowering) and the call to eager's pool.c."""
    if request.param and not clib.enabled():
        pytest.skip("ember's C kernels are not available")
    monkeypatch.setattr(lowering, "MAX_POOL_IN_C", request.param)
    return request.param


@pytest.fixture
def lowered_pool(monkeypatch):
    monkeypatch.setattr(lowering, "MAX_POOL_IN_C", False)

MAX_CASES = [dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1),
             dict(kernel_size=(3, 2), stride=(2, 1), padding=(1, 0), dilation=(2, 1)),
             dict(kernel_size=3, stride=2, ceil_mode=True), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True)]
AVG_CASES = [dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1), dict(kernel_size=3, stride=2, ceil_mode=True),
             dict(kernel_size=(3, 2), stride=(2, 1), padding=(1, 0)), dict(kernel_size=3, stride=2, padding=1,
                                                                            divisor_override=5)]


def _lowered(c, op):
    graphs = [call._ember_graph for call in c.calls if hasattr(call, "_ember_graph")]
    assert graphs, "nothing was lowered"
    return all(op not in g.fallbacks for g in graphs)


@pytest.mark.parametrize("kw", MAX_CASES, ids=str)
def test_max_pool2d_values_indices_and_gradient(kw, pool_in_c):
    x = ember.randn(2, 3, 9, 8, requires_grad=True)
    f = lambda t: F.max_pool2d(t, return_indices=True, **kw)      # noqa: E731
    c = Compiled(f)
    got, want = c(x), f(x)
    assert _lowered(c, "aten.max_pool2d_with_indices.default")
    assert_close(got[0], want[0])
    np.testing.assert_array_equal(got[1].numpy(), want[1].numpy())
    got[0].sum().backward()
    g = x.grad.clone()
    x.grad = None
    want[0].sum().backward()
    assert_close(g, x.grad)


def test_max_pool2d_nan_and_unbatched_input(pool_in_c):
    x = ember.randn(3, 6, 6)
    x[0, 1, 1] = float("nan")
    x[1, 2, 3] = float("-inf")
    f = lambda t: F.max_pool2d(t, 2, return_indices=True)        # noqa: E731
    got, want = Compiled(f)(x), f(x)
    assert_close(got[0], want[0], equal_nan=True)
    np.testing.assert_array_equal(got[1].numpy(), want[1].numpy())


@pytest.mark.parametrize("count_include_pad", [True, False])
@pytest.mark.parametrize("kw", AVG_CASES, ids=str)
def test_avg_pool2d(kw, count_include_pad):
    x = ember.randn(2, 3, 9, 8, requires_grad=True)
    f = lambda t: F.avg_pool2d(t, count_include_pad=count_include_pad, **kw)      # noqa: E731
    c = Compiled(f)
    got = c(x)
    assert _lowered(c, "aten.avg_pool2d.default")
    assert_close(got, f(x))
    got.sum().backward()
    g = x.grad.clone()
    x.grad = None
    f(x).sum().backward()
    assert_close(g, x.grad)


def test_pooling_fuses_with_its_neighbours(lowered_pool):
    x = ember.randn(2, 4, 8, 8)
    c = Compiled(lambda t: F.max_pool2d((t * 2).relu(), 2) + F.avg_pool2d(t, 2))
    assert_close(c(x), F.max_pool2d((x * 2).relu(), 2) + F.avg_pool2d(x, 2))
    assert c.kernels() == [1]


def test_max_pool2d_ties_and_several_nans_follow_eager(pool_in_c):
    """Eager's rule (and torch's cpu kernel): a later element replaces the maximum when greater or NaN, so a tie
    keeps the first element (-0.0 before 0.0) and the last NaN of a window wins."""
    x = ember.zeros(1, 2, 4, 4)
    x[0, 0, 0, 0] = float("nan")
    x[0, 0, 1, 1] = float("nan")
    x[0, 0, 0, 2] = -0.0
    x[0, 1] = ember.ones(4, 4)
    x[0, 1, 2, 3] = float("nan")
    f = lambda t: F.max_pool2d(t.relu(), 2, return_indices=True)        # noqa: E731
    got, want = Compiled(f)(x), f(x)
    np.testing.assert_array_equal(got[1].numpy(), want[1].numpy())
    np.testing.assert_array_equal(np.signbit(got[0].numpy()), np.signbit(want[0].numpy()))
    assert_close(got[0], want[0], equal_nan=True)


def test_relu_max_pool_column_loop_is_vectorised_by_gcc(lowered_pool):
    """The fused relu + 2x2 max pool (LeNet's): isnan of a relu reads the relu's input, so gcc vectorises the
    column loop (a select of masks of two widths stopped it: branchy scalar code, 15x slower on real data)."""
    import os
    import re
    import shutil
    import subprocess
    c = Compiled(lambda t: F.max_pool2d(t.relu(), 2, return_indices=True))
    c(ember.randn(4, 6, 28, 28))
    src = c.source()
    assert "!= tmp" in src                         # the NaN test is there, on the loaded value
    gcc = shutil.which(os.environ.get("CC", "gcc"))
    if gcc is None:
        pytest.skip("no C compiler")
    from ember._cc.build import FLAGS
    flags = [f for f in FLAGS if f not in ("-shared", "-fPIC")]
    r = subprocess.run([gcc, *flags, "-fopt-info-vec-optimized", "-x", "c", "-", "-c", "-o", os.devnull],
                       input=src, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    lines = src.splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.startswith("static void kernel0")) + 1
    end = next(i for i, ln in enumerate(lines) if i > start and ln.startswith("int64_t entry"))
    vec = [int(m.group(1)) for m in re.finditer(r"<stdin>:(\d+):\d+: optimized: loop vectorized", r.stderr)]
    assert any(start < ln <= end for ln in vec), r.stderr


@pytest.mark.skipif(not clib.enabled(), reason="ember's C kernels are not available")
@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("dtype", [ember.float32, ember.float64])
@pytest.mark.parametrize("kw", MAX_CASES, ids=str)
def test_max_pool_calls_eagers_kernel_from_c(kw, dtype, threads):
    """relu -> max pool -> (a strided view of the gradient): the pool and its backward are pool.c calls from the
    C entry, with no Python call between kernels, and give eager's values, indices and gradient bit for bit."""
    from ember._inductor import config
    x = ember.randn(8, 4, 40, 33, dtype=dtype)          # 42240 elements: split over 2 threads (pool_planes)
    g = ember.randn(8, 4, 40, 40, dtype=dtype)
    f = lambda t: F.max_pool2d(t.relu(), return_indices=True, **kw)      # noqa: E731
    old = ember.get_num_threads()
    ember.set_num_threads(threads)
    try:
        a, b = x.clone().requires_grad_(), x.clone().requires_grad_()
        with config.patch({"cpp.threads": threads}):
            c = Compiled(f)
            got = c(a)
            gslice = g[..., :got[0].shape[-2], :got[0].shape[-1]]
            (got[0] * gslice).sum().backward()
        want = f(b)
        (want[0] * gslice).sum().backward()
    finally:
        ember.set_num_threads(old)
    np.testing.assert_array_equal(got[0].detach().numpy(), want[0].detach().numpy())
    np.testing.assert_array_equal(got[1].numpy(), want[1].numpy())
    np.testing.assert_array_equal(a.grad.numpy(), b.grad.numpy())
    assert len(c.modules) == 2
    for m in c.modules:
        assert m.pool
        assert [ln for ln in m.py_source.splitlines() if "_op_" in ln] == []
    fwd, bwd = c.modules
    sfx = "f32" if dtype is ember.float32 else "f64"
    assert f"ember_max_pool2d_{sfx}(" in fwd.c_source
    assert f"ember_max_pool2d_backward_{sfx}(" in bwd.c_source


@pytest.mark.skipif(not clib.enabled(), reason="ember's C kernels are not available")
def test_max_pool_of_a_strided_input_and_integers():
    """A pool of a transposed view reads a contiguous copy made in C; integers keep their Python call (eager's
    numpy path)."""
    x = ember.randn(2, 3, 10, 12)
    f = lambda t: F.max_pool2d(t.transpose(2, 3), 3, 2, 1, return_indices=True)     # noqa: E731
    got, want = Compiled(f)(x), f(x)
    np.testing.assert_array_equal(got[0].numpy(), want[0].numpy())
    np.testing.assert_array_equal(got[1].numpy(), want[1].numpy())
    xi = ember.randint(-50, 50, (2, 3, 8, 8))
    fi = lambda t: F.max_pool2d(t, 2, return_indices=True)       # noqa: E731
    got, want = Compiled(fi)(xi), fi(xi)
    np.testing.assert_array_equal(got[0].numpy(), want[0].numpy())
    np.testing.assert_array_equal(got[1].numpy(), want[1].numpy())
