"""nn.SyncBatchNorm against torch on cpu without a process group: convert_sync_batchnorm (structure, shared
parameters and buffers), forward in training and eval (plain batch norm), its input checks and repr."""
import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.parity


def _model(L):
    L.manual_seed(0)
    m = L.nn.Sequential(L.nn.Conv2d(2, 3, 1), L.nn.BatchNorm2d(3, momentum=None),
                        L.nn.Sequential(L.nn.Flatten(), L.nn.BatchNorm1d(12, affine=False)))
    with L.no_grad():
        for i, p in enumerate(m.parameters()):
            p.copy_(L.tensor(np.linspace(-1, 1, p.numel()).reshape(tuple(p.shape)) + i, dtype=L.float32))
    return m


def test_convert_sync_batchnorm_and_forward_match_torch():
    x = np.random.default_rng(0).standard_normal((4, 2, 2, 2)).astype(np.float32)
    out = []
    for L in (torch, ember):
        m = _model(L)
        bn = m[1]
        s = L.nn.SyncBatchNorm.convert_sync_batchnorm(m)
        row = [repr(s), s is m, s[1].weight is bn.weight, s[1].running_mean is bn.running_mean,
               type(s[2][1]).__name__, s[1].process_group]
        y1 = s(L.tensor(x))
        y1.pow(2).sum().backward()
        y2 = s(L.tensor(x) * 2)
        s.eval()
        y3 = s(L.tensor(x))
        row += [y.detach().numpy() for y in (y1, y2, y3)]
        row += [s[1].running_mean.numpy(), s[1].running_var.numpy(), s[1].num_batches_tracked.item(),
                s[1].weight.grad.numpy()]
        single = L.nn.SyncBatchNorm.convert_sync_batchnorm(L.nn.BatchNorm1d(3, bias=False), process_group="pg")
        row += [repr(single), single.process_group, single.bias is None]
        out.append(row)
    t, e = out
    assert e[:6] == t[:6] and e[-3:] == t[-3:] and e[11] == t[11]
    for a, b in zip(e[6:11] + e[12:13], t[6:11] + t[12:13]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("x", [lambda L: L.ones(3), lambda L: L.ones(2, 0, 3)], ids=["1d", "no-channels"])
def test_sync_batchnorm_input_errors_match_torch(x):
    errs = []
    for L in (torch, ember):
        with pytest.raises(ValueError) as e:
            L.nn.SyncBatchNorm(3)(x(L))
        errs.append(str(e.value))
    assert errs[0] == errs[1]
