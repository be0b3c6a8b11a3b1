"""Gradients of the nn ops (nn_ops.yaml) through ember.nn.functional: gradcheck (first order) and
parity with torch."""
import numpy as np
import pytest
import ember
import ember.nn.functional as F
from ember.autograd import gradcheck
import torch.nn.functional as TF  # noqa: E402
from ember.autograd import gradgradcheck


torch = pytest.importorskip("torch")


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


def r_sampled(*shape, seed=0, low=-1.0, high=1.0):
    return np.random.default_rng(seed + 7 * sum(shape)).uniform(low, high, shape)


def _grid(n, h, w, seed, span=1.2):
    """A sampling grid away from the integer lattice (where bilinear weights have kinks)."""
    return r_sampled(n, h, w, 2, seed=seed, low=-span, high=span)


def _unpool_indices(m):
    """Indices of a 2x2 max pool over a 5x4 plane (distinct positions), for max_unpool2d."""
    x = m.tensor(r_sampled(2, 3, 4, 4, seed=9).tolist(), dtype=m.float64)
    return m.nn.functional.max_pool2d(x, 2, return_indices=True)[1]


GRID = {f"grid_{mode}_{pad}_{'ac' if ac else 'nac'}": (
    (lambda m, x, g, mode=mode, pad=pad, ac=ac: m.nn.functional.grid_sample(x, g, mode, pad, ac)),
    [r_sampled(2, 2, 4, 5, seed=1), _grid(2, 3, 2, seed=2 + i)])
    for i, (mode, pad, ac) in enumerate([(m, p, a) for m in ("bilinear", "bicubic") for p in ("zeros", "border",
                                                                                              "reflection")
                                         for a in (False, True)])}


GRID["grid_nearest"] = ((lambda m, x, g: m.nn.functional.grid_sample(x, g, "nearest", "zeros", False)),
                        [r_sampled(1, 2, 3, 4, seed=3), _grid(1, 2, 3, seed=4)])


GRID["grid_nearest_reflection"] = ((lambda m, x, g: m.nn.functional.grid_sample(x, g, "nearest", "reflection", True)),
                                   [r_sampled(1, 2, 3, 4, seed=3), _grid(1, 2, 3, seed=5, span=2.5)])


GRID["grid_far_outside"] = ((lambda m, x, g: m.nn.functional.grid_sample(x, g, "bilinear", "reflection", False)),
                            [r_sampled(1, 1, 3, 3, seed=6), _grid(1, 3, 3, seed=7, span=4.0)])


CDIST = {f"cdist_p{p}": ((lambda m, a, b, p=p: m.cdist(a, b, p=p)), [r_sampled(4, 3, seed=1), r_sampled(5, 3, seed=2)])
         for p in (0.0, 0.5, 1.0, 1.5, 2.0, 3.0, float("inf"))}


CDIST["cdist_batch_broadcast"] = ((lambda m, a, b: m.cdist(a, b)), [r_sampled(2, 1, 3, 4, seed=3), r_sampled(3, 2, 4, seed=4)])


CDIST["cdist_mm_path"] = ((lambda m, a, b: m.cdist(a, b, compute_mode="use_mm_for_euclid_dist")),
                          [r_sampled(3, 2, seed=5), r_sampled(4, 2, seed=6)])


CDIST["cdist_p3_batched"] = ((lambda m, a, b: m.cdist(a, b, p=3.0)), [r_sampled(2, 3, 2, seed=7), r_sampled(2, 4, 2, seed=8)])


_IDX = [1, 2, 4, 5, 4, 3, 2, 0, 2]


_OFF = [0, 2, 2, 5]


def _bag(mode, **kw):
    def f(m, w, *psw):
        i, o = m.tensor(_IDX), m.tensor(_OFF)
        ps = psw[0] if psw else None
        return m.nn.functional.embedding_bag(i, w, o, mode=mode, per_sample_weights=ps, **kw)
    return f


BAG = {
    "bag_sum": (_bag("sum"), [r_sampled(6, 3, seed=1)]),
    "bag_mean": (_bag("mean"), [r_sampled(6, 3, seed=2)]),
    "bag_max": (_bag("max"), [r_sampled(6, 3, seed=3)]),
    "bag_sum_padding": (_bag("sum", padding_idx=2), [r_sampled(6, 3, seed=4)]),
    "bag_mean_padding": (_bag("mean", padding_idx=2), [r_sampled(6, 3, seed=5)]),
    "bag_max_padding": (_bag("max", padding_idx=4), [r_sampled(6, 3, seed=6)]),
    "bag_mean_last_offset": (_bag("mean", include_last_offset=True), [r_sampled(6, 3, seed=7)]),
    "bag_sum_freq": (_bag("sum", scale_grad_by_freq=True), [r_sampled(6, 3, seed=8)]),
    "bag_mean_freq_padding": (_bag("mean", scale_grad_by_freq=True, padding_idx=4), [r_sampled(6, 3, seed=9)]),
    "bag_psw": (_bag("sum"), [r_sampled(6, 3, seed=11), r_sampled(len(_IDX), seed=12)]),
    "bag_psw_padding": (_bag("sum", padding_idx=2), [r_sampled(6, 3, seed=13), r_sampled(len(_IDX), seed=14)]),
    "bag_2d_input": ((lambda m, w: m.nn.functional.embedding_bag(m.tensor([[0, 2, 2], [3, 1, 0]]), w, mode="mean")),
                     [r_sampled(4, 5, seed=15)]),
}


UNPOOL = {
    "max_unpool2d": ((lambda m, x: m.nn.functional.max_unpool2d(x, _unpool_indices(m), 2)), [r_sampled(2, 3, 2, 2, seed=1)]),
    "max_unpool2d_3d_output_size": ((lambda m, x: m.nn.functional.max_unpool2d(
        x, _unpool_indices(m)[0], 2, output_size=(5, 5))), [r_sampled(3, 2, 2, seed=2)]),
}


def _ctc(targets, il, tl, normalise=True, **kw):
    """CTC on log_softmax(x) (torch's grad w.r_sampled.t. log_probs assumes normalised log-probs: exp(lp) - posterior,
    so only through log_softmax is it the derivative finite differences see)."""
    def f(m, x):
        lp = m.nn.functional.log_softmax(x, -1) if normalise else x
        return m.nn.functional.ctc_loss(lp, m.tensor(targets), il, tl, **kw)
    return f


_TG = [[1, 2, 2], [3, 1, 1], [1, 1, 3]]


CTC = {
    "ctc_none": (_ctc(_TG, [6, 5, 4], [3, 1, 2], reduction="none"), [r_sampled(6, 3, 4, seed=1, low=-2, high=2)]),
    "ctc_mean": (_ctc(_TG, [6, 5, 6], [3, 0, 3]), [r_sampled(6, 3, 4, seed=2, low=-2, high=2)]),
    "ctc_sum_blank2": (_ctc([[0, 1, 3], [3, 0, 0], [1, 1, 3]], [5, 6, 4], [2, 3, 1], blank=2, reduction="sum"),
                       [r_sampled(6, 3, 4, seed=3)]),
    "ctc_concat_targets": (_ctc([1, 2, 2, 3, 1, 3], [6, 5, 4], [3, 1, 2], reduction="sum"), [r_sampled(6, 3, 4, seed=4)]),
    "ctc_zero_infinity": (_ctc([[1, 1], [2, 3]], [2, 4], [2, 2], zero_infinity=True, reduction="sum"),
                          [r_sampled(4, 2, 4, seed=5)]),
    "ctc_unbatched": (_ctc([2, 1, 2], [5], [3]), [r_sampled(5, 4, seed=6)]),
    "ctc_raw_log_probs": (_ctc(_TG, [6, 5, 4], [3, 1, 2], normalise=False, reduction="sum"),
                          [r_sampled(6, 3, 4, seed=7, low=-3, high=-0.5)]),
}


# the ops that sample, gather or align: grid_sample, cdist, embedding_bag, max_unpool, ctc_loss
CASES_SAMPLING = {**GRID, **CDIST, **BAG, **UNPOOL, **CTC}


# scale_grad_by_freq divides each row's grad by its index's frequency on purpose: not the derivative
# finite differences see. torch 2.13's CPU kernel divides by the wrong count when counts differ
# (pytorch/pytorch#190063, fixed upstream by #190264), so these compare with torch's unscaled grad / count.
FREQ = {"bag_sum_freq": _bag("sum"), "bag_mean_freq_padding": _bag("mean", padding_idx=4)}   # -> unscaled


def _sampling_mods(torch):
    class T:
        tensor = staticmethod(torch.tensor)
        float64 = torch.float64
        nn = torch.nn
        cdist = staticmethod(torch.cdist)
    return ember, T


def _ember_inputs(arrays):
    return [ember.tensor(a.tolist(), dtype=ember.float64, requires_grad=True) for a in arrays]


# torch's convention for CTC (exp(lp) - posterior) is the derivative only for normalised log-probs
NO_GRADCHECK = set(FREQ) | {"ctc_raw_log_probs"}


@pytest.mark.parametrize("name", sorted(set(CASES_SAMPLING) - NO_GRADCHECK))
def test_gradcheck(name):
    fn, arrays = CASES_SAMPLING[name]
    assert gradcheck(lambda *xs: fn(ember, *xs), _ember_inputs(arrays), atol=1e-6, rtol=1e-4)


@pytest.mark.parity
@pytest.mark.parametrize("name", sorted(CASES_SAMPLING))
def test_grads_match_torch(name):
    torch = pytest.importorskip("torch")
    fn, arrays = CASES_SAMPLING[name]
    em, tm = _sampling_mods(torch)
    ins = _ember_inputs(arrays)
    tins = [torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in arrays]
    out, tout = fn(em, *ins), fn(tm, *tins)
    np.testing.assert_allclose(out.detach().numpy(), tout.detach().numpy(), rtol=1e-10, atol=1e-12)
    go = np.random.default_rng(5).standard_normal(tuple(out.shape))
    gs = ember.autograd.grad(out, ins, ember.tensor(go.tolist(), dtype=ember.float64))
    if name in FREQ:               # the documented rule: each row's grad over its frequency in the batch
        tout = FREQ[name](tm, *tins)
        tgs = torch.autograd.grad(tout, tins, torch.tensor(go))
        counts = np.maximum(np.bincount(_IDX, minlength=tins[0].shape[0]), 1)[:, None]
        tgs = (tgs[0] / torch.tensor(counts),) + tuple(tgs[1:])
    else:
        tgs = torch.autograd.grad(tout, tins, torch.tensor(go))
    for g, tg in zip(gs, tgs):
        np.testing.assert_allclose(g.numpy(), tg.numpy(), rtol=1e-9, atol=1e-11)


@pytest.mark.parity
def test_embedding_bag_max_mode_refusals():
    torch = pytest.importorskip("torch")
    w, i, o = r_sampled(6, 3), [1, 2, 4], [0, 1]
    for kw in (dict(scale_grad_by_freq=True), dict(sparse=True)):
        with pytest.raises(ValueError) as te:
            torch.nn.functional.embedding_bag(torch.tensor(i), torch.tensor(w), torch.tensor(o), mode="max", **kw)
        with pytest.raises(ValueError, match="max mode does not support") as ee:
            F.embedding_bag(ember.tensor(i), ember.tensor(w), ember.tensor(o), mode="max", **kw)
        assert str(ee.value) == str(te.value)
    with pytest.raises(ValueError, match="mode has to be one of sum, mean or max"):
        F.embedding_bag(ember.tensor(i), ember.tensor(w), ember.tensor(o), mode="min")


# the formulas are ember ops, so their own backward exists (torch has grid_sampler_2d's double backward too)
@pytest.mark.parametrize("name", ["grid_bilinear_border_nac", "grid_bicubic_zeros_ac", "cdist_p1.5",
                                  "bag_psw", "max_unpool2d"])
def test_gradgradcheck(name):
    fn, arrays = CASES_SAMPLING[name]
    assert gradgradcheck(lambda *xs: fn(ember, *xs), _ember_inputs(arrays), atol=1e-5, rtol=1e-3)


@pytest.mark.parity
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_ctc_long_sequences_match_torch(dtype):
    """Longer sequences, random lengths and labels (repeats included): the vectorised beta recursion."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(3)
    T, B, C, S = 30, 5, 6, 9
    x = rng.standard_normal((T, B, C))
    tl = rng.integers(0, S + 1, B)
    il = np.maximum(rng.integers(T // 2, T + 1, B), 2 * tl + 1)
    targets = rng.integers(1, C, (B, S))
    tx = torch.tensor(x, dtype=getattr(torch, dtype), requires_grad=True)
    tloss = torch.nn.functional.ctc_loss(tx.log_softmax(-1), torch.tensor(targets), il.tolist(), tl.tolist())
    tg, = torch.autograd.grad(tloss, tx)
    ex = ember.tensor(x.tolist(), dtype=getattr(ember, dtype), requires_grad=True)
    loss = F.ctc_loss(F.log_softmax(ex, -1), ember.tensor(targets.tolist()), il.tolist(), tl.tolist())
    g, = ember.autograd.grad(loss, [ex])
    assert g.dtype == getattr(ember, dtype)
    tol = 1e-5 if dtype == "float32" else 1e-10
    np.testing.assert_allclose(g.numpy(), tg.numpy(), rtol=tol, atol=tol)


def test_ctc_backward_kernel_on_meta_and_double_backward_refused():
    lp = ember.randn(5, 2, 4, dtype=ember.float64).log_softmax(-1)
    t = ember.tensor([[1, 2], [3, 3]])
    nll, alpha = ember.ops.aten._ctc_loss(lp, t, [5, 4], [2, 2])
    aten = ember.ops.aten
    g = aten._ctc_loss_backward(ember.ones(2, dtype=ember.float64), lp, t, [5, 4], [2, 2], nll, alpha, 0)
    m = aten._ctc_loss_backward(ember.ones(2, dtype=ember.float64, device="meta"), lp.to("meta"), t.to("meta"),
                                [5, 4], [2, 2], nll.to("meta"), alpha.to("meta"), 0)
    assert (m.shape, m.dtype, m.device.type) == (g.shape, g.dtype, "meta")
    assert np.all(g.numpy()[4, 1] == 0)            # past input length 4 of sample 1
    x = lp.detach().requires_grad_()
    loss = F.ctc_loss(x, t, [5, 4], [2, 2], reduction="sum")
    gx, = ember.autograd.grad(loss, [x], create_graph=True)
    with pytest.raises(RuntimeError, match="not implemented"):     # torch has no double backward here either
        gx.sum().backward()


@pytest.mark.parametrize("name", ["cdist_p0.5", "cdist_p2.0", "cdist_pinf", "cdist_batch_broadcast", "bag_max",
                                  "bag_mean_padding", "bag_psw", "max_unpool2d"])
def test_forward_ad_matches_finite_differences(name):
    """Forward mode comes from the (linear in grad) backward formulas; torch has none for cdist / embedding_bag."""
    import ember.autograd.forward_ad as fwAD
    fn, arrays = CASES_SAMPLING[name]
    tangents = [np.random.default_rng(1).standard_normal(a.shape) for a in arrays]
    with fwAD.dual_level():
        duals = [fwAD.make_dual(x, ember.tensor(v.tolist(), dtype=ember.float64))
                 for x, v in zip(_ember_inputs(arrays), tangents)]
        jvp = fwAD.unpack_dual(fn(ember, *duals))[1].numpy()
    eps = 1e-6

    def at(step):
        return fn(ember, *[ember.tensor((a + step * v).tolist(), dtype=ember.float64)
                           for a, v in zip(arrays, tangents)]).numpy()
    np.testing.assert_allclose(jvp, (at(eps) - at(-eps)) / (2 * eps), rtol=1e-6, atol=1e-7)


@pytest.mark.parity
def test_only_the_first_output_of_a_single_grad_op_requires_grad():
    """Like torch's codegen: formulas reading only `grad` make only the first float output differentiable
    (CTC's log_alpha, the norms' mean / rstd, nll_loss's total_weight)."""
    torch = pytest.importorskip("torch")
    x = r_sampled(5, 2, 4, seed=1)
    t = [[1, 2], [3, 3]]
    cases = [
        (lambda m, a: m.ops.aten._ctc_loss(a.log_softmax(-1), m.tensor(t), [5, 4], [2, 2]), x),
        (lambda m, a: m.ops.aten.native_layer_norm(a, [4], None, None, 1e-5), x),
        (lambda m, a: m.ops.aten.native_batch_norm(a, None, None, None, None, True, 0.1, 1e-5), x),
        (lambda m, a: m.ops.aten.nll_loss_forward(a[0], m.tensor([1, 3]), None, 1, -100), x),
    ]
    for f, arr in cases:
        got = [o.requires_grad for o in f(ember, ember.tensor(arr.tolist(), dtype=ember.float64, requires_grad=True))]
        want = [o.requires_grad for o in f(torch, torch.tensor(arr, requires_grad=True))]
        assert got == want == [True] + [False] * (len(want) - 1)


@pytest.mark.parity
def test_cdist_grad_near_coincident_points_matches_torch():
    """Rows 1e-12 apart (p=2, no matmul path): the elementwise form keeps each unit direction exact, as torch's
    _cdist_backward does; the matmul form (used past 25 rows, like torch) would cancel here."""
    torch = pytest.importorskip("torch")
    a = r_sampled(6, 3, seed=4)
    b = a + 1e-12 * r_sampled(6, 3, seed=5)
    ins = _ember_inputs([a, b])
    tins = [torch.tensor(x, requires_grad=True) for x in (a, b)]
    gs = ember.autograd.grad(ember.cdist(*ins).sum(), ins)
    tgs = torch.autograd.grad(torch.cdist(*tins).sum(), tins)
    for g, tg in zip(gs, tgs):
        np.testing.assert_allclose(g.numpy(), tg.numpy(), rtol=1e-6, atol=1e-6)


def test_backward_on_meta_gives_shapes():
    meta = dict(device="meta", dtype=ember.float32)
    x, g = ember.empty(2, 3, 4, 5, **meta).requires_grad_(), ember.empty(2, 3, 2, 2, **meta).requires_grad_()
    gx, gg = ember.autograd.grad(F.grid_sample(x, g, align_corners=False).sum(), [x, g])
    assert (gx.shape, gg.shape, gx.device.type, gg.dtype) == (x.shape, g.shape, "meta", ember.float32)
    w, ps = ember.empty(6, 3, **meta).requires_grad_(), ember.empty(4, **meta).requires_grad_()
    i, o = ember.tensor([0, 2, 5, 1]).to("meta"), ember.tensor([0, 2]).to("meta")
    for mode, psw in (("sum", ps), ("max", None)):
        out = F.embedding_bag(i, w, o, mode=mode, per_sample_weights=psw)
        grads = ember.autograd.grad(out.sum(), [w] + ([psw] if psw is not None else []))
        assert [tuple(t.shape) for t in grads] == [(6, 3)] + ([(4,)] if psw is not None else [])
        assert all(t.device.type == "meta" for t in grads)
    lp = ember.empty(5, 2, 4, **meta).requires_grad_()
    glp, = ember.autograd.grad(F.ctc_loss(lp, ember.tensor([[1, 2], [3, 3]]).to("meta"), [5, 4], [2, 2]), [lp])
    assert (glp.shape, glp.device.type) == (lp.shape, "meta")
    v = ember.empty(1, 2, 2, 2, **meta).requires_grad_()
    gv, = ember.autograd.grad(F.max_unpool2d(v, ember.tensor([[[[0, 3], [9, 14]], [[5, 2], [8, 15]]]]).to("meta"), 2)
                              .sum(), [v])
    assert (gv.shape, gv.device.type) == (v.shape, "meta")


@pytest.mark.parity
@pytest.mark.parametrize("name", ["grid_bilinear_zeros_nac", "grid_bilinear_reflection_ac", "grid_bicubic_border_nac",
                                  "grid_nearest"])
def test_grid_sample_double_backward_matches_torch(name):
    """torch differentiates grid_sampler_2d_backward (grid_sampler_2d_double_backward); ember's formula is
    ember ops, so create_graph gives the same second derivatives."""
    torch = pytest.importorskip("torch")
    fn, arrays = CASES_SAMPLING[name]
    em, tm = _sampling_mods(torch)
    ins = _ember_inputs(arrays)
    tins = [torch.tensor(a, requires_grad=True) for a in arrays]
    rng = np.random.default_rng(2)
    out, tout = fn(em, *ins), fn(tm, *tins)
    go = rng.standard_normal(tuple(out.shape))
    gs = ember.autograd.grad(out, ins, ember.tensor(go.tolist(), dtype=ember.float64), create_graph=True)
    tgs = torch.autograd.grad(tout, tins, torch.tensor(go), create_graph=True)
    vs = [rng.standard_normal(a.shape) for a in arrays]
    s = sum((g * ember.tensor(v.tolist(), dtype=ember.float64)).sum() for g, v in zip(gs, vs))
    ts = sum((g * torch.tensor(v)).sum() for g, v in zip(tgs, vs))
    # nearest: both grads are constant in (input, grid), so there is no graph left (torch's is all zeros)
    gg = ember.autograd.grad(s, ins, allow_unused=True) if s.requires_grad else [None] * len(ins)
    tgg = torch.autograd.grad(ts, tins, allow_unused=True)
    for a, b, arr in zip(gg, tgg, arrays):
        a = np.zeros(arr.shape) if a is None else a.numpy()
        b = np.zeros(arr.shape) if b is None else b.numpy()
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-11)
