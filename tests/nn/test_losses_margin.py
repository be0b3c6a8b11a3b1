"""MultiMarginLoss / MultiLabelMarginLoss (ops multi_margin_loss, multilabel_margin_loss_forward and their
backwards): values, grads and errors against torch; gradcheck; meta shapes."""
import numpy as np
import pytest

import ember
import ember.nn as nn
import ember.nn.functional as F
from ember.autograd import gradcheck


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


def _x(shape, seed=0, dtype=np.float64):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


MM_CASES = [
    ((4, 5), [0, 4, 2, 2], dict()),
    ((4, 5), [1, 1, 3, 0], dict(p=2, margin=0.7)),
    ((4, 5), [0, 4, 2, 2], dict(weight=[0.5, 1.0, 2.0, 0.1, 1.5], reduction="sum")),
    ((4, 5), [0, 4, 2, 2], dict(p=2, weight=[0.5, 1.0, 2.0, 0.1, 1.5], reduction="none")),
    ((6,), 3, dict(reduction="none")),
    ((6,), [3], dict(reduction="none", margin=2.0)),
    ((6,), 5, dict(p=2)),
    ((), 0, dict()),
    ((0, 3), [], dict(reduction="none")),
    ((0, 3), [], dict(reduction="sum")),
]

ML_TARGETS = {
    (3, 4): [[3, 0, -1, 1], [0, 1, 2, 3], [-1, 1, 1, 1]],
    (2, 5): [[1, 1, 4, -1, 0], [2, -1, 3, 3, 3]],
    (5,): [4, 0, -1, 2, 2],
    (0, 3): np.zeros((0, 3), np.int64),
}
ML_CASES = [(s, r) for s in ML_TARGETS for r in ("mean", "sum", "none")]


def _mm_args(lib, shape, target, kw, dtype, requires_grad=False):
    x = lib.tensor(_x(shape, dtype=dtype), requires_grad=requires_grad)
    t = lib.tensor(np.asarray(target, dtype=np.int64))
    kw = dict(kw)
    if "weight" in kw:
        kw["weight"] = lib.tensor(np.asarray(kw["weight"], dtype=dtype))
    return x, t, kw


@pytest.mark.parity
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape,target,kw", MM_CASES, ids=[str(i) for i in range(len(MM_CASES))])
def test_multi_margin_loss_value_and_grad_match_torch(torch, shape, target, kw, dtype):
    xe, te, ke = _mm_args(ember, shape, target, kw, dtype, True)
    xt, tt, kt = _mm_args(torch, shape, target, kw, dtype, True)
    le, lt = F.multi_margin_loss(xe, te, **ke), torch.nn.functional.multi_margin_loss(xt, tt, **kt)
    assert tuple(le.shape) == tuple(lt.shape) and le.dtype.name == str(lt.dtype).split(".")[1]
    rtol = 1e-6 if dtype == np.float32 else 1e-12
    if xe.numel():
        np.testing.assert_allclose(le.detach().numpy(), lt.detach().numpy(), rtol=rtol, atol=rtol)
    if le.numel():
        g = _x(tuple(le.shape), seed=5, dtype=dtype)
        le.backward(ember.tensor(g))
        lt.backward(torch.tensor(g))
        assert type(le.grad_fn).__name__ == "MultiMarginLossBackward0" or le.grad_fn is None
        np.testing.assert_allclose(xe.grad.numpy(), xt.grad.numpy(), rtol=rtol, atol=rtol)


@pytest.mark.parity
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape,reduction", ML_CASES, ids=[f"{s}-{r}" for s, r in ML_CASES])
def test_multilabel_margin_loss_value_and_grad_match_torch(torch, shape, reduction, dtype):
    tgt = np.asarray(ML_TARGETS[shape], np.int64)
    xe = ember.tensor(_x(shape, 1, dtype), requires_grad=True)
    xt = torch.tensor(_x(shape, 1, dtype), requires_grad=True)
    le = F.multilabel_margin_loss(xe, ember.tensor(tgt), reduction=reduction)
    lt = torch.nn.functional.multilabel_margin_loss(xt, torch.tensor(tgt), reduction=reduction)
    assert tuple(le.shape) == tuple(lt.shape) and le.dtype.name == str(lt.dtype).split(".")[1]
    rtol = 1e-6 if dtype == np.float32 else 1e-12
    if xe.numel():
        np.testing.assert_allclose(le.detach().numpy(), lt.detach().numpy(), rtol=rtol, atol=rtol)
    if le.numel():
        g = _x(tuple(le.shape), seed=6, dtype=dtype)
        le.backward(ember.tensor(g))
        lt.backward(torch.tensor(g))
        np.testing.assert_allclose(xe.grad.numpy(), xt.grad.numpy(), rtol=rtol, atol=rtol)
    oe = ember.ops.aten.multilabel_margin_loss_forward.default(xe.detach(), ember.tensor(tgt), 0)
    ot = torch.ops.aten.multilabel_margin_loss_forward(xt.detach(), torch.tensor(tgt), 0)
    np.testing.assert_array_equal(oe[1].numpy(), ot[1].numpy())
    assert oe[1].dtype.name == str(ot[1].dtype).split(".")[1]


@pytest.mark.parametrize("kw", [dict(), dict(p=2, margin=0.3), dict(weight=True, reduction="none")])
def test_multi_margin_loss_gradcheck(kw):
    x = ember.tensor(_x((3, 4)) * 0.5, requires_grad=True)
    t = ember.tensor([1, 0, 3])
    kw = dict(kw)
    if kw.pop("weight", False):
        kw["weight"] = ember.tensor([0.3, 1.0, 2.0, 0.5], dtype=ember.float64)
    assert gradcheck(lambda a: F.multi_margin_loss(a, t, **kw), (x,))


@pytest.mark.parametrize("reduction", ["mean", "none"])
def test_multilabel_margin_loss_gradcheck(reduction):
    x = ember.tensor(_x((3, 4), 2) * 0.5, requires_grad=True)
    t = ember.tensor([[3, 0, -1, 1], [0, 2, -1, 3], [1, 1, 1, -1]])
    assert gradcheck(lambda a: F.multilabel_margin_loss(a, t, reduction=reduction), (x,))


@pytest.mark.parity
def test_modules_match_torch(torch):
    w = _x((5,), 3, np.float32) ** 2
    me = nn.MultiMarginLoss(p=2, margin=0.5, weight=ember.tensor(w), reduction="sum")
    mt = torch.nn.MultiMarginLoss(p=2, margin=0.5, weight=torch.tensor(w), reduction="sum")
    assert list(me.state_dict()) == list(mt.state_dict()) == ["weight"]
    x, t = _x((4, 5), 0, np.float32), np.array([0, 4, 2, 2])
    np.testing.assert_allclose(me(ember.tensor(x), ember.tensor(t)).numpy(),
                               mt(torch.tensor(x), torch.tensor(t)).numpy(), rtol=1e-6)
    tl = np.array(ML_TARGETS[(2, 5)])
    x = _x((2, 5), 0, np.float32)
    np.testing.assert_allclose(nn.MultiLabelMarginLoss(reduction="none")(ember.tensor(x), ember.tensor(tl)).numpy(),
                               torch.nn.MultiLabelMarginLoss(reduction="none")(torch.tensor(x),
                                                                                 torch.tensor(tl)).numpy(), rtol=1e-6)


BAD_MM = [
    ("p3", lambda L: L.nn.functional.multi_margin_loss(L.ones(3, 4), L.tensor([0, 1, 2]), p=3)),
    ("target_range", lambda L: L.nn.functional.multi_margin_loss(L.ones(3, 4), L.tensor([0, 4, 2]))),
    ("target_neg", lambda L: L.nn.functional.multi_margin_loss(L.ones(3, 4), L.tensor([0, -1, 2]))),
    ("target_size", lambda L: L.nn.functional.multi_margin_loss(L.ones(3, 4), L.tensor([0, 1]))),
    ("target_2d", lambda L: L.nn.functional.multi_margin_loss(L.ones(3, 4), L.tensor([[0], [1], [2]]))),
    ("weight_size", lambda L: L.nn.functional.multi_margin_loss(L.ones(3, 4), L.tensor([0, 1, 2]), weight=L.ones(3))),
    ("weight_2d", lambda L: L.nn.functional.multi_margin_loss(L.ones(4), L.tensor(1), weight=L.ones(2, 2))),
    ("weight_dtype", lambda L: L.nn.functional.multi_margin_loss(L.ones(3, 4), L.tensor([0, 1, 2]),
                                                                  weight=L.ones(4, dtype=L.float64))),
    ("input_3d", lambda L: L.nn.functional.multi_margin_loss(L.ones(2, 3, 4), L.tensor([0, 1]))),
    ("input_empty", lambda L: L.nn.functional.multi_margin_loss(L.ones(3, 0), L.tensor([0, 1, 2]))),
    ("target_float", lambda L: L.nn.functional.multi_margin_loss(L.ones(3, 4), L.tensor([0., 1., 2.]))),
    ("input_long", lambda L: L.nn.functional.multi_margin_loss(L.ones(3, 4, dtype=L.int64), L.tensor([0, 1, 2]))),
    ("input_half", lambda L: L.nn.functional.multi_margin_loss(L.ones(3, 4, dtype=L.float16), L.tensor([0, 1, 2]))),
    ("reduction", lambda L: L.nn.functional.multi_margin_loss(L.ones(3, 4), L.tensor([0, 1, 2]), reduction="x")),
    ("module_p", lambda L: L.nn.MultiMarginLoss(p=0)),
    ("module_weight", lambda L: L.nn.MultiMarginLoss(weight=L.ones(2, 2))),
    ("ml_range", lambda L: L.nn.functional.multilabel_margin_loss(L.ones(2, 3), L.tensor([[0, 3, -1], [0, 1, 2]]))),
    ("ml_below", lambda L: L.nn.functional.multilabel_margin_loss(L.ones(2, 3), L.tensor([[0, -1, -2], [0, 1, 2]]))),
    ("ml_size", lambda L: L.nn.functional.multilabel_margin_loss(L.ones(2, 3), L.tensor([[0, 1, 2]]))),
    ("ml_1d_size", lambda L: L.nn.functional.multilabel_margin_loss(L.ones(3), L.tensor([[0, 1, 2]]))),
    ("ml_3d", lambda L: L.nn.functional.multilabel_margin_loss(L.ones(2, 2, 3), L.tensor([[0, 1, 2]]))),
    ("ml_int", lambda L: L.nn.functional.multilabel_margin_loss(L.ones(2, 3), L.tensor([[0, 1, 2], [0, 1, 2]],
                                                                                          dtype=L.int32))),
    ("ml_half", lambda L: L.nn.functional.multilabel_margin_loss(L.ones(2, 3, dtype=L.bfloat16),
                                                                 L.tensor([[0, 1, 2], [0, 1, 2]]))),
]


@pytest.mark.parity
@pytest.mark.parametrize("name,call", BAD_MM, ids=[n for n, _ in BAD_MM])
def test_bad_input_raises_like_torch(torch, name, call):
    with pytest.raises(Exception) as et:
        call(torch)
    with pytest.raises(type(et.value)) as ee:
        call(ember)
    assert str(ee.value) == str(et.value)


@pytest.mark.parametrize("fn,args", [
    ("multi_margin_loss", lambda d: (ember.empty(3, 4, device=d), ember.tensor([0, 1, 2], device=d), 2, 0.5, None, 0)),
    ("multi_margin_loss", lambda d: (ember.empty(4, device=d), ember.tensor(1, device=d), 1, 1.0, None, 0)),
    ("multilabel_margin_loss", lambda d: (ember.empty(3, 4, device=d), ember.zeros(3, 4, dtype=ember.int64, device=d),
                                          0)),
    ("multilabel_margin_loss", lambda d: (ember.empty(4, device=d), ember.zeros(4, dtype=ember.int64, device=d), 1)),
])
def test_meta_matches_cpu(fn, args):
    cpu, meta = getattr(ember._nn, fn)(*args("cpu")), getattr(ember._nn, fn)(*args("meta"))
    assert meta.device.type == "meta"
    assert tuple(meta.shape) == tuple(cpu.shape) and meta.dtype is cpu.dtype and meta.stride() == cpu.stride()


@pytest.mark.parity
@pytest.mark.parametrize("reduction", [0, 1, 2])
@pytest.mark.parametrize("out_shape", [(0,), (5,), (3,)])
def test_out_variants_match_torch(torch, reduction, out_shape):
    x, t = _x((3, 4), 0, np.float32), np.array([0, 3, 1])
    tl = np.array(ML_TARGETS[(3, 4)])
    for name, tgt, args in (("multi_margin_loss", t, (1, 1.0, None, reduction)),
                            ("multilabel_margin_loss", tl, (reduction,))):
        oe, ot = ember.zeros(out_shape), torch.zeros(out_shape)
        v = oe._version
        re = getattr(ember._nn, name)(ember.tensor(x), ember.tensor(tgt), *args, out=oe)
        getattr(torch._C._nn, name)(torch.tensor(x), torch.tensor(tgt), *args, out=ot)
        assert re is oe and oe._version > v
        assert tuple(oe.shape) == tuple(ot.shape)
        np.testing.assert_allclose(oe.numpy(), ot.numpy(), rtol=1e-6)
        with pytest.raises(RuntimeError, match="expected scalar type Float but found Double"):
            getattr(ember._nn, name)(ember.tensor(x), ember.tensor(tgt), *args, out=ember.zeros(3, dtype=ember.float64))
        mo = ember.empty(0, device="meta")
        getattr(ember._nn, name)(ember.empty(3, 4, device="meta"), ember.tensor(tgt, device="meta"), *args, out=mo)
        assert tuple(mo.shape) == tuple(ot.shape)
