"""Mismatched loss inputs raise torch's exception type and message (through the F entry points)."""
import warnings

import numpy as np
import pytest

import ember
import ember.nn.functional as EF

R = np.random.default_rng(0)


def f(*s):
    return R.standard_normal(s).astype(np.float32)


CASES = [
    ("cross_entropy", (f(3, 4), R.random((3, 5)).astype(np.float32))),
    ("cross_entropy", (f(3, 4), np.array([[0, 1], [1, 2], [0, 0]]))),
    ("cross_entropy", (f(3, 4, 5), np.zeros((3, 4), np.int64))),
    ("cross_entropy", (f(3, 4), np.array([0, 1, 2.], np.float32))),
    ("cross_entropy", (f(3, 4), np.array([0, 1]))),
    ("nll_loss", (f(3, 4), np.array([0, 1, 2, 3]))),
    ("nll_loss", (f(2, 3, 4, 5), np.zeros((2, 4, 4), np.int64))),
    ("nll_loss", (f(2, 3, 4, 5, 6), np.zeros((2, 4, 5), np.int64))),
    ("mse_loss", (f(3, 4), f(3, 5))),
    ("l1_loss", (f(3, 4), f(2, 4))),
    ("smooth_l1_loss", (f(3, 4), f(2, 4))),
    ("huber_loss", (f(3, 4), f(2, 4))),
    ("kl_div", (f(3, 4), f(2, 4))),
    ("binary_cross_entropy", (R.random((3, 4)).astype(np.float32), R.random((3, 4)).astype(np.float32),
                              R.random(5).astype(np.float32))),
    ("binary_cross_entropy", (R.random(3).astype(np.float32), R.random((3, 1)).astype(np.float32))),
    ("binary_cross_entropy_with_logits", (f(3), f(4))),
    ("cosine_embedding_loss", (f(3, 4), f(3, 4), np.ones((3, 2), np.float32))),
    ("triplet_margin_loss", (f(3, 4), f(3, 4), f(4))),
]


@pytest.mark.parity
@pytest.mark.parametrize("name,args", CASES)
def test_loss_error_parity(name, args):
    torch = pytest.importorskip("torch")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(Exception) as te:
            getattr(torch.nn.functional, name)(*[torch.from_numpy(a.copy()) for a in args])
        with pytest.raises(type(te.value)) as ee:
            getattr(EF, name)(*[ember.from_numpy(a.copy()) for a in args])
    assert str(ee.value) == str(te.value)
