"""derivatives.yaml's per-output `output_differentiability` (torch's [True, True, False, False] for linalg_lstsq):
the outputs marked False come back with requires_grad False and no grad_fn, the others carry the node, and
backward through the differentiable ones still works."""
import numpy as np
import pytest

import ember
from ember.autograd import gradcheck


def _t(a, rg=True):
    return ember.tensor(np.asarray(a, dtype=np.float64).tolist(), dtype=ember.float64, requires_grad=rg)


def _A():
    return np.random.default_rng(0).standard_normal((5, 3))


def _B():
    return np.random.default_rng(1).standard_normal((5, 2))


CASES = {   # name -> (ember call, torch call, input arrays)
    "linalg_lstsq": (lambda m, a, b: m.linalg.lstsq(a, b, driver="gelsd"), [_A(), _B()]),
    "linalg_inv_ex": (lambda m, a: m.linalg.inv_ex(a), [np.eye(3) * 2 + 0.1]),
    "sort": (lambda m, a: m.sort(a, 1), [_A()]),
    "topk": (lambda m, a: m.topk(a, 2), [_A()]),
    "max_pool2d_with_indices": (lambda m, a: m.nn.functional.max_pool2d(a, 2, return_indices=True),
                                [np.random.default_rng(2).standard_normal((1, 1, 4, 4))]),
    "adaptive_max_pool2d": (lambda m, a: m.nn.functional.adaptive_max_pool2d(a, 2, return_indices=True),
                            [np.random.default_rng(3).standard_normal((1, 1, 4, 4))]),
}


def test_lstsq_singular_values_and_rank_are_not_differentiable():
    a, b = _t(_A()), _t(_B())
    sol, res, rank, sv = ember.linalg.lstsq(a, b, driver="gelsd")
    assert sol.requires_grad and sol.grad_fn is not None
    assert res.requires_grad and res.grad_fn is sol.grad_fn
    assert sv.numel() == 3 and not sv.requires_grad and sv.grad_fn is None
    assert not rank.requires_grad and rank.grad_fn is None
    (sol.sum() + res.sum()).backward()
    assert a.grad is not None and b.grad is not None
    assert gradcheck(lambda x, y: ember.linalg.lstsq(x, y, driver="gelsd")[0], [_t(_A()), _t(_B())])


@pytest.mark.parity
@pytest.mark.parametrize("name", sorted(CASES))
def test_output_requires_grad_like_torch(name):
    torch = pytest.importorskip("torch")
    fn, arrays = CASES[name]
    outs = fn(ember, *[_t(x) for x in arrays])
    touts = fn(torch, *[torch.tensor(x, requires_grad=True) for x in arrays])
    assert len(outs) == len(touts)
    for i, (o, t) in enumerate(zip(outs, touts)):
        assert o.requires_grad == t.requires_grad, (name, i)
        assert (o.grad_fn is None) == (t.grad_fn is None), (name, i)
