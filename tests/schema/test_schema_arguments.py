"""Arguments, returns, alias annotations and torchgen-style grouping."""
import pytest

from ember._schema import Annotation, Argument, Arguments, Return, Type


@pytest.mark.parametrize("text", [
    "Tensor self", "Tensor(a) self", "Tensor(a!) out", "Tensor(a -> *) self", "Tensor(a!)[] out",
    "Tensor(a!)? x", "Tensor? weight=None", "Tensor?[] indices", "int[2] stride=1",
    "int[] dims=[0,1]", "float eps=1e-05", "int ignore_index=-100", "str reduction=\"mean\"",
    "str padding='same'", "MemoryFormat? memory_format=contiguous_format", "int reduction=Mean",
    "ScalarType dtype=long", "bool[3] output_mask", "SymInt[1]? size=None", "str? s=\"a, b\"",
    "Tensor(a|b) x", "Tensor(a -> b|c) y",
])
def test_argument_round_trip(text):
    assert str(Argument.parse(text)) == text


def test_argument_fields():
    a = Argument.parse("Tensor(a!) out")
    assert a.name == "out" and str(a.type) == "Tensor" and a.default is None
    assert a.annotation == Annotation(("a",), True, ())
    assert a.is_write
    a = Argument.parse("Tensor(a -> *) self")
    assert a.annotation == Annotation(("a",), False, ("*",)) and not a.is_write
    a = Argument.parse("Tensor(a!)[] out")
    assert a.type == Type.parse("Tensor[]") and a.is_write
    a = Argument.parse("int[2] stride=1")
    assert a.default == "1" and a.type.is_list_like().size == 2


@pytest.mark.parametrize("text", [
    "Tensor", "Tensor(a!) values", "Tensor(a)[]", "Tensor[]", "Tensor values", "Tensor(a -> *)",
])
def test_return_round_trip(text):
    r = Return.parse(text)
    assert str(r) == text
    assert Return.parse("Tensor values").name == "values"
    assert Return.parse("Tensor(a -> *)").name is None


def test_grouping():
    args = Arguments.parse(
        "Tensor condition, Tensor self, Tensor other, *, int alpha=1, ScalarType? dtype=None, "
        "Layout? layout=None, Device? device=None, bool? pin_memory=None, "
        "MemoryFormat? memory_format=None, Tensor(a!) out, Tensor(b!) out2"
    )
    assert [a.name for a in args.pre_self_positional] == ["condition"]
    assert args.self_arg.argument.name == "self"
    assert [a.name for a in args.post_self_positional] == ["other"]
    assert [a.name for a in args.pre_tensor_options_kwarg_only] == ["alpha"]
    assert args.tensor_options.dtype.name == "dtype"
    assert [a.name for a in args.tensor_options.all()] == ["dtype", "layout", "device", "pin_memory"]
    assert [a.name for a in args.post_tensor_options_kwarg_only] == ["memory_format"]
    assert [a.name for a in args.out] == ["out", "out2"]
    assert [a.name for a in args.flat_positional] == ["condition", "self", "other"]
    assert len(args.flat_kwarg_only) == 6 and len(args.flat_non_out) == 9 and len(args.flat_all) == 11


def test_tensor_options_need_all_four_in_order():
    args = Arguments.parse("*, ScalarType? dtype=None, Device? device=None")
    assert args.tensor_options is None
    assert [a.name for a in args.pre_tensor_options_kwarg_only] == ["dtype", "device"]
    args = Arguments.parse("*, Layout? layout=None, ScalarType? dtype=None, Device? device=None, bool? pin_memory=None")
    assert args.tensor_options is None
    assert str(args) == "*, Layout? layout=None, ScalarType? dtype=None, Device? device=None, bool? pin_memory=None"


def test_positional_mutable_is_not_out():
    args = Arguments.parse("Tensor(a!) self, Tensor(b!) running_mean")
    assert args.out == () and args.post_self_positional_mutable[0].name == "running_mean"


def test_empty_and_whitespace():
    assert str(Arguments.parse("")) == ""
    assert str(Arguments.parse("  Tensor  self ,int x=1 ")) == "Tensor self, int x=1"


@pytest.mark.parametrize("text, bad", [
    ("Tensor self, Tensor self", "'self'"),
    ("Tensor self, *, Tensor(a!) out=None", "Tensor(a!) out=None"),
    ("Tensor self, *, *, int x", "'*'"),
    ("Tensor self, *, Tensor(a!) out, int x", "int x"),
    ("Foo self", "'Foo'"),
    ("Tensor", "'Tensor'"),
    ("int(a) x", "int(a)"),
    ("Tensor(a!!) x", "a!!"),
    ("Tensor(a x", "Tensor(a x"),
    ("int[2 x", "int[2 x"),
    ("Tensor self,, int x", "Tensor self,, int x"),
    ("Tensor 1x", "'1x'"),
    ("str s=\"abc", "str s=\"abc"),
])
def test_argument_errors(text, bad):
    with pytest.raises(ValueError) as ei:
        Arguments.parse(text)
    assert bad in str(ei.value)
