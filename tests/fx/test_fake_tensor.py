"""FakeTensor / FakeTensorMode: metadata computed by the Meta kernels, memoized conversion that keeps aliasing,
the cache of meta results, autograd on fakes, and torch's errors."""
import pytest

import ember
from ember._subclasses.fake_tensor import (DataDependentOutputException, DynamicOutputShapeException, FakeTensor,
                                           FakeTensorMode, UnsupportedOperatorException)

from ._models import Block


def test_ops_compute_metadata_only():
    mode = FakeTensorMode()
    x = mode.from_tensor(ember.randn(3, 4))
    assert isinstance(x, FakeTensor) and x.device.type == "cpu" and x.shape == (3, 4)
    with mode:
        y = (x @ x.t()).sum(0, keepdim=True)
        z = ember.zeros(2, 5, dtype=ember.float64)
        t = x.transpose(0, 1)
    assert isinstance(y, FakeTensor) and tuple(y.shape) == (1, 3)
    assert isinstance(z, FakeTensor) and z.dtype == ember.float64 and z.device.type == "cpu"
    assert t.stride() == (1, 4) and t._base is x
    assert repr(y) == "FakeTensor(..., size=(1, 3))"
    assert y.untyped_storage().device.type == "meta"      # no bytes behind it


def test_fake_tensors_work_outside_the_mode():
    mode = FakeTensorMode()
    x = mode.from_tensor(ember.randn(2, 3))
    y = ember.relu(x) * 2
    assert isinstance(y, FakeTensor) and y.fake_mode is mode and tuple(y.shape) == (2, 3)


def test_from_tensor_is_memoized_and_keeps_aliasing():
    mode = FakeTensorMode()
    a = ember.randn(6)
    v = a[1:4]
    fa, fv = mode.from_tensor(a), mode.from_tensor(v)
    assert mode.from_tensor(a) is fa
    assert fv._base is fa and fv.untyped_storage() is fa.untyped_storage()
    assert fv.storage_offset() == 1
    b = ember.randn(6)
    assert mode.from_tensor(b).untyped_storage() is not fa.untyped_storage()


def test_meta_results_are_cached():
    mode = FakeTensorMode()
    x = mode.from_tensor(ember.randn(4, 4))
    with mode:
        ember.exp(x)
        misses = mode.cache_info()["misses"]
        e = ember.exp(x)
    info = mode.cache_info()
    assert info["hits"] >= 1 and info["misses"] == misses
    assert isinstance(e, FakeTensor) and tuple(e.shape) == (4, 4)
    x2 = mode.from_tensor(ember.randn(5, 4))
    with mode:
        assert tuple(ember.exp(x2).shape) == (5, 4)       # other sizes: another entry


def test_autograd_on_fake_tensors():
    mode = FakeTensorMode()
    p = mode.from_tensor(ember.randn(3, requires_grad=True))
    assert p.requires_grad and p.is_leaf
    with mode:
        loss = (p * p).sum()
        loss.backward()
    assert isinstance(p.grad, FakeTensor) and tuple(p.grad.shape) == (3,)


def test_gpt_block_forward_under_fake_mode():
    ember.manual_seed(0)
    m = Block()
    mode = FakeTensorMode(allow_non_fake_inputs=True)    # the parameters are real: converted on use
    with mode:
        x = ember.randn(2, 8, 16)
        y = m(x)
    assert isinstance(y, FakeTensor) and tuple(y.shape) == (2, 8, 16)


def test_data_dependent_errors():
    mode = FakeTensorMode()
    x = mode.from_tensor(ember.randn(5))
    with mode:
        with pytest.raises(DynamicOutputShapeException, match="aten.nonzero.default"):
            ember.nonzero(x)
        with pytest.raises(DataDependentOutputException, match="aten._local_scalar_dense.default"):
            x.sum().item()
        with pytest.raises(DataDependentOutputException):
            bool(x.sum() > 0)
        with pytest.raises(DataDependentOutputException):
            x.tolist()
        mask = mode.from_tensor(ember.tensor([True, False, True, True, False]))
        with pytest.raises(DynamicOutputShapeException, match="aten.index.Tensor"):
            x[mask]                                  # a boolean mask index: data-dependent shape, as torch
        assert tuple(x[mode.from_tensor(ember.tensor([0, 2]))].shape) == (2,)   # integer indices are fine


def test_mixing_fake_and_real_raises():
    mode = FakeTensorMode()
    x = mode.from_tensor(ember.randn(3))
    real = ember.randn(3)
    with pytest.raises(AssertionError, match="Please convert all Tensors to FakeTensors first .* Found in "
                                             r"aten.add.Tensor\(FakeTensor"):
        x + real
    mode2 = FakeTensorMode(allow_non_fake_inputs=True)
    y = mode2.from_tensor(ember.randn(3))
    with mode2:
        assert isinstance(y + real, FakeTensor)


def test_op_without_meta_kernel_is_named():
    lib = ember.library.Library("fxtest", "DEF")
    lib.define("cpu_only(Tensor x) -> Tensor")
    lib.impl("cpu_only", lambda x: x * 2, "CPU")
    mode = FakeTensorMode()
    x = mode.from_tensor(ember.randn(2))
    with mode, pytest.raises(UnsupportedOperatorException, match="fxtest.cpu_only.default"):
        ember.ops.fxtest.cpu_only(x)
    assert ember.ops.fxtest.cpu_only(ember.ones(2)).tolist() == [2.0, 2.0]


def test_modules_built_inside_fake_mode_are_fake():
    # Parameter(fake) keeps the fake mode; ember.tensor(...) (BatchNorm's num_batches_tracked) is lifted into the
    # mode as torch lifts it, so a whole model can be built and trained on fakes (torch's "Mixing fake modes" bug)
    mode = FakeTensorMode()
    with mode:
        m = ember.nn.Sequential(ember.nn.Linear(3, 4), ember.nn.BatchNorm1d(4), ember.nn.ReLU())
        y = m(ember.ones(2, 3))
        y.sum().backward()
    w = m[0].weight
    assert isinstance(w, ember.nn.Parameter) and isinstance(w, FakeTensor) and w.fake_mode is mode
    assert isinstance(m[1].num_batches_tracked, FakeTensor) and m[1].num_batches_tracked.fake_mode is mode
    assert isinstance(y, FakeTensor) and tuple(y.shape) == (2, 4)
    assert isinstance(w.grad, FakeTensor) and tuple(w.grad.shape) == (4, 3)


@pytest.mark.parity
def test_make_fx_lifts_tensor_constants_as_torch():
    torch = pytest.importorskip("torch")
    from torch.fx.experimental.proxy_tensor import make_fx as torch_make_fx

    from ember.fx.experimental.proxy_tensor import make_fx

    def f(T):
        return lambda x: x + T.tensor([1.0, 2.0])
    ours = make_fx(f(ember))(ember.ones(2))
    theirs = torch_make_fx(f(torch))(torch.ones(2))
    assert ours.code.replace("ember.", "torch.") == theirs.code
    assert ours(ember.ones(2)).tolist() == [2.0, 3.0]
