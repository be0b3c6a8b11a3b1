"""Parity with torch.fx: the same module traced by both gives the same nodes (ops, names, targets) and codegen shape."""
import pytest

import ember
from ember import fx


def _build(lib):
    nn = lib.nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = nn.Sequential(nn.Linear(4, 8), nn.ReLU())
            self.head = nn.Linear(8, 2)

        def forward(self, x, input):
            h = self.layers(x) * 2 + input
            B, C = h.shape
            h = h.view(B, C).relu()
            return lib.sigmoid(self.head(h)), lib.relu(h.sum(-1))

    return Net()


@pytest.mark.parity
def test_nodes_match_torch_fx():
    torch = pytest.importorskip("torch")
    import torch.fx as tfx
    tgm = tfx.symbolic_trace(_build(torch))
    egm = fx.symbolic_trace(_build(ember))
    tnodes = [(n.op, n.name, n.target if isinstance(n.target, str) else n.target.__name__,
               len(n.args), len(n.users)) for n in tgm.graph.nodes]
    enodes = [(n.op, n.name, n.target if isinstance(n.target, str) else n.target.__name__,
               len(n.args), len(n.users)) for n in egm.graph.nodes]
    assert enodes == tnodes
    # the generated lines are the same once `torch` reads `ember` (comments aside)
    strip = lambda code: [ln for ln in code.splitlines() if ln.strip() and not ln.strip().startswith("#")]
    assert strip(egm.code) == [ln.replace("torch.", "ember.") for ln in strip(tgm.code)]


@pytest.mark.parity
@pytest.mark.parametrize("tracing_mode", ["real", "fake"])
def test_setitem_of_a_python_number_matches_torch_make_fx(tracing_mode):
    """x[0] = 5: the value is lifted (lift_fresh -> lift_fresh_copy of a graph constant) and a 0-dim value
    fills a bigger slice with fill_.Tensor, as torch's copy_to does."""
    torch = pytest.importorskip("torch")
    from torch.fx.experimental.proxy_tensor import make_fx as torch_make_fx
    from ember.fx.experimental.proxy_tensor import make_fx

    def build(lib):
        def f(x):
            y = x.clone()
            y[0] = 5
            y[1, 1] = -2.5
            return y
        return f

    tgm = torch_make_fx(build(torch), tracing_mode=tracing_mode)(torch.randn(3, 4))
    egm = make_fx(build(ember), tracing_mode=tracing_mode)(ember.randn(3, 4))
    strip = lambda code: [ln.strip() for ln in code.splitlines() if ln.strip()]
    assert strip(egm.code) == [ln.replace("torch.", "ember.") for ln in strip(tgm.code)]
    x = ember.randn(3, 4)
    ref = build(ember)(x)
    assert ember.equal(egm(x), ref)
