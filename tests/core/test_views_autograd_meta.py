"""Views and the ADInplaceOrView layer: `_base`, shared version counters; dtype sweep; hypothesis
checks of view/reshape stride rules against torch."""
import numpy as np
import pytest

import ember
from _view_helpers import base, parity
from test_views import VIEW_CASES

hyp = pytest.importorskip("hypothesis")
from hypothesis import given, settings, strategies as st  # noqa: E402


@pytest.mark.parametrize("name", sorted(VIEW_CASES))
def test_every_view_sets_base_and_shares_version(name):
    shape, fn = VIEW_CASES[name]
    x = ember.from_numpy(base(shape))
    outs = fn(ember, x)
    outs = list(outs) if isinstance(outs, (list, tuple)) else [outs]
    for v in outs:
        if v is x:            # contiguous() of a contiguous tensor returns self
            continue
        if name == "detach" or name.startswith("view_dtype"):   # torch's non-differentiable views: storage and
            # version shared, no _base
            assert v._base is None and not v._is_view()
        else:
            assert v._base is x and v._is_view()
        assert v._version_counter is x._version_counter
    before = x._version
    x.add_(1)
    assert all(v._version == before + 1 for v in outs)


def test_view_of_view_points_at_root_base():
    x = ember.from_numpy(base((4, 4)))
    v = x[1:].t().view(-1) if False else x[1:].t()[0]
    assert v._base is x


def test_copies_are_not_views():
    x = ember.from_numpy(base((2, 3)))
    for r in (x.clone(), x.t().reshape(-1), x.t().contiguous(), x.double(), x[[0, 1]], ember.cat([x, x]),
              x.to(ember.float32, copy=True)):
        assert r._base is None and r.untyped_storage() is not x.untyped_storage()


def test_inplace_through_view_bumps_base_version():
    x = ember.from_numpy(base((2, 3)))
    v = x[0]
    v.zero_()
    assert x._version == 1
    x[1, [0, 2]] = 5.0
    assert x._version == 2 and v._version == 2


DT = ["float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool", "complex64"]


@pytest.mark.parity
@pytest.mark.parametrize("dtype", DT)
@pytest.mark.parametrize("op", ["view", "t_contig", "expand_clone", "index", "cat", "diag", "setitem"])
def test_dtype_sweep(dtype, op):
    pytest.importorskip("torch")
    arr = base((3, 4), "float64").astype(dtype)
    fns = {
        "view": lambda m, x: x.view(2, 6).transpose(0, 1)[1:, 1],
        "t_contig": lambda m, x: x.t().contiguous(),
        "expand_clone": lambda m, x: x[:, :1].expand(3, 5).clone(),
        "index": lambda m, x: x[[2, 0], 1:],
        "cat": lambda m, x: m.cat([x, x[:1]]),
        "diag": lambda m, x: x.diagonal(1),
        "setitem": lambda m, x: _set(x),
    }
    parity(fns[op], arr, meta=op not in ("setitem",))


def _set(x):
    x[1] = x[0]
    x[:, [0, 3]] = x[:, [3, 0]].clone()
    return x


@settings(max_examples=60, deadline=None)
@given(shape=st.lists(st.integers(1, 4), min_size=1, max_size=4), data=st.data())
def test_view_and_reshape_match_torch(shape, data):
    torch = pytest.importorskip("torch")
    perm = data.draw(st.permutations(range(len(shape))))
    arr = base(tuple(shape))
    n = arr.size
    new = data.draw(st.sampled_from([s for s in _factorizations(n)]))
    e = ember.from_numpy(arr.copy()).permute(*perm)
    t = torch.from_numpy(arr.copy()).permute(*perm)
    try:
        vt = t.view(new)
    except RuntimeError:
        with pytest.raises(RuntimeError, match="reshape"):
            e.view(new)
    else:
        ve = e.view(new)
        assert ve.stride() == vt.stride() and ve.untyped_storage() is e.untyped_storage()
        np.testing.assert_array_equal(ve.numpy(), vt.numpy())
    re, rt = e.reshape(new), t.reshape(new)
    assert re.stride() == rt.stride()
    np.testing.assert_array_equal(re.numpy(), rt.numpy())


def _factorizations(n):
    out = [(n,), (1, n), (n, 1)]
    for a in range(2, n):
        if n % a == 0:
            out.append((a, n // a))
            for b in range(2, n // a):
                if (n // a) % b == 0:
                    out.append((a, b, n // a // b))
    return out


@settings(max_examples=60, deadline=None)
@given(shape=st.lists(st.integers(1, 4), min_size=1, max_size=3), data=st.data())
def test_random_slicing_matches_torch(shape, data):
    torch = pytest.importorskip("torch")
    idx = []
    for s in shape:
        kind = data.draw(st.sampled_from(["int", "slice", "none", "list"]))
        if kind == "int":
            idx.append(data.draw(st.integers(-s, s - 1)))
        elif kind == "slice":
            idx.append(slice(data.draw(st.one_of(st.none(), st.integers(-5, 5))),
                             data.draw(st.one_of(st.none(), st.integers(-5, 5))), data.draw(st.integers(1, 3))))
        elif kind == "none":
            idx.append(None)
            idx.append(slice(None))
        else:
            idx.append(data.draw(st.lists(st.integers(-s, s - 1), min_size=1, max_size=3)))
    arr = base(tuple(shape))
    e, t = ember.from_numpy(arr.copy()), torch.from_numpy(arr.copy())
    try:
        rt = t[tuple(idx)]
    except IndexError:
        with pytest.raises(IndexError):
            e[tuple(idx)]
        return
    re = e[tuple(idx)]
    assert tuple(re.shape) == tuple(rt.shape)
    np.testing.assert_array_equal(re.numpy(), rt.numpy())
    val = np.full(tuple(rt.shape), -1.0, np.float32)
    e[tuple(idx)] = ember.from_numpy(val.copy())
    t[tuple(idx)] = torch.from_numpy(val.copy())
    np.testing.assert_array_equal(e.numpy(), t.numpy())
