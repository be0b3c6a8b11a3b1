"""Gradients of scatter_reduce.two, index_reduce and index_fill.int_Tensor (native/derivatives_scatter.yaml):
gradcheck and gradgradcheck over every reduce mode and include_self value, the tie (amax/amin) and zero (prod)
cases against torch.autograd, and first-order parity with torch on every mode."""
import numpy as np
import pytest

import ember
from ember.autograd import gradcheck, gradgradcheck

R = np.random.default_rng(11)
SCATTER_MODES = ["sum", "mean", "prod", "amax", "amin"]
INDEX_MODES = ["prod", "mean", "amax", "amin"]
INCLUDE = [True, False]


def _leaf(a):
    return ember.tensor(np.asarray(a, np.float64).tolist(), dtype=ember.float64, requires_grad=True)


def _idx(a):
    return ember.from_numpy(np.asarray(a, np.int64).copy())


# distinct values (no ties: amax/amin are smooth there); index rows repeat so groups have several members,
# and row 3 of X is reached by nothing
X = R.standard_normal((4, 3))
SRC = R.standard_normal((5, 3))
INDEX = np.array([[0, 2, 1], [2, 2, 0], [0, 1, 1], [1, 0, 2], [2, 0, 0]])
# dim 1 with an index narrower than src: src's columns past the index get no gradient
SRC_WIDE = R.standard_normal((4, 5))
INDEX_NARROW = np.array([[0, 0], [2, 1], [1, 1], [2, 2]])
# index_reduce along dim 1 of a 3-d tensor, one target reached twice
X3 = R.standard_normal((2, 4, 3))
SOURCE3 = R.standard_normal((2, 3, 3))
INDEX1 = np.array([3, 0, 3])


def _scatter(dim, index, reduce, include_self):
    return lambda x, s: ember.scatter_reduce(x, dim, _idx(index), s, reduce, include_self=include_self)


def _index_reduce(dim, index, reduce, include_self):
    return lambda x, s: x.index_reduce(dim, _idx(index), s, reduce, include_self=include_self)


@pytest.mark.parametrize("include_self", INCLUDE)
@pytest.mark.parametrize("reduce", SCATTER_MODES)
def test_scatter_reduce_gradcheck(reduce, include_self):
    f = _scatter(0, INDEX, reduce, include_self)
    assert gradcheck(f, [_leaf(X), _leaf(SRC)])
    assert gradgradcheck(f, [_leaf(X), _leaf(SRC)])


@pytest.mark.parametrize("include_self", INCLUDE)
@pytest.mark.parametrize("reduce", SCATTER_MODES)
def test_scatter_reduce_gradcheck_narrow_index(reduce, include_self):
    f = _scatter(1, INDEX_NARROW, reduce, include_self)
    x, s = _leaf(X), _leaf(SRC_WIDE)
    assert gradcheck(f, [x, s])
    assert gradgradcheck(f, [_leaf(X), _leaf(SRC_WIDE)])
    f(x, s).sum().backward()
    assert s.grad.shape == (4, 5)
    assert not s.grad.numpy()[:, 2:].any()


@pytest.mark.parametrize("include_self", INCLUDE)
@pytest.mark.parametrize("reduce", INDEX_MODES)
def test_index_reduce_gradcheck(reduce, include_self):
    f = _index_reduce(1, INDEX1, reduce, include_self)
    assert gradcheck(f, [_leaf(X3), _leaf(SOURCE3)])
    assert gradgradcheck(f, [_leaf(X3), _leaf(SOURCE3)])


def test_index_fill_tensor_value_gradcheck():
    # index 1 listed twice: the value fills that column once, so it gets that column's grad once
    f = lambda x, v: x.index_fill(1, _idx([1, 2, 1]), v)  # noqa: E731
    assert gradcheck(f, [_leaf(X), _leaf(1.5)])
    assert gradgradcheck(f, [_leaf(X), _leaf(1.5)])
    x, v = _leaf(X), _leaf(1.5)
    g = R.standard_normal((4, 3))
    f(x, v).backward(ember.from_numpy(g.copy()))
    np.testing.assert_allclose(v.grad.numpy(), g[:, 1:].sum())
    np.testing.assert_allclose(x.grad.numpy(), np.where([True, False, False], g, 0))


# ---------------------------------------------------------------- parity with torch.autograd
def _grads_both(em_fn, th_fn, arrays, g):
    torch = pytest.importorskip("torch")
    e_in = [_leaf(a) for a in arrays]
    em_fn(*e_in).backward(ember.from_numpy(g.copy()))
    t_in = [torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in arrays]
    th_fn(torch, *t_in).backward(torch.from_numpy(g.copy()))
    return [t.grad.numpy() for t in e_in], [t.grad.numpy() for t in t_in]


def _check_parity(em_fn, th_fn, arrays, out_shape):
    g = R.standard_normal(out_shape)
    ours, theirs = _grads_both(em_fn, th_fn, arrays, g)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


@pytest.mark.parity
@pytest.mark.parametrize("include_self", INCLUDE)
@pytest.mark.parametrize("reduce", SCATTER_MODES)
def test_scatter_reduce_parity(reduce, include_self):
    th = lambda t, x, s: t.scatter_reduce(x, 0, t.from_numpy(INDEX), s, reduce, include_self=include_self)  # noqa
    _check_parity(_scatter(0, INDEX, reduce, include_self), th, [X, SRC], X.shape)


@pytest.mark.parity
@pytest.mark.parametrize("include_self", INCLUDE)
@pytest.mark.parametrize("reduce", INDEX_MODES)
def test_index_reduce_parity(reduce, include_self):
    th = lambda t, x, s: x.index_reduce(1, t.from_numpy(INDEX1), s, reduce, include_self=include_self)  # noqa
    _check_parity(_index_reduce(1, INDEX1, reduce, include_self), th, [X3, SOURCE3], X3.shape)


@pytest.mark.parity
def test_index_fill_tensor_value_parity():
    th = lambda t, x, v: x.index_fill(0, t.from_numpy(np.array([3, 0, 3])), v)  # noqa: E731
    em = lambda x, v: x.index_fill(0, _idx([3, 0, 3]), v)  # noqa: E731
    _check_parity(em, th, [X, np.array(0.25)], X.shape)


# ties: amax/amin split the gradient equally among the tied extrema (self included when it ties)
TIE_X = np.array([[1.0, 2.0, 5.0], [3.0, 0.5, -1.0]])
TIE_SRC = np.array([[1.0, 2.0, -1.0], [1.0, 0.0, 5.0], [3.0, 2.0, -1.0], [3.0, 0.5, -1.0]])
TIE_INDEX = np.array([[0, 0, 1], [0, 1, 0], [1, 0, 1], [1, 1, 1]])


@pytest.mark.parity
@pytest.mark.parametrize("include_self", INCLUDE)
@pytest.mark.parametrize("reduce", ["amax", "amin"])
def test_scatter_reduce_ties_parity(reduce, include_self):
    th = lambda t, x, s: t.scatter_reduce(x, 0, t.from_numpy(TIE_INDEX), s, reduce, include_self=include_self)  # noqa
    _check_parity(_scatter(0, TIE_INDEX, reduce, include_self), th, [TIE_X, TIE_SRC], TIE_X.shape)


@pytest.mark.parity
@pytest.mark.parametrize("include_self", INCLUDE)
@pytest.mark.parametrize("reduce", ["amax", "amin"])
def test_index_reduce_ties_parity(reduce, include_self):
    x = np.array([[2.0, 1.0], [0.0, 4.0], [7.0, 7.0]])
    src = np.array([[2.0, 0.5], [2.0, 4.0], [7.0, 4.0]])
    th = lambda t, a, s: a.index_reduce(0, t.from_numpy(np.array([0, 0, 2])), s, reduce, include_self=include_self)  # noqa
    _check_parity(_index_reduce(0, [0, 0, 2], reduce, include_self), th, [x, src], x.shape)


# prod with zeros: one zero in a group takes the product of the others, two zeros give every member 0
ZERO_X = np.array([[1.0, 0.0, 2.0], [0.0, 3.0, 1.5], [2.0, 0.0, 0.0]])
ZERO_SRC = np.array([[0.0, 3.0, 2.0], [4.0, 0.0, -1.0], [0.0, 2.0, 0.0], [5.0, 0.5, 3.0]])
ZERO_INDEX = np.array([[0, 0, 0], [0, 1, 0], [1, 1, 2], [1, 0, 2]])


@pytest.mark.parity
@pytest.mark.parametrize("include_self", INCLUDE)
def test_scatter_reduce_prod_zeros_parity(include_self):
    th = lambda t, x, s: t.scatter_reduce(x, 0, t.from_numpy(ZERO_INDEX), s, "prod", include_self=include_self)  # noqa
    _check_parity(_scatter(0, ZERO_INDEX, "prod", include_self), th, [ZERO_X, ZERO_SRC], ZERO_X.shape)


@pytest.mark.parity
@pytest.mark.parametrize("include_self", INCLUDE)
def test_index_reduce_prod_zeros_parity(include_self):
    src = np.array([[0.0, 2.0, 1.0], [3.0, 0.0, 0.0], [1.0, 1.0, 0.0]])
    th = lambda t, x, s: x.index_reduce(0, t.from_numpy(np.array([2, 2, 0])), s, "prod", include_self=include_self)  # noqa
    _check_parity(_index_reduce(0, [2, 2, 0], "prod", include_self), th, [ZERO_X, src], ZERO_X.shape)


def test_prod_single_zero_second_order():
    """Away from a second zero the prod gradient stays smooth in the zero's group: gradgradcheck holds."""
    x = np.array([[1.5, 0.0, 2.0], [0.7, 3.0, 1.5]])
    src = np.array([[0.9, 3.0, 2.0], [4.0, 1.1, -1.0], [0.6, 2.0, 1.3]])
    index = np.array([[0, 0, 1], [1, 1, 0], [1, 0, 1]])
    f = _scatter(0, index, "prod", True)
    assert gradcheck(f, [_leaf(x), _leaf(src)])
    assert gradgradcheck(f, [_leaf(x), _leaf(src)])


@pytest.mark.parity
@pytest.mark.parametrize("reduce", SCATTER_MODES)
def test_scatter_reduce_inplace_parity(reduce):
    """The in-place variant's node uses the same formula, reading the old self."""
    th = lambda t, x, s: x.clone().scatter_reduce_(0, t.from_numpy(INDEX), s, reduce, include_self=False).pow(2)  # noqa
    em = lambda x, s: x.clone().scatter_reduce_(0, _idx(INDEX), s, reduce, include_self=False).pow(2)  # noqa: E731
    _check_parity(em, th, [X, SRC], X.shape)


@pytest.mark.parity
def test_index_fill_inplace_tensor_value_parity():
    th = lambda t, x, v: x.clone().index_fill_(1, t.from_numpy(np.array([0, 2])), v).pow(2)  # noqa: E731
    em = lambda x, v: x.clone().index_fill_(1, _idx([0, 2]), v).pow(2)  # noqa: E731
    _check_parity(em, th, [X, np.array(-0.5)], X.shape)


@pytest.mark.parametrize("reduce", SCATTER_MODES)
def test_scatter_reduce_forward_ad(reduce):
    """Forward mode (the transpose of the differentiable backward) against central differences."""
    import ember.autograd.forward_ad as fwAD
    tx, ts = R.standard_normal(X.shape), R.standard_normal(SRC.shape)

    def f(h):
        return ember.scatter_reduce(ember.from_numpy(X + h * tx), 0, _idx(INDEX), ember.from_numpy(SRC + h * ts),
                                    reduce, include_self=True).numpy()
    with fwAD.dual_level():
        x = fwAD.make_dual(ember.from_numpy(X.copy()), ember.from_numpy(tx.copy()))
        s = fwAD.make_dual(ember.from_numpy(SRC.copy()), ember.from_numpy(ts.copy()))
        tangent = fwAD.unpack_dual(ember.scatter_reduce(x, 0, _idx(INDEX), s, reduce)).tangent.numpy()
    np.testing.assert_allclose(tangent, (f(1e-6) - f(-1e-6)) / 2e-6, rtol=1e-5, atol=1e-7)
