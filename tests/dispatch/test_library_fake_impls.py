"""torch.library's fake-impl helpers and fallthroughs (get_ctx, impl_abstract, fallthrough_kernel) against torch."""
import re
import uuid
import warnings

import numpy as np
import pytest

import ember
import ember._subclasses.fake_tensor as efake

torch = pytest.importorskip("torch")
import torch._subclasses.fake_tensor as tfake  # noqa: E402

LIBS = [(ember, efake), (torch, tfake)]


def _ns():
    return "ns19_" + uuid.uuid4().hex[:8]


def _nonzero_op(lib, register):
    ns = _ns()
    L = lib.library.Library(ns, "FRAGMENT")
    L.define("nz(Tensor x) -> Tensor")
    L.impl("nz", lambda x: x.nonzero(), "CPU")
    seen = []

    def fake(x):
        ctx = lib.library.get_ctx()
        seen.append(type(ctx).__name__)
        n = ctx.new_dynamic_size()
        return x.new_empty((n, x.dim()), dtype=lib.int64)
    register(lib, f"{ns}::nz", fake, L)
    return getattr(lib.ops, ns).nz, seen, L


def _outcomes(register):
    res = []
    for lib, fake in LIBS:
        op, seen, L = _nonzero_op(lib, register)
        out = [lib.library.get_ctx()]
        with pytest.raises(RuntimeError) as e:
            op(lib.ones(3, device="meta"))
        out.append(re.sub(r"\(.*?\):", "(<source>):", str(e.value).split("::", 1)[1]))
        with pytest.raises(fake.DynamicOutputShapeException):
            with fake.FakeTensorMode():
                op(lib.ones(3))
        out.append(seen)
        out.append(op(lib.tensor([0.0, 1.0, 2.0])).tolist())      # the cpu kernel is untouched
        res.append(out)
    return res


@pytest.mark.parity
def test_get_ctx_inside_and_outside_fake_impls_matches_torch():
    def reg(lib, qualname, fn, L):
        lib.library.register_fake(qualname, fn, lib=L)
    e, t = _outcomes(reg)
    assert e == t
    assert e[0] is None and e[2] == ["FakeImplCtx"] and e[3] == [[1], [2]]


@pytest.mark.parity
def test_impl_abstract_warns_and_registers_as_register_fake():
    def reg(lib, qualname, fn, L):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            lib.library.impl_abstract(qualname, fn, lib=L)
        assert [x.category for x in w] == [FutureWarning]
        assert "`torch.library.impl_abstract` was renamed to `torch.library.register_fake`" in str(w[0].message)
    e, t = _outcomes(reg)
    assert e == t


@pytest.mark.parity
def test_fake_impl_without_ctx_under_fake_mode():
    for lib, fake in LIBS:
        ns = _ns()
        L = lib.library.Library(ns, "FRAGMENT")
        L.define("twice(Tensor x) -> Tensor")
        L.impl("twice", lambda x: x * 2, "CPU")
        lib.library.register_fake(f"{ns}::twice", lambda x: lib.empty_like(x), lib=L)
        with fake.FakeTensorMode():
            y = getattr(lib.ops, ns).twice(lib.ones(2, 3))
        assert tuple(y.shape) == (2, 3)


@pytest.mark.parity
def test_fallthrough_kernel():
    results = []
    for lib, _ in LIBS:
        with pytest.raises(NotImplementedError, match=r"fallthrough_kernel\(\) should never be called."):
            lib.library.fallthrough_kernel()
        ns = _ns()
        L = lib.library.Library(ns, "FRAGMENT")
        L.define("foo(Tensor x) -> Tensor")
        L.impl("foo", lambda x: x * 2, "CompositeExplicitAutograd")
        L.impl("foo", lib.library.fallthrough_kernel, "Autograd")
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("error")            # torch warns without the fallthrough; not with it
            y = getattr(lib.ops, ns).foo(x)
            (y * y).sum().backward()
        results.append((type(y.grad_fn).__name__, y.tolist(), x.grad.tolist()))
    assert results[0] == results[1] == [("MulBackward0", [2.0, 4.0], [8.0, 16.0])][0]
    np.testing.assert_array_equal(results[0][2], [8.0, 16.0])
