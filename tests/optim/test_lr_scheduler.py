import math
import pickle

import numpy as np
import pytest

import ember
import ember.optim as optim
from ember.optim import lr_scheduler as L


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


def make_opt(lib, kind="SGD", groups=2):
    ps = [lib.nn.Parameter(lib.tensor(np.ones(3, np.float32))) for _ in range(groups)]
    pg = [{"params": [p], "lr": 0.1 * (i + 1)} for i, p in enumerate(ps)]
    if kind == "SGD":
        return getattr(lib.optim, "SGD")(pg, lr=0.1, momentum=0.9)
    return getattr(lib.optim, "Adam")(pg, lr=0.1)


def lam(e):
    return 0.95 ** e


def mult(e):
    return 0.9


SCHEDS = {
    "StepLR": lambda lib, o: lib.optim.lr_scheduler.StepLR(o, step_size=3, gamma=0.5),
    "MultiStepLR": lambda lib, o: lib.optim.lr_scheduler.MultiStepLR(o, milestones=[2, 5, 5, 9], gamma=0.3),
    "ExponentialLR": lambda lib, o: lib.optim.lr_scheduler.ExponentialLR(o, gamma=0.9),
    "CosineAnnealingLR": lambda lib, o: lib.optim.lr_scheduler.CosineAnnealingLR(o, T_max=7, eta_min=0.001),
    "LambdaLR": lambda lib, o: lib.optim.lr_scheduler.LambdaLR(o, lam),
    "MultiplicativeLR": lambda lib, o: lib.optim.lr_scheduler.MultiplicativeLR(o, mult),
    "LinearLR": lambda lib, o: lib.optim.lr_scheduler.LinearLR(o, start_factor=0.2, total_iters=6),
    "ConstantLR": lambda lib, o: lib.optim.lr_scheduler.ConstantLR(o, factor=0.5, total_iters=4),
    "PolynomialLR": lambda lib, o: lib.optim.lr_scheduler.PolynomialLR(o, total_iters=8, power=2.0),
    "OneCycleLR": lambda lib, o: lib.optim.lr_scheduler.OneCycleLR(o, max_lr=[1.0, 2.0], total_steps=40),
    "OneCycleLR-linear": lambda lib, o: lib.optim.lr_scheduler.OneCycleLR(
        o, max_lr=1.0, epochs=4, steps_per_epoch=10, anneal_strategy="linear", three_phase=True),
    "CyclicLR": lambda lib, o: lib.optim.lr_scheduler.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=4),
    "CyclicLR-tri2": lambda lib, o: lib.optim.lr_scheduler.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=3,
                                                                    mode="triangular2"),
    "CyclicLR-exp": lambda lib, o: lib.optim.lr_scheduler.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=3,
                                                                   mode="exp_range", gamma=0.9),
    "CosineAnnealingWarmRestarts": lambda lib, o: lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(
        o, T_0=5, T_mult=2, eta_min=0.01),
    "SequentialLR": lambda lib, o: lib.optim.lr_scheduler.SequentialLR(
        o, [lib.optim.lr_scheduler.LinearLR(o, start_factor=0.1, total_iters=3),
            lib.optim.lr_scheduler.ExponentialLR(o, gamma=0.8)], milestones=[3]),
    "ChainedScheduler": lambda lib, o: lib.optim.lr_scheduler.ChainedScheduler(
        [lib.optim.lr_scheduler.ConstantLR(o, factor=0.5, total_iters=4),
         lib.optim.lr_scheduler.ExponentialLR(o, gamma=0.9)]),
}


@pytest.mark.parametrize("name", list(SCHEDS))
def test_lr_sequence_matches_torch(torch, name):
    oe, ot = make_opt(ember), make_opt(torch)
    se, st = SCHEDS[name](ember, oe), SCHEDS[name](torch, ot)
    for _ in range(30 if "OneCycle" not in name else 39):
        oe.step()
        ot.step()
        se.step()
        st.step()
        np.testing.assert_allclose(se.get_last_lr(), st.get_last_lr(), rtol=1e-12, atol=1e-15)
        assert [g["lr"] for g in oe.param_groups] == pytest.approx([g["lr"] for g in ot.param_groups], rel=1e-12)
        if "momentum" in ot.param_groups[0]:
            assert [g["momentum"] for g in oe.param_groups] == pytest.approx(
                [g["momentum"] for g in ot.param_groups], rel=1e-12)
    de, dt = se.state_dict(), st.state_dict()
    assert sorted(de) == sorted(dt)


@pytest.mark.parametrize("name", ["StepLR", "CosineAnnealingLR", "OneCycleLR", "CyclicLR", "LambdaLR",
                                  "CosineAnnealingWarmRestarts"])
def test_state_dict_resume(name):
    o1 = make_opt(ember)
    s1 = SCHEDS[name](ember, o1)
    for _ in range(5):
        o1.step()
        s1.step()
    sd = s1.state_dict()
    o2 = make_opt(ember)
    s2 = SCHEDS[name](ember, o2)
    s2.load_state_dict(sd)
    o2.load_state_dict(o1.state_dict())
    for _ in range(5):
        o1.step()
        s1.step()
        o2.step()
        s2.step()
        assert s1.get_last_lr() == s2.get_last_lr()


def test_reduce_lr_on_plateau_matches_torch(torch):
    metrics = [1.0, 0.9, 0.95, 0.96, 0.97, 0.98, 0.5, 0.6, 0.6, 0.6, 0.6, 0.6, 0.6, 0.7, 0.4] + [0.4] * 10
    for kw in [dict(), dict(mode="max", factor=0.5, patience=1, threshold_mode="abs", cooldown=2, min_lr=0.02),
               dict(patience=2, eps=1e-3, min_lr=[0.05, 0.01])]:
        oe, ot = make_opt(ember), make_opt(torch)
        se = L.ReduceLROnPlateau(oe, **kw)
        st = torch.optim.lr_scheduler.ReduceLROnPlateau(ot, **kw)
        for m in metrics:
            se.step(m)
            st.step(m)
            assert se.get_last_lr() == pytest.approx(st.get_last_lr(), rel=1e-12)
        assert sorted(se.state_dict()) == sorted(st.state_dict())


def test_errors_match_torch(torch):
    cases = [
        lambda lib, o: lib.optim.lr_scheduler.StepLR(object(), 3),
        lambda lib, o: lib.optim.lr_scheduler.LambdaLR(o, [lam]),
        lambda lib, o: lib.optim.lr_scheduler.StepLR(o, 3, last_epoch=5),
        lambda lib, o: lib.optim.lr_scheduler.LinearLR(o, start_factor=2.0),
        lambda lib, o: lib.optim.lr_scheduler.ConstantLR(o, factor=2.0),
        lambda lib, o: lib.optim.lr_scheduler.OneCycleLR(o, max_lr=1.0),
        lambda lib, o: lib.optim.lr_scheduler.OneCycleLR(o, max_lr=1.0, total_steps=10, anneal_strategy="x"),
        lambda lib, o: lib.optim.lr_scheduler.CyclicLR(o, 0.1, 1.0, mode="x"),
        lambda lib, o: lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(o, T_0=0),
        lambda lib, o: lib.optim.lr_scheduler.ReduceLROnPlateau(o, factor=1.0),
        lambda lib, o: lib.optim.lr_scheduler.ReduceLROnPlateau(o, mode="x"),
        lambda lib, o: lib.optim.lr_scheduler.SequentialLR(o, [lib.optim.lr_scheduler.StepLR(o, 2)], milestones=[1]),
    ]
    for i, c in enumerate(cases):
        with pytest.raises(Exception) as ee:
            c(ember, make_opt(ember))
        with pytest.raises(Exception) as et:
            c(torch, make_opt(torch))
        assert type(ee.value) is type(et.value), i
        assert str(ee.value) == str(et.value), i


def test_step_order_warning():
    o = make_opt(ember)
    s = L.StepLR(o, 2)
    with pytest.warns(UserWarning, match="Detected call of `lr_scheduler.step\\(\\)` before `optimizer.step\\(\\)`"):
        s.step()
