"""Forward-mode AD of linalg.qr / eigh / svd (their backward formulas are differentiated once more:
`result: auto_double_backward`): tangents match torch.func.jvp up to the sign of each eigen/singular
vector, which differs between LAPACK builds, and gauge-invariant products match finite differences."""
import numpy as np
import pytest

import ember

RNG = np.random.default_rng(0)


def _sym(*shape):
    a = RNG.standard_normal(shape)
    return a + np.swapaxes(a, -1, -2)


def _jvp(lib, f, a, t):
    p, d = lib.func.jvp(lambda x: f(lib, x), (lib.tensor(a),), (lib.tensor(t),))
    p, d = (p, d) if isinstance(p, tuple) else ((p,), (d,))
    return [x.numpy() for x in p], [x.numpy() for x in d]


def _fd(f, a, t, eps=1e-6):
    with ember.no_grad():
        hi = f(ember, ember.tensor(a + eps * t)).numpy()
        lo = f(ember, ember.tensor(a - eps * t)).numpy()
    return (hi - lo) / (2 * eps)


CASES = {  # decomposition, a gauge-invariant function of its outputs, input
    "qr": (lambda L, x: L.linalg.qr(x), lambda L, x: (lambda q, r: q @ r + q @ (q.mT @ x.exp()))(*L.linalg.qr(x)),
           RNG.standard_normal((2, 5, 3))),
    "qr_complete": (lambda L, x: L.linalg.qr(x, mode="complete"),
                    lambda L, x: (lambda q, r: q @ r)(*L.linalg.qr(x, mode="complete")), RNG.standard_normal((3, 3))),
    "eigh": (lambda L, x: L.linalg.eigh(x), lambda L, x: (lambda w, v: (v * w.exp().unsqueeze(-2)) @ v.mT)(
        *L.linalg.eigh(x)), _sym(2, 4, 4)),
    "svd": (lambda L, x: L.linalg.svd(x, full_matrices=False),
            lambda L, x: (lambda u, s, vh: u @ vh + (u * s.unsqueeze(-2)) @ vh)(*L.linalg.svd(x, full_matrices=False)),
            RNG.standard_normal((2, 4, 3))),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_jvp_of_gauge_invariant_products_matches_finite_differences(name):
    _, g, a = CASES[name]
    t = _sym(*a.shape) if name == "eigh" else RNG.standard_normal(a.shape)
    _, (d,) = _jvp(ember, g, a, t)
    np.testing.assert_allclose(d, _fd(g, a, t), rtol=1e-5, atol=1e-6)


@pytest.mark.parity
@pytest.mark.parametrize("name", sorted(CASES))
def test_decomposition_tangents_match_torch_up_to_vector_signs(name):
    torch = pytest.importorskip("torch")
    f, _, a = CASES[name]
    t = _sym(*a.shape) if name == "eigh" else RNG.standard_normal(a.shape)
    pe, de = _jvp(ember, f, a, t)
    pt, dt = _jvp(torch, f, a, t)
    # every output's columns (qr: Q's, eigh: V's, svd: U's; Vh's rows) can flip sign together
    if name.startswith("qr"):
        s = np.sign((pe[0] * pt[0]).sum(-2, keepdims=True))
        pairs = [(de[0] * s, dt[0]), (de[1] * np.swapaxes(s, -1, -2), dt[1])]
    elif name == "eigh":
        s = np.sign((pe[1] * pt[1]).sum(-2, keepdims=True))
        pairs = [(de[0], dt[0]), (de[1] * s, dt[1])]
    else:
        s = np.sign((pe[0] * pt[0]).sum(-2, keepdims=True))
        pairs = [(de[0] * s, dt[0]), (de[1], dt[1]), (de[2] * np.swapaxes(s, -1, -2), dt[2])]
    for x, y in pairs:
        np.testing.assert_allclose(x, y, rtol=1e-8, atol=1e-10)


@pytest.mark.parity
def test_qr_mode_r_refuses_like_torch():
    torch = pytest.importorskip("torch")
    a, t = RNG.standard_normal((4, 3)), RNG.standard_normal((4, 3))
    for lib in (torch, ember):
        with pytest.raises(RuntimeError, match="depends on Q"):
            lib.func.jvp(lambda x: lib.linalg.qr(x, mode="r"), (lib.tensor(a),), (lib.tensor(t),))
