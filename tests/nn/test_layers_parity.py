"""Every layer vs torch: constructor arguments, repr, state_dict keys/shapes, forward given the same weights,
and backward (input and parameter grads) where ember has the derivative formulas."""
import numpy as np
import pytest

import ember
import ember.nn as nn
from conftest import arr
from _parity import copy_state, to_torch, backward_or_skip

# (class name, args, kwargs, input shapes, integer-input high or None)
CASES = [
    ("Conv1d", (3, 4, 3), {}, [(2, 3, 10)], None),
    ("Conv1d", (4, 6, 3), dict(stride=2, padding=1, dilation=2, groups=2, bias=False), [(2, 4, 11)], None),
    ("Conv2d", (3, 5, 3), dict(padding=1), [(2, 3, 7, 6)], None),
    ("Conv2d", (3, 4, (3, 2)), dict(stride=(2, 1), padding="same" if False else 0), [(1, 3, 8, 7)], None),
    ("Conv2d", (3, 4, 3), dict(padding="same", dilation=2), [(1, 3, 8, 7)], None),
    ("Conv2d", (2, 4, 3), dict(padding=2, padding_mode="reflect"), [(1, 2, 6, 6)], None),
    ("Conv2d", (2, 4, 3), dict(padding=1, padding_mode="circular"), [(1, 2, 5, 6)], None),
    ("Conv2d", (3, 5, 3), {}, [(3, 7, 6)], None),
    ("Conv3d", (2, 3, 2), dict(stride=1, padding=1), [(1, 2, 4, 5, 3)], None),
    ("ConvTranspose1d", (3, 4, 3), dict(stride=2, padding=1, output_padding=1), [(2, 3, 6)], None),
    ("ConvTranspose2d", (4, 6, 3), dict(stride=2, groups=2, dilation=1), [(2, 4, 5, 4)], None),
    ("MaxPool1d", (3,), dict(stride=2, padding=1), [(2, 3, 10)], None),
    ("MaxPool2d", (2,), {}, [(2, 3, 8, 6)], None),
    ("MaxPool2d", (3,), dict(stride=2, padding=1, dilation=1, ceil_mode=True), [(1, 2, 9, 7)], None),
    ("AvgPool1d", (3,), dict(stride=2), [(2, 3, 10)], None),
    ("AvgPool2d", (3,), dict(stride=2, padding=1, count_include_pad=False), [(2, 3, 8, 7)], None),
    ("AdaptiveAvgPool1d", (4,), {}, [(2, 3, 10)], None),
    ("AdaptiveAvgPool2d", ((3, None),), {}, [(2, 3, 8, 7)], None),
    ("AdaptiveMaxPool1d", (4,), {}, [(2, 3, 10)], None),
    ("AdaptiveMaxPool2d", (3,), {}, [(2, 3, 8, 7)], None),
    ("LayerNorm", ((4, 5),), {}, [(2, 3, 4, 5)], None),
    ("LayerNorm", (5,), dict(elementwise_affine=False, eps=1e-3), [(3, 5)], None),
    ("LayerNorm", (5,), dict(bias=False), [(3, 5)], None),
    ("GroupNorm", (2, 6), {}, [(2, 6, 4, 3)], None),
    ("RMSNorm", (5,), {}, [(3, 4, 5)], None),
    ("RMSNorm", ([4, 5],), dict(eps=1e-3), [(3, 4, 5)], None),
    ("InstanceNorm1d", (3,), dict(affine=True), [(2, 3, 10)], None),
    ("InstanceNorm2d", (3,), {}, [(2, 3, 5, 4)], None),
    ("InstanceNorm2d", (3,), dict(affine=True, track_running_stats=True), [(2, 3, 5, 4)], None),
    ("LocalResponseNorm", (3,), {}, [(2, 6, 4, 4)], None),
    ("Embedding", (10, 4), dict(padding_idx=2), [(3, 5)], 10),
    ("EmbeddingBag", (10, 4), dict(mode="sum"), [(3, 5)], 10),
    ("EmbeddingBag", (10, 4), dict(mode="max"), [(3, 5)], 10),
    ("Bilinear", (3, 4, 5), {}, [(6, 3), (6, 4)], None),
    ("Linear", (4, 3), {}, [(2, 4)], None),
    ("Upsample", (), dict(scale_factor=2, mode="nearest"), [(1, 2, 3, 4)], None),
    ("Upsample", (), dict(size=(5, 7), mode="bilinear", align_corners=False), [(1, 2, 3, 4)], None),
    ("UpsamplingBilinear2d", (), dict(scale_factor=2), [(1, 2, 3, 4)], None),
    ("PixelShuffle", (2,), {}, [(1, 8, 3, 3)], None),
    ("PixelUnshuffle", (2,), {}, [(1, 2, 4, 6)], None),
    ("Unfold", (2,), dict(padding=1), [(1, 2, 4, 4)], None),
    ("Fold", ((4, 5), 2), {}, [(1, 8, 12)], None),
    ("ZeroPad2d", ((1, 2, 0, 1),), {}, [(1, 2, 3, 3)], None),
    ("ConstantPad1d", (2, 3.5), {}, [(1, 2, 3)], None),
    ("ReflectionPad2d", (1,), {}, [(1, 2, 3, 3)], None),
    ("ReplicationPad1d", ((2, 1),), {}, [(1, 2, 3)], None),
    ("CircularPad2d", (1,), {}, [(1, 2, 3, 3)], None),
    ("CosineSimilarity", (), dict(dim=1), [(3, 5), (3, 5)], None),
    ("PairwiseDistance", (), {}, [(3, 5), (3, 5)], None),
    ("Flatten", (), {}, [(2, 3, 4)], None),
    ("Identity", (), {}, [(2, 3)], None),
]

ACTIVATIONS = [
    ("GELU", (), {}), ("GELU", (), dict(approximate="tanh")), ("SiLU", (), {}), ("Mish", (), {}),
    ("Softplus", (), dict(beta=2.0, threshold=5.0)), ("ELU", (), dict(alpha=0.5)), ("SELU", (), {}),
    ("CELU", (), dict(alpha=1.5)), ("LeakyReLU", (0.2,), {}), ("Hardtanh", (-2.0, 1.5), {}), ("ReLU6", (), {}),
    ("Hardsigmoid", (), {}), ("Hardswish", (), {}), ("LogSigmoid", (), {}), ("Softsign", (), {}),
    ("Tanhshrink", (), {}), ("Softshrink", (0.3,), {}), ("Hardshrink", (), {}), ("Threshold", (0.1, 20.0), {}),
    ("GLU", (), {}), ("GLU", (0,), {}), ("PReLU", (), {}), ("PReLU", (4,), dict(init=0.1)), ("RReLU", (), {}),
    ("Softmax", (1,), {}), ("LogSoftmax", (-1,), {}), ("Softmin", (1,), {}), ("ReLU", (), {}), ("Sigmoid", (), {}),
    ("Tanh", (), {}), ("Softmax2d", (), {}),
]


def _inputs(shapes, high, seed=0):
    if high is not None:
        return [np.random.default_rng(seed + i).integers(0, high, s) for i, s in enumerate(shapes)]
    return [arr(*s, seed=seed + i) for i, s in enumerate(shapes)]


def _compare(torch, name, args, kwargs, shapes, high, eval_mode=False, rtol=1e-4, atol=1e-5, backward=False):
    ember.manual_seed(0)
    e = getattr(nn, name)(*args, **kwargs)
    t = getattr(torch.nn, name)(*args, **kwargs)
    assert repr(e) == repr(t)
    esd, tsd = e.state_dict(), t.state_dict()
    assert list(esd) == list(tsd)
    for k in esd:
        assert tuple(esd[k].shape) == tuple(tsd[k].shape), k
        assert str(esd[k].dtype).split(".")[-1] == str(tsd[k].dtype).split(".")[-1], k
    copy_state(e, t, torch)
    if eval_mode:
        e.eval()
        t.eval()
    xs = _inputs(shapes, high)
    ex = [ember.tensor(x, requires_grad=high is None) for x in xs]
    tx = [torch.tensor(x, requires_grad=high is None) for x in xs]
    ye, yt = e(*ex), t(*tx)
    if isinstance(yt, tuple):
        ye, yt = ye[0], yt[0]
    assert tuple(ye.shape) == tuple(yt.shape)
    assert str(ye.dtype).split(".")[-1] == str(yt.dtype).split(".")[-1]
    np.testing.assert_allclose(ye.numpy(force=True), yt.detach().numpy(), rtol=rtol, atol=atol)
    # backward parity where formulas exist
    if not backward or not ye.requires_grad:
        return
    g = arr(*yt.shape, seed=7)
    backward_or_skip(pytest, lambda: ye.backward(ember.tensor(g)))
    yt.backward(torch.tensor(g))
    for a, b in zip(ex, tx):
        if b.grad is not None:
            np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-4, atol=1e-4)
    tp = dict(t.named_parameters())
    for n, p in e.named_parameters():
        if tp[n].grad is not None:
            np.testing.assert_allclose(p.grad.numpy(), tp[n].grad.numpy(), rtol=1e-4, atol=1e-4, err_msg=n)


@pytest.mark.parity
@pytest.mark.parametrize("case", CASES, ids=lambda c: c[0] + "-" + str(len(c[2])))
def test_layer_matches_torch(torch, case):
    _compare(torch, *case)


@pytest.mark.parity
@pytest.mark.parametrize("case", CASES, ids=lambda c: c[0] + "-" + str(len(c[2])))
def test_layer_backward_matches_torch(torch, case):
    _compare(torch, *case, backward=True)


@pytest.mark.parity
@pytest.mark.parametrize("case", ACTIVATIONS, ids=lambda c: c[0] + str(c[1]))
def test_activation_matches_torch(torch, case):
    name, args, kwargs = case
    shape = (2, 4, 3, 2) if name in ("Softmax2d", "PReLU") else (4, 6)
    _compare(torch, name, args, kwargs, [shape], None, eval_mode=True, backward=True)
