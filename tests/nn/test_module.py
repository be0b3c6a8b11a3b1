import copy
import pickle
from collections import OrderedDict

import numpy as np
import pytest

import ember
import ember.nn as nn
from conftest import arr


def build(lib, data=None):
    """The same small model in torch or ember: nested modules, params, buffers (one non-persistent)."""
    tn = lib.nn
    data = data or {}

    def t(name, *shape):
        a = data.get(name)
        if a is None:
            a = arr(*shape, seed=hash(name) % 1000)
        return lib.tensor(a)

    class Block(tn.Module):
        def __init__(self):
            super().__init__()
            self.weight = tn.Parameter(t("w", 3, 2))
            self.bias = tn.Parameter(t("b", 3))
            self.register_buffer("running", t("r", 3))
            self.register_buffer("scratch", t("s", 2), persistent=False)

        def forward(self, x):
            return x

        def extra_repr(self):
            return "in=2, out=3"

    class Net(tn.Module):
        def __init__(self):
            super().__init__()
            self.a = Block()
            self.seq = tn.Sequential(Block(), tn.Identity())
            self.scale = tn.Parameter(t("scale", 1))

        def forward(self, x):
            return self.seq(self.a(x))

    return Net()


def test_named_parameters_buffers_modules_match_torch(torch):
    e, t = build(ember), build(torch)
    assert [n for n, _ in e.named_parameters()] == [n for n, _ in t.named_parameters()]
    assert [n for n, _ in e.named_buffers()] == [n for n, _ in t.named_buffers()]
    assert [n for n, _ in e.named_modules()] == [n for n, _ in t.named_modules()]
    assert [n for n, _ in e.named_children()] == [n for n, _ in t.named_children()]
    assert [n for n, _ in e.named_parameters(prefix="m", recurse=False)] == \
        [n for n, _ in t.named_parameters(prefix="m", recurse=False)]
    assert [n for n, _ in e.named_modules(prefix="root")] == [n for n, _ in t.named_modules(prefix="root")]
    assert len(list(e.parameters())) == 5 and len(list(e.buffers())) == 4
    assert len(list(e.modules())) == len(list(t.modules()))


def test_tied_weights_remove_duplicate(torch):
    for lib in (ember, torch):
        m = lib.nn.Module()
        m.a = lib.nn.Module()
        m.b = lib.nn.Module()
        p = lib.nn.Parameter(lib.tensor([1.0]))
        m.a.w = p
        m.b.w = p
        m.c = m.a
        names = [n for n, _ in m.named_parameters()]
        names_all = [n for n, _ in m.named_parameters(remove_duplicate=False)]
        mods = [n for n, _ in m.named_modules()]
        mods_all = [n for n, _ in m.named_modules(remove_duplicate=False)]
        if lib is ember:
            got = (names, names_all, mods, mods_all, len(list(m.children())))
        else:
            want = (names, names_all, mods, mods_all, len(list(m.children())))
    assert got == want
    assert got[0] == ["a.w"] and got[1] == ["a.w", "b.w", "c.w"]


def test_repr_matches_torch(torch):
    assert repr(build(ember)) == repr(build(torch))
    for lib in (ember, torch):
        m = lib.nn.ModuleList([lib.nn.Identity(), lib.nn.Identity(), lib.nn.Flatten(), lib.nn.Identity()])
        d = lib.nn.ModuleDict({"x": lib.nn.Flatten(0, 1), "y": lib.nn.Unflatten(1, (2, 3))})
        s = lib.nn.Sequential(OrderedDict(a=m, b=d, c=lib.nn.ModuleList()))
        if lib is ember:
            got = repr(s)
        else:
            want = repr(s)
    assert got == want


def test_parameter_containers_repr(torch):
    out = []
    for lib in (ember, torch):
        pl = lib.nn.ParameterList([lib.nn.Parameter(lib.tensor(arr(2, 3))), lib.tensor(arr(4))])
        pd = lib.nn.ParameterDict({"b": lib.nn.Parameter(lib.tensor(arr(1))), "a": lib.tensor(arr(2, 2))})
        out.append((repr(pl).replace("torch", "ember"), repr(pd).replace("torch", "ember"),
                    [type(p).__name__ for p in pl], list(pd.keys())))
    assert out[0] == out[1]


def test_state_dict_layout_matches_torch(torch):
    e, t = build(ember), build(torch)
    sde, sdt = e.state_dict(), t.state_dict()
    assert isinstance(sde, OrderedDict)
    assert list(sde) == list(sdt)
    assert dict(sde._metadata) == dict(sdt._metadata)
    for k in sde:
        np.testing.assert_array_equal(sde[k].numpy(), sdt[k].numpy())
        assert not sde[k].requires_grad and type(sde[k]) is ember.Tensor
    kv = e.state_dict(keep_vars=True)
    assert kv["a.weight"] is e.a.weight
    assert list(e.state_dict(prefix="p.")) == list(t.state_dict(prefix="p."))
    # detached values share storage with the parameters
    sde["a.weight"].numpy()[0, 0] = 123.0
    assert e.a.weight.tolist()[0][0] == 123.0


def test_load_state_dict_roundtrip_and_incompatible_keys(torch):
    src, dst = build(ember), build(ember, {k: np.zeros_like(arr(*s)) for k, s in
                                           [("w", (3, 2)), ("b", (3,)), ("r", (3,)), ("scale", (1,))]})
    weight = dst.a.weight
    res = dst.load_state_dict(src.state_dict())
    assert repr(res) == "<All keys matched successfully>" and res.missing_keys == [] and res.unexpected_keys == []
    assert dst.a.weight is weight
    for k, v in src.state_dict().items():
        np.testing.assert_array_equal(dst.state_dict()[k].numpy(), v.numpy())
    sd = src.state_dict()
    del sd["a.bias"]
    sd["extra"] = ember.tensor([1.0])
    sd["a.foo.bar"] = ember.tensor([1.0])
    res = dst.load_state_dict(sd, strict=False)
    tsd = build(torch).state_dict()
    del tsd["a.bias"]
    tsd["extra"] = torch.tensor([1.0])
    tsd["a.foo.bar"] = torch.tensor([1.0])
    tres = build(torch).load_state_dict(tsd, strict=False)
    assert res.missing_keys == tres.missing_keys and res.unexpected_keys == tres.unexpected_keys
    assert repr(res) == repr(tres)
    with pytest.raises(RuntimeError) as ee:
        dst.load_state_dict(sd)
    with pytest.raises(RuntimeError) as et:
        build(torch).load_state_dict(tsd)
    assert str(ee.value) == str(et.value)


def test_load_state_dict_shape_mismatch_lists_every_key_and_leaves_model_unchanged(torch):
    m = build(ember)
    before = {k: v.numpy().copy() for k, v in m.state_dict().items()}
    sd = {k: ember.tensor(np.ones_like(v)) for k, v in before.items()}
    sd["a.weight"] = ember.tensor(np.ones((2, 3), np.float32))
    sd["seq.0.bias"] = ember.tensor(np.ones((4,), np.float32))
    with pytest.raises(RuntimeError) as ee:
        m.load_state_dict(sd)
    msg = str(ee.value)
    assert "size mismatch for a.weight" in msg and "size mismatch for seq.0.bias" in msg
    for k, v in m.state_dict().items():
        np.testing.assert_array_equal(v.numpy(), before[k])     # nothing was written
    # message text equals torch's
    tm = build(torch)
    tsd = {k: torch.tensor(v.numpy()) for k, v in sd.items()}
    with pytest.raises(RuntimeError) as et:
        tm.load_state_dict(tsd)
    assert msg == str(et.value).replace("torch.Size", "ember.Size")


def test_load_state_dict_assign_and_errors(torch):
    m = build(ember)
    sd = {k: ember.tensor(np.full(v.shape, 2.0, np.float32)) for k, v in m.state_dict().items()}
    m.load_state_dict(sd, assign=True)
    assert isinstance(m.a.weight, nn.Parameter) and m.a.weight.requires_grad
    assert m.a.weight.untyped_storage() is sd["a.weight"].untyped_storage()
    assert m.a.running is sd["a.running"]
    with pytest.raises(TypeError, match="Expected state_dict to be dict-like, got <class 'list'>."):
        m.load_state_dict([1])
    sd["a.bias"] = 3
    with pytest.raises(RuntimeError, match='While copying the parameter named "a.bias", expected torch.Tensor'):
        m.load_state_dict(sd)


def test_state_dict_hooks_and_load_hooks():
    m = build(ember)
    calls = []
    m.register_state_dict_pre_hook(lambda mod, prefix, keep_vars: calls.append(("pre", prefix)))
    m.register_state_dict_post_hook(lambda mod, sd, prefix, meta: calls.append(("post", len(sd))))
    h = m._register_state_dict_hook(lambda mod, sd, prefix, meta: OrderedDict(x=1))
    assert m.state_dict() == OrderedDict(x=1)
    h.remove()
    m.state_dict()
    assert calls[0] == ("pre", "") and calls[-1] == ("post", 7)
    seen = []
    m.register_load_state_dict_pre_hook(lambda mod, sd, prefix, *a: seen.append(("pre", mod is m, prefix)))
    m.register_load_state_dict_post_hook(lambda mod, keys: seen.append(("post", keys.missing_keys)))
    m.load_state_dict(m.state_dict())
    assert seen == [("pre", True, ""), ("post", [])]


def test_extra_state():
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.v = 1

        def get_extra_state(self):
            return {"v": self.v}

        def set_extra_state(self, state):
            self.v = state["v"]

    m = M()
    m.v = 5
    sd = m.state_dict()
    assert sd["_extra_state"] == {"v": 5}
    m2 = M()
    m2.load_state_dict(sd)
    assert m2.v == 5
    with pytest.raises(RuntimeError, match='Missing key\\(s\\) in state_dict: "_extra_state"'):
        m2.load_state_dict({})


def test_registration_errors_match_torch(torch):
    def errors(lib):
        out = []
        m = lib.nn.Module()
        m.w = lib.nn.Parameter(lib.tensor([1.0]))
        m.register_buffer("buf", lib.tensor([1.0]))
        m.sub = lib.nn.Identity()
        m.plain = 3
        cases = [
            lambda: setattr(m, "w", lib.tensor([1.0])),
            lambda: setattr(m, "w", 3),
            lambda: setattr(m, "sub", 3),
            lambda: setattr(m, "buf", 3),
            lambda: m.register_buffer("a.b", None),
            lambda: m.register_buffer("", None),
            lambda: m.register_buffer(1, None),
            lambda: m.register_buffer("plain", None),
            lambda: m.register_buffer("x", 3),
            lambda: m.register_parameter("a.b", None),
            lambda: m.register_parameter("", None),
            lambda: m.register_parameter("plain", None),
            lambda: m.register_parameter("x", lib.tensor([1.0])),
            lambda: m.add_module("x", 3),
            lambda: m.add_module("a.b", None),
            lambda: m.add_module("", None),
            lambda: m.add_module("plain", None),
            lambda: m.add_module(3, None),
            lambda: m.missing,
            lambda: m.get_submodule("sub.x"),
            lambda: m.get_submodule("plain"),
            lambda: m.get_parameter("buf"),
            lambda: m.get_parameter("nope"),
            lambda: m.get_buffer("w"),
            lambda: m.train("yes"),
            lambda: lib.nn.Module(3),
            lambda: lib.nn.Module(foo=3),
            lambda: m(1),
        ]
        for c in cases:
            try:
                c()
                out.append(None)
            except Exception as ex:
                out.append((type(ex).__name__, str(ex).replace("torch.", "ember.")))
        return out

    got, want = errors(ember), errors(torch)
    for i, (g, w) in enumerate(zip(got, want)):
        assert g == w, (i, g, w)
    # before __init__
    class Bad(nn.Module):
        def __init__(self):
            self.p = nn.Parameter(ember.tensor([1.0]))
    with pytest.raises(AttributeError, match="cannot assign parameters before Module.__init__\\(\\) call"):
        Bad()


def test_setattr_moves_between_kinds_and_delattr():
    m = nn.Module()
    m.x = nn.Parameter(ember.tensor([1.0]))
    m.x = None                       # allowed: parameter slot set to None
    assert "x" in m._parameters and m.x is None
    m.register_buffer("b", ember.tensor([1.0]), persistent=False)
    m.b = ember.tensor([2.0])        # plain tensor into an existing buffer keeps non-persistence
    assert m.b.tolist() == [2.0] and "b" in m._non_persistent_buffers_set
    m.y = 1
    m.y = nn.Identity()
    assert "y" in m._modules and "y" not in m.__dict__
    del m.y, m.b, m.x
    assert not m._modules and not m._buffers and not m._parameters
    m.z = 1
    del m.z
    with pytest.raises(AttributeError):
        del m.z
    assert "weight" not in dir(m)
    m.weight = nn.Parameter(ember.tensor([1.0]))
    assert "weight" in dir(m) and "forward" in dir(m)


def test_get_submodule_parameter_buffer():
    m = build(ember)
    assert m.get_submodule("") is m and m.get_submodule("seq.0") is m.seq[0]
    assert m.get_parameter("seq.0.weight") is m.seq[0].weight
    assert m.get_buffer("a.running") is m.a.running
    m.set_submodule("seq.1", nn.Flatten())
    assert isinstance(m.seq[1], nn.Flatten)


def test_train_eval_apply_requires_grad_zero_grad():
    m = build(ember)
    assert m.training and m.seq[0].training
    assert m.eval() is m and not m.seq[0].training and not m.a.training
    m.train()
    assert m.seq[1].training
    seen = []
    m.apply(lambda mod: seen.append(type(mod).__name__))
    assert seen == ["Block", "Block", "Identity", "Sequential", "Net"]
    m.requires_grad_(False)
    assert not any(p.requires_grad for p in m.parameters())
    m.requires_grad_()
    for p in m.parameters():
        p.grad = ember.tensor(np.ones(p.shape, np.float32))
    m.zero_grad(set_to_none=False)
    assert all(p.grad is not None and not p.grad.numpy().any() for p in m.parameters())
    m.zero_grad()
    assert all(p.grad is None for p in m.parameters())


def test_forward_hooks_order_kwargs_and_removal():
    class Add(nn.Module):
        def forward(self, x, y=0):
            return x + y

    m = Add()
    log = []
    h1 = m.register_forward_pre_hook(lambda mod, args: (args[0] * 10,))
    h2 = m.register_forward_pre_hook(lambda mod, args, kw: (args, {"y": 5}), with_kwargs=True)
    h3 = m.register_forward_hook(lambda mod, args, out: out + 1)
    h4 = m.register_forward_hook(lambda mod, args, kw, out: log.append((args, kw, out)), with_kwargs=True)
    h5 = m.register_forward_pre_hook(lambda mod, args: log.append("first"), prepend=True)
    assert m(1) == 16
    assert log == ["first", ((10,), {"y": 5}, 16)]
    for h in (h1, h2, h3, h4, h5):
        h.remove()
    assert m(1) == 1 and not m._forward_hooks and not m._forward_hooks_with_kwargs
    with m.register_forward_hook(lambda mod, a, o: 99):
        assert m(1) == 99
    assert m(1) == 1


def test_forward_hook_always_call_runs_on_error():
    class Boom(nn.Module):
        def forward(self, x):
            raise ValueError("boom")

    m = Boom()
    calls = []
    m.register_forward_hook(lambda mod, a, o: calls.append("always"), always_call=True)
    m.register_forward_hook(lambda mod, a, o: calls.append("normal"))
    with pytest.raises(ValueError, match="boom"):
        m(1)
    assert calls == ["always"]


def test_global_forward_hooks():
    from ember.nn.modules.module import register_module_forward_hook, register_module_forward_pre_hook
    seen = []
    h1 = register_module_forward_pre_hook(lambda mod, a: seen.append("pre"))
    h2 = register_module_forward_hook(lambda mod, a, o: seen.append("post"))
    try:
        nn.Identity()(1)
    finally:
        h1.remove()
        h2.remove()
    nn.Identity()(1)
    assert seen == ["pre", "post"]


def test_forward_unimplemented(torch):
    with pytest.raises(NotImplementedError, match='Module \\[Module\\] is missing the required "forward" function'):
        nn.Module()(1)


def test_to_and_float_double_keep_parameter_identity():
    m = build(ember)
    w = m.a.weight
    w.grad = ember.tensor(np.ones((3, 2), np.float32))
    m.double()
    assert m.a.weight is w and w.dtype is ember.float64 and w.grad.dtype is ember.float64
    assert m.a.running.dtype is ember.float64 and isinstance(w, nn.Parameter) and w.requires_grad
    m.to(ember.float32)
    assert w.dtype is ember.float32
    m.half()
    assert w.dtype is ember.float16
    m.bfloat16()
    assert w.dtype is ember.bfloat16
    m.float()
    assert w.dtype is ember.float32
    m.to("cpu").cpu()
    m.to(device="cpu", dtype=ember.float64)
    assert w.dtype is ember.float64
    m.to(ember.tensor([1.0]))
    assert w.dtype is ember.float32
    with pytest.raises(TypeError, match="nn.Module.to only accepts floating point or complex dtypes, but got "
                                        "desired dtype=ember.int64"):
        m.to(ember.int64)


def test_pickle_and_deepcopy():
    m = build(ember)
    m2 = copy.deepcopy(m)
    assert m2.a.weight is not m.a.weight and isinstance(m2.a.weight, nn.Parameter)
    np.testing.assert_array_equal(m2.a.weight.numpy(force=True), m.a.weight.numpy(force=True))
    state = m.__getstate__()
    m3 = nn.Module.__new__(type(m))
    st = dict(state)
    del st["_forward_pre_hooks"], st["_non_persistent_buffers_set"]
    m3.__setstate__(st)
    assert m3._forward_pre_hooks == OrderedDict() and m3._non_persistent_buffers_set == set()


def test_incompatible_keys_repr(torch):
    from ember.nn.modules.module import _IncompatibleKeys
    k = _IncompatibleKeys(["a"], ["b"])
    from torch.nn.modules.module import _IncompatibleKeys as TK
    assert repr(k) == repr(TK(["a"], ["b"]))
    assert str(_IncompatibleKeys([], [])) == "<All keys matched successfully>"


@pytest.mark.parity
@pytest.mark.parametrize("kwargs", [None, {}, {"dtype": "d"}, {"device": "cpu", "memory_format": "m"},
                                    {"factory_kwargs": {"dtype": "d"}, "device": "cpu"}, {"bogus": 1},
                                    {"dtype": "d", "factory_kwargs": {"dtype": "e"}}])
def test_factory_kwargs_matches_torch(kwargs):
    torch = pytest.importorskip("torch")
    got = []
    for L in (torch, ember):
        try:
            got.append(L.nn.factory_kwargs(kwargs))
        except TypeError as e:
            got.append(("TypeError", str(e)))
    assert got[0] == got[1]
