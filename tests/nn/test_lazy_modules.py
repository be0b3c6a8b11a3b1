"""The Lazy modules (LazyLinear, LazyConv*/LazyConvTranspose*, LazyBatchNorm*, LazyInstanceNorm*): shapes inferred on
the first forward, the class they become, their state_dict before and after, and loading a built module's
checkpoint into a fresh lazy one; compared with torch."""
import numpy as np
import pytest

import ember

CASES = [
    ("LazyLinear", (3,), (2, 5)),
    ("LazyLinear", (4, False), (2, 3, 6)),
    ("LazyConv1d", (4, 3), (2, 3, 8)),
    ("LazyConv2d", (4, 3), (3, 5, 5)),
    ("LazyConv2d", (4, 3, 1, 1, 1, 2), (1, 2, 5, 5)),
    ("LazyConv3d", (2, 2), (1, 3, 4, 4, 4)),
    ("LazyConvTranspose1d", (4, 3), (2, 3, 5)),
    ("LazyConvTranspose2d", (4, 3, 2, 0, 1, 2), (1, 2, 3, 3)),
    ("LazyConvTranspose3d", (2, 2), (1, 3, 2, 2, 2)),
    ("LazyBatchNorm1d", (), (4, 3)),
    ("LazyBatchNorm2d", (), (2, 3, 4, 4)),
    ("LazyBatchNorm3d", (1e-3, 0.2, False), (2, 3, 2, 2, 2)),
    ("LazyInstanceNorm1d", (), (2, 3, 5)),
    ("LazyInstanceNorm2d", (1e-5, 0.1, False, False), (2, 3, 4, 4)),
    ("LazyInstanceNorm3d", (), (1, 2, 3, 3, 3)),
]


def _summary(lib, m):
    return (type(m).__name__, repr(m), [(k, type(v).__name__, tuple(v.shape) if type(v).__name__.find("Uninit") < 0
                                         else None) for k, v in m.state_dict().items()])


@pytest.mark.parity
@pytest.mark.parametrize("name,args,shape", CASES)
def test_lazy_module_matches_torch(name, args, shape):
    torch = pytest.importorskip("torch")
    data = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    res = []
    built = {}
    for lib in (ember, torch):
        m = getattr(lib.nn, name)(*args)
        before = _summary(lib, m) + (m.has_uninitialized_params(),)
        x = lib.tensor(data)
        m(x)
        after = _summary(lib, m)
        assert not hasattr(m, "_initialize_hook") and type(m).__name__ == name.replace("Lazy", "")
        built[lib] = m
        res.append((before, after))
    assert res[0][0][1:] == res[1][0][1:]
    assert res[0][1] == res[1][1]
    # torch's built state (weights included) loaded into a fresh ember lazy module gives torch's output
    state = {k: ember.tensor(v.detach().numpy()) for k, v in built[torch].state_dict().items()}
    fresh = getattr(ember.nn, name)(*args)
    if "Norm" in name:
        # as in torch, loading does not set num_features, which the norm layers check: build first
        fresh(ember.tensor(data))
    fresh.load_state_dict(state)
    assert not any(type(p).__name__.startswith("Uninit") for p in fresh.state_dict().values())
    fresh.eval()
    built[torch].eval()
    x2 = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    got = fresh(ember.tensor(x2)).detach().numpy()
    want = built[torch](torch.tensor(x2)).detach().numpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parity
def test_lazy_parameters_are_placeholders_as_torch():
    torch = pytest.importorskip("torch")
    for lib in (ember, torch):
        p = lib.nn.UninitializedParameter()
        assert repr(p) == "<UninitializedParameter>" and p.requires_grad
        assert isinstance(p, lib.nn.Parameter)
        b = lib.nn.UninitializedBuffer()
        assert repr(b) == "<UninitializedBuffer>" and not b.requires_grad
        with pytest.raises(RuntimeError, match="Can't access the shape of an uninitialized parameter or buffer"):
            p.shape
        p.materialize((2, 3))
        assert type(p) is lib.nn.Parameter and tuple(p.shape) == (2, 3) and p.requires_grad
        b.materialize((4,), dtype=lib.float64)
        assert type(b) is lib.Tensor and b.dtype == lib.float64
        lazy = lib.nn.LazyLinear(2)
        assert lib.nn.parameter.is_lazy(lazy.weight) and isinstance(lazy, lib.nn.modules.lazy.LazyModuleMixin)


@pytest.mark.parity
def test_lazy_conv_input_errors_match_torch():
    torch = pytest.importorskip("torch")
    msgs = []
    for lib in (ember, torch):
        with pytest.raises(RuntimeError) as e:
            lib.nn.LazyConv2d(4, 3)(lib.ones(5, 5))
        msgs.append(str(e.value).replace("ember.Size", "torch.Size"))
        with pytest.raises(ValueError, match="in_channels must be divisible by groups"):
            lib.nn.LazyConv1d(4, 3, groups=2)(lib.ones(1, 3, 5))
    assert msgs[0] == msgs[1]


def test_lazy_module_trains_after_materializing():
    ember.manual_seed(0)
    m = ember.nn.Sequential(ember.nn.LazyLinear(4), ember.nn.ReLU(), ember.nn.LazyLinear(1))
    x = ember.randn(8, 3)
    m(x)
    opt = ember.optim.SGD(m.parameters(), lr=0.1)
    loss0 = None
    for _ in range(20):
        opt.zero_grad()
        loss = (m(x) ** 2).mean()
        loss.backward()
        opt.step()
        loss0 = loss0 if loss0 is not None else loss.item()
    assert loss.item() < loss0


_USES = {
    "add": lambda lib, w: w + 1,
    "linear": lambda lib, w: lib.nn.functional.linear(lib.ones(2, 4), w),
    "sum": lambda lib, w: w.sum(),
    "clone": lambda lib, w: w.clone(),
    "detach": lambda lib, w: w.detach(),
    "view": lambda lib, w: w.view(-1),
    "numel": lambda lib, w: w.numel(),
    "dim": lambda lib, w: w.dim(),
    "requires_grad_": lambda lib, w: w.requires_grad_(False),
    "init": lambda lib, w: lib.nn.init.zeros_(w),
}


@pytest.mark.parity
@pytest.mark.parametrize("use", sorted(_USES))
def test_using_an_uninitialized_parameter_raises_torchs_value_error(use):
    torch = pytest.importorskip("torch")
    msgs = []
    for lib in (ember, torch):
        w = lib.nn.LazyLinear(3).weight
        with pytest.raises(ValueError, match="Attempted to use an uninitialized parameter in ") as info:
            _USES[use](lib, w)
        msg = str(info.value)
        msgs.append(msg[msg.index(". This error"):])
    assert msgs[0] == msgs[1]
    buf = ember.nn.LazyBatchNorm1d().running_mean
    with pytest.raises(ValueError, match=r"torch\.nn\.parameter\.UninitializedBuffer"):
        buf * 2


@pytest.mark.parity
def test_uninitialized_parameter_allows_what_torch_allows():
    torch = pytest.importorskip("torch")
    out = []
    for lib in (ember, torch):
        m = lib.nn.LazyLinear(3).double()
        w = m.weight
        row = [type(w).__name__, str(w.dtype).split(".")[1], w.size() == lib.Size([0]), w.is_floating_point(),
               w.is_complex(), w.get_device(), type(w.data).__name__, w.requires_grad]
        for conv in (w.float(), w.double(), w.to(lib.float16), w.long(), w.cpu()):
            row.append((type(conv).__name__, str(conv.dtype).split(".")[1]))
        m(lib.ones(2, 4, dtype=lib.float64))
        w = m.weight
        row += [type(w).__name__, tuple(w.shape), str(w.dtype).split(".")[1], (w * 0).sum().item()]
        out.append(row)
    assert out[0] == out[1]
