"""Forward-mode AD through the nn ops (conv, batch/layer/group norm, pooling, losses, ...): the
tangent of every nn call of the gradgrad list and of the nn OpInfos against central finite
differences, and against torch.func.jvp."""
import numpy as np
import pytest

import ember
import ember.autograd.forward_ad as fwAD
from ember.testing._op_db import op_db
from ember.testing._opinfo import resolve

from .test_op_db_gradgrad import NN_CASES, NO_TORCH_PARITY, XFAIL, _ember_T, _nn_samples, _split


def _t(a):
    return ember.tensor(np.asarray(a).tolist(), dtype=ember.float64)


def _jvp(f, arrays, tangents):
    with fwAD.dual_level():
        duals = [fwAD.make_dual(_t(a), _t(t)) for a, t in zip(arrays, tangents)]
        p, t = fwAD.unpack_dual(f(*duals))
        return p.detach().numpy(), (np.zeros(tuple(p.shape)) if t is None else t.detach().numpy())


def _finite_difference(f, arrays, tangents, eps=1e-6):
    plus = f(*[_t(a + eps * t) for a, t in zip(arrays, tangents)]).numpy()
    minus = f(*[_t(a - eps * t) for a, t in zip(arrays, tangents)]).numpy()
    return (plus - minus) / (2 * eps)


def _tangents(arrays):
    rng = np.random.default_rng(5)
    return [rng.standard_normal(a.shape) for a in arrays]


def _case(name):
    marks = [pytest.mark.xfail(reason=XFAIL[name], strict=False)] if name in XFAIL else []
    return pytest.param(name, id=name, marks=marks)


def _ember_case(name):
    fn, arrays = NN_CASES[name]
    return (lambda *xs: fn(ember, ember.nn.functional, _ember_T, *xs)), arrays


# ops without forward-mode AD, as in torch: the jvp raises a clear error
NO_FORWARD_AD = {"ctc_loss": "CTC loss has no forward-mode formula (nor has torch)"}


@pytest.mark.parametrize("name", [_case(n) for n in NN_CASES])
def test_nn_jvp_matches_finite_differences(name):
    f, arrays = _ember_case(name)
    ts = _tangents(arrays)
    if name in NO_FORWARD_AD:
        with pytest.raises(RuntimeError, match="not implemented|forward"):
            _jvp(f, arrays, ts)
        return
    _, t = _jvp(f, arrays, ts)
    np.testing.assert_allclose(t, _finite_difference(f, arrays, ts), rtol=1e-5, atol=1e-6)


@pytest.mark.parity
# forward mode never meets embedding's refused double backward, so only dropout's random masks differ
@pytest.mark.parametrize("name", [_case(n) for n in NN_CASES if n not in NO_TORCH_PARITY or n.startswith("embedding")])
def test_nn_jvp_matches_torch(name):
    torch = pytest.importorskip("torch")
    if name in NO_FORWARD_AD:
        pytest.skip(NO_FORWARD_AD[name])
    fn, arrays = NN_CASES[name]
    f, _ = _ember_case(name)
    ts = _tangents(arrays)
    p, t = _jvp(f, arrays, ts)
    try:
        tp, tt = torch.func.jvp(lambda *xs: fn(torch, torch.nn.functional, torch.from_numpy, *xs),
                                tuple(torch.tensor(a) for a in arrays), tuple(torch.tensor(v) for v in ts))
    except NotImplementedError:     # grid_sampler_2d, _cdist_forward, _embedding_bag: ember has a rule, torch not
        pytest.skip("torch has no forward-mode AD for this op (checked against finite differences above)")
    np.testing.assert_allclose(p, tp.detach().numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(t, tt.detach().numpy(), rtol=1e-8, atol=1e-10)


def _db_fn(op, s, lib=None):
    build, _ = _split(s)
    fn = op.op if lib is None else resolve(lib, op.torch_name)

    def f(*ts):
        x, args, kw = build(None, ts)
        r = fn(x, *args, **kw)
        return r[0] if isinstance(r, tuple) else r
    return f


# the nn ops whose OpInfos this test drives (every entry of the op database with one of these names)
NN_JVP_OPS = {
    "softmax", "log_softmax", "_nn.linear", "conv1d", "conv2d", "conv_transpose2d", "max_pool2d", "_nn.avg_pool2d",
    "_nn.adaptive_avg_pool2d", "max_pool3d", "_nn.avg_pool3d", "_nn.adaptive_avg_pool3d",
    "nn.functional.adaptive_max_pool3d", "layer_norm", "group_norm", "rms_norm", "embedding", "_nn.mse_loss",
    "_nn.l1_loss", "_nn.smooth_l1_loss", "binary_cross_entropy_with_logits", "_nn.cross_entropy_loss", "pixel_shuffle",
    "pairwise_distance", "cosine_similarity", "nn.functional.grid_sample", "cdist", "nn.functional.embedding_bag",
    "nn.functional.max_unpool2d", "nn.functional.ctc_loss", "_nn.scaled_dot_product_attention",
    "_nn.multi_margin_loss", "_nn.multilabel_margin_loss",
}


@pytest.mark.parametrize("op", [pytest.param(op, id=op.name) for op in op_db
                                if op.name in NN_JVP_OPS and "float64" in op.dtypes])
def test_op_db_nn_jvp(op):
    torch = None
    try:
        import torch
    except ImportError:
        pass
    ran = 0
    for s in _nn_samples(op):
        arrays = s.arrays()
        f = _db_fn(op, s)
        ts = _tangents(arrays)
        p, t = _jvp(f, arrays, ts)
        np.testing.assert_allclose(t, _finite_difference(f, arrays, ts), rtol=1e-5, atol=1e-6, err_msg=repr(s))
        if torch is not None:
            try:
                _, tt = torch.func.jvp(_db_fn(op, s, torch), tuple(torch.tensor(a) for a in arrays),
                                       tuple(torch.tensor(v) for v in ts))
            except NotImplementedError:      # torch has no forward AD here (sdpa's flash kernel)
                tt = None
            if tt is not None:
                np.testing.assert_allclose(t, tt.detach().numpy(), rtol=1e-8, atol=1e-10, err_msg=repr(s))
        ran += 1
    if not ran:
        pytest.skip("no float64 sample")


# ---- forward-over-reverse: jvp(grad(f)) (Hessian-vector products) ------------------------------
_W = np.random.default_rng(0).standard_normal((2, 3, 3))
_X = np.random.default_rng(1).standard_normal((2, 2, 5, 4))


def _c(L, a):
    return L.tensor(a.tolist(), dtype=L.float64)


FWD_OVER_REV = {   # f(L, F, x) with x of shape (2, 3, 4)
    "cube": lambda L, F, x: (x ** 3).sum(),
    "exp_sin": lambda L, F, x: (x.exp() * x.sin()).sum(),
    "softmax_log_softmax": lambda L, F, x: F.log_softmax(x, 1).square().sum() + F.softmax(x, 1).pow(3).sum(),
    "max_pool1d": lambda L, F, x: F.max_pool1d(x, 2).pow(3).sum(),
    "avg_pool1d": lambda L, F, x: F.avg_pool1d(x, 2).pow(3).sum(),
    "nll_loss": lambda L, F, x: F.nll_loss(F.log_softmax(x.flatten(1), 1), L.tensor([3, 7])),
    "conv1d_input": lambda L, F, x: F.conv1d(x, _c(L, _W)).tanh().sum(),
    "conv2d_weight_bias": lambda L, F, x: F.conv2d(_c(L, _X), x[:, :2].reshape(2, 2, 2, 2), x[1, 2, :2],
                                                   padding=1).sin().sum(),
    "layer_norm": lambda L, F, x: F.layer_norm(x, [4], x[0, 0] + 1).pow(3).sum(),
    "batch_norm": lambda L, F, x: F.batch_norm(x, None, None, x[0, :, 0] + 1, None, training=True).pow(3).sum(),
    "group_norm": lambda L, F, x: F.group_norm(x.reshape(1, 6, 4), 3, x[0].reshape(12)[:6] + 1).pow(3).sum(),
}
# scale_grad_by_freq has no second derivative: refused, never a wrong tangent
FWD_OVER_REV_REFUSED = {
    "embedding_scale_grad_by_freq": lambda L, F, x: F.embedding(L.tensor([[0, 1, 1]]), x.reshape(6, 4),
                                                                scale_grad_by_freq=True).pow(2).sum(),
}


@pytest.mark.parity
@pytest.mark.parametrize("name", sorted(FWD_OVER_REV))
def test_forward_over_reverse_matches_torch(name):
    torch = pytest.importorskip("torch")
    f = FWD_OVER_REV[name]
    rng = np.random.default_rng(3)
    x, t = rng.standard_normal((2, 3, 4)), rng.standard_normal((2, 3, 4))
    e = ember.func.jvp(ember.func.grad(lambda x: f(ember, ember.nn.functional, x)), (_t(x),), (_t(t),))[1]
    assert not e.requires_grad
    tt = torch.func.jvp(torch.func.grad(lambda x: f(torch, torch.nn.functional, x)), (torch.tensor(x),),
                        (torch.tensor(t),))[1]
    np.testing.assert_allclose(e.numpy(), tt.numpy(), rtol=1e-9, atol=1e-10)


@pytest.mark.parametrize("name", sorted(FWD_OVER_REV))
def test_forward_over_reverse_matches_reverse_over_reverse(name):
    """H t by forward-over-reverse equals the reverse-over-reverse Hessian-vector product."""
    f = FWD_OVER_REV[name]
    rng = np.random.default_rng(3)
    x, t = rng.standard_normal((2, 3, 4)), rng.standard_normal((2, 3, 4))
    e = ember.func.jvp(ember.func.grad(lambda x: f(ember, ember.nn.functional, x)), (_t(x),), (_t(t),))[1]
    xs = ember.tensor(x.tolist(), dtype=ember.float64, requires_grad=True)
    g, = ember.autograd.grad(f(ember, ember.nn.functional, xs), xs, create_graph=True)
    h, = ember.autograd.grad((g * _t(t)).sum(), xs)
    np.testing.assert_allclose(e.numpy(), h.numpy(), rtol=1e-9, atol=1e-10)


@pytest.mark.parametrize("name", sorted(FWD_OVER_REV_REFUSED))
def test_forward_over_reverse_refused(name):
    f = FWD_OVER_REV_REFUSED[name]
    x = _t(np.random.default_rng(3).standard_normal((2, 3, 4)))
    with pytest.raises(RuntimeError, match="not implemented"):
        ember.func.jvp(ember.func.grad(lambda x: f(ember, ember.nn.functional, x)), (x,), (ember.ones_like(x),))
