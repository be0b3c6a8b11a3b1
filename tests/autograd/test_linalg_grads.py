"""Gradient parity vs torch for the linalg backward formulas (native/derivatives_linalg.yaml).

Each case runs the same float64 inputs through ember and torch, contracts the outputs with the same
random weights, and compares torch.autograd.grad with ember.autograd.grad. Outputs with a sign gauge
(eigenvectors, singular vectors) are squared first so the loss is gauge-invariant."""
import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")

rng = np.random.default_rng(0)
A = rng.standard_normal((3, 3))
P = A @ A.T + 3 * np.eye(3)
L = np.linalg.cholesky(P)
B = rng.standard_normal((3, 2))
b = rng.standard_normal(3)
TALL = rng.standard_normal((5, 3))
WIDE = rng.standard_normal((3, 5))
BATCH = rng.standard_normal((2, 3, 3))


def _sq(o):
    return tuple(x * x for x in o)


def _both(fn):
    return fn(ember), fn(torch)


CASES = {
    "inv": (lambda m: m.linalg.inv, [A]),
    "inverse_batch": (lambda m: m.inverse, [BATCH]),
    "slogdet": (lambda m: (lambda a: m.linalg.slogdet(a)[1]), [A]),
    "logdet": (lambda m: m.logdet, [P]),
    "det_via_slogdet_batch": (lambda m: (lambda a: m.linalg.slogdet(a)[1]), [BATCH]),
    "solve": (lambda m: m.linalg.solve, [A, B]),
    "solve_vector": (lambda m: m.linalg.solve, [A, b]),
    "solve_right": (lambda m: (lambda a, x: m.linalg.solve(a, x, left=False)), [A, B.T]),
    "solve_broadcast": (lambda m: m.linalg.solve, [BATCH, B]),
    "cholesky": (lambda m: m.linalg.cholesky, [P]),
    "cholesky_upper": (lambda m: (lambda a: m.linalg.cholesky(a, upper=True)), [P]),
    "cholesky_solve": (lambda m: m.cholesky_solve, [B, L]),
    "cholesky_solve_upper": (lambda m: (lambda x, u: m.cholesky_solve(x, u, True)), [B, L.T]),
    "qr_square": (lambda m: m.linalg.qr, [A]),
    "qr_tall": (lambda m: m.linalg.qr, [TALL]),
    "qr_wide": (lambda m: m.linalg.qr, [WIDE]),
    "svd_square": (lambda m: (lambda a: _sq(m.linalg.svd(a, full_matrices=False))), [A]),
    "svd_tall": (lambda m: (lambda a: _sq(m.linalg.svd(a, full_matrices=False))), [TALL]),
    "svd_wide": (lambda m: (lambda a: _sq(m.linalg.svd(a, full_matrices=False))), [WIDE]),
    "svd_full_tall": (lambda m: (lambda a: _sq(m.linalg.svd(a)[1:])), [TALL]),
    "svdvals": (lambda m: m.linalg.svdvals, [WIDE]),
    "svdvals_batch": (lambda m: m.linalg.svdvals, [BATCH]),
    "eigh": (lambda m: (lambda a: _sq(m.linalg.eigh(a))), [P]),
    "eigvalsh": (lambda m: m.linalg.eigvalsh, [P]),
    "lstsq": (lambda m: (lambda a, y: m.linalg.lstsq(a, y, driver="gelsd")[:2]), [TALL, rng.standard_normal((5, 2))]),
    "lstsq_vector": (lambda m: (lambda a, y: m.linalg.lstsq(a, y, driver="gelsd")[:2]), [TALL, rng.standard_normal(5)]),
    "pinv_tall": (lambda m: m.linalg.pinv, [TALL]),
    "pinv_wide": (lambda m: m.linalg.pinv, [WIDE]),
    "pinv_hermitian": (lambda m: (lambda a: m.linalg.pinv(a, hermitian=True)), [P]),
    "pinverse": (lambda m: m.pinverse, [TALL]),
    "matrix_power_neg": (lambda m: (lambda a: m.linalg.matrix_power(a, -3)), [A]),
    "cond": (lambda m: m.linalg.cond, [A]),
    "block_diag": (lambda m: m.block_diag, [A, b, rng.standard_normal(())]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_grad_parity(name):
    make, arrays = CASES[name]
    ef, tf = make(ember), make(torch)
    es = [ember.tensor(a.tolist() if a.ndim else float(a), dtype=ember.float64, requires_grad=True) for a in arrays]
    ts = [torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in arrays]
    eo, to = ef(*es), tf(*ts)
    eo = tuple(eo) if isinstance(eo, (tuple, list)) else (eo,)
    to = tuple(to) if isinstance(to, (tuple, list)) else (to,)
    w = np.random.default_rng(1)
    ws = [w.standard_normal(tuple(t.shape)) for t in to]
    el = sum((o * ember.tensor(x.tolist() if x.ndim else float(x), dtype=ember.float64)).sum() for o, x in zip(eo, ws))
    tl = sum((o * torch.tensor(x)).sum() for o, x in zip(to, ws))
    eg = ember.autograd.grad(el, es)
    tg = torch.autograd.grad(tl, ts)
    for e, t in zip(eg, tg):
        np.testing.assert_allclose(e.detach().numpy(), t.numpy(), rtol=1e-7, atol=1e-9)


def test_inverse_double_backward():
    """The formulas are written in ember ops, so they differentiate again (grad of grad matches torch)."""
    def run(m, a):
        x = m.tensor(a.tolist(), dtype=m.float64, requires_grad=True) if m is ember else \
            torch.tensor(a, dtype=torch.float64, requires_grad=True)
        g, = m.autograd.grad(m.linalg.inv(x).pow(2).sum(), [x], create_graph=True)
        gg, = m.autograd.grad(g.sum(), [x])
        return gg.detach().numpy()
    np.testing.assert_allclose(run(ember, A), run(torch, A), rtol=1e-7, atol=1e-9)


def test_qr_mode_r_refuses():
    x = ember.tensor(A.tolist(), dtype=ember.float64, requires_grad=True)
    _, r = ember.linalg.qr(x, mode="r")
    with pytest.raises(RuntimeError, match="mode='r'"):
        r.sum().backward()
