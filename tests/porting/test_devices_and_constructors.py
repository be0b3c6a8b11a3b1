"""Device strings, Tensor.cuda(), the legacy constructors (torch.Tensor(2, 3), torch.LongTensor(...)),
torch.equal and set_default_device: results and errors compared with torch's CPU build."""
import numpy as np
import pytest

import ember
from _porting import outcome

EXPRS = [
    # device validation: factories, .to(), tensor(), *_like / new_*, modules
    "torch.zeros(2, device='cuda')", "torch.zeros(2, device='cuda:0')", "torch.zeros(2, device='banana')",
    "torch.zeros(2).to('cuda')", "torch.zeros(2).to('banana')", "torch.zeros(2).to(device='cuda')",
    "torch.zeros(2).to(torch.device('cuda'))", "torch.zeros(2).cuda()", "torch.tensor([1.0], device='cuda')",
    "torch.as_tensor([1.0], device='cuda')", "torch.randn(2, device='cuda')", "torch.arange(3, device='cuda')",
    "torch.zeros_like(torch.zeros(2), device='cuda')", "torch.zeros(2).new_zeros(2, device='cuda')",
    "torch.nn.Linear(2, 2).cuda()", "torch.nn.Linear(2, 2).to('cuda')", "torch.device('banana')",
    "torch.device('cuda:x')", "torch.device(0)", "torch.zeros(2, device=0)", "str(torch.device('mps'))",
    "str(torch.zeros(2, device='cpu').device)", "str(torch.zeros(2).to('meta').device)", "torch.zeros(2).is_cuda",
    # legacy constructors
    "torch.Tensor(2, 3).shape", "torch.Tensor([1, 2]).tolist()", "str(torch.Tensor([1, 2]).dtype)",
    "torch.Tensor().shape", "torch.Tensor(torch.Size([2, 1])).shape", "torch.Tensor((1, 2)).tolist()",
    "torch.LongTensor([1.7, -2.5]).tolist()", "str(torch.FloatTensor(2).dtype)", "str(torch.IntTensor(2, 2).dtype)",
    "torch.ByteTensor([1, 2]).tolist()", "torch.BoolTensor([1, 0]).tolist()", "str(torch.HalfTensor([1]).dtype)",
    "str(torch.DoubleTensor(1).dtype)", "str(torch.CharTensor([1]).dtype)", "str(torch.ShortTensor([1]).dtype)",
    "str(torch.BFloat16Tensor([1]).dtype)", "torch.Tensor(2, 3.0)", "torch.Tensor('a')", "torch.Tensor(-1)",
    "torch.Tensor([1], dtype=torch.int64)", "torch.Tensor(2, device='cuda')", "torch.Tensor(np.float32(2))",
    "torch.LongTensor(torch.ones(2))", "torch.Tensor(torch.ones(2, dtype=torch.int64)).tolist()",
    "str(torch.Tensor(torch.ones(2, dtype=torch.int64)).dtype)", "torch.Tensor(3).fill_(1).tolist()",
    "isinstance(torch.ones(2), torch.FloatTensor)", "isinstance(torch.ones(2, dtype=torch.int64), torch.FloatTensor)",
    "isinstance(torch.ones(2, dtype=torch.int64), torch.LongTensor)", "str(torch.ones(2).type(torch.LongTensor).dtype)",
    "str(torch.LongTensor.dtype)",
    # equal
    "torch.equal(torch.ones(2, 3), torch.ones(3, 2))", "torch.equal(torch.ones(2, dtype=torch.int64), torch.ones(2))",
    "torch.equal(torch.ones(2), torch.ones(1))", "torch.equal(torch.ones(2, 2), torch.ones(2, 2).t())",
    "torch.ones(2).equal(torch.ones(2))", "torch.equal(torch.tensor([float('nan')]), torch.tensor([float('nan')]))",
    "torch.equal(torch.ones(1), None)", "torch.equal(torch.tensor([1 + 1j]), torch.tensor([1 + 1j]))",
    "torch.equal(torch.ones(2, requires_grad=True), torch.ones(2))",
]


def _norm(o):
    """Outcomes compare by value; error messages past the first line, and the module name in them, may
    differ (torch lists its dispatch keys, ember prints 'ember.' for 'torch.')."""
    if o[0] == "raise":
        return ("raise", o[1], o[2].split("\n")[0].replace("ember.", "torch.")[:60])
    v = o[1]
    if isinstance(v, str):
        v = v.replace("ember.", "torch.")
    return ("ok", tuple(v) if type(v).__name__ == "Size" else v)


@pytest.mark.parity
@pytest.mark.parametrize("expr", EXPRS)
def test_matches_torch(torch, expr):
    got = outcome(lambda: eval(expr, {"torch": ember, "np": np}))
    want = outcome(lambda: eval(expr, {"torch": torch, "np": np}))
    if expr.startswith("torch.LongTensor(torch.ones"):      # torch prints TensorOptions(...) here
        assert got[:2] == want[:2] == ("raise", "TypeError")
        return
    assert _norm(got) == _norm(want)


def test_other_backends_raise_not_implemented():
    with pytest.raises(NotImplementedError, match="'MPS' backend"):
        ember.zeros(2, device="mps")
    with pytest.raises(NotImplementedError, match="'XPU' backend"):
        ember.ones(2).to("xpu")


def test_set_default_device():
    try:
        ember.set_default_device("meta")
        assert ember.get_default_device() == ember.device("meta")
        for t in (ember.zeros(2), ember.tensor([1.0]), ember.arange(3), ember.randn(2), ember.empty(1)):
            assert t.device.type == "meta"
        assert ember.zeros(2, device="cpu").device.type == "cpu"
        ember.set_default_device("cuda")            # accepted, as torch; the factories then raise
        with pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled"):
            ember.zeros(1)
    finally:
        ember.set_default_device(None)
    assert ember.zeros(1).device.type == "cpu" and ember.get_default_device() == ember.device("cpu")


def test_tensor_subclass_legacy_constructor():
    class MyTensor(ember.Tensor):
        pass
    t = MyTensor([1.0, 2.0])
    assert type(t) is MyTensor and t.tolist() == [1.0, 2.0]
    assert type(ember.nn.Parameter(ember.ones(2))) is ember.nn.Parameter
