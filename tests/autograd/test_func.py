"""ember.func transforms against torch.func."""
import numpy as np
import pytest

import ember
import ember.func as efn

torch = pytest.importorskip("torch")
import torch.func as tfn  # noqa: E402

X = np.array([0.3, 1.2, -0.7, 2.0])
M = np.arange(12.0).reshape(3, 4) / 10 - 0.4


def E(a):
    return ember.tensor(np.asarray(a).tolist(), dtype=ember.float64)


def T(a):
    return torch.tensor(np.asarray(a), dtype=torch.float64)


def close(a, b):
    if isinstance(a, (tuple, list)):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            close(x, y)
        return
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-10, atol=1e-12)


def f_e(x, m):
    return (m.matmul(x.sin()) * x[:3]).tanh().sum()


def f_t(x, m):
    return (m.matmul(x.sin()) * x[:3]).tanh().sum()


@pytest.mark.parity
def test_grad_argnums_and_nesting():
    close(efn.grad(f_e)(E(X), E(M)), tfn.grad(f_t)(T(X), T(M)))
    close(efn.grad(f_e, argnums=(0, 1))(E(X), E(M)), tfn.grad(f_t, argnums=(0, 1))(T(X), T(M)))
    gg_e = efn.grad(lambda x: efn.grad(f_e)(x, E(M)).sum())(E(X))
    gg_t = tfn.grad(lambda x: tfn.grad(f_t)(x, T(M)).sum())(T(X))
    close(gg_e, gg_t)
    g, v = efn.grad_and_value(lambda x: (x * x).sum())(E(X))
    assert float(v) == pytest.approx(float((X * X).sum())) and not g.requires_grad


def test_grad_has_aux_and_errors():
    g, aux = efn.grad(lambda x: ((x * 2).sum(), x.mean()), has_aux=True)(E(X))
    assert g.tolist() == [2.0] * 4 and float(aux) == pytest.approx(X.mean())
    with pytest.raises(RuntimeError, match="scalar"):
        efn.grad(lambda x: x * 2)(E(X))


@pytest.mark.parity
def test_vjp_and_jvp():
    out_e, fn_e = efn.vjp(lambda x, m: m.matmul(x).exp(), E(X), E(M))
    out_t, fn_t = tfn.vjp(lambda x, m: m.matmul(x).exp(), T(X), T(M))
    close(out_e, out_t)
    ct = np.array([1.0, -2.0, 0.5])
    close(fn_e(E(ct)), fn_t(T(ct)))
    tan = np.array([1.0, 0.5, -1.0, 2.0])
    close(efn.jvp(lambda x: (x.sin() * x).exp(), (E(X),), (E(tan),)),
          tfn.jvp(lambda x: (x.sin() * x).exp(), (T(X),), (T(tan),)))


@pytest.mark.parity
def test_jacobians_and_hessian():
    g_e = lambda x: (E(M).matmul(x.sin()) * x[:3])  # noqa: E731
    g_t = lambda x: (T(M).matmul(x.sin()) * x[:3])  # noqa: E731
    close(efn.jacrev(g_e)(E(X)), tfn.jacrev(g_t)(T(X)))
    close(efn.jacfwd(g_e)(E(X)), tfn.jacfwd(g_t)(T(X)))
    close(efn.hessian(lambda x: f_e(x, E(M)))(E(X)), tfn.hessian(lambda x: f_t(x, T(M)))(T(X)))


@pytest.mark.parity
def test_vmap_loop_fallback():
    vs, ms = np.stack([X, X * 2, -X]), np.stack([M, M * 3, -M])
    close(efn.vmap(lambda v, m: m.matmul(v).sum())(E(vs), E(ms)),
          tfn.vmap(lambda v, m: m.matmul(v).sum())(T(vs), T(ms)))
    close(efn.vmap(lambda v, w: v * w, in_dims=(1, None), out_dims=1)(E(M), E(M[:, 0])),
          tfn.vmap(lambda v, w: v * w, in_dims=(1, None), out_dims=1)(T(M), T(M[:, 0])))
    # per-sample gradients: vmap over grad
    w = E([0.5, -1.0, 2.0, 0.1])
    pe = efn.vmap(efn.grad(lambda w, x: (w * x).sin().sum()), in_dims=(None, 0))(w, E(np.stack([X, -X, 2 * X])))
    pt = tfn.vmap(tfn.grad(lambda w, x: (w * x).sin().sum()), in_dims=(None, 0))(T(w.numpy()), T(np.stack([X, -X, 2 * X])))
    close(pe, pt)
    with pytest.raises(ValueError, match="same size in the mapped dimension"):
        efn.vmap(lambda a, b: a + b)(E(X), E(M))
