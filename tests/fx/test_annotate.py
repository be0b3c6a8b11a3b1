"""torch.fx.annotate (ember.fx.annotate) against torch: the node's type, pass-through, the double-annotation error."""
import pytest

import ember
import ember.fx.annotate  # noqa: F401

torch = pytest.importorskip("torch")
pytest.importorskip("torch.fx.annotate")     # a submodule, as ember's


def _trace(lib, fn):
    return lib.fx.symbolic_trace(fn)


@pytest.mark.parity
def test_annotate_sets_node_type_and_returns_value():
    for lib in (ember, torch):
        def f(x, y):
            z = lib.fx.annotate.annotate(x + y, int)
            return z * 2
        gm = _trace(lib, f)
        types = {n.name: n.type for n in gm.graph.nodes}
        assert types == {"x": None, "y": None, "add": int, "mul": None, "output": None}
        assert "add : int = x + y" in gm.code
        assert gm(3, 4) == 14
        assert lib.fx.annotate.annotate(5, float) == 5                  # not a Proxy: returned unchanged


@pytest.mark.parity
def test_annotating_twice_raises_as_torch():
    msgs = []
    for lib in (ember, torch):
        def f(x):
            z = lib.fx.annotate.annotate(x + 1, int)
            return lib.fx.annotate.annotate(z, float)
        with pytest.raises(RuntimeError) as e:
            _trace(lib, f)
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]
    assert "already had a type on it! Existing type is <class 'int'> and new type is <class 'float'>" in msgs[0]
