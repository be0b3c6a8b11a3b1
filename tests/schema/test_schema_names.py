"""Operator names: namespaces, overloads, in-place, dunder, functional overloads."""
import pytest

from ember._schema import BaseOperatorName, OperatorName


@pytest.mark.parametrize("text", [
    "add", "add_", "add.Tensor", "add_.Tensor", "add.out", "aten::add.Tensor", "__and__.Tensor",
    "__iand__.Tensor", "__lshift__.Scalar", "native_batch_norm_functional", "my_ns::foo_",
    "_foo", "__iadd__",
])
def test_name_round_trip(text):
    assert str(OperatorName.parse(text)) == text


def test_name_fields():
    n = OperatorName.parse("aten::add_.Tensor")
    assert n.overload_name == "Tensor" and n.namespace == "aten"
    assert n.name == BaseOperatorName("add", inplace=True, namespace="aten")
    d = BaseOperatorName.parse("__iand__")
    assert (d.base, d.inplace, d.dunder_method) == ("and", True, True)
    d = BaseOperatorName.parse("__and__")
    assert (d.base, d.inplace, d.dunder_method) == ("and", False, True)
    f = BaseOperatorName.parse("native_batch_norm_functional")
    assert f.base == "native_batch_norm" and f.functional_overload
    assert BaseOperatorName.parse("add").namespace is None
    assert OperatorName.parse("add.out").overload_name == "out"
    assert OperatorName.parse("add").overload_name == ""


def test_name_helpers():
    n = OperatorName.parse("add_.Tensor")
    assert str(n.remove_inplace()) == "add.Tensor"
    assert str(n.with_overload("out")) == "add.out"
    assert n.unambiguous_name() == "add__Tensor"


@pytest.mark.parametrize("text", ["1add", "add.", "add.Ten-sor", "a b", "::add", "ns::"])
def test_bad_names(text):
    with pytest.raises(ValueError) as ei:
        OperatorName.parse(text)
    assert ei.value.args[0]  # message names something
    assert any(part and part in str(ei.value) for part in (text, text.split(".")[-1]))
