"""Tensor __getitem__ / __setitem__ and index / index_put_ vs torch."""
import numpy as np
import pytest

import ember
from _view_helpers import base, same_meta

B = "__bool_mask__"


def _conv(mod, ix):
    """Index spec -> concrete index for `mod`: ('T', data, dtype) becomes a tensor."""
    def one(x):
        if isinstance(x, tuple) and x and x[0] == "T":
            return mod.tensor(x[1], dtype=getattr(mod, x[2]))
        return x
    return tuple(one(x) for x in ix) if isinstance(ix, tuple) and not (ix and ix[0] == "T") else one(ix)


BASIC = [0, -1, 2, (1, 2), (slice(None), 1), (Ellipsis, 2), (None,), (None, 0), (0, None, slice(1, 3)),
         (slice(None), slice(None, None, 2)), (slice(1, None, 3), Ellipsis, None), (Ellipsis,), (slice(-2, None),),
         (slice(10, 20),), (1, Ellipsis, 1), (Ellipsis, None, slice(None)), (-2, -1, -3)]

ADVANCED = [[0, 2], ([1, 0],), (slice(None), [0, 2, 1]), ([0, 1], slice(None), [1, 2]), ([0, 1], [1, 2]),
            (0, slice(None), [0, 1]), (slice(None), [[0, 1], [2, 0]]), ([[0], [1]], [0, 2]),
            (("T", [True, False], "bool"),), (("T", [[True, False, True], [False, False, True]], "bool"),),
            (slice(None), ("T", [True, False, True], "bool")), (("T", [1, 0], "int32"), None, slice(1, 3)),
            (True,), (False,), (None, ("T", [0, 0, 1], "int64")), (Ellipsis, [0, -1]), (("T", 1, "int64"),),
            (("T", True, "bool"), 0), ([0, 1], Ellipsis, ("T", [3, 2], "int64")), ([[0, 1]],), ([-2, 1],)]


@pytest.mark.parity
@pytest.mark.parametrize("ix", BASIC, ids=repr)
def test_basic_getitem_is_a_view(ix):
    torch = pytest.importorskip("torch")
    arr = base((2, 3, 4))
    e, t = ember.from_numpy(arr.copy()), torch.from_numpy(arr.copy())
    try:
        rt = t[ix]
    except Exception as exc:
        with pytest.raises(type(exc)):
            e[ix]
        return
    r = e[ix]
    same_meta(r, rt)
    np.testing.assert_array_equal(r.numpy(), rt.numpy())
    assert r.untyped_storage() is e.untyped_storage() and r is not e
    m = e.to("meta")[ix]
    assert m.is_meta and m.shape == r.shape and m.storage_offset() == r.storage_offset()


@pytest.mark.parity
@pytest.mark.parametrize("ix", ADVANCED, ids=repr)
@pytest.mark.parametrize("transposed", [False, True, "permuted"])
def test_advanced_getitem(ix, transposed):
    torch = pytest.importorskip("torch")
    arr = base((2, 3, 4))
    e, t = ember.from_numpy(arr.copy()), torch.from_numpy(arr.copy())
    em = e.to("meta")

    def prep(x):
        if transposed == "permuted":
            return x.permute(2, 0, 1)[:2, :, 1:]
        return x.transpose(0, 1)[:2] if transposed else x
    e, t, em = prep(e), prep(t), prep(em)
    try:
        rt = t[_conv(torch, ix)]
    except Exception as exc:
        with pytest.raises(type(exc)):
            e[_conv(ember, ix)]
        return
    r = e[_conv(ember, ix)]
    same_meta(r, rt)
    np.testing.assert_array_equal(r.numpy(), rt.numpy())
    assert r.dtype is e.dtype
    if not any(isinstance(x, tuple) and x and x[0] == "T" and x[2] == "bool" for x in (ix if isinstance(ix, tuple) else [ix])):
        m = em[_conv(ember, ix)]
        assert m.shape == r.shape and (m.stride() == r.stride() or r.numel() <= 1)


@pytest.mark.parity
@pytest.mark.parametrize("ix", BASIC + ADVANCED, ids=repr)
@pytest.mark.parametrize("value", ["scalar", "tensor", "broadcast", "other_dtype"])
def test_setitem(ix, value):
    torch = pytest.importorskip("torch")
    arr = base((2, 3, 4))
    e, t = ember.from_numpy(arr.copy()), torch.from_numpy(arr.copy())
    try:
        shape = tuple(t[_conv(torch, ix)].shape)
    except IndexError:
        with pytest.raises(IndexError):
            e[_conv(ember, ix)] = 1.0
        return
    if value == "scalar":
        ve, vt = -7.5, -7.5
    else:
        vshape = shape if value != "broadcast" else (shape[-1:] if shape else ())
        dt = "float32" if value != "other_dtype" else "int64"
        v = (-np.arange(int(np.prod(vshape))) - 1).astype(dt).reshape(vshape)
        ve, vt = ember.from_numpy(v.copy()), torch.from_numpy(v.copy())
    try:
        t[_conv(torch, ix)] = vt
    except RuntimeError as exc:
        with pytest.raises(RuntimeError, match="dtypes match"):
            e[_conv(ember, ix)] = ve
        assert "dtypes match" in str(exc)
        np.testing.assert_array_equal(e.numpy(), arr)
        return
    e[_conv(ember, ix)] = ve
    np.testing.assert_array_equal(e.numpy(), t.numpy())


@pytest.mark.parity
def test_setitem_value_with_leading_ones_and_int_target():
    torch = pytest.importorskip("torch")
    out = []
    for mod in (ember, torch):
        x = mod.from_numpy(base((3, 4)).astype("int32"))
        x[0] = mod.from_numpy(np.full((1, 1, 4), 9.7, np.float32))
        x[1, [0, 3]] = 2.9
        x[x > 8] = -1
        out.append(x.numpy().copy())
    np.testing.assert_array_equal(out[0], out[1])


@pytest.mark.parity
@pytest.mark.parametrize("accumulate", [False, True])
def test_index_put_ops(accumulate):
    torch = pytest.importorskip("torch")
    res = []
    for mod in (ember, torch):
        x = mod.from_numpy(base((4, 3)))
        i = mod.tensor([0, 2, 0])
        v = mod.from_numpy(np.array([1.0, 2.0, 3.0], np.float32))
        y = mod.index_put(x, [i], v.unsqueeze(1), accumulate)
        x.index_put_((i, mod.tensor([1, 1, 1])), v, accumulate=accumulate)
        z = x.index_put([mod.tensor([[0], [3]]), mod.tensor([2])], mod.tensor(5.0), accumulate)
        res.append((x.numpy().copy(), y.numpy().copy(), z.numpy().copy()))
    for a, b in zip(*res):   # duplicate indices without accumulate: torch leaves the winner unspecified
        rows = [1, 3] if not accumulate else slice(None)
        np.testing.assert_array_equal(a[rows], b[rows])


def test_index_ops_and_meta():
    x = ember.from_numpy(base((3, 4)))
    r = ember.ops.aten.index.Tensor(x, [None, ember.tensor([[0, 1]])])
    assert r.shape == (3, 1, 2) and r.untyped_storage() is not x.untyped_storage()
    m = x.to("meta")
    assert m[[0, 2]].shape == (2, 4) and m[:, [[1], [2]]].shape == (3, 2, 1)
    assert m[ember.tensor([0, 1]).to("meta")].is_meta
    m[[0, 1]] = 3.0
    with pytest.raises(NotImplementedError):
        m[m > 1]


@pytest.mark.parametrize("fn,exc,msg", [
    (lambda x: x[3], IndexError, "index 3 is out of bounds for dimension 0 with size 3"),
    (lambda x: x[0, -5], IndexError, "index -5 is out of bounds for dimension 1 with size 4"),
    (lambda x: x[[0, 5]], IndexError, "index 5 is out of bounds for dimension 0 with size 3"),
    (lambda x: x[:, [4]], IndexError, "index 4 is out of bounds for dimension 1 with size 4"),
    (lambda x: x[0, 0, 0], IndexError, "too many indices for tensor of dimension 2"),
    (lambda x: x[::-1], ValueError, "step must be greater than zero"),
    (lambda x: x[1.5], IndexError, "only integers, slices"),
    (lambda x: x["a"], IndexError, "only integers, slices"),
    (lambda x: x[ember.tensor([1.0])], IndexError, "tensors used as indices must be long, int, byte or bool"),
    (lambda x: x[ember.tensor([True, False])], IndexError, "The shape of the mask"),
    (lambda x: x[[0, 1], [0, 1, 2]], IndexError, "shape mismatch: indexing tensors could not be broadcast"),
    (lambda x: x[0][0][0], IndexError, "invalid index of a 0-dim tensor"),
    (lambda x: x[..., ...], IndexError, "single ellipsis"),
])
def test_getitem_errors(fn, exc, msg):
    x = ember.from_numpy(base((3, 4)))
    with pytest.raises(exc, match=msg):
        fn(x)


def test_setitem_errors_leave_tensor_unchanged():
    x = ember.from_numpy(base((3, 4)))
    with pytest.raises(RuntimeError, match="shape mismatch: value tensor of shape"):
        x[[0, 1]] = ember.from_numpy(base((3,)))
    with pytest.raises(IndexError):
        x[[0, 7]] = 1.0
    with pytest.raises(RuntimeError):
        x[0] = ember.from_numpy(base((5,)))
    with pytest.raises(TypeError):
        x[0] = "a"
    with pytest.raises(RuntimeError, match="dtypes match"):
        x.index_put_([ember.tensor([0])], ember.tensor([1.0], dtype=ember.float64))
    np.testing.assert_array_equal(x.numpy(), base((3, 4)))


def test_getitem_view_writes_through_and_versions():
    x = ember.from_numpy(base((3, 4)))
    v = x[1:, ::2]
    v[0, 1] = 100.0
    assert x.numpy()[1, 2] == 100.0
    assert v._base is x and v._version == x._version == 1
    c = x[[0]]
    c[0, 0] = -5.0
    assert x.numpy()[0, 0] == 0.0


@pytest.mark.parity
@pytest.mark.parametrize("index", [(0, 5), (5,), (0, 0, 9), (slice(None), 7), (Ellipsis, 9), (None, 0, 5),
                                   (Ellipsis, 0, 9), (True, 0, 9), (0, ember.tensor(7))])
def test_out_of_bounds_message_names_the_index_position_like_torch(index):
    torch = pytest.importorskip("torch")
    tindex = tuple(torch.tensor(int(i)) if isinstance(i, ember.Tensor) else i for i in index)
    with pytest.raises(IndexError) as want:
        torch.zeros(2, 3, 4)[tindex]
    with pytest.raises(IndexError) as got:
        ember.zeros(2, 3, 4)[index]
    assert str(got.value) == str(want.value)


@pytest.mark.parity
@pytest.mark.parametrize("ix", [slice(None), slice(0, 10), (slice(None),), (slice(0, 3),), (slice(None), slice(1, 3)),
                                (slice(0, 9), slice(1, 3)), (slice(None), 0), (Ellipsis, slice(None)),
                                (Ellipsis, slice(1, 3)), (None, slice(None)), (slice(None), [0, 2]),
                                (slice(None, 3), slice(None, None, 1)), (slice(1, None), slice(None))], ids=repr)
def test_full_slices_in_a_tuple_index_record_no_slice_like_torch(ix):
    """torch's applySlice returns the tensor itself for a `:` (start 0, stop past the end, step 1) inside a tuple
    index, so `x[:, 1:3]` records one SliceBackward0 and `x[:, :]` an alias; a lone slice `x[:]` is a slice."""
    torch = pytest.importorskip("torch")

    def chain(mod):
        x = mod.ones(3, 4, requires_grad=True)
        fn, names = x[ix].grad_fn, []
        while fn is not None and type(fn).__name__ != "AccumulateGrad":
            names.append(type(fn).__name__)
            fn = fn.next_functions[0][0]
        return names
    assert chain(ember) == chain(torch)


@pytest.mark.parity
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int64"])
def test_setitem_of_a_number_matches_torch_values_versions_and_errors(dtype):
    # float32/float64 with an int or slice index store the number straight into the array (one version bump,
    # like fill_); everything else (inf, nan, other dtypes, bad indices) takes the general path. (Not here:
    # numbers the dtype cannot hold, which torch refuses and ember stores as inf on both paths.)
    torch = pytest.importorskip("torch")
    cases = [(2, 5), (-1, 2.5), (slice(1, 3), -1), (slice(None, None, 2), 7.0), (slice(-100, 100), 0.25),
             (slice(3, 1), 4), (4, 1.0), (-5, 1.0), (0, -0.0), (1, 2 ** 40)]
    if dtype != "int64":
        cases += [(0, float("inf")), (1, float("nan")), (2, -float("inf"))]
    for index, value in cases:
        res = []
        for lib in (ember, torch):
            x = lib.from_numpy(base((4, 3), dtype))
            v0 = x._version
            try:
                x[index] = value
                res.append((x.numpy().tobytes(), x._version - v0))
            except Exception as e:  # noqa: BLE001
                res.append((type(e).__name__, x.numpy().tobytes(), x._version - v0))
        assert res[0] == res[1], (index, value)
