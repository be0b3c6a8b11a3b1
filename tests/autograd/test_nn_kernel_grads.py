"""Backward of the nn kernels (native/derivatives_nn.yaml): gradcheck in float64 and gradient parity
with torch for each op, plus a tiny CNN and a tiny transformer block trained side by side with torch."""
import numpy as np
import pytest

import ember
import ember.nn.functional as EF
from ember.autograd import gradcheck

torch = pytest.importorskip("torch")
import torch.nn.functional as TF  # noqa: E402


def R(*shape, seed=0, low=-1.0, high=1.0):
    return np.random.default_rng(seed).uniform(low, high, shape)


def P(*shape, seed=0):
    return R(*shape, seed=seed, low=0.1, high=0.9)


class C(np.ndarray):
    """A float input that stays constant (class weights, pos_weight)."""


def I(high, *shape, seed=0):
    return np.random.default_rng(seed).integers(0, high, shape)


# name -> (fn(F, *tensors), inputs); float arrays become differentiable float64 tensors, integer
# arrays stay constant (targets, indices).
CASES = {
    "conv1d": (lambda F, x, w, b: F.conv1d(x, w, b, stride=2, padding=1), [R(2, 3, 7), R(4, 3, 3, seed=1), R(4, seed=2)]),
    "conv2d": (lambda F, x, w, b: F.conv2d(x, w, b, padding=1), [R(2, 3, 5, 5), R(4, 3, 3, 3, seed=1), R(4, seed=2)]),
    "conv2d_stride_dil_groups": (lambda F, x, w: F.conv2d(x, w, None, stride=2, padding=2, dilation=2, groups=2),
                                 [R(1, 4, 7, 6), R(6, 2, 3, 2, seed=1)]),
    "conv_transpose2d": (lambda F, x, w, b: F.conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1),
                         [R(2, 3, 4, 3), R(3, 2, 3, 3, seed=1), R(2, seed=2)]),
    "conv3d": (lambda F, x, w: F.conv3d(x, w, padding=1), [R(1, 2, 3, 4, 3), R(2, 2, 2, 2, 2, seed=1)]),
    "softmax": (lambda F, x: F.softmax(x, dim=1), [R(3, 5)]),
    "softmax_dim0": (lambda F, x: F.softmax(x, dim=0) * F.softmax(x, dim=-1), [R(2, 3, 4)]),
    "log_softmax": (lambda F, x: F.log_softmax(x, dim=-1), [R(3, 5)]),
    "cross_entropy": (lambda F, x, t: F.cross_entropy(x, t), [R(4, 5), I(5, 4)]),
    "cross_entropy_sum_weight": (lambda F, x, t, w: F.cross_entropy(x, t, weight=w, reduction="sum"),
                                 [R(4, 5), I(5, 4), P(5, seed=3).view(C)]),
    "cross_entropy_ignore": (lambda F, x, t: F.cross_entropy(x, t, ignore_index=1), [R(6, 3), I(3, 6, seed=4)]),
    "cross_entropy_none": (lambda F, x, t: F.cross_entropy(x, t, reduction="none"), [R(4, 5), I(5, 4)]),
    "cross_entropy_2d": (lambda F, x, t: F.cross_entropy(x, t), [R(2, 3, 2, 4), I(3, 2, 2, 4)]),
    "cross_entropy_smoothing": (lambda F, x, t: F.cross_entropy(x, t, label_smoothing=0.1), [R(4, 5), I(5, 4)]),
    "nll_loss": (lambda F, x, t: F.nll_loss(x, t), [R(4, 5), I(5, 4)]),
    "nll_loss_1d_input": (lambda F, x, t: F.nll_loss(x, t, reduction="sum"), [R(5), np.array(2)]),
    "max_pool2d": (lambda F, x: F.max_pool2d(x, 2), [R(2, 3, 4, 6)]),
    "max_pool2d_pad_stride_ceil": (lambda F, x: F.max_pool2d(x, 3, stride=2, padding=1, ceil_mode=True),
                                   [R(1, 2, 6, 5)]),
    "max_pool2d_dilation": (lambda F, x: F.max_pool2d(x, 2, stride=1, dilation=2), [R(1, 2, 5, 5)]),
    "max_pool1d": (lambda F, x: F.max_pool1d(x, 3, stride=2, padding=1), [R(2, 3, 9)]),
    "adaptive_max_pool2d": (lambda F, x: F.adaptive_max_pool2d(x, (2, 3)), [R(2, 2, 5, 7)]),
    "avg_pool2d": (lambda F, x: F.avg_pool2d(x, 3, stride=2, padding=1, count_include_pad=False), [R(2, 3, 6, 5)]),
    "avg_pool1d": (lambda F, x: F.avg_pool1d(x, 2), [R(2, 3, 8)]),
    "adaptive_avg_pool2d": (lambda F, x: F.adaptive_avg_pool2d(x, (2, 3)), [R(2, 3, 5, 7)]),
    "adaptive_avg_pool1d": (lambda F, x: F.adaptive_avg_pool1d(x, 3), [R(2, 3, 7)]),
    "layer_norm": (lambda F, x, w, b: F.layer_norm(x, (4,), w, b), [R(3, 4), R(4, seed=1), R(4, seed=2)]),
    "layer_norm_2d_noaffine": (lambda F, x: F.layer_norm(x, (3, 4)), [R(2, 3, 4)]),
    "embedding": (lambda F, w, i: F.embedding(i, w), [R(6, 3), I(6, 2, 5)]),
    "embedding_padding_idx": (lambda F, w, i: F.embedding(i, w, padding_idx=0), [R(6, 3), I(6, 2, 5)]),
    "dropout_p0": (lambda F, x: F.dropout(x, 0.0, training=True), [R(3, 4)]),
    "dropout_eval": (lambda F, x: F.dropout(x, 0.5, training=False), [R(3, 4)]),
    "batch_norm_train": (lambda F, x, w, b: F.batch_norm(x, None, None, w, b, training=True),
                         [R(4, 3, 2, 2), R(3, seed=1), R(3, seed=2)]),
    "batch_norm_1d": (lambda F, x, w, b: F.batch_norm(x, None, None, w, b, training=True),
                      [R(5, 3), R(3, seed=1), R(3, seed=2)]),
    "group_norm": (lambda F, x, w, b: F.group_norm(x, 2, w, b), [R(2, 4, 3), R(4, seed=1), R(4, seed=2)]),
    "instance_norm": (lambda F, x: F.instance_norm(x), [R(2, 3, 4)]),
    "mse_loss": (lambda F, x, y: F.mse_loss(x, y), [R(3, 4), R(3, 4, seed=1)]),
    "mse_loss_none": (lambda F, x, y: F.mse_loss(x, y, reduction="none"), [R(3, 4), R(3, 4, seed=1)]),
    "l1_loss": (lambda F, x, y: F.l1_loss(x, y), [R(3, 4), R(3, 4, seed=1)]),
    "l1_loss_sum": (lambda F, x, y: F.l1_loss(x, y, reduction="sum"), [R(3, 4), R(3, 4, seed=1)]),
    "smooth_l1_loss": (lambda F, x, y: F.smooth_l1_loss(x, y, beta=0.5), [R(3, 4), R(3, 4, seed=1)]),
    "huber_loss": (lambda F, x, y: F.huber_loss(x, y, delta=0.3, reduction="none"), [R(3, 4), R(3, 4, seed=1)]),
    "soft_margin_loss": (lambda F, x, y: F.soft_margin_loss(x, y.detach().sign()), [R(3, 4), R(3, 4, seed=1)]),
    "kl_div": (lambda F, x, y: F.kl_div(x, y, reduction="batchmean"), [R(3, 4), P(3, 4, seed=1)]),
    "kl_div_log_target": (lambda F, x, y: F.kl_div(x, y, reduction="sum", log_target=True), [R(3, 4), R(3, 4, seed=1)]),
    "binary_cross_entropy": (lambda F, x, y: F.binary_cross_entropy(x, y), [P(3, 4), P(3, 4, seed=1)]),
    "binary_cross_entropy_weight": (lambda F, x, y, w: F.binary_cross_entropy(x, y, weight=w, reduction="sum"),
                                    [P(3, 4), P(3, 4, seed=1), P(4, seed=2).view(C)]),
    "bce_with_logits": (lambda F, x, y: F.binary_cross_entropy_with_logits(x, y), [R(3, 4), P(3, 4, seed=1)]),
    "bce_with_logits_pos_weight": (lambda F, x, y, pw: F.binary_cross_entropy_with_logits(
        x, y, pos_weight=pw, reduction="none"), [R(3, 4), P(3, 4, seed=1), P(4, seed=2).view(C)]),
    "pad_constant": (lambda F, x: F.pad(x, (1, 2, 0, 1), value=0.5), [R(2, 3, 4)]),
    "pad_negative": (lambda F, x: F.pad(x, (-1, 1)), [R(2, 5)]),
    "unfold": (lambda F, x: F.unfold(x, 2, padding=1, stride=2), [R(1, 2, 4, 5)]),
    "fold": (lambda F, x: F.fold(x, (4, 5), 2, padding=1, stride=2), [R(1, 8, 9)]),
    "pad_reflect_1d": (lambda F, x: F.pad(x, (2, 1), mode="reflect"), [R(2, 3, 5)]),
    "pad_reflect_2d": (lambda F, x: F.pad(x, (1, 2, 2, 1), mode="reflect"), [R(1, 2, 4, 5)]),
    "pad_reflect_3d": (lambda F, x: F.pad(x, (1, 1, 1, 0, 0, 1), mode="reflect"), [R(1, 1, 3, 3, 3)]),
    "pad_replicate_1d": (lambda F, x: F.pad(x, (2, 3), mode="replicate"), [R(2, 3, 4)]),
    "pad_replicate_2d": (lambda F, x: F.pad(x, (1, 2, 3, 0), mode="replicate"), [R(1, 2, 3, 4)]),
    "pad_replicate_3d": (lambda F, x: F.pad(x, (1, 0, 0, 1, 1, 1), mode="replicate"), [R(1, 1, 2, 3, 2)]),
    "pad_circular_2d": (lambda F, x: F.pad(x, (1, 2, 1, 0), mode="circular"), [R(1, 2, 3, 4)]),
    "upsample_nearest1d": (lambda F, x: F.interpolate(x, scale_factor=2, mode="nearest"), [R(2, 3, 4)]),
    "upsample_nearest2d": (lambda F, x: F.interpolate(x, size=(5, 3), mode="nearest"), [R(1, 2, 3, 4)]),
    "upsample_nearest_exact2d": (lambda F, x: F.interpolate(x, size=(5, 7), mode="nearest-exact"), [R(1, 2, 3, 4)]),
    "upsample_linear1d": (lambda F, x: F.interpolate(x, size=7, mode="linear"), [R(2, 3, 4)]),
    "upsample_linear1d_ac": (lambda F, x: F.interpolate(x, scale_factor=2, mode="linear", align_corners=True),
                             [R(2, 3, 4)]),
    "upsample_bilinear2d": (lambda F, x: F.interpolate(x, size=(5, 7), mode="bilinear"), [R(1, 2, 3, 4)]),
    "upsample_bilinear2d_down_ac": (lambda F, x: F.interpolate(x, size=(2, 3), mode="bilinear", align_corners=True),
                                    [R(1, 2, 5, 6)]),
    "upsample_bicubic2d": (lambda F, x: F.interpolate(x, size=(6, 5), mode="bicubic"), [R(1, 2, 3, 4)]),
    "sdpa": (lambda F, q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True),
             [R(1, 2, 3, 4), R(1, 2, 3, 4, seed=1), R(1, 2, 3, 4, seed=2)]),
}


def _inputs(arrays, lib):
    out = []
    for a in arrays:
        if np.issubdtype(np.asarray(a).dtype, np.integer):
            out.append(ember.tensor(a) if lib is ember else torch.tensor(a))
        else:
            const, a = isinstance(a, C), np.asarray(a)
            t = ember.tensor(a, dtype=ember.float64) if lib is ember else torch.tensor(a, dtype=torch.float64)
            out.append(t if const else t.requires_grad_())
    return out


def _grads(out, ins, lib):
    diff = [t for t in ins if t.requires_grad]
    g = out.detach() * 0 + 1 if out.dim() == 0 else lib.tensor(
        np.linspace(-1, 1, out.numel()).reshape(tuple(out.shape)), dtype=lib.float64)
    return lib.autograd.grad(out, diff, g, allow_unused=True)


# padding_idx's row gets no gradient by definition (torch's too), so finite differences disagree
NO_GRADCHECK = {"embedding_padding_idx"}


@pytest.mark.parametrize("name", sorted(set(CASES) - NO_GRADCHECK))
def test_gradcheck(name):
    fn, arrays = CASES[name]
    ins = _inputs(arrays, ember)
    assert gradcheck(lambda *xs: fn(EF, *xs), ins)


@pytest.mark.parametrize("name", sorted(CASES))
def test_parity(name):
    fn, arrays = CASES[name]
    e_ins, t_ins = _inputs(arrays, ember), _inputs(arrays, torch)
    e_out, t_out = fn(EF, *e_ins), fn(TF, *t_ins)
    np.testing.assert_allclose(e_out.detach().numpy(), t_out.detach().numpy(), rtol=1e-9, atol=1e-10)
    for ge, gt in zip(_grads(e_out, e_ins, ember), _grads(t_out, t_ins, torch)):
        if gt is None:
            assert ge is None or np.all(ge.numpy() == 0)
        else:
            np.testing.assert_allclose(ge.numpy(), gt.numpy(), rtol=1e-9, atol=1e-10)


def test_dropout_train_grad_is_mask_scaled():
    x = ember.tensor(R(50, 40), dtype=ember.float64, requires_grad=True)
    y = EF.dropout(x, 0.25, training=True)
    y.sum().backward()
    kept = y.detach().numpy() != 0
    np.testing.assert_allclose(x.grad.numpy(), kept / 0.75)


def test_batch_norm_running_stats_eval_and_train():
    x = R(6, 3, 2)
    for training in (True, False):
        ex = ember.tensor(x, dtype=ember.float64, requires_grad=True)
        tx = torch.tensor(x, dtype=torch.float64, requires_grad=True)
        erm, erv = ember.tensor(P(3), dtype=ember.float64), ember.tensor(P(3, seed=1) + 0.5, dtype=ember.float64)
        trm, trv = torch.tensor(P(3), dtype=torch.float64), torch.tensor(P(3, seed=1) + 0.5, dtype=torch.float64)
        ew = ember.tensor(R(3, seed=2), dtype=ember.float64, requires_grad=True)
        tw = torch.tensor(R(3, seed=2), dtype=torch.float64, requires_grad=True)
        eo = EF.batch_norm(ex, erm, erv, ew, None, training=training)
        to = TF.batch_norm(tx, trm, trv, tw, None, training=training)
        (eo * eo).sum().backward()
        (to * to).sum().backward()
        np.testing.assert_allclose(ex.grad.numpy(), tx.grad.numpy(), rtol=1e-9, atol=1e-10)
        np.testing.assert_allclose(ew.grad.numpy(), tw.grad.numpy(), rtol=1e-9, atol=1e-10)
        np.testing.assert_allclose(erm.numpy(), trm.numpy(), rtol=1e-12)


def test_soft_margin_target_grad_not_implemented():
    x = ember.tensor(R(3), dtype=ember.float64, requires_grad=True)
    y = ember.tensor(R(3, seed=1), dtype=ember.float64, requires_grad=True)
    with pytest.raises(RuntimeError, match="not implemented"):
        EF.soft_margin_loss(x, y).backward()


# ---- end to end: same weights, same gradients as torch ----------------------------------------

def _copy_params(emod, tmod):
    tparams = dict(tmod.named_parameters())
    for n, p in emod.named_parameters():
        tparams[n].data = torch.tensor(p.detach().numpy())
    return tparams


def _compare_grads(emod, tparams, rtol=1e-4, atol=1e-5):
    names = []
    for n, p in emod.named_parameters():
        assert p.grad is not None, n
        np.testing.assert_allclose(p.grad.numpy(), tparams[n].grad.numpy(), rtol=rtol, atol=atol, err_msg=n)
        names.append(n)
    return names


def test_tiny_cnn_matches_torch():
    ember.manual_seed(0)

    def build(nn):
        return nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2),
                             nn.Conv2d(4, 6, 3), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(), nn.Linear(6, 3))
    em, tm = build(ember.nn), build(torch.nn)
    tparams = _copy_params(em, tm)
    x = R(5, 1, 8, 8, seed=7).astype(np.float32)
    t = I(3, 5, seed=8)
    el = EF.cross_entropy(em(ember.tensor(x)), ember.tensor(t))
    tl = TF.cross_entropy(tm(torch.tensor(x)), torch.tensor(t))
    np.testing.assert_allclose(el.item(), tl.item(), rtol=1e-5)
    el.backward()
    tl.backward()
    assert len(_compare_grads(em, tparams)) == 8


def _block(nn, F, d=8, heads=2, vocab=11):
    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(vocab, d)
            self.ln1 = nn.LayerNorm(d)
            self.qkv = nn.Linear(d, 3 * d)
            self.proj = nn.Linear(d, d)
            self.drop = nn.Dropout(0.0)
            self.ln2 = nn.LayerNorm(d)
            self.fc = nn.Linear(d, 2 * d)
            self.out = nn.Linear(d, vocab)

        def forward(self, idx):
            b, t = idx.shape
            x = self.emb(idx)
            q, k, v = self.qkv(self.ln1(x)).split(d, dim=2)
            q, k, v = (z.reshape(b, t, heads, d // heads).transpose(1, 2) for z in (q, k, v))
            a = F.scaled_dot_product_attention(q, k, v, is_causal=True).transpose(1, 2).reshape(b, t, d)
            x = x + self.drop(self.proj(a))
            h = self.fc(self.ln2(x))
            x = x + F.gelu(h[..., :d]) * h[..., d:]
            logits = self.out(x)
            return F.cross_entropy(logits.reshape(b * t, vocab), idx.reshape(-1))
    return Block()


def test_tiny_transformer_block_matches_torch():
    ember.manual_seed(0)
    em, tm = _block(ember.nn, EF), _block(torch.nn, TF)
    tparams = _copy_params(em, tm)
    idx = I(11, 2, 5, seed=3)
    el, tl = em(ember.tensor(idx)), tm(torch.tensor(idx))
    np.testing.assert_allclose(el.item(), tl.item(), rtol=1e-5)
    el.backward()
    tl.backward()
    assert len(_compare_grads(em, tparams)) == 13
