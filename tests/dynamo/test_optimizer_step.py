"""ember.compile(opt.step): a compiled optimizer step equals eager, updates parameters in place and hits the
cache on later calls (the optimizer's step is a bound method wrapped by `_hooked_step` and `_use_grad`)."""
import numpy as np
import pytest

import ember
import ember.nn as nn
from ember._dynamo.utils import counters

OPTIMIZERS = {
    "sgd_momentum": lambda ps: ember.optim.SGD(ps, lr=0.1, momentum=0.9),
    # eager's first buffer is the gradient itself: a tensor flag in the graph, not a guarded Python bool
    "sgd_dampening": lambda ps: ember.optim.SGD(ps, lr=0.1, momentum=0.9, dampening=0.5, weight_decay=0.01),
    "sgd_nesterov": lambda ps: ember.optim.SGD(ps, lr=0.1, momentum=0.9, nesterov=True, maximize=True),
    "adam": lambda ps: ember.optim.Adam(ps, lr=0.01),
    "adamw": lambda ps: ember.optim.AdamW(ps, lr=0.01, weight_decay=0.1),
}


def _model():
    ember.manual_seed(0)
    return nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 3))


def _run(make_opt, backend, steps=3):
    model = _model()
    opt = make_opt(model.parameters())
    step = ember.compile(opt.step, backend=backend) if backend else opt.step
    params = list(model.parameters())
    ember.manual_seed(1)
    for _ in range(steps):
        opt.zero_grad()
        model(ember.randn(5, 4)).pow(2).sum().backward()
        step()
    assert all(a is b for a, b in zip(params, model.parameters()))
    return [p.detach().numpy().copy() for p in params], opt


@pytest.mark.parametrize("backend", ["inductor", "eager"])
@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_compiled_step_matches_eager(name, backend):
    expected, _ = _run(OPTIMIZERS[name], None)
    ember._dynamo.reset()
    got, opt = _run(OPTIMIZERS[name], backend)
    for e, g in zip(expected, got):
        np.testing.assert_allclose(g, e, rtol=1e-6, atol=1e-7)
    # the step really moved the parameters
    assert any(not np.allclose(e, p) for e, p in zip(expected, [p.detach().numpy() for p in _model().parameters()]))
    assert counters["frames"]["ok"] >= 1
    # later calls hit the cache: nothing recompiles
    assert sum(counters["recompiles"].values()) == 0


@pytest.mark.parametrize("backend", ["inductor", "eager"])
def test_compiled_step_updates_in_place_and_caches(backend):
    model = _model()
    opt = ember.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    step = ember.compile(opt.step, backend=backend)
    before = [(p, p.detach().numpy().copy()) for p in model.parameters()]
    model(ember.randn(2, 4)).sum().backward()
    step()
    frames = counters["frames"]["ok"]
    for p, old in before:
        assert not np.allclose(p.detach().numpy(), old)       # the same Parameter objects, changed in place
    model(ember.randn(2, 4)).sum().backward()
    step()
    step()
    assert counters["frames"]["ok"] == frames                 # the second and third calls captured nothing
    assert sum(counters["recompiles"].values()) == 0
    assert opt.state[before[0][0]]["momentum_buffer"] is not None


def test_compiled_step_returns_closure_loss():
    model = _model()
    opt = ember.optim.Adam(model.parameters(), lr=0.01)
    step = ember.compile(opt.step, backend="eager")
    x = ember.randn(3, 4)

    def closure():
        opt.zero_grad()
        loss = model(x).sum()
        loss.backward()
        return loss

    eager_model = _model()
    eager_opt = ember.optim.Adam(eager_model.parameters(), lr=0.01)

    def eager_closure():
        eager_opt.zero_grad()
        loss = eager_model(x).sum()
        loss.backward()
        return loss

    for _ in range(2):
        got, want = step(closure), eager_opt.step(eager_closure)
        np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-6)
    for a, b in zip(model.parameters(), eager_model.parameters()):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-6, atol=1e-7)


def test_wrapped_function_binds_its_own_signature():
    """A functools.wraps wrapper taking *args binds its own parameters, not the wrapped function's."""
    import functools

    def deco(f):
        @functools.wraps(f)
        def wrapper(*args, **kwargs):
            first, *rest = args
            return f(first, *rest, **kwargs) * 2
        return wrapper

    @deco
    def f(x, y=1.0):
        return x + y

    cf = ember.compile(f, backend="eager")
    x = ember.randn(3)
    np.testing.assert_allclose(cf(x).numpy(), ((x + 1.0) * 2).numpy())
    np.testing.assert_allclose(cf(x, y=3.0).numpy(), ((x + 3.0) * 2).numpy())


def test_step_hooks_run_once_per_call():
    """A step pre-hook appending to a module-level list: the append is replayed once per call (the list's length
    is guarded, so each call recompiles, as in torch); a hook added or removed later is seen."""
    model = _model()
    opt = ember.optim.SGD(model.parameters(), lr=0.1)
    step = ember.compile(opt.step, backend="eager")
    SEEN.clear()
    opt.register_step_pre_hook(_pre_hook)
    model(ember.randn(2, 4)).sum().backward()
    step()
    step()
    assert SEEN == ["pre", "pre"]
    handle = opt.register_step_post_hook(_post_hook)
    step()
    assert SEEN == ["pre", "pre", "pre", "post"]
    handle.remove()
    step()
    assert SEEN == ["pre", "pre", "pre", "post", "pre"]


SEEN = []


def _pre_hook(opt, args, kwargs):
    SEEN.append("pre")


def _post_hook(opt, args, kwargs):
    SEEN.append("post")


@pytest.mark.parametrize("name", ["sgd", "adam"])
def test_tensor_lr_changes_without_recompiling(name):
    """As in torch: a float lr is a constant of the compiled step (guarded, so a scheduler's change recompiles),
    a tensor lr is a graph input: the scheduler changes it in place and the step neither recompiles nor
    drifts from eager."""
    def make(ps):
        lr = ember.tensor(0.05)
        return ember.optim.SGD(ps, lr=lr, momentum=0.9) if name == "sgd" else ember.optim.Adam(ps, lr=lr)

    results = []
    for backend in (None, "inductor"):
        ember._dynamo.reset()
        model = _model()
        opt = make(model.parameters())
        step = ember.compile(opt.step, backend=backend) if backend else opt.step
        ember.manual_seed(1)
        for i in range(4):
            opt.zero_grad()
            model(ember.randn(5, 4)).pow(2).sum().backward()
            step()
            opt.param_groups[0]["lr"].mul_(0.5)             # what a scheduler does to a tensor lr
        results.append([p.detach().numpy().copy() for p in model.parameters()])
    for e, g in zip(*results):
        np.testing.assert_allclose(g, e, rtol=1e-6, atol=1e-7)
    assert sum(counters["recompiles"].values()) == 0


def test_float_lr_is_a_guarded_constant():
    model = _model()
    opt = ember.optim.Adam(model.parameters(), lr=0.01)
    step = ember.compile(opt.step, backend="eager")
    for lr in (0.01, 0.01, 0.005):
        opt.param_groups[0]["lr"] = lr
        model(ember.randn(2, 4)).sum().backward()
        step()
    assert sum(counters["recompiles"].values()) >= 1             # the new value recompiled, as torch does


LOW_PRECISION = {
    "sgd_dampening": lambda ps: ember.optim.SGD(ps, lr=0.1, momentum=0.9, dampening=0.5, weight_decay=0.01),
    "sgd_nesterov": lambda ps: ember.optim.SGD(ps, lr=0.1, momentum=0.9, nesterov=True),
    "adam": lambda ps: ember.optim.Adam(ps, lr=0.01, weight_decay=0.01),
    "adamw_amsgrad": lambda ps: ember.optim.AdamW(ps, lr=0.01, weight_decay=0.1, amsgrad=True),
}


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("name", sorted(LOW_PRECISION))
def test_low_precision_step_compiles_in_float32_and_stores_rounded(name, dtype):
    """float16/bfloat16 parameters: the compiled step is generated code (not eager), reads the parameter, its
    gradient and its state into float32, updates there and stores back rounded once, as torch's inductor does.
    The reference is the float32 optimizer on float32 copies whose parameters and state are rounded to `dtype`
    after each step: equal bit for bit. It stays within a few roundings of eager's low-precision step (one
    rounding per op) and does not recompile."""
    dt = getattr(ember, dtype)
    ember.manual_seed(0)
    shapes = [(8, 4), (8,), (3, 8)]
    init = [ember.randn(*s).to(dt) for s in shapes]
    grads = [[ember.randn(*s).to(dt) for s in shapes] for _ in range(3)]

    def run(param_dtype, compiled, round_to=None):
        ps = [nn.Parameter(t.to(param_dtype).clone()) for t in init]
        opt = LOW_PRECISION[name](ps)
        step = ember.compile(opt.step) if compiled else opt.step
        for gs in grads:
            for p, g in zip(ps, gs):
                p.grad = g.to(param_dtype).clone()
            step()
            if round_to is not None:
                with ember.no_grad():
                    for p in ps:
                        for t in [p] + [v for v in opt.state[p].values()
                                        if isinstance(v, ember.Tensor) and v.shape == p.shape]:
                            t.copy_(t.to(round_to).float())
        return ps, opt

    from ember._inductor import config
    ref, _ = run(ember.float32, False, round_to=dt)
    eager, _ = run(dt, False)
    kernels = counters["inductor"]["kernels"]
    with config.patch(fx_graph_cache=False):                  # (lowered here, not loaded: its kernels count)
        got, opt = run(dt, True)
    assert counters["inductor"]["kernels"] > kernels          # generated code ran the update
    assert counters["inductor"]["fx_fallback"] == 0
    assert sum(counters["recompiles"].values()) == 0
    for g, r, e in zip(got, ref, eager):
        assert g.dtype == dt
        np.testing.assert_array_equal(g.detach().float().numpy(), r.detach().numpy())
        tol = 2 ** -8 if dtype == "float16" else 2 ** -5
        np.testing.assert_allclose(g.detach().float().numpy(), e.detach().float().numpy(), rtol=tol, atol=tol)
    state = opt.state[got[0]]
    assert all(v.dtype == dt for k, v in state.items() if k != "step")
