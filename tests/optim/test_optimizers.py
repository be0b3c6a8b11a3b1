import copy
import pickle

import numpy as np
import pytest

import ember
import ember.nn as nn
import ember.optim as optim

SHAPES = [(4, 3), (5,), (2, 2, 2)]


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


def params(lib, seed=0, dtype=np.float32):
    rng = np.random.default_rng(seed)
    return [lib.nn.Parameter(lib.tensor(rng.standard_normal(s).astype(dtype))) for s in SHAPES]


def grads(step, dtype=np.float32):
    rng = np.random.default_rng(100 + step)
    return [rng.standard_normal(s).astype(dtype) for s in SHAPES]


CASES = [
    ("SGD", dict(lr=0.1)),
    ("SGD", dict(lr=0.1, momentum=0.9)),
    ("SGD", dict(lr=0.1, momentum=0.9, dampening=0.3, weight_decay=0.01)),
    ("SGD", dict(lr=0.05, momentum=0.8, nesterov=True, weight_decay=0.1, maximize=True)),
    ("Adam", dict()),
    ("Adam", dict(lr=0.01, betas=(0.8, 0.99), eps=1e-6, weight_decay=0.1)),
    ("Adam", dict(lr=0.01, amsgrad=True, maximize=True)),
    ("Adam", dict(lr=0.01, weight_decay=0.05, decoupled_weight_decay=True)),
    ("AdamW", dict(lr=0.01)),
    ("AdamW", dict(lr=0.01, weight_decay=0.1, amsgrad=True, betas=(0.5, 0.9))),
    ("RMSprop", dict()),
    ("RMSprop", dict(lr=0.01, momentum=0.9, centered=True, weight_decay=0.1)),
    ("RMSprop", dict(lr=0.01, alpha=0.3, centered=True, maximize=True)),
    ("Adagrad", dict()),
    ("Adagrad", dict(lr=0.1, lr_decay=0.01, weight_decay=0.1, initial_accumulator_value=0.5)),
    ("Adamax", dict()),
    ("Adamax", dict(lr=0.01, betas=(0.5, 0.9), weight_decay=0.1, maximize=True)),
    ("NAdam", dict()),
    ("NAdam", dict(lr=0.01, weight_decay=0.1, momentum_decay=0.01)),
    ("NAdam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True, maximize=True)),
    ("RAdam", dict()),
    ("RAdam", dict(lr=0.01, betas=(0.5, 0.6), weight_decay=0.1)),
    ("RAdam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True)),
    ("Adadelta", dict()),
    ("Adadelta", dict(lr=0.5, rho=0.5, weight_decay=0.1, maximize=True)),
    ("Rprop", dict()),
    ("Rprop", dict(lr=0.05, etas=(0.3, 1.5), step_sizes=(1e-3, 0.1), maximize=True)),
    ("ASGD", dict()),
    ("ASGD", dict(lr=0.05, lambd=0.01, alpha=0.5, t0=2, weight_decay=0.1, maximize=True)),
    ("Adafactor", dict()),
    ("Adafactor", dict(lr=0.05, beta2_decay=-0.5, eps=(1e-20, 1e-2), d=1.5, weight_decay=0.1, maximize=True)),
]


@pytest.mark.parametrize("name,kwargs", CASES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CASES)])
def test_step_parity_with_torch(torch, name, kwargs):
    pe, pt = params(ember), params(torch)
    oe = getattr(optim, name)(pe, **kwargs)
    ot = getattr(torch.optim, name)(pt, **kwargs)
    for step in range(6):
        for a, b, g in zip(pe, pt, grads(step)):
            a.grad = ember.tensor(g)
            b.grad = torch.tensor(g)
        if step == 3:              # a param without grad is skipped by both
            pe[1].grad = None
            pt[1].grad = None
        oe.step()
        ot.step()
        for a, b in zip(pe, pt):
            np.testing.assert_allclose(a.numpy(force=True), b.detach().numpy(), rtol=2e-6, atol=2e-7)
    se, st = oe.state_dict(), ot.state_dict()
    assert se["param_groups"] == st["param_groups"]
    assert list(se["state"]) == list(st["state"])
    for k in st["state"]:
        assert list(se["state"][k]) == list(st["state"][k])
        for key, v in st["state"][k].items():
            ev = se["state"][k][key]
            assert ev.dtype.name == str(v.dtype).split(".")[1] and tuple(ev.shape) == tuple(v.shape)
            np.testing.assert_allclose(ev.numpy(), v.numpy(), rtol=2e-6, atol=2e-7)


@pytest.mark.parametrize("name,kwargs", [("SGD", dict(lr=0.1, momentum=0.9)), ("Adam", dict(lr=0.01, amsgrad=True)),
                                         ("AdamW", dict()), ("RMSprop", dict(momentum=0.5, centered=True))])
def test_checkpoint_moves_between_ember_and_torch(torch, name, kwargs):
    pe, pt = params(ember), params(torch)
    oe = getattr(optim, name)(pe, **kwargs)
    ot = getattr(torch.optim, name)(pt, **kwargs)
    for step in range(3):
        for a, g in zip(pe, grads(step)):
            a.grad = ember.tensor(g)
        oe.step()
    # ember -> torch
    sd = oe.state_dict()
    tsd = {"param_groups": copy.deepcopy(sd["param_groups"]),
           "state": {k: {kk: torch.tensor(vv.numpy()) for kk, vv in v.items()} for k, v in sd["state"].items()}}
    ot.load_state_dict(tsd)
    with torch.no_grad():
        for a, b in zip(pe, pt):
            b.copy_(torch.tensor(a.numpy(force=True)))
    # continue both from the same point: they must stay in lockstep
    oe2 = getattr(optim, name)(pe, **kwargs)
    back = ot.state_dict()
    oe2.load_state_dict({"param_groups": back["param_groups"],
                         "state": {k: {kk: ember.tensor(vv.numpy()) for kk, vv in v.items()}
                                   for k, v in back["state"].items()}})
    for step in range(3, 6):
        for a, b, g in zip(pe, pt, grads(step)):
            a.grad = ember.tensor(g)
            b.grad = torch.tensor(g)
        oe2.step()
        ot.step()
    for a, b in zip(pe, pt):
        np.testing.assert_allclose(a.numpy(force=True), b.detach().numpy(), rtol=2e-6, atol=2e-7)


def test_param_groups_and_errors(torch):
    p = params(ember)
    o = optim.SGD([{"params": p[:2]}, {"params": p[2], "lr": 0.5}], lr=0.1, momentum=0.9)
    assert [g["lr"] for g in o.param_groups] == [0.1, 0.5] and o.param_groups[1]["params"] == [p[2]]
    assert o.defaults["momentum"] == 0.9
    tp = params(torch)
    to = torch.optim.SGD([{"params": tp[:2]}, {"params": tp[2], "lr": 0.5}], lr=0.1, momentum=0.9)
    assert repr(o) == repr(to)
    cases = [
        (lambda lib, p: lib.optim.SGD(p, lr=-1)),
        (lambda lib, p: lib.optim.SGD(p, momentum=-1)),
        (lambda lib, p: lib.optim.SGD(p, weight_decay=-1)),
        (lambda lib, p: lib.optim.SGD(p, nesterov=True)),
        (lambda lib, p: lib.optim.Adam(p, betas=(1.0, 0.9))),
        (lambda lib, p: lib.optim.Adam(p, betas=(0.9, -0.1))),
        (lambda lib, p: lib.optim.Adam(p, eps=-1)),
        (lambda lib, p: lib.optim.SGD([])),
        (lambda lib, p: lib.optim.SGD(p[0])),
        (lambda lib, p: lib.optim.SGD(p[:1]).add_param_group({"params": set(p[1:])})),
        (lambda lib, p: lib.optim.SGD([1.0])),
        (lambda lib, p: lib.optim.SGD(p, lr=0.1).add_param_group({"params": p[0]})),
        (lambda lib, p: lib.optim.SGD(p, lr=0.1).add_param_group([p[0]])),
        (lambda lib, p: lib.optim.SGD([("a", p[0]), p[1]])),
        (lambda lib, p: lib.optim.Adagrad(p, lr_decay=-1)),
        (lambda lib, p: lib.optim.RMSprop(p, alpha=-1)),
        (lambda lib, p: lib.optim.NAdam(p, momentum_decay=-1)),
        (lambda lib, p: lib.optim.Adadelta(p, rho=2)),
        (lambda lib, p: lib.optim.Adamax(p, betas=(0.9, 1.0))),
    ]
    for i, c in enumerate(cases):
        with pytest.raises(Exception) as ee:
            c(ember, params(ember))
        with pytest.raises(Exception) as et:
            c(torch, params(torch))
        assert type(ee.value) is type(et.value), i
        assert str(ee.value).replace("ember.", "torch.") == str(et.value).replace("torch.nn.parameter.", "torch.nn."), i


def test_named_params_and_duplicate_warning():
    p = params(ember)
    o = optim.Adam([("w", p[0]), ("b", p[1])])
    assert o.param_groups[0]["param_names"] == ["w", "b"]
    assert o.state_dict()["param_groups"][0]["param_names"] == ["w", "b"]
    with pytest.warns(UserWarning, match="duplicate parameters"):
        optim.SGD([p[0], p[0]], lr=0.1)


def test_zero_grad_closure_and_hooks():
    p = params(ember)
    o = optim.SGD(p, lr=0.1)
    calls = []
    h1 = o.register_step_pre_hook(lambda opt, args, kwargs: calls.append("pre"))
    o.register_step_post_hook(lambda opt, args, kwargs: calls.append("post"))
    for a, g in zip(p, grads(0)):
        a.grad = ember.tensor(g)
    assert o.step(lambda: 3.5) == 3.5
    assert calls == ["pre", "post"]
    h1.remove()
    o.step()
    assert calls == ["pre", "post", "post"]
    o.zero_grad(set_to_none=False)
    assert all(not a.grad.numpy().any() for a in p)
    o.zero_grad()
    assert all(a.grad is None for a in p)
    sd_calls = []
    o.register_state_dict_pre_hook(lambda opt: sd_calls.append("pre"))
    o.register_state_dict_post_hook(lambda opt, sd: {**sd, "extra": 1})
    o.register_load_state_dict_post_hook(lambda opt: sd_calls.append("loaded"))
    sd = o.state_dict()
    assert sd["extra"] == 1 and sd_calls == ["pre"]
    o.load_state_dict(sd)
    assert sd_calls == ["pre", "loaded"]


def test_load_state_dict_errors_and_param_identity():
    p = params(ember)
    o = optim.Adam(p, lr=0.01)
    for a, g in zip(p, grads(0)):
        a.grad = ember.tensor(g)
    o.step()
    sd = o.state_dict()
    assert sd["state"][0]["step"].item() == 1.0 and sd["state"][0]["step"].dtype is ember.float32
    o2 = optim.Adam(params(ember, 1), lr=0.5)
    o2.load_state_dict(sd)
    assert o2.param_groups[0]["lr"] == 0.01 and o2.param_groups[0]["params"][0] in o2.state
    with pytest.raises(ValueError, match="loaded state dict has a different number of parameter groups"):
        optim.Adam([{"params": p[:1]}, {"params": p[1:]}]).load_state_dict(sd)
    with pytest.raises(ValueError, match="loaded state dict contains a parameter group that doesn't match the size"):
        optim.Adam(p[:2]).load_state_dict(sd)
    # state keyed by Parameter, param_groups hold the very same objects
    assert set(map(id, o.state)) == set(map(id, p))


def test_float64_params_stay_float64(torch):
    pe = params(ember, dtype=np.float64)
    pt = params(torch, dtype=np.float64)
    oe, ot = optim.Adam(pe, lr=0.1), torch.optim.Adam(pt, lr=0.1)
    for step in range(3):
        for a, b, g in zip(pe, pt, grads(step, np.float64)):
            a.grad, b.grad = ember.tensor(g), torch.tensor(g)
        oe.step()
        ot.step()
    for a, b in zip(pe, pt):
        assert a.dtype is ember.float64
        np.testing.assert_allclose(a.numpy(force=True), b.detach().numpy(), rtol=1e-12)


@pytest.mark.parametrize("call", [
    lambda lib, p: lib.optim.Rprop(p, etas=(1.2, 0.5)),
    lambda lib, p: lib.optim.Rprop(p, lr=-0.1),
    lambda lib, p: lib.optim.ASGD(p, weight_decay=-1),
    lambda lib, p: lib.optim.Adafactor(p, beta2_decay=0.5),
    lambda lib, p: lib.optim.Adafactor(p, eps=(-1, 1e-3)),
    lambda lib, p: lib.optim.Adafactor(p, d=0.5),
    lambda lib, p: lib.optim.Adafactor(p, lr=-1.0),
])
def test_new_optimizer_argument_errors_match_torch(torch, call):
    msgs = []
    for lib in (ember, torch):
        with pytest.raises(ValueError) as e:
            call(lib, params(lib))
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]


@pytest.mark.parametrize("name", ["Rprop", "ASGD", "Adafactor"])
def test_new_optimizers_repr_and_module_paths_match_torch(torch, name):
    assert repr(getattr(optim, name)(params(ember))) == repr(getattr(torch.optim, name)(params(torch)))
    if name != "Adafactor":
        assert getattr(getattr(optim, name.lower()), name) is getattr(optim, name)
