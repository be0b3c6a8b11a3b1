"""resize_ that grows the storage keeps every view of it on the same bytes (torch resizes the storage
in place); checked directly and against torch."""
import gc
import warnings

import numpy as np
import pytest

import ember


def _scenario(lib):
    """Views of several kinds, then a growing resize_ and writes through both sides."""
    x = lib.arange(6.0)
    v = x.view(2, 3)
    s = x[2:4]
    t = x.view(2, 3).t()
    d = x.detach()
    x.resize_(10)
    x[:6] += 100
    x[6:] = 7
    out = [v.tolist(), s.tolist(), t.tolist(), d.tolist(), x.tolist()]
    v[0, 0] = -1
    t[2, 1] = -2
    s.mul_(10)
    out += [x.tolist(), d.tolist()]
    out += [v.data_ptr() - x.data_ptr(), s.data_ptr() - x.data_ptr(), x.untyped_storage().nbytes(),
            v.untyped_storage().nbytes(), d.untyped_storage().nbytes()]
    return out


def test_views_follow_a_growing_resize():
    x = ember.arange(4.0)
    v = x.view(2, 2)
    s = x[1:3]
    x.resize_(8)
    assert x.data_ptr() == v.data_ptr() == x.untyped_storage().data_ptr()
    assert s.data_ptr() == x.data_ptr() + 4
    x[0] = 42.0
    assert v[0, 0].item() == 42.0
    s[0] = -5.0
    assert x[1].item() == -5.0
    assert v.untyped_storage() is x.untyped_storage()


def test_direct_storage_resize_moves_every_view():
    y = ember.zeros(3)
    z = y[1:]
    st = y.untyped_storage()
    st.resize_(40)
    assert y.data_ptr() == st.data_ptr() and z.data_ptr() == st.data_ptr() + 4
    z[0] = 5.0
    assert y.tolist() == [0.0, 5.0, 0.0]
    assert st.nbytes() == 40


def test_fresh_kernel_result_then_view_then_resize():
    # a kernel output owns its numpy array; its storage is made on demand and must still be tracked
    x = ember.ones(2, 2) * 3
    v = x.view(4)
    x.resize_(3, 3)
    v.fill_(1.5)
    assert x.view(-1)[:4].tolist() == [1.5] * 4


@pytest.mark.parity
@pytest.mark.parametrize("how", ["data", "detach"])
def test_data_alias_and_parameter_views_follow(how):
    """A Parameter cannot be resized itself (torch's "cannot resize variables that require grad", even under
    no_grad); its `.data` / detach() alias can: the storage grows in place, the Parameter keeps its shape and
    sees writes through any alias."""
    torch = pytest.importorskip("torch")
    res = []
    for lib in (torch, ember):
        p = lib.nn.Parameter(lib.zeros(4))
        alias = p.data
        with lib.no_grad():
            with pytest.raises(RuntimeError, match="^cannot resize variables that require grad$"):
                p.resize_(6)
        grown = p.data if how == "data" else p.detach()
        grown.resize_(6)
        grown[3], grown[5] = 9.0, 7.0
        alias[1] = 5.0
        res.append((tuple(p.shape), tuple(grown.shape), p.tolist(), grown[:4].tolist(), alias.tolist(),
                    p.data_ptr() == grown.data_ptr() == alias.data_ptr(), p.requires_grad))
    assert res[0] == res[1]
    assert res[1][0] == (4,) and res[1][2] == [0.0, 5.0, 0.0, 9.0]


def test_grad_version_counter_shared_after_resize():
    x = ember.zeros(3)
    v = x.view(3)
    x.resize_(5)
    before = v._version
    x.add_(1)
    assert v._version > before and v.tolist() == [1.0, 1.0, 1.0]


def test_resize_within_capacity_keeps_buffer():
    x = ember.arange(6.0)
    v = x[:2]
    ptr = x.data_ptr()
    x.resize_(2)
    x.resize_(6)       # the storage never shrank: same bytes, no copy
    assert x.data_ptr() == ptr and v.data_ptr() == ptr
    assert x.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]


def test_view_tracking_does_not_grow_without_bound():
    x = ember.zeros(8)
    for _ in range(5000):
        x.view(2, 4)
    gc.collect()
    assert len(x.untyped_storage()._views) < 200


def test_views_of_every_fast_path_follow():
    # t/view/select/slice build their views without a weak reference each: resize_ finds them by a scan
    x = ember.arange(6.0)
    m = x.view(2, 3)
    views = [m.t(), m[1], m[:, 1:], m.view(6)]
    x.resize_(50)
    assert [v.data_ptr() - x.data_ptr() for v in views] == [0, 12, 4, 0]
    x[:6] = ember.arange(10.0, 16.0)
    assert [v.tolist() for v in views] == [[[10.0, 13.0], [11.0, 14.0], [12.0, 15.0]], [13.0, 14.0, 15.0],
                                           [[11.0, 12.0], [14.0, 15.0]], [10.0, 11.0, 12.0, 13.0, 14.0, 15.0]]


def test_view_with_a_dict_of_its_own_follows():
    # a tensor given attributes of its own keeps them in a __dict__: the scan finds it through that dict
    x = ember.zeros(4)
    v = x[1:3]
    v.note = "mine"
    assert v.__dict__["note"] == "mine"
    x.resize_(64)
    v.fill_(2.0)
    assert x.tolist()[:4] == [0.0, 2.0, 2.0, 0.0] and v.data_ptr() == x.data_ptr() + 4


def test_meta_resize_unaffected():
    x = ember.empty(3, device="meta")
    v = x.view(3)
    x.resize_(10)
    assert x.shape == (10,) and v.shape == (3,) and x.untyped_storage().nbytes() == 40


@pytest.mark.parity
def test_resize_views_parity():
    torch = pytest.importorskip("torch")
    a, b = _scenario(ember), _scenario(torch)
    assert a == b


@pytest.mark.parity
def test_out_resize_keeps_views_parity():
    torch = pytest.importorskip("torch")
    res = []
    for lib in (ember, torch):
        out = lib.zeros(2)
        head = out[:1]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            lib.add(lib.ones(4), lib.ones(4), out=out)      # out grows 2 -> 4 elements
        head.fill_(-3)
        res.append((out.tolist(), head.data_ptr() == out.data_ptr()))
    assert res[0] == res[1]
    np.testing.assert_array_equal(res[0][0], [-3.0, 2.0, 2.0, 2.0])


def test_storage_pickles_and_copies_without_its_views():
    import copy
    import pickle
    x = ember.arange(4.0)
    v = x[1:]
    s = x.untyped_storage()
    for s2 in (pickle.loads(pickle.dumps(s)), copy.deepcopy(s)):
        assert bytes(s2) == bytes(s) and s2._views == []
        s2.resize_(64)                       # growing the copy must not move the original's views
        assert v.data_ptr() == x.data_ptr() + 4 and x.untyped_storage() is s


def _outcome(fn):
    try:
        r = fn()
        return ("ok", tuple(r.shape))
    except RuntimeError as e:
        return ("raise", str(e)[:60])


_RESIZES = {
    "param": lambda L, p: p.resize_(6),
    "param-same-shape": lambda L, p: p.resize_(2, 3),
    "param-memory-format": lambda L, p: p.resize_(1, 2, 3, 1, memory_format=L.channels_last),
    "resize_as_": lambda L, p: p.resize_as_(L.ones(4)),
    "non-leaf": lambda L, p: (p * 2).resize_(4),
    "out=add": lambda L, p: L.add(L.ones(4), 1, out=p),             # out= kernels resize below the check
    "out=sum": lambda L, p: L.sum(L.ones(2, 4), 0, out=p),
    "out=mm": lambda L, p: L.mm(L.ones(3, 2), L.ones(2, 2), out=p),
    "out=cat": lambda L, p: L.cat([L.ones(2), L.ones(3)], out=p),
    "data": lambda L, p: p.data.resize_(7),
    "detach": lambda L, p: p.detach().resize_(8),
}


@pytest.mark.parity
@pytest.mark.parametrize("grad_mode", ["no_grad", "enabled"])
@pytest.mark.parametrize("case", list(_RESIZES))
def test_resize_of_a_tensor_requiring_grad_matches_torch(case, grad_mode):
    """torch refuses resize_ (and resize_as_) on a tensor that requires grad whatever the grad mode; out=
    resizes happen below that check (under no_grad they work; with grad enabled out= itself refuses)."""
    torch = pytest.importorskip("torch")
    res = []
    for L in (torch, ember):
        p = L.nn.Parameter(L.ones(2, 3))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if grad_mode == "no_grad":
                with L.no_grad():
                    got = _outcome(lambda: _RESIZES[case](L, p))
            else:
                got = _outcome(lambda: _RESIZES[case](L, p))
        res.append((got, tuple(p.shape), p.requires_grad))
    assert res[0] == res[1]
