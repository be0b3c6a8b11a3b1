"""The losses (cross_entropy, nll, pointwise, bce, margin, ctc) through ember.nn.functional against torch."""
import numpy as np
import pytest
import ember
import ember.nn.functional as EF
from ._nn_util import DTYPES, RNG, arr, close, meta_matches, pair
import warnings


@pytest.mark.parity
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("concat", [False, True])
def test_ctc_loss(dtype, reduction, concat):
    torch = pytest.importorskip("torch")
    T, B, C, S = 12, 3, 5, 4
    lp, tlp = pair(torch, torch.log_softmax(torch.from_numpy(arr(T, B, C, dtype=dtype)), -1).numpy())
    tgt = RNG.integers(1, C, (B, S))
    tgt[0, 1] = tgt[0, 0]                      # a repeated label
    il, tl = [12, 9, 7], [4, 2, 3]
    if concat:
        tgt = np.concatenate([tgt[b, :tl[b]] for b in range(B)])
    t, tt = pair(torch, tgt)
    close(EF.ctc_loss(lp, t, il, tl, reduction=reduction),
          torch.nn.functional.ctc_loss(tlp, tt, il, tl, reduction=reduction))
    ilt, tilt = pair(torch, np.array(il))
    tlt, ttlt = pair(torch, np.array(tl))
    close(EF.ctc_loss(lp, t, ilt, tlt, reduction=reduction, zero_infinity=True),
          torch.nn.functional.ctc_loss(tlp, tt, tilt, ttlt, reduction=reduction, zero_infinity=True))


def both(torch, name, e_args, t_args, **kw):
    tf = getattr(torch.nn.functional, name, None) or getattr(torch, name)
    return getattr(EF, name)(*e_args, **kw), tf(*t_args, **kw)


@pytest.mark.parity
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_margin_losses(dtype, reduction):
    torch = pytest.importorskip("torch")
    a, ta = pair(torch, arr(5, 4, dtype=dtype))
    b, tb = pair(torch, arr(5, 4, dtype=dtype))
    c, tc = pair(torch, arr(5, 4, dtype=dtype))
    y, ty = pair(torch, np.sign(arr(5, 4, dtype=dtype)))
    y1, ty1 = pair(torch, np.sign(arr(5, dtype=dtype)))
    close(*both(torch, "margin_ranking_loss", (a, b, y), (ta, tb, ty), margin=0.3, reduction=reduction))
    close(*both(torch, "hinge_embedding_loss", (a, y), (ta, ty), margin=0.5, reduction=reduction))
    close(*both(torch, "soft_margin_loss", (a, y), (ta, ty), reduction=reduction))
    close(*both(torch, "cosine_embedding_loss", (a, b, y1), (ta, tb, ty1), margin=0.2, reduction=reduction))
    for kw in (dict(), dict(p=1, swap=True, margin=0.5)):
        close(*both(torch, "triplet_margin_loss", (a, b, c), (ta, tb, tc), reduction=reduction, **kw))
    pos, tpos = pair(torch, arr(5, 4, dtype=dtype, low=0.1, high=3))
    for kw in (dict(log_input=True), dict(log_input=False, full=True)):
        close(*both(torch, "poisson_nll_loss", (a if kw["log_input"] else pos, pos * 2),
                    (ta if kw["log_input"] else tpos, tpos * 2), reduction=reduction, **kw))
    close(*both(torch, "gaussian_nll_loss", (a, b, pos), (ta, tb, tpos), reduction=reduction, full=True))
    t01, tt01 = pair(torch, (arr(5, 4, dtype=dtype, low=0, high=1) > 0.5).astype(dtype))
    close(*both(torch, "multilabel_soft_margin_loss", (a, t01), (ta, tt01), reduction=reduction))
    close(*both(torch, "huber_loss", (a, b), (ta, tb), reduction=reduction, weight=tpos if False else None))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for red in ("batchmean", reduction):
            close(*both(torch, "kl_div", (a, b), (ta, tb), reduction=red, log_target=True))


@pytest.mark.parity
def test_functional_wrappers():
    torch = pytest.importorskip("torch")
    F = torch.nn.functional
    x, tx = pair(torch, arr(4, 5))
    t, tt = pair(torch, RNG.integers(0, 5, 4))
    close(EF.cross_entropy(x, t, reduction="sum"), F.cross_entropy(tx, tt, reduction="sum"))
    close(EF.nll_loss(x, t, reduction="none"), F.nll_loss(tx, tt, reduction="none"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        close(EF.softmax(x), F.softmax(tx))
        close(EF.log_softmax(x, 0), F.log_softmax(tx, 0))
    img, timg = pair(torch, arr(2, 3, 6, 6))
    v, i = EF.max_pool2d(img, 3, 2, 1, return_indices=True)
    tv, ti = F.max_pool2d(timg, 3, 2, 1, return_indices=True)
    close(v, tv)
    close(i, ti)
    close(EF.avg_pool2d(img, 2), F.avg_pool2d(timg, 2))
    close(EF.adaptive_max_pool2d(img, (None, 2)), F.adaptive_max_pool2d(timg, (None, 2)))
    with pytest.raises(ValueError, match="Expected more than 1 value per channel when training"):
        EF.batch_norm(ember.randn(1, 3), None, None, training=True)
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, but got 1.5"):
        EF.dropout(x, 1.5)
    w, tw = pair(torch, arr(6, 3))
    close(EF.embedding(t, w, padding_idx=-1), F.embedding(tt, tw, padding_idx=-1))
    ember.manual_seed(0)
    y = EF.dropout2d(ember.ones(2, 8, 3, 3), 0.5)
    assert set(np.unique(y.numpy())) <= {0.0, 2.0}


RED = {"none": 0, "mean": 1, "sum": 2}


class _EmberNN:
    """ember's functions, plus the hidden aten ops (torch.ops.aten-only in torch) by name."""
    def __getattr__(self, name):
        from ember._ops import ops
        return getattr(ember._nn, name, None) or getattr(ember, name, None) or getattr(ops.aten, name).default


def targets(shape, c, ignore=None):
    t = RNG.integers(0, c, shape).astype(np.int64)
    if ignore is not None and t.size:
        t.reshape(-1)[::3] = ignore
    return t


POINTWISE = [
    ("mse_loss", {}, None), ("l1_loss", {}, None), ("smooth_l1_loss", dict(beta=0.5), None),
    ("smooth_l1_loss", dict(beta=0.0), None), ("huber_loss", dict(delta=0.7), None),
    ("soft_margin_loss", {}, "sign"), ("kl_div", {}, "prob"), ("kl_div", dict(log_target=True), None),
    ("binary_cross_entropy", {}, "unit"), ("binary_cross_entropy_with_logits", {}, "unit"),
]


@pytest.mark.parity
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("shape", [(6, 5), (5,), (3, 4, 2, 3), (2, 3, 4), (2, 3, 2, 2, 2)])
@pytest.mark.parametrize("weighted,ignore,ls", [(False, -100, 0.0), (True, 1, 0.0), (False, 2, 0.2), (True, -100, 0.1)])
def test_cross_entropy_indices(dtype, reduction, shape, weighted, ignore, ls):
    torch = pytest.importorskip("torch")
    c = shape[0] if len(shape) == 1 else shape[1]
    tshape = () if len(shape) == 1 else (shape[0],) + shape[2:]
    x, tx = pair(torch, arr(*shape, dtype=dtype))
    t, tt = pair(torch, targets(tshape, c, ignore if ignore != -100 else None))
    w, tw = pair(torch, arr(c, dtype=dtype, low=0.1, high=2) if weighted else None)
    kw = dict(reduction=RED[reduction], ignore_index=ignore, label_smoothing=ls)
    close(ember._nn.cross_entropy_loss(x, t, w, **kw),
          torch.nn.functional.cross_entropy(tx, tt, tw, reduction=reduction, ignore_index=ignore, label_smoothing=ls))
    lp, tlp = pair(torch, torch.log_softmax(tx, 0 if len(shape) == 1 else 1).numpy())
    close(ember._nn.nll_loss_nd(lp, t, w, RED[reduction], ignore),
          torch.nn.functional.nll_loss(tlp, tt, tw, reduction=reduction, ignore_index=ignore))
    meta_matches(ember._nn.cross_entropy_loss, x, t, w, **kw)


@pytest.mark.parity
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("shape,weighted,ls", [((4, 5), False, 0.0), ((3, 4, 2), True, 0.3), ((5,), False, 0.1)])
def test_cross_entropy_probs(dtype, reduction, shape, weighted, ls):
    torch = pytest.importorskip("torch")
    c = shape[0] if len(shape) == 1 else shape[1]
    x, tx = pair(torch, arr(*shape, dtype=dtype))
    p, tp = pair(torch, torch.softmax(torch.from_numpy(arr(*shape, dtype=dtype)), 0 if len(shape) == 1 else 1).numpy())
    w, tw = pair(torch, arr(c, dtype=dtype, low=0.1, high=2) if weighted else None)
    close(ember._nn.cross_entropy_loss(x, p, w, RED[reduction], label_smoothing=ls),
          torch.nn.functional.cross_entropy(tx, tp, tw, reduction=reduction, label_smoothing=ls))


@pytest.mark.parity
@pytest.mark.parametrize("call", [
    lambda m, x, t: m.nll_loss_nd(x, t[:2]),
    lambda m, x, t: m.nll_loss_nd(x, t * 5),
    lambda m, x, t: m.nll_loss_nd(x[0, 0], t[0]),
    lambda m, x, t: m.nll_loss_forward(x[None], t, None, 1, -100),
    lambda m, x, t: m.nll_loss_nd(x, t.float()),
])
def test_nll_errors(call):
    torch = pytest.importorskip("torch")
    x, tx = pair(torch, arr(3, 4))
    t, tt = pair(torch, np.array([0, 1, 3]))
    with pytest.raises(Exception) as te:
        call(torch.ops.aten if "forward" in str(call.__code__.co_names) else torch._C._nn, tx, tt)
    with pytest.raises(type(te.value)) as ee:
        call(_EmberNN(), x, t)
    if "out of bounds" in str(te.value):   # torch reports whichever bad target its threads meet first
        assert str(ee.value) in ("Target 5 is out of bounds.", "Target 15 is out of bounds.")
    else:
        assert str(ee.value) == str(te.value)


@pytest.mark.parity
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("name,kw,tkind", POINTWISE)
def test_pointwise_losses(dtype, reduction, name, kw, tkind):
    torch = pytest.importorskip("torch")
    shape = (4, 3)
    xa = arr(*shape, dtype=dtype, low=0.01, high=0.99) if name == "binary_cross_entropy" else arr(*shape, dtype=dtype)
    ta = {"sign": np.sign(arr(*shape, dtype=dtype)), "prob": arr(*shape, dtype=dtype, low=0, high=1),
          "unit": arr(*shape, dtype=dtype, low=0, high=1), None: arr(*shape, dtype=dtype)}[tkind]
    if tkind == "prob":
        ta[0, 0] = 0
    x, tx = pair(torch, xa)
    t, tt = pair(torch, ta)
    fn = getattr(ember._nn, name, None) or getattr(ember, name)   # torch._C._nn's ops are ember._nn's
    close(fn(x, t, reduction=RED[reduction], **kw), getattr(torch.nn.functional, name)(tx, tt, reduction=reduction, **kw))
    meta_matches(fn, x, t, reduction=RED[reduction], **kw)


@pytest.mark.parity
@pytest.mark.parametrize("dtype", DTYPES)
def test_bce_weights(dtype):
    torch = pytest.importorskip("torch")
    x, tx = pair(torch, arr(4, 3, dtype=dtype, low=0.0, high=1.0))
    t, tt = pair(torch, arr(4, 3, dtype=dtype, low=0, high=1))
    w, tw = pair(torch, arr(3, dtype=dtype, low=0, high=2))
    pw, tpw = pair(torch, arr(3, dtype=dtype, low=0, high=3))
    close(ember.nn.functional.binary_cross_entropy(x, t, w), torch.nn.functional.binary_cross_entropy(tx, tt, tw))
    close(ember.nn.functional.binary_cross_entropy_with_logits(x * 10, t, w, pos_weight=pw),
          torch.nn.functional.binary_cross_entropy_with_logits(tx * 10, tt, tw, pos_weight=tpw))
    # the aten bindings: torch's Python parser reads their `int reduction=Mean` default as 0 (no reduction)
    close(ember._nn.binary_cross_entropy(x, t, w), torch._C._nn.binary_cross_entropy(tx, tt, tw))
    close(ember.binary_cross_entropy_with_logits(x * 10, t, w, pw),
          torch.binary_cross_entropy_with_logits(tx * 10, tt, tw, tpw))
    assert tuple(ember.kl_div(x, t).shape) == tuple(torch.kl_div(tx, tt).shape) == (4, 3)


@pytest.mark.parity
def test_loss_errors():
    torch = pytest.importorskip("torch")
    F = torch.nn.functional
    for fe, ft in [(lambda: ember._nn.binary_cross_entropy(ember.rand(3), ember.rand(3, 1)),
                    lambda: F.binary_cross_entropy(torch.rand(3), torch.rand(3, 1))),
                   (lambda: ember._nn.mse_loss(ember.rand(3), ember.rand(4)), lambda: torch.ops.aten.mse_loss(
                       torch.rand(3), torch.rand(4))),
                   (lambda: ember.binary_cross_entropy_with_logits(ember.rand(3), ember.rand(4)),
                    lambda: F.binary_cross_entropy_with_logits(torch.rand(3), torch.rand(4))),
                   (lambda: ember._nn.binary_cross_entropy(ember.rand(3) * 3 + 1, ember.rand(3)),
                    lambda: F.binary_cross_entropy(torch.rand(3) * 3 + 1, torch.rand(3)))]:
        with pytest.raises(Exception) as te:
            ft()
        with pytest.raises(type(te.value)) as ee:
            fe()
        assert str(ee.value) == str(te.value)


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


# ---------------------------------------------------------------- _ctc_loss.Tensor and forward AD

def _ctc_case(lib, dtype_name="float64"):
    rng = np.random.default_rng(0)
    lp = rng.standard_normal((6, 3, 5))
    x = lib.tensor(lp, dtype=getattr(lib, dtype_name))
    tg = lib.tensor([[1, 2, 2], [3, 1, 0], [4, 4, 4]])
    return x, tg, lib.tensor([6, 5, 6]), lib.tensor([3, 2, 1])


@pytest.mark.parity
@pytest.mark.parametrize("zero_infinity", [False, True])
def test_ctc_loss_tensor_overload_parity(zero_infinity):
    torch = pytest.importorskip("torch")
    res = []
    for lib in (ember, torch):
        x, tg, il, tl = _ctc_case(lib)
        x.requires_grad_()
        nll, la = lib._ctc_loss(x.log_softmax(2), tg, il, tl, 0, zero_infinity)
        assert type(nll.grad_fn).__name__ == "CtcLossBackward1"
        (nll * lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64)).sum().backward()
        # log_alpha past each sample's lengths is scratch space in torch: compare its shape only
        res.append((nll.detach().numpy(), np.array(la.shape), x.grad.numpy()))
    for a, b in zip(*res):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


def test_ctc_loss_tensor_overload_matches_int_list_overload():
    x, tg, il, tl = _ctc_case(ember)
    a = ember._ctc_loss(x, tg, il, tl)
    b = ember._ctc_loss(x, tg, il.tolist(), tl.tolist())
    assert type(a[0].grad_fn) is type(b[0].grad_fn)   # neither requires grad: no node
    np.testing.assert_array_equal(a[0].numpy(), b[0].numpy())
    np.testing.assert_array_equal(a[1].numpy(), b[1].numpy())
    # lengths tensors are read flat, as torch does
    c = ember._ctc_loss(x, tg, il.view(3, 1), tl.view(1, 3))
    np.testing.assert_array_equal(a[0].numpy(), c[0].numpy())


def test_ctc_loss_tensor_gradcheck():
    x, tg, il, tl = _ctc_case(ember)
    x.requires_grad_()
    assert ember.autograd.gradcheck(lambda v: ember._ctc_loss(v.log_softmax(2), tg, il, tl)[0], (x,))


@pytest.mark.parametrize("which", ["input_lengths", "target_lengths"])
def test_ctc_loss_tensor_lengths_must_be_integral(which):
    x, tg, il, tl = _ctc_case(ember)
    args = {"input_lengths": il, "target_lengths": tl}
    args[which] = args[which].double()
    with pytest.raises(RuntimeError, match=f"{which} must be integral"):
        ember.ops.aten._ctc_loss.Tensor(x, tg, args["input_lengths"], args["target_lengths"])


def test_ctc_loss_tensor_has_no_meta_kernel_like_torch():
    x, tg, il, tl = _ctc_case(ember)
    with pytest.raises(NotImplementedError):
        ember.ops.aten._ctc_loss.Tensor(x.to("meta"), tg.to("meta"), il.to("meta"), tl.to("meta"))


@pytest.mark.parametrize("call", ["F.ctc_loss(d, tg, il, tl)", "F.ctc_loss(d, tg, il.tolist(), tl.tolist())",
                                  "lib._ctc_loss(d, tg, il, tl)", "lib._ctc_loss(d, tg, [6, 5, 6], [3, 2, 1])"])
def test_ctc_forward_ad_not_implemented(call):
    import ember.autograd.forward_ad as fwAD
    import ember.nn.functional as F
    x, tg, il, tl = _ctc_case(ember)
    with fwAD.dual_level():
        d = fwAD.make_dual(x.log_softmax(2), ember.randn(x.shape, dtype=ember.float64))
        with pytest.raises(NotImplementedError, match="forward AD with _ctc_loss"):
            eval(call, dict(F=F, lib=ember, d=d, tg=tg, il=il, tl=tl))


@pytest.mark.parity
def test_ctc_forward_ad_error_parity():
    torch = pytest.importorskip("torch")
    import torch.autograd.forward_ad as tfw
    x, tg, il, tl = _ctc_case(torch)
    with tfw.dual_level():
        d = tfw.make_dual(x.log_softmax(2), torch.randn(x.shape, dtype=torch.float64))
        with pytest.raises(NotImplementedError, match="forward AD with _ctc_loss"):
            torch._ctc_loss(d, tg, il, tl)


@pytest.mark.parity
@pytest.mark.parametrize("shape", [(1,), (), (1, 1)])
@pytest.mark.parametrize("name", ["l1_loss", "smooth_l1_loss", "huber_loss", "soft_margin_loss",
                                  "binary_cross_entropy", "binary_cross_entropy_with_logits", "kl_div"])
def test_mean_reduction_grad_of_a_single_element_matches_torch(name, shape):
    """reduction='mean' over one element divides by 1: the grads of input and target equal torch's."""
    torch = pytest.importorskip("torch")
    x0 = np.full(shape, 0.3)
    t0 = np.full(shape, 0.8 if name != "soft_margin_loss" else -1.0)
    grads = []
    for lib in (ember, torch):
        # (torch has no soft_margin_loss derivative for target)
        x, t = lib.tensor(x0, requires_grad=True), lib.tensor(t0, requires_grad=name != "soft_margin_loss")
        loss = getattr(lib.nn.functional, name)(x, t, reduction="mean")
        (loss * 3.0).backward()
        grads.append((loss.detach().numpy(), x.grad.numpy(), None if t.grad is None else t.grad.numpy()))
    for a, b in zip(*grads):
        if b is None:
            assert a is None
        else:
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


@pytest.mark.parity
@pytest.mark.parametrize("requires_grad", [False, True])
@pytest.mark.parametrize("log_target", [False, True])
@pytest.mark.parametrize("dtypes", [("float32", "float64"), ("float64", "float32"), ("float16", "float32"),
                                    ("bfloat16", "float32"), ("float32", "float16"), ("float32", "int64")])
def test_kl_div_promotes_as_torch_with_and_without_grad(dtypes, log_target, requires_grad):
    """kl_div is torch's composite whether or not autograd records: the promoted dtype (float16 input with a
    float32 target gives float32), the same roundings, integer inputs refused."""
    torch = pytest.importorskip("torch")
    got = []
    for L in (torch, ember):
        x = L.tensor([[-1.0, -2.0], [-0.5, -3.0]], dtype=getattr(L, dtypes[0]), requires_grad=requires_grad)
        t = L.tensor([[0.3, 0.7], [0.0, 0.4]]).to(getattr(L, dtypes[1]))
        out = []
        for reduction in ("none", "mean", "batchmean", "sum"):
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    r = L.nn.functional.kl_div(x, t, reduction=reduction, log_target=log_target)
                out.append((str(r.dtype).split(".")[1], type(r.grad_fn).__name__,
                            r.detach().double().numpy().round(4).tolist()))
            except RuntimeError as e:
                out.append(str(e))
        got.append(out)
    assert got[0] == got[1]
