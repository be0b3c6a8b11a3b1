from collections import OrderedDict

import numpy as np
import pytest

import ember
import ember.nn as nn


class Tag(nn.Module):
    def __init__(self, k):
        super().__init__()
        self.k = k

    def forward(self, x):
        return x * 10 + self.k

    def extra_repr(self):
        return str(self.k)


def test_sequential_indexing_slicing_mutation():
    s = nn.Sequential(Tag(1), Tag(2), Tag(3))
    assert s(0) == 123 and len(s) == 3
    assert s[-1].k == 3 and [m.k for m in s[1:]] == [2, 3] and isinstance(s[1:], nn.Sequential)
    with pytest.raises(IndexError, match="index 3 is out of range"):
        s[3]
    s[0] = Tag(9)
    assert s[0].k == 9
    del s[0]
    assert list(s._modules) == ["0", "1"] and [m.k for m in s] == [2, 3]
    s.append(Tag(4)).insert(0, Tag(0))
    assert [m.k for m in s] == [0, 2, 3, 4]
    s.extend([Tag(5)])
    assert [m.k for m in s + nn.Sequential(Tag(6))] == [0, 2, 3, 4, 5, 6]
    with pytest.raises(ValueError, match="add operator supports only objects of Sequential class"):
        s + [Tag(1)]
    assert s.pop(0).k == 0 and len(s) == 4
    assert len(s * 2) == 8
    s2 = nn.Sequential(OrderedDict(first=Tag(1), second=Tag(2)))
    assert list(s2._modules) == ["first", "second"] and s2.first.k == 1
    s2 += nn.Sequential(Tag(3))
    assert len(s2) == 3
    with pytest.raises(IndexError, match="Index out of range: 9"):
        s2.insert(9, Tag(0))
    assert "0" not in dir(s)


def test_module_list():
    ml = nn.ModuleList([Tag(1), Tag(2)])
    ml.append(Tag(3))
    ml += [Tag(4)]
    ml.insert(0, Tag(0))
    assert [m.k for m in ml] == [0, 1, 2, 3, 4] and ml[-1].k == 4
    assert isinstance(ml[1:3], nn.ModuleList) and len(ml[1:3]) == 2
    ml[0] = Tag(7)
    del ml[1]
    assert [m.k for m in ml] == [7, 2, 3, 4] and list(ml._modules) == ["0", "1", "2", "3"]
    assert [m.k for m in ml + nn.ModuleList([Tag(5)])] == [7, 2, 3, 4, 5]
    assert ml.pop(-1).k == 4
    with pytest.raises(TypeError, match="ModuleList.extend should be called with an iterable, but got int"):
        ml.extend(3)
    with pytest.raises(IndexError, match="index 10 is out of range"):
        ml[10]
    assert len(list(ml.parameters())) == 0 and len(list(ml.modules())) == 4


def test_module_dict():
    md = nn.ModuleDict({"a": Tag(1)})
    md["b"] = Tag(2)
    md.update([("c", Tag(3))])
    assert list(md) == ["a", "b", "c"] and "b" in md and len(md) == 3
    assert [k for k, _ in md.items()] == list(md.keys())
    assert md.pop("a").k == 1
    del md["b"]
    assert list(md) == ["c"]
    with pytest.raises(ValueError, match="ModuleDict update sequence element #0 has length 1; 2 is required"):
        md.update([("x",)])
    with pytest.raises(TypeError, match="ModuleDict update sequence element #0 should be Iterable; isint"):
        md.update([1])
    md.clear()
    assert len(md) == 0


def test_parameter_list_and_dict():
    pl = nn.ParameterList([ember.tensor([1.0]), nn.Parameter(ember.tensor([2.0]))])
    assert all(isinstance(p, nn.Parameter) for p in pl) and len(pl) == 2
    pl.append(ember.tensor([3.0]))
    assert [n for n, _ in pl.named_parameters()] == ["0", "1", "2"]
    assert len(pl[1:]) == 2 and pl[-1].tolist() == [3.0]
    with pytest.raises(RuntimeError, match="ParameterList should not be called."):
        pl()
    with pytest.raises(TypeError, match="ParameterList.extend should be called with an iterable, but got Tensor"):
        pl.extend(ember.tensor([1.0]))
    pd = nn.ParameterDict({"b": ember.tensor([1.0]), "a": ember.tensor([2.0])})
    assert list(pd) == ["a", "b"]        # plain dicts are sorted, like torch
    pd["c"] = nn.Parameter(ember.tensor([3.0]))
    assert isinstance(pd["a"], nn.Parameter) and "c" in pd and pd.get("z") is None
    assert [n for n, _ in pd.named_parameters()] == ["a", "b", "c"]
    assert pd.pop("a").tolist() == [2.0] and list(pd.keys()) == ["b", "c"]
    assert pd.setdefault("d", None) is None and len(pd) == 3
    k, v = pd.popitem()
    assert k == "d"
    merged = pd | nn.ParameterDict({"e": ember.tensor([5.0])})
    assert list(merged) == ["b", "c", "e"]
    pd.clear()
    assert len(pd) == 0
    with pytest.raises(TypeError, match="Index given to ParameterDict cannot be used as a key"):
        pd[1] = ember.tensor([1.0])


def test_identity_flatten_unflatten_constructor_checks():
    x = object()
    assert nn.Identity(3, unused=True)(x) is x
    with pytest.raises(TypeError, match="unflattened_size must be tuple of ints, but found element of type float"):
        nn.Unflatten(1, (2, 2.0))
    with pytest.raises(TypeError, match="invalid argument type for dim parameter"):
        nn.Unflatten(1.0, (2, 2))
    with pytest.raises(TypeError, match="unflattened_size must be a tuple of tuples, but found type list"):
        nn.Unflatten("x", [2])


def test_flatten_unflatten_forward():
    x = ember.tensor(np.arange(24, dtype=np.float32).reshape(2, 3, 4))
    assert nn.Flatten()(x).shape == (2, 12)
    assert nn.Flatten(0, 1)(x).shape == (6, 4)
    assert nn.Unflatten(2, (2, 2))(x).shape == (2, 3, 2, 2)


@pytest.mark.parity
def test_old_container_registers_its_keyword_modules_as_torch():
    torch = pytest.importorskip("torch")
    got = []
    for L in (torch, ember):
        c = L.nn.Container(fc=L.nn.Linear(2, 3), act=L.nn.ReLU())
        got.append((repr(c), [n for n, _ in c.named_parameters()], isinstance(c, L.nn.Module)))
    assert got[0] == got[1]
