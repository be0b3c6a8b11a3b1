"""torch.utils.swap_tensors, checked against torch."""
import numpy as np
import pytest

import ember
from ember.utils import swap_tensors
from _porting import torch_fixture  # noqa: F401  (the `torch` fixture)


@pytest.mark.parity
def test_swap_tensors_matches_torch(torch):
    def run(t):
        a = t.nn.Parameter(t.ones(2))
        b = t.zeros(3, dtype=t.float64)
        b.foo = "bar"
        ia, ib = id(a), id(b)
        t.utils.swap_tensors(a, b)
        return (id(a) == ia, id(b) == ib, type(a).__name__, a.tolist(), str(a.dtype).split(".")[-1],
                type(b).__name__, b.tolist(), b.requires_grad, a.foo)
    assert run(ember) == run(torch)


def test_swap_tensors_keeps_views_and_refuses_weakrefs():
    import weakref
    a, b = ember.zeros(3), ember.ones(3)
    swap_tensors(a, b)
    v = a.view(3)
    a.add_(1)
    assert v.tolist() == [2.0, 2.0, 2.0] and b.tolist() == [0.0, 0.0, 0.0]
    c = ember.ones(1)
    r = weakref.ref(c, lambda _: None)
    with pytest.raises(RuntimeError, match="Cannot swap t1 because it has weakref associated with it"):
        swap_tensors(c, ember.ones(1))
    del r
    with pytest.raises(TypeError):
        swap_tensors(c, [1])
