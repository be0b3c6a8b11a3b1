"""Shape and indexing ops beyond the op database: torch's exception types and messages for bad input,
the Python-level call forms (varargs, as_tuple, sublists, dims forms) and view semantics of unfold."""
import warnings

import numpy as np
import pytest

import ember


def _x(m):
    return m.arange(6.).reshape(2, 3)


def _l(m, v, **k):
    return m.tensor(v, **k)


ERRORS = {
    "gather_oob": lambda m: m.gather(_x(m), 1, _l(m, [[5]])),
    "gather_neg": lambda m: m.gather(_x(m), 1, _l(m, [[-1]])),
    "gather_float_index": lambda m: m.gather(_x(m), 1, _l(m, [[1.]])),
    "gather_ndim": lambda m: m.gather(_x(m), 1, _l(m, [1])),
    "gather_size": lambda m: m.gather(_x(m), 1, m.zeros(3, 1, dtype=m.int64)),
    "scatter_oob": lambda m: _x(m).scatter_(1, _l(m, [[5]]), 1.0),
    "scatter_dtype": lambda m: _x(m).scatter_(1, _l(m, [[1]]), m.ones(1, 1, dtype=m.float64)),
    "scatter_size": lambda m: _x(m).scatter_(1, m.zeros(2, 2, dtype=m.int64), m.ones(2, 1)),
    "scatter_reduce_str": lambda m: _x(m).scatter_(1, m.zeros(2, 1, dtype=m.int64), m.ones(2, 1), reduce="mean"),
    "scatter_reduce_two_str": lambda m: _x(m).scatter_reduce(1, m.zeros(2, 1, dtype=m.int64), m.ones(2, 1), "foo"),
    "index_select_oob": lambda m: m.index_select(_x(m), 0, _l(m, [5])),
    "index_select_dtype": lambda m: m.index_select(_x(m), 0, _l(m, [0.])),
    "index_select_2d": lambda m: m.index_select(_x(m), 0, _l(m, [[0]])),
    "index_add_oob": lambda m: _x(m).index_add_(0, _l(m, [5]), m.ones(1, 3)),
    "index_add_count": lambda m: _x(m).index_add_(0, _l(m, [1]), m.ones(2, 3)),
    "index_add_dtype": lambda m: _x(m).index_add_(0, _l(m, [1]), m.ones(1, 3, dtype=m.float64)),
    "index_copy_oob": lambda m: _x(m).index_copy_(0, _l(m, [5]), m.ones(1, 3)),
    "index_copy_int32": lambda m: _x(m).index_copy_(0, _l(m, [1], dtype=m.int32), m.ones(1, 3)),
    "index_fill_oob": lambda m: _x(m).index_fill_(0, _l(m, [5]), 1.),
    "index_fill_dtype": lambda m: _x(m).index_fill_(0, _l(m, [1.]), 1.),
    "index_fill_value": lambda m: _x(m).index_fill_(0, _l(m, [1]), m.ones(2)),
    "masked_fill_mask": lambda m: _x(m).masked_fill(m.ones(2, 3), 1.),
    "masked_fill_value": lambda m: _x(m).masked_fill(m.ones(2, 3, dtype=m.bool), m.ones(2)),
    "masked_fill_bcast": lambda m: _x(m).masked_fill_(m.ones(3, 3, dtype=m.bool), 1.),
    "masked_select_mask": lambda m: _x(m).masked_select(m.ones(2, 3)),
    "masked_scatter_few": lambda m: _x(m).masked_scatter(m.ones(2, 3, dtype=m.bool), m.ones(2)),
    "masked_scatter_dtype": lambda m: _x(m).masked_scatter(m.ones(2, 3, dtype=m.bool), m.ones(6, dtype=m.float64)),
    "take_oob": lambda m: m.take(_x(m), _l(m, [10])),
    "take_dtype": lambda m: m.take(_x(m), _l(m, [1], dtype=m.int32)),
    "take_along_dim_ndim": lambda m: m.take_along_dim(_x(m), _l(m, [1]), 1),
    "repeat_few": lambda m: _x(m).repeat(2),
    "repeat_neg": lambda m: _x(m).repeat(-1, 2),
    "repeat_interleave_neg": lambda m: m.repeat_interleave(_l(m, [1, -1])),
    "repeat_interleave_2d": lambda m: m.repeat_interleave(_l(m, [[1]])),
    "repeat_interleave_float": lambda m: m.repeat_interleave(_l(m, [1.])),
    "repeat_interleave_size": lambda m: m.repeat_interleave(_x(m), _l(m, [1, 2, 3]), dim=0),
    "roll_align": lambda m: m.roll(_x(m), (1, 2), (0,)),
    "flip_dup": lambda m: m.flip(_x(m), (0, 0)),
    "flip_dim": lambda m: m.flip(_x(m), (2,)),
    "fliplr_1d": lambda m: m.fliplr(m.ones(3)),
    "flipud_0d": lambda m: m.flipud(m.tensor(1.)),
    "rot90_dims": lambda m: m.rot90(_x(m), 1, (0,)),
    "rot90_same": lambda m: m.rot90(_x(m), 1, (0, 0)),
    "rot90_1d": lambda m: m.rot90(m.ones(3), 1, (0, 1)),
    "tril_1d": lambda m: m.tril(m.ones(3)),
    "triu_inplace_1d": lambda m: m.ones(3).triu_(),
    "diag_3d": lambda m: m.diag(m.ones(2, 2, 2)),
    "diag_embed_same": lambda m: m.diag_embed(m.ones(2, 2), 0, 0, 0),
    "trace_1d": lambda m: m.trace(m.ones(3)),
    "outer_2d": lambda m: m.outer(_x(m), m.ones(3)),
    "outer_vec2": lambda m: m.outer(m.ones(3), _x(m)),
    "cross_len": lambda m: m.linalg.cross(m.ones(2), m.ones(2)),
    "cross_ndim": lambda m: m.linalg.cross(m.ones(2, 3), m.ones(3)),
    "cross_no3": lambda m: m.cross(m.ones(2, 2), m.ones(2, 2)),
    "einsum_size": lambda m: m.einsum("ij,jk->ik", _x(m), _x(m)),
    "einsum_few": lambda m: m.einsum("ij,jk->ik", _x(m)),
    "einsum_many": lambda m: m.einsum("ij->ij", _x(m), _x(m)),
    "tensordot_size": lambda m: m.tensordot(_x(m), _x(m), ([1], [0])),
    "broadcast_to": lambda m: m.broadcast_to(_x(m), (3, 3)),
    "broadcast_tensors": lambda m: m.broadcast_tensors(m.ones(2), m.ones(3)),
    "meshgrid_2d": lambda m: m.meshgrid(m.ones(2, 2), m.ones(2), indexing="ij"),
    "meshgrid_indexing": lambda m: m.meshgrid(m.ones(2), indexing="foo"),
    "unfold_big": lambda m: _x(m).unfold(1, 4, 1),
    "unfold_step": lambda m: _x(m).unfold(1, 2, 0),
    "unfold_neg": lambda m: _x(m).unfold(1, -1, 1),
    "unfold_dim": lambda m: _x(m).unfold(2, 1, 1),
    "narrow_copy": lambda m: m.narrow_copy(_x(m), 1, 2, 2),
    "searchsorted_side": lambda m: m.searchsorted(m.ones(3), m.ones(2), right=True, side="left"),
    "searchsorted_shape": lambda m: m.searchsorted(m.ones(2, 3), m.ones(3, 2)),
    "bucketize_2d": lambda m: m.bucketize(m.ones(3), m.ones(2, 2)),
    "block_diag_3d": lambda m: m.block_diag(m.ones(2, 2, 2)),
    "cartesian_2d": lambda m: m.cartesian_prod(m.ones(2, 2)),
    "combinations_neg": lambda m: m.combinations(m.ones(3), -1),
    "put_oob": lambda m: _x(m).put_(_l(m, [10]), _l(m, [1.])),
    "put_count": lambda m: _x(m).put_(_l(m, [1, 2]), _l(m, [1.])),
    "put_dtype": lambda m: _x(m).put_(_l(m, [1]), _l(m, [1.], dtype=m.float64)),
    "index_reduce_str": lambda m: _x(m).index_reduce_(0, _l(m, [1]), m.ones(1, 3), "sum"),
}


@pytest.mark.parity
@pytest.mark.parametrize("name", list(ERRORS))
def test_error_matches_torch(name):
    torch = pytest.importorskip("torch")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(Exception) as te:
            ERRORS[name](torch)
        with pytest.raises(Exception) as ee:
            ERRORS[name](ember)
    assert type(ee.value) is type(te.value) or isinstance(ee.value, type(te.value)), (ee.value, te.value)
    cut = (lambda m: m.split("but got:")[0]) if name == "meshgrid_2d" else (lambda m: m)   # torch prints the tensor
    assert cut(str(ee.value).splitlines()[0]) == cut(str(te.value).splitlines()[0])


def test_failed_inplace_leaves_self_unchanged():
    x = ember.arange(6.).reshape(2, 3)
    for f in (lambda: x.scatter_(1, ember.tensor([[0, 7]]), 1.0), lambda: x.index_add_(0, ember.tensor([0, 5]), ember.ones(2, 3)),
              lambda: x.index_copy_(0, ember.tensor([0, 5]), ember.ones(2, 3)), lambda: x.masked_scatter_(x > 0, ember.ones(2))):
        with pytest.raises((RuntimeError, IndexError)):
            f()
        np.testing.assert_array_equal(x.numpy(), np.arange(6.).reshape(2, 3))


def test_unfold_is_a_view():
    x = ember.arange(8.)
    u = x.unfold(0, 3, 2)
    assert u.shape == (3, 3) and u.stride() == (2, 1)
    assert u.untyped_storage() is x.untyped_storage() and u._base is x
    x[4] = 100.
    assert u[1, 2].item() == 100. and u[2, 0].item() == 100.


def test_nonzero_as_tuple_and_where():
    x = ember.tensor([[0., 1.], [2., 0.]])
    r = ember.nonzero(x, as_tuple=True)
    assert isinstance(r, tuple) and [t.tolist() for t in r] == [[0, 1], [1, 0]]
    assert [t.tolist() for t in x.nonzero(as_tuple=True)] == [[0, 1], [1, 0]]
    assert [t.tolist() for t in ember.where(x)] == [[0, 1], [1, 0]]
    assert [t.tolist() for t in ember.nonzero(ember.tensor(3.), as_tuple=True)] == [[0]]
    assert ember.where(x > 0, x, -1.).tolist() == [[-1., 1.], [2., -1.]]


def test_call_forms():
    a, b = ember.ones(2, 3), ember.ones(3, 4)
    assert ember.einsum("ij,jk", a, b).tolist() == ember.einsum("ij,jk->ik", [a, b]).tolist()
    assert ember.einsum(a, [0, 1], b, [1, 2], [0, 2]).shape == (2, 4)
    assert ember.tensordot(a, b, dims=1).shape == (2, 4)
    assert ember.tensordot(a, b, dims=([1], [0])).shape == (2, 4)
    assert ember.tensordot(a, a, dims=2).shape == ()
    g = ember.meshgrid(ember.arange(2), ember.arange(3), indexing="xy")
    assert isinstance(g, tuple) and g[0].shape == (3, 2)
    with pytest.warns(UserWarning):
        assert ember.meshgrid(ember.arange(2), ember.arange(3))[0].shape == (2, 3)
    assert ember.broadcast_tensors(ember.ones(2, 1), ember.ones(3))[1].stride() == (0, 1)
    assert ember.block_diag(ember.ones(1), ember.ones(2, 2)).shape == (3, 3)
    assert ember.cartesian_prod(ember.arange(2), ember.arange(2)).tolist() == [[0, 0], [0, 1], [1, 0], [1, 1]]
    assert ember.repeat_interleave(ember.tensor([2, 0, 1])).tolist() == [0, 0, 2]
    assert ember.bucketize(3.0, ember.tensor([1., 3., 5.])).tolist() == 1


def test_meta_of_data_dependent_ops_raises():
    m = ember.empty(3, 4, device="meta")
    for f in (lambda: m.nonzero(), lambda: m.masked_select(m > 0)):
        with pytest.raises(NotImplementedError):
            f()
    assert ember.repeat_interleave(ember.empty(3, dtype=ember.int64, device="meta"), output_size=7).shape == (7,)


@pytest.mark.parity
def test_tri_indices_match_torch():
    torch = pytest.importorskip("torch")
    for r, c, o in ((3, 4, 0), (4, 3, 1), (4, 4, -2), (0, 3, 0), (3, 3, 5)):
        for name in ("tril_indices", "triu_indices"):
            got, want = getattr(ember, name)(r, c, o), getattr(torch, name)(r, c, o)
            assert got.tolist() == want.tolist() and got.dtype == ember.int64 and tuple(got.shape) == tuple(want.shape)
    assert ember.tril_indices(3, 3, dtype=ember.int32).dtype == ember.int32
    assert ember.triu_indices(3, 3, device="meta").shape == (2, 6)


_STRIDE_CASES = {
 "flip": lambda m, x, mk, i: m.flip(x, [0]),
 "roll": lambda m, x, mk, i: m.roll(x, 1, 0),
 "tril": lambda m, x, mk, i: m.tril(x),
 "masked_fill": lambda m, x, mk, i: x.masked_fill(mk, 0.),
 "masked_fill_big": lambda m, x, mk, i: x[0].masked_fill(mk, 0.),
 "gather": lambda m, x, mk, i: m.gather(x, 0, i),
 "scatter": lambda m, x, mk, i: x.scatter(0, i, 1.0),
 "index_select": lambda m, x, mk, i: x.index_select(1, m.tensor([0, 2])),
 "index_add": lambda m, x, mk, i: x.index_add(1, m.tensor([0, 2]), m.ones(4, 2)),
 "index_fill": lambda m, x, mk, i: x.index_fill(1, m.tensor([0, 2]), 1.),
 "repeat": lambda m, x, mk, i: x.repeat(1, 2),
 "rot90": lambda m, x, mk, i: m.rot90(x),
 "diag_embed": lambda m, x, mk, i: m.diag_embed(x),
 "narrow_copy": lambda m, x, mk, i: m.narrow_copy(x, 1, 0, 2),
 "take": lambda m, x, mk, i: m.take(x, i),
 "cross": lambda m, x, mk, i: m.linalg.cross(x[:, :3], x[:, :3].flip(0), dim=1),
 "kron": lambda m, x, mk, i: m.kron(x, x),
 "tensordot": lambda m, x, mk, i: m.tensordot(x, x, ([0], [0])),
 "masked_scatter": lambda m, x, mk, i: x.masked_scatter(mk, m.ones(12)),
 "searchsorted": lambda m, x, mk, i: m.searchsorted(m.sort(x, 1)[0], x),
 "index_copy": lambda m, x, mk, i: x.index_copy(1, m.tensor([0, 2]), m.ones(4, 2)),
 "scatter_reduce": lambda m, x, mk, i: x.scatter_reduce(0, i, x, "amax"),
}


@pytest.mark.parity
@pytest.mark.parametrize("name", list(_STRIDE_CASES))
def test_transposed_inputs_match_torch_strides(name):
    """Results on transposed (non-contiguous) inputs: torch's values, shapes and strides."""
    torch = pytest.importorskip("torch")
    a = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)
    args_e = (ember, ember.from_numpy(a.copy()).t(), ember.from_numpy((a > 0).T.copy()),
              ember.from_numpy(np.zeros((3, 4), np.int64)).t())
    args_t = (torch, torch.from_numpy(a.copy()).t(), torch.from_numpy((a > 0).T.copy()),
              torch.from_numpy(np.zeros((3, 4), np.int64)).t())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        e, t = _STRIDE_CASES[name](*args_e), _STRIDE_CASES[name](*args_t)
    assert tuple(e.shape) == tuple(t.shape) and e.stride() == t.stride(), (e.stride(), t.stride())
    np.testing.assert_allclose(e.numpy(), t.numpy(), rtol=1e-5, atol=1e-6)


def _kw_calls(m):
    x = m.arange(12.).reshape(3, 4); i = m.tensor([[0, 1], [2, 3], [1, 1]]); msk = x > 5
    res = [
      x.gather(dim=1, index=i), x.scatter(dim=1, index=i, src=-x), x.scatter(1, i, value=7.), m.take_along_dim(x, i, dim=1),
      m.index_select(x, dim=0, index=m.tensor([2, 0])), x.masked_fill(mask=msk, value=0), m.searchsorted(m.tensor([1., 3.]), 2.0),
      m.bucketize(x, boundaries=m.tensor([2., 5.])), x.unfold(dimension=1, size=2, step=2), m.einsum('ii->i', x[:, :3]),
      m.roll(x, shifts=1, dims=0), x.repeat_interleave(repeats=2, dim=0), m.tril(x, diagonal=1), m.flip(x, dims=(1,)),
      m.rot90(x, k=2, dims=[0, 1]), m.diag_embed(x, offset=1, dim1=0, dim2=2), x.index_add(0, m.tensor([0]), x[:1], alpha=3),
      m.kron(x, x), m.cross(m.ones(3), m.arange(3.), dim=0), m.tensordot(x, x, dims=([1], [1])), m.block_diag(x, x),
      m.cartesian_prod(m.arange(2.), m.arange(3.)), x.new_ones(2).repeat(3), m.searchsorted(m.tensor([1., 3.]), m.tensor([[2.]]) if False else m.tensor([2., 4.]), side='right'),
      m.normal(mean=m.zeros(2), std=1.0).shape, m.normal(mean=0.0, std=1.0, size=(2,)).shape, m.diagflat(m.ones(2), offset=1),
      m.trace(x), x.trace(), m.masked_select(x, mask=msk), m.linalg.solve(m.eye(3), x[:, :3], left=False), m.scatter_add(x, 1, i, x),
      m.scatter_reduce(x, 1, i, x, reduce='amax', include_self=False), m.where(msk), m.argwhere(msk), m.nonzero(msk, as_tuple=True),
      m.outer(m.ones(2), m.arange(3.)), m.ger(m.ones(2), m.arange(3.)), m.meshgrid(m.arange(2), m.arange(3), indexing='ij'),
    ]
    return res


@pytest.mark.parity
def test_keyword_and_overload_forms_match_torch():
    """Keyword arguments by torch's names and every overload form give torch's values and shapes."""
    torch = pytest.importorskip("torch")

    def flat(r):
        if isinstance(r, (torch.Size, ember.Size)):
            return [tuple(r)]
        return list(r) if isinstance(r, (tuple, list)) else [r]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got, want = _kw_calls(ember), _kw_calls(torch)
    for k, (x, y) in enumerate(zip(got, want)):
        for u, v in zip(flat(x), flat(y)):
            if isinstance(v, tuple):
                assert tuple(u) == v, k
            else:
                assert tuple(u.shape) == tuple(v.shape), k
                np.testing.assert_allclose(np.asarray(u.tolist()), np.asarray(v.tolist()), err_msg=str(k))


@pytest.mark.parity
@pytest.mark.parametrize("eq,shapes", [
    ("ij,jk->ik", [(3, 4), (4, 5)]), ("ij,jk,k->i", [(3, 4), (4, 5), (5,)]), ("ii", [(3, 3)]), ("ij->ji", [(3, 4)]),
    ("bhqd,bhkd->bhqk", [(2, 3, 4, 5), (2, 3, 6, 5)]), ("ii->i", [(3, 3)]), ("iij->j", [(3, 3, 2)]),
    ("...ij,...jk", [(2, 1, 3, 4), (5, 4, 2)]), ("ij,j->i", [(3, 4), (1,)]), ("i,i,i->i", [(3,), (3,), (3,)]),
    ("ij,kl->ijkl", [(2, 3), (1, 2)]), ("abc,cd,da->b", [(2, 3, 4), (4, 5), (5, 2)]), ("ij->", [(0, 3)]),
    ("bn,anm,bm->ba", [(2, 3), (4, 3, 5), (2, 5)]), ("", [()]), (",->", [(), ()]), ("ba", [(2, 3)]),
])
def test_einsum_decomposition_matches_torch(eq, shapes):
    """einsum is torch's CompositeImplicit decomposition (diagonals, permutes, bmm): values and shapes on cpu and
    meta, and torch's strides for the common contractions."""
    torch = pytest.importorskip("torch")
    arrs = [np.random.default_rng(0).standard_normal(s) for s in shapes]
    t = torch.einsum(eq, *[torch.from_numpy(a) for a in arrs])
    e = ember.einsum(eq, *[ember.from_numpy(a.copy()) for a in arrs])
    m = ember.einsum(eq, *[ember.empty(s, dtype=ember.float64, device="meta") for s in shapes])
    assert tuple(e.shape) == tuple(t.shape) == tuple(m.shape)
    np.testing.assert_allclose(e.numpy(), t.numpy(), rtol=1e-10, atol=1e-10)
    if eq != "ij,kl->ijkl":
        assert e.stride() == t.stride() or e.numel() <= 1


@pytest.mark.parametrize("dt", [ember.float32, ember.int64, ember.bool, ember.bfloat16])
@pytest.mark.parametrize("shapes,dim", [([(1, 4), (1, 1)], 1), ([(3,), (0,), (2,)], 0), ([(2, 3, 5), (2, 1, 5)], -2),
                                        ([(1, 2, 3, 4, 5)] * 3, 4), ([(2, 2)], 0)])
def test_cat_of_one_dtype_takes_the_concatenate_path_and_matches_the_general_one(monkeypatch, dt, shapes, dim):
    from ember.kernels.cpu import shape as S
    ts = [ember.arange(int(np.prod(s))).reshape(s).to(dt) for s in shapes]
    fast = S._cat_same(ts, dim)
    assert fast is not None
    monkeypatch.setattr(S, "_cat_same", lambda *a: None)
    ref = ember.cat(ts, dim)
    assert fast.shape == ref.shape and fast.dtype is ref.dtype is dt and fast.is_contiguous()
    assert ember.equal(fast, ref)
    fast.view(-1)[:1] = 0                      # fresh memory: the inputs stay as they were
    assert ember.equal(ts[0], ember.arange(int(np.prod(shapes[0]))).reshape(shapes[0]).to(dt))


def test_cat_concatenate_path_declines_what_the_general_path_decides():
    from ember.kernels.cpu import shape as S
    a = ember.randn(2, 3)
    assert S._cat_same([a, a.double()], 0) is None                     # promotion
    assert S._cat_same([a, ember.tensor([])], 0) is None               # a legacy empty of another rank
    assert S._cat_same([a, a[:, :2]], 0) is None                       # sizes that do not fit: torch's error below
    assert S._cat_same([a.t(), a.t()], 1) is None                      # numpy would keep a transposed layout
    assert S._cat_same([ember.randn(1, 2, 3, 4)] * 2, 1) is None       # 4-D: channels-last inputs stay so
    assert S._cat_same([a, a], 2) is None
    assert ember.cat([a, ember.tensor([])], 0).shape == (2, 3)
    with pytest.raises(RuntimeError, match="Sizes of tensors must match except in dimension 0"):
        ember.cat([a, a[:, :2]], 0)
    with pytest.raises(IndexError, match="Dimension out of range"):
        ember.cat([a, a], 2)
    cl = ember.randn(2, 3, 4, 5).contiguous(memory_format=ember.channels_last)
    assert ember.cat([cl, cl], 0).is_contiguous(memory_format=ember.channels_last)
