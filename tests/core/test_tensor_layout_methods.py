"""Tensor methods for layouts and memory ember has no other kind of: to_dense/is_pinned/pin_memory answer as
torch does on a CPU-only machine; conversions to sparse or mkldnn layouts raise NotImplementedError naming the
missing feature (never a bare AttributeError)."""
import pytest

import ember


@pytest.fixture(params=["ember", "torch"])
def lib(request):
    return ember if request.param == "ember" else pytest.importorskip("torch")


@pytest.mark.parity
def test_to_dense_of_a_strided_tensor_is_itself(lib):
    t = lib.ones(2, 3, requires_grad=True)
    assert t.to_dense() is t
    d = t.to_dense(lib.float64)
    assert d.dtype == lib.float64 and d.shape == t.shape


@pytest.mark.parity
def test_pinned_memory_on_a_cpu_only_machine(lib):
    t = lib.ones(2)
    assert t.is_pinned() is False
    if lib is not ember:
        import torch
        if torch.accelerator.is_available():
            pytest.skip("torch has an accelerator here")
    with pytest.raises(RuntimeError, match="Cannot access accelerator device when none is available"):
        t.pin_memory()


@pytest.mark.parametrize("name", ["to_sparse", "to_sparse_coo", "to_sparse_csr", "to_sparse_csc", "to_sparse_bsr",
                                  "to_sparse_bsc", "to_mkldnn"])
def test_missing_layouts_raise_not_implemented_naming_them(name):
    with pytest.raises(NotImplementedError, match="ember does not implement (sparse|mkldnn) tensors"):
        getattr(ember.ones(2, 2), name)()
