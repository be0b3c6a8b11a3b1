"""ember.optim.swa_utils against torch.optim.swa_utils: the averaged weights over a short training run, EMA,
update_bn's statistics and SWALR's rates."""
import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.parity


def _models():
    rng = np.random.default_rng(0)
    w1, b1, w2 = rng.standard_normal((4, 3)), rng.standard_normal(4), rng.standard_normal((2, 4))

    def build(mod):
        m = mod.nn.Sequential(mod.nn.Linear(3, 4), mod.nn.BatchNorm1d(4), mod.nn.Linear(4, 2, bias=False))
        with mod.no_grad():
            m[0].weight.copy_(mod.tensor(w1, dtype=mod.float32))
            m[0].bias.copy_(mod.tensor(b1, dtype=mod.float32))
            m[2].weight.copy_(mod.tensor(w2, dtype=mod.float32))
        return m
    return build(ember), build(torch)


def _train(mod, model, averaged, steps=6, sched_kind=None):
    opt = mod.optim.SGD(model.parameters(), lr=0.1)
    sched = mod.optim.swa_utils.SWALR(opt, swa_lr=0.05, anneal_epochs=3, anneal_strategy=sched_kind) \
        if sched_kind else None
    rng = np.random.default_rng(1)
    lrs = []
    for _ in range(steps):
        x = mod.tensor(rng.standard_normal((8, 3)), dtype=mod.float32)
        loss = model(x).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        averaged.update_parameters(model)
        if sched:
            sched.step()
            lrs.append(sched.get_last_lr()[0])
    return lrs


@pytest.mark.parametrize("kind", ["swa", "ema", "ema-buffers", "avg_fn"])
def test_averaged_model(kind):
    em, tm = _models()

    def make(mod, m):
        su = mod.optim.swa_utils
        if kind == "swa":
            return su.AveragedModel(m)
        if kind == "ema":
            return su.AveragedModel(m, multi_avg_fn=su.get_ema_multi_avg_fn(0.9))
        if kind == "avg_fn":
            return su.AveragedModel(m, avg_fn=su.get_ema_avg_fn(0.8))
        return su.AveragedModel(m, multi_avg_fn=su.get_ema_multi_avg_fn(0.9), use_buffers=True)
    ea, ta = make(ember, em), make(torch, tm)
    _train(ember, em, ea)
    _train(torch, tm, ta)
    assert int(ea.n_averaged) == int(ta.n_averaged) == 6
    for (n, a), (_, b) in zip(ea.state_dict().items(), ta.state_dict().items()):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-4, atol=1e-5, err_msg=n)
    x = np.random.default_rng(3).standard_normal((5, 3)).astype(np.float32)
    ea.eval()
    ta.eval()
    np.testing.assert_allclose(ea(ember.tensor(x)).detach().numpy(), ta(torch.tensor(x)).detach().numpy(),
                               rtol=1e-4, atol=1e-5)


def test_update_bn():
    em, tm = _models()
    rng = np.random.default_rng(2)
    data = [rng.standard_normal((6, 3)).astype(np.float32) for _ in range(4)]
    em.eval()
    tm.eval()
    ember.optim.swa_utils.update_bn([ember.tensor(d) for d in data], em)
    torch.optim.swa_utils.update_bn([torch.tensor(d) for d in data], tm)
    assert not em.training and em[1].momentum == tm[1].momentum
    np.testing.assert_allclose(em[1].running_mean.numpy(), tm[1].running_mean.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(em[1].running_var.numpy(), tm[1].running_var.numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("strategy", ["cos", "linear"])
def test_swalr(strategy):
    em, tm = _models()
    e = _train(ember, em, ember.optim.swa_utils.AveragedModel(em), 6, strategy)
    t = _train(torch, tm, torch.optim.swa_utils.AveragedModel(tm), 6, strategy)
    np.testing.assert_allclose(e, t, rtol=1e-12)


@pytest.mark.parametrize("call", [
    lambda m, o: m.optim.swa_utils.SWALR(o, 0.1, anneal_strategy="exp"),
    lambda m, o: m.optim.swa_utils.SWALR(o, 0.1, anneal_epochs=-1),
    lambda m, o: m.optim.swa_utils.SWALR(o, [0.1, 0.2]),
    lambda m, o: m.optim.swa_utils.get_ema_multi_avg_fn(1.5),
], ids=["strategy", "epochs", "lengths", "decay"])
def test_errors(call):
    em, tm = _models()
    with pytest.raises(ValueError) as te:
        call(torch, torch.optim.SGD(tm.parameters(), lr=0.1))
    with pytest.raises(ValueError) as ee:
        call(ember, ember.optim.SGD(em.parameters(), lr=0.1))
    assert str(ee.value) == str(te.value)
