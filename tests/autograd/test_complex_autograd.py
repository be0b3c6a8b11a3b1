"""Complex autograd follows torch's convention (for a real loss L(z), z.grad = dL/dRe z + i dL/dIm z):
the engine conjugates complex grads around formulas written for real numbers, abs / sgn / the complex
views have exact formulas, a real input's grad is the real part. Plus conj, view_as_real,
view_as_complex, .real and .imag."""
import numpy as np
import pytest

import ember
from ember.autograd import engine

RNG = np.random.default_rng(0)
A = RNG.standard_normal((3, 3)) + 1j * RNG.standard_normal((3, 3))
B = RNG.standard_normal((3, 3)) + 1j * RNG.standard_normal((3, 3))

CASES = {
    "mul": lambda L, x, y: (x * y).abs().sum(),
    "add_sub_neg": lambda L, x, y: (x - 2 * y + (-x) * 0.5).abs().sum(),
    "div": lambda L, x, y: (x / y).abs().sum(),
    "exp_log": lambda L, x, y: (x.exp() + y.log()).abs().sum(),
    "matmul": lambda L, x, y: (x @ y).abs().sum(),
    "linear": lambda L, x, y: L.nn.functional.linear(x, y).abs().sum(),
    "einsum_bmm_mv": lambda L, x, y: (L.einsum("ij,jk->ik", x, y).abs().sum() + L.bmm(x[None], y[None]).abs().sum()
                                      + L.mv(x, y[0]).abs().sum()),
    "trig": lambda L, x, y: (x.sin() * x.cos() + x.tanh() + x.sigmoid()).abs().sum(),
    "powers": lambda L, x, y: (x ** 2 + x.sqrt() + x.rsqrt() + x.reciprocal() + x.square() + x ** y).abs().sum(),
    "reductions": lambda L, x, y: x.sum().abs() + (x.mean(0) * y[0]).abs().sum() + x.prod().abs()
    + x.cumsum(0).abs().sum(),
    "shape": lambda L, x, y: (L.cat([x.t(), y])[[0, 2, 4]] * y[1]).abs().sum() + L.where(
        L.tensor([True, False, True]), x, y).abs().sum(),
    "complex_scalar": lambda L, x, y: (x * (2 + 3j) + L.addcmul(x, x, y)).abs().sum(),
    "norm": lambda L, x, y: L.linalg.vector_norm(x * y),
    "real_imag": lambda L, x, y: (x.real * 2 + x.imag ** 2 + (x * y).real.sum() * y.imag).sum(),
    "views": lambda L, x, y: (L.view_as_real(x * y) ** 2).sum() + L.view_as_complex(L.view_as_real(x) * 2).abs().sum(),
    "conj": lambda L, x, y: (x.conj() * y).abs().sum(),
    "sgn": lambda L, x, y: (x.sgn() * y).abs().sum(),
}


def _grads(L, f, a, b):
    x, y = L.tensor(a, requires_grad=True), L.tensor(b, requires_grad=True)
    f(L, x, y).backward()
    return tuple(None if t.grad is None else t.grad.resolve_conj().numpy() for t in (x, y))


@pytest.mark.parametrize("name", sorted(CASES))
def test_grad_is_dL_dre_plus_i_dL_dim(name):
    """Against central differences in the real and imaginary parts of every entry of x."""
    f = CASES[name]
    gx, _ = _grads(ember, f, A, B)

    def loss(a):
        with ember.no_grad():
            return float(f(ember, ember.tensor(a), ember.tensor(B)).item())
    eps, num = 1e-6, np.zeros_like(A)
    for idx in np.ndindex(A.shape):
        for unit in (1, 1j):
            d = np.zeros_like(A)
            d[idx] = eps * unit
            num[idx] += unit * (loss(A + d) - loss(A - d)) / (2 * eps)
    np.testing.assert_allclose(gx, num, rtol=1e-5, atol=1e-6)


@pytest.mark.parity
@pytest.mark.parametrize("name", sorted(CASES))
def test_complex_grads_match_torch(name):
    torch = pytest.importorskip("torch")
    got, ref = _grads(ember, CASES[name], A, B), _grads(torch, CASES[name], A, B)
    for g, r in zip(got, ref):
        assert (g is None) == (r is None)
        if r is not None:
            assert g.dtype == r.dtype
            np.testing.assert_allclose(g, r, rtol=1e-10, atol=1e-12)


@pytest.mark.parity
def test_real_input_meeting_complex_gets_the_real_part_and_double_backward():
    torch = pytest.importorskip("torch")
    xr = RNG.standard_normal(3)
    out = []
    for L in (ember, torch):
        x = L.tensor(xr, requires_grad=True)
        z = L.tensor(A[0], requires_grad=True)
        loss = (x * z * z).abs().pow(2).sum()
        gx, gz = L.autograd.grad(loss, (x, z), create_graph=True)
        hz, = L.autograd.grad((gz.abs() ** 2).sum() + gx.sum(), z)
        out.append([gx.detach().numpy(), gz.detach().resolve_conj().numpy(), hz.resolve_conj().numpy()])
    for g, r in zip(*out):
        assert g.dtype == r.dtype
        np.testing.assert_allclose(g, r, rtol=1e-10, atol=1e-12)


def test_a_node_marked_not_implemented_raises(monkeypatch):
    z = ember.tensor(A, requires_grad=True)
    y = z * 2
    monkeypatch.setattr(type(y.grad_fn), "_complex", "raise")
    with pytest.raises(NotImplementedError, match="complex"):
        y.abs().sum().backward()
    assert engine._has_complex([None, ember.zeros(1, dtype=ember.complex64)])
    assert not engine._has_complex([None, ember.zeros(1)])


def test_view_as_real_and_complex_share_storage():
    z = ember.tensor(A.astype(np.complex64))
    r = ember.view_as_real(z)
    assert r.dtype is ember.float32 and tuple(r.shape) == (3, 3, 2) and r.stride() == (6, 2, 1)
    assert r._base is z
    r[0, 1, 1] = 7.0
    assert z[0, 1].item().imag == 7.0
    c = ember.view_as_complex(r)
    assert c.dtype is ember.complex64 and c.stride() == (3, 1)
    np.testing.assert_array_equal(c.numpy(), z.numpy())
    z.real.mul_(0)                           # .real is a view: writes reach z
    assert (z.numpy().real == 0).all()
    assert ember.view_as_real(ember.tensor(1 + 2j)).tolist() == [1.0, 2.0]
    sl = ember.view_as_real(ember.tensor(A)[:, 1:])
    assert sl.stride() == (6, 2, 1) and sl._offset == 2


@pytest.mark.parity
def test_view_errors_match_torch():
    torch = pytest.importorskip("torch")
    cases = [
        lambda L: L.view_as_real(L.ones(3)),
        lambda L: L.view_as_complex(L.ones(3)),
        lambda L: L.view_as_complex(L.ones(3, 2, dtype=L.int32)),
        lambda L: L.view_as_complex(L.ones(3, 3)),
        lambda L: L.view_as_complex(L.ones(2, 3).t()),
        lambda L: L.view_as_complex(L.ones(10)[1:7].view(3, 2)),
        lambda L: L.view_as_complex(L.ones(3, 3)[:, :2]),
        lambda L: L.ones(3).imag,
    ]
    for f in cases:
        with pytest.raises(RuntimeError) as te:
            f(torch)
        with pytest.raises(RuntimeError) as ee:
            f(ember)
        assert str(ee.value) == str(te.value)


def test_conj():
    x = ember.tensor([1.0, 2.0])
    assert x.conj() is x and ember.conj(x) is x and x.resolve_conj() is x and not x.is_conj()
    z = ember.tensor(A)
    np.testing.assert_array_equal(z.conj().resolve_conj().numpy(), A.conj())
    np.testing.assert_array_equal(ember.conj_physical(z).numpy(), A.conj())
    c = ember.conj_physical(x)
    assert c is not x and c.tolist() == [1.0, 2.0]
    assert z.conj().is_conj() and not z.conj_physical().is_conj() and z.resolve_neg() is z


JVP_CASES = {
    "exp": lambda L, x: x.exp(), "mul": lambda L, x: x * x, "abs": lambda L, x: x.abs(), "sgn": lambda L, x: x.sgn(),
    "real_imag": lambda L, x: x.real * 2 + x.imag, "conj": lambda L, x: x.conj() * 1,
    "view_as_real": lambda L, x: L.view_as_real(x) * 1, "sin_div": lambda L, x: x.sin() / x,
    "matmul": lambda L, x: x[None] @ x[:, None], "abs2": lambda L, x: (x * x.conj()).real,
}


@pytest.mark.parity
@pytest.mark.parametrize("name", sorted(JVP_CASES))
def test_complex_jvp_matches_torch(name):
    torch = pytest.importorskip("torch")
    f = JVP_CASES[name]
    a, t = A[0], B[1]
    _, te = ember.func.jvp(lambda x: f(ember, x), (ember.tensor(a),), (ember.tensor(t),))
    _, tt = torch.func.jvp(lambda x: f(torch, x), (torch.tensor(a),), (torch.tensor(t),))
    tt = tt.resolve_conj().numpy()
    assert te.numpy().dtype == tt.dtype
    np.testing.assert_allclose(te.numpy(), tt, rtol=1e-12, atol=1e-12)


def test_abs_jvp_of_real_inputs_is_sign_times_tangent():
    x = ember.tensor([-2.0, 0.0, 3.0], dtype=ember.float64)
    _, t = ember.func.jvp(ember.abs, (x,), (ember.tensor([1.0, 5.0, -4.0], dtype=ember.float64),))
    assert t.tolist() == [-1.0, 0.0, -4.0]
