"""ember.compile on whole models, forward and backward, train and eval, compared with eager."""
import copy

import pytest

import ember
from ember.testing import assert_close

from .models import CNN, GPT, MLP


def _grads(m):
    return {n: p.grad.clone() for n, p in m.named_parameters() if p.grad is not None}


def _check_fwd_bwd(model, make_inputs, reduce):
    ember.manual_seed(0)
    eager = model
    comp_model = copy.deepcopy(model)
    compiled = ember.compile(comp_model)
    for _ in range(2):
        inputs = make_inputs()
        out_e = eager(*inputs)
        out_c = compiled(*inputs)
        assert_close(reduce(out_c), reduce(out_e))
        reduce(out_e).backward()
        reduce(out_c).backward()
    ge, gc = _grads(eager), _grads(comp_model)
    assert ge.keys() == gc.keys() and ge
    for k in ge:
        assert_close(gc[k], ge[k], rtol=1e-4, atol=1e-5)
    return compiled


@pytest.mark.parametrize("train", [True, False])
def test_mlp_forward_backward(train):
    m = MLP().train(train)
    _check_fwd_bwd(m, lambda: (ember.randn(4, 6),), lambda o: o.sum())
    assert ember._dynamo.utils.counters["stats"]["unique_graphs"] == 1


@pytest.mark.parametrize("train", [True, False])
def test_cnn_forward_backward(train):
    m = CNN().train(train)
    _check_fwd_bwd(m, lambda: (ember.randn(2, 1, 8, 8),), lambda o: o.pow(2).sum())


@pytest.mark.parametrize("train", [True, False])
def test_gpt_forward_backward_one_graph(train):
    ember.manual_seed(0)
    m = GPT().train(train)
    idx = ember.randint(0, 32, (2, 8))
    tgt = ember.randint(0, 32, (2, 8))
    _check_fwd_bwd(m, lambda: (idx, tgt), lambda o: o[1])
    c = ember._dynamo.utils.counters
    assert c["stats"]["unique_graphs"] == 1
    assert not c["graph_break"]


def test_optimized_module_keeps_state_dict_attributes_and_training():
    m = MLP()
    cm = ember.compile(m)
    assert isinstance(cm, ember._dynamo.OptimizedModule)
    # as torch: the original module is the submodule `_orig_mod`
    assert list(cm.state_dict().keys()) == ["_orig_mod." + k for k in m.state_dict()]
    assert cm._orig_mod is m and [n for n, _ in cm.named_children()] == ["_orig_mod"]
    sd = {k: v * 0 for k, v in cm.state_dict().items()}
    cm.load_state_dict(sd)
    assert all(float(p.abs().sum()) == 0 for p in m.parameters())
    assert cm.fc1 is m.fc1
    assert cm.training is True
    cm.eval()
    assert m.training is False and cm.training is False
    assert [p is q for p, q in zip(cm.parameters(), m.parameters())] == [True] * 4


def test_module_compile_in_place():
    m = MLP()
    x = ember.randn(3, 6)
    ref = m(x)
    m.compile()
    assert_close(m(x), ref)
    assert ember._dynamo.utils.counters["stats"]["unique_graphs"] == 1
    m(x)
    assert ember._dynamo.utils.counters["stats"]["unique_graphs"] == 1


def test_optimizer_step_does_not_recompile():
    m = MLP()
    cm = ember.compile(m)
    opt = ember.optim.SGD(m.parameters(), lr=0.1)
    x = ember.randn(4, 6)
    for _ in range(3):
        opt.zero_grad()
        loss = cm(x).pow(2).sum()
        loss.backward()
        opt.step()
    assert ember._dynamo.utils.counters["stats"]["unique_graphs"] == 1
    assert not ember._dynamo.utils.counters["recompiles"]
    assert_close(cm(x), m(x))


@pytest.mark.parametrize("backend", ["eager", "aot_eager"])
def test_graph_layer_backends_run_captured_graphs(backend):
    m = MLP()
    cm = ember.compile(m, backend=backend)
    x = ember.randn(4, 6)
    ref = m(x)
    out = cm(x)
    assert_close(out, ref)
    out.sum().backward()
    g = m.fc1.weight.grad.clone()
    m.zero_grad()
    m(x).sum().backward()
    assert_close(g, m.fc1.weight.grad)


def test_gpt_aot_eager_train_step():
    ember.manual_seed(0)
    m = GPT()
    ref = copy.deepcopy(m)
    cm = ember.compile(m, backend="aot_eager")
    idx = ember.randint(0, 32, (2, 8))
    tgt = ember.randint(0, 32, (2, 8))
    _, loss = cm(idx, tgt)
    _, loss_ref = ref(idx, tgt)
    assert_close(loss, loss_ref)
    loss.backward()
    loss_ref.backward()
    assert_close(m.lm_head.weight.grad, ref.lm_head.weight.grad, rtol=1e-4, atol=1e-5)
