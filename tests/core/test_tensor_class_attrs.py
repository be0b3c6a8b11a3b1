"""Class-level reads of Tensor's attributes: torch's are descriptors of its C TensorBase (getset descriptors),
reachable as `torch.Tensor.grad_fn` and callable as `Tensor.grad_fn.__get__(t)`; ember keeps grad_fn and _base
as instance attributes and gives the class-level read the property a mode is handed (_tensor._TensorMeta)."""
import pytest

import ember

torch = pytest.importorskip("torch")

_NAMES = ("grad_fn", "_base", "requires_grad", "data", "grad", "is_leaf", "shape", "dtype", "device", "ndim",
          "output_nr", "_version", "mT", "real")


@pytest.mark.parity
@pytest.mark.parametrize("name", _NAMES)
def test_class_level_attribute_is_a_descriptor(name):
    for lib in (torch, ember):
        d = getattr(lib.Tensor, name)
        assert hasattr(d, "__get__") and hasattr(d, "__set__"), (lib.__name__, name)


def _values(lib):
    a = lib.ones(2, 3, requires_grad=True)
    y = a * 2
    v = y[0]
    out = {}
    for name in _NAMES:
        get = getattr(lib.Tensor, name).__get__
        for tag, t in (("leaf", a), ("out", y), ("view", v)):
            if name == "mT" and t.dim() < 2:
                continue
            r = get(t)
            if name == "grad_fn":
                r = None if r is None else type(r).__name__
            elif name == "_base":
                r = None if r is None else [x for x in ("leaf", "out", "view") if {"leaf": a, "out": y,
                                                                                   "view": v}[x] is r]
            elif isinstance(r, (lib.Tensor,)):
                r = (tuple(r.shape), r.tolist())
            elif isinstance(r, lib.dtype):
                r = str(r).split(".")[-1]
            elif isinstance(r, lib.device):
                r = r.type
            elif name == "shape":
                r = tuple(r)
            out[name, tag] = r
    return out


@pytest.mark.parity
def test_class_level_getters_read_the_instance():
    assert _values(ember) == _values(torch)


@pytest.mark.parity
def test_metaclass_is_shared_by_subclasses():
    for lib in (torch, ember):
        meta = type(lib.Tensor)
        assert meta is not type and meta.__name__ == "_TensorMeta"
        assert issubclass(type(lib.nn.Parameter), meta) and type(lib.nn.Parameter).__name__ == "_ParameterMeta"

        class Sub(lib.Tensor):
            pass
        assert type(Sub) is meta
        assert Sub.grad_fn.__get__(lib.ones(1)) is None
    p = ember.nn.Parameter(ember.ones(2))
    assert isinstance(p, ember.nn.Parameter) and p.grad_fn is None and ember.nn.Parameter.grad_fn is ember.Tensor.grad_fn


def test_class_level_read_survives_mode_push_and_subclass_protocol():
    """Pushing a TorchFunctionMode puts the properties on the class and popping takes them off; a subclass taking
    part in the protocol gets them in its dict: class-level reads give the same property throughout, instance
    reads the instance's value."""
    prop = ember.Tensor.grad_fn
    a = ember.ones(2, requires_grad=True)
    y = a * 2
    seen = []

    class M(ember.overrides.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            seen.append(func == prop.__get__)
            return func(*args, **(kwargs or {}))
    with M():
        assert ember.Tensor.grad_fn is prop
        assert type(y.grad_fn).__name__ == "MulBackward0" and a.grad_fn is None
    assert True in seen
    assert ember.Tensor.grad_fn is prop and "grad_fn" not in ember.Tensor.__dict__
    assert type(y.grad_fn).__name__ == "MulBackward0" and a.grad_fn is None

    class Sub(ember.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return super().__torch_function__(func, types, args, kwargs)
    s = (ember.ones(2, requires_grad=True) * 3).as_subclass(Sub)
    assert Sub.__dict__.get("grad_fn") is prop and Sub.grad_fn is prop
    assert type(s.grad_fn).__name__ == "AliasBackward0"


@pytest.mark.parity
def test_no_public_tensor_method_torch_lacks():
    """ember.Tensor names no public attribute torch.Tensor lacks (alias, slice and is_non_overlapping_and_dense
    were: torch keeps aten.alias / aten.slice as ops only, gen_python_functions' skip list)."""
    extra = sorted(n for n in set(dir(ember.Tensor)) - set(dir(torch.Tensor)) if not n.startswith("_"))
    assert extra == []
    assert not hasattr(torch.Tensor, "var_mean") and not hasattr(ember.Tensor, "var_mean")
    x = ember.ones(3)
    assert ember.ops.aten.alias.default(x).data_ptr() == x.data_ptr()
    assert ember.ops.aten.slice.Tensor(x, 0, 1).tolist() == [1.0, 1.0]
