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


@pytest.mark.parity
@pytest.mark.parametrize("shape, perm", [((0, 3), (1, 0)), ((2, 0, 3), (1, 2, 0)), ((2, 0, 3), (2, 1, 0)),
                                         ((0, 2, 3), (0, 2, 1)), ((2, 3, 0), (2, 1, 0)),
                                         ((2, 0, 3, 4), (3, 1, 2, 0)), ((2, 0, 3, 4), (1, 2, 0, 3))])
def test_contiguous_of_an_empty_permuted_tensor_is_itself_as_in_torch(shape, perm):
    """torch's compute_contiguous: no elements means contiguous, whatever the strides; so contiguous() and
    reshape to the same shape return the tensor (or a view) with its own strides, not a copy."""
    torch = pytest.importorskip("torch")
    t, e = torch.empty(shape).permute(perm), ember.empty(shape).permute(perm)
    assert e.stride() == t.stride()
    assert e.is_contiguous() is t.is_contiguous() is True
    assert e.contiguous() is e and t.contiguous() is t
    assert e.reshape(e.shape).stride() == t.reshape(t.shape).stride()
    assert e.reshape(-1).stride() == t.reshape(-1).stride()


@pytest.mark.parity
@pytest.mark.parametrize("dt", ["float32", "int64", "bool"])
def test_reshape_of_a_permuted_tensor_is_a_fresh_copy_as_in_torch(dt):
    """reshape's copy case (no view possible): a fresh contiguous tensor with the permuted order's values, not
    sharing memory with the source (the no-grad cpu path calls clone's kernel and reshapes its array)."""
    torch = pytest.importorskip("torch")
    for shape in [(8,), (4, 2), (2, 2, 2)]:
        t = (torch.arange(8).reshape(2, 4) % 3).to(getattr(torch, dt)).t()
        e = (ember.arange(8).reshape(2, 4) % 3).to(getattr(ember, dt)).t()
        te, ee = t.reshape(shape), e.reshape(shape)
        assert ee.dtype is getattr(ember, dt) and ee.shape == te.shape and ee.stride() == te.stride()
        assert (ee._base is None) is (te._base is None) and ee.is_contiguous() is te.is_contiguous()
        np.testing.assert_array_equal(ee.numpy(), te.numpy())
        if te._base is None:                         # (8,): the copy case
            ee.view(-1)[0] = 1
            assert ember.equal(e, (ember.arange(8).reshape(2, 4) % 3).to(getattr(ember, dt)).t())
    with ember.inference_mode():
        assert ember.ones(2, 3).t().reshape(6).is_inference()


@pytest.mark.parity
@pytest.mark.parametrize("shape", [(), (0,), (2, 3), (1 << 16,)])
@pytest.mark.parametrize("src,dst", [("float32", "float16"), ("float32", "float64"), ("float64", "bfloat16"),
                                     ("int64", "float32"), ("float32", "int32"), ("bool", "float32")])
def test_to_dtype_of_a_contiguous_tensor_matches_torch(shape, src, dst):
    """`.to(dtype)` of a c-contiguous tensor (copy.py's _to_copy fast path): torch's values, dtype, shape and
    contiguous strides, a fresh tensor; under inference_mode an inference tensor; with grad a ToCopyBackward0."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(1)
    a = np.asarray(rng.standard_normal(shape) * 100, dtype=np.float64)
    want = torch.tensor(a).to(getattr(torch, src)).to(getattr(torch, dst))
    x = ember.tensor(a).to(getattr(ember, src))
    got = x.to(getattr(ember, dst))
    assert str(got.dtype) == str(want.dtype).replace("torch", "ember") and got.shape == tuple(want.shape)
    # (an empty tensor made from numpy data: torch's strides (0,), ember's (1,), as before this path)
    assert (got.stride() == want.stride() or not got.numel()) and got.is_contiguous()
    np.testing.assert_array_equal(got.float().numpy(), want.float().numpy())
    assert got.data_ptr() != x.data_ptr() or got.numel() == 0
    with ember.inference_mode():
        assert x.to(getattr(ember, dst)).is_inference()
    if src.startswith("float") and dst.startswith(("float", "bfloat")):
        g = x.detach().requires_grad_().to(getattr(ember, dst))
        assert g.grad_fn is not None and g.grad_fn.name() == "ToCopyBackward0"
