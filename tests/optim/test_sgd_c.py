"""SGD's one-pass C momentum update (kernels/cpu/csrc/sgd.c) against the numpy update it replaces:
bit-identical parameters and momentum buffers over several steps, for every option and both float dtypes."""
import itertools

import numpy as np
import pytest

import ember
from ember import _cc
from ember.kernels.cpu.runtime import clib


def _run(dtype, n, steps, **kw):
    rng = np.random.default_rng(n)
    p = ember.nn.Parameter(ember.tensor(rng.standard_normal(n).astype(dtype)))
    opt = ember.optim.SGD([p], **kw)
    for s in range(steps):
        g = rng.standard_normal(n).astype(dtype) * (10.0 ** (s % 3 - 1))
        if n > 3 and s == 2:
            g[1], g[3] = np.nan, np.inf              # NaN / inf propagate the same way on both paths
        p.grad = ember.tensor(g)
        opt.step()
    return p.detach().numpy().copy(), opt.state[p]["momentum_buffer"].numpy().copy()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [0, 1, 7, 33, 1000])
@pytest.mark.parametrize("opts", list(itertools.product([0.0, 0.05], [0.0, 0.3], [False, True], [False, True])))
def test_c_update_is_bit_identical_to_numpy(dtype, n, opts):
    wd, dampening, nesterov, maximize = opts
    if nesterov and dampening:
        pytest.skip("nesterov needs zero dampening")
    kw = dict(lr=0.1, momentum=0.9, dampening=dampening, weight_decay=wd, nesterov=nesterov, maximize=maximize)
    with clib.use_c(True):
        c = _run(dtype, n, 4, **kw)
    with clib.use_c(False):
        ref = _run(dtype, n, 4, **kw)
    for a, b in zip(c, ref):
        assert a.dtype == dtype
        np.testing.assert_array_equal(a, b)


@pytest.mark.skipif(not _cc.available(), reason="no C compiler")
def test_kernel_is_used_and_bumps_versions():
    from ember.optim import sgd
    p = ember.nn.Parameter(ember.ones(5))
    opt = ember.optim.SGD([p], lr=0.5, momentum=0.9)
    p.grad = ember.ones(5)
    opt.step()                                  # the first step makes the buffer (numpy)
    st = opt.state[p]
    v_p, v_b = p._version, st["momentum_buffer"]._version
    assert sgd._sgd_c(p, st, p.grad._np, 0.5, 0.9, 0.0, 0.0, False, False)
    np.testing.assert_array_equal(st["momentum_buffer"].numpy(), np.full(5, 1.9, np.float32))
    np.testing.assert_array_equal(p.detach().numpy(), np.float32(0.5) - np.float32(1.9) * np.float32(0.5))
    assert p._version > v_p and st["momentum_buffer"]._version > v_b
    # a gradient sharing the parameter's memory takes the numpy path
    assert not sgd._sgd_c(p, st, p._np, 0.5, 0.9, 0.0, 0.0, False, False)
