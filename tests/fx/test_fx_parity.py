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
