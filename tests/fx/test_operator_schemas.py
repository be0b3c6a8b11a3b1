"""torch.fx.operator_schemas (ember.fx.operator_schemas) against torch: op signatures and call normalization."""
import inspect

import pytest

import ember
import ember.fx.operator_schemas as eo

torch = pytest.importorskip("torch")
import torch.fx.operator_schemas as to  # noqa: E402

OPS = [("add", "Tensor"), ("sum", "dim_IntList"), ("uniform_", "default"), ("convolution", "default"),
       ("native_layer_norm", "default"), ("sort", "stable"), ("clamp", "default"), ("nll_loss", "default")]


def _describe(sig):
    return [(p.name, p.kind, p.default if p.default is not inspect.Parameter.empty else "<empty>")
            for p in sig.parameters.values()]


def _plain(pair):
    if pair is None:
        return None
    conv = lambda v: v.tolist() if hasattr(v, "tolist") and not isinstance(v, (int, float)) else v  # noqa: E731
    return tuple(conv(a) for a in pair.args), {k: conv(v) for k, v in pair.kwargs.items()}


@pytest.mark.parity
@pytest.mark.parametrize("name,overload", OPS)
def test_op_signatures_match_torch(name, overload):
    e = eo.get_signature_for_torch_op(getattr(getattr(ember.ops.aten, name), overload))
    t = to.get_signature_for_torch_op(getattr(getattr(torch.ops.aten, name), overload))
    assert [_describe(s) for s in e] == [_describe(s) for s in t]
    sigs, schemas = eo.get_signature_for_torch_op(getattr(ember.ops.aten, name), return_schemas=True)
    assert len(sigs) == len(schemas) >= 1
    assert eo.get_signature_for_torch_op(lambda x: x) is None
    assert eo.get_signature_for_torch_op(lambda x: x, return_schemas=True) == (None, None)


def _calls(lib):
    A = lib.ops.aten
    x = lib.ones(2, 3)

    def f(a, b=3, *, c=4):
        return a

    def g(*args):
        return args
    return [
        (A.sum.dim_IntList, (x, [0]), {}),
        (A.sum.dim_IntList, (x,), {"dim": [1], "keepdim": True}),
        (A.add.Tensor, (x, x), {"alpha": 2}),
        (A.uniform_.default, (x, 0.0, 2.0), {}),
        (A.relu, (x,), {}),                              # a packet, one matching overload
        (A.sum.dim_IntList, (x, [0], True, None, 5), {}),  # too many arguments: None
        (f, (1,), {"c": 5}),
        (g, (1, 2), {}),                                  # *args: not normalized
        (lib.nn.functional.linear, (x, lib.ones(4, 3)), {}),
    ]


@pytest.mark.parity
@pytest.mark.parametrize("only_kwargs", [False, True])
def test_normalize_function_matches_torch(only_kwargs):
    for (et, ea, ek), (tt, ta, tk) in zip(_calls(ember), _calls(torch)):
        e = eo.normalize_function(et, ea, ek, normalize_to_only_use_kwargs=only_kwargs)
        t = to.normalize_function(tt, ta, tk, normalize_to_only_use_kwargs=only_kwargs)
        assert _plain(e) == _plain(t), et
        assert (e is None) or isinstance(e, eo.ArgsKwargsPair)


@pytest.mark.parity
def test_ambiguous_overloads_raise_as_torch():
    for lib, o in ((ember, eo), (torch, to)):
        with pytest.raises(RuntimeError, match="the schema match was ambiguous! Please provide argument types") as e:
            o.normalize_function(lib.ops.aten.add, (lib.ones(1), 2))
        assert "(input: " in str(e.value)


@pytest.mark.parity
def test_normalize_module_matches_torch():
    res = []
    for lib, o in ((ember, eo), (torch, to)):
        class Custom(lib.nn.Module):
            def forward(self, x, y=2):
                return x
        root = lib.nn.Sequential(lib.nn.Linear(3, 2), Custom())
        x = lib.ones(3)
        res.append([_plain(o.normalize_module(root, "0", (x,))),
                    _plain(o.normalize_module(root, "0", (x,), normalize_to_only_use_kwargs=True)),
                    o.normalize_module(root, "1", (x,))])          # not a torch.nn class: None
        with pytest.raises(RuntimeError, match="Tried to normalize node with target missing but root did not"):
            o.normalize_module(root, "missing", (x,))
    assert res[0] == res[1]
