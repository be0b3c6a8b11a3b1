"""Training through ember.compile: the demo CNN (examples/train_digits.py) and the char GPT (examples/char_gpt.py)
compiled with the default backend ("inductor") take the same steps as eager (losses and parameters), and a
compiled optimizer step (`ember.compile(opt.step)`) updates the same parameter objects in place with eager's
values."""
import copy
import os
import sys
import warnings

import numpy as np
import pytest

import ember
from ember.testing import assert_close

EXAMPLES = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "examples")


@pytest.fixture(autouse=True)
def _fresh():
    ember._dynamo.reset()
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*backend 'inductor' is not built.*")
        yield
    ember._dynamo.reset()


@pytest.fixture
def examples():
    sys.path.insert(0, EXAMPLES)
    yield
    sys.path.remove(EXAMPLES)


def _train(model, opt, batches, loss_of):
    losses = []
    for batch in batches:
        opt.zero_grad(set_to_none=True)
        loss = loss_of(model, *batch)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses


def _same_training(make, batches, loss_of, backend, rtol=1e-4, atol=1e-5):
    ember.manual_seed(0)
    model, opt_cls = make()
    twin = copy.deepcopy(model)
    eager = _train(model, opt_cls(model.parameters()), batches, loss_of)
    compiled_model = ember.compile(twin, backend=backend) if backend else ember.compile(twin)
    compiled = _train(compiled_model, opt_cls(twin.parameters()), batches, loss_of)
    np.testing.assert_allclose(compiled, eager, rtol=rtol, atol=atol)
    assert eager[-1] < eager[0]                                      # it did learn
    for (name, p), q in zip(model.named_parameters(), twin.parameters()):
        assert_close(q, p, rtol=1e-3, atol=1e-5, msg=name)
    return compiled_model


@pytest.mark.parametrize("backend", [None, "aot_eager"], ids=["default", "aot_eager"])
def test_digits_cnn_trains_like_eager(examples, backend):
    import train_digits
    rng = np.random.default_rng(0)
    batches = [(ember.tensor(rng.random((16, 1, 8, 8), dtype=np.float32)), ember.tensor(rng.integers(0, 10, 16)))
               for _ in range(2)] * 2                                # seen twice: the loss must fall

    def make():
        return train_digits.DigitsCNN(), lambda ps: ember.optim.SGD(ps, lr=0.1, momentum=0.9)
    cm = _same_training(make, batches, lambda m, x, y: ember.nn.functional.cross_entropy(m(x), y), backend)
    assert cm._compiled._state.entries                               # it ran compiled, not eagerly


@pytest.mark.parametrize("backend", [None, "aot_eager"], ids=["default", "aot_eager"])
def test_char_gpt_trains_like_eager(examples, backend):
    import char_gpt
    cfg = char_gpt.GPTConfig(vocab_size=11, n_layer=1, n_head=2, n_embd=16, block_size=8)
    rng = np.random.default_rng(1)
    data = rng.integers(0, 11, 400)
    batches = [tuple(ember.tensor(a) for a in char_gpt.batches(data, 8, 4, rng)) for _ in range(2)] * 2

    def make():
        return char_gpt.GPT(cfg), lambda ps: ember.optim.AdamW(ps, lr=3e-3, weight_decay=0.1)
    try:
        cm = _same_training(make, batches, lambda m, x, y: m(x, y)[1], backend)
    except TypeError as e:
        if "unhashable type: 'GPTConfig'" in str(e):
            pytest.xfail(UNHASHABLE_CONFIG)
        raise
    assert cm._compiled._state.entries


# ember._dynamo (capture work): VariableBuilder.wrap tests `value in _SPECIAL_FUNCTIONS` (a set) for every value it
# wraps, which raises TypeError for unhashable objects such as GPT's `self.config` (a dataclass with eq=True, so
# __hash__ is None; _dynamo/variables/builder.py:69). With that test guarded by hashability, both cases pass
# (checked locally with the inductor backend: the GPT's losses and parameters equal eager's).
UNHASHABLE_CONFIG = "ember._dynamo's wrap() hashes every value it meets: the GPT's dataclass config is unhashable"


OPTIMIZERS = {"SGD": dict(lr=0.1, momentum=0.9), "Adam": dict(lr=0.01), "AdamW": dict(lr=0.01, weight_decay=0.1)}
# What stands between ember.compile(opt.step) and a compiled step, in the order a call meets it (checked by hand
# with each earlier obstacle patched out locally):
# 1. eval_frame.make_binder reads `inspect.signature(fn)`, which follows `__wrapped__`: Optimizer.step is wrapped by
#    functools.wraps wrappers (`_hooked_step`, `_use_grad`), so the wrapper's locals are bound as (self, closure)
#    instead of (args, kwargs) and the resume function after the first graph break gets `args` = the optimizer:
#    TypeError "cannot unpack non-iterable SGD object". Fix: inspect.signature(fn, follow_wrapped=False).
# 2. `self, *_ = args` in _hooked_step is UNPACK_EX, which symbolic_convert does not handle: a graph break at the
#    first instruction, after which the step runs as ember library code, eagerly (call_at_break compiles only user
#    functions).
# 3. The step bodies (optim/sgd.py, adam.py, ...) update `p._np` with numpy (`_sgd_update`, `_set`): there are no
#    tensor ops to capture ("UserObjectVariable as an argument of a graph op"). A compiled step needs a tensor-op
#    path (torch's `_single_tensor_sgd` style: p.add_(grad, alpha=-lr)) chosen while compiling.
# 4. OutputGraph.compile_and_codegen compiles and runs a graph only `if outputs:`, so a graph of in-place updates
#    alone (what a step is) is dropped: `def f(t): t.add_(1)` compiled leaves t unchanged.
WRAPPED_SIGNATURE = ("ember._dynamo binds a functools.wraps wrapper's arguments by the wrapped function's signature "
                     "(make_binder: inspect.signature follows __wrapped__)")
STEP_RUNS_EAGERLY = ("no graph is captured for opt.step: UNPACK_EX breaks at the step wrapper's first instruction, "
                     "the step bodies update numpy arrays, and mutation-only graphs are dropped")


@pytest.mark.parametrize("name", list(OPTIMIZERS))
def test_compiled_optimizer_step_updates_in_place(name):
    ember.manual_seed(0)
    model = ember.nn.Sequential(ember.nn.Linear(4, 6), ember.nn.Tanh(), ember.nn.Linear(6, 2))
    twin = copy.deepcopy(model)
    opt = getattr(ember.optim, name)(model.parameters(), **OPTIMIZERS[name])
    topt = getattr(ember.optim, name)(twin.parameters(), **OPTIMIZERS[name])
    params = list(twin.parameters())
    storages = [p.data_ptr() for p in params]
    step = ember.compile(topt.step)
    x = ember.randn(5, 4)
    for _ in range(3):
        for m, o in ((model, opt), (twin, topt)):
            o.zero_grad()
            m(x).pow(2).sum().backward()
        opt.step()
        try:
            step()
        except TypeError as e:
            if "cannot unpack non-iterable" in str(e):
                pytest.xfail(WRAPPED_SIGNATURE)
            raise
    assert all(a is b for a, b in zip(params, twin.parameters()))
    assert [p.data_ptr() for p in params] == storages                 # updated in place
    for p, q in zip(model.parameters(), params):
        assert_close(q, p, rtol=1e-5, atol=1e-6)
    if not ember._dynamo.utils.counters["stats"]["unique_graphs"]:
        pytest.xfail(STEP_RUNS_EAGERLY)
