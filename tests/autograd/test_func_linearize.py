"""torch.func.linearize (ember.func.linearize) against torch: values, jvps, tangent checks."""
import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")

X = np.array([[0.3, 1.2, -0.7], [2.0, -0.1, 0.6]])
W = np.array([0.5, -1.0, 0.25])


def fn(lib, x, pair):
    w, b = pair
    return (x * w).sin().sum(1) + b.exp(), x.tanh()


def _linearize(lib):
    x = lib.tensor(X)
    pair = (lib.tensor(W), lib.tensor(0.3, dtype=lib.float64))
    return lib.func.linearize(lambda a, p: fn(lib, a, p), x, pair)


@pytest.mark.parity
def test_output_and_jvp_match_torch():
    (eo, efn), (to, tfn) = _linearize(ember), _linearize(torch)
    for a, b in zip(eo, to):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-12)
    rng = np.random.default_rng(0)
    for _ in range(2):                                     # jvp_fn is reusable
        tx, tw, tb = rng.standard_normal(X.shape), rng.standard_normal(W.shape), rng.standard_normal(())
        ej = efn(ember.tensor(tx), (ember.tensor(tw), ember.tensor(tb)))
        tj = tfn(torch.tensor(tx), (torch.tensor(tw), torch.tensor(tb)))
        assert isinstance(ej, tuple) and len(ej) == 2
        for a, b in zip(ej, tj):
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-10, atol=1e-12)


def _error(lib, fn_, *tangents):
    with pytest.raises(RuntimeError) as e:
        fn_(*tangents)
    return str(e.value)


@pytest.mark.parity
def test_bad_tangents_raise_as_torch():
    (_, efn), (_, tfn) = _linearize(ember), _linearize(torch)
    cases = [
        lambda lib: (lib.zeros(3, 2, dtype=lib.float64), (lib.zeros(3, dtype=lib.float64), lib.tensor(0.0, dtype=lib.float64))),
        lambda lib: (lib.zeros(2, 3, dtype=lib.float32), (lib.zeros(3, dtype=lib.float64), lib.tensor(0.0, dtype=lib.float64))),
    ]
    for make in cases:
        em = _error(ember, efn, *make(ember)).replace("ember.Size", "torch.Size").replace("ember.", "torch.")
        assert em == _error(torch, tfn, *make(torch))
    # a different pytree structure is refused by both
    _error(ember, efn, ember.zeros(2, 3, dtype=ember.float64))
    _error(torch, tfn, torch.zeros(2, 3, dtype=torch.float64))
