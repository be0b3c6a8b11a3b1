"""Type grammar: base types, optionals, lists, fixed-size lists, custom classes, errors."""
import pytest

from ember._schema import BaseTy, BaseType, CustomClassType, ListType, OptionalType, Type

T = BaseType(BaseTy.Tensor)


@pytest.mark.parametrize("text", [
    "Tensor", "Tensor?", "Tensor[]", "Tensor?[]", "int", "int[2]", "int[]?", "int[1]?", "SymInt",
    "SymInt[]", "SymInt[1]?", "SymInt[]?", "float", "float[]?", "bool", "bool[3]", "str", "str?",
    "Scalar", "Scalar?", "Scalar[]", "ScalarType?", "Layout?", "Device?", "MemoryFormat?",
    "Generator?", "Dimname", "Dimname[]", "Storage", "Stream", "QScheme", "Any", "DeviceIndex",
    "SymBool", "complex", "__torch__.torch.classes.quantized.Conv2dPackedParamsBase",
])
def test_type_round_trip(text):
    assert str(Type.parse(text)) == text


def test_type_structure():
    assert Type.parse("Tensor") == T
    assert Type.parse("Tensor?") == OptionalType(T)
    assert Type.parse("Tensor?[]") == ListType(OptionalType(T), None)
    assert Type.parse("int[]?") == OptionalType(ListType(BaseType(BaseTy.int)))
    assert Type.parse("int[2]") == ListType(BaseType(BaseTy.int), 2)
    assert Type.parse("__torch__.torch.classes.ns.Foo") == CustomClassType("ns.Foo")


def test_type_helpers():
    assert Type.parse("Tensor?[]").is_tensor_like()
    assert not Type.parse("int").is_tensor_like()
    assert Type.parse("Tensor?").is_nullable()
    assert Type.parse("Tensor?[]").is_nullable()
    assert not Type.parse("Tensor[]").is_nullable()
    assert Type.parse("int").is_list_like() is None
    lst = Type.parse("SymInt[1]?").is_list_like()
    assert isinstance(lst, ListType) and lst.size == 1
    assert Type.parse("int[]").is_list_like().size is None
    assert Type.parse("SymInt[]").is_symint_like()
    assert Type.parse("Generator?").is_generator_like()


@pytest.mark.parametrize("text, bad", [("Tensr", "Tensr"), ("int[x]", "int[x]"), ("Foo?", "Foo"), ("", "")])
def test_unknown_type(text, bad):
    with pytest.raises(ValueError) as ei:
        Type.parse(text)
    assert repr(bad) in str(ei.value)
