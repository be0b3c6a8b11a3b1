"""parse_default: raw default text -> Python value."""
import math

import pytest

from ember._schema import parse_default


@pytest.mark.parametrize("text, type, value", [
    ("1", "int", 1), ("-100", "int", -100), ("1e-05", "float", 1e-05), ("1", "float", 1.0),
    ("1", "Scalar", 1), ("0.5", "Scalar", 0.5), ("None", "Tensor?", None), ("None", "int?", None),
    ("True", "bool", True), ("False", "bool", False), ("[]", "int[]", []), ("[0,1]", "int[]", [0, 1]),
    ("[-2,-1]", "int[2]", [-2, -1]), ("1", "int[2]", [1, 1]), ("0", "SymInt[3]", [0, 0, 0]),
    ("\"mean\"", "str", "mean"), ("'same'", "str", "same"), ("\"\"", "str", ""),
    ("\"\\\"'\\\\\"", "str", "\"'\\"), ("'\"\\'\\\\'", "str", "\"'\\"),
    ("contiguous_format", "MemoryFormat?", "contiguous_format"),
    ("preserve_format", "MemoryFormat", "preserve_format"),
    ("channels_last", "MemoryFormat", "channels_last"),
    ("Mean", "int", 1), ("Sum", "int", 2), ("None", "int", 0),
    ("long", "ScalarType?", "long"), ("None", "int[]?", None), ("[1.5, 2]", "float[]", [1.5, 2.0]),
    ("True", "bool[3]", [True, True, True]),
])
def test_parse_default(text, type, value):
    got = parse_default(text, type)
    assert got == value and type_of(got) == type_of(value)


def type_of(v):
    return [type(x) for x in v] if isinstance(v, list) else type(v)


def test_special_floats():
    assert parse_default("inf", "float") == math.inf
    assert parse_default("-inf", "float") == -math.inf
    assert math.isnan(parse_default("nan", "float"))


@pytest.mark.parametrize("text, type", [("[1,2", "int[]"), ("1", "int[]"), ("1+", "int"), ("", "int")])
def test_bad_defaults(text, type):
    with pytest.raises(ValueError) as ei:
        parse_default(text, type)
    assert repr(text) in str(ei.value)
