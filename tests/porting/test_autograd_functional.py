"""torch.autograd.functional (jacobian, hessian, vjp, jvp, vhp, hvp) against torch, and the autograd
module paths scripts import from (grad_mode, variable)."""
import numpy as np
import pytest

import ember
from _porting import torch_fixture  # noqa: F401  (the `torch` fixture)


def _cases(m):
    a = m.tensor(np.arange(1, 4, dtype=np.float64))
    b = m.tensor(np.arange(3, dtype=np.float64) * 0.5)
    f = lambda x, y: (x * y.sin()).sum() + (x ** 3).sum()       # noqa: E731
    g = lambda x: x.exp() * 2                                      # noqa: E731
    cube = lambda x: (x ** 3).sum()                                # noqa: E731
    F = m.autograd.functional
    return {
        "jacobian": lambda: F.jacobian(g, a), "jacobian_tuple_in": lambda: F.jacobian(f, (a, b)),
        "jacobian_tuple_out": lambda: F.jacobian(lambda x: (x, x * 2), a),
        "jacobian_matrix": lambda: F.jacobian(lambda x: x.reshape(3, 1) @ x.reshape(1, 3), a),
        "hessian": lambda: F.hessian(cube, a), "hessian_tuple": lambda: F.hessian(f, (a, b)),
        "vjp": lambda: F.vjp(g, a, m.ones(3, dtype=m.float64)), "jvp": lambda: F.jvp(g, a, m.ones(3, dtype=m.float64)),
        "vhp": lambda: F.vhp(cube, a, m.ones(3, dtype=m.float64)), "hvp": lambda: F.hvp(cube, a, a),
        "vjp_scalar": lambda: F.vjp(cube, a),
    }


def _flat(r):
    if isinstance(r, tuple):
        return [z for q in r for z in _flat(q)]
    return [r.detach().numpy()]


def _nesting(r):
    return tuple(_nesting(q) for q in r) if isinstance(r, tuple) else tuple(r.shape)


@pytest.mark.parity
@pytest.mark.parametrize("name", list(_cases(ember)))
def test_autograd_functional_matches_torch(torch, name):
    import torch.autograd.functional  # noqa: F401
    got, want = _cases(ember)[name](), _cases(torch)[name]()
    assert _nesting(got) == _nesting(want)
    for x, y in zip(_flat(got), _flat(want)):
        np.testing.assert_allclose(x, y, rtol=1e-10)


def test_functional_errors():
    F = ember.autograd.functional
    with pytest.raises(RuntimeError, match="v can only be None"):
        F.vjp(lambda x: x * 2, ember.ones(3))
    with pytest.raises(TypeError, match="must be either a Tensor or a tuple of Tensors"):
        F.jacobian(lambda x: x, [ember.ones(1)])
    with pytest.raises(RuntimeError, match="does not require gradients"):
        F.jacobian(lambda x: ember.ones(2), ember.ones(2), strict=True)
    with pytest.raises(RuntimeError, match="single element"):
        F.hessian(lambda x: x * 2, ember.ones(2))


def test_autograd_paths():
    from ember.autograd.grad_mode import no_grad, enable_grad, set_grad_enabled, inference_mode  # noqa: F401
    from ember.autograd.variable import Variable
    assert no_grad is ember.no_grad and isinstance(ember.ones(1), Variable)
    from ember.utils.hooks import RemovableHandle
    h = ember.nn.Linear(1, 1).register_forward_hook(lambda *a: None)
    assert isinstance(h, RemovableHandle)
