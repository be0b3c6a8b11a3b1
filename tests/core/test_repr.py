"""Tensor printing matches torch's format (numbers, widths, summarization, wrapping, suffixes)."""
import numpy as np
import pytest

import ember

CASES = ["[1.,2.,3.]", "[[1.5,2.25],[3.,4.]]", "[1,2,3]", "[True,False]", "[1e10, 1.]", "[0.0001, 1.]",
         "[1.123456789]", "[[1,2],[3,4]]", "3.5", "7", "[]", "[float('nan'), 1., float('inf')]", "[-1.5, 2.]",
         "[1e-10, 1e10]", "list(range(2000))", "[[0.1]*5]*3", "[100000., 2.5]",
         "np.arange(3000.).reshape(30,100).tolist()", "list(range(30))", "[[[1.,2.],[3.,4.]],[[5.,6.],[7.,8.]]]",
         "[0., 0.]", "[float('nan')]", "[-0.5, 1e-5]", "np.linspace(-3,3,50).tolist()"]


def test_repr_examples():
    assert repr(ember.tensor([[1.0, 2.0]])) == "tensor([[1., 2.]])"
    assert repr(ember.tensor([1.0], dtype=ember.float64)) == "tensor([1.], dtype=ember.float64)"
    assert repr(ember.tensor([1, 2])) == "tensor([1, 2])"
    assert "requires_grad=True" in repr(ember.tensor([1.0], requires_grad=True))


@pytest.mark.parity
@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("dt", [None, "float64", "int32", "float16", "bool"])
def test_repr_parity(case, dt):
    torch = pytest.importorskip("torch")
    data = eval(case)
    with np.errstate(over="ignore"):
        try:
            t = torch.tensor(data, dtype=getattr(torch, dt) if dt else None)
        except Exception:
            pytest.skip("torch refuses this input")
        e = ember.tensor(data, dtype=getattr(ember, dt) if dt else None)
    assert repr(e).replace("ember.", "torch.") == repr(t)
