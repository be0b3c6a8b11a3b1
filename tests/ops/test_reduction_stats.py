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


# ------------------------------------------------------------------ gradient (torch.gradient's seven forms)
_G_X = (np.arange(12.0).reshape(3, 4) ** 2 / 7).astype(np.float32)
_G_C0, _G_C1 = np.array([0.0, 1.0, 3.0]), np.array([0.0, 0.5, 3.0, 7.0], dtype=np.float32)


def _gradient_call(m, inp, kw):
    kw = {k: ([m.tensor(c) for c in v] if isinstance(v, list) and v and isinstance(v[0], np.ndarray)
              else m.tensor(v) if isinstance(v, np.ndarray) else v) for k, v in kw.items()}
    return m.gradient(m.tensor(inp), **kw)


_G_CASES = [
    (_G_X, {}), (_G_X, dict(spacing=2.0)), (_G_X, dict(spacing=3)), (_G_X, dict(spacing=np.array(2.5))),
    (_G_X, dict(spacing=[2.0, 3.0])), (_G_X, dict(spacing=(2,), dim=1)), (_G_X, dict(dim=1)), (_G_X, dict(dim=-2)),
    (_G_X, dict(dim=[0, 1])), (_G_X, dict(dim=(1,), spacing=2.0)), (_G_X, dict(dim=[-1, 0], spacing=[1.5, 2])),
    (_G_X, dict(spacing=[_G_C0], dim=0)), (_G_X, dict(spacing=[_G_C0, _G_C1])), (_G_X, dict(edge_order=2)),
    (_G_X, dict(edge_order=2, spacing=[_G_C0, _G_C1])), (_G_X, dict(dim=-1, spacing=[_G_C1], edge_order=2)),
    (_G_X, dict(edge_order=2, spacing=0.5, dim=[1])), (np.arange(5), {}), (np.arange(5), dict(spacing=2)),
    (np.arange(4.0), dict(spacing=[np.array([0, 1, 3, 4])])), (np.array(3.0), {}),
    (np.arange(24.0).reshape(2, 3, 4) ** 1.5, dict(dim=[2, 0], edge_order=1)),
]


@pytest.mark.parametrize("inp,kw", _G_CASES, ids=[str(i) for i in range(len(_G_CASES))])
def test_gradient_matches_torch(inp, kw):
    got, want = _gradient_call(ember, inp, kw), _gradient_call(torch, inp, kw)
    assert type(got) is tuple and len(got) == len(want)
    for g, w in zip(got, want):
        assert str(g.dtype) == str(w.dtype).replace("torch", "ember")
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("inp,kw", [
    (_G_X, dict(spacing=(2,))), (_G_X, dict(spacing=np.array([0.0, 1.0, 3.0]))), (_G_X, dict(dim=[0, 0])),
    (_G_X, dict(dim=2)), (_G_X, dict(edge_order=3)), (_G_X[:1], {}), (_G_X[:, :2], dict(edge_order=2, dim=1)),
    (np.arange(3, dtype=np.uint8), {}), (np.array([True, False]), {}), (np.arange(3.0), dict(spacing="a")),
    (np.arange(3.0), dict(spacing=[np.array([[0.0, 1, 3]])])), (np.arange(3.0), dict(spacing=[1.0, 2.0])),
    (np.arange(3.0), dict(spacing=[1.0, 2.0], dim=0)), (np.arange(3.0), dict(dim="x")),
], ids=[str(i) for i in range(14)])
def test_gradient_errors_match_torch(inp, kw):
    with pytest.raises(Exception) as te:
        _gradient_call(torch, inp, kw)
    with pytest.raises(type(te.value)) as ee:
        _gradient_call(ember, inp, kw)
    assert str(ee.value).replace("ember", "torch") == str(te.value)


def test_gradient_positional_spacing_is_rejected_as_torch():
    with pytest.raises(TypeError) as te:
        torch.gradient(torch.arange(3.0), 2)
    with pytest.raises(TypeError) as ee:
        ember.gradient(ember.arange(3.0), 2)
    assert str(ee.value) == str(te.value)


@pytest.mark.parametrize("kw", [dict(), dict(edge_order=2), dict(spacing=[_G_C0, _G_C1]),
                                dict(spacing=[_G_C0, _G_C1], edge_order=2), dict(spacing=[0.5, 2.0], dim=[0, 1])])
def test_gradient_backward_matches_torch(kw):
    x = np.random.default_rng(0).standard_normal((3, 4))
    grads = []
    for m in (ember, torch):
        t = m.tensor(x, requires_grad=True)
        args = {k: ([m.tensor(c.astype(np.float64), requires_grad=True) for c in v]
                    if isinstance(v, list) and isinstance(v[0], np.ndarray) else v) for k, v in kw.items()}
        outs = m.gradient(t, **args)
        weights = [m.tensor(np.arange(o.numel(), dtype=np.float64).reshape(tuple(o.shape))) for o in outs]
        sum((o * w).sum() for o, w in zip(outs, weights)).backward()
        coords = args.get("spacing") if isinstance(args.get("spacing"), list) else []
        grads.append([t.grad.numpy()] + [c.grad.numpy() for c in coords if isinstance(c, m.Tensor)])
    for g, w in zip(*grads):
        np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12)
    coords = [ember.tensor(c.astype(np.float64), requires_grad=True) for c in (_G_C0, _G_C1)]
    t = ember.tensor(x, requires_grad=True)
    assert ember.autograd.gradcheck(
        lambda a, c0, c1: ember.gradient(a, spacing=[c0, c1], edge_order=kw.get("edge_order", 1)), (t, *coords))
