"""Parity with torch: fake-tensor errors (type and message) and make_fx graphs of simple functions."""
import pytest

import ember


def _error(lib, mode_cls, fn):
    mode = mode_cls()
    x = mode.from_tensor(lib.ones(3))
    real = lib.ones(3)
    try:
        with mode:
            fn(lib, x, real)
    except Exception as e:  # noqa: BLE001
        return type(e).__name__, str(e)
    return None


CASES = {
    "nonzero": lambda lib, x, real: lib.nonzero(x),
    "item": lambda lib, x, real: x.sum().item(),
    "bool": lambda lib, x, real: bool(x.sum() > 0),
    "mixing": lambda lib, x, real: x + real,
}


@pytest.mark.parity
@pytest.mark.parametrize("name", list(CASES))
def test_fake_tensor_errors_match_torch(name):
    torch = pytest.importorskip("torch")
    from torch._subclasses.fake_tensor import FakeTensorMode as TorchMode

    from ember._subclasses.fake_tensor import FakeTensorMode
    assert _error(ember, FakeTensorMode, CASES[name]) == _error(torch, TorchMode, CASES[name])


@pytest.mark.parity
def test_make_fx_graph_matches_torch():
    torch = pytest.importorskip("torch")
    from torch.fx.experimental.proxy_tensor import make_fx as torch_make_fx

    from ember.fx.experimental.proxy_tensor import make_fx

    def f(lib):
        def g(x, y):
            z = lib.relu(x * y + 1)
            z.add_(2)
            return z.sum(dim=0), lib.cat([x, y]).transpose(0, 1)
        return g

    a = [[1.0, -2.0], [3.0, 4.0]]
    eg = make_fx(f(ember))(ember.tensor(a), ember.tensor(a))
    tg = torch_make_fx(f(torch))(torch.tensor(a), torch.tensor(a))
    name = lambda n: f"{n.target.__module__}.{n.target.__name__}" if n.target.__name__ == "getitem" \
        else str(n.target)  # noqa: E731
    ops = lambda gm: [(n.name, name(n)) for n in gm.graph.nodes if n.op == "call_function"]  # noqa: E731
    assert ops(eg) == ops(tg)
    assert [n.name for n in eg.graph.nodes if n.op == "placeholder"] == \
        [n.name for n in tg.graph.nodes if n.op == "placeholder"]
