"""Second order through typical model code: a gradient penalty (grad of ||d loss / d x||^2 w.r.t. the
parameters) through a small CNN and a small attention block, checked against torch and by
gradgradcheck; Hessian-vector products through nn.Modules."""
import numpy as np
import pytest

import ember
from ember.autograd import gradgradcheck


def _arr(*shape, seed, scale=0.5):
    return np.random.default_rng(seed).standard_normal(shape) * scale


CNN_PARAMS = {"w1": _arr(4, 2, 3, 3, seed=1), "b1": _arr(4, seed=2), "g": 1 + _arr(4, seed=3), "beta": _arr(4, seed=4),
              "w2": _arr(3, 4, 2, 2, seed=5), "b2": _arr(3, seed=6), "w3": _arr(5, 12, seed=7), "b3": _arr(5, seed=8)}
X = _arr(2, 2, 6, 6, seed=9, scale=1.0)
TARGET = np.array([1, 4])


def _cnn_loss(F, T, x, p):
    h = F.conv2d(x, p["w1"], p["b1"], padding=1)
    h = F.batch_norm(h, None, None, p["g"], p["beta"], training=True)
    h = F.max_pool2d(F.relu(h), 2)
    h = F.conv2d(h, p["w2"], p["b2"]).tanh()
    h = F.avg_pool2d(h, 1).flatten(1)
    return F.nll_loss(F.log_softmax(F.linear(h, p["w3"], p["b3"]), 1), T(TARGET))


ATT_PARAMS = {"emb": _arr(7, 4, seed=11), "ln_w": 1 + _arr(4, seed=12), "ln_b": _arr(4, seed=13),
              "wq": _arr(4, 4, seed=14), "wk": _arr(4, 4, seed=15), "wv": _arr(4, 4, seed=16),
              "gn_w": 1 + _arr(4, seed=17), "gn_b": _arr(4, seed=18), "out": _arr(7, 4, seed=19)}
TOKENS = np.array([[1, 3, 5, 2], [6, 0, 3, 3]])
NEXT = np.array([[3, 5, 2, 6], [0, 3, 3, 1]])


def _att_loss(F, T, x, p):
    """x: the token embeddings (the penalty's input); a pre-norm attention block and a softmax head."""
    h = F.layer_norm(x, [4], p["ln_w"], p["ln_b"])
    a = F.scaled_dot_product_attention(F.linear(h, p["wq"]), F.linear(h, p["wk"]), F.linear(h, p["wv"]),
                                       is_causal=True)
    h = x + F.gelu(a)
    h = F.group_norm(h.transpose(1, 2), 2, p["gn_w"], p["gn_b"]).transpose(1, 2)
    logits = F.linear(h, p["out"])
    return F.cross_entropy(logits.reshape(-1, 7), T(NEXT.reshape(-1)))


def _penalised_grads(lib, F, T, loss_fn, x_arr, params, embed=False):
    """grads w.r.t. the parameters of loss + ||d loss / d x||^2 (x: the input, or the embedded tokens)."""
    p = {k: lib.tensor(v, dtype=lib.float64, requires_grad=True) if lib is not ember else
         ember.tensor(v.tolist(), dtype=ember.float64, requires_grad=True) for k, v in params.items()}
    if embed:
        x = F.embedding(T(TOKENS), p["emb"])
    else:
        x = lib.tensor(x_arr, dtype=lib.float64, requires_grad=True) if lib is not ember else \
            ember.tensor(x_arr.tolist(), dtype=ember.float64, requires_grad=True)
    loss = loss_fn(F, T, x, p)
    gx, = lib.autograd.grad(loss, x, create_graph=True)
    total = loss + (gx * gx).sum()
    names = sorted(p)
    gs = lib.autograd.grad(total, [p[k] for k in names])
    return float(total.detach()), {k: g.detach().numpy() for k, g in zip(names, gs)}


@pytest.mark.parity
@pytest.mark.parametrize("model", ["cnn", "attention"])
def test_gradient_penalty_matches_torch(model):
    torch = pytest.importorskip("torch")
    loss_fn, params, embed = (_cnn_loss, CNN_PARAMS, False) if model == "cnn" else (_att_loss, ATT_PARAMS, True)
    el, eg = _penalised_grads(ember, ember.nn.functional, lambda a: ember.from_numpy(a), loss_fn, X, params, embed)
    tl, tg = _penalised_grads(torch, torch.nn.functional, torch.from_numpy, loss_fn, X, params, embed)
    assert el == pytest.approx(tl, rel=1e-10)
    for k in tg:
        np.testing.assert_allclose(eg[k], tg[k], rtol=1e-7, atol=1e-10, err_msg=k)
        assert np.abs(eg[k]).sum() > 0, k      # the penalty reaches every parameter


def test_cnn_gradgradcheck():
    """Second derivatives of the CNN loss w.r.t. the input and the first conv/batch-norm parameters
    (smaller sizes: gradgradcheck is numerical)."""
    F = ember.nn.functional
    t = TARGET

    def f(x, w1, g):
        h = F.conv2d(x, w1, padding=1)
        h = F.max_pool2d(F.relu(F.batch_norm(h, None, None, g, None, training=True)), 2)
        return F.nll_loss(F.log_softmax(h.flatten(1), 1), ember.from_numpy(t % 4))
    ins = [ember.tensor(a.tolist(), dtype=ember.float64, requires_grad=True)
           for a in (_arr(2, 1, 4, 4, seed=21, scale=1.0), _arr(2, 1, 3, 3, seed=22), 1 + _arr(2, seed=23))]
    assert gradgradcheck(f, ins, atol=1e-5, rtol=1e-3)


@pytest.mark.parity
def test_hessian_vector_product_through_modules_matches_torch():
    """H v of an nn.Module model's loss w.r.t. its parameters (double backward through Linear,
    LayerNorm, Conv1d, BatchNorm1d, Dropout in eval), torch's modules with the same weights."""
    torch = pytest.importorskip("torch")

    def build(nn):
        return nn.Sequential(nn.Conv1d(2, 3, 3, padding=1), nn.BatchNorm1d(3), nn.ReLU(), nn.Flatten(),
                             nn.Dropout(0.5), nn.LayerNorm(15), nn.Linear(15, 4), nn.LogSoftmax(1))
    tm = build(torch.nn).double()
    em = build(ember.nn)
    em.load_state_dict({k: ember.tensor(v.numpy().tolist(), dtype=ember.float64) for k, v in tm.state_dict().items()})
    em.double()
    tm.train()
    em.train()
    tm[4].p = em[4].p = 0.0                       # dropout on, but deterministic
    x = _arr(3, 2, 5, seed=31, scale=1.0)
    y = np.array([0, 3, 2])

    def hvp(lib, m, T):
        ps = list(m.parameters())
        loss = lib.nn.functional.nll_loss(m(T(x)), T(y))
        gs = lib.autograd.grad(loss, ps, create_graph=True)
        vs = [T(np.random.default_rng(40 + i).standard_normal(tuple(p.shape))) for i, p in enumerate(ps)]
        dot = sum((g * v).sum() for g, v in zip(gs, vs))
        return [h.detach().numpy() for h in lib.autograd.grad(dot, ps)]
    eh = hvp(ember, em, lambda a: ember.from_numpy(np.ascontiguousarray(a)))
    th = hvp(torch, tm, torch.from_numpy)
    assert len(eh) == len(th)
    for a, b in zip(eh, th):
        np.testing.assert_allclose(a, b, rtol=1e-7, atol=1e-10)


def _mk(*shape, seed=0):
    return ember.tensor(np.random.default_rng(seed).standard_normal(shape).tolist(), dtype=ember.float64,
                        requires_grad=True)


F3 = ember.nn.functional
THIRD_ORDER = {
    "conv1d": (lambda x, w: F3.conv1d(x, w, padding=1).tanh(), lambda: [_mk(1, 2, 4), _mk(2, 2, 3, seed=1)]),
    "layer_norm": (lambda x, w: F3.layer_norm(x, [3], w), lambda: [_mk(2, 3), _mk(3, seed=1)]),
    "batch_norm": (lambda x, w: F3.batch_norm(x, None, None, w, None, training=True), lambda: [_mk(3, 2), _mk(2, seed=1)]),
    "group_norm": (lambda x, w: F3.group_norm(x, 2, w), lambda: [_mk(2, 4, 2), _mk(4, seed=1)]),
    "softmax": (lambda x: F3.softmax(x, 1), lambda: [_mk(2, 3)]),
    "log_softmax": (lambda x: F3.log_softmax(x, 1), lambda: [_mk(2, 3)]),
    "max_pool1d": (lambda x: F3.max_pool1d(x, 2) ** 3, lambda: [_mk(1, 2, 4)]),
    "mse_loss": (lambda x, y: F3.mse_loss(x, y) ** 2, lambda: [_mk(2, 3), _mk(2, 3, seed=1)]),
}


@pytest.mark.parametrize("name", sorted(THIRD_ORDER))
def test_third_order_through_nn_kernels(name):
    """The double backwards are written in differentiable ember ops: gradgradcheck of the first-order
    gradient checks third derivatives."""
    f, make = THIRD_ORDER[name]
    ins = make()
    v = None

    def first(*xs):
        out = f(*xs)
        nonlocal v
        if v is None:
            v = ember.tensor(np.random.default_rng(9).standard_normal(tuple(out.shape)).tolist(), dtype=ember.float64)
        return tuple(ember.autograd.grad(out, xs, v, create_graph=True))
    assert gradgradcheck(first, ins, atol=1e-5, rtol=1e-3)
