"""The frozen-record behaviour every schema class shares."""
import copy
import pickle

import pytest

from ember._schema import Argument, FunctionSchema, Type
from ember._schema._record import FrozenInstanceError


def test_frozen_eq_hash_repr_replace():
    a = Argument.parse("int[2] stride=1")
    b = Argument.parse("int[2]  stride=1")
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1
    with pytest.raises(FrozenInstanceError):
        a.name = "x"
    with pytest.raises(AttributeError):
        del a.name
    c = a.replace(name="padding")
    assert str(c) == "int[2] padding=1" and str(a) == "int[2] stride=1"
    assert repr(a).startswith("Argument(name='stride', type=ListType(")
    assert Argument("x", Type.parse("int")) == Argument(name="x", type=Type.parse("int"), default=None)
    with pytest.raises(TypeError):
        Argument("x")
    with pytest.raises(TypeError):
        Argument("x", Type.parse("int"), bogus=1)


def test_pickle_and_copy():
    s = FunctionSchema.parse("add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)")
    assert pickle.loads(pickle.dumps(s)) == s
    assert copy.deepcopy(s) == s and copy.copy(s) == s
    assert s != FunctionSchema.parse("add(Tensor self) -> Tensor")
