"""nn.AdaptiveLogSoftmaxWithLoss against torch with identical weights: forward output and loss (batched and
not), their gradients, log_prob, predict (all-shortlist, all-tail and mixed rows) and torch's errors."""
import numpy as np
import pytest

import ember


def _pair(torch, *args, **kw):
    t = torch.nn.AdaptiveLogSoftmaxWithLoss(*args, **kw).double()
    e = ember.nn.AdaptiveLogSoftmaxWithLoss(*args, **kw).double()
    e.load_state_dict({k: ember.tensor(v.detach().numpy()) for k, v in t.state_dict().items()})
    return t, e


@pytest.mark.parity
@pytest.mark.parametrize("cutoffs,head_bias,div", [([3, 7], False, 4.0), ([2], True, 2.0), ([1, 4, 8], True, 1.5)])
def test_forward_loss_and_grads_match_torch(cutoffs, head_bias, div):
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    t, e = _pair(torch, 16, 12, cutoffs, div_value=div, head_bias=head_bias)
    assert sorted(e.state_dict()) == sorted(t.state_dict()) and repr(e) == repr(t)
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((9, 16)), rng.integers(0, 12, 9)
    res = []
    for lib, m in ((torch, t), (ember, e)):
        xt = lib.tensor(x, requires_grad=True)
        out, loss = m(xt, lib.tensor(y))
        (loss + (out * lib.tensor(np.arange(9.0))).sum()).backward()
        grads = {n: p.grad.numpy() for n, p in m.named_parameters()}
        one = m(lib.tensor(x[0]), lib.tensor(y[0]))
        res.append((out.detach().numpy(), loss.item(), xt.grad.numpy(), grads, one.output.detach().numpy(),
                    one.loss.item(), type(one).__name__, one._fields))
    np.testing.assert_allclose(res[1][0], res[0][0], rtol=1e-10)
    assert res[1][1] == pytest.approx(res[0][1], rel=1e-10)
    np.testing.assert_allclose(res[1][2], res[0][2], rtol=1e-9, atol=1e-12)
    assert res[1][3].keys() == res[0][3].keys()
    for n in res[0][3]:
        np.testing.assert_allclose(res[1][3][n], res[0][3][n], rtol=1e-9, atol=1e-12, err_msg=n)
    np.testing.assert_allclose(res[1][4], res[0][4], rtol=1e-10)
    assert res[1][5] == pytest.approx(res[0][5], rel=1e-10) and res[1][6:] == res[0][6:]


@pytest.mark.parity
def test_log_prob_and_predict_match_torch():
    torch = pytest.importorskip("torch")
    torch.manual_seed(1)
    t, e = _pair(torch, 8, 10, [2, 6], head_bias=True)
    rng = np.random.default_rng(1)
    x = rng.standard_normal((12, 8))
    np.testing.assert_allclose(e.log_prob(ember.tensor(x)).detach().numpy(), t.log_prob(torch.tensor(x)).detach().numpy(),
                               rtol=1e-10)
    np.testing.assert_allclose(np.exp(e.log_prob(ember.tensor(x)).detach().numpy()).sum(1), 1.0)
    # head biases steer the head's argmax: every row in the shortlist, every row to a cluster, a mix
    for bias in ([9, 9, 0, 0], [0, 0, 9, 9], None):
        with torch.no_grad():
            if bias is not None:
                t.head.bias.copy_(torch.tensor(bias, dtype=torch.float64))
        e.head.bias.data = ember.tensor(t.head.bias.detach().numpy())
        np.testing.assert_array_equal(e.predict(ember.tensor(x)).numpy(), t.predict(torch.tensor(x)).numpy())


@pytest.mark.parity
@pytest.mark.parametrize("make,call", [
    (lambda nn: nn.AdaptiveLogSoftmaxWithLoss(8, 10, []), None),
    (lambda nn: nn.AdaptiveLogSoftmaxWithLoss(8, 10, [5, 3]), None),
    (lambda nn: nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3, 10]), None),
    (lambda nn: nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3, 3]), None),
    (lambda nn: nn.AdaptiveLogSoftmaxWithLoss(8, 10, [0, 3]), None),
    (lambda nn: nn.AdaptiveLogSoftmaxWithLoss(8, 10, [2.5]), None),
    (lambda nn: nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3]), lambda lib, m: m(lib.zeros(4, 8), lib.tensor([1, 2, 3]))),
    (lambda nn: nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3]), lambda lib, m: m(lib.zeros(4, 2, 8), lib.tensor([1, 2, 3, 4]))),
    (lambda nn: nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3]), lambda lib, m: m(lib.zeros(2, 8), lib.tensor(1))),
    (lambda nn: nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3]), lambda lib, m: m(lib.zeros(2, 8), lib.zeros(2, 2).long())),
    (lambda nn: nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3]), lambda lib, m: m(lib.zeros(2, 8), lib.tensor([1, 12]))),
    (lambda nn: nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3]), lambda lib, m: m(lib.zeros(2, 8), lib.tensor([-1, 2]))),
])
def test_errors_match_torch(make, call):
    torch = pytest.importorskip("torch")
    errs = []
    for lib in (torch, ember):
        try:
            m = make(lib.nn)
            call(lib, m)
        except Exception as ex:  # noqa: BLE001  (compared below)
            errs.append(ex)
        else:
            errs.append(None)
    assert errs[0] is not None
    assert type(errs[1]) is type(errs[0]) and str(errs[1]) == str(errs[0])
