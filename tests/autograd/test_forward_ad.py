"""Forward-mode AD (dual numbers) against torch.autograd.forward_ad on the OPS table."""
import numpy as np
import pytest

import ember
import ember.autograd.forward_ad as fwAD

from ._util import OPS

torch = pytest.importorskip("torch")


def _torch_ns():
    from .test_parity import _TorchNS
    return _TorchNS()


def _run(fn, mod, ins):
    g = fn.__globals__
    old = g["ember"]
    g["ember"] = mod
    try:
        return fn(*ins)
    finally:
        g["ember"] = old


def _ember_jvp(fn, ins, tangents):
    with fwAD.dual_level():
        duals = [fwAD.make_dual(x.detach(), t) if isinstance(x, ember.Tensor) else x for x, t in zip(ins, tangents)]
        out = fn(*duals)
        p, t = fwAD.unpack_dual(out)
        return p, t


@pytest.mark.parity
@pytest.mark.parametrize("name", sorted(OPS))
def test_jvp_matches_torch(name):
    fn, make = OPS[name]
    ins = make()
    rng = np.random.default_rng(7)
    tans = [rng.standard_normal(tuple(x.shape)) for x in ins]
    try:
        p, t = _ember_jvp(fn, ins, [ember.tensor(v.tolist(), dtype=ember.float64) for v in tans])
    except NotImplementedError as e:
        assert "does not support it" in str(e)
        pytest.skip(str(e))
    import torch.autograd.forward_ad as tfw
    with tfw.dual_level():
        tins = [tfw.make_dual(torch.tensor(x.detach().numpy()), torch.tensor(v)) for x, v in zip(ins, tans)]
        tout = _run(fn, _torch_ns(), tins)
        tp, tt = tfw.unpack_dual(tout)
    np.testing.assert_allclose(p.detach().numpy(), tp.detach().numpy(), rtol=1e-12, atol=1e-12)
    if tt is None:
        assert t is None or not np.any(t.numpy())
        return
    assert t is not None, "no tangent"
    np.testing.assert_allclose(t.detach().numpy(), tt.detach().numpy(), rtol=1e-9, atol=1e-10)


def test_dual_level_rules():
    x = ember.ones(3)
    with pytest.raises(RuntimeError, match="inside a dual_level"):
        fwAD.make_dual(x, x)
    with fwAD.dual_level():
        with pytest.raises(RuntimeError, match="Nested forward mode AD"):
            fwAD.enter_dual_level()
        with pytest.raises(RuntimeError, match="different size"):
            fwAD.make_dual(x, ember.ones(2))
        d = fwAD.make_dual(x, ember.full((3,), 2.0))
        assert fwAD.unpack_dual(x).tangent is None       # the primal itself stays plain
        assert fwAD.unpack_dual(d * 3).tangent.tolist() == [6.0, 6.0, 6.0]
    assert fwAD.unpack_dual(d).tangent is None              # tangents die with the level


def test_forward_and_reverse_compose():
    w = ember.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with fwAD.dual_level():
        d = fwAD.make_dual(ember.tensor([0.1, 0.2, 0.3]), ember.ones(3))
        y = (d * w).sin().sum()
        assert fwAD.unpack_dual(y).tangent is not None
    y.backward()
    np.testing.assert_allclose(w.grad.numpy(), np.cos(np.array([0.1, 0.4, 0.9])) * [0.1, 0.2, 0.3], rtol=1e-6)
