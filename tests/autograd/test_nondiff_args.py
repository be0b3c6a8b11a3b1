"""Inputs an op has no derivative for (loss weights, batch_norm's running stats) must not require grad:
torch's check_no_requires_grad raises instead of silently giving them no gradient."""
import numpy as np
import pytest

import ember

F = ember.nn.functional


def _cases(lib):
    rng = np.random.default_rng(0)
    x = lib.tensor(rng.standard_normal((4, 3)), requires_grad=True)
    t = lib.tensor([0, 2, 1, 1])
    w = lib.tensor(rng.random(3), requires_grad=True)
    p = lib.tensor(rng.random((4, 3)))
    F = lib.nn.functional
    return {
        "nll_loss weight": lambda: F.nll_loss(x, t, weight=w),
        "cross_entropy weight": lambda: F.cross_entropy(x, t, weight=w),
        "bce weight": lambda: F.binary_cross_entropy(x.sigmoid(), p, weight=w),
        "bce_with_logits weight": lambda: F.binary_cross_entropy_with_logits(x, p, weight=w),
        "bce_with_logits pos_weight": lambda: F.binary_cross_entropy_with_logits(x, p, pos_weight=w),
        "batch_norm running_mean": lambda: F.batch_norm(x, w, lib.ones(3, dtype=lib.float64), training=True),
    }


@pytest.mark.parametrize("case", list(_cases(ember)))
def test_refused_in_forward_and_allowed_under_no_grad(case):
    fn = _cases(ember)[case]
    with pytest.raises(RuntimeError, match="is not differentiable with respect to argument"):
        fn()
    with ember.no_grad():
        assert fn() is not None


@pytest.mark.parity
@pytest.mark.parametrize("case", list(_cases(ember)))
def test_same_message_as_torch(case):
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError) as theirs:
        _cases(torch)[case]()
    with pytest.raises(RuntimeError) as ours:
        _cases(ember)[case]()
    assert str(ours.value) == str(theirs.value)
