"""inference_mode: tensors made under it are inference tensors and refuse autograd later (torch's rules)."""
import pytest

import ember

ERR_SAVE = "Inference tensors cannot be saved for backward"
ERR_INPLACE = "Inplace update to inference tensor outside InferenceMode is not allowed"


def _inf():
    with ember.inference_mode():
        assert ember.is_inference_mode_enabled() and not ember.is_grad_enabled()
        return ember.ones(3) * 2


def test_tensors_made_inside_are_inference_tensors():
    x = ember.ones(3, requires_grad=True)
    with ember.inference_mode():
        y = x * 2
        z = ember.tensor([1.0, 2.0])
        v = y[1:]
    assert y.is_inference() and z.is_inference() and v.is_inference()
    assert not y.requires_grad and y.grad_fn is None
    assert not x.is_inference() and not (x * 2).is_inference()
    assert y.detach().is_inference() and not y.clone().is_inference()
    assert not ember.is_inference_mode_enabled() and ember.is_grad_enabled()


def test_saving_an_inference_tensor_for_backward_raises():
    y = _inf()
    x = ember.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match=ERR_SAVE):
        y * x
    with pytest.raises(RuntimeError, match=ERR_SAVE):
        x.mul(y)
    s = y + x                  # add saves nothing: allowed, as in torch
    s.sum().backward()
    assert x.grad.tolist() == [1.0, 1.0, 1.0]
    c = y.clone() * x          # the documented workaround
    assert c.requires_grad


def test_inplace_on_inference_tensor_outside_raises_and_leaves_it_unchanged():
    y = _inf()
    with pytest.raises(RuntimeError, match=ERR_INPLACE):
        y.add_(1)
    with pytest.raises(RuntimeError, match=ERR_INPLACE):
        with ember.no_grad():
            y.mul_(ember.ones(3))
    with pytest.raises(RuntimeError, match=ERR_INPLACE):
        y[0].zero_()
    with pytest.raises(RuntimeError, match=ERR_INPLACE):
        ember.add(ember.ones(3), 1, out=y)
    assert y.tolist() == [2.0, 2.0, 2.0]
    with ember.inference_mode():
        y.add_(1)
        y[0].mul_(2)
    assert y.tolist() == [6.0, 3.0, 3.0]


def test_requires_grad_and_version_of_inference_tensor():
    y = _inf()
    with pytest.raises(RuntimeError, match="Setting requires_grad=True on inference tensor outside InferenceMode"):
        y.requires_grad_()
    with pytest.raises(RuntimeError, match="Inference tensors do not track version counter"):
        y._version


def test_inference_mode_false_and_decorator():
    with ember.inference_mode():
        with ember.inference_mode(False):
            assert not ember.is_inference_mode_enabled()
            t = ember.ones(2)
        assert ember.is_inference_mode_enabled()
    assert not t.is_inference()

    @ember.inference_mode()
    def f(a):
        return a * 2
    r = f(ember.ones(2, requires_grad=True))
    assert r.is_inference() and not r.requires_grad


def test_normal_tensors_can_be_modified_inside_inference_mode():
    x = ember.ones(3)
    with ember.inference_mode():
        x.add_(1)
    assert x._version == 1 and not x.is_inference()
