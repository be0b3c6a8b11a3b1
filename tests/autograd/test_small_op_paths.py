"""The fast paths a small-op training loop takes (issue 18), checked against torch: `x[i, j]` with plain ints
(two selects, a view) and the engine summing a broadcast input's gradient down to its shape."""
import numpy as np
import pytest

import ember

RNG = np.random.default_rng(18)


def _chain(fn):
    names = []
    while fn is not None:
        names.append(type(fn).__name__)
        nxt = [f for f, _ in fn.next_functions if f is not None]
        fn = nxt[0] if nxt else None
    return names


@pytest.mark.parity
@pytest.mark.parametrize("index", [(3, 2), (-1, -5), (0,), (2, 1, 0), (-12, 4, -1)])
def test_int_tuple_index_matches_torch(index):
    torch = pytest.importorskip("torch")
    shape = (12, 5) if len(index) <= 2 else (12, 5, 3)
    x = RNG.standard_normal(shape).astype(np.float32)
    xe = ember.tensor(x, requires_grad=True)
    xt = torch.tensor(x, requires_grad=True)
    ye, yt = xe[index], xt[index]
    np.testing.assert_array_equal(ye.detach().numpy(), yt.detach().numpy())
    assert ye._base is xe and ye.storage_offset() == yt.storage_offset() and ye.stride() == yt.stride()
    assert _chain(ye.grad_fn) == _chain(yt.grad_fn)
    (ye * 3).sum().backward()
    (yt * 3).sum().backward()
    np.testing.assert_array_equal(xe.grad.numpy(), xt.grad.numpy())


@pytest.mark.parity
def test_int_tuple_index_without_grad_is_a_view():
    torch = pytest.importorskip("torch")
    x = RNG.standard_normal((4, 5)).astype(np.float32)
    for lib in (ember, torch):
        t = lib.tensor(x.copy(), requires_grad=True)
        with lib.no_grad():
            v = t[1, 2]
        assert v._base is t and v.grad_fn is None
        e = lib.tensor(x.copy())
        w = e[2, -1]
        w.fill_(7.0)
        assert float(e[2, 4]) == 7.0 and e._version == 1


@pytest.mark.parity
@pytest.mark.parametrize("index", [(12, 0), (0, 5), (-13, 0), (0, 0, 0)])
def test_int_tuple_index_errors_match_torch(index):
    torch = pytest.importorskip("torch")
    x = np.zeros((12, 5), np.float32)
    with pytest.raises(IndexError) as te:
        torch.tensor(x)[index]
    with pytest.raises(IndexError) as ee:
        ember.tensor(x)[index]
    assert str(ee.value) == str(te.value)


@pytest.mark.parity
@pytest.mark.parametrize("shapes", [((5,), ()), ((2, 5), (1, 5)), ((2, 3, 4), (3, 1)), ((2, 3), (2, 1)),
                                    ((4,), (2, 3, 4))])
@pytest.mark.parametrize("op", ["add", "sub", "mul"])
def test_broadcast_input_grad_summed_like_torch(shapes, op):
    torch = pytest.importorskip("torch")
    a = RNG.standard_normal(shapes[0]).astype(np.float32)
    b = RNG.standard_normal(shapes[1]).astype(np.float32)
    grads = {}
    for lib in (ember, torch):
        ta, tb = lib.tensor(a, requires_grad=True), lib.tensor(b, requires_grad=True)
        y = getattr(ta, op)(tb)
        (y * lib.tensor(np.arange(y.numel(), dtype=np.float32).reshape(tuple(y.shape)))).sum().backward()
        grads[lib.__name__] = (ta.grad, tb.grad)
    for e, t in zip(grads["ember"], grads["torch"]):
        assert tuple(e.shape) == tuple(t.shape) and e.is_contiguous()
        np.testing.assert_allclose(e.numpy(), t.numpy(), rtol=1e-6)


@pytest.mark.parity
def test_broadcast_grad_of_a_0dim_input_in_a_loop_matches_torch():
    """The CRF forward algorithm's pattern: a 0-dim value broadcast into vectors many times, its grads summed."""
    torch = pytest.importorskip("torch")
    f = RNG.standard_normal((6, 4)).astype(np.float32)
    out = {}
    for lib in (ember, torch):
        feats = lib.tensor(f, requires_grad=True)
        alpha = feats[0]
        for t in range(1, 6):
            nxt = []
            for k in range(4):
                s = alpha + feats[t, k]
                m = s.max()
                nxt.append(m + (s - m).exp().sum().log())
            alpha = lib.stack(nxt)
        alpha.sum().backward()
        out[lib.__name__] = feats.grad.numpy()
    np.testing.assert_allclose(out["ember"], out["torch"], rtol=1e-5, atol=1e-6)


def test_broadcast_grad_under_create_graph_records_its_sum():
    a = ember.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = ember.tensor(2.0, requires_grad=True)
    (g,) = ember.autograd.grad((a * b * b).sum(), b, create_graph=True)
    assert g.requires_grad and g.shape == ()
    (gg,) = ember.autograd.grad(g, b)
    assert float(gg) == pytest.approx(2 * 6.0)


@pytest.mark.parity
@pytest.mark.parametrize("values", [[1.0, 3.0, 3.0, 2.0], [1.0, float("nan"), 2.0, float("nan")], [5.0, -1.0, 0.5, 2.0]])
@pytest.mark.parametrize("neg", [False, True])
@pytest.mark.parametrize("op", ["max", "min"])
def test_full_max_min_backward_matches_torch(values, neg, op):
    """max() / min() over all elements: grad split evenly over the ties (NaN ones when the result is NaN),
    also for an input carrying a lazy negation (ember's neg bit)."""
    torch = pytest.importorskip("torch")
    v = np.array(values, np.float32)
    grads = []
    for lib in (ember, torch):
        x = lib.tensor(v, requires_grad=True)
        y = x._neg_view() if neg else x
        r = getattr(y, op)()
        (r * 3).backward()
        grads.append(x.grad.numpy())
    np.testing.assert_array_equal(grads[0], grads[1])


@pytest.mark.parity
@pytest.mark.parametrize("shape,dim,dtypes", [
    ((), 0, ("float32",) * 5), ((3, 4), 0, ("float64",) * 3), ((3, 4), -1, ("float32",) * 2),
    ((2, 3), 1, ("float32",) * 4), ((0, 3), 0, ("float32",) * 2), ((4,), 0, ("int64",) * 3),
    ((), 0, ("bool",) * 3), ((2,), 0, ("float32", "float64")), ((), 0, ("int32", "float32", "int64"))])
def test_stack_matches_torch(shape, dim, dtypes):
    torch = pytest.importorskip("torch")
    arrays = [(RNG.standard_normal(shape) * 4).astype(d) for d in dtypes]
    re = ember.stack([ember.tensor(a) for a in arrays], dim)
    rt = torch.stack([torch.tensor(a) for a in arrays], dim)
    assert re.dtype.name == str(rt.dtype).split(".")[1] and tuple(re.shape) == tuple(rt.shape)
    assert re.is_contiguous() and re.stride() == rt.stride()
    np.testing.assert_array_equal(re.numpy(), rt.numpy())


@pytest.mark.parity
def test_stack_errors_match_torch():
    torch = pytest.importorskip("torch")
    for lib in (ember, torch):
        with pytest.raises(RuntimeError, match=r"stack expects each tensor to be equal size, but got \[2\] at entry 0 "
                                               r"and \[3\] at entry 1"):
            lib.stack([lib.zeros(2), lib.zeros(3)])
        with pytest.raises(RuntimeError, match="stack expects a non-empty TensorList"):
            lib.stack([])


@pytest.mark.parity
@pytest.mark.parametrize("shape,dim", [((), 0), ((3,), 0), ((2, 3), -1), ((2, 3), 1), ((70, 70), 0)])
def test_stack_backward_matches_torch(shape, dim):
    """stack's backward splits the grad in numpy for small grads (fresh copies), by unbind's views otherwise
    (70x70x3 > 4096 elements); the same gradients either way, also when one input is stacked twice."""
    torch = pytest.importorskip("torch")
    arrays = [RNG.standard_normal(shape).astype(np.float32) for _ in range(3)]
    w = RNG.standard_normal((3,) + shape).astype(np.float32)
    grads = []
    for lib in (ember, torch):
        xs = [lib.tensor(a, requires_grad=True) for a in arrays]
        y = lib.stack([xs[0], xs[1] * 2, xs[2], xs[0]], dim)
        wt = lib.tensor(np.moveaxis(np.concatenate([w, w[:1]]), 0, dim % (len(shape) + 1)).copy())
        (y * wt).sum().backward()
        grads.append([x.grad.numpy() for x in xs])
    for ge, gt in zip(*grads):
        np.testing.assert_array_equal(ge, gt)


@pytest.mark.parity
def test_stack_backward_double_backward_matches_torch():
    torch = pytest.importorskip("torch")
    a = RNG.standard_normal(4).astype(np.float32)
    out = []
    for lib in (ember, torch):
        x = lib.tensor(a, requires_grad=True)
        y = lib.stack([x * x, x.exp()]).sum()
        (g,) = lib.autograd.grad(y, x, create_graph=True)
        g.sum().backward()
        out.append((g.detach().numpy(), x.grad.numpy()))
    np.testing.assert_allclose(out[0][0], out[1][0], rtol=1e-6)
    np.testing.assert_allclose(out[0][1], out[1][1], rtol=1e-6)
