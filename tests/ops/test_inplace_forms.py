"""torch.addmv_, torch.resize_as_ and torch.as_strided_ (the in-place forms of addmv, resize_ to a template and
as_strided) against torch."""
import numpy as np
import pytest

import ember


@pytest.mark.parity
def test_addmv_resize_as_as_strided_in_place():
    """torch.addmv_, torch.resize_as_ / Tensor.resize_as_ and torch.as_strided_ / Tensor.as_strided_: results,
    the in-place geometry, as_strided_'s gradient and the refusal to resize a tensor that requires grad."""
    torch = pytest.importorskip("torch")
    res = []
    for lib in (torch, ember):
        y = lib.ones(3)
        r1 = lib.addmv_(y, lib.arange(6.).reshape(3, 2), lib.tensor([1., 2.]), beta=2, alpha=3)
        b = lib.zeros(2, 2)
        r2 = lib.resize_as_(b, lib.zeros(3, 4))
        m = lib.zeros(1, 3, 2, 2).to(memory_format=lib.channels_last)
        z = lib.zeros(1).resize_as_(m, memory_format=lib.preserve_format)
        x = lib.arange(10.)
        lib.as_strided_(x, (2, 3), (3, 1), 1)
        leaf = lib.arange(10., requires_grad=True)
        t = leaf.clone()
        u = t.as_strided_((3,), (2,), 1)
        (u * lib.tensor([1., 2., 3.])).sum().backward()
        with pytest.raises(RuntimeError, match="^cannot resize variables that require grad$"):
            lib.zeros(2, requires_grad=True).resize_as_(lib.zeros(3))
        res.append((r1 is y, y.numpy(), r2 is b, tuple(b.shape), b.stride(), z.stride(), x.numpy(), x.stride(),
                    u is t, u.grad_fn.name(), leaf.grad.numpy()))
    for a, b in zip(*res):
        if isinstance(a, np.ndarray):
            np.testing.assert_array_equal(b, a)
        else:
            assert a == b
