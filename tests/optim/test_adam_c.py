"""Adam/AdamW's one-pass C update (kernels/cpu/csrc/adam.c) against the numpy update it replaces:
bit-identical parameters and state over several steps, for every option and both float dtypes."""
import itertools

import numpy as np
import pytest

import ember
from ember import _cc
from ember.kernels.cpu import clib


def _run(opt_cls, dtype, n, steps, **kw):
    rng = np.random.default_rng(n)
    p = ember.nn.Parameter(ember.tensor(rng.standard_normal(n).astype(dtype)))
    opt = opt_cls([p], **kw)
    for s in range(steps):
        g = rng.standard_normal(n).astype(dtype) * (10.0 ** (s % 3 - 1))
        if n > 3 and s == 2:
            g[1], g[3] = np.nan, np.inf              # NaN / inf propagate the same way on both paths
        p.grad = ember.tensor(g)
        opt.step()
    st = opt.state[p]
    return [p.detach().numpy().copy()] + [st[k].numpy().copy() for k in sorted(st) if k != "step"]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [0, 1, 7, 33, 1000])
@pytest.mark.parametrize("opts", list(itertools.product(["Adam", "AdamW"], [0.0, 0.05], [False, True], [False, True],
                                                         [0.9, 0.3])))
def test_c_update_is_bit_identical_to_numpy(dtype, n, opts):
    name, wd, amsgrad, maximize, beta1 = opts
    kw = dict(lr=1e-2, betas=(beta1, 0.99), eps=1e-8, weight_decay=wd, amsgrad=amsgrad, maximize=maximize)
    cls = getattr(ember.optim, name)
    with clib.use_c(True):
        c = _run(cls, dtype, n, 4, **kw)
    with clib.use_c(False):
        ref = _run(cls, dtype, n, 4, **kw)
    assert len(c) == len(ref)
    for a, b in zip(c, ref):
        assert a.dtype == dtype
        np.testing.assert_array_equal(a, b)


@pytest.mark.skipif(not _cc.available(), reason="no C compiler")
def test_kernel_is_used():
    from ember.optim import adam
    p = ember.nn.Parameter(ember.ones(5))
    p.grad = ember.ones(5)
    opt = ember.optim.AdamW([p])
    opt.step()
    st = opt.state[p]
    assert adam._adam_c(p, st, p.grad._np, 1e-3, 0.9, 0.999, 1e-8, 0.01, False, False, True, 2.0)
    assert st["step"].item() == 1           # _adam_c itself does not count steps
