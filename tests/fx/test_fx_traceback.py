"""torch.fx.traceback (ember.fx.traceback) against torch: preserved node metadata when a graph is re-traced."""
import pytest

import ember
import ember.fx.traceback as etb
from ember.fx.experimental.proxy_tensor import make_fx as emake_fx

torch = pytest.importorskip("torch")
import torch.fx.traceback as ttb  # noqa: E402
from torch.fx.experimental.proxy_tensor import make_fx as tmake_fx  # noqa: E402


def _retraced_meta(lib, tb, make_fx, preserve):
    def f(x):
        return x.sin() * 2

    gm = make_fx(f)(lib.ones(3))
    for i, n in enumerate(gm.graph.nodes):
        if n.op == "call_function":
            n.meta["stack_trace"] = f"frame {i}\n"
            n.meta["custom"] = {"tag": i}
    if preserve:
        with tb.preserve_node_meta():
            assert tb.has_preserved_node_meta()
            gm2 = make_fx(lib.fx.Interpreter(gm).run)(lib.ones(3))
    else:
        gm2 = make_fx(lib.fx.Interpreter(gm).run)(lib.ones(3))
    assert not tb.has_preserved_node_meta()
    return [(n.meta.get("stack_trace"), n.meta.get("custom")) for n in gm2.graph.nodes if n.op == "call_function"]


@pytest.mark.parity
@pytest.mark.parametrize("preserve", [True, False])
def test_retrace_keeps_node_meta_as_torch(preserve):
    e = _retraced_meta(ember, etb, emake_fx, preserve)
    t = _retraced_meta(torch, ttb, tmake_fx, preserve)
    assert e == t
    if preserve:
        assert e == [("frame 1\n", {"tag": 1}), ("frame 2\n", {"tag": 2})]


@pytest.mark.parity
def test_current_meta_stack_trace_and_format_stack():
    for tb in (etb, ttb):
        assert tb.get_current_meta() == {}
        tb.set_stack_trace(["a\n", "b\n"])                 # ignored while not preserving
        assert tb.get_current_meta() == {}
        assert isinstance(tb.format_stack(), list) and len(tb.format_stack()) > 1
        with tb.preserve_node_meta():
            tb.set_stack_trace(["a\n", "b\n"])
            assert tb.get_current_meta()["stack_trace"] == "a\nb\n"
            assert tb.format_stack() == ["a\nb\n"]
            tb.set_stack_trace([])
            assert "stack_trace" not in tb.get_current_meta()
            with tb.preserve_node_meta(False):
                assert not tb.has_preserved_node_meta()
        assert tb.get_current_meta() == {}
