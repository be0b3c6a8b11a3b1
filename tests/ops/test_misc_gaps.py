"""Gaps closed together: rsub's positional alpha and torch's alpha checks for add/sub/rsub."""
import warnings

import numpy as np
import pytest

import ember


def _inputs(lib):
    return dict(f=lib.tensor([1.5, -2.0]), i=lib.tensor([3, 4]), b=lib.tensor([True, False]),
                c=lib.tensor([1 + 1j, 2j]), h=lib.tensor([1.0, 2.0], dtype=lib.float16))


ALPHA_CALLS = [
    "rsub(f, i, alpha=2)", "rsub(f, 2, 3)", "rsub(i, 2, 3)", "rsub(i, 2.5)", "rsub(f, i, alpha=0.5)",
    "add(f, i, alpha=0.5)", "sub(f, i, alpha=0.5)", "add(i, f, alpha=0.5)", "add(b, b, alpha=2)",
    "add(b, b, alpha=True)", "add(f, f, alpha=True)", "add(i, i, alpha=1.0)", "add(f, f, alpha=1j)",
    "add(c, f, alpha=1j)", "sub(c, f, alpha=2j)", "sub(i, i, alpha=True)", "rsub(f, f, True)",
    "rsub(f, f, alpha=1j)", "add(i, 2, alpha=2)", "sub(f, 2.5, alpha=2)", "rsub(f, i, 2)", "add(f, i, 2)",
    "sub(f, i, 2)", "rsub(h, f, alpha=3)", "add(h, 2, alpha=3)", "rsub(i, 1, alpha=1.5)",
    "add(i, i, alpha=np.int64(2))", "add(f, f, alpha=np.float32(2))", "rsub(f, 2, alpha=3)",
    "rsub(c, 1, 2j)", "rsub(2, f)", "add(f, i, alpha='x')",
]


def _run(lib, call):
    env = dict(_inputs(lib), np=np, lib=lib)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = eval("lib." + call, env)
        return "ok", str(r.dtype).split(".")[-1], r.tolist()
    except Exception as e:   # noqa: BLE001  (the exception type is what is compared)
        return (type(e).__name__,)


@pytest.mark.parity
@pytest.mark.parametrize("call", ALPHA_CALLS)
def test_alpha_handling_parity(call):
    torch = pytest.importorskip("torch")
    assert _run(ember, call) == _run(torch, call)


def test_rsub_positional_alpha_only_for_a_number_other():
    x = ember.tensor([1.0, 2.0])
    assert ember.rsub(x, 2, 3).tolist() == [-1.0, -4.0]
    with pytest.raises(TypeError, match="rsub"):
        ember.rsub(x, x, 2)
    with pytest.raises(TypeError):
        ember.add(x, x, 2)


def test_alpha_checks_leave_inplace_target_unchanged():
    x = ember.tensor([1, 2])
    with pytest.raises(RuntimeError, match="alpha"):
        x.add_(ember.tensor([1, 1]), alpha=0.5)
    assert x.tolist() == [1, 2]
    out = ember.zeros(2)
    with pytest.raises(RuntimeError, match="Boolean alpha"):
        ember.sub(ember.ones(2), ember.ones(2), alpha=True, out=out)


@pytest.mark.parity
def test_rsub_scalar_alpha_grad_parity():
    torch = pytest.importorskip("torch")
    x = np.array([0.5, -1.0, 2.0])
    ex = ember.tensor(x, requires_grad=True)
    tx = torch.tensor(x, requires_grad=True)
    ember.rsub(ex, 2.0, 3.0).sum().backward()
    torch.rsub(tx, 2.0, 3.0).sum().backward()
    np.testing.assert_allclose(ex.grad.numpy(), tx.grad.numpy())
    assert ember.autograd.gradcheck(lambda a: ember.rsub(a, 1.5, 0.5), (ember.tensor(x, requires_grad=True),))
