"""optim.SparseAdam against torch: its argument checks, defaults, state_dict and repr, the closure, and step()'s
refusal of dense gradients (the only kind ember has)."""
import pytest

import ember

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.parity


def _outcome(fn):
    try:
        return ("ok", fn())
    except Exception as e:  # noqa: BLE001
        return (type(e).__name__, str(e))


@pytest.mark.parametrize("make", [
    lambda L, p: L.optim.SparseAdam([p], lr=0), lambda L, p: L.optim.SparseAdam([p], lr=-1.0),
    lambda L, p: L.optim.SparseAdam([p], eps=0.0), lambda L, p: L.optim.SparseAdam([p], betas=(1.0, 0.9)),
    lambda L, p: L.optim.SparseAdam([p], betas=(0.9, -0.1)), lambda L, p: L.optim.SparseAdam([]),
    lambda L, p: L.optim.SparseAdam(p),
    lambda L, p: L.optim.SparseAdam([p, L.nn.Parameter(L.ones(2, dtype=L.complex64))]),
    lambda L, p: L.optim.SparseAdam([{"params": [p]}, {"params": [L.nn.Parameter(L.ones(1, dtype=L.complex64))]}]),
], ids=["lr0", "lr-neg", "eps0", "beta0", "beta1", "empty", "tensor", "complex", "complex-group"])
def test_sparse_adam_argument_errors_match_torch(make):
    got = [_outcome(lambda: make(L, L.nn.Parameter(L.ones(3)))) for L in (torch, ember)]
    assert got[0][0] != "ok" and got[1] == (got[0][0], got[0][1].replace("torch.", "ember."))


def test_sparse_adam_defaults_state_dict_repr_and_dense_gradient_error_match_torch():
    out = []
    for L in (torch, ember):
        p = L.nn.Parameter(L.ones(3))
        q = L.nn.Parameter(L.ones(2))
        opt = L.optim.SparseAdam([{"params": [p]}, {"params": [q], "lr": 0.1}], betas=(0.8, 0.9), maximize=True)
        row = [opt.defaults, opt.state_dict(), repr(opt), opt.step(lambda: 3.5)]
        q.grad = L.ones(2)
        row.append(_outcome(opt.step))
        row.append((p.tolist(), q.tolist(), opt.state_dict()))
        out.append(row)
    assert out[0] == out[1]
