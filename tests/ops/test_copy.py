"""copy family ops checked directly: clone and contiguous give fresh contiguous copies with the input's values
and dtype (the cpu clone's contiguous_format path), and never alias their input."""
import numpy as np
import pytest

import ember


@pytest.mark.parametrize("dt", [ember.float32, ember.float64, ember.int64, ember.bool, ember.bfloat16,
                                ember.complex64])
@pytest.mark.parametrize("shape", [(2, 3, 4), (0, 3, 1), (5, 1, 2)])
def test_contiguous_of_transposed_is_a_fresh_contiguous_copy(dt, shape):
    base = ember.arange(int(np.prod(shape))).reshape(shape).to(dt)
    x = base.transpose(0, 2)
    y = x.contiguous()
    assert y.dtype is dt and y.shape == x.shape and y.is_contiguous() and y.stride() == y.contiguous().stride()
    assert y.data_ptr() != base.data_ptr() or x.numel() == 0
    assert ember.equal(y, x)
    c = x.clone(memory_format=ember.contiguous_format)
    assert c.is_contiguous() and ember.equal(c, x)
    p = x.clone()                                        # preserve_format keeps the transposed strides
    assert p.stride() == x.stride() or x.numel() == 0
    if x.numel():
        y.view(-1)[0] = 1 if dt is not ember.bool else False
        assert ember.equal(x, base.transpose(0, 2))


def test_contiguous_of_a_contiguous_tensor_is_itself():
    x = ember.randn(3, 4)
    assert x.contiguous() is x


@pytest.mark.parity
def test_to_copy_of_a_non_dense_view_keeps_its_dims_order():
    """`_to_copy` (to(dtype), double()) of a non-dense view gives the dense strides of the view's dims order,
    as clone does (torch 2.13), not contiguous strides."""
    torch = pytest.importorskip("torch")
    views = [lambda m: m.zeros(2, 40)[:, :17].t(), lambda m: m.zeros(4, 3, 40)[:, 1:, :17].permute(2, 0, 1),
             lambda m: m.zeros(5, 6)[::2].t(), lambda m: m.zeros(2, 3, 4, 5).permute(0, 2, 3, 1)[:, :, 1:]]
    for make in views:
        want, got = make(torch), make(ember)
        for conv in (lambda t, m: t.to(m.float64), lambda t, m: t.double(), lambda t, m: t.to(m.bfloat16),
                     lambda t, m: t.to(m.float32, memory_format=m.preserve_format)):
            assert conv(got, ember).stride() == conv(want, torch).stride()
