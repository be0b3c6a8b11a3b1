import copy

import numpy as np
import pytest

import ember
import ember.nn as nn


def test_parameter_shares_storage_and_requires_grad():
    t = ember.tensor([1.0, 2.0])
    p = nn.Parameter(t)
    assert type(p) is nn.Parameter and isinstance(p, ember.Tensor)
    assert p.requires_grad and not t.requires_grad and p._is_param
    p.numpy(force=True)[0] = 7.0
    assert t.tolist() == [7.0, 2.0]
    assert p.untyped_storage() is t.untyped_storage()
    assert nn.Parameter(t, requires_grad=False).requires_grad is False


def test_parameter_default_and_repr(torch):
    assert repr(nn.Parameter()) == repr(torch.nn.Parameter()).replace("torch", "ember")
    e = nn.Parameter(ember.tensor([[1.0, 2.0], [3.0, 4.0]]))
    t = torch.nn.Parameter(torch.tensor([[1.0, 2.0], [3.0, 4.0]]))
    assert repr(e) == repr(t)
    assert repr(e).startswith("Parameter containing:\ntensor(")


def test_parameter_isinstance_via_flag():
    t = ember.tensor([1.0])
    assert not isinstance(t, nn.Parameter)
    t._is_param = True
    assert isinstance(t, nn.Parameter)


def test_parameter_deepcopy_is_independent():
    p = nn.Parameter(ember.tensor([1.0, 2.0]))
    q = copy.deepcopy(p)
    assert type(q) is nn.Parameter and q.requires_grad
    q.numpy(force=True)[0] = 5
    assert p.tolist() == [1.0, 2.0]
    memo = {}
    assert copy.deepcopy(p, memo) is copy.deepcopy(p, memo)


def test_parameter_rejects_non_tensor():
    with pytest.raises(TypeError):
        nn.Parameter([1.0, 2.0])


def test_buffer():
    t = ember.tensor([1.0, 2.0])
    b = nn.Buffer(t, persistent=False)
    assert isinstance(b, nn.Buffer) and b.persistent is False
    assert not isinstance(t, nn.Buffer)
    m = nn.Module()
    m.buf = b
    assert "buf" in m._buffers and "buf" in m._non_persistent_buffers_set
    m.buf2 = nn.Buffer(t)
    assert set(m.state_dict()) == {"buf2"}
