"""ember.compile's mode= and options= with the "inductor" backend (torch._inductor.list_mode_options and torch's
inductor wrapper): each mode sets its config values while a graph is compiled, unknown modes and options raise
torch's RuntimeError at ember.compile time, and other backends ignore mode."""
import pytest

import ember
from ember._dynamo.backends.registry import _BACKENDS
from ember._inductor import config
from ember._inductor.modes import InductorWrapper, list_mode_options


@pytest.fixture(autouse=True)
def _fresh():
    ember._dynamo.reset()
    yield
    ember._dynamo.reset()


@pytest.fixture
def seen(monkeypatch):
    """Replace the registered inductor backend by a recorder of the config it was called under."""
    log = []

    def recorder(gm, example_inputs):
        log.append(config.get_config_copy())
        return gm.forward
    monkeypatch.setitem(_BACKENDS, "inductor", recorder)
    return log


def _f(x):
    return (x * 2).sin()


@pytest.mark.parametrize("mode,expect", [
    ("max-autotune", {"max_autotune": True, "coordinate_descent_tuning": True, "cpp_wrapper": True}),
    ("max-autotune-no-cudagraphs", {"max_autotune": True, "coordinate_descent_tuning": True,
                                    "cpp_wrapper": False}),
    ("reduce-overhead", {"cpp_wrapper": True, "max_autotune": False}),
    ("default", {"cpp_wrapper": False, "max_autotune": False}),
    (None, {"cpp_wrapper": False, "max_autotune": False}),
])
def test_mode_sets_config_while_compiling(seen, mode, expect):
    x = ember.randn(5)
    out = ember.compile(_f, mode=mode)(x)
    ember.testing.assert_close(out, _f(x))
    assert len(seen) == 1
    for k, v in expect.items():
        assert seen[0][k] == v, k
    assert config.max_autotune is False and config.cpp_wrapper is False    # restored after compiling


def test_options_patch_config(seen):
    x = ember.randn(3)
    ember.compile(_f, options={"cpp.threads": 1, "max-autotune": True})(x)
    assert seen[0]["cpp.threads"] == 1 and seen[0]["max_autotune"] is True
    assert config.cpp.threads == -1


def test_lite_mode_runs_without_generated_code(seen):
    x = ember.randn(4, requires_grad=True)
    out = ember.compile(_f, mode="lite")(x)
    assert seen == []                           # aot_eager ran instead of the inductor backend
    out.sum().backward()
    ember.testing.assert_close(x.grad, 2 * (2 * x.detach()).cos())


def test_unknown_mode_raises_at_compile_time():
    msg = ("Unrecognized mode=fastest, should be one of: default, lite, reduce-overhead, "
           "max-autotune-no-cudagraphs, max-autotune")
    with pytest.raises(RuntimeError, match="^" + msg + "$"):
        ember.compile(_f, mode="fastest")
    with pytest.raises(RuntimeError, match="Unrecognized mode=fastest"):
        list_mode_options("fastest")
    ember.compile(_f, backend="eager", mode="fastest")        # other backends do not read mode (as torch)


def test_bad_options_raise():
    with pytest.raises(RuntimeError, match=r"^Unexpected optimization option bogus, known options are \["):
        ember.compile(_f, options={"bogus": 1})
    with pytest.raises(RuntimeError, match="^Unexpected type of attr max_autotune, got int should be bool$"):
        ember.compile(_f, options={"max_autotune": 1})
    with pytest.raises(RuntimeError, match="Either mode or options can be specified"):
        ember.compile(_f, mode="max-autotune", options={"debug": True})


def test_list_mode_options_and_wrapper_equality():
    allm = list_mode_options()
    assert list(allm) == ["default", "lite", "reduce-overhead", "max-autotune-no-cudagraphs", "max-autotune"]
    assert list_mode_options("reduce-overhead") == {"cpp_wrapper": True}
    assert InductorWrapper("max-autotune") == InductorWrapper("max-autotune")
    assert InductorWrapper("max-autotune") != InductorWrapper("reduce-overhead")


@pytest.mark.parity
def test_mode_names_and_messages_match_torch():
    torch = pytest.importorskip("torch")
    from torch._inductor import list_mode_options as tlist
    assert list(tlist()) == list(list_mode_options())
    for bad in (lambda c: c(_f, mode="fastest"), lambda c: c(_f, options={"max_autotune": 1})):
        with pytest.raises(RuntimeError) as te:
            bad(torch.compile)
        with pytest.raises(RuntimeError) as ee:
            bad(ember.compile)
        assert str(te.value) == str(ee.value)


@pytest.mark.parametrize("mode", list(list_mode_options()))
def test_every_mode_compiles_and_matches_eager(mode):
    """With the real backend (whatever is registered as "inductor"), each mode gives eager's values and
    gradients."""
    x = ember.randn(6, requires_grad=True)
    y = ember.compile(_f, mode=mode)(x)
    ember.testing.assert_close(y, _f(x.detach()))
    y.sum().backward()
    ember.testing.assert_close(x.grad, 2 * (2 * x.detach()).cos())


def test_unread_options_warn_and_read_ones_do_not():
    for key in config.UNREAD:
        with pytest.warns(UserWarning, match=f"option '{key}' is accepted"):
            InductorWrapper(options={key: config.get_type(key)() if config.get_type(key) is not tuple else ()})
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        InductorWrapper(options={"cpp.threads": 1, "max_autotune": True})
        InductorWrapper(mode="max-autotune")                 # a mode's own values: documented, not warned


def test_options_apply_to_the_lazily_compiled_backward(monkeypatch):
    """AOT autograd compiles the backward on the first backward, after ember.compile's call has returned: the
    options still apply (compile_fx snapshots the config)."""
    from ember._inductor import compile_fx as cfx
    monkeypatch.setattr(config, "fx_graph_cache", False)     # a graph-cache hit compiles nothing
    seen = []
    real = cfx.compile_fx_inner

    def spy(gm, example_inputs, **kw):
        seen.append(config.cpp.threads)
        return real(gm, example_inputs, **kw)
    monkeypatch.setattr(cfx, "compile_fx_inner", spy)
    from ember._dynamo.backends import registry
    monkeypatch.setitem(registry._BACKENDS, "inductor", lambda gm, ex: cfx.compile_fx(gm, ex, inner_compile=spy))
    x = ember.randn(4, 3, requires_grad=True)
    out = ember.compile(lambda t: (t.sin() * 2).sum(), options={"cpp.threads": 1})(x)
    out.backward()
    assert seen == [1, 1] and config.cpp.threads == -1


def test_max_autotune_times_variants_and_stores_the_choice(tmp_path, monkeypatch):
    from ember._dynamo.utils import counters
    from ember._inductor import autotune
    monkeypatch.setenv("EMBER_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(config, "fx_graph_cache", False)
    x = ember.randn(64, 48, 40)

    def f(t):
        return (t * 2).sum((0, 1)) + t.softmax(-1).amax(-1).sum()
    out = ember.compile(f, mode="max-autotune")(x)
    ember.testing.assert_close(out, f(x), rtol=1e-4, atol=1e-3)
    assert counters["inductor"]["autotuned_graphs"] == 1
    stored = list((tmp_path / "autotune").glob("*.json"))
    assert len(stored) == 1
    import json
    rec = json.loads(stored[0].read_text())
    assert rec["params"] in autotune.VARIANTS and len(rec["seconds"]) >= 2
    ember._dynamo.reset()
    out = ember.compile(f, mode="max-autotune")(x)          # the stored choice: no timing
    ember.testing.assert_close(out, f(x), rtol=1e-4, atol=1e-3)
    assert counters["inductor"]["autotune_cache_hit"] == 1 and counters["inductor"]["autotuned_graphs"] == 0


def test_max_autotune_leaves_in_place_updates_untimed():
    from ember._dynamo.utils import counters
    model = ember.nn.Linear(3, 2)
    opt = ember.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    twin = ember.nn.Linear(3, 2)
    twin.load_state_dict(model.state_dict())
    topt = ember.optim.SGD(twin.parameters(), lr=0.1, momentum=0.9)
    step = ember.compile(topt.step, mode="max-autotune")
    for _ in range(2):
        for m, o in ((model, opt), (twin, topt)):
            o.zero_grad()
            m(ember.ones(4, 3)).sum().backward()
        opt.step()
        step()
    for p, q in zip(model.parameters(), twin.parameters()):
        ember.testing.assert_close(q, p, rtol=0, atol=0)      # the update ran once per step, not per variant
    assert counters["inductor"]["autotuned_graphs"] == 0
