"""Gradients of the nn ops (nn_ops.yaml) through ember.nn.functional: gradcheck (first order) and
parity with torch."""
import numpy as np
import pytest

import ember
import ember.nn.functional as F
from ember.autograd import gradcheck

torch = pytest.importorskip("torch")
import torch.nn.functional as TF  # noqa: E402


def r(*shape, seed=0, low=-1.0, high=1.0):
    return np.random.default_rng(seed + sum(shape)).uniform(low, high, shape)


CASES = {
    "conv2d": (lambda m, x, w, b: m.conv2d(x, w, b, stride=1, padding=1), [r(1, 2, 4, 4), r(3, 2, 3, 3, seed=1), r(3, seed=2)]),
    "conv1d_groups": (lambda m, x, w: m.conv1d(x, w, groups=2, stride=2), [r(2, 4, 7), r(4, 2, 3, seed=1)]),
    "softmax": (lambda m, x: m.softmax(x, 1), [r(2, 5)]),
    "log_softmax": (lambda m, x: m.log_softmax(x, -1), [r(3, 4)]),
    "avg_pool2d": (lambda m, x: m.avg_pool2d(x, 2), [r(1, 2, 4, 4)]),
    "adaptive_avg_pool2d": (lambda m, x: m.adaptive_avg_pool2d(x, (2, 3)), [r(1, 2, 5, 6)]),
    "max_pool2d": (lambda m, x: m.max_pool2d(x, 2), [r(1, 2, 4, 4)]),
    "embedding": (lambda m, w: m.embedding(m.tensor([[0, 2], [3, 2]]), w), [r(4, 3)]),
    "mse_loss": (lambda m, x, y: m.mse_loss(x, y), [r(3, 4), r(3, 4, seed=1)]),
    "layer_norm": (lambda m, x, w, b: m.layer_norm(x, (4,), w, b), [r(3, 4), r(4, seed=1), r(4, seed=2)]),
    "batch_norm_train": (lambda m, x, w, b: m.batch_norm(x, None, None, w, b, training=True), [r(4, 3), r(3, seed=1), r(3, seed=2)]),
    "cross_entropy": (lambda m, x: m.cross_entropy(x, m.tensor([1, 0, 3])), [r(3, 4)]),
    "nll_loss_2d": (lambda m, x: m.nll_loss(x, m.tensor([[[1, 0], [2, 1]]])), [r(1, 3, 2, 2)]),
    "l1_loss": (lambda m, x, y: m.l1_loss(x, y), [r(3, 4), r(3, 4, seed=1)]),
    "smooth_l1_loss": (lambda m, x, y: m.smooth_l1_loss(x, y, beta=0.5), [r(3, 4), r(3, 4, seed=1)]),
    "huber_loss": (lambda m, x, y: m.huber_loss(x, y, delta=0.5, reduction="sum"), [r(3, 4), r(3, 4, seed=1)]),
    "soft_margin_loss": (lambda m, x: m.soft_margin_loss(x, m.tensor([1.0, -1.0, 1.0], dtype=m.float64)), [r(3)]),
    "binary_cross_entropy": (lambda m, x: m.binary_cross_entropy(x, m.tensor([1.0, 0.0, 0.3], dtype=m.float64)),
                             [r(3, low=0.1, high=0.9)]),
    "bce_with_logits": (lambda m, x: m.binary_cross_entropy_with_logits(
        x, m.tensor([1.0, 0.0, 0.3], dtype=m.float64), pos_weight=m.tensor([2.0, 1.0, 0.5], dtype=m.float64)), [r(3)]),
    "kl_div": (lambda m, x: m.kl_div(x, m.tensor([0.2, 0.3, 0.5], dtype=m.float64), reduction="batchmean"), [r(3)]),
    "dropout_eval": (lambda m, x: m.dropout(x, 0.5, training=False), [r(4)]),
}


def _mods():
    class E:
        def __getattr__(self, n):
            return getattr(F, n) if hasattr(F, n) else getattr(ember, n)

    class T:
        def __getattr__(self, n):
            return getattr(TF, n) if hasattr(TF, n) else getattr(torch, n)
    return E(), T()


@pytest.mark.parity
@pytest.mark.parametrize("name", sorted(CASES))
def test_nn_grad(name):
    fn, arrays = CASES[name]
    em, tm = _mods()
    ins = [ember.tensor(a.tolist(), dtype=ember.float64, requires_grad=True) for a in arrays]
    tins = [torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in arrays]
    assert gradcheck(lambda *xs: fn(em, *xs), ins, atol=1e-6, rtol=1e-4)
    out, tout = fn(em, *ins), fn(tm, *tins)
    np.testing.assert_allclose(out.detach().numpy(), tout.detach().numpy(), rtol=1e-10, atol=1e-12)
    go = np.random.default_rng(5).standard_normal(tuple(out.shape))
    gs = ember.autograd.grad(out, ins, ember.tensor(go.tolist(), dtype=ember.float64) if go.ndim else
                             ember.tensor(float(go), dtype=ember.float64))
    tgs = torch.autograd.grad(tout, tins, torch.tensor(go))
    for g, tg in zip(gs, tgs):
        np.testing.assert_allclose(g.numpy(), tg.numpy(), rtol=1e-9, atol=1e-11)
