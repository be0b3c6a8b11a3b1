"""torch.fx.immutable_collections (ember.fx.immutable_collections) against torch: refused mutations, hashing, pickling."""
import pickle

import pytest

import ember.fx.immutable_collections as eic

torch = pytest.importorskip("torch")
import torch.fx.immutable_collections as tic  # noqa: E402

LIST_MUTATIONS = [("__setitem__", (0, 9)), ("__delitem__", (0,)), ("__iadd__", ([1],)), ("__imul__", (2,)),
                  ("append", (1,)), ("clear", ()), ("extend", ([1],)), ("insert", (0, 1)), ("pop", ()),
                  ("remove", (1,)), ("reverse", ()), ("sort", ())]
DICT_MUTATIONS = [("__setitem__", ("a", 9)), ("__delitem__", ("a",)), ("__ior__", ({"c": 1},)), ("clear", ()),
                  ("pop", ("a",)), ("popitem", ()), ("setdefault", ("z", 1)), ("update", ({"c": 1},))]


def _error(obj, name, args):
    with pytest.raises(TypeError) as e:
        getattr(obj, name)(*args)
    return str(e.value)


@pytest.mark.parity
@pytest.mark.parametrize("name,args", LIST_MUTATIONS)
def test_list_mutations_refused_as_torch(name, args):
    e, t = eic.immutable_list([1, 2, 3]), tic.immutable_list([1, 2, 3])
    assert _error(e, name, args) == _error(t, name, args)
    assert e == [1, 2, 3]


@pytest.mark.parity
@pytest.mark.parametrize("name,args", DICT_MUTATIONS)
def test_dict_mutations_refused_as_torch(name, args):
    e, t = eic.immutable_dict({"a": 1, "b": 2}), tic.immutable_dict({"a": 1, "b": 2})
    assert _error(e, name, args) == _error(t, name, args)
    assert e == {"a": 1, "b": 2}


@pytest.mark.parity
def test_hash_copy_and_pickle():
    for mod in (eic, tic):
        lst, dct = mod.immutable_list([1, (2, 3)]), mod.immutable_dict({"a": 1, "b": (2,)})
        assert hash(lst) == hash((1, (2, 3))) and hash(dct) == hash(frozenset({"a": 1, "b": (2,)}.items()))
        assert {lst: 1}[mod.immutable_list([1, (2, 3)])] == 1
        for obj in (lst, dct):
            back = pickle.loads(pickle.dumps(obj))
            assert type(back) is type(obj) and back == obj
        assert lst + [4] == [1, (2, 3), 4] and type(lst + [4]) is list      # non-mutating ops still work
        assert dct | {"c": 3} == {"a": 1, "b": (2,), "c": 3}
    assert eic.__all__ == tic.__all__
