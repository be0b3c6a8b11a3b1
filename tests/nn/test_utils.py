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
