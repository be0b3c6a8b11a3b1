"""Adam/AdamW's one-pass C update (kernels/cpu/csrc/adam.c) against the numpy update it replaces:
bit-identical parameters and state over several steps, for every option and both float dtypes."""
import itertools

import numpy as np
import pytest

import ember
from ember import _cc
from ember.kernels.cpu.runtime import clib


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


def _run_group(dtypes, steps, use_c, **kw):
    rng = np.random.default_rng(7)
    ps = [ember.nn.Parameter(ember.tensor(rng.standard_normal(n).astype(dt))) for n, dt in dtypes]
    opt = ember.optim.AdamW([{"params": ps[:2]}, {"params": ps[2:], "weight_decay": 0.0}], lr=1e-2, **kw)
    with clib.use_c(use_c):
        for s in range(steps):
            for p in ps:
                p.grad = ember.tensor(rng.standard_normal(p.shape).astype(p.detach().numpy().dtype))
            if s == 1:
                ps[0].grad = None                  # a param without grad skips a step: its own step count
            opt.step()
    return [p.detach().numpy().copy() for p in ps], opt


@pytest.mark.parametrize("amsgrad", [False, True])
@pytest.mark.parametrize("dtypes", [[(5, np.float32), (1000, np.float32), (0, np.float32), (33, np.float32)],
                                    [(5, np.float32), (7, np.float64), (9, np.float64), (4, np.float32)]])
def test_grouped_call_is_bit_identical(dtypes, amsgrad):
    c, opt = _run_group(dtypes, 4, True, amsgrad=amsgrad)
    ref, ref_opt = _run_group(dtypes, 4, False, amsgrad=amsgrad)
    for a, b in zip(c, ref):
        np.testing.assert_array_equal(a, b)
    steps = [opt.state[p]["step"].item() for g in opt.param_groups for p in g["params"]]
    assert steps == [ref_opt.state[p]["step"].item() for g in ref_opt.param_groups for p in g["params"]]
    assert steps[0] == 3 and steps[1] == 4


@pytest.mark.skipif(not _cc.available(), reason="no C compiler")
def test_group_kernel_is_used_and_follows_replaced_buffers():
    from ember.optim import adam
    p = ember.nn.Parameter(ember.ones(6))
    opt = ember.optim.Adam([p], lr=0.1)
    p.grad = ember.ones(6)
    opt.step()
    assert id(p) in opt._adam_c_ptrs                    # the grouped C call ran
    before = p.detach().numpy().copy()
    p.data = ember.full((6,), 2.0)                      # new storage: the cached address must not be used
    p.grad = ember.ones(6)
    opt.step()
    assert opt._adam_c_ptrs[id(p)][0] is p._np
    assert (p.detach().numpy() < 2.0).all() and (before < 1.0).all()
    assert adam._adam_group_c(opt, [(p, opt.state[p], np.ones(3, np.float32))], 0.1, 0.9, 0.999, 1e-8, 0, False,
                              False, False) is False                                     # shape mismatch: no change
    assert opt.state[p]["step"].item() == 2
