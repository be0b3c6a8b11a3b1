"""OpInfo entries of the pooling and unpooling (torch's common_methods_invocations.py op_db, this family's part)."""
import numpy as np

from .._opinfo import OpInfo
from ._common import A, S, _info, _s


def _pool1d(dt):
    return [S(A((2, 3, 9), dt), 3, 2, 1), S(A((3, 8), dt), 2, ceil_mode=True),
            S(A((2, 2, 7), dt, seed=1), 3, 2, 1, ceil_mode=True, count_include_pad=False)]


def _max_pool1d(dt):
    return [S(A((2, 3, 9), dt), 3, 2, 1), S(A((3, 8), dt), 2, ceil_mode=True, dilation=2),
            S(A((2, 2, 7), dt, seed=1), 3, 2, 1, return_indices=True)]


def _adaptive1d(dt, indices=False):
    extra = {"return_indices": True} if indices else {}
    return [S(A((2, 3, 9), dt), 4), S(A((3, 7), dt), 3, **extra), S(A((1, 2, 5), dt), 5)]


def _adaptive_max2d(dt):
    return [S(A((2, 3, 7, 6), dt), (3, 4)), S(A((3, 5, 5), dt), 2, return_indices=True),
            S(A((1, 2, 4, 5), dt), (None, 2))]


def _unpool_indices(n, c, h, w, k, seed=0):
    """For an (n, c, h, w) pooled map of kernel=stride=k: one flat index per window, inside the window."""
    rng = np.random.default_rng(seed)
    oi, oj = np.meshgrid(np.arange(h), np.arange(w), indexing="ij")
    di, dj = rng.integers(0, k, (n, c, h, w)), rng.integers(0, k, (n, c, h, w))
    return ((oi * k + di) * (w * k) + oj * k + dj).astype(np.int64)


def _max_unpool2d(dt):
    return [S(A((1, 2, 2, 3), dt), _unpool_indices(1, 2, 2, 3, 2), 2),
            S(A((2, 2, 2), dt), _unpool_indices(1, 2, 2, 2, 2, 1)[0], 2, output_size=(5, 5))]


def _max_pool2d(dt):
    return [S(A((1, 2, 4, 4), dt), 2), S(A((2, 5, 5), dt), 3, 2, 1, ceil_mode=True),
            S(A((1, 1, 5, 6), dt), (2, 3), dilation=(2, 1), return_indices=True)]


def _avg_pool2d(dt):
    return [S(A((1, 2, 4, 4), dt), 2, 1, 1, count_include_pad=False), S(A((2, 5, 5), dt), 3, 2, 1, ceil_mode=True),
            S(A((1, 1, 4, 5), dt), (2, 3), divisor_override=4)]


def _adaptive_avg2d(dt):
    return [S(A((1, 2, 5, 4), dt), (2, 3)), S(A((2, 3, 5), dt), (None, 2)), S(A((1, 1, 3, 3), dt), 5)]


def _u(shape, dt, seed):
    """Fractional pooling's _random_samples: uniform in [0, 1)."""
    return np.random.default_rng(seed).random(shape).astype(dt)


def _fractional2d(dt):
    return [S(A((2, 3, 9, 8), dt), 2, output_size=(4, 5), _random_samples=_u((2, 3, 2), dt, 1)),
            S(A((3, 7, 7), dt, seed=1), (3, 2), output_size=3, return_indices=True, _random_samples=_u((1, 3, 2), dt, 2)),
            S(A((1, 2, 10, 6), dt, seed=2), 2, output_ratio=(0.5, 0.7), _random_samples=_u((1, 2, 2), dt, 3)),
            S(A((2, 2, 5, 5), dt, seed=3), 3, output_size=4, _random_samples=_u((2, 2, 2), dt, 4))]


def _fractional3d(dt):
    return [S(A((2, 2, 6, 7, 5), dt), 2, output_size=(3, 4, 2), _random_samples=_u((2, 2, 3), dt, 1)),
            S(A((3, 5, 6, 6), dt, seed=1), (2, 3, 2), output_size=3, return_indices=True,
              _random_samples=_u((1, 3, 3), dt, 2)),
            S(A((1, 2, 6, 6, 6), dt, seed=2), 2, output_ratio=0.5, _random_samples=_u((1, 2, 3), dt, 3)),
            S(A((1, 1, 5, 5, 5), dt, seed=3), 3, output_size=3, _random_samples=_u((1, 1, 3), dt, 4))]   # refused


op_db = [
    OpInfo("max_pool2d", _s(((2, 3, 7, 6), (2,), {}), ((3, 9, 9), (3, 2, 1), {"ceil_mode": True})),
           torch_name="nn.functional.max_pool2d"),
    OpInfo("_nn.avg_pool2d", _s(((2, 3, 7, 6), (2,), {}), ((3, 9, 9), (3, 2, 1), {"ceil_mode": True,
                                                                             "count_include_pad": False})),
           torch_name="nn.functional.avg_pool2d"),
    OpInfo("_nn.adaptive_avg_pool2d", _s(((2, 3, 7, 6), ((3, 4),), {})), torch_name="nn.functional.adaptive_avg_pool2d"),
    OpInfo("max_pool3d", _s(((2, 3, 5, 6, 4), (2,), {}), ((3, 7, 7, 5), (3, 2, 1), {"ceil_mode": True}),
                           ((1, 2, 6, 5, 6), ((2, 3, 2),), {"dilation": 2})),
           torch_name="nn.functional.max_pool3d", method_variant=False),
    OpInfo("_nn.avg_pool3d", _s(((2, 3, 5, 6, 4), (2,), {}), ((3, 7, 7, 5), (3, 2, 1), {"ceil_mode": True,
                                                                                     "count_include_pad": False}),
                                ((1, 2, 4, 4, 4), (2,), {"divisor_override": 3})),
           torch_name="nn.functional.avg_pool3d", method_variant=False),
    OpInfo("_nn.adaptive_avg_pool3d", _s(((2, 3, 5, 6, 7), ((2, 4, 3),), {}), ((3, 4, 4, 4), ((4, 1, 3),), {})),
           torch_name="nn.functional.adaptive_avg_pool3d", method_variant=False),
    OpInfo("nn.functional.adaptive_max_pool3d", _s(((2, 3, 5, 6, 7), ((2, 4, 3),), {}), ((3, 4, 4, 4), (3,), {})),
           method_variant=False),
    OpInfo("nn.functional.max_unpool2d", _s(((1, 2, 2, 2), (np.array([[[[0, 3], [9, 14]], [[5, 2], [8, 15]]]]), 2), {}),
                                            ((2, 2, 2), (np.array([[[1, 7], [13, 19]], [[0, 2], [10, 22]]]), 2),
                                             {"output_size": (5, 5)})),
           method_variant=False, aten_name="max_unpool2d"),
    _info("nn.functional.max_pool1d", _max_pool1d),
    _info("nn.functional.avg_pool1d", _pool1d),
    _info("nn.functional.adaptive_avg_pool1d", _adaptive1d),
    _info("nn.functional.adaptive_max_pool1d", lambda dt: _adaptive1d(dt, True)),
    _info("nn.functional.adaptive_max_pool2d", _adaptive_max2d),
    _info("nn.functional.max_unpool2d", _max_unpool2d),
    _info("nn.functional.max_pool2d", _max_pool2d),
    _info("nn.functional.avg_pool2d", _avg_pool2d),
    _info("nn.functional.adaptive_avg_pool2d", _adaptive_avg2d),
    _info("nn.functional.fractional_max_pool2d", _fractional2d),
    _info("nn.functional.fractional_max_pool3d", _fractional3d),
]
