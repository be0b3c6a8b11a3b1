"""The view family's functional scatters (slice/select/diagonal/as_strided_scatter): torch's errors, the
strides of the result, meta tensors, and gradients against torch."""
import numpy as np
import pytest

import ember

CASES = [
    ("slice_scatter", (4, 5), (2, 5), (0, 1, 3)),
    ("slice_scatter", (4, 5), (4, 2), (1, None, None, 3)),
    ("select_scatter", (4, 5), (5,), (0, -1)),
    ("diagonal_scatter", (4, 5), (3,), (2,)),
    ("diagonal_scatter", (2, 3, 4), (3, 2), (0, 0, 2)),
    ("as_strided_scatter", (4, 5), (2, 2), ((2, 2), (5, 1), 6)),
]


def _mk(lib, shape, seed):
    return lib.from_numpy(np.random.default_rng(seed).standard_normal(shape))


@pytest.mark.parity
@pytest.mark.parametrize("name,shape,src_shape,args", CASES)
def test_values_and_gradients_match_torch(name, shape, src_shape, args):
    torch = pytest.importorskip("torch")
    res = {}
    for lib in (ember, torch):
        x = _mk(lib, shape, 0).requires_grad_()
        src = _mk(lib, src_shape, 1).requires_grad_()
        w = _mk(lib, shape, 2)
        out = getattr(lib, name)(x * 1, src * 1, *args)
        (out * w).sum().backward()
        res[lib] = (out.detach().numpy(), x.grad.numpy(), src.grad.numpy())
    e, t = res[ember], res[torch]
    np.testing.assert_allclose(e[0], t[0])
    np.testing.assert_allclose(e[2], t[2])
    if name != "as_strided_scatter":      # torch's self grad keeps only the region (tests/autograd notes why)
        np.testing.assert_allclose(e[1], t[1])
    else:
        want = np.random.default_rng(2).standard_normal(shape)     # w, with the written region zeroed
        np.lib.stride_tricks.as_strided(want.reshape(-1)[args[2]:], args[0],
                                        [s * 8 for s in args[1]], writeable=True)[...] = 0
        np.testing.assert_allclose(e[1], want)


@pytest.mark.parity
@pytest.mark.parametrize("name,args,src_shape", [
    ("slice_scatter", (0, 0, 2), (3, 4)),
    ("select_scatter", (1, 0), (4,)),
    ("diagonal_scatter", (), (2,)),
    ("as_strided_scatter", ((2,), (1,)), (3,)),
])
def test_size_mismatch_error_matches_torch(name, args, src_shape):
    torch = pytest.importorskip("torch")
    msgs = []
    for lib in (ember, torch):
        with pytest.raises(RuntimeError) as e:
            getattr(lib, name)(lib.zeros(3, 4), lib.ones(*src_shape), *args)
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]


@pytest.mark.parity
def test_index_errors_match_torch():
    torch = pytest.importorskip("torch")
    for lib in (ember, torch):
        with pytest.raises(IndexError, match="out of range"):
            lib.select_scatter(lib.zeros(3, 4), lib.ones(4), 0, 3)
        with pytest.raises(RuntimeError, match="slice step must be positive"):
            lib.slice_scatter(lib.zeros(3, 4), lib.ones(3, 4), 0, None, None, 0)


@pytest.mark.parity
def test_result_keeps_self_strides():
    torch = pytest.importorskip("torch")
    for lib in (ember, torch):
        base = lib.zeros(4, 3).t()
        out = lib.slice_scatter(base, lib.ones(3, 2), 1, 0, 2)
        assert out.stride() == (1, 3)
        out = lib.as_strided_scatter(base, lib.ones(2), (2,), (1,), 1)   # storage positions of base
        assert [r[0] for r in out.tolist()] == [0.0, 1.0, 1.0] and out.stride() == (1, 3)


def test_meta():
    x = ember.empty(3, 4, device="meta")
    out = ember.diagonal_scatter(x, ember.empty(3, device="meta"))
    assert out.device.type == "meta" and out.shape == (3, 4)
    with pytest.raises(RuntimeError, match="expected src to have a size equal to the slice of self"):
        ember.select_scatter(x, ember.empty(3, device="meta"), 0, 0)


SELF_GEOMETRIES = {
    "dense-offset": lambda lib: lib.arange(20.).reshape(4, 5)[1:],
    "strided": lambda lib: lib.arange(20.).reshape(4, 5)[:, ::2],
    "transposed": lambda lib: lib.arange(12.).reshape(4, 3).t(),
    "expanded": lambda lib: lib.arange(3.).reshape(3, 1).expand(3, 4),
    "expanded-3d": lambda lib: lib.arange(3.).reshape(1, 3, 1).expand(2, 3, 4).transpose(0, 2)[0],
}


@pytest.mark.parity
@pytest.mark.parametrize("geometry", list(SELF_GEOMETRIES))
def test_scatter_into_every_self_geometry_matches_torch(geometry):
    """torch's clone_preserve_strides: the output copies self's whole storage, keeping strides and storage
    offset, unless self overlaps itself (a stride-0 dim), which is cloned first, since writing src into a view
    of shared elements would change every position sharing them."""
    torch = pytest.importorskip("torch")
    got = []
    for lib in (ember, torch):
        s = SELF_GEOMETRIES[geometry](lib)
        n, m = s.shape
        outs = [lib.slice_scatter(s, lib.full((n, 1), -1.0), 1, 1, 2),
                lib.select_scatter(s, -lib.arange(1.0, n + 1), 1, 0),
                lib.diagonal_scatter(s, lib.full((min(n, m),), -7.0)),
                lib.as_strided_scatter(s, lib.full((2,), -5.0), (2,), (1,), s.storage_offset())]
        got.append([(o.tolist(), o.stride(), o.storage_offset(), o.untyped_storage().nbytes()) for o in outs])
    assert got[0] == got[1]


# ---------------------------------------------------------------- torch's aliases and tensor_split family
SPLITS = [
    lambda t, x: t.tensor_split(x, 3, dim=2),
    lambda t, x: x.tensor_split([1, 5], 2),
    lambda t, x: t.tensor_split(x, [2, 1], dim=-1),
    lambda t, x: t.tensor_split(x, t.tensor([1, 3]), 2),
    lambda t, x: t.tensor_split(x, t.tensor(2), 1),
    lambda t, x: t.tensor_split(x, indices=[1], dim=0),
    lambda t, x: t.tensor_split(x, sections=5, dim=0),
    lambda t, x: t.hsplit(x, 3),
    lambda t, x: x.hsplit([1, 2]),
    lambda t, x: t.hsplit(x[0, 0], 2),
    lambda t, x: t.vsplit(x, [1]),
    lambda t, x: x.vsplit(2),
    lambda t, x: t.dsplit(x, 2),
    lambda t, x: x.dsplit([3]),
]
SPLIT_ERRORS = [
    lambda t, x: t.hsplit(x, 2),
    lambda t, x: t.hsplit(x, 0),
    lambda t, x: t.hsplit(t.tensor(1.0), 1),
    lambda t, x: t.vsplit(t.ones(3), 1),
    lambda t, x: t.dsplit(x[0], [1]),
    lambda t, x: t.tensor_split(x, t.tensor([1.0])),
    lambda t, x: t.tensor_split(x, t.ones(1, 1, dtype=t.long)),
    lambda t, x: t.tensor_split(t.tensor(1.0), 2),
    lambda t, x: t.tensor_split(x, 0),
]


@pytest.mark.parity
@pytest.mark.parametrize("i", range(len(SPLITS)))
def test_tensor_split_family_matches_torch_as_views_with_gradients(i):
    torch = pytest.importorskip("torch")
    res = {}
    for lib in (ember, torch):
        base = _mk(lib, (2, 3, 4), 0).requires_grad_()
        x = base * 1
        parts = SPLITS[i](lib, x)
        assert isinstance(parts, tuple)
        assert all(p._base is x for p in parts)
        sum((p * (k + 1)).sum() for k, p in enumerate(parts)).backward()
        res[lib] = ([(tuple(p.shape), p.stride(), p.storage_offset()) for p in parts],
                    [p.detach().numpy() for p in parts], base.grad.numpy())
    e, t = res[ember], res[torch]
    assert e[0] == t[0]
    for a, b in zip(e[1], t[1]):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(e[2], t[2])


@pytest.mark.parity
@pytest.mark.parametrize("i", range(len(SPLIT_ERRORS)))
def test_tensor_split_family_errors_match_torch(i):
    torch = pytest.importorskip("torch")
    msgs = []
    for lib in (ember, torch):
        with pytest.raises(RuntimeError) as e:
            SPLIT_ERRORS[i](lib, lib.ones(2, 3, 4))
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]


ALIASES = [
    lambda t, x: t.swapaxes(x, 0, 2),
    lambda t, x: x.swapaxes(-1, 1),
    lambda t, x: t.swapdims(x, 0, 1),
    lambda t, x: x.swapdims(2, 2),
    lambda t, x: t.moveaxis(x, 0, -1),
    lambda t, x: x.moveaxis([0, 1], [2, 0]),
    lambda t, x: t.ravel(x),
    lambda t, x: x.transpose(0, 2).ravel(),
]


@pytest.mark.parity
@pytest.mark.parametrize("i", range(len(ALIASES)))
def test_movedim_transpose_aliases_and_ravel_match_torch(i):
    torch = pytest.importorskip("torch")
    res = {}
    for lib in (ember, torch):
        base = _mk(lib, (2, 3, 4), 0).requires_grad_()
        x = base * 1
        out = ALIASES[i](lib, x)
        (out * _mk(lib, tuple(out.shape), 1)).sum().backward()
        res[lib] = (tuple(out.shape), out.stride(), out._base is x, out.detach().numpy(), base.grad.numpy())
    e, t = res[ember], res[torch]
    assert e[:3] == t[:3]
    np.testing.assert_array_equal(e[3], t[3])
    np.testing.assert_array_equal(e[4], t[4])


@pytest.mark.parity
def test_alias_errors_match_torch():
    torch = pytest.importorskip("torch")
    for f in (lambda t: t.swapaxes(t.ones(2, 3), 0, 2), lambda t: t.moveaxis(t.ones(2, 3), [0, 0], [0, 1])):
        msgs = []
        for lib in (ember, torch):
            with pytest.raises(IndexError if f is None else Exception) as e:
                f(lib)
            msgs.append((type(e.value).__name__, str(e.value)))
        assert msgs[0] == msgs[1]
