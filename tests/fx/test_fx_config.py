"""torch.fx.config (ember.fx.config): torch's switches and defaults; do_not_emit_stack_traces reaches make_fx."""
import pytest

import ember
import ember.fx.config as econfig
from ember.fx.experimental.proxy_tensor import make_fx

torch = pytest.importorskip("torch")


@pytest.mark.parity
def test_switches_and_defaults_match_torch():
    import torch.fx.config as tconfig
    names = sorted(n for n in vars(tconfig) if not n.startswith("_"))
    assert sorted(n for n in vars(econfig) if not n.startswith("_")) == names
    assert {n: getattr(econfig, n) for n in names} == {n: getattr(tconfig, n) for n in names}


def test_do_not_emit_stack_traces_turns_off_make_fx_traces(monkeypatch):
    def f(x):
        return x.sin() + 1

    def traces():
        gm = make_fx(f, record_stack_traces=True)(ember.ones(2))
        return [n.meta.get("stack_trace") for n in gm.graph.nodes if n.op == "call_function"]
    assert all(traces())
    monkeypatch.setattr(econfig, "do_not_emit_stack_traces", True)
    assert traces() == [None, None]
