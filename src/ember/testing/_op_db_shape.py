"""Op database entries for the shape/indexing ops (gather/scatter, index_*, masked_*, repeat/flip/roll,
triangles and diagonals, products, grids, searchsorted): samples over 0-dim, empty and batched inputs,
index tensors that stay in range, and unique scatter targets where torch leaves write order undefined."""
import numpy as np

from ._opinfo import OpInfo, SampleInput
from ._samples import make

F = ("float32", "float64")
FI = ("float32", "float64", "int64")
FIB = ("float32", "float64", "int64", "bool")
_rng = np.random.default_rng(11)


def S(x, *args, name="", **kw):
    fix = lambda a: np.asarray(a) if isinstance(a, np.generic) else a  # noqa: E731  (make(()) of bool)
    x, args, kw = fix(x), tuple(fix(a) for a in args), {k: fix(v) for k, v in kw.items()}
    return SampleInput(x, args, kw, name or f"{getattr(x, 'shape', x)}-{len(args)}-{sorted(kw)}")


def _idx(shape, high, seed=0):
    return np.random.default_rng(seed).integers(0, high, shape).astype(np.int64)


def _perm(shape, dim, seed=0):
    """Indices that are a permutation along dim (no duplicate scatter targets)."""
    r = np.random.default_rng(seed).random(shape)
    return np.argsort(r, axis=dim).astype(np.int64)


def _info(name, samples, dtypes=FI, **kw):
    return OpInfo(name, lambda op, dt: samples(dt), dtypes=dtypes, **kw)


# ------------------------------------------------------------------ gather / scatter
def _gather(dt):
    x = make((3, 4), dt)
    return [S(x, 0, _idx((2, 4), 3)), S(x, 1, _idx((3, 2), 4)), S(x, -1, _idx((1, 6), 4)),
            S(make((2, 3, 4), dt), 1, _idx((2, 5, 3), 3)), S(make((), dt), 0, np.array(0)),
            S(x, 0, np.zeros((0, 4), np.int64))]


def _scatter(dt, value=False, reduce=None):
    out = []
    for shape, dim in (((3, 4), 0), ((3, 4), 1), ((2, 3, 4), -1), ((5,), 0)):
        x = make(shape, dt)
        idx = _perm(shape, dim)
        sl = tuple(slice(0, 2) if i == (dim % len(shape)) else slice(None) for i in range(len(shape)))
        idx = idx[sl]
        src = 2.5 if value else make(shape, dt, seed=5)
        kw = {} if reduce is None else {"reduce": reduce}
        out.append(S(x, dim, idx, src, **kw))
    out.append(S(make((), dt), 0, np.array(0), 1 if value else make((), dt, seed=3)))
    return out


def _scatter_add(dt):
    x = make((3, 4), dt)
    return [S(x, 0, _idx((5, 4), 3), make((5, 4), dt, seed=1)), S(x, 1, _idx((3, 2), 4), make((3, 3), dt, seed=2)),
            S(make((2, 3), dt), 0, np.zeros((0, 3), np.int64), make((2, 3), dt))]


def _scatter_reduce(dt):
    out = []
    for red in ("sum", "prod", "mean", "amax", "amin"):
        for inc in (True, False):
            x = make((3, 4), dt)
            out.append(S(x, 0, _idx((5, 4), 3), make((5, 4), dt, seed=4), red, include_self=inc, name=f"{red}-{inc}"))
    return out


# ------------------------------------------------------------------ index_* along a dim
def _index_select(dt):
    x = make((3, 4), dt)
    return [S(x, 0, np.array([2, 0, 2])), S(x, 1, np.array([3])), S(x, -1, np.array(1)),
            S(make((), dt), 0, np.array([0])), S(x, 0, np.zeros(0, np.int64)), S(make((2, 3, 4), dt), 1, np.array([1, 1]))]


def _index_add(dt):
    x = make((3, 4), dt)
    return [S(x, 0, np.array([2, 0, 2]), make((3, 4), dt, seed=1)),
            S(x, 1, np.array([1, 3]), make((3, 2), dt, seed=2), alpha=2),
            S(make((2, 3, 4), dt), -1, np.array([0]), make((2, 3, 1), dt, seed=3))]


def _index_copy(dt):
    x = make((3, 4), dt)
    return [S(x, 0, np.array([2, 0]), make((2, 4), dt, seed=1)), S(x, 1, np.array([3, 1]), make((3, 2), dt, seed=2)),
            S(make((), dt), 0, np.array(0), make((), dt, seed=5))]


def _index_fill(dt):
    x = make((3, 4), dt)
    v = True if dt == "bool" else 2
    return [S(x, 0, np.array([2, 0]), v), S(x, 1, np.array([3, -1]), v), S(make((2, 3, 4), dt), 2, np.array([1]), v),
            S(x, 0, np.array([1]), np.array(v, dtype=dt))]


# ------------------------------------------------------------------ masks, take, nonzero
def _mask(shape, seed=0):
    return np.random.default_rng(seed).random(shape) < 0.5


def _masked_fill(dt):
    x = make((3, 4), dt)
    v = True if dt == "bool" else 7
    return [S(x, _mask((3, 4)), v), S(x, _mask((4,)), v), S(make((), dt), np.array(True), v),
            S(x, _mask((3, 4), 1), np.array(v, dtype=dt)), S(make((0, 4), dt), _mask((0, 4)), v)]


def _masked_select(dt):
    x = make((3, 4), dt)
    return [S(x, _mask((3, 4))), S(x, _mask((4,))), S(make((4,), dt), _mask((3, 4))), S(make((), dt), np.array(True))]


def _masked_scatter(dt):
    x = make((3, 4), dt)
    return [S(x, _mask((3, 4)), make((12,), dt, seed=3)), S(x, _mask((4,)), make((3, 5), dt, seed=4)),
            S(make((2, 3, 4), dt), _mask((2, 3, 4)), make((24,), dt))]


def _take(dt):
    return [S(make((3, 4), dt), np.array([[0, 11], [-1, 5]])), S(make((5,), dt), np.array(2)),
            S(make((), dt), np.array([0, 0])), S(make((3, 4), dt), np.zeros(0, np.int64))]


def _take_along_dim(dt):
    x = make((3, 4), dt)
    return [S(x, _perm((3, 4), 1), 1), S(x, _idx((1, 4), 3), 0), S(x, np.array([11, 0, 3])),
            S(make((2, 3, 4), dt), _idx((2, 3, 2), 4), -1)]


def _unary_shapes(dt, shapes=((), (0,), (5,), (3, 4), (2, 3, 4))):
    out = []
    for s in shapes:
        x = make(s, dt)
        if dt != "bool" and x.size:
            x = np.where(_mask(s, 3), 0, x).astype(dt)
        out.append(S(x, name=str(s)))
    return out


# ------------------------------------------------------------------ repeat / roll / flip / rot90
def _repeat(dt):
    return [S(make((3, 4), dt), (2, 1)), S(make((3,), dt), (2, 1, 2)), S(make((), dt), (3,)), S(make((2, 3), dt), (0, 2))]


def _repeat_interleave(dt):
    x = make((3, 4), dt)
    return [S(x, 2), S(x, 2, dim=1), S(x, np.array([1, 0, 3]), dim=0), S(x, np.array([2]), dim=-1),
            S(make((), dt), 3), S(make((5,), dt), np.array([1, 2, 0, 1, 1]))]


def _tile(dt):
    return [S(make((3, 4), dt), (2,)), S(make((3,), dt), (2, 2)), S(make((), dt), (2,)), S(make((2, 3), dt), (1, 2, 1))]


def _roll(dt):
    x = make((3, 4), dt)
    return [S(x, 1), S(x, -5, 1), S(x, (1, 2), (0, 1)), S(make((5,), dt), 7, 0), S(make((), dt), 1),
            S(make((0, 3), dt), 1, 1)]


def _flip(dt):
    return [S(make((3, 4), dt), (0,)), S(make((2, 3, 4), dt), (0, -1)), S(make((3, 4), dt), ()), S(make((), dt), (0,)),
            S(make((0, 3), dt), (1,))]


def _rot90(dt):
    x = make((3, 4), dt)
    return [S(x), S(x, 2), S(x, 3), S(x, -1), S(make((2, 3, 4), dt), 1, (1, 2)), S(x, 4)]


def _tri(dt):
    return [S(make((3, 4), dt)), S(make((3, 4), dt), 1), S(make((2, 4, 3), dt), -1), S(make((4, 4), dt), -5),
            S(make((0, 3), dt))]


# ------------------------------------------------------------------ diagonals and products
def _diag(dt):
    return [S(make((4,), dt)), S(make((4,), dt), 1), S(make((3, 4), dt)), S(make((3, 4), dt), -1), S(make((3, 4), dt), 2),
            S(make((0,), dt))]


def _diag_embed(dt):
    return [S(make((3,), dt)), S(make((2, 3), dt), 1), S(make((2, 3), dt), -1, 0, 2), S(make((2, 3), dt), 0, 1, 0)]


def _diagflat(dt):
    return [S(make((3,), dt)), S(make((2, 2), dt), 1), S(make((), dt)), S(make((2, 3), dt), -2)]


def _trace(dt):
    return [S(make((3, 4), dt)), S(make((4, 4), dt)), S(make((0, 3), dt))]


def _outer(dt):
    return [S(make((3,), dt), make((4,), dt, seed=1)), S(make((0,), dt), make((2,), dt))]


def _kron(dt):
    return [S(make((2, 3), dt), make((3, 2), dt, seed=1)), S(make((2,), dt), make((3, 2), dt, seed=1)),
            S(make((), dt), make((3,), dt, seed=2)), S(make((2, 1, 3), dt), make((2, 2), dt))]


def _cross(dt):
    return [S(make((3,), dt), make((3,), dt, seed=1)), S(make((4, 3), dt), make((4, 3), dt, seed=1)),
            S(make((3, 2), dt), make((3, 2), dt, seed=1), dim=0), S(make((2, 1, 3), dt), make((1, 4, 3), dt, seed=2))]


def _torch_cross(dt):
    return [S(make((4, 3), dt), make((4, 3), dt, seed=1), 1), S(make((3, 2), dt), make((3, 2), dt, seed=1), dim=0)]


def _einsum(dt):
    a, b, c = make((3, 4), dt), make((4, 5), dt, seed=1), make((5,), dt, seed=2)
    return [S("ij,jk->ik", a, b), S("ij,jk,k->i", a, b, c), S("ii", make((3, 3), dt)), S("ij->ji", a),
            S("bij,bjk->bik", make((2, 3, 4), dt), make((2, 4, 2), dt, seed=4)), S("i,j", c, c), S("...ij->...ji", make((2, 3, 4), dt)),
            S("ij,ij->", a, make((3, 4), dt, seed=7)),
            S("iij->j", make((3, 3, 2), dt)), S("...ij,...jk", make((2, 1, 3, 4), dt), make((5, 4, 2), dt, seed=8)),
            S("bn,anm,bm->ba", make((2, 3), dt), make((4, 3, 5), dt, seed=9), make((2, 5), dt, seed=10)), S("ij->", make((0, 3), dt))]


def _tensordot(dt):
    a, b = make((3, 4, 5), dt), make((4, 5, 2), dt, seed=1)
    return [S(a, b), S(make((3, 4), dt), make((4, 2), dt, seed=1), 1),
            S(a, make((5, 3), dt, seed=2), ([2, 0], [0, 1])), S(make((3,), dt), make((2,), dt), 0)]


# ------------------------------------------------------------------ grids, windows, sorted search
def _broadcast_to(dt):
    return [S(make((3, 1), dt), (3, 4)), S(make((4,), dt), (2, 3, 4)), S(make((), dt), (2,)), S(make((3, 4), dt), (-1, 4))]


def _broadcast_tensors(dt):
    return [S(make((3, 1), dt), make((4,), dt, seed=1)), S(make((), dt), make((2, 3), dt, seed=1), make((3,), dt, seed=2))]


def _meshgrid(dt):
    a, b, c = make((3,), dt), make((4,), dt, seed=1), make((2,), dt, seed=2)
    return [S(a, b, indexing="ij"), S(a, b, c, indexing="xy"), S(a, make((), dt), indexing="ij"), S(a, indexing="xy")]


def _unfold(dt):
    return [S(make((7,), dt), 0, 2, 1), S(make((3, 7), dt), 1, 3, 2), S(make((4, 3), dt), 0, 4, 1), S(make((), dt), 0, 1, 1),
            S(make((3, 5), dt), -1, 0, 3)]


def _narrow_copy(dt):
    return [S(make((3, 4), dt), 1, 1, 2), S(make((3, 4), dt), 0, -2, 2), S(make((5,), dt), 0, 5, 0)]


def _sorted(shape, dt, seed=0):
    return np.sort(make(shape, dt, seed=seed), axis=-1)


def _searchsorted(dt):
    seq = _sorted((6,), dt)
    v = make((3, 4), dt, seed=3)
    return [S(seq, v), S(seq, v, right=True), S(seq, v, side="right"), S(_sorted((3, 6), dt), make((3, 4), dt, seed=1)),
            S(_sorted((2, 3, 5), dt), make((2, 3, 2), dt, seed=2), right=True), S(seq, make((), dt, seed=5), out_int32=True),
            S(make((6,), dt), v, sorter=np.argsort(make((6,), dt), kind="stable").astype(np.int64))]


def _bucketize(dt):
    b = _sorted((5,), dt)
    return [S(make((3, 4), dt, seed=1), b), S(make((3, 4), dt, seed=1), b, right=True), S(make((), dt, seed=2), b, out_int32=True)]


def _block_diag(dt):
    return [S(make((2, 2), dt), make((3,), dt, seed=1), make((), dt, seed=2)), S(make((1, 3), dt)), S(make((0, 2), dt), make((2, 0), dt))]


def _cartesian_prod(dt):
    return [S(make((3,), dt), make((2,), dt, seed=1)), S(make((2,), dt), make((2,), dt, seed=1), make((3,), dt, seed=2)),
            S(make((4,), dt))]


def _combinations(dt):
    x = make((4,), dt)
    return [S(x), S(x, 3), S(x, 2, True), S(x, 1), S(x, 0)]


def _put(dt):
    x = make((3, 4), dt)
    return [S(x, np.array([0, 5, -1]), make((3,), dt, seed=1)), S(x, np.array([[1, 1], [2, 3]]), make((2, 2), dt, seed=2), True),
            S(make((), dt), np.array([0]), make((1,), dt, seed=3))]


def _index_reduce(dt):
    out = []
    for red in ("prod", "mean", "amax", "amin"):
        for inc in (True, False):
            out.append(S(make((3, 4), dt), 0, np.array([2, 0, 2]), make((3, 4), dt, seed=1), red, include_self=inc,
                         name=f"{red}-{inc}"))
    return out


def _np_tensordot(a, b, dims=2):
    return np.tensordot(a, b, dims)


op_db_shape = [
    _info("gather", _gather, supports_out=True),
    _info("scatter", _scatter, supports_out=True, inplace_variant="scatter_"),
    _info("scatter", lambda dt: _scatter(dt, value=True), supports_out=True, inplace_variant="scatter_"),
    _info("scatter", lambda dt: _scatter(dt, reduce="add"), dtypes=F, supports_out=True, inplace_variant="scatter_"),
    _info("scatter", lambda dt: _scatter(dt, reduce="multiply"), dtypes=F, supports_out=True, inplace_variant="scatter_"),
    _info("scatter_add", _scatter_add, supports_out=True, inplace_variant="scatter_add_"),
    _info("scatter_reduce", _scatter_reduce, supports_out=True, inplace_variant="scatter_reduce_"),
    _info("index_select", _index_select, dtypes=FIB, supports_out=True),
    _info("index_add", _index_add, supports_out=True, inplace_variant="index_add_"),
    _info("index_copy", _index_copy, dtypes=FIB, supports_out=True, inplace_variant="index_copy_"),
    _info("index_fill", _index_fill, dtypes=FIB, inplace_variant="index_fill_"),
    _info("masked_fill", _masked_fill, dtypes=FIB, inplace_variant="masked_fill_",
          ref=lambda x, m, v: np.broadcast_to(np.where(m, v, x), np.broadcast_shapes(x.shape, m.shape))),
    _info("masked_select", _masked_select, dtypes=FIB, supports_out=True, supports_meta=False,
          ref=lambda x, m: np.broadcast_to(x, np.broadcast_shapes(x.shape, m.shape))[np.broadcast_to(m, np.broadcast_shapes(x.shape, m.shape))]),
    _info("masked_scatter", _masked_scatter, inplace_variant="masked_scatter_"),
    _info("take", _take, dtypes=FIB, supports_out=True, ref=lambda x, i: np.take(x.reshape(-1), i)),
    _info("take_along_dim", _take_along_dim, supports_out=True),
    _info("put", _put, inplace_variant="put_"),
    _info("index_reduce", _index_reduce, supports_out=True, inplace_variant="index_reduce_"),
    _info("nonzero", _unary_shapes, dtypes=FIB, supports_out=True, supports_meta=False, ref=np.argwhere),
    _info("argwhere", _unary_shapes, dtypes=FIB, supports_meta=False, ref=np.argwhere),
    OpInfo("where", lambda op, dt: [SampleInput(s.input, name=s.name) for s in _unary_shapes(dt) if s.input.ndim],
           dtypes=FIB, supports_meta=False, method_variant=False, ref=lambda x: tuple(np.nonzero(x))),
    _info("Tensor.repeat", _repeat, dtypes=FIB, ref=lambda x, r: np.tile(x, r), aten_name="repeat"),
    _info("repeat_interleave", _repeat_interleave, supports_meta=False),
    _info("tile", _tile, dtypes=FIB, ref=np.tile),
    _info("roll", _roll, dtypes=FIB),
    _info("flip", _flip, dtypes=FIB, ref=lambda x, d: np.flip(x, d) if d and x.ndim else x),
    _info("fliplr", lambda dt: [S(make((3, 4), dt)), S(make((2, 3, 4), dt)), S(make((0, 2), dt))], ref=np.fliplr),
    _info("flipud", lambda dt: [S(make((3, 4), dt)), S(make((5,), dt)), S(make((0,), dt))], ref=np.flipud),
    _info("rot90", _rot90, dtypes=FIB),
    _info("tril", _tri, dtypes=FIB, supports_out=True, inplace_variant="tril_", ref=np.tril),
    _info("triu", _tri, dtypes=FIB, supports_out=True, inplace_variant="triu_", ref=np.triu),
    _info("diag", _diag, dtypes=FIB, supports_out=True, ref=np.diag),
    _info("diag_embed", _diag_embed, dtypes=FIB),
    _info("diagflat", _diagflat, dtypes=FIB, ref=np.diagflat),
    _info("trace", _trace, ref=np.trace),
    _info("outer", _outer, supports_out=True, ref=np.outer),
    _info("ger", _outer, supports_out=True, ref=np.outer),
    _info("kron", _kron, supports_out=True, ref=np.kron),
    _info("linalg.cross", _cross, supports_out=True, method_variant=False, aten_name="linalg_cross"),
    _info("cross", _torch_cross, supports_out=True),
    OpInfo("einsum", lambda op, dt: _einsum(dt), dtypes=F, method_variant=False, check_strides=False,
           ref=lambda eq, *ops: np.einsum(eq, *ops), rtol=1e-5, atol=1e-5),
    _info("tensordot", _tensordot, dtypes=F, method_variant=False, ref=_np_tensordot, rtol=1e-5, atol=1e-5),
    _info("broadcast_to", _broadcast_to, dtypes=FIB),
    _info("broadcast_tensors", _broadcast_tensors, dtypes=FIB, method_variant=False, ref=lambda *a: np.broadcast_arrays(*a)),
    _info("meshgrid", _meshgrid, dtypes=FIB, method_variant=False,
          ref=lambda *a, indexing: tuple(np.meshgrid(*[x.reshape(-1) for x in a], indexing=indexing))),
    _info("Tensor.unfold", _unfold, dtypes=FIB, aten_name="unfold"),
    _info("narrow_copy", _narrow_copy, dtypes=FIB, supports_out=True),
    _info("searchsorted", _searchsorted, supports_out=True, method_variant=False),
    _info("bucketize", _bucketize, supports_out=True, method_variant=False),
    _info("block_diag", _block_diag, method_variant=False),
    _info("cartesian_prod", _cartesian_prod, method_variant=False),
    _info("combinations", _combinations, supports_meta=False),
]


# ------------------------------------------------------------------ linalg (well-conditioned inputs; sign-free outputs)
def _spd(shape, dt, seed=0):
    x = make(shape, dt, seed=seed)
    n = shape[-1]
    return (x @ np.swapaxes(x, -1, -2) + n * np.eye(n)).astype(dt)


def _square(dt):
    return [S(_spd((3, 3), dt)), S(_spd((2, 4, 4), dt, 1) - 2 * np.eye(4, dtype=dt)), S(make((3, 3), dt, seed=2) + 4 * np.eye(3, dtype=dt)),
            S(np.zeros((0, 0), dt)), S(_spd((2, 3, 3), dt, 3))]


def _solve(dt):
    a = make((3, 3), dt) + 4 * np.eye(3, dtype=dt)
    return [S(a, make((3, 2), dt, seed=1)), S(a, make((3,), dt, seed=2)), S(_spd((2, 3, 3), dt), make((3, 4), dt, seed=3)),
            S(a, make((2, 3), dt, seed=4), left=False)]


def _rect(dt):
    return [S(make((4, 3), dt)), S(make((3, 5), dt, seed=1)), S(make((2, 4, 3), dt, seed=2)), S(make((3, 3), dt, seed=3))]


def _lstsq(dt):
    a = make((5, 3), dt) + np.eye(5, 3, dtype=dt) * 3
    return [S(a, make((5, 2), dt, seed=1)), S(a, make((5, 2), dt, seed=1), driver="gelsd"), S(a, make((5,), dt, seed=2)),
            S(make((2, 4, 2), dt, seed=3), make((2, 4, 3), dt, seed=4))]


def _rank(dt):
    low = (make((4, 1), dt) @ make((1, 3), dt, seed=1)).astype(dt)
    return [S(low), S(make((3, 4), dt)), S(_spd((2, 3, 3), dt), hermitian=True), S(make((3, 3), dt), atol=1.0)]


def _pinv(dt):
    return [S(make((4, 3), dt)), S(make((2, 3, 5), dt, seed=1)), S(_spd((3, 3), dt), hermitian=True), S(make((3, 3), dt), rtol=0.1)]


def _mpow(dt):
    a = (make((3, 3), dt) / 3 + np.eye(3, dtype=dt)).astype(dt)
    return [S(a, 0), S(a, 1), S(a, 3), S(a, -2), S(make((2, 2, 2), dt), 5)]


def _mpow_int(dt):
    return [S(np.arange(9, dtype=dt).reshape(3, 3) % 3, 3), S(np.arange(4, dtype=dt).reshape(2, 2), 0)]


_LIN = dict(dtypes=F, method_variant=False, rtol=1e-4, atol=1e-4)
op_db_shape += [
    _info("linalg.inv", _square, supports_out=True, ref=np.linalg.inv, aten_name="linalg_inv", **_LIN),
    _info("inverse", _square, supports_out=True, ref=np.linalg.inv, dtypes=F, rtol=1e-4, atol=1e-4),
    _info("linalg.det", _square, supports_out=True, ref=np.linalg.det, aten_name="linalg_det", **_LIN),
    _info("det", _square, dtypes=F, rtol=1e-4, atol=1e-4),
    _info("linalg.slogdet", _square, ref=np.linalg.slogdet, aten_name="linalg_slogdet", **_LIN),
    _info("logdet", lambda dt: _square(dt)[:2], dtypes=F, rtol=1e-4, atol=1e-4),
    _info("linalg.solve", _solve, supports_out=True, aten_name="linalg_solve", check_strides=False, **_LIN),
    _info("linalg.cholesky", lambda dt: [S(_spd((3, 3), dt)), S(_spd((2, 4, 4), dt, 1)), S(_spd((3, 3), dt, 2), upper=True)],
          supports_out=True, aten_name="linalg_cholesky", **_LIN),
    _info("linalg.qr", lambda dt: [S(make((4, 3), dt)), S(make((3, 5), dt), "complete"), S(make((2, 4, 3), dt), "r")],
          aten_name="linalg_qr", **_LIN),
    _info("linalg.svdvals", _rect, supports_out=True, ref=lambda a: np.linalg.svd(a, compute_uv=False),
          aten_name="linalg_svdvals", **_LIN),
    _info("linalg.eigvalsh", lambda dt: [S(_spd((3, 3), dt)), S(_spd((2, 4, 4), dt, 1), "U")], supports_out=True,
          ref=lambda a, UPLO="L": np.linalg.eigvalsh(a, UPLO), aten_name="linalg_eigvalsh", **_LIN),
    _info("linalg.lstsq", _lstsq, aten_name="linalg_lstsq", check_strides=False, **_LIN),
    _info("linalg.pinv", _pinv, aten_name="linalg_pinv", **_LIN),
    _info("pinverse", lambda dt: [S(make((4, 3), dt)), S(make((2, 3, 5), dt), 0.1)], dtypes=F, rtol=1e-4, atol=1e-4),
    _info("linalg.matrix_rank", _rank, aten_name="linalg_matrix_rank", **_LIN),
    _info("linalg.matrix_power", _mpow, supports_out=True, aten_name="linalg_matrix_power", **_LIN),
    _info("matrix_power", _mpow_int, dtypes=("int64",)),
]


def _chol(dt, seed=0, batch=()):
    return np.linalg.cholesky(_spd(batch + (3, 3), dt, seed)).astype(dt)


op_db_shape += [
    _info("linalg.eigvals", lambda dt: [S(make((3, 3), dt)), S(make((2, 4, 4), dt, seed=1))], aten_name="linalg_eigvals",
          **_LIN),
    _info("linalg.matrix_exp", lambda dt: [S(make((3, 3), dt)), S(4 * make((2, 4, 4), dt, seed=1)), S(np.zeros((0, 0), dt))],
          aten_name="linalg_matrix_exp", **_LIN),
    _info("matrix_exp", lambda dt: [S(make((3, 3), dt)), S(make((2, 2, 2), dt, seed=1))], dtypes=F, rtol=1e-4, atol=1e-4),
    _info("cholesky_solve", lambda dt: [S(make((3, 2), dt), _chol(dt)), S(make((2, 3, 4), dt), _chol(dt, 1)),
                                        S(make((3, 2), dt), np.swapaxes(_chol(dt), -1, -2).copy(), True)],
          dtypes=F, supports_out=True, rtol=1e-4, atol=1e-4),
    _info("cholesky_inverse", lambda dt: [S(_chol(dt)), S(_chol(dt, 1, (2,))), S(np.swapaxes(_chol(dt), -1, -2).copy(), True)],
          dtypes=F, supports_out=True, rtol=1e-4, atol=1e-4),
    _info("linalg.vecdot", lambda dt: [S(make((3, 4), dt), make((3, 4), dt, seed=1)), S(make((2, 3), dt), make((3,), dt), dim=-1),
                                       S(make((3, 4), dt), make((3, 4), dt, seed=2), dim=0)],
          supports_out=True, aten_name="linalg_vecdot", **_LIN),
    _info("linalg.cond", lambda dt: [S(_spd((3, 3), dt)), S(_spd((2, 3, 3), dt), "fro"), S(_spd((3, 3), dt), 1),
                                     S(make((3, 4), dt)), S(_spd((3, 3), dt), -2), S(_spd((3, 3), dt), float("inf"))],
          aten_name="linalg_cond", **_LIN),
]
