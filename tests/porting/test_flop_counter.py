"""torch.utils.flop_counter.FlopCounterMode and torch.utils.module_tracker.ModuleTracker: the FLOPs counted
per module and per op, forward and backward, equal torch's on the same CNN, MLP and matrix products."""
import pytest

import ember
from ember.utils.flop_counter import FlopCounterMode
from ember.utils.module_tracker import ModuleTracker
from _porting import torch_fixture  # noqa: F401  (the `torch` fixture)


def _cnn(t):
    return t.nn.Sequential(t.nn.Conv2d(2, 3, 3), t.nn.ReLU(), t.nn.Conv2d(3, 4, 3, stride=2, padding=1),
                           t.nn.Flatten(), t.nn.Linear(36, 5))


def _mlp(t):
    return t.nn.Sequential(t.nn.Linear(8, 16), t.nn.GELU(), t.nn.Sequential(t.nn.Linear(16, 16), t.nn.Tanh()),
                           t.nn.Linear(16, 3))


def _counts(t, build, shape, backward):
    from importlib import import_module
    FC = import_module(t.__name__ + ".utils.flop_counter").FlopCounterMode
    t.manual_seed(0)
    m = build(t)
    x = t.randn(*shape)
    with FC(display=False) as fc:
        y = m(x)
        if backward:
            y.sum().backward()
    return fc.get_total_flops(), {mod: {str(op): n for op, n in ops.items()}
                                  for mod, ops in fc.get_flop_counts().items()}


@pytest.mark.parity
@pytest.mark.parametrize("build,shape", [(_cnn, (2, 2, 7, 7)), (_mlp, (4, 8)), (_mlp, (2, 5, 8))])
@pytest.mark.parametrize("backward", [False, True])
def test_model_flops_match_torch(torch, build, shape, backward):
    ours = _counts(ember, build, shape, backward)
    assert ours == _counts(torch, build, shape, backward)
    assert ours[0] > 0


def _ops(t):
    F = t.nn.functional
    t.bmm(t.randn(2, 3, 4), t.randn(2, 4, 5))
    t.matmul(t.randn(2, 3, 4), t.randn(4, 5))
    t.baddbmm(t.randn(2, 3, 5), t.randn(2, 3, 4), t.randn(2, 4, 5))
    t.mm(t.randn(3, 4), t.randn(4, 6))
    q = t.randn(2, 3, 4, 8, requires_grad=True)
    F.scaled_dot_product_attention(q, q, q).sum().backward()
    F.conv_transpose2d(t.randn(1, 2, 4, 4, requires_grad=True), t.randn(2, 3, 3, 3, requires_grad=True),
                       stride=2).sum().backward()
    F.conv1d(t.randn(2, 3, 9), t.randn(4, 3, 2), stride=2)


@pytest.mark.parity
def test_op_flops_match_torch(torch):
    def run(t, FC):
        with FC(display=False) as fc:
            _ops(t)
        return {str(op): n for op, n in fc.get_flop_counts()["Global"].items()}
    from torch.utils.flop_counter import FlopCounterMode as TorchFC
    ours = run(ember, FlopCounterMode)
    assert ours == run(torch, TorchFC)
    assert ours["aten.mm"] == 2 * 3 * 6 * 4 + 2 * 6 * 5 * 4      # mm, and matmul folded into one (6, 4) mm


def test_table_lists_modules_and_ops(capsys):
    m = _mlp(ember)
    with FlopCounterMode(depth=2) as fc:
        m(ember.randn(4, 8)).sum().backward()
    out = capsys.readouterr().out
    assert out.strip() == fc.get_table(2).strip()
    lines = out.splitlines()
    assert lines[0].split() == ["Module", "FLOP", "%", "Total"]
    assert lines[2].split() == ["Sequential", "9344.000", "100.00%"]
    assert " - aten.addmm" in out and " Sequential.2 " in out and "Sequential.2.0" not in out
    assert fc.get_total_flops() == 9344


def test_custom_mapping_counts_another_op():
    def relu_flop(x_shape, out_shape=None, **kw):
        return x_shape[0]
    with FlopCounterMode(display=False, custom_mapping={ember.ops.aten.relu: relu_flop}) as fc:
        ember.relu(ember.randn(7, 2))
    assert fc.get_flop_counts()["Global"] == {ember.ops.aten.relu: 7}


def test_module_tracker_parents_forward_and_backward():
    m = _mlp(ember)
    seen = []

    def record(name):
        def hook(*args):
            seen.append((name, sorted(tracker.parents)))
        return hook
    m[2][0].register_forward_pre_hook(record("fwd"))
    with ModuleTracker() as tracker:
        y = m(ember.randn(4, 8))
        y.register_hook(lambda g: seen.append(("bw-top", sorted(tracker.parents))))
        y.sum().backward()
    assert seen[0] == ("fwd", ["Global", "Sequential", "Sequential.2", "Sequential.2.0"])
    assert seen[1] == ("bw-top", ["Global", "Sequential", "Sequential.3"])   # backward entered the last layer
    assert tracker.is_bw
