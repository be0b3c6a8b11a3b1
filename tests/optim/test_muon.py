"""optim.Muon against torch's: parameters and momentum buffers over several steps (every option, float32 and
float64, tall, wide and square matrices), closures, Tensor lr, state_dict round trips and torch's errors."""
import numpy as np
import pytest

import ember

SHAPES = [(6, 4), (3, 7), (5, 5)]


def _run(lib, kw, dtype, steps=4, lr_tensor=False):
    rng = np.random.default_rng(0)
    ps = [lib.nn.Parameter(lib.tensor(rng.standard_normal(s).astype(dtype))) for s in SHAPES]
    if lr_tensor:
        kw = dict(kw, lr=lib.tensor(kw.get("lr", 1e-3)))
    opt = lib.optim.Muon(ps, **kw)
    for step in range(steps):
        g = np.random.default_rng(100 + step)
        for i, p in enumerate(ps):
            p.grad = None if (i == 2 and step == 1) else lib.tensor(g.standard_normal(SHAPES[i]).astype(dtype))
        opt.step()
    return ps, opt


@pytest.mark.parity
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("kw", [{}, {"lr": 0.02, "nesterov": False}, {"adjust_lr_fn": "match_rms_adamw",
                                                                      "weight_decay": 0.0},
                                {"momentum": 0.0, "ns_steps": 3, "adjust_lr_fn": "original"},
                                {"lr": 0.05, "ns_coefficients": (2.0, -1.5, 0.5), "eps": 1e-3, "momentum": 0.8}],
                         ids=["defaults", "plain-momentum", "match-adamw", "no-momentum", "coefficients"])
def test_steps_match_torch(kw, dtype):
    torch = pytest.importorskip("torch")
    tp, topt = _run(torch, kw, dtype)
    ep, eopt = _run(ember, kw, dtype)
    for t, e in zip(tp, ep):
        assert e.dtype == getattr(ember, np.dtype(dtype).name)
        np.testing.assert_allclose(e.detach().numpy(), t.detach().numpy(), rtol=1e-6, atol=1e-7)
        np.testing.assert_allclose(eopt.state[e]["momentum_buffer"].numpy(), topt.state[t]["momentum_buffer"].numpy(),
                                   rtol=1e-6, atol=1e-7)
    assert eopt.defaults == topt.defaults


@pytest.mark.parity
def test_tensor_lr_closure_and_state_dict():
    torch = pytest.importorskip("torch")
    tp, topt = _run(torch, {"lr": 0.01}, np.float64, lr_tensor=True)
    ep, eopt = _run(ember, {"lr": 0.01}, np.float64, lr_tensor=True)
    for t, e in zip(tp, ep):
        np.testing.assert_allclose(e.detach().numpy(), t.detach().numpy(), rtol=1e-10)
    sd = eopt.state_dict()
    assert sorted(sd["state"]) == [0, 1, 2] and sorted(sd["param_groups"][0]) == sorted(topt.state_dict()["param_groups"][0])
    again = ember.optim.Muon(ep, lr=0.01)
    again.load_state_dict(sd)
    assert all(np.array_equal(again.state[p]["momentum_buffer"].numpy(), eopt.state[p]["momentum_buffer"].numpy())
               for p in ep)
    # closure: evaluated with grad enabled, its loss returned
    res = []
    for lib, ps in ((torch, tp), (ember, ep)):
        opt = lib.optim.Muon(ps[:1], lr=0.1)

        def closure():
            opt.zero_grad()
            loss = (ps[0] ** 2).sum()
            loss.backward()
            return loss
        loss = opt.step(closure)
        res.append((loss.item(), ps[0].detach().numpy().copy()))
    assert res[1][0] == pytest.approx(res[0][0])
    np.testing.assert_allclose(res[1][1], res[0][1], rtol=1e-10)


@pytest.mark.parity
@pytest.mark.parametrize("make", [
    lambda lib, p: lib.optim.Muon([p], lr=-1.0),
    lambda lib, p: lib.optim.Muon([p], momentum=-0.1),
    lambda lib, p: lib.optim.Muon([p], weight_decay=-0.1),
    lambda lib, p: lib.optim.Muon([p], adjust_lr_fn="nope"),
    lambda lib, p: lib.optim.Muon([p], lr=lib.tensor([0.1, 0.2])),
    lambda lib, p: lib.optim.Muon([lib.nn.Parameter(lib.zeros(3))]),
    lambda lib, p: lib.optim.Muon([lib.nn.Parameter(lib.zeros(2, 3, 4))]),
])
def test_constructor_errors_match_torch(make):
    torch = pytest.importorskip("torch")
    errs = []
    for lib in (torch, ember):
        with pytest.raises(ValueError) as info:
            make(lib, lib.nn.Parameter(lib.zeros(3, 3)))
        errs.append(str(info.value).replace("torch.Size", "Size"))
    assert errs[1] == errs[0]


@pytest.mark.parity
@pytest.mark.parametrize("case", ["complex", "ns_steps", "coefficients"])
def test_step_errors_match_torch(case):
    torch = pytest.importorskip("torch")
    errs = []
    for lib in (torch, ember):
        if case == "complex":
            p = lib.nn.Parameter(lib.zeros(2, 2, dtype=lib.complex64))
            opt = lib.optim.Muon([p])
        else:
            p = lib.nn.Parameter(lib.ones(2, 3))
            opt = lib.optim.Muon([p], **({"ns_steps": 100} if case == "ns_steps" else {"ns_coefficients": (1, 2)}))
        p.grad = lib.ones_like(p)
        with pytest.raises((RuntimeError, ValueError)) as info:
            opt.step()
        errs.append((type(info.value), str(info.value)))
        assert np.array_equal(p.detach().numpy(), lib.ones_like(p).numpy() if case != "complex" else p.detach().numpy())
    assert errs[1] == errs[0]


@pytest.mark.parity
def test_swap_in_optimizer_params_and_state_matches_torch():
    """optim.swap_in_optimizer_params_and_state: a step inside the block moves the swapped-in tensors and the
    caller's state_dict buffers in place, leaving the live parameters, groups and state as they were; its checks
    refuse an uninitialised optimizer and a mismatched state_dict as torch does."""
    torch = pytest.importorskip("torch")
    res = []
    for lib in (torch, ember):
        ps, opt = _run(lib, {"lr": 0.02}, np.float64, steps=2)
        live = [p.detach().numpy().copy() for p in ps]
        sd = opt.state_dict()
        sd["param_groups"][0]["lr"] = 0.5
        other = {f"p{i}": lib.nn.Parameter(p.detach().clone() + 1) for i, p in enumerate(ps)}
        for p in other.values():
            p.grad = lib.ones_like(p)
        with lib.optim.swap_in_optimizer_params_and_state(opt, other, sd):
            assert opt.param_groups[0]["lr"] == 0.5 and opt.param_groups[0]["params"][0] is other["p0"]
            opt.step()
        assert opt.param_groups[0]["lr"] == 0.02 and opt.param_groups[0]["params"][0] is ps[0]
        assert all(np.array_equal(p.detach().numpy(), v) for p, v in zip(ps, live))
        errs = []
        for bad in ({"state": [], "param_groups": []}, {"state": {}, "param_groups": [{}]},
                    {"state": {9: {}}, "param_groups": opt.state_dict()["param_groups"]},
                    {"state": {}, "param_groups": [dict(opt.state_dict()["param_groups"][0], extra=1)]}):
            with pytest.raises(RuntimeError) as info:
                with lib.optim.swap_in_optimizer_params_and_state(opt, other, bad):
                    pass
            errs.append(str(info.value))
        fresh = lib.optim.Muon([lib.nn.Parameter(lib.zeros(2, 2))])
        with pytest.raises(RuntimeError) as info:
            with lib.optim.swap_in_optimizer_params_and_state(fresh, {}, fresh.state_dict()):
                pass
        errs.append(str(info.value))
        res.append(([p.detach().numpy() for p in other.values()], [s["momentum_buffer"].numpy() for s in
                                                                    sd["state"].values()], errs))
    for t, e in zip(res[0][0] + res[0][1], res[1][0] + res[1][1]):
        np.testing.assert_allclose(e, t, rtol=1e-10)
    assert res[1][2] == res[0][2]
