"""Backward on the meta device: grads are meta tensors with the inputs' shapes and dtypes (torch computes
shapes only). The numpy helpers of the formulas (sum_to, expand_to, to_dtype, the implicit seed) used to
return cpu tensors here."""
import pytest

import ember

F = ember.nn.functional


def _meta(*shape, dtype=ember.float32):
    return ember.empty(*shape, device="meta", dtype=dtype, requires_grad=True)


CASES = {
    "sum": lambda x, b, w: x.sum(),
    "mean": lambda x, b, w: (x * 2).mean(),
    "broadcast_to_dtype": lambda x, b, w: (x + b).to(ember.float64).sum(),
    "linear_relu": lambda x, b, w: F.linear(x, w).relu().sum(),
    "softmax_ce": lambda x, b, w: F.cross_entropy(F.linear(x, w), ember.zeros(3, dtype=ember.int64, device="meta")),
}


@pytest.mark.parametrize("name", list(CASES))
def test_grads_stay_on_meta(name):
    x, b, w = _meta(3, 4), _meta(4), _meta(5, 4)
    out = CASES[name](x, b, w)
    ins = [t for t in (x, b, w)]
    grads = ember.autograd.grad(out, ins, allow_unused=True)
    for t, g in zip(ins, grads):
        if g is None:
            continue
        assert g.device.type == "meta", name
        assert tuple(g.shape) == tuple(t.shape) and g.dtype == t.dtype


def test_backward_accumulates_meta_grads():
    x, b = _meta(3, 4), _meta(4)
    (x + b).sum().backward()
    assert x.grad.device.type == "meta" and tuple(b.grad.shape) == (4,)
    (x * b).sum().backward()
    assert x.grad.device.type == "meta" and b.grad.device.type == "meta" and tuple(x.grad.shape) == (3, 4)
