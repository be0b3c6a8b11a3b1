"""max_pool2d (values and indices) and avg_pool2d lowered to windowed reductions in generated C: equal to eager
for strides, padding, dilation, ceil_mode, count_include_pad, divisor_override, NaN; gradients through the
(extern) backward kernels equal eager's."""
import numpy as np
import pytest

import ember
import ember.nn.functional as F
from ember.testing import assert_close

from ._compiled import Compiled, fresh_caches

_fresh = pytest.fixture(autouse=True)(fresh_caches)

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
def test_max_pool2d_values_indices_and_gradient(kw):
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


def test_max_pool2d_nan_and_unbatched_input():
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


def test_pooling_fuses_with_its_neighbours():
    x = ember.randn(2, 4, 8, 8)
    c = Compiled(lambda t: F.max_pool2d((t * 2).relu(), 2) + F.avg_pool2d(t, 2))
    assert_close(c(x), F.max_pool2d((x * 2).relu(), 2) + F.avg_pool2d(x, 2))
    assert c.kernels() == [1]
