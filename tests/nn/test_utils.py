import math

import numpy as np
import pytest

import ember
import ember.nn as nn
from ember.nn.utils import (clip_grad_norm_, clip_grad_value_, parameters_to_vector, vector_to_parameters)
from ember.nn.utils.rnn import pad_sequence
from conftest import arr


def make(lib, scale=1.0):
    ps = []
    for i, shape in enumerate([(3, 4), (5,), (2, 2, 2)]):
        p = lib.nn.Parameter(lib.tensor(arr(*shape, seed=i)))
        p.grad = lib.tensor(arr(*shape, seed=10 + i) * scale)
        ps.append(p)
    ps.append(lib.nn.Parameter(lib.tensor(arr(2, seed=9))))   # no grad
    return ps


@pytest.mark.parametrize("norm_type", [2.0, 1, 3.5, math.inf, 0, "inf"])
@pytest.mark.parametrize("max_norm", [0.5, 100.0])
def test_clip_grad_norm_matches_torch(torch, norm_type, max_norm):
    e, t = make(ember), make(torch)
    nt = float(norm_type) if norm_type == "inf" else norm_type
    te = clip_grad_norm_(e, max_norm, nt)
    tt = torch.nn.utils.clip_grad_norm_(t, max_norm, nt)
    assert te.dtype is ember.float32 and te.shape == ()
    np.testing.assert_allclose(te.item(), tt.item(), rtol=1e-5)
    for pe, pt in zip(e[:3], t[:3]):
        np.testing.assert_allclose(pe.grad.numpy(), pt.grad.numpy(), rtol=1e-5, atol=1e-7)


def test_clip_grad_norm_single_tensor_empty_and_nonfinite(torch):
    p = make(ember)[0]
    total = clip_grad_norm_(p, 1.0)
    np.testing.assert_allclose(total.item(), torch.nn.utils.clip_grad_norm_(make(torch)[0], 1.0).item(), rtol=1e-6)
    assert clip_grad_norm_([], 1.0).item() == 0.0
    bad = make(ember)
    bad[0].grad.numpy()[0, 0] = np.nan
    with pytest.raises(RuntimeError, match="The total norm of order 2.0 for gradients from `parameters` is non-finite"):
        clip_grad_norm_(bad, 1.0, error_if_nonfinite=True)
    assert math.isnan(clip_grad_norm_(bad, 1.0).item())


def test_clip_grad_value_matches_torch(torch):
    e, t = make(ember, 3.0), make(torch, 3.0)
    clip_grad_value_(e, 1.5)
    torch.nn.utils.clip_grad_value_(t, 1.5)
    for pe, pt in zip(e[:3], t[:3]):
        np.testing.assert_array_equal(pe.grad.numpy(), pt.grad.numpy())


def test_parameters_to_vector_and_back(torch):
    e, t = make(ember), make(torch)
    ve = parameters_to_vector(e)
    vt = torch.nn.utils.parameters_to_vector(t)
    np.testing.assert_array_equal(ve.numpy(force=True), vt.detach().numpy())
    new = ember.tensor(np.arange(ve.shape[0], dtype=np.float32))
    vector_to_parameters(new, e)
    assert e[0].tolist()[0] == [0.0, 1.0, 2.0, 3.0] and e[1].shape == (5,) and isinstance(e[1], nn.Parameter)
    new.numpy()[0] = 42.0                      # params view the vector's memory, like torch
    assert e[0].tolist()[0][0] == 42.0
    with pytest.raises(TypeError, match="expected torch.Tensor, but got: list"):
        vector_to_parameters([1.0], e)


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("side", ["right", "left"])
def test_pad_sequence_matches_torch(torch, batch_first, side):
    seqs = [arr(3, 2, seed=1), arr(5, 2, seed=2), arr(1, 2, seed=3)]
    e = pad_sequence([ember.tensor(s) for s in seqs], batch_first=batch_first, padding_value=-1.0, padding_side=side)
    t = torch.nn.utils.rnn.pad_sequence([torch.tensor(s) for s in seqs], batch_first=batch_first,
                                        padding_value=-1.0, padding_side=side)
    assert e.shape == tuple(t.shape) and e.dtype is ember.float32
    np.testing.assert_array_equal(e.numpy(), t.numpy())
    ei = pad_sequence([ember.tensor([1, 2]), ember.tensor([3])])
    assert ei.dtype is ember.int64 and ei.tolist() == [[1, 3], [2, 0]]
    with pytest.raises(ValueError, match="Expected padding_side to be one of left or right, but got middle."):
        pad_sequence([ember.tensor([1])], padding_side="middle")


# ---------------------------------------------------------------- fusion and skip_init
def _bn_state(lib, bn, seed):
    rng = np.random.default_rng(seed)
    n = bn.num_features
    with lib.no_grad():
        bn.running_mean.copy_(lib.tensor(rng.standard_normal(n), dtype=lib.float32))
        bn.running_var.copy_(lib.tensor(rng.uniform(0.5, 2.0, n), dtype=lib.float32))
        if bn.weight is not None:
            bn.weight.copy_(lib.tensor(rng.standard_normal(n), dtype=lib.float32))
            bn.bias.copy_(lib.tensor(rng.standard_normal(n), dtype=lib.float32))


@pytest.mark.parity
@pytest.mark.parametrize("kind", ["conv", "conv_nobias", "convT", "linear", "linear_bn1", "bn_noaffine"])
def test_fusion_matches_torch_and_the_unfused_layers(kind):
    torch = pytest.importorskip("torch")
    res = []
    for lib in (ember, torch):
        rng = np.random.default_rng(0)
        if kind.startswith("linear"):
            layer = lib.nn.Linear(4, 3)
            bn = lib.nn.BatchNorm1d(1 if kind == "linear_bn1" else 3)
            x = rng.standard_normal((5, 4))
        elif kind == "convT":
            layer, bn = lib.nn.ConvTranspose2d(2, 3, 2), lib.nn.BatchNorm2d(3)
            x = rng.standard_normal((1, 2, 4, 4))
        else:
            layer = lib.nn.Conv2d(2, 3, 3, bias=kind != "conv_nobias")
            bn = lib.nn.BatchNorm2d(3, affine=kind != "bn_noaffine")
            x = rng.standard_normal((1, 2, 5, 5))
        with lib.no_grad():
            layer.weight.copy_(lib.tensor(rng.standard_normal(tuple(layer.weight.shape)), dtype=lib.float32))
            if layer.bias is not None:
                layer.bias.copy_(lib.tensor(rng.standard_normal(tuple(layer.bias.shape)), dtype=lib.float32))
        _bn_state(lib, bn, 1)
        layer.eval()
        bn.eval()
        xin = lib.tensor(x, dtype=lib.float32)
        if kind.startswith("linear"):
            fused = lib.nn.utils.fusion.fuse_linear_bn_eval(layer, bn)
            lin = layer(xin)
            want = bn(lin.reshape(-1, 1)).reshape(lin.shape) if kind == "linear_bn1" else bn(lin)
        else:
            fused = lib.nn.utils.fuse_conv_bn_eval(layer, bn, transpose=kind == "convT")
            want = bn(layer(xin))
        got = fused(xin)
        assert isinstance(fused.weight, lib.nn.Parameter) and fused.weight.requires_grad
        assert fused is not layer
        res.append((got.detach().numpy(), want.detach().numpy(), fused.weight.detach().numpy(),
                    fused.bias.detach().numpy()))
    np.testing.assert_allclose(res[0][0], res[0][1], rtol=1e-4, atol=1e-5)
    for a, b in zip(res[0][2:], res[1][2:]):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6)


@pytest.mark.parity
def test_fusion_refuses_training_mode_as_torch():
    torch = pytest.importorskip("torch")
    for lib in (ember, torch):
        with pytest.raises(AssertionError, match="Fusion only for eval!"):
            lib.nn.utils.fusion.fuse_conv_bn_eval(lib.nn.Conv2d(1, 2, 1), lib.nn.BatchNorm2d(2))
        with pytest.raises(AssertionError, match="linear.out_features == bn.num_features"):
            lib.nn.utils.fusion.fuse_linear_bn_eval(lib.nn.Linear(2, 3).eval(), lib.nn.BatchNorm1d(2).eval())


@pytest.mark.parity
def test_skip_init_matches_torch():
    torch = pytest.importorskip("torch")
    for lib in (ember, torch):
        m = lib.nn.utils.skip_init(lib.nn.Linear, 3, 4, bias=False)
        assert m.weight.shape == (4, 3) and m.weight.device.type == "cpu" and m.bias is None
        m2 = lib.nn.utils.skip_init(lib.nn.Conv1d, 2, 2, 3, device="cpu", dtype=lib.float64)
        assert m2.weight.dtype == lib.float64 and m2.weight.device.type == "cpu"
        with pytest.raises(RuntimeError, match="Expected a Module; got"):
            lib.nn.utils.skip_init(int)
        with pytest.raises(RuntimeError, match="Module must support a 'device' arg to skip initialization"):
            lib.nn.utils.skip_init(lib.nn.ReLU)
