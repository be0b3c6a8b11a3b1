import numpy as np
import pytest

import ember
from _nn_util import DTYPES, RNG, arr, close, meta_matches, pair

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


POINTWISE = [
    ("mse_loss", {}, None), ("l1_loss", {}, None), ("smooth_l1_loss", dict(beta=0.5), None),
    ("smooth_l1_loss", dict(beta=0.0), None), ("huber_loss", dict(delta=0.7), None),
    ("soft_margin_loss", {}, "sign"), ("kl_div", {}, "prob"), ("kl_div", dict(log_target=True), None),
    ("binary_cross_entropy", {}, "unit"), ("binary_cross_entropy_with_logits", {}, "unit"),
]


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
    close(ember._nn.binary_cross_entropy(x, t, w), torch.nn.functional.binary_cross_entropy(tx, tt, tw))
    close(ember.binary_cross_entropy_with_logits(x * 10, t, w, pw),
          torch.nn.functional.binary_cross_entropy_with_logits(tx * 10, tt, tw, pos_weight=tpw))


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
