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


# ================================================================================================
# Extended parity: many configurations, full state-dict values, momentum/betas, 40 steps
# ================================================================================================
class Decay:
    """A callable object: its __dict__ is what LambdaLR/MultiplicativeLR/CyclicLR put in state dicts."""

    def __init__(self, rate):
        self.rate = rate

    def __call__(self, x):
        return self.rate ** x


def _configs(lib):
    S = lib.optim.lr_scheduler
    return {
        "step-1": lambda o: S.StepLR(o, step_size=1, gamma=0.9),
        "step-4": lambda o: S.StepLR(o, step_size=4, gamma=0.25),
        "multistep-repeat": lambda o: S.MultiStepLR(o, milestones=[3, 3, 8, 20, 20, 20], gamma=0.5),
        "constant-1": lambda o: S.ConstantLR(o, factor=1.0, total_iters=3),
        "constant-0.25": lambda o: S.ConstantLR(o, factor=0.25, total_iters=10),
        "linear-down": lambda o: S.LinearLR(o, start_factor=1.0, end_factor=0.1, total_iters=12),
        "linear-to-zero": lambda o: S.LinearLR(o, start_factor=0.5, end_factor=0.0, total_iters=7),
        "exponential": lambda o: S.ExponentialLR(o, gamma=0.93),
        "poly-sqrt": lambda o: S.PolynomialLR(o, total_iters=15, power=0.5),
        "poly-cubic": lambda o: S.PolynomialLR(o, total_iters=9, power=3.0),
        "cosine-3": lambda o: S.CosineAnnealingLR(o, T_max=3),
        "cosine-10": lambda o: S.CosineAnnealingLR(o, T_max=10, eta_min=0.02),
        "warm-restarts-1": lambda o: S.CosineAnnealingWarmRestarts(o, T_0=3, eta_min=0.05),
        "warm-restarts-3": lambda o: S.CosineAnnealingWarmRestarts(o, T_0=2, T_mult=3),
        "lambda-list": lambda o: S.LambdaLR(o, [lam, Decay(0.8)]),
        "multiplicative-obj": lambda o: S.MultiplicativeLR(o, Decay(0.99)),
        "onecycle-3phase-cos": lambda o: S.OneCycleLR(o, max_lr=[0.5, 1.5], total_steps=41, three_phase=True,
                                                      pct_start=0.25),
        "onecycle-nomomentum": lambda o: S.OneCycleLR(o, max_lr=2.0, epochs=5, steps_per_epoch=9,
                                                      cycle_momentum=False, div_factor=10.0),
        "onecycle-momentum-lists": lambda o: S.OneCycleLR(o, max_lr=1.0, total_steps=45, anneal_strategy="linear",
                                                          base_momentum=[0.8, 0.7], max_momentum=[0.9, 0.99]),
        "cyclic-down": lambda o: S.CyclicLR(o, base_lr=[0.01, 0.02], max_lr=[0.1, 0.3], step_size_up=2,
                                            step_size_down=5),
        "cyclic-custom": lambda o: S.CyclicLR(o, base_lr=0.01, max_lr=0.2, step_size_up=3, scale_fn=Decay(0.97),
                                              scale_mode="iterations"),
        "cyclic-custom-cycle": lambda o: S.CyclicLR(o, base_lr=0.01, max_lr=0.2, step_size_up=3,
                                                    scale_fn=lambda c: 1.0 / c),
        "cyclic-nomomentum": lambda o: S.CyclicLR(o, base_lr=0.01, max_lr=0.2, step_size_up=4, mode="triangular2",
                                                  cycle_momentum=False),
        "sequential-4": lambda o: S.SequentialLR(o, [S.LinearLR(o, start_factor=0.1, total_iters=4),
                                                     S.MultiplicativeLR(o, mult),
                                                     S.CosineAnnealingLR(o, T_max=6),
                                                     S.LambdaLR(o, lam)], milestones=[5, 12, 25]),
        "sequential-nested": lambda o: S.SequentialLR(
            o, [S.SequentialLR(o, [S.LinearLR(o, 0.5, total_iters=2), S.ExponentialLR(o, 0.9)], [2]),
                S.StepLR(o, 2)], [4]),
        "chained-3": lambda o: S.ChainedScheduler([S.LinearLR(o, start_factor=0.2, total_iters=5),
                                                   S.CosineAnnealingLR(o, T_max=9),
                                                   S.MultiStepLR(o, [10, 20])]),
        "chained-with-optimizer": lambda o: S.ChainedScheduler([S.ExponentialLR(o, 0.9), S.StepLR(o, 3)],
                                                               optimizer=o),
    }


CONFIG_NAMES = list(_configs(ember))


def _plain(v):
    """Normalise a state-dict value so ember's and torch's can be compared."""
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    if callable(v):
        return "<callable>"
    if hasattr(v, "item") and not isinstance(v, (int, float)):
        return float(v.item())
    return v


def _assert_same_state(de, dt):
    de, dt = _plain(de), _plain(dt)
    assert sorted(de) == sorted(dt)
    for k in dt:
        if isinstance(dt[k], float):
            assert de[k] == pytest.approx(dt[k], rel=1e-12, abs=1e-15), k
        elif isinstance(dt[k], list) and dt[k] and isinstance(dt[k][0], dict):
            for a, b in zip(de[k], dt[k]):
                _assert_same_state(a, b)
        elif isinstance(dt[k], list) and all(isinstance(x, (int, float)) for x in dt[k]):
            np.testing.assert_allclose(de[k], dt[k], rtol=1e-12, atol=1e-15, err_msg=k)
        else:
            assert de[k] == dt[k], k


def _groups_match(oe, ot):
    for ge, gt in zip(oe.param_groups, ot.param_groups):
        assert ge["lr"] == pytest.approx(gt["lr"], rel=1e-12, abs=1e-15)
        for key in ("initial_lr", "momentum", "max_lr", "min_lr", "max_momentum", "base_momentum"):
            assert (key in ge) == (key in gt), key
            if key in gt:
                assert ge[key] == pytest.approx(gt[key], rel=1e-12, abs=1e-15), key
        if "betas" in gt:
            assert ge["betas"] == pytest.approx(gt["betas"], rel=1e-12)


@pytest.mark.filterwarnings("ignore:Detected call of `lr_scheduler.step\\(\\)`")
@pytest.mark.parametrize("kind", ["SGD", "Adam"])
@pytest.mark.parametrize("name", CONFIG_NAMES)
def test_parity_configurations(torch, name, kind):
    oe, ot = make_opt(ember, kind), make_opt(torch, kind)
    se, st = _configs(ember)[name](oe), _configs(torch)[name](ot)
    _groups_match(oe, ot)
    _assert_same_state(se.state_dict(), st.state_dict())
    for _ in range(40):
        oe.step()
        ot.step()
        se.step()
        st.step()
        np.testing.assert_allclose(se.get_last_lr(), st.get_last_lr(), rtol=1e-12, atol=1e-15)
        _groups_match(oe, ot)
        _assert_same_state(se.state_dict(), st.state_dict())


def test_two_independent_schedulers_compose_like_torch(torch):
    """Chainable rules: two schedulers on one optimizer multiply their effects."""
    runs = []
    for lib in (ember, torch):
        o = make_opt(lib)
        a = lib.optim.lr_scheduler.ExponentialLR(o, gamma=0.9)
        b = lib.optim.lr_scheduler.CosineAnnealingLR(o, T_max=8, eta_min=0.01)
        c = lib.optim.lr_scheduler.StepLR(o, step_size=5, gamma=0.5)
        lrs = []
        for _ in range(40):
            o.step()
            for s in (a, b, c):
                s.step()
            lrs.append([g["lr"] for g in o.param_groups])
        runs.append(lrs)
    np.testing.assert_allclose(runs[0], runs[1], rtol=1e-12, atol=1e-15)


def test_recursive_form_differs_from_closed_form_like_torch(torch):
    """Poking the group's lr mid-run: recursive rules carry the change forward, exactly like torch."""
    for make in [lambda S, o: S.CosineAnnealingLR(o, T_max=6, eta_min=0.01),
                 lambda S, o: S.LinearLR(o, start_factor=0.3, total_iters=8),
                 lambda S, o: S.PolynomialLR(o, total_iters=10, power=2.0),
                 lambda S, o: S.ExponentialLR(o, 0.8),
                 lambda S, o: S.MultiplicativeLR(o, mult)]:
        seqs = []
        for lib in (ember, torch):
            o = make_opt(lib)
            s = make(lib.optim.lr_scheduler, o)
            out = []
            for i in range(20):
                o.step()
                if i == 3:
                    for g in o.param_groups:
                        g["lr"] *= 1.7
                s.step()
                out.append(s.get_last_lr())
            seqs.append(out)
        np.testing.assert_allclose(seqs[0], seqs[1], rtol=1e-12, atol=1e-15)


# ================================================================================================
# step(epoch): closed forms and the deprecation warning
# ================================================================================================
CLOSED = {
    "StepLR": lambda S, o: S.StepLR(o, 3, 0.5),
    "MultiStepLR": lambda S, o: S.MultiStepLR(o, [2, 5, 5], 0.3),
    "ConstantLR": lambda S, o: S.ConstantLR(o, 0.5, 4),
    "LinearLR": lambda S, o: S.LinearLR(o, 0.2, 0.9, 6),
    "ExponentialLR": lambda S, o: S.ExponentialLR(o, 0.9),
    "PolynomialLR": lambda S, o: S.PolynomialLR(o, 8, 2.0),
    "CosineAnnealingLR": lambda S, o: S.CosineAnnealingLR(o, 7, 0.001),
    "LambdaLR": lambda S, o: S.LambdaLR(o, lam),
    "MultiplicativeLR": lambda S, o: S.MultiplicativeLR(o, mult),
    "CyclicLR": lambda S, o: S.CyclicLR(o, 0.01, 0.1, step_size_up=3),
    "OneCycleLR": lambda S, o: S.OneCycleLR(o, 1.0, total_steps=30),
}


@pytest.mark.parametrize("name", list(CLOSED))
def test_step_with_epoch_matches_torch(torch, name):
    outs = []
    for lib in (ember, torch):
        o = make_opt(lib)
        s = CLOSED[name](lib.optim.lr_scheduler, o)
        seq = []
        for epoch in [1, 2, 7, 3, 0, 12, 5]:
            o.step()
            for g in o.param_groups:    # a closed form ignores the group's current value
                g["lr"] = 5.0
            with pytest.warns(UserWarning, match="The epoch parameter in `scheduler.step\\(\\)`"):
                s.step(epoch)
            seq.append(s.get_last_lr() + [s.last_epoch])
            s.step()
            seq.append(s.get_last_lr() + [s.last_epoch])
        outs.append(seq)
    np.testing.assert_allclose(outs[0], outs[1], rtol=1e-12, atol=1e-15)


def test_warm_restarts_fractional_epochs_match_torch(torch):
    import warnings as W
    for T_0, T_mult in [(3, 1), (3, 2), (2, 3)]:
        outs = []
        for lib in (ember, torch):
            o = make_opt(lib)
            s = lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(o, T_0=T_0, T_mult=T_mult, eta_min=0.01)
            seq = []
            with W.catch_warnings():
                W.simplefilter("error")    # torch emits no warning for CAWR's epoch argument
                for epoch in [0.5, 1.25, 2.9, 3.0, 4.75, 10.5, 26.2, 7, 0]:
                    o.step()
                    s.step(epoch)
                    seq.append(s.get_last_lr() + [s.last_epoch, s.T_cur, s.T_i])
                    s.step()
                    seq.append(s.get_last_lr() + [s.last_epoch, s.T_cur, s.T_i])
            outs.append(seq)
        np.testing.assert_allclose(outs[0], outs[1], rtol=1e-12, atol=1e-15)
    o = make_opt(ember)
    s = L.CosineAnnealingWarmRestarts(o, 2)
    with pytest.raises(ValueError, match="Expected non-negative epoch, but got -1"):
        s.step(-1)


# ================================================================================================
# Resuming: last_epoch >= 0, state dicts, cross-loading between ember and torch
# ================================================================================================
RESUMABLE = {
    "StepLR": lambda S, o, e: S.StepLR(o, 2, last_epoch=e),
    "MultiStepLR": lambda S, o, e: S.MultiStepLR(o, [2, 4], last_epoch=e),
    "ConstantLR": lambda S, o, e: S.ConstantLR(o, 0.5, total_iters=4, last_epoch=e),
    "LinearLR": lambda S, o, e: S.LinearLR(o, last_epoch=e),
    "ExponentialLR": lambda S, o, e: S.ExponentialLR(o, 0.9, last_epoch=e),
    "PolynomialLR": lambda S, o, e: S.PolynomialLR(o, total_iters=9, last_epoch=e),
    "CosineAnnealingLR": lambda S, o, e: S.CosineAnnealingLR(o, 5, last_epoch=e),
    "CosineAnnealingWarmRestarts": lambda S, o, e: S.CosineAnnealingWarmRestarts(o, 5, last_epoch=e),
    "LambdaLR": lambda S, o, e: S.LambdaLR(o, lam, last_epoch=e),
    "MultiplicativeLR": lambda S, o, e: S.MultiplicativeLR(o, mult, last_epoch=e),
    "OneCycleLR": lambda S, o, e: S.OneCycleLR(o, 1.0, total_steps=20, last_epoch=e),
    "CyclicLR": lambda S, o, e: S.CyclicLR(o, 0.01, 0.1, step_size_up=3, last_epoch=e),
}


@pytest.mark.parametrize("name", list(RESUMABLE))
def test_construct_with_last_epoch_matches_torch(torch, name):
    for start in (0, 3, 4):
        outs = []
        for lib in (ember, torch):
            o = make_opt(lib)
            for g in o.param_groups:
                g.update(initial_lr=g["lr"], lr=0.05, max_lr=1.0, min_lr=1e-4, max_momentum=0.95,
                         base_momentum=0.85)
            s = RESUMABLE[name](lib.optim.lr_scheduler, o, start)
            seq = [s.get_last_lr() + [s.last_epoch, o.param_groups[0]["momentum"]]]
            for _ in range(8):
                o.step()
                s.step()
                seq.append(s.get_last_lr() + [s.last_epoch, o.param_groups[0]["momentum"]])
            outs.append(seq)
        np.testing.assert_allclose(outs[0], outs[1], rtol=1e-12, atol=1e-15)


def test_resume_without_initial_lr_raises_like_torch(torch):
    errs = []
    for lib in (ember, torch):
        o = make_opt(lib)
        o.param_groups[0]["initial_lr"] = 0.1      # group 1 lacks it
        with pytest.raises(KeyError) as info:
            lib.optim.lr_scheduler.ExponentialLR(o, 0.9, last_epoch=2)
        errs.append(str(info.value))
    assert errs[0] == errs[1]
    assert "param_groups[1]" in errs[0]


def test_initial_lr_is_setdefault():
    o = make_opt(ember)
    o.param_groups[0]["initial_lr"] = 0.7
    s = L.StepLR(o, 2)
    assert s.base_lrs == [0.7, 0.2]
    assert o.param_groups[1]["initial_lr"] == 0.2


def _copy_group_hparams(src, dst):
    for gs, gd in zip(src.param_groups, dst.param_groups):
        for key, value in gs.items():
            if key != "params" and not hasattr(value, "shape"):
                gd[key] = value


def _state_for(lib_from_sd):
    """A scheduler state dict is plain python; Counter and dicts are kept as they are."""
    return lib_from_sd


@pytest.mark.filterwarnings("ignore:Detected call of `lr_scheduler.step\\(\\)`")
@pytest.mark.parametrize("direction", ["torch->ember", "ember->torch"])
@pytest.mark.parametrize("name", CONFIG_NAMES)
def test_cross_load_state_dict_and_continue(torch, name, direction):
    src_lib, dst_lib = (torch, ember) if direction == "torch->ember" else (ember, torch)
    kind = "Adam" if "onecycle" in name or "cyclic" in name else "SGD"
    o_src = make_opt(src_lib, kind)
    s_src = _configs(src_lib)[name](o_src)
    for _ in range(13):
        o_src.step()
        s_src.step()
    sd = s_src.state_dict()
    keys_before = sorted(sd)

    o_dst = make_opt(dst_lib, kind)
    s_dst = _configs(dst_lib)[name](o_dst)
    s_dst.load_state_dict(sd)
    if dst_lib is ember:
        assert sorted(sd) == keys_before             # ember's loading does not consume the caller's dict
    _copy_group_hparams(o_src, o_dst)                # what optimizer.load_state_dict would restore
    _assert_same_state(s_dst.state_dict(), s_src.state_dict())
    for _ in range(25):
        o_src.step()
        o_dst.step()
        s_src.step()
        s_dst.step()
        np.testing.assert_allclose(s_dst.get_last_lr(), s_src.get_last_lr(), rtol=1e-12, atol=1e-15)
        _groups_match(o_dst, o_src) if dst_lib is ember else _groups_match(o_src, o_dst)


def test_cross_load_reduce_lr_on_plateau(torch):
    metrics = [1.0, 0.9, 0.95, 0.96, 0.97, 0.5, 0.6, 0.6, 0.6, 0.6, 0.4, 0.45, 0.46, 0.47, 0.48, 0.49, 0.5]
    ot, oe = make_opt(torch), make_opt(ember)
    st = torch.optim.lr_scheduler.ReduceLROnPlateau(ot, patience=1, cooldown=1, min_lr=[0.001, 0.002])
    for m in metrics[:6]:
        st.step(m)
    se = L.ReduceLROnPlateau(oe)
    se.load_state_dict(st.state_dict())
    _copy_group_hparams(ot, oe)
    _assert_same_state(se.state_dict(), st.state_dict())
    for m in metrics[6:]:
        st.step(m)
        se.step(m)
        assert se.get_last_lr() == pytest.approx(st.get_last_lr(), rel=1e-12)
        _assert_same_state(se.state_dict(), st.state_dict())


def test_lambda_state_dict_keeps_object_attributes(torch):
    sds = []
    for lib in (ember, torch):
        o = make_opt(lib)
        s = lib.optim.lr_scheduler.LambdaLR(o, [Decay(0.5), lam])
        sds.append(s.state_dict()["lr_lambdas"])
    assert sds[0] == sds[1] == [{"rate": 0.5}, None]
    o = make_opt(ember)
    fn = Decay(0.5)
    s = L.LambdaLR(o, [fn, lam])
    s.load_state_dict({**s.state_dict(), "lr_lambdas": [{"rate": 0.25}, None]})
    assert fn.rate == 0.25
    assert s.lr_lambdas[1] is lam


def test_cyclic_state_dict_custom_scale_fn(torch):
    sds = []
    for lib in (ember, torch):
        o = make_opt(lib)
        sds.append(lib.optim.lr_scheduler.CyclicLR(o, 0.01, 0.1, scale_fn=Decay(0.9)).state_dict())
    assert sds[0]["_scale_fn_custom"] == sds[1]["_scale_fn_custom"] == {"rate": 0.9}
    _assert_same_state(sds[0], sds[1])
    fn = Decay(0.9)
    s = L.CyclicLR(make_opt(ember), 0.01, 0.1, scale_fn=fn)
    s.load_state_dict({**s.state_dict(), "_scale_fn_custom": {"rate": 0.3}})
    assert fn.rate == 0.3
    # built-in modes restore their scale function after loading
    s = L.CyclicLR(make_opt(ember), 0.01, 0.1, mode="exp_range", gamma=0.5)
    s.load_state_dict(s.state_dict())
    assert s.scale_fn(3) == 0.125


def test_scheduler_state_dict_pickles():
    o = make_opt(ember)
    s = L.OneCycleLR(o, 1.0, total_steps=20)
    o.step()
    s.step()
    sd = pickle.loads(pickle.dumps(s.state_dict()))
    s2 = L.OneCycleLR(make_opt(ember), 1.0, total_steps=20)
    s2.load_state_dict(sd)
    assert s2.state_dict() == s.state_dict()
    # the step wrapper installed on the optimizer is not part of its pickled state
    o = optim.SGD([ember.ones(3, requires_grad=True)], lr=0.1, momentum=0.9)
    L.ExponentialLR(o, 0.5)
    assert "step" in vars(o) and "step" not in o.__getstate__()
    o2 = pickle.loads(pickle.dumps(o))
    assert o2.param_groups[0]["initial_lr"] == 0.1 and "step" not in vars(o2)


# ================================================================================================
# ReduceLROnPlateau details
# ================================================================================================
@pytest.mark.parametrize("kw", [
    dict(mode="max", threshold=0.1, threshold_mode="rel", patience=0),
    dict(mode="min", threshold=0.05, threshold_mode="abs", patience=1, cooldown=3, factor=0.3),
    dict(mode="max", threshold=0.05, threshold_mode="abs", min_lr=0.05, factor=0.5, patience=0),
    dict(eps=0.05, factor=0.5, patience=0),
])
def test_plateau_configurations_match_torch(torch, kw):
    rng = np.random.default_rng(0)
    metrics = list(rng.normal(1.0, 0.2, size=40))
    oe, ot = make_opt(ember), make_opt(torch)
    se = L.ReduceLROnPlateau(oe, **kw)
    st = torch.optim.lr_scheduler.ReduceLROnPlateau(ot, **kw)
    for m in metrics:
        se.step(m)
        st.step(m)
        assert se.get_last_lr() == pytest.approx(st.get_last_lr(), rel=1e-12)
        _assert_same_state(se.state_dict(), st.state_dict())


def test_plateau_metric_may_be_a_tensor(torch):
    oe = make_opt(ember)
    se = L.ReduceLROnPlateau(oe, patience=0)
    for m in [1.0, 2.0, 3.0]:
        se.step(ember.tensor(m))
    assert se.get_last_lr() == pytest.approx([0.001, 0.002])


def test_plateau_added_param_group_like_torch(torch):
    for min_lr in (0.0, [0.0, 0.0]):
        res = []
        for lib in (ember, torch):
            o = make_opt(lib)
            s = lib.optim.lr_scheduler.ReduceLROnPlateau(o, patience=0, min_lr=min_lr)
            o.add_param_group({"params": [lib.nn.Parameter(lib.tensor(np.ones(1, np.float32)))], "lr": 0.3})
            s.step(1.0)
            try:
                s.step(2.0)
                res.append(("ok", s.get_last_lr(), s.min_lrs))
            except RuntimeError as e:
                res.append(("err", str(e)))
        assert res[0][0] == res[1][0]
        if res[0][0] == "ok":
            assert res[0][1] == pytest.approx(res[1][1]) and res[0][2] == res[1][2]
        else:
            assert res[0][1] == res[1][1]


def test_plateau_epoch_argument_warns():
    s = L.ReduceLROnPlateau(make_opt(ember))
    with pytest.warns(UserWarning, match="The epoch parameter"):
        s.step(1.0, 4)
    assert s.last_epoch == 4


# ================================================================================================
# Warnings about call order and get_lr
# ================================================================================================
def test_no_warning_in_correct_order():
    import warnings as W
    o = make_opt(ember)
    s = L.CosineAnnealingLR(o, 5)
    with W.catch_warnings():
        W.simplefilter("error")
        for _ in range(3):
            o.step()
            s.step()


def test_overridden_optimizer_step_warns(torch):
    msgs = []
    for lib in (ember, torch):
        o = make_opt(lib)
        s = lib.optim.lr_scheduler.StepLR(o, 2)
        o.step = lambda *a, **k: None
        with pytest.warns(UserWarning) as rec:
            s.step()
        msgs.append([str(r.message) for r in rec])
    assert msgs[0] == msgs[1]
    assert "has been overridden after learning rate scheduler initialization" in msgs[0][0]


def test_step_order_warning_text_matches_torch(torch):
    msgs = []
    for lib in (ember, torch):
        o = make_opt(lib)
        s = lib.optim.lr_scheduler.ExponentialLR(o, 0.9)
        with pytest.warns(UserWarning) as rec:
            s.step()
        msgs.append([str(r.message) for r in rec])
    assert msgs[0] == msgs[1]


def test_step_order_warning_only_once_and_wrapper_shared():
    o = make_opt(ember)
    s1 = L.StepLR(o, 2)
    wrapped = o.step
    s2 = L.ExponentialLR(o, 0.9)
    assert o.step is wrapped and o.step._wrapped_by_lr_sched
    import warnings as W
    with pytest.warns(UserWarning):
        s1.step()
    with W.catch_warnings():
        W.simplefilter("error")
        s1.step()            # only the first scheduler step checks
        o.step()
        s2.step()
    assert o._opt_called is True


def test_get_lr_outside_step_warns(torch):
    vals = []
    for lib in (ember, torch):
        o = make_opt(lib)
        s = lib.optim.lr_scheduler.StepLR(o, 1, 0.5)
        with pytest.warns(UserWarning, match="please use `get_last_lr\\(\\)`"):
            vals.append(s.get_lr())
    assert vals[0] == pytest.approx(vals[1])


def test_sequential_restart_does_not_warn_about_epoch():
    import warnings as W
    o = make_opt(ember)
    s = L.SequentialLR(o, [L.ConstantLR(o, 0.5, 2), L.ExponentialLR(o, 0.9)], milestones=[2])
    with W.catch_warnings():
        W.simplefilter("error")
        for _ in range(4):
            o.step()
            s.step()


def test_base_class_and_alias():
    assert issubclass(L._LRScheduler, L.LRScheduler)
    assert set(L.__all__) >= {"LRScheduler", "StepLR", "OneCycleLR", "ReduceLROnPlateau", "SequentialLR"}
    from ember.optim.lr_scheduler import StepLR  # noqa: F401

    class Halving(L.LRScheduler):
        def get_lr(self):
            return [b * 0.5 ** self.last_epoch for b in self.base_lrs]

    o = make_opt(ember)
    s = Halving(o)
    for _ in range(3):
        o.step()
        s.step()
    assert s.get_last_lr() == pytest.approx([0.0125, 0.025])
    with pytest.raises(NotImplementedError):
        L.LRScheduler.get_lr(s)


# ================================================================================================
# Argument errors: same exception type and message as torch
# ================================================================================================
def _error_cases():
    def sgd0(lib):
        ps = [lib.nn.Parameter(lib.tensor(np.ones(3, np.float32))) for _ in range(2)]
        return lib.optim.SGD([{"params": [p]} for p in ps], lr=0.1)

    def adagrad(lib):
        return lib.optim.Adagrad([lib.nn.Parameter(lib.tensor(np.ones(3, np.float32)))], lr=0.1)

    return {
        "mult-len": lambda S, o, lib: S.MultiplicativeLR(o, [lam]),
        "constant-neg": lambda S, o, lib: S.ConstantLR(o, factor=-0.1),
        "linear-start0": lambda S, o, lib: S.LinearLR(o, start_factor=0),
        "linear-end": lambda S, o, lib: S.LinearLR(o, end_factor=1.5),
        "linear-end-neg": lambda S, o, lib: S.LinearLR(o, end_factor=-0.5),
        "seq-empty": lambda S, o, lib: S.SequentialLR(o, [], []),
        "seq-type": lambda S, o, lib: S.SequentialLR(o, [5], []),
        "seq-plateau": lambda S, o, lib: S.SequentialLR(o, [S.ReduceLROnPlateau(o), S.StepLR(o, 2)], [1]),
        "seq-other-opt": lambda S, o, lib: S.SequentialLR(o, [S.StepLR(o, 2), S.StepLR(sgd0(lib), 2)], [1]),
        "seq-milestones": lambda S, o, lib: S.SequentialLR(o, [S.StepLR(o, 2), S.StepLR(o, 2)], [1, 2]),
        "chain-empty": lambda S, o, lib: S.ChainedScheduler([]),
        "chain-type": lambda S, o, lib: S.ChainedScheduler([S.StepLR(o, 2), 3]),
        "chain-first-type": lambda S, o, lib: S.ChainedScheduler([3]),
        "chain-plateau": lambda S, o, lib: S.ChainedScheduler([S.ReduceLROnPlateau(o)]),
        "chain-other-opt": lambda S, o, lib: S.ChainedScheduler([S.StepLR(o, 2)], optimizer=sgd0(lib)),
        "plateau-min-lrs": lambda S, o, lib: S.ReduceLROnPlateau(o, min_lr=[0.1]),
        "plateau-threshold-mode": lambda S, o, lib: S.ReduceLROnPlateau(o, threshold_mode="x"),
        "plateau-not-opt": lambda S, o, lib: S.ReduceLROnPlateau(object()),
        "cyclic-base-len": lambda S, o, lib: S.CyclicLR(o, [0.1], 1.0),
        "cyclic-max-len": lambda S, o, lib: S.CyclicLR(o, 0.1, [1.0, 2, 3]),
        "cyclic-no-momentum": lambda S, o, lib: S.CyclicLR(adagrad(lib), 0.1, 1.0),
        "cyclic-not-opt": lambda S, o, lib: S.CyclicLR(object(), 0.1, 1.0),
        "cyclic-momentum-len": lambda S, o, lib: S.CyclicLR(o, 0.1, 1.0, base_momentum=[0.1]),
        "cawr-T0-float": lambda S, o, lib: S.CosineAnnealingWarmRestarts(o, T_0=2.0),
        "cawr-Tmult": lambda S, o, lib: S.CosineAnnealingWarmRestarts(o, T_0=2, T_mult=0),
        "cawr-Tmult-float": lambda S, o, lib: S.CosineAnnealingWarmRestarts(o, T_0=2, T_mult=1.5),
        "cawr-eta": lambda S, o, lib: S.CosineAnnealingWarmRestarts(o, T_0=2, eta_min="a"),
        "onecycle-total0": lambda S, o, lib: S.OneCycleLR(o, 1.0, total_steps=0),
        "onecycle-total-float": lambda S, o, lib: S.OneCycleLR(o, 1.0, total_steps=2.5),
        "onecycle-epochs0": lambda S, o, lib: S.OneCycleLR(o, 1.0, epochs=0, steps_per_epoch=3),
        "onecycle-spe": lambda S, o, lib: S.OneCycleLR(o, 1.0, epochs=2, steps_per_epoch=-1),
        "onecycle-only-epochs": lambda S, o, lib: S.OneCycleLR(o, 1.0, epochs=2),
        "onecycle-pct": lambda S, o, lib: S.OneCycleLR(o, 1.0, total_steps=10, pct_start=1.5),
        "onecycle-pct-int": lambda S, o, lib: S.OneCycleLR(o, 1.0, total_steps=10, pct_start=1),
        "onecycle-maxlr-len": lambda S, o, lib: S.OneCycleLR(o, [1.0], total_steps=10),
        "onecycle-no-momentum": lambda S, o, lib: S.OneCycleLR(adagrad(lib), 1.0, total_steps=10),
        "onecycle-not-opt": lambda S, o, lib: S.OneCycleLR(object(), 1.0, total_steps=10),
        "onecycle-momentum-len": lambda S, o, lib: S.OneCycleLR(o, 1.0, total_steps=10, base_momentum=[.1, .2, .3]),
        "step-none": lambda S, o, lib: S.StepLR(None, 2),
        "exp-not-opt": lambda S, o, lib: S.ExponentialLR("sgd", 0.9),
    }


@pytest.mark.parametrize("case", list(_error_cases()))
def test_more_errors_match_torch(torch, case):
    results = []
    for lib in (ember, torch):
        with pytest.raises(Exception) as info:
            _error_cases()[case](lib.optim.lr_scheduler, make_opt(lib), lib)
        results.append((type(info.value).__name__, str(info.value)))
    if case in ("seq-other-opt", "chain-other-opt"):   # messages embed the optimizer's repr
        assert results[0][0] == results[1][0] == "ValueError"
        assert results[0][1].split(" has ")[0] == results[1][1].split(" has ")[0]
        assert results[0][1].endswith("which is different from SGD.")
    else:
        assert results[0] == results[1]


def test_onecycle_overrun_error_matches_torch(torch):
    msgs = []
    for lib in (ember, torch):
        o = make_opt(lib)
        s = lib.optim.lr_scheduler.OneCycleLR(o, 1.0, total_steps=3)
        with pytest.raises(ValueError) as info:
            for _ in range(5):
                o.step()
                s.step()
        msgs.append((str(info.value), s.last_epoch))
    assert msgs[0] == msgs[1] == ("Tried to step 4 times. The specified number of total steps is 3", 4)


# ================================================================================================
# Corners of the chainable rules, SequentialLR restarts, tensor lrs, randomized parity
# ================================================================================================
EPOCH0 = {
    "StepLR": lambda S, o: S.StepLR(o, 3, 0.5),
    "MultiStepLR": lambda S, o: S.MultiStepLR(o, [0, 2], 0.5),
    "ConstantLR": lambda S, o: S.ConstantLR(o, 0.5, 4),
    "LinearLR": lambda S, o: S.LinearLR(o, 0.5, 1.0, 4),
    "ExponentialLR": lambda S, o: S.ExponentialLR(o, 0.9),
    "PolynomialLR": lambda S, o: S.PolynomialLR(o, 4, 2.0),
    "CosineAnnealingLR": lambda S, o: S.CosineAnnealingLR(o, 4, 0.01),
    "MultiplicativeLR": lambda S, o: S.MultiplicativeLR(o, mult),
    "LambdaLR": lambda S, o: S.LambdaLR(o, lam),
}


@pytest.mark.parametrize("name", list(EPOCH0))
def test_rule_at_epoch_zero_outside_initial_step(torch, name):
    """Rewinding last_epoch to -1 and stepping reaches epoch 0 *not* as the initial step."""
    res = []
    for lib in (ember, torch):
        o = make_opt(lib)
        s = EPOCH0[name](lib.optim.lr_scheduler, o)
        for g in o.param_groups:
            g["lr"] = 0.05
        out = []
        for _ in range(3):
            s.last_epoch = -1
            o.step()
            s.step()
            out.append(s.get_last_lr())
        res.append(out)
    np.testing.assert_allclose(res[0], res[1], rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("case", ["last-epoch", "warm-restarts-child", "onecycle-in-chain", "nested-second"])
def test_sequential_and_chained_corners(torch, case):
    build = {
        "last-epoch": lambda S, o: S.SequentialLR(o, [S.StepLR(o, 2), S.ExponentialLR(o, 0.9)], [3], last_epoch=2),
        "warm-restarts-child": lambda S, o: S.SequentialLR(
            o, [S.ConstantLR(o, 0.5, 10), S.CosineAnnealingWarmRestarts(o, 4, T_mult=2)], [3]),
        "onecycle-in-chain": lambda S, o: S.ChainedScheduler([S.OneCycleLR(o, 1.0, total_steps=30),
                                                              S.ExponentialLR(o, 0.95)]),
        # torch cannot restart a nested SequentialLR at a milestone (it has no rule of its own): same error
        "nested-second": lambda S, o: S.SequentialLR(
            o, [S.StepLR(o, 2), S.SequentialLR(o, [S.ConstantLR(o, 0.5, 2), S.ExponentialLR(o, 0.9)], [2])], [3]),
    }[case]
    res = []
    for lib in (ember, torch):
        o = make_opt(lib)
        out = []
        try:
            s = build(lib.optim.lr_scheduler, o)
            for _ in range(25):
                o.step()
                s.step()
                out.append(s.get_last_lr())
        except NotImplementedError:
            out.append("NotImplementedError")
        res.append(out)
    assert len(res[0]) == len(res[1])
    if res[1][-1] == "NotImplementedError":
        assert res[0][-1] == "NotImplementedError"
        res = [r[:-1] for r in res]
    np.testing.assert_allclose(res[0], res[1], rtol=1e-12, atol=1e-15)


def test_sequential_milestone_restart_is_not_counted_as_a_step(torch):
    counts = []
    for lib in (ember, torch):
        o = make_opt(lib)
        S = lib.optim.lr_scheduler
        child = S.MultiplicativeLR(o, mult)
        s = S.SequentialLR(o, [S.ExponentialLR(o, 0.5), child], [2])
        seq = []
        for _ in range(4):
            o.step()
            s.step()
            seq.append((child._step_count, child.last_epoch, child.get_last_lr()[0]))
        counts.append(seq)
    assert counts[0][:2] == counts[1][:2]
    np.testing.assert_allclose([c[2] for c in counts[0]], [c[2] for c in counts[1]], rtol=1e-12)


def test_tensor_lr_is_updated_in_place(torch):
    res = []
    for lib in (ember, torch):
        o = lib.optim.SGD([lib.ones(2, requires_grad=True)], lr=lib.tensor(0.1))
        lr_obj = o.param_groups[0]["lr"]
        s = lib.optim.lr_scheduler.StepLR(o, 1, 0.5)
        for _ in range(3):
            o.step()
            s.step()
        assert o.param_groups[0]["lr"] is lr_obj
        assert o.param_groups[0]["initial_lr"] is not lr_obj
        res.append([float(lr_obj), float(s.get_last_lr()[0]), float(s.base_lrs[0])])
    assert res[0] == pytest.approx(res[1], rel=1e-6)


def _random_schedule(r):
    kind = r.choice(["Step", "MultiStep", "Const", "Lin", "Exp", "Poly", "Cos", "CAWR", "One", "Cyc", "Mult",
                     "Seq", "Chain"])
    if kind == "Step":
        a = dict(step_size=r.randint(1, 6), gamma=r.uniform(0.1, 1))
        return kind, lambda S, o: S.StepLR(o, **a)
    if kind == "MultiStep":
        a = dict(milestones=sorted(r.choices(range(1, 30), k=r.randint(0, 5))), gamma=r.uniform(0.1, 1))
        return kind, lambda S, o: S.MultiStepLR(o, **a)
    if kind == "Const":
        a = dict(factor=r.uniform(0.05, 1), total_iters=r.randint(0, 10))
        return kind, lambda S, o: S.ConstantLR(o, **a)
    if kind == "Lin":
        a = dict(start_factor=r.uniform(0.05, 1), end_factor=r.uniform(0, 1), total_iters=r.randint(1, 20))
        return kind, lambda S, o: S.LinearLR(o, **a)
    if kind == "Exp":
        a = dict(gamma=r.uniform(0.5, 1.1))
        return kind, lambda S, o: S.ExponentialLR(o, **a)
    if kind == "Poly":
        a = dict(total_iters=r.randint(1, 30), power=r.uniform(0.1, 4))
        return kind, lambda S, o: S.PolynomialLR(o, **a)
    if kind == "Cos":
        a = dict(T_max=r.randint(1, 15), eta_min=r.choice([0.0, r.uniform(0, 0.05)]))
        return kind, lambda S, o: S.CosineAnnealingLR(o, **a)
    if kind == "CAWR":
        a = dict(T_0=r.randint(1, 8), T_mult=r.randint(1, 3), eta_min=r.uniform(0, 0.05))
        return kind, lambda S, o: S.CosineAnnealingWarmRestarts(o, **a)
    if kind == "One":
        a = dict(max_lr=r.uniform(0.2, 2), total_steps=r.randint(41, 60), pct_start=r.uniform(0.05, 0.9),
                 anneal_strategy=r.choice(["cos", "linear"]), three_phase=r.random() < 0.5,
                 div_factor=r.uniform(2, 30), final_div_factor=r.uniform(10, 1e4))
        return kind, lambda S, o: S.OneCycleLR(o, **a)
    if kind == "Cyc":
        a = dict(base_lr=r.uniform(0.001, 0.05), max_lr=r.uniform(0.1, 1), step_size_up=r.randint(1, 8),
                 step_size_down=r.choice([None, r.randint(1, 8)]),
                 mode=r.choice(["triangular", "triangular2", "exp_range"]), gamma=r.uniform(0.8, 1))
        return kind, lambda S, o: S.CyclicLR(o, **a)
    if kind == "Mult":
        g = r.uniform(0.8, 1.05)
        return kind, lambda S, o: S.MultiplicativeLR(o, lambda e: g)
    children = []
    while len(children) < r.randint(1, 3):
        k, f = _random_schedule(r)
        if k not in ("Seq", "Chain", "One", "Cyc", "CAWR"):
            children.append(f)
    if kind == "Chain":
        return kind, lambda S, o: S.ChainedScheduler([f(S, o) for f in children])
    milestones = sorted(r.sample(range(1, 35), len(children) - 1))
    return kind, lambda S, o: S.SequentialLR(o, [f(S, o) for f in children], milestones)


@pytest.mark.parametrize("block", range(4))
def test_randomized_parity(torch, block):
    import random
    import warnings as W
    for seed in range(block * 50, block * 50 + 50):
        r = random.Random(seed)
        _, build = _random_schedule(r)
        kind = r.choice(["SGD", "Adam"])
        poke = r.random() < 0.3
        oe, ot = make_opt(ember, kind), make_opt(torch, kind)
        with W.catch_warnings():
            W.simplefilter("ignore")
            se, st = build(ember.optim.lr_scheduler, oe), build(torch.optim.lr_scheduler, ot)
            for i in range(40):
                oe.step()
                ot.step()
                if poke and i == 5:
                    for g in oe.param_groups + ot.param_groups:
                        g["lr"] *= 1.3
                se.step()
                st.step()
                np.testing.assert_allclose(se.get_last_lr(), st.get_last_lr(), rtol=1e-12, atol=1e-15,
                                           err_msg=f"seed {seed}")
                _groups_match(oe, ot)
                _assert_same_state(se.state_dict(), st.state_dict())


def test_nested_sequential_warns_like_torch(torch):
    """Wrapping a SequentialLR in a SequentialLR re-runs the inner one's initial step, which steps its first
    child a second time before any optimizer step: torch warns during construction, and so does ember."""
    import warnings as W
    got = []
    for lib in (ember, torch):
        o = make_opt(lib)
        S = lib.optim.lr_scheduler
        inner = S.SequentialLR(o, [S.LinearLR(o, 0.5, total_iters=2), S.ExponentialLR(o, 0.9)], [2])
        with pytest.warns(UserWarning) as rec:
            s = S.SequentialLR(o, [inner, S.StepLR(o, 2)], [4])
        got.append([str(w.message)[:40] for w in rec])
        with W.catch_warnings():
            W.simplefilter("error")
            for _ in range(6):
                o.step()
                s.step()
    assert got[0] == got[1] == ["Detected call of `lr_scheduler.step()` b"]


@pytest.mark.parity
@pytest.mark.parametrize("make", [
    lambda lib, o: lib.optim.lr_scheduler.StepLR(o, 2),
    lambda lib, o: lib.optim.lr_scheduler.ExponentialLR(o, 0.5),
    lambda lib, o: lib.optim.lr_scheduler.LambdaLR(o, lambda e: 1.0),
    lambda lib, o: lib.optim.lr_scheduler.CosineAnnealingLR(o, 5),
    lambda lib, o: lib.optim.lr_scheduler.OneCycleLR(o, 1.0, total_steps=10),
    lambda lib, o: lib.optim.lr_scheduler.LinearLR(o),
    lambda lib, o: lib.optim.lr_scheduler.CyclicLR(o, 0.01, 0.1),
], ids=["StepLR", "ExponentialLR", "LambdaLR", "CosineAnnealingLR", "OneCycleLR", "LinearLR", "CyclicLR"])
def test_get_lr_outside_step_warns_from_the_scheduler_module(torch, make):
    """get_lr() called by the user warns with stacklevel 2: the warning names the scheduler's own module (torch's
    lr_scheduler.py; ember's lr_scheduler package), not the user's line, so a filter on the module applies."""
    import os
    import warnings

    def where(lib):
        s = make(lib, make_opt(lib))
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            s.get_lr()
        assert len(w) == 1 and "please use `get_last_lr()`" in str(w[0].message)
        return w[0].filename

    t, e = where(torch), where(ember)
    assert os.path.basename(t) == "lr_scheduler.py" and t != __file__
    assert os.path.dirname(e) == os.path.dirname(L.__file__) and e != __file__
