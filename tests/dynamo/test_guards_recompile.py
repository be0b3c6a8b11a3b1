"""Guards, the cache per code object, recompiles and their limits."""
import warnings

import pytest

import ember
import ember.nn as nn
from ember._dynamo import config
from ember._dynamo.utils import counters
from ember.testing import assert_close

from .models import MLP

FLAG = True


def _flagged(x):
    if FLAG:
        return x + 1
    return x - 1


def test_global_flag_flipped_recompiles():
    global FLAG
    cf = ember.compile(_flagged)
    x = ember.ones(3)
    try:
        FLAG = True
        assert_close(cf(x), x + 1)
        FLAG = False
        assert_close(cf(x), x - 1)
        FLAG = True
        assert_close(cf(x), x + 1)
    finally:
        FLAG = True
    assert counters["stats"]["unique_graphs"] == 2
    assert counters["recompiles"]["_flagged"] == 1


def test_no_grad_vs_grad():
    def f(x, w):
        return (x * w).sum()
    cf = ember.compile(f)
    x, w = ember.randn(3), ember.randn(3, requires_grad=True)
    assert cf(x, w).requires_grad
    with ember.no_grad():
        out = cf(x, w)
    assert not out.requires_grad
    assert counters["stats"]["unique_graphs"] == 2


def test_no_grad_block_inside_compiled_function():
    def f(x):
        with ember.no_grad():
            y = x * 2
        return y + x
    cf = ember.compile(f)
    x = ember.randn(3, requires_grad=True)
    out = cf(x)
    ref = f(x)
    assert_close(out, ref)
    out.sum().backward()
    assert_close(x.grad, ember.ones(3))
    assert ember.is_grad_enabled()


def test_eval_vs_train_recompiles_and_matches():
    m = MLP(p=0.5)
    cm = ember.compile(m)
    x = ember.randn(4, 6)
    m.eval()
    assert_close(cm(x), m(x))
    m.train()
    ember.manual_seed(1)
    a = cm(x)
    ember.manual_seed(1)
    b = m(x)
    assert_close(a, b)
    assert counters["stats"]["unique_graphs"] == 2


def test_replaced_submodule():
    m = MLP()
    cm = ember.compile(m)
    x = ember.randn(2, 6)
    cm(x)
    m.fc2 = nn.Linear(16, 3)
    assert_close(cm(x), m(x))
    assert counters["stats"]["unique_graphs"] == 2


def test_forward_hook_added_and_removed():
    m = MLP()
    cm = ember.compile(m)
    x = ember.randn(2, 6)
    ref = m(x)
    assert_close(cm(x), ref)
    h = m.fc2.register_forward_hook(lambda mod, inp, out: out * 10)
    assert_close(cm(x), ref * 10)
    h.remove()
    assert_close(cm(x), ref)
    pre = m.register_forward_pre_hook(lambda mod, args: (args[0] * 0,))
    assert_close(cm(x), m(x))
    pre.remove()
    assert_close(cm(x), ref)


def test_new_batch_size_and_automatic_dynamic():
    m = MLP()
    cm = ember.compile(m)
    for b in range(1, 11):
        x = ember.randn(b, 6)
        assert_close(cm(x), m(x))
    # the second size marks dim 0 dynamic: at most two compiles (entries) for ten batch sizes
    assert sum(counters["recompiles"].values()) == 1
    assert counters["frames"]["ok"] == 2


def test_dynamic_false_stays_static():
    def f(x):
        return x * 2
    cf = ember.compile(f, dynamic=False)
    for n in range(1, 4):
        cf(ember.ones(n))
    assert counters["stats"]["unique_graphs"] == 3


def test_mark_dynamic():
    def f(x):
        b, t = x.shape
        return x.reshape(b * t).sum(0) + x.sum(0)
    cf = ember.compile(f)
    x = ember.randn(4, 3)
    ember._dynamo.mark_dynamic(x, 0)
    assert_close(cf(x), f(x))
    y = ember.randn(6, 3)
    ember._dynamo.mark_dynamic(y, 0)
    assert_close(cf(y), f(y))
    assert not counters["recompiles"]
    assert counters["stats"]["unique_graphs"] == 1      # one symbolic graph serves both sizes


def test_dynamic_true_one_entry_for_all_shapes():
    def f(x):
        return x.view(-1) * x.shape[0]
    cf = ember.compile(f, dynamic=True)
    # (starting with (2, 2) would give both dims one symbol by duck sizing, and (3, 2) a recompile, as in torch)
    for n in (3, 2, 4):
        x = ember.randn(n, 2)
        assert_close(cf(x), f(x))
    assert not counters["recompiles"]


def test_recompile_limit_warns_once_and_runs_eagerly():
    def f(x, k):
        return x * k
    cf = ember.compile(f, dynamic=False)        # (dynamic=None would make k a SymInt at its recompile)
    x = ember.ones(2)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        for k in range(1, 12):
            assert_close(cf(x, k), x * k)
    msgs = [str(i.message) for i in w if "recompile_limit" in str(i.message)]
    assert len(msgs) == 1
    assert "'test_recompile_limit_warns_once_and_runs_eagerly.<locals>.f'" in msgs[0]
    assert "L[1] == 8" in msgs[0]
    assert counters["frames"]["ok"] == config.recompile_limit


def test_fullgraph_entries_are_separate():
    def f(x):
        return x + 1
    a = ember.compile(f)
    b = ember.compile(f, fullgraph=True)
    x = ember.ones(2)
    a(x)
    b(x)
    assert counters["stats"]["unique_graphs"] == 2


def test_reset_clears_everything():
    def f(x):
        return x + 1
    cf = ember.compile(f)
    cf(ember.ones(2))
    assert counters["stats"]["unique_graphs"] == 1
    ember.compiler.reset()
    assert not counters
    cf(ember.ones(2))
    assert counters["stats"]["unique_graphs"] == 1


def test_default_dtype_is_a_guard():
    def f():
        return ember.zeros(2)
    cf = ember.compile(f)
    assert cf().dtype == ember.float32
    ember.set_default_dtype(ember.float64)
    try:
        assert cf().dtype == ember.float64
    finally:
        ember.set_default_dtype(ember.float32)


def test_tensor_dtype_change_recompiles():
    def f(x):
        return x + 1
    cf = ember.compile(f)
    assert cf(ember.ones(2)).dtype == ember.float32
    assert cf(ember.ones(2, dtype=ember.float64)).dtype == ember.float64


def test_guard_source_is_one_generated_function():
    def f(x, n):
        return x * n
    cf = ember.compile(f)
    cf(ember.ones(2), 3)
    from ember._dynamo import eval_frame
    (state,) = eval_frame._STATES.values()
    src = state.entries[0].check.source
    assert src.count("def ___check") == 1
    check = src[src.index("def ___check"):]
    # each source is read once: its first read is bound to a local that the later terms use
    assert check.count("L[0]") == 1 and check.count("L[1]") == 1
    assert "(___v0 := L[0])" in check and "___v0._size == (2,)" in check
    assert "type((___v1 := L[1])) is int and ___v1 == 3" in check
    # deduplicated: the same source is guarded once
    assert check.count("== 3") == 1


def test_guards_hold_identity_matched_objects_weakly():
    import gc
    import weakref

    def f(m, x):
        return m(x)
    cf = ember.compile(f, backend="eager")
    m = ember.nn.Linear(2, 2)
    x = ember.ones(1, 2)
    assert ember.testing.assert_close(cf(m, x), m(x)) is None
    from ember._dynamo import eval_frame
    (state,) = eval_frame._STATES.values()
    (entry,) = state.entries
    assert "___id(L[0]) == " in entry.check.source
    ref = weakref.ref(m)
    del m
    gc.collect()
    assert ref() is None                     # the cache entry did not keep the module alive
    # the entry of a dead module never matches, even an object that reuses its id
    assert entry.check(([], x), {}, ()) is None
    m2 = ember.nn.Linear(2, 2)
    assert ember.testing.assert_close(cf(m2, x), m2(x)) is None
    assert len(state.entries) == 2


def test_default_backend_is_inductor_and_compiles_to_c():
    from ember._dynamo.backends.registry import lookup_backend
    from ember._dynamo.utils import counters
    def compiled_graphs():        # lowered now, or taken from the graph-level disk cache (an earlier run's)
        return counters["inductor"]["graphs"] + counters["inductor"]["fxgraph_cache_hit"]
    before = compiled_graphs()

    def f(x):
        return x.sin()
    with warnings.catch_warnings():
        warnings.simplefilter("error")        # no fallback warning any more
        out = ember.compile(f)(ember.ones(2))
    assert_close(out, ember.ones(2).sin())
    assert lookup_backend("inductor").__module__ == "ember._dynamo.backends.inductor"
    assert compiled_graphs() == before + 1


def test_callable_backend_receives_graph():
    seen = []

    def backend(gm, example_inputs):
        seen.append((gm, len(example_inputs)))
        return gm.forward

    def f(x, y):
        return (x @ y).relu()
    out = ember.compile(f, backend=backend)(ember.ones(2, 3), ember.ones(3, 2))
    assert_close(out, ember.full((2, 2), 3.0))
    assert len(seen) == 1 and seen[0][1] == 2
    assert "matmul" in seen[0][0].code


def test_accumulated_recompile_limit(monkeypatch):
    monkeypatch.setattr(config, "accumulated_recompile_limit", 2)
    fns = []
    for k in range(3):
        def f(x, k=k):
            return x + k
        fns.append(ember.compile(f))
    x = ember.zeros(1)
    fns[0](x)
    fns[1](x)
    with pytest.warns(UserWarning, match="accumulated_recompile_limit"):
        assert_close(fns[2](x), x + 2)
    assert counters["frames"]["ok"] == 2


def test_unsupported_python_version_warns_once_and_runs_eagerly(monkeypatch):
    from ember._dynamo import eval_frame
    monkeypatch.setattr(eval_frame, "SUPPORTED_VERSIONS", set())
    monkeypatch.setattr(eval_frame, "_warned_version", [False])

    def f(x):
        return x + 1
    with pytest.warns(UserWarning, match="no opcode table for Python"):
        cf = ember.compile(f)
    assert cf is f
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert ember.compile(f) is f


def test_compiler_disable_runs_eagerly():
    @ember.compiler.disable
    def f(x):
        return x + 1
    assert_close(ember.compile(f)(ember.zeros(1)), ember.ones(1))
    assert not counters["stats"]


def test_functions_read_from_a_user_module_are_guarded():
    import sys
    import types
    helpers = types.ModuleType("ember_test_user_helpers")
    exec("def act(x):\n    return x * 2\n\ndef outer(x):\n    return act(x) + 1\n", helpers.__dict__)
    sys.modules[helpers.__name__] = helpers
    try:
        def f(x):
            return helpers.act(x) + helpers.outer(x)
        cf = ember.compile(f, backend="eager")
        x = ember.ones(3)
        assert_close(cf(x), f(x))
        helpers.act = lambda x: x * 5          # read as helpers.act here, and as a global inside outer()
        assert_close(cf(x), f(x))
        assert counters["recompiles"]
    finally:
        del sys.modules[helpers.__name__]


class _TensorKeyedState:
    """An optimizer-like object: per-parameter state in a dict keyed by the parameter tensor."""

    def __init__(self, p):
        self.p, self.state = p, {}

    def _init(self, p):
        if p not in self.state:
            ember._dynamo.graph_break()
            self.state[p] = ember.zeros_like(p)
        return self.state[p]

    def step(self):
        with ember.no_grad():
            s = self._init(self.p)
            s.add_(self.p)
            self.p.mul_(0.5)


def test_dict_keyed_by_tensors_is_guarded_by_identity():
    # the dict's keys have no literal form: its values are read by position under an identity guard on the keys
    # (the guard source once printed the tensor's repr and failed with a NameError on the second call)
    eager, compiled = _TensorKeyedState(ember.ones(3, requires_grad=True)), \
        _TensorKeyedState(ember.ones(3, requires_grad=True))
    cf = ember.compile(compiled.step, backend="eager")
    for _ in range(3):
        eager.step()
        cf()
        assert ember.is_grad_enabled()
    assert_close(compiled.p, eager.p)
    assert_close(compiled.state[compiled.p], eager.state[eager.p])
    # a different key object (equal values) fails the identity guard and recompiles instead of comparing values
    other = _TensorKeyedState(ember.ones(3, requires_grad=True))
    other.state[other.p] = ember.zeros(3)
    before = dict(counters["recompiles"])
    ember.compile(other.step, backend="eager")()
    assert_close(other.state[other.p], ember.ones(3))
    assert counters["recompiles"]["_TensorKeyedState._init"] == before["_TensorKeyedState._init"] + 1
