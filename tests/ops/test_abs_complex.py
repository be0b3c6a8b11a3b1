"""abs of a complex tensor is real (complex64 -> float32), like torch; abs_ refuses complex input."""
import numpy as np
import pytest

import ember


@pytest.mark.parametrize("dt", ["complex64", "complex128"])
def test_abs_complex_gives_real_values_and_dtype(dt):
    z = ember.tensor([3 + 4j, 1j, -2 + 0j, 0j], dtype=getattr(ember, dt))
    r = ember.abs(z)
    assert r.dtype == getattr(z.dtype, "to_real")()
    np.testing.assert_allclose(r.numpy(), np.abs(z.numpy()))
    assert z[::2].abs().tolist() == [5.0, 2.0]                       # non-contiguous input
    assert ember.abs(ember.empty(2, dtype=z.dtype, device="meta")).dtype == r.dtype


def test_abs_inplace_on_complex_raises_and_leaves_input():
    z = ember.tensor([3 + 4j, -1j])
    with pytest.raises(RuntimeError, match="In-place abs is not supported for complex tensors"):
        z.abs_()
    assert z.tolist() == [3 + 4j, -1j]
    with pytest.raises(RuntimeError, match="In-place abs"):
        ember.empty(2, dtype=ember.complex64, device="meta").abs_()


@pytest.mark.parity
def test_abs_complex_matches_torch_incl_out_and_grad():
    torch = pytest.importorskip("torch")
    vals = [3 + 4j, 1 - 1j, -2.5 + 0.5j]
    z, zt = ember.tensor(vals, requires_grad=True), torch.tensor(vals, requires_grad=True)
    r, rt = ember.abs(z), torch.abs(zt)
    assert str(r.dtype).split(".")[-1] == str(rt.dtype).split(".")[-1]
    np.testing.assert_allclose(r.detach().numpy(), rt.detach().numpy(), rtol=1e-6)
    r.sum().backward()
    rt.sum().backward()
    np.testing.assert_allclose(z.grad.numpy(), zt.grad.numpy(), rtol=1e-6)
    for odt in ("float32", "complex64"):
        o, ot = ember.empty(3, dtype=getattr(ember, odt)), torch.empty(3, dtype=getattr(torch, odt))
        ember.abs(z.detach(), out=o)
        torch.abs(zt.detach(), out=ot)
        np.testing.assert_allclose(o.numpy(), ot.numpy(), rtol=1e-6)
