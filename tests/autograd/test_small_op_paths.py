"""The fast paths a small-op training loop takes (issue 18), checked against torch: `x[i, j]`, `x[:, i]` with
plain ints and `:` (one view, the chain's select nodes) and the engine summing a broadcast input's gradient down to its shape."""
import warnings

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


def _graph(fn):
    """(name, saved dim, saved index, next entries' output numbers) down the first input of each node (ember keeps
    the saved arguments as `s_<name>`, torch shows them as `_saved_<name>`)."""
    out = []
    while fn is not None:
        index = getattr(fn, "_saved_index", getattr(fn, "s_index", None))
        if index is not None and index >= 2 ** 63:
            index -= 2 ** 64        # torch shows a saved negative SymInt as its uint64 bits
        out.append((type(fn).__name__, getattr(fn, "_saved_dim", getattr(fn, "s_dim", None)), index,
                    tuple(nr for f, nr in fn.next_functions)))
        nxt = [f for f, _ in fn.next_functions if f is not None]
        fn = nxt[0] if nxt else None
    return out


_S = slice(None)


@pytest.mark.parity
@pytest.mark.parametrize("index", [(_S, 2), (1, _S, -1), (_S, _S, 0), (-2, _S), (_S, -1, 1), (0, 1, 2), 2, -1])
@pytest.mark.parametrize("source", ["leaf", "result", "view", "sliced_view", "no_grad"])
def test_select_tuple_direct_path_matches_torch(index, source):
    """ints mixed with `:` (the direct path builds one view and the chain's SelectBackward0 nodes): values,
    geometry, _base, the recorded graph (names, dims, indices, edges) and the gradients as torch's."""
    torch = pytest.importorskip("torch")
    x = RNG.standard_normal((4, 5, 3)).astype(np.float32)
    res = {}
    for lib in (ember, torch):
        leaf = lib.tensor(x, requires_grad=True)
        src = {"leaf": lambda: leaf, "result": lambda: leaf * 2.0, "view": lambda: (leaf * 2.0).transpose(0, 1)[1:],
               "sliced_view": lambda: leaf[1:][:, 1:], "no_grad": lambda: leaf}[source]()
        if source == "no_grad":
            with lib.no_grad():
                y = src[index]
        else:
            y = src[index]
        root = src if src._base is None else src._base
        assert y._base is root
        res[lib.__name__] = (y.detach().numpy().copy(), tuple(y.shape), y.stride(), y.storage_offset(),
                             y.requires_grad, y.is_leaf, _graph(y.grad_fn))
        if y.grad_fn is not None:
            (y * lib.tensor(np.arange(1, y.numel() + 1, dtype=np.float32).reshape(tuple(y.shape)))).sum().backward()
            res[lib.__name__] += (leaf.grad.numpy().copy(),)
    e, t = res["ember"], res["torch"]
    np.testing.assert_array_equal(e[0], t[0])
    assert e[1:7] == t[1:7]
    if len(t) > 7:
        np.testing.assert_array_equal(e[7], t[7])


@pytest.mark.parity
@pytest.mark.parametrize("index", [(4, _S), (_S, 5), (_S, -6), (0, 0, 0, 0), (_S, _S, _S, 1)])
def test_select_tuple_out_of_range_errors_match_torch(index):
    torch = pytest.importorskip("torch")
    x = np.zeros((4, 5, 3), np.float32)
    with pytest.raises(IndexError) as te:
        torch.tensor(x, requires_grad=True)[index]
    with pytest.raises(IndexError) as ee:
        ember.tensor(x, requires_grad=True)[index]
    assert str(ee.value) == str(te.value)


@pytest.mark.parity
def test_select_tuple_views_share_version_and_see_in_place_like_torch():
    """The direct path's result is a view of its input's root: writes through it bump the shared version, an
    in-place op on the base afterwards re-bases its history (AsStridedBackward0) and the saved-tensor check
    fires, as torch's."""
    torch = pytest.importorskip("torch")
    x = RNG.standard_normal((4, 5)).astype(np.float32)
    out = {}
    for lib in (ember, torch):
        leaf = lib.tensor(x, requires_grad=True)
        f = leaf * 1.0
        v = f[1, 2]
        w = f[:, 3]
        f.mul_(2.0)
        assert v._version == w._version == f._version == 1
        a, b = v * 3, w.sum()     # (ember re-bases a view's grad_fn when it is next used, not on reading it)
        names = tuple(type(y.grad_fn.next_functions[0][0]).__name__ for y in (a, b))
        (a + b).backward()
        out[lib.__name__] = (names, leaf.grad.numpy().copy())
        p = lib.tensor(x.copy())
        q = p[2, 1]
        q.fill_(5.0)
        assert p._version == q._version == 1 and float(p[2, 1]) == 5.0
        e = (leaf * 1.0).exp()
        g = e[0, 0]
        e.add_(1.0)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            g.backward()
    assert out["ember"][0] == out["torch"][0]
    np.testing.assert_array_equal(out["ember"][1], out["torch"][1])


@pytest.mark.parity
def test_select_tuple_of_a_multi_output_view_and_inference_mode_match_torch():
    """An unbind output as input (the view is flagged: the chain records it) and inference mode (no record)."""
    torch = pytest.importorskip("torch")
    x = RNG.standard_normal((3, 4, 2)).astype(np.float32)
    seen = {}
    for lib in (ember, torch):
        leaf = lib.tensor(x, requires_grad=True)
        part = (leaf * 1.0).unbind(0)[1]
        y = part[2, 1]
        with pytest.raises(RuntimeError) as exc:
            y.mul_(2.0)
        with lib.inference_mode():
            z = leaf[1, :, 0]
            i = z.is_inference()
        seen[lib.__name__] = (_graph(y.grad_fn), type(exc.value).__name__, z.requires_grad, z.grad_fn is None, i,
                              z.detach().numpy().tolist())
    assert seen["ember"] == seen["torch"]


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


@pytest.mark.parity
@pytest.mark.parametrize("gval", [float("inf"), -0.0, float("nan"), -2.5])
@pytest.mark.parametrize("values", [[1.0, 3.0, 3.0, 2.0], [0.5, 4.0, -1.0, 2.0]])
def test_full_max_backward_grad_bits_match_torch(gval, values):
    """One extremum takes the incoming grad as it is (no division), ties share it; the other elements stay +0.0
    whatever the grad (inf, nan, -0.0)."""
    torch = pytest.importorskip("torch")
    out = []
    for lib in (ember, torch):
        x = lib.tensor(np.array(values, np.float32), requires_grad=True)
        x.max().backward(lib.tensor(gval))
        out.append(x.grad.numpy())
    np.testing.assert_array_equal(out[0], out[1])
    assert np.array_equal(np.signbit(out[0]), np.signbit(out[1]))


@pytest.mark.parity
@pytest.mark.parametrize("op", ["max", "min"])
@pytest.mark.parametrize("case", ["rows", "nan", "ties", "neg_dim", "int", "transposed", "3d", "keepdim", "1d"])
def test_max_min_dim_match_torch(op, case):
    torch = pytest.importorskip("torch")
    a = RNG.standard_normal((4, 5)).astype(np.float32)
    dim, keepdim = 1, False
    if case == "nan":
        a[1, 2] = a[1, 4] = a[3, 0] = np.nan
    elif case == "ties":
        a = np.round(a).astype(np.float32)
    elif case == "neg_dim":
        dim = -2
    elif case == "int":
        a = (a * 3).astype(np.int64)
    elif case == "3d":
        a = RNG.standard_normal((3, 4, 2)).astype(np.float64)
        dim = 1
    elif case == "keepdim":
        keepdim = True
    elif case == "1d":
        a, dim = a[0].copy(), 0
    res = []
    for lib in (ember, torch):
        x = lib.tensor(a)
        if case == "transposed":
            x = x.t()
        r = getattr(x, op)(dim=dim, keepdim=keepdim)
        res.append(r)
    (ve, ie), (vt, it) = res
    assert str(ve.dtype).split(".")[1] == str(vt.dtype).split(".")[1] and str(ie.dtype) == "ember.int64"
    assert tuple(ve.shape) == tuple(vt.shape) and tuple(ie.shape) == tuple(it.shape)
    np.testing.assert_array_equal(ve.numpy(), vt.numpy())
    np.testing.assert_array_equal(ie.numpy(), it.numpy())


@pytest.mark.parity
def test_max_dim_errors_match_torch():
    torch = pytest.importorskip("torch")
    for lib in (ember, torch):
        with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)"):
            lib.zeros(2, 3).max(dim=2)
        with pytest.raises(IndexError, match="max\\(\\): Expected reduction dim 1 to have non-zero size."):
            lib.zeros(2, 0).max(dim=1)


@pytest.mark.parity
@pytest.mark.parametrize("op", ["exp", "log"])
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("shape", [(), (7,), (3, 5), "transposed"])
def test_small_exp_log_match_torch_quietly(op, dtype, shape):
    """The small-tensor exp/log path: torch's values (overflow, log of negatives and zeros, NaN, inf) and no
    numpy warning."""
    torch = pytest.importorskip("torch")
    special = np.array([1.0, 100.0, -1e30, np.nan, 0.0, -0.0, np.inf, -np.inf, -3.0, 1e-40, 0.5, 7.25, -88.0, 89.0,
                        710.0], np.float64)
    n = 15 if shape == "transposed" else int(np.prod(shape))
    with np.errstate(over="ignore"):          # (710 and 1e-40 do not fit float16 or float32)
        a = np.resize(special, n).astype(dtype)
    a = a.reshape(3, 5) if shape == "transposed" else a.reshape(shape)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        xe = ember.tensor(a)
        xe = xe.t() if shape == "transposed" else xe
        re = getattr(xe, op)()
    xt = torch.tensor(a)
    xt = xt.t() if shape == "transposed" else xt
    rt = getattr(xt, op)()
    assert str(re.dtype).split(".")[1] == str(rt.dtype).split(".")[1] and tuple(re.shape) == tuple(rt.shape)
    np.testing.assert_allclose(re.numpy().astype(np.float64), rt.numpy().astype(np.float64), rtol=2e-3 if
                               dtype == "float16" else 1e-6, atol=0)


@pytest.mark.parametrize("dt", ["float32", "float64", "float16"])
@pytest.mark.parametrize("n", [1, 7, 1024, 1025, 5000])
def test_masked_grad_small_and_large_paths_give_the_same_bits(dt, n):
    """formulas/_common.masked_grad: np.where up to 1024 elements, the integer AND above: both give grad's bits
    where the mask is set (NaN payloads, signed zeros) and +0.0 elsewhere; a broadcast mask too."""
    from ember.autograd.formulas._common import masked_grad
    rng = np.random.default_rng(n)
    g = rng.standard_normal(n).astype(dt)
    g[:: 5] = -0.0
    g[1:: 7] = np.nan
    g.view(f"u{g.itemsize}")[2:: 11] |= 1          # NaN payloads and odd last bits
    m = rng.random(n) < 0.5
    got = masked_grad(ember.tensor(m), ember.tensor(g)).numpy()
    want = np.where(m, g, g.dtype.type(0))
    np.testing.assert_array_equal(got.view(f"u{g.itemsize}"), want.view(f"u{g.itemsize}"))
    m2 = rng.random((3, 1)) < 0.5
    g2 = rng.standard_normal((3, 4)).astype(dt)
    got2 = masked_grad(ember.tensor(m2), ember.tensor(g2)).numpy()
    np.testing.assert_array_equal(got2, np.where(m2, g2, g2.dtype.type(0)))
