"""out= on the functions scripts call it on (matmul, mm, bmm, cat, reductions, factories, ...): the
result lands in `out`, which is returned, resized when needed, in `out`'s dtype; against torch."""
import numpy as np
import pytest

import ember
from _porting import torch_fixture  # noqa: F401  (the `torch` fixture)

A = np.arange(12, dtype=np.float32).reshape(3, 4) / 7 - 0.5
B = np.arange(20, dtype=np.float32).reshape(4, 5) / 9 - 1
CASES = {
    "mm": ("torch.mm(a, b, out=o)", (3, 5), "float32"),
    "matmul": ("torch.matmul(a, b, out=o)", (3, 5), "float32"),
    "bmm": ("torch.bmm(a[None], b[None], out=o)", (1, 3, 5), "float32"),
    "addmm": ("torch.addmm(torch.ones(3, 5), a, b, beta=0.5, alpha=2, out=o)", (3, 5), "float32"),
    "mv": ("torch.mv(a, b[:, 0], out=o)", (3,), "float32"),
    "dot": ("torch.dot(a[0], b[:, 0], out=o)", (), "float32"),
    "cat": ("torch.cat([a, a], 0, out=o)", (6, 4), "float32"),
    "stack": ("torch.stack([a, a], 1, out=o)", (3, 2, 4), "float32"),
    "sum_dim": ("torch.sum(a, 1, keepdim=True, out=o)", (3, 1), "float32"),
    "sum_into_int": ("torch.sum(a * 10, 0, out=o)", (4,), "int64"),
    "mean": ("torch.mean(a, out=o)", (), "float32"),
    "amin": ("torch.amin(a, 0, out=o)", (4,), "float32"),
    "clamp_max": ("torch.clamp_max(a, 0.0, out=o)", (3, 4), "float32"),
    "mean_dim": ("torch.mean(a, 0, out=o)", (4,), "float32"),
    "prod_dim": ("torch.prod(a, 1, out=o)", (3,), "float32"),
    "amax": ("torch.amax(a, 1, out=o)", (3,), "float32"),
    "argmax": ("torch.argmax(a, 1, out=o)", (3,), "int64"),
    "where": ("torch.where(a > 0, a, -a, out=o)", (3, 4), "float32"),
    "clamp_min": ("torch.clamp_min(a, 0.1, out=o)", (3, 4), "float32"),
    "softmax": ("torch.softmax(a, 1, out=o)", (3, 4), "float32"),
    "log_softmax": ("torch.log_softmax(a, 0, out=o)", (3, 4), "float32"),
    "zeros_int": ("torch.zeros(2, 3, out=o)", (2, 3), "int64"),
    "ones": ("torch.ones(2, out=o)", (2,), "float64"),
    "full": ("torch.full((2,), 7, out=o)", (2,), "int32"),
    "arange_float": ("torch.arange(5, out=o)", (5,), "float32"),
    "arange_start": ("torch.arange(1, 4, 0.5, out=o)", (6,), "float64"),
    "linspace": ("torch.linspace(0, 1, 5, out=o)", (5,), "float32"),
    "eye": ("torch.eye(3, 2, out=o)", (3, 2), "float32"),
    "resized": ("torch.mm(a, b, out=o)", (0,), "float32"),
    "add": ("torch.add(a, 1, out=o)", (3, 4), "float32"),
}


def _run(t, key):
    expr, shape, dtype = CASES[key]
    o = t.empty(shape, dtype=getattr(t, dtype))
    r = eval(expr, {"torch": t, "a": t.tensor(A), "b": t.tensor(B), "o": o})
    return r is o, tuple(o.shape), str(o.dtype).split(".")[-1], o.numpy().copy()


@pytest.mark.parity
@pytest.mark.parametrize("key", list(CASES))
def test_out_matches_torch(torch, key):
    got, want = _run(ember, key), _run(torch, key)
    assert got[:3] == want[:3]
    np.testing.assert_allclose(got[3], want[3], rtol=1e-5, atol=1e-6)


def test_out_random_factories_fill_out():
    for f, args in ((ember.rand, (4,)), (ember.randn, (4,)), (ember.randint, (3, (4,))), (ember.randperm, (4,))):
        o = ember.empty(4, dtype=ember.int64 if f in (ember.randint, ember.randperm) else ember.float32)
        assert f(*args, out=o) is o
    assert sorted(o.tolist()) == [0, 1, 2, 3]


@pytest.mark.parity
@pytest.mark.parametrize("expr", ["torch.sum(a, out=o)", "torch.flip(a, [0], out=o)", "torch.trace(a, out=o)",
                                  "torch.clone(a, out=o)", "torch.prod(a, out=o)"])
def test_no_out_where_torch_takes_none(torch, expr):
    for t in (ember, torch):
        with pytest.raises(TypeError):
            eval(expr, {"torch": t, "a": t.ones(2, 2), "o": t.empty(0)})


def test_out_refuses_autograd_and_bad_casts():
    x = ember.ones(2, 2, requires_grad=True)
    with pytest.raises(RuntimeError, match="out=... arguments don't support automatic differentiation"):
        ember.mm(x, x, out=ember.empty(2, 2))
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype float, but got long int instead"):
        ember.mm(ember.ones(2, 2), ember.ones(2, 2), out=ember.empty(2, 2, dtype=ember.int64))
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        ember.add(ember.ones(2, 2), 1, out=ember.empty(2, 2, dtype=ember.int64))
