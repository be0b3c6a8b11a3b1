import numpy as np
import pytest

import ember
from _nn_util import DTYPES, arr, close, meta_matches, pair

MAX2D = [
    ((2, 3, 8, 7), dict(kernel_size=2)),
    ((2, 3, 8, 7), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True)),
    ((3, 9, 9), dict(kernel_size=(3, 2), stride=(2, 1), padding=(1, 0), dilation=(2, 1))),
    ((1, 2, 5, 5), dict(kernel_size=2, stride=2, ceil_mode=True)),
    ((1, 1, 6, 6), dict(kernel_size=3, stride=2, padding=1, dilation=1, ceil_mode=False)),
]


@pytest.mark.parity
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,kw", MAX2D)
def test_max_pool2d(dtype, shape, kw):
    torch = pytest.importorskip("torch")
    x, tx = pair(torch, arr(*shape, dtype=dtype))
    ev, ei = ember._nn.max_pool2d_with_indices(x, **kw)
    tv, ti = torch.nn.functional.max_pool2d(tx, return_indices=True, **kw)
    close(ev, tv)
    close(ei, ti)
    close(ember.max_pool2d(x, **kw), torch.nn.functional.max_pool2d(tx, **kw))
    meta_matches(ember._nn.max_pool2d_with_indices, x, **kw)


@pytest.mark.parity
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,kw", [((2, 3, 9), dict(kernel_size=2)), ((3, 10), dict(kernel_size=3, stride=2, padding=1,
                                                                                     dilation=2, ceil_mode=True))])
def test_max_pool1d(dtype, shape, kw):
    torch = pytest.importorskip("torch")
    x, tx = pair(torch, arr(*shape, dtype=dtype))
    close(ember.max_pool1d(x, **kw), torch.nn.functional.max_pool1d(tx, **kw))
    for e, t in zip(ember.max_pool1d_with_indices(x, **kw), torch.nn.functional.max_pool1d(tx, return_indices=True, **kw)):
        close(e, t)


def test_max_pool_int_and_nan():
    torch = pytest.importorskip("torch")
    x, tx = pair(torch, np.arange(32, dtype=np.int64).reshape(1, 2, 4, 4))
    close(ember.max_pool2d(x, 2), torch.nn.functional.max_pool2d(tx, 2))
    a = arr(1, 1, 4, 4)
    a[0, 0, 1, 1] = np.nan
    x, tx = pair(torch, a)
    close(ember.max_pool2d(x, 2), torch.nn.functional.max_pool2d(tx, 2))


AVG2D = [
    ((2, 3, 8, 7), dict(kernel_size=2)),
    ((2, 3, 8, 7), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True)),
    ((2, 3, 8, 7), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True, count_include_pad=False)),
    ((3, 9, 9), dict(kernel_size=(3, 2), stride=(2, 1), padding=(1, 0), divisor_override=4)),
    ((1, 2, 5, 5), dict(kernel_size=2, stride=2, ceil_mode=True, count_include_pad=False)),
]


@pytest.mark.parity
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,kw", AVG2D)
def test_avg_pool2d(dtype, shape, kw):
    torch = pytest.importorskip("torch")
    x, tx = pair(torch, arr(*shape, dtype=dtype))
    close(ember._nn.avg_pool2d(x, **kw), torch.nn.functional.avg_pool2d(tx, **kw))
    meta_matches(ember._nn.avg_pool2d, x, **kw)


@pytest.mark.parity
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kw", [dict(kernel_size=3), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True,
                                                         count_include_pad=False)])
def test_avg_pool1d(dtype, kw):
    torch = pytest.importorskip("torch")
    x, tx = pair(torch, arr(2, 3, 10, dtype=dtype))
    close(ember.avg_pool1d(x, **kw), torch.nn.functional.avg_pool1d(tx, **kw))


@pytest.mark.parity
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,o", [((2, 3, 7, 9), (3, 4)), ((3, 5, 5), (5, 5)), ((1, 2, 6, 4), (4, 6)),
                                     ((1, 2, 5, 5), (1, 1))])
def test_adaptive_pool2d(dtype, shape, o):
    torch = pytest.importorskip("torch")
    x, tx = pair(torch, arr(*shape, dtype=dtype))
    close(ember._nn.adaptive_avg_pool2d(x, o), torch.nn.functional.adaptive_avg_pool2d(tx, o))
    for e, t in zip(ember._nn.adaptive_max_pool2d(x, o), torch.nn.functional.adaptive_max_pool2d(tx, o, True)):
        close(e, t)
    meta_matches(ember._nn.adaptive_max_pool2d, x, o)
    meta_matches(ember._nn.adaptive_avg_pool2d, x, o)


@pytest.mark.parity
@pytest.mark.parametrize("o", [1, 3, 7])
def test_adaptive_pool1d(o):
    torch = pytest.importorskip("torch")
    x, tx = pair(torch, arr(2, 3, 7))
    close(ember.adaptive_avg_pool1d(x, o), torch.nn.functional.adaptive_avg_pool1d(tx, o))
    for e, t in zip(ember.adaptive_max_pool1d(x, o), torch.nn.functional.adaptive_max_pool1d(tx, o, True)):
        close(e, t)


@pytest.mark.parity
@pytest.mark.parametrize("call", [
    lambda m, x: m.max_pool2d(x, 3, padding=2),
    lambda m, x: m.avg_pool2d(x, 3, padding=2),
    lambda m, x: m.max_pool2d(x[0, 0], 3),
    lambda m, x: m.max_pool2d(x[0, :, :2, :2], 3),
    lambda m, x: m.max_pool2d(x, 3, stride=0),
    lambda m, x: m.adaptive_avg_pool2d(x[0, 0, 0], 3),
])
def test_pool_errors(call):
    torch = pytest.importorskip("torch")
    x, tx = pair(torch, arr(1, 3, 5, 5))
    with pytest.raises(Exception) as te:
        call(torch.nn.functional, tx)
    with pytest.raises(type(te.value)) as ee:
        call(ember.nn.functional, x)
    assert str(ee.value) == str(te.value)
