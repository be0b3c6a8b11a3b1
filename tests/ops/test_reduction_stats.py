"""diff, nansum, nanmean, quantile, nanquantile, cov, corrcoef, complex, polar and ember.vmap against torch: the
errors and the cases the op database does not reach (values and gradients are in tests/ops/test_ops.py and
tests/autograd/test_op_db.py through testing/_op_db/reduction_stats.py)."""
import math

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.parity

X = np.array([[1.0, math.nan, 3.0], [4.0, 5.0, 6.0]], dtype=np.float32)


@pytest.mark.parametrize("call", [
    lambda m, x: m.quantile(x, 2.0), lambda m, x: m.quantile(x.long(), 0.5),
    lambda m, x: m.quantile(x, m.tensor([[0.5]])), lambda m, x: m.quantile(x, 0.5, interpolation="foo"),
    lambda m, x: m.quantile(m.tensor([]), 0.5), lambda m, x: m.quantile(x, m.tensor([0.5], dtype=m.float64)),
    lambda m, x: m.nanquantile(x, m.tensor([0.5, 1.5])),
    lambda m, x: m.diff(m.tensor(1.0)), lambda m, x: m.diff(x, n=-1), lambda m, x: m.nanmean(x.long()),
    lambda m, x: m.complex(x, x.double()), lambda m, x: m.complex(x.long(), x.long()),
    lambda m, x: m.polar(x, x.double()), lambda m, x: m.cov(m.zeros(2, 2, 2)),
    lambda m, x: m.cov(x, fweights=m.ones(3)), lambda m, x: m.cov(x, aweights=m.ones(3, dtype=m.long)),
    lambda m, x: m.corrcoef(m.zeros(2, 2, 2)),
], ids=["q-range", "q-int-input", "q-2d", "interp", "empty", "q-dtype", "q-values", "diff-0d", "diff-n", "nanmean-int",
        "complex-dtypes", "complex-int", "polar-dtypes", "cov-3d", "cov-fw-float", "cov-aw-int", "corrcoef-3d"])
def test_errors(call):
    with pytest.raises(Exception) as te:
        call(torch, torch.tensor(X))
    with pytest.raises(type(te.value)) as ee:
        call(ember, ember.tensor(X))
    assert str(ee.value) == str(te.value)


def test_methods_and_values():
    for name, args, kw in [("nansum", (), {}), ("nanmean", (1,), {}), ("quantile", (0.5, 1), {}),
                           ("nanquantile", (0.5, 1), {"keepdim": True}), ("diff", (), {"dim": 0}), ("cov", (), {}),
                           ("corrcoef", (), {})]:
        a = getattr(ember.tensor(X), name)(*args, **kw)
        b = getattr(torch.tensor(X), name)(*args, **kw)
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6, equal_nan=True)


def test_quantile_interpolations_match_torch_on_ties_and_nans():
    x = np.array([[3.0, 1.0, 2.0, 2.0, math.nan], [5.0, 5.0, 1.0, 0.0, 4.0]])
    q = np.array([0.0, 0.1, 0.5, 0.625, 1.0])
    for interp in ("linear", "lower", "higher", "midpoint", "nearest"):
        for f in ("quantile", "nanquantile"):
            for dim in (None, 0, 1):
                a = getattr(ember, f)(ember.tensor(x), ember.tensor(q), dim, interpolation=interp)
                b = getattr(torch, f)(torch.tensor(x), torch.tensor(q), dim, interpolation=interp)
                np.testing.assert_allclose(a.numpy(), b.numpy(), equal_nan=True, err_msg=f"{f} {interp} {dim}")


def test_complex_polar_grads():
    r, i = np.array([1.0, 2.0]), np.array([0.5, 3.0])     # (abs >= 0: torch's formula uses sgn(result))
    er, ei = ember.tensor(r, requires_grad=True), ember.tensor(i, requires_grad=True)
    tr, ti = torch.tensor(r, requires_grad=True), torch.tensor(i, requires_grad=True)
    (ember.polar(er, ei) * ember.tensor([1 + 2j, 3 - 1j])).real.sum().backward()
    (torch.polar(tr, ti) * torch.tensor([1 + 2j, 3 - 1j])).real.sum().backward()
    np.testing.assert_allclose(er.grad.numpy(), tr.grad.numpy())
    np.testing.assert_allclose(ei.grad.numpy(), ti.grad.numpy())


def test_vmap_top_level():
    x = np.arange(24.0).reshape(2, 3, 4)
    f = ember.vmap(ember.vmap(lambda v: v.sum() * 2), in_dims=1, out_dims=0)
    g = torch.vmap(torch.vmap(lambda v: v.sum() * 2), in_dims=1, out_dims=0)
    np.testing.assert_allclose(f(ember.tensor(x)).numpy(), g(torch.tensor(x)).numpy())
    h = ember.vmap(lambda a, b: a * b, in_dims=(0, None))
    np.testing.assert_allclose(h(ember.tensor(x[0]), ember.tensor(x[1, 0])).numpy(), x[0] * x[1, 0])
    assert ember.vmap is ember.func.vmap
