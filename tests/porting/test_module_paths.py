"""Public classes and functions importable from torch's module paths (scripts import from the file
torch defines a class in, e.g. torch.nn.modules.activation.MultiheadAttention)."""
import importlib

import pytest
from _porting import torch_fixture  # noqa: F401  (the `torch` fixture)

PATHS = [
    ("nn.modules.activation", "MultiheadAttention"), ("nn.modules.activation", "ReLU"),
    ("nn.modules.padding", "ReflectionPad2d"), ("nn.modules.padding", "ZeroPad2d"),
    ("nn.modules.padding", "ConstantPad3d"), ("nn.modules.pixelshuffle", "PixelShuffle"),
    ("nn.modules.fold", "Unfold"), ("nn.modules.distance", "CosineSimilarity"),
    ("nn.modules.instancenorm", "InstanceNorm2d"), ("nn.modules.instancenorm", "InstanceNorm3d"),
    ("nn.modules.upsampling", "Upsample"), ("nn.modules.normalization", "LayerNorm"),
    ("nn.modules.linear", "Linear"), ("nn.modules.conv", "Conv2d"), ("nn.modules.loss", "CrossEntropyLoss"),
    ("nn.modules.module", "Module"), ("nn.modules.container", "Sequential"), ("nn.modules.batchnorm", "BatchNorm2d"),
    ("nn.modules.transformer", "TransformerEncoderLayer"), ("nn.modules.rnn", "LSTM"), ("nn.parameter", "Parameter"),
    ("utils._python_dispatch", "TorchDispatchMode"), ("amp", "GradScaler"), ("amp", "autocast"),
    ("amp.grad_scaler", "GradScaler"), ("amp.autocast_mode", "autocast"), ("cuda.amp", "GradScaler"),
    ("backends.cudnn", "is_available"), ("jit", "ignore"), ("onnx", "export"),
]


@pytest.mark.parametrize("path,name", PATHS)
def test_torch_path_exists_in_ember(path, name):
    obj = getattr(importlib.import_module("ember." + path), name)
    short = getattr(importlib.import_module("ember." + path.rsplit(".", 1)[0]) if "." in path else None, name, None)
    if path.startswith("nn.modules."):
        assert obj is getattr(importlib.import_module("ember.nn"), name)     # the same class as ember.nn.X
    assert short is None or short is obj


@pytest.mark.parity
@pytest.mark.parametrize("path,name", PATHS)
def test_torch_has_the_same_path(torch, path, name):
    assert hasattr(importlib.import_module("torch." + path), name)


@pytest.mark.parity
@pytest.mark.parametrize("name", ["ReflectionPad3d", "ReplicationPad3d", "CircularPad3d", "ZeroPad3d"])
def test_3d_padding_layers_match_torch(torch, name):
    import numpy as np
    import ember
    x = np.random.default_rng(0).standard_normal((2, 3, 4, 5, 6)).astype(np.float32)
    got = getattr(ember.nn, name)((1, 2, 0, 1, 2, 1))(ember.tensor(x)).numpy()
    want = getattr(torch.nn, name)((1, 2, 0, 1, 2, 1))(torch.tensor(x)).numpy()
    np.testing.assert_array_equal(got, want)
    assert repr(getattr(ember.nn, name)(1)) == repr(getattr(torch.nn, name)(1))


@pytest.mark.parity
def test_instancenorm3d_matches_torch(torch):
    import numpy as np
    import ember
    x = np.random.default_rng(1).standard_normal((2, 3, 4, 5, 6)).astype(np.float32)
    m, tm = ember.nn.InstanceNorm3d(3, affine=True), torch.nn.InstanceNorm3d(3, affine=True)
    np.testing.assert_allclose(m(ember.tensor(x)).detach().numpy(), tm(torch.tensor(x)).detach().numpy(),
                               rtol=1e-5, atol=1e-5)
    assert repr(m) == repr(tm)
    with pytest.raises(ValueError, match="expected 4D or 5D input"):
        m(ember.ones(2, 3, 4))


@pytest.mark.parity
def test_functional_helpers_boolean_dispatch_and_assert_int_or_pair_match_torch():
    import ember
    torch = pytest.importorskip("torch")
    got = []
    for L in (torch, ember):
        F = L.nn.functional

        def yes(x, flag=False):
            """doc"""
            return ("yes", x)

        def no(x, flag=False):
            return ("no", x)
        fn = F.boolean_dispatch("flag", 1, False, yes, no, "mod", "picked")
        row = [fn(1), fn(1, True), fn(1, flag=True), fn.__doc__, fn.__name__, fn.__module__, no.__doc__,
               F.Tensor is L.Tensor, F.torch is L, L.fft.Tensor is L.Tensor]
        try:
            F.boolean_dispatch("flag", 1, False, yes, yes, None, None)     # two docstrings
        except RuntimeError as e:
            row.append(str(e))
        F.assert_int_or_pair(3, "k", "{} bad")
        F.assert_int_or_pair((1, 2), "k", "{} bad")
        try:
            F.assert_int_or_pair((1, 2, 3), "kernel", "{} must be int or pair")
        except AssertionError as e:
            row.append(str(e))
        got.append(row)
    assert got[0] == got[1]


@pytest.mark.parity
def test_utils_set_module_matches_torch():
    import ember
    torch = pytest.importorskip("torch")
    got = []
    for L in (torch, ember):
        def f():
            pass
        L.utils.set_module(f, "somewhere.else")
        try:
            L.utils.set_module(f, 3)
            err = None
        except TypeError as e:
            err = str(e)
        got.append((f.__module__, err))
    assert got[0] == got[1]
