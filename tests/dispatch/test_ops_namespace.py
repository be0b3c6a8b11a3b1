import pytest

import ember
from ember._ops import OpOverload, OpOverloadPacket
from ember.library import Library, custom_op


def test_packet_and_overloads():
    pkt = ember.ops.aten.add
    assert isinstance(pkt, OpOverloadPacket)
    assert {"Tensor", "Scalar", "out"} <= set(pkt.overloads())
    ov = pkt.Tensor
    assert isinstance(ov, OpOverload) and ov is ember.ops.aten.add.Tensor
    assert str(ov._schema) == "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor"
    assert ember.ops.aten.exp.default._schema.name.name.base == "exp"
    with pytest.raises(AttributeError):
        ember.ops.aten.add.nonexistent
    with pytest.raises(AttributeError):
        ember.ops.aten.no_such_op


def test_packet_call_picks_overload():
    a = ember.tensor([1.0, 2.0])
    assert ember.ops.aten.add(a, a).tolist() == [2.0, 4.0]
    assert ember.ops.aten.add(a, 1).tolist() == [2.0, 3.0]          # add.Scalar binds an int
    assert ember.ops.aten.pow(a, 2).tolist() == [1.0, 4.0]


def test_library_kinds_and_errors():
    with pytest.raises(ValueError):
        Library("x_bad_kind", "NOPE")
    lib = Library("ns_lib_a", "DEF")
    try:
        with pytest.raises(RuntimeError, match="single Library"):
            Library("ns_lib_a", "DEF")
        frag = Library("ns_lib_a", "FRAGMENT")
        lib.define("one(Tensor x) -> Tensor")
        frag.define("two(Tensor x, *, float s=2.0) -> Tensor")
        lib.impl("one", lambda x: x + 1, "CPU")
        frag.impl("two", lambda x, s=2.0: x * s, "CPU")
        t = ember.tensor([1.0])
        assert ember.ops.ns_lib_a.one(t).tolist() == [2.0]
        assert ember.ops.ns_lib_a.two.default(t, s=3.0).tolist() == [3.0]
        with pytest.raises(RuntimeError, match="already registered"):
            lib.impl("one", lambda x: x, "CPU")
        with pytest.raises(RuntimeError, match="already defined"):
            lib.define("one(Tensor x) -> Tensor")
        impl = Library("ns_lib_a", "IMPL")
        with pytest.raises(RuntimeError):
            impl.define("three(Tensor x) -> Tensor")
    finally:
        lib._destroy()
        frag._destroy()


def test_custom_op_with_fake():
    from ember.kernels.common import empty_tensor

    @custom_op("ns_custom::scale", mutates_args=())
    def scale(x: ember.Tensor, k: float) -> ember.Tensor:
        return x * k

    @scale.register_fake
    def _(x, k):
        return empty_tensor(x.shape, x.dtype, "meta")

    assert str(ember.ops.ns_custom.scale.default._schema) == "scale(Tensor x, float k) -> Tensor"
    assert scale(ember.tensor([2.0]), 3.0).tolist() == [6.0]
    m = scale(empty_tensor((4, 2), ember.float32, "meta"), 2.0)
    assert m.device.type == "meta" and tuple(m.shape) == (4, 2)

    class Log(ember._dispatch.modes.TorchDispatchMode):
        calls = []

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            Log.calls.append(str(func))
            return func(*args, **(kwargs or {}))

    with Log():
        scale(ember.tensor([1.0]), 2.0)
    assert "ns_custom.scale.default" in Log.calls


def test_custom_op_mutating_schema():
    @custom_op("ns_custom::fill_ones", mutates_args=("x",))
    def fill_ones(x: ember.Tensor) -> None:
        x.mul_(0).add_(1)

    assert str(ember.ops.ns_custom.fill_ones.default._schema) == "fill_ones(Tensor(a!) x) -> ()"
    t = ember.tensor([5.0, 6.0])
    v = t._version
    fill_ones(t)
    assert t.tolist() == [1.0, 1.0] and t._version > v


def test_custom_op_bad_annotation():
    with pytest.raises(ValueError, match="annotation"):
        @custom_op("ns_custom::bad", mutates_args=())
        def bad(x) -> ember.Tensor:
            return x


def test_binding_type_error_lists_signatures():
    with pytest.raises(TypeError, match="expected one of"):
        ember.div(ember.tensor([1.0]), ember.tensor([1.0]), rounding_mode=3)


def test_a_kernel_registered_after_calls_replaces_the_cached_one():
    # clear_dispatch_caches empties every cache that was filled (only those are tracked)
    from ember import _ops
    lib = Library("ns_lib_cache", "DEF")
    try:
        lib.define("f(Tensor x) -> Tensor")
        lib.impl("f", lambda x: x + 1, "CompositeExplicitAutograd")
        t = ember.tensor([1.0])
        op = ember.ops.ns_lib_cache.f.default
        assert op(t).tolist() == [2.0] and op._dispatch_cache
        ember.neg(t)
        neg = ember.ops.aten.neg.default
        assert neg._dispatch_cache
        lib.impl("f", lambda x: x * 10, "CPU")          # a direct CPU kernel wins over the composite
        assert not op._dispatch_cache and not neg._dispatch_cache and not _ops._FILLED
        assert op(t).tolist() == [10.0] and ember.neg(t).tolist() == [-1.0]
    finally:
        lib._destroy()


def test_op_table_text_defines_what_its_lines_say():
    """`_generated/registrations.py` passes the aten op table as text (ember._ops.define_table): each line's
    schema, kernels by dispatch key and tags land in the op's entry as define_many's rows would put them."""
    from ember._ops import _REGISTRY, DispatchKey, define_table, lookup
    define_table("ember_test_table", "f(Tensor self) -> Tensor | CPU=cpu.m:f Meta=meta.m:f\n"
                 "f.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!) | CompositeImplicitAutograd=d.m:f_out | "
                 "inplace pointwise\n", "pkg.")
    try:
        e, o = lookup("ember_test_table", "f"), lookup("ember_test_table", "f", "out")
        assert (e.qualname, e.schema_str, e.tags) == ("ember_test_table::f", "f(Tensor self) -> Tensor", ())
        assert e.kernels == {DispatchKey.CPU: "pkg.cpu.m:f", DispatchKey.Meta: "pkg.meta.m:f"}
        assert (o.qualname, o.tags) == ("ember_test_table::f.out", ("inplace", "pointwise"))
        assert o.kernels == {DispatchKey.CompositeImplicitAutograd: "pkg.d.m:f_out"}
        assert lookup("aten", "gelu", "out").schema_str == (
            "gelu.out(Tensor self, *, str approximate='none', Tensor(a!) out) -> Tensor(a!)")
        with pytest.raises(RuntimeError, match="already defined"):
            define_table("ember_test_table", "f(Tensor self) -> Tensor | CPU=cpu.m:f")
    finally:
        del _REGISTRY["ember_test_table::f"]
