"""ember._decomp's normalization, lookup, backward and upsample decompositions against the ops they replace,
called directly on samples (forward and backward ops, in-place running statistics) and through make_fx with the
whole core table (the op leaves the graph, the graph's result is the op's)."""
import pytest

import ember
from ember._decomp import core_aten_decompositions, decomposition_table
from ember.fx.experimental.proxy_tensor import make_fx
from ember.testing import assert_close

aten = ember.ops.aten

# decompositions the op-database sweep of test_decompositions.py does not reach (backward ops, overloads its
# samples do not call): each is checked directly below
CHECKED_DIRECTLY = {
    aten.var_mean.default, aten.var_mean.dim, aten.native_batch_norm_backward.default,
    aten.native_group_norm_backward.default, aten.native_layer_norm_backward.default,
    aten.embedding_dense_backward.default, aten.nll_loss_backward.default, aten._softmax_backward_data.default,
    aten._log_softmax_backward_data.default, aten.gelu_backward.default, aten.native_dropout_backward.default,
    aten.mse_loss_backward.default, aten.upsample_nearest1d.vec, aten.upsample_bilinear2d.vec,
}


def _close(got, want):
    got = got if isinstance(got, (tuple, list)) else (got,)
    want = want if isinstance(want, (tuple, list)) else (want,)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        if w is None or g is None:
            assert g is None and w is None
        else:
            assert g.shape == w.shape and g.dtype == w.dtype
            assert_close(g, w, atol=1e-5, rtol=1e-4, equal_nan=True)


def _randn(*shape):
    return ember.randn(*shape) if shape else ember.randn(())     # `_randn()`: a 0-d tensor


def _check(op, *args, **kwargs):
    ember.manual_seed(0)
    _close(decomposition_table[op](*args, **kwargs), op(*args, **kwargs))


@pytest.mark.parametrize("dim,correction,keepdim", [(None, None, False), ([1], 0, True), ((0, 2), 2, False),
                                                    (-1, 1, True)])
def test_var_mean(dim, correction, keepdim):
    x = _randn(3, 4, 5)
    _check(aten.var_mean.correction, x, dim, correction=correction, keepdim=keepdim)


def test_var_mean_overloads():
    x = _randn(4, 6)
    _check(aten.var_mean.dim, x, [1], False, True)
    _check(aten.var_mean.default, x, True)


@pytest.mark.parametrize("shape", [(4, 3), (2, 3, 5), (2, 3, 4, 4)])
@pytest.mark.parametrize("affine", [True, False])
def test_native_batch_norm_train_updates_running_stats(shape, affine):
    x = _randn(*shape)
    w, b = (_randn(3), _randn(3)) if affine else (None, None)
    rm, rv = _randn(3), ember.rand(3) + 0.5
    rm2, rv2 = rm.clone(), rv.clone()
    got = decomposition_table[aten.native_batch_norm.default](x, w, b, rm, rv, True, 0.1, 1e-5)
    want = aten.native_batch_norm.default(x, w, b, rm2, rv2, True, 0.1, 1e-5)
    _close(got, want)
    assert_close(rm, rm2)
    assert_close(rv, rv2)


def test_native_batch_norm_eval_and_without_running_stats():
    x, w, b = _randn(2, 3, 4, 4), _randn(3), _randn(3)
    rm, rv = _randn(3), ember.rand(3) + 0.5
    _check(aten.native_batch_norm.default, x, w, b, rm, rv, False, 0.1, 1e-5)
    _check(aten.native_batch_norm.default, x, w, b, None, None, True, 0.1, 1e-5)


@pytest.mark.parametrize("train", [True, False])
@pytest.mark.parametrize("mask", [[True, True, True], [True, False, False], [False, True, True]])
def test_native_batch_norm_backward(train, mask):
    x, w, g = _randn(2, 3, 4, 4), _randn(3), _randn(2, 3, 4, 4)
    rm, rv = _randn(3), ember.rand(3) + 0.5
    _, sm, si = aten.native_batch_norm.default(x, w, None, rm.clone(), rv.clone(), True, 0.1, 1e-5)
    _check(aten.native_batch_norm_backward.default, g, x, w, rm, rv, sm, si, train, 1e-5, mask)


@pytest.mark.parametrize("affine", [True, False])
def test_native_group_norm_and_backward(affine):
    n, c, h, w_, group = 2, 6, 3, 4, 3
    x = _randn(n, c, h, w_)
    w, b = (_randn(c), _randn(c)) if affine else (None, None)
    _check(aten.native_group_norm.default, x, w, b, n, c, h * w_, group, 1e-5)
    _, mean, rstd = aten.native_group_norm.default(x, w, b, n, c, h * w_, group, 1e-5)
    g = _randn(n, c, h, w_)
    _check(aten.native_group_norm_backward.default, g, x, mean, rstd, w, n, c, h * w_, group,
           [True, affine, affine])


@pytest.mark.parametrize("shape,normalized", [((4, 5), [5]), ((2, 3, 4), [3, 4]), ((6,), [6])])
def test_native_layer_norm_backward(shape, normalized):
    x, g = _randn(*shape), _randn(*shape)
    w, b = _randn(*normalized), _randn(*normalized)
    _, mean, rstd = aten.native_layer_norm.default(x, normalized, w, b, 1e-5)
    _check(aten.native_layer_norm_backward.default, g, x, normalized, mean, rstd, w, b, [True, True, True])
    _check(aten.native_layer_norm_backward.default, g, x, normalized, mean, rstd, None, None, [True, False, False])


def test_embedding_and_dense_backward():
    weight = _randn(10, 4)
    for idx in (ember.tensor([1, 3, 3, 9]), ember.tensor([[0, 2], [2, 7]])):
        _check(aten.embedding.default, weight, idx)
        g = _randn(*idx.shape, 4)
        for padding_idx, by_freq in ((-1, False), (3, False), (-1, True), (2, True)):
            _check(aten.embedding_dense_backward.default, g, idx, 10, padding_idx, by_freq)


@pytest.mark.parametrize("reduction", [0, 1, 2])
@pytest.mark.parametrize("weighted", [True, False])
@pytest.mark.parametrize("batched", [True, False])
def test_nll_loss_forward_and_backward(reduction, weighted, batched):
    x = ember.log_softmax(_randn(5, 4), -1) if batched else ember.log_softmax(_randn(4), -1)
    t = ember.tensor([0, 3, -100, 1, 3]) if batched else ember.tensor(2)
    w = ember.rand(4) + 0.5 if weighted else None
    _check(aten.nll_loss_forward.default, x, t, w, reduction, -100)
    out, total = aten.nll_loss_forward.default(x, t, w, reduction, -100)
    g = _randn(*out.shape)
    _check(aten.nll_loss_backward.default, g, x, t, w, reduction, -100, total)


def test_softmax_gelu_dropout_mse_backwards():
    x, g = _randn(3, 5), _randn(3, 5)
    y = ember.softmax(x, 1)
    _check(aten._softmax_backward_data.default, g, y, 1, ember.float32)
    _check(aten._log_softmax_backward_data.default, g, ember.log_softmax(x, 0), 0, ember.float32)
    _check(aten.gelu_backward.default, g, x)
    _check(aten.gelu_backward.default, g, x, approximate="tanh")
    mask = ember.rand(3, 5) > 0.5
    _check(aten.native_dropout_backward.default, g, mask, 2.0)
    for reduction in (0, 1, 2):
        t = _randn(3, 5)
        grad = g if reduction == 0 else _randn(())
        _check(aten.mse_loss_backward.default, grad, x, t, reduction)


@pytest.mark.parametrize("size,scales", [(None, [2.0, 2.0]), ([7, 5], None), (None, [1.5, 0.5]), ([3, 9], None)])
def test_upsample_nearest2d(size, scales):
    x = _randn(2, 3, 4, 6)
    _check(aten.upsample_nearest2d.vec, x, size, scales)


def test_upsample_nearest1d():
    x = _randn(2, 3, 5)
    _check(aten.upsample_nearest1d.vec, x, None, [2.5])
    _check(aten.upsample_nearest1d.vec, x, [3], None)


@pytest.mark.parametrize("align_corners", [True, False])
@pytest.mark.parametrize("size,scales", [(None, [2.0, 2.0]), ([7, 5], None), (None, [1.5, 0.5]), ([1, 9], None)])
def test_upsample_bilinear2d(align_corners, size, scales):
    x = _randn(2, 3, 4, 6)
    _check(aten.upsample_bilinear2d.vec, x, size, align_corners, scales)


def test_whole_core_table_through_make_fx():
    F = ember.nn.functional

    def f(x, w, idx, target, emb):
        h = F.group_norm(x, 3, w, None)
        h = F.batch_norm(h, None, None, w, None, training=True)
        h = F.interpolate(h, scale_factor=2, mode="bilinear") + F.interpolate(h, scale_factor=2, mode="nearest")
        e = F.embedding(idx, emb)
        logits = h.mean((2, 3)) + e.sum(1)
        return F.cross_entropy(logits, target), ember.var_mean(h, 1)

    args = (_randn(2, 6, 3, 3), _randn(6), ember.tensor([[1, 2], [0, 3]]), ember.tensor([4, 1]), _randn(5, 6))
    gm = make_fx(f, decomposition_table=core_aten_decompositions())(*args)
    names = {n.target._packet.__name__ for n in gm.graph.nodes
             if n.op == "call_function" and hasattr(n.target, "_packet")}
    assert not names & {"native_group_norm", "native_batch_norm", "upsample_bilinear2d", "upsample_nearest2d",
                        "embedding", "nll_loss_forward", "var_mean"}, names
    _close(gm(*args)[0], f(*args)[0])
    _close(gm(*args)[1], f(*args)[1])
