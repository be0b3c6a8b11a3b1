"""torch.memory_format and torch.layout objects as scripts use them: `x.contiguous(memory_format=
torch.channels_last)`, `x.layout == torch.strided`, printing, pickling and copying the constants, against torch."""
import copy
import pickle

import pytest

import ember

from _porting import torch_fixture  # noqa: F401  (the `torch` fixture)

pytestmark = pytest.mark.parity

FORMATS = ["contiguous_format", "preserve_format", "channels_last", "channels_last_3d", "legacy_contiguous_format"]
LAYOUTS = ["strided", "sparse_coo", "sparse_csr", "sparse_csc", "sparse_bsr", "sparse_bsc", "_mkldnn", "jagged"]


def _describe(lib, name, kind):
    v = getattr(lib, name)
    prefix = lib.__name__ + "."
    return (repr(v).replace(prefix, "P."), str(v).replace(prefix, "P."), type(v).__name__,
            type(v).__module__ == lib.__name__, isinstance(v, getattr(lib, kind)), v == v, v == name,
            hash(v) == hash(getattr(lib, name)), pickle.loads(pickle.dumps(v)) is v, copy.deepcopy(v) is v,
            copy.copy(v) is v, [a for a in dir(v) if not a.startswith("_")])


@pytest.mark.parametrize("name", FORMATS)
def test_memory_formats_are_torch_like_constants(torch, name):
    assert _describe(ember, name, "memory_format") == _describe(torch, name, "memory_format")


@pytest.mark.parametrize("name", LAYOUTS)
def test_layouts_are_torch_like_constants(torch, name):
    assert _describe(ember, name, "layout") == _describe(torch, name, "layout")


def test_formats_compare_by_identity_and_cannot_be_built(torch):
    for lib in (ember, torch):
        assert lib.contiguous_format != lib.channels_last and lib.strided != lib.sparse_coo
        assert lib.contiguous_format != lib.strided
        assert repr(lib.memory_format) == f"<class '{lib.__name__}.memory_format'>"
        assert repr(lib.layout) == f"<class '{lib.__name__}.layout'>"
    for kind in ("memory_format", "layout"):
        with pytest.raises(TypeError) as e:
            getattr(ember, kind)()
        with pytest.raises(TypeError) as t:
            getattr(torch, kind)()
        assert str(e.value).replace("ember", "torch") == str(t.value)


def test_tensors_report_and_take_the_objects(torch):
    out = []
    for lib in (ember, torch):
        x = lib.arange(24.0).reshape(1, 2, 3, 4)
        cl = x.contiguous(memory_format=lib.channels_last)
        x5 = lib.zeros(1, 2, 2, 2, 2).contiguous(memory_format=lib.channels_last_3d)
        out.append((x.layout is lib.strided, x.layout == lib.strided, cl.stride(),
                    cl.is_contiguous(memory_format=lib.channels_last), cl.is_contiguous(),
                    x5.stride(), lib.empty_like(cl).stride(),
                    lib.empty_like(cl, memory_format=lib.contiguous_format).stride(),
                    cl.clone(memory_format=lib.preserve_format).stride(),
                    cl.to(memory_format=lib.contiguous_format).stride(),
                    lib.zeros(2, 3, layout=lib.strided).layout is lib.strided,
                    lib.empty((1, 2, 3, 4), memory_format=lib.channels_last).stride()))
    assert out[0] == out[1]


def test_a_sparse_layout_is_refused_as_torch(torch):
    msgs = []
    for lib in (ember, torch):
        try:
            lib.hann_window(3, layout=lib.sparse_coo)
        except RuntimeError as e:
            msgs.append(str(e))
    assert len(msgs) == 2 and msgs[0] == msgs[1]


@pytest.mark.parametrize("make", [
    lambda lib, lay: lib.zeros(2, 2, layout=lay), lambda lib, lay: lib.ones(3, layout=lay),
    lambda lib, lay: lib.empty(2, 3, layout=lay), lambda lib, lay: lib.full((2,), 1.0, layout=lay),
    lambda lib, lay: lib.eye(2, layout=lay), lambda lib, lay: lib.randn(2, layout=lay)])
def test_a_factory_with_a_layout_ember_lacks_names_it(torch, make):
    """torch makes a sparse tensor here; ember has no sparse layouts and refuses by name (it used to ignore
    the argument and hand back a strided tensor). The strided layout still works as torch's; a non-layout is
    torch's TypeError. (torch's ones/full refuse a sparse layout with a RuntimeError, which NotImplementedError is.)"""
    try:
        assert make(torch, torch.sparse_coo).layout is torch.sparse_coo
    except RuntimeError:
        pass
    for lay in ("sparse_coo", "sparse_csr", "_mkldnn", "jagged"):
        with pytest.raises(NotImplementedError, match=f"ember does not implement torch.{lay} tensors"):
            make(ember, getattr(ember, lay))
    assert make(ember, ember.strided).layout is ember.strided
    assert tuple(make(ember, ember.strided).shape) == tuple(make(torch, torch.strided).shape)
    with pytest.raises(TypeError) as e:
        ember.zeros(2, layout=3)
    with pytest.raises(TypeError) as t:
        torch.zeros(2, layout=3)
    assert str(e.value) == str(t.value)


def test_formats_and_layouts_pass_through_tracing_and_compile():
    """memory formats are graph constants: make_fx records them and prints them by name; ember.compile takes them
    as arguments (guarded by value) and from globals."""
    from ember.fx.experimental.proxy_tensor import make_fx

    def f(x, mf):
        return x.clone(memory_format=mf) * 2 + ember.zeros_like(x, layout=ember.strided)

    x = ember.randn(1, 2, 3, 4)
    g = make_fx(lambda t: f(t, ember.channels_last))(x)
    assert "memory_format = ember.channels_last" in g.code and "layout = ember.strided" in g.code
    assert g(x).stride() == f(x, ember.channels_last).stride() == (24, 1, 8, 2)
    ember._dynamo.reset()
    cf = ember.compile(f, backend="eager", fullgraph=True)
    for mf in (ember.channels_last, ember.contiguous_format, ember.channels_last):
        assert cf(x, mf).stride() == f(x, mf).stride()
        assert ember.equal(cf(x, mf), f(x, mf))
