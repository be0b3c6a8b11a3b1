"""torch.special's functions and the top-level lgamma/digamma/polygamma/mvlgamma/i0 against torch over wide
ranges (poles, tails, non-finite values), in float32 and float64, plus their errors and gradients."""
import math

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.parity

WIDE = np.concatenate([np.linspace(-25, 45, 701), [0.0, -0.0, -1.0, -2.0, -0.5, 1.0, 2.0, 1e-8, -1e-8, 100.0, 700.0,
                                                   800.0, 1e20, math.inf, -math.inf, math.nan]])
PROB = np.concatenate([np.linspace(0, 1, 401), [1e-300, 1e-100, 1e-20, 1e-10, 1 - 1e-10, -0.1, 1.1, math.nan]])

UNARY = [("lgamma", WIDE), ("digamma", WIDE), ("i0", WIDE), ("special.i0e", WIDE), ("special.i1", WIDE),
         ("special.i1e", WIDE), ("special.erfcx", WIDE), ("special.ndtr", WIDE), ("special.log_ndtr", WIDE),
         ("special.ndtri", PROB), ("special.entr", WIDE), ("special.sinc", WIDE), ("special.gammaln", WIDE),
         ("special.psi", WIDE), ("special.expit", WIDE)]


def _get(mod, path):
    for p in path.split("."):
        mod = getattr(mod, p)
    return mod


def _compare(a, b, dtype):
    a, b = a.numpy(), b.numpy()
    assert a.dtype == b.dtype
    fin = np.isfinite(b)
    np.testing.assert_array_equal(np.isnan(a), np.isnan(b))
    np.testing.assert_array_equal(a[~fin & ~np.isnan(b)], b[~fin & ~np.isnan(b)])
    rtol = 2e-5 if dtype == "float32" else 1e-11
    np.testing.assert_allclose(a[fin], b[fin], rtol=rtol, atol=rtol)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name,values", UNARY, ids=[u[0] for u in UNARY])
def test_values_wide(name, values, dtype):
    x = values.astype(dtype)
    if dtype == "float32" and name in ("lgamma", "special.gammaln", "digamma", "special.psi"):
        x = x[np.abs(x) < 40]          # float32 poles: torch's float kernels round differently around them
    _compare(_get(ember, name)(ember.tensor(x)), _get(torch, name)(torch.tensor(x)), dtype)


@pytest.mark.parametrize("n", [0, 1, 2, 3, 6])
def test_polygamma_wide(n):
    x = WIDE[np.abs(WIDE) < 30]
    _compare(ember.polygamma(n, ember.tensor(x)), torch.polygamma(n, torch.tensor(x)), "float64")
    _compare(ember.tensor(x).polygamma(n), torch.tensor(x).polygamma(n), "float64")


def test_zeta_grid():
    s, q = np.meshgrid([0.5, 1.0, 1.5, 2.0, 3.0, 4.5, 10.0, 30.0], np.concatenate([np.linspace(-5.5, 12, 71), [0, -1]]))
    _compare(ember.special.zeta(ember.tensor(s), ember.tensor(q)), torch.special.zeta(torch.tensor(s), torch.tensor(q)),
             "float64")
    _compare(ember.special.zeta(ember.tensor(s), 2.0), torch.special.zeta(torch.tensor(s), 2.0), "float64")


def test_xlog1py_and_mvlgamma():
    x, y = np.array([0.0, 0.0, 2.0, -1.5]), np.array([math.nan, 3.0, 0.5, 2.0])
    _compare(ember.special.xlog1py(ember.tensor(x), ember.tensor(y)),
             torch.special.xlog1py(torch.tensor(x), torch.tensor(y)), "float64")
    a = np.linspace(1.6, 9, 11)
    for p in (1, 2, 4):
        _compare(ember.mvlgamma(ember.tensor(a), p), torch.mvlgamma(torch.tensor(a), p), "float64")
        _compare(ember.mvlgamma(ember.tensor(a - 1.5), p), torch.mvlgamma(torch.tensor(a - 1.5), p), "float64")
        _compare(ember.special.multigammaln(ember.tensor(a), p), torch.special.multigammaln(torch.tensor(a), p),
                 "float64")


@pytest.mark.parametrize("form", ["tensors", "self_scalar", "other_scalar", "out"])
def test_xlog1py_overloads_values_grads_and_nodes(form):
    """special_xlog1py is an op with torch's overloads: values, gradients (0 at self == 0, other <= -1) and node."""
    x, y = np.array([0.0, 0.0, 2.0, -1.5, 0.5]), np.array([-1.0, 3.0, 0.5, 2.0, -0.5])
    res = []
    for L in (torch, ember):
        a, b = L.tensor(x, requires_grad=True), L.tensor(y, requires_grad=True)
        if form == "out":
            with L.no_grad():
                rs = [L.special.xlog1py(*args, out=L.empty(5, dtype=L.float64)) for args in ((a, b), (2.0, b), (a, 0.5))]
            res.append(tuple(r.numpy() for r in rs))
            continue
        args = {"tensors": (a, b), "self_scalar": (2.0, b), "other_scalar": (a, -1.0)}[form]
        r = L.special.xlog1py(*args)
        wrt = [t for t in args if isinstance(t, L.Tensor)]
        gs = L.autograd.grad(r.sum(), wrt)
        res.append((r.detach().numpy(), *[g.numpy() for g in gs], type(r.grad_fn).__name__))
    (*want, wn), (*got, gn) = res if form != "out" else [(*res[0], 0), (*res[1], 0)]
    for w, g in zip(want, got):
        np.testing.assert_allclose(g, w, rtol=1e-12)
    assert gn == wn


def test_integer_inputs_promote():
    for name in ("lgamma", "digamma", "i0", "special.i1", "special.erfcx", "special.ndtr", "special.sinc"):
        a, b = _get(ember, name)(ember.tensor([1, 2, 3])), _get(torch, name)(torch.tensor([1, 2, 3]))
        assert a.dtype.name == str(b.dtype)[6:]
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("call", [
    lambda m: m.polygamma(-1, m.tensor([1.0])),
    lambda m: m.mvlgamma(m.tensor([3.0]), 0),
    lambda m: m.special.i0e(1.0),
    lambda m: m.lgamma(m.tensor([1.0 + 1j])),
], ids=["polygamma-neg", "mvlgamma-p", "not-tensor", "complex"])
def test_errors(call):
    with pytest.raises(Exception) as te:
        call(torch)
    with pytest.raises(type(te.value)) as ee:
        call(ember)
    if isinstance(te.value, NotImplementedError):
        assert str(ee.value) == str(te.value)


def test_inplace_and_methods():
    x = np.array([0.5, 1.5, 3.0])
    for name, args in (("lgamma_", ()), ("digamma_", ()), ("i0_", ()), ("polygamma_", (2,)), ("mvlgamma_", (1,))):
        a, b = ember.tensor(x), torch.tensor(x)
        assert getattr(a, name)(*args) is a
        getattr(b, name)(*args)
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-12)


GRADS = ["lgamma", "digamma", "i0", "special.i0e", "special.i1", "special.i1e", "special.erfcx", "special.ndtri",
         "special.log_ndtr", "special.ndtr", "special.entr", "special.sinc"]


@pytest.mark.parametrize("name", GRADS)
def test_grad_parity(name):
    x = np.array([0.05, 0.3, 0.5, 0.9]) if name == "special.ndtri" else np.array([-2.5, -0.3, 0.0, 0.7, 3.2, 12.0])
    if name in ("lgamma", "digamma", "special.entr"):
        x = np.abs(x) + 0.2
    a, b = ember.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    _get(ember, name)(a).sum().backward()
    _get(torch, name)(b).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-9, atol=1e-12)


def test_zeta_grad_and_polygamma_grad():
    s, q = np.array([2.0, 3.5]), np.array([1.5, 0.7])
    ea, eq = ember.tensor(s), ember.tensor(q, requires_grad=True)
    ta, tq = torch.tensor(s), torch.tensor(q, requires_grad=True)
    ember.special.zeta(ea, eq).sum().backward()
    torch.special.zeta(ta, tq).sum().backward()
    np.testing.assert_allclose(eq.grad.numpy(), tq.grad.numpy(), rtol=1e-10)
    a, b = ember.tensor(q, requires_grad=True), torch.tensor(q, requires_grad=True)
    ember.polygamma(2, a).sum().backward()
    torch.polygamma(2, b).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-10)


def test_not_imported_by_import_ember():
    import os
    import subprocess
    import sys
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(ember.__file__)))
    code = "import sys, ember; print('ember.special' in sys.modules); ember.special; print('ember.special' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env=env).stdout.split()
    assert out == ["False", "True"]
