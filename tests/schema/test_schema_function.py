"""Whole schemas: parsing, printing, kind(), signature(), ordering, errors."""
import pytest

from ember._schema import FunctionSchema, SchemaKind

ADD = "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor"
ADD_ = "add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)"
ADD_OUT = "add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)"


@pytest.mark.parametrize("text", [
    ADD, ADD_, ADD_OUT,
    "aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
    "__and__.Tensor(Tensor self, Tensor other) -> Tensor",
    "max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)",
    "max.dim_max(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) max, Tensor(b!) max_values) -> (Tensor(a!) values, Tensor(b!) indices)",
    "_foreach_add_.Scalar(Tensor(a!)[] self, Scalar scalar) -> ()",
    "split.Tensor(Tensor(a -> *) self, SymInt split_size, int dim=0) -> Tensor(a)[]",
    "unbind.int(Tensor(a -> *) self, int dim=0) -> Tensor(a)[]",
    "empty.memory_format(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor",
    "myns::foo(Tensor x, __torch__.torch.classes.myns.Bar b) -> Tensor[]",
    "foo() -> ()",
])
def test_schema_round_trip(text):
    assert str(FunctionSchema.parse(text)) == text


def test_schema_fields():
    s = FunctionSchema.parse("aten::max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)")
    assert s.namespace == "aten" and s.name.namespace == "aten"
    assert str(s.name) == "aten::max.dim" and s.name.overload_name == "dim"
    assert [r.name for r in s.returns] == ["values", "indices"]
    assert FunctionSchema.parse(ADD).namespace is None


def test_kinds():
    assert FunctionSchema.parse(ADD).kind() is SchemaKind.functional
    assert FunctionSchema.parse(ADD_).kind() is SchemaKind.inplace
    assert FunctionSchema.parse(ADD_OUT).kind() is SchemaKind.out
    assert FunctionSchema.parse(
        "_fused(Tensor self, Tensor(a!) running_min) -> Tensor").kind() is SchemaKind.mutable
    assert FunctionSchema.parse(
        "f.out(Tensor self, *, Tensor(a!) out, Tensor(b!) _scratch_x) -> Tensor(a!)").kind() is SchemaKind.scratch
    assert FunctionSchema.parse("__iand__.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)").kind() is SchemaKind.inplace


def test_mutable_and_out():
    assert not FunctionSchema.parse(ADD).is_mutable()
    assert FunctionSchema.parse(ADD_).is_mutable() and not FunctionSchema.parse(ADD_).is_out_fn()
    assert FunctionSchema.parse(ADD_OUT).is_out_fn()


def test_signature_groups_variants():
    sigs = {str(FunctionSchema.parse(t).signature()) for t in (ADD, ADD_, ADD_OUT)}
    assert sigs == {"add(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor"}
    s = FunctionSchema.parse("_fused(Tensor self, Tensor(a!) running_min) -> Tensor out")
    assert str(s.signature()) == "_fused(Tensor self, Tensor running_min) -> (Tensor, Tensor)"
    assert str(s.signature(keep_return_names=True)) == "_fused(Tensor self, Tensor running_min) -> (Tensor out, Tensor running_min_out)"
    e = FunctionSchema.parse("empty.out(SymInt[] size, *, MemoryFormat? memory_format=None, Tensor(a!) out) -> Tensor(a!)")
    f = FunctionSchema.parse("empty.memory_format(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor")
    assert e.signature() == f.signature()
    assert str(FunctionSchema.parse("__iand__.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)").signature()) == \
        "__and__(Tensor self, Tensor other) -> Tensor"


def test_schema_order_arguments():
    s = FunctionSchema.parse(ADD_OUT)
    assert [a.name for a in s.schema_order_arguments()] == ["self", "other", "alpha", "out"]


def test_whitespace_is_tolerated_and_canonicalized():
    s = FunctionSchema.parse("  foo.bar( Tensor x ,  int y=1 )->( Tensor a , Tensor b ) ")
    assert str(s) == "foo.bar(Tensor x, int y=1) -> (Tensor a, Tensor b)"


@pytest.mark.parametrize("text, bad", [
    ("add(Tensor self -> Tensor", "add(Tensor self -> Tensor"),
    ("add(Tensor self)) -> Tensor", "')'"),
    ("add(Tensor self)", "add(Tensor self)"),
    ("add(Tensor self) -> Tensr", "'Tensr'"),
    ("add(Tensor self, Tensor self) -> Tensor", "'self'"),
    ("add.out(Tensor self, *, Tensor(a!) out=None) -> Tensor(a!)", "Tensor(a!) out=None"),
    ("add(Tensor self) -> Tensor, Tensor", "Tensor, Tensor"),
    ("add(Tensor self) -> (Tensor, (Tensor)", "(Tensor, (Tensor)"),
    ("add Tensor self -> Tensor", "add Tensor self -> Tensor"),
    ("add_.out(Tensor(a!) self, *, Tensor(b!) out) -> Tensor(a!)", "add_.out"),
])
def test_schema_errors(text, bad):
    with pytest.raises(ValueError) as ei:
        FunctionSchema.parse(text).kind()
    assert bad in str(ei.value)
