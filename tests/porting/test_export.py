"""torch.export: export() of an MLP, a CNN with BatchNorm (eval and train), a model with keyword inputs, one with
a non-persistent buffer, a constant and an input mutation; `ep.module()` against eager; the graph signature
(kinds, names, targets) and the op set against real torch's export of the same model; save/load; Dim and
dynamic_shapes; errors for what ember does not support."""
import copy
import io

import numpy as np
import pytest

import ember
from _porting import torch_fixture  # noqa: F401  (the `torch` fixture)


def _mlp(t):
    class MLP(t.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = t.nn.Linear(4, 8)
            self.fc2 = t.nn.Linear(8, 3)

        def forward(self, x):
            return self.fc2(t.relu(self.fc1(x)))
    return MLP()


def _cnn(t):
    class CNN(t.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = t.nn.Conv2d(3, 4, 3)
            self.bn = t.nn.BatchNorm2d(4)

        def forward(self, x):
            return t.relu(self.bn(self.conv(x))).mean()
    return CNN()


def _kw(t):
    class KW(t.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = t.nn.Linear(4, 4)

        def forward(self, x, *, scale=1.0, bias=None):
            y = self.fc(x) * scale
            return y if bias is None else y + bias
    return KW()


def _state(t):
    class State(t.nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("k", t.ones(3), persistent=False)

        def forward(self, x, y):
            x.add_(1)
            return x * self.k + t.tensor([1.0, 2.0, 3.0]), y
    return State()


def _simple(t):
    class Simple(t.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = t.nn.Conv2d(2, 3, 3, padding=1)
            self.scale = t.nn.Parameter(t.ones(3, 1, 1))

        def forward(self, x):
            y = t.relu(self.conv(x)) * self.scale
            return t.sigmoid(y).sum(dim=(2, 3)) - y.mean()
    return Simple()


def _same_weights(src, dst, torch):
    with torch.no_grad():
        for (_, q), (_, p) in zip(src.state_dict().items(), dst.state_dict().items()):
            p.copy_(torch.tensor(q.numpy()))


def _specs(sig):
    ins = [(s.kind.name, s.arg.name, s.target, s.persistent) for s in sig.input_specs]
    outs = [(s.kind.name, s.target) for s in sig.output_specs]
    return ins, outs


def _ops(gm):
    return {str(n.target).split(".", 3)[-1] if "ops.aten" in str(n.target) else n.target.name().split("::")[-1]
            for n in gm.graph.nodes if n.op == "call_function" and hasattr(n.target, "name")}


def _aten_names(gm):
    return {n.target.name() for n in gm.graph.nodes if n.op == "call_function" and hasattr(n.target, "_schema")}


def test_mlp_module_matches_eager():
    ember.manual_seed(0)
    m = _mlp(ember)
    x = ember.randn(2, 4)
    ep = ember.export.export(m, (x,))
    assert isinstance(ep, ember.export.ExportedProgram)
    np.testing.assert_allclose(ep.module()(x).detach().numpy(), m(x).detach().numpy(), rtol=1e-6)
    x2 = ember.randn(2, 4)
    np.testing.assert_allclose(ep.module()(x2).detach().numpy(), m(x2).detach().numpy(), rtol=1e-6)
    assert [n for n, _ in ep.named_parameters()] == ["fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]
    assert list(ep.state_dict) == ["fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]
    assert ep.state_dict["fc1.weight"] is m.fc1.weight
    assert ep.graph is ep.graph_module.graph
    mod = ep.module()
    assert isinstance(mod, ember.fx.GraphModule)
    assert isinstance(mod.fc1.weight, ember.nn.Parameter)
    text = str(ep)
    assert text.startswith("ExportedProgram:\n    class GraphModule")
    assert 'x: "f32[2, 4]"' in text and "p_fc1_weight: PARAMETER target='fc1.weight'" in text
    assert "Range constraints: {}" in text


@pytest.mark.parametrize("train", [False, True])
def test_cnn_batchnorm_module_matches_eager(train):
    ember.manual_seed(0)
    m = _cnn(ember).train(train)
    ref = copy.deepcopy(m)
    x = ember.randn(2, 3, 8, 8)
    ep = ember.export.export(m, (x,))
    assert m.bn.num_batches_tracked.item() == 0      # export does not run the module's state forward
    mod = ep.module()
    for _ in range(2):
        got, want = mod(x), ref(x)
        np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-5, atol=1e-6)
    for name in ("running_mean", "running_var", "num_batches_tracked"):
        np.testing.assert_allclose(getattr(mod.bn, name).numpy(), getattr(ref.bn, name).numpy(), rtol=1e-5,
                                   atol=1e-7)
    mutations = ep.graph_signature.buffers_to_mutate
    if train:
        assert sorted(mutations.values()) == ["bn.num_batches_tracked", "bn.running_mean", "bn.running_var"]
        # functionalized: no op of the exported graph writes its inputs
        for n in ep.graph.nodes:
            if n.op == "call_function" and hasattr(n.target, "_schema"):
                assert not any(a.is_write for a in n.target._schema.arguments.flat_all), n.target
    else:
        assert mutations == {}


def test_kwargs_module_matches_eager():
    ember.manual_seed(0)
    m = _kw(ember)
    x, b = ember.randn(2, 4), ember.randn(4)
    ep = ember.export.export(m, (x,), {"bias": b})
    assert ep.graph_signature.user_inputs == ("x", "bias")
    mod = ep.module()
    np.testing.assert_allclose(mod(x, bias=b).detach().numpy(), m(x, bias=b).detach().numpy(), rtol=1e-6)
    np.testing.assert_allclose(mod(x, b).detach().numpy(), m(x, bias=b).detach().numpy(), rtol=1e-6)


def test_constant_input_is_a_guarded_placeholder(tmp_path):
    ember.manual_seed(0)
    m = _kw(ember)
    x = ember.randn(2, 4)
    ep = ember.export.export(m, (x,), {"scale": 2.0})
    spec = ep.graph_signature.input_specs[-1]
    assert (spec.kind.name, spec.arg.name, spec.arg.value) == ("USER_INPUT", "scale", 2.0)
    mod = ep.module()
    np.testing.assert_allclose(mod(x, scale=2.0).detach().numpy(), m(x, scale=2.0).detach().numpy(), rtol=1e-6)
    with pytest.raises(AssertionError, match="Guard failed: scale == 2.0"):
        mod(x, scale=3.0)
    ember.export.save(ep, str(tmp_path / "kw.pt2"))
    loaded = ember.export.load(str(tmp_path / "kw.pt2"))
    assert loaded.graph_signature.input_specs[-1].arg.value == 2.0
    np.testing.assert_allclose(loaded.module()(x, scale=2.0).detach().numpy(), m(x, scale=2.0).detach().numpy(),
                               rtol=1e-6)


def test_state_constants_and_input_mutation():
    m = _state(ember)
    ep = ember.export.export(m, (ember.randn(2, 3), ember.ones(3)))
    assert list(ep.state_dict) == []
    assert set(ep.constants) == {"k", "lifted_tensor_0"}
    x = ember.zeros(2, 3)
    out, y = ep.module()(x, ember.ones(3))
    np.testing.assert_array_equal(x.numpy(), np.ones((2, 3)))           # the input mutation is applied
    np.testing.assert_array_equal(out.numpy(), np.array([[2.0, 3.0, 4.0]] * 2))
    assert "k" not in ep.module().state_dict()                          # still a non-persistent buffer


@pytest.mark.parity
@pytest.mark.parametrize("make,args,kwargs,train", [
    (_mlp, [(2, 4)], {}, False),
    (_cnn, [(2, 3, 8, 8)], {}, False),
    (_cnn, [(2, 3, 8, 8)], {}, True),
    (_kw, [(2, 4)], {"bias": (4,)}, False),
    (_kw, [(2, 4)], {"bias": (4,), "scale": 2.0}, False),
    (_state, [(2, 3), (3,)], {}, False),
])
def test_graph_signature_matches_torch(torch, make, args, kwargs, train):
    mt, me = make(torch).train(train), make(ember).train(train)
    ta = tuple(torch.randn(*s) for s in args)
    tk = {k: torch.randn(*s) if isinstance(s, tuple) else s for k, s in kwargs.items()}
    ea = tuple(ember.tensor(a.numpy()) for a in ta)
    ek = {k: ember.tensor(v.numpy()) if isinstance(v, torch.Tensor) else v for k, v in tk.items()}
    tep = torch.export.export(mt, ta, tk).run_decompositions({})     # functionalized, as ember's export is
    eep = ember.export.export(me, ea, ek)
    t_in, t_out = _specs(tep.graph_signature)
    e_in, e_out = _specs(eep.graph_signature)
    assert e_in == t_in
    assert e_out == t_out
    assert eep.graph_signature.user_inputs == tep.graph_signature.user_inputs
    assert eep.graph_signature.parameters == tep.graph_signature.parameters
    assert eep.graph_signature.buffers == tep.graph_signature.buffers
    assert [p for p in (n.target for n in eep.graph.nodes if n.op == "placeholder")] == \
        [n.target for n in tep.graph.nodes if n.op == "placeholder"]


@pytest.mark.parity
def test_module_output_matches_torch(torch):
    torch.manual_seed(0)
    mt, me = _cnn(torch).train(), _cnn(ember).train()
    _same_weights(me, mt, torch)
    x = np.random.default_rng(0).standard_normal((2, 3, 8, 8)).astype(np.float32)
    tmod = torch.export.export(mt, (torch.tensor(x),)).module()
    emod = ember.export.export(me, (ember.tensor(x),)).module()
    for _ in range(2):
        np.testing.assert_allclose(emod(ember.tensor(x)).detach().numpy(), tmod(torch.tensor(x)).detach().numpy(),
                                   rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(emod.bn.running_var.numpy(), tmod.bn.running_var.numpy(), rtol=1e-4)
    assert emod.bn.num_batches_tracked.item() == tmod.bn.num_batches_tracked.item() == 2


@pytest.mark.parity
def test_op_set_matches_torch(torch):
    """conv, relu, mul, sigmoid, sum, mean: torch's export after run_decompositions() and ember's export call the
    same aten overloads (ember's make_fx already decomposes composite ops such as conv2d -> convolution)."""
    x = np.random.default_rng(0).standard_normal((1, 2, 5, 5)).astype(np.float32)
    tep = torch.export.export(_simple(torch), (torch.tensor(x),)).run_decompositions()
    eep = ember.export.export(_simple(ember), (ember.tensor(x),))
    want = {str(n.target.name()) for n in tep.graph.nodes
            if n.op == "call_function" and hasattr(n.target, "_schema")}
    assert _aten_names(eep.graph_module) == want
    assert _aten_names(eep.run_decompositions().graph_module) == want


def test_run_decompositions():
    ember.manual_seed(0)
    m = _kw(ember)
    x = ember.randn(2, 4)
    ep = ember.export.export(m, (x,))
    assert "aten::addmm" in _aten_names(ep.graph_module)
    kept = ep.run_decompositions()                     # addmm is core ATen: kept, as torch's default table does
    assert "aten::addmm" in _aten_names(kept.graph_module)
    dec = ep.run_decompositions({ember.ops.aten.addmm.default: ember._decomp.decomposition_table[
        ember.ops.aten.addmm.default]})
    assert "aten::addmm" not in _aten_names(dec.graph_module) and "aten::mm" in _aten_names(dec.graph_module)
    assert [s.kind for s in dec.graph_signature.input_specs] == [s.kind for s in ep.graph_signature.input_specs]
    np.testing.assert_allclose(dec.module()(x).detach().numpy(), m(x).detach().numpy(), rtol=1e-6)
    dec.validate()


@pytest.mark.parametrize("train", [False, True])
def test_save_load_round_trip(tmp_path, train):
    ember.manual_seed(0)
    m = _cnn(ember).train(train)
    ref = copy.deepcopy(m)
    x = ember.randn(2, 3, 8, 8)
    ep = ember.export.export(m, (x,))
    path = tmp_path / "cnn.ember.pt2"
    ember.export.save(ep, str(path))
    loaded = ember.export.load(str(path))
    assert _specs(loaded.graph_signature) == _specs(ep.graph_signature)
    assert [n.name for n in loaded.graph.nodes] == [n.name for n in ep.graph.nodes]
    assert str(loaded) == str(ep)
    np.testing.assert_allclose(loaded.module()(x).detach().numpy(), ref(x).detach().numpy(), rtol=1e-5)
    buf = io.BytesIO()
    ember.export.save(loaded, buf)
    buf.seek(0)
    again = ember.export.load(buf)
    assert _aten_names(again.run_decompositions().graph_module) == _aten_names(ep.run_decompositions().graph_module)
    with pytest.raises(TypeError, match="ExportedProgram"):
        ember.export.save(m, io.BytesIO())
    other = io.BytesIO()
    ember.save({"a": 1}, other)
    other.seek(0)
    with pytest.raises(RuntimeError, match="not a file written by ember.export.save"):
        ember.export.load(other)


def test_dynamic_shapes_dim():
    Dim = ember.export.Dim
    batch = Dim("batch", max=64)
    assert (batch.__name__, batch.min, batch.max) == ("batch", 0, 64)
    m = ember.nn.Linear(4, 3)
    ep = ember.export.export(m, (ember.randn(5, 4),), dynamic_shapes={"input": {0: batch}})
    x_val = [n for n in ep.graph.nodes if n.op == "placeholder"][-1].meta["val"]
    assert not isinstance(x_val.shape[0], int) and x_val.shape[1] == 4
    assert list(ep.range_constraints.values()) == ["VR[0, 64]"]
    mod = ep.module()
    for n in (2, 7, 64):
        x = ember.randn(n, 4)
        np.testing.assert_allclose(mod(x).detach().numpy(), m(x).detach().numpy(), rtol=1e-6)
    with pytest.raises(AssertionError, match=r"Guard failed: input.size\(\)\[0\] <= 64"):
        mod(ember.randn(100, 4))
    with pytest.raises(AssertionError, match=r"Guard failed: input.size\(\)\[1\] == 4"):
        mod(ember.randn(5, 5))
    static = ember.export.export(m, (ember.randn(5, 4),)).module()
    with pytest.raises(AssertionError, match=r"Guard failed: input.size\(\)\[0\] == 5"):
        static(ember.randn(6, 4))


@pytest.mark.parity
def test_dynamic_shape_errors_match_torch(torch):
    def specialized(t):
        class R(t.nn.Module):
            def forward(self, x):
                return x.reshape(4, 3) + 1
        return R()
    for t in (torch, ember):
        with pytest.raises(RuntimeError, match=r"Constraints violated \(n\)!") as info:
            t.export.export(specialized(t), (t.randn(4, 3),), dynamic_shapes={"x": {0: t.export.Dim("n")}})
        assert type(info.value).__name__ == "UserError"
        with pytest.raises(RuntimeError, match="top-level keys must be the arg names") as info:
            t.export.export(t.nn.Linear(4, 3), (t.randn(4, 4),), dynamic_shapes={"x": {0: t.export.Dim("n")}})
        assert type(info.value).__name__ == "UserError"
        with pytest.raises(AssertionError, match="inconsistent min"):
            t.export.Dim("m", min=5, max=2)
        with pytest.raises(ValueError, match="Expected `mod` to be an instance of `torch.nn.Module`"):
            t.export.export(lambda x: x, (t.randn(2),))


def test_unsupported_features_raise():
    m = _mlp(ember)
    x = ember.randn(2, 4)
    with pytest.raises(NotImplementedError, match="strict=True"):
        ember.export.export(m, (x,), strict=True)
    with pytest.raises(NotImplementedError, match="preserve_module_call_signature"):
        ember.export.export(m, (x,), preserve_module_call_signature=("fc1",))
    with pytest.raises(NotImplementedError, match="draft_export"):
        ember.export.draft_export(m, (x,))
    ep = ember.export.export(m, (ember.randn(3, 4),), dynamic_shapes=({0: ember.export.Dim("b")},))
    with pytest.raises(NotImplementedError, match="dynamic_shapes cannot be saved"):
        ember.export.save(ep, io.BytesIO())
    with pytest.raises(RuntimeError, match="exported_program.module()"):
        ember.export.export(m, (x,))(x)
    with pytest.raises(ValueError, match="tuple"):
        ember.export.export(m, x)


def test_import_ember_as_torch_script():
    """The idiom of torch's export tutorial, unmodified, with `torch` resolved to ember."""
    from _porting import run_script
    env = run_script(
        "import io\n"
        "export = torch.export.export\n"
        "class M(torch.nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.lin = torch.nn.Linear(10, 5)\n"
        "    def forward(self, x, y):\n"
        "        return torch.nn.functional.relu(self.lin(x + y), inplace=True)\n"
        "ex = (torch.randn(8, 10), torch.randn(8, 10))\n"
        "ep = export(M(), ex)\n"
        "buf = io.BytesIO(); torch.export.save(ep, buf); buf.seek(0)\n"
        "out = torch.export.load(buf).module()(*ex)\n"
        "ref = ep.module()(*ex)\n", ember)
    np.testing.assert_allclose(env["out"].detach().numpy(), env["ref"].detach().numpy())


def test_dynamic_batch_cnn_eval_and_decompositions():
    ember.manual_seed(0)
    m = _cnn(ember).eval()
    ep = ember.export.export(m, (ember.randn(3, 3, 8, 8),), dynamic_shapes={"x": {0: ember.export.Dim("b")}})
    for n in (2, 5):
        x = ember.randn(n, 3, 8, 8)
        np.testing.assert_allclose(ep.module()(x).detach().numpy(), m(x).detach().numpy(), rtol=1e-5)
        np.testing.assert_allclose(ep.run_decompositions().module()(x).detach().numpy(), m(x).detach().numpy(),
                                   rtol=1e-5)


def test_dynamic_dim_fixed_by_functionalization_is_reported():
    """BatchNorm's running-variance update in train mode is written with the batch count as a number, so a
    dynamic batch is specialised: export says so (torch's UserError) instead of returning a wrong graph."""
    m = _cnn(ember).train()
    with pytest.raises(RuntimeError, match=r"(?s)Constraints violated \(b\)!.*specialized it to be a constant \(3\)") \
            as info:
        ember.export.export(m, (ember.randn(3, 3, 8, 8),), dynamic_shapes={"x": {0: ember.export.Dim("b")}})
    assert type(info.value).__name__ == "UserError"


def test_nested_inputs_named_as_torch():
    class N(ember.nn.Module):
        def __init__(self):
            super().__init__()
            self.a = ember.nn.Linear(3, 3)

        def forward(self, xs, d):
            return self.a(xs[0]) + xs[1] * d["k"]
    m = N()
    xs, d = (ember.randn(2, 3), ember.randn(2, 3)), {"k": ember.randn(3)}
    ep = ember.export.export(m, (xs, d))
    assert ep.graph_signature.user_inputs == ("xs_0", "xs_1", "d_k")      # torch's names for these leaves
    np.testing.assert_allclose(ep.module()(xs, d).detach().numpy(), m(xs, d).detach().numpy(), rtol=1e-6)
