"""OpInfo entries of the indexing ops (gather/scatter, index_*, masked_*, take/put, nonzero) (torch's common_methods_invocations.py op_db, this family's part)."""
import numpy as np

from .._opinfo import OpInfo, SampleInput
from .._samples import make
from ._common import F, FIB, SN, _info_fi, _mask, _unary_shapes


def _idx(shape, high, seed=0):
    return np.random.default_rng(seed).integers(0, high, shape).astype(np.int64)


def _perm(shape, dim, seed=0):
    """Indices that are a permutation along dim (no duplicate scatter targets)."""
    r = np.random.default_rng(seed).random(shape)
    return np.argsort(r, axis=dim).astype(np.int64)


def _gather(dt):
    x = make((3, 4), dt)
    return [SN(x, 0, _idx((2, 4), 3)), SN(x, 1, _idx((3, 2), 4)), SN(x, -1, _idx((1, 6), 4)),
            SN(make((2, 3, 4), dt), 1, _idx((2, 5, 3), 3)), SN(make((), dt), 0, np.array(0)),
            SN(x, 0, np.zeros((0, 4), np.int64))]


def _scatter(dt, value=False, reduce=None):
    out = []
    for shape, dim in (((3, 4), 0), ((3, 4), 1), ((2, 3, 4), -1), ((5,), 0)):
        x = make(shape, dt)
        idx = _perm(shape, dim)
        sl = tuple(slice(0, 2) if i == (dim % len(shape)) else slice(None) for i in range(len(shape)))
        idx = idx[sl]
        # src shaped like index (torch's samples): its gradient, grad.gather(dim, index), has src's shape; the
        # last sample keeps a larger src, whose backward torch refuses ("returned an invalid gradient")
        src = 2.5 if value else make(idx.shape if len(shape) > 1 else shape, dt, seed=5)
        kw = {} if reduce is None else {"reduce": reduce}
        out.append(SN(x, dim, idx, src, **kw))
    out.append(SN(make((), dt), 0, np.array(0), 1 if value else make((), dt, seed=3)))
    return out


def _scatter_add(dt):
    x = make((3, 4), dt)
    return [SN(x, 0, _idx((5, 4), 3), make((5, 4), dt, seed=1)), SN(x, 1, _idx((3, 2), 4), make((3, 3), dt, seed=2)),
            SN(make((2, 3), dt), 0, np.zeros((0, 3), np.int64), make((2, 3), dt))]


def _scatter_reduce(dt):
    out = []
    for red in ("sum", "prod", "mean", "amax", "amin"):
        for inc in (True, False):
            x = make((3, 4), dt)
            out.append(SN(x, 0, _idx((5, 4), 3), make((5, 4), dt, seed=4), red, include_self=inc, name=f"{red}-{inc}"))
    return out


def _index_select(dt):
    x = make((3, 4), dt)
    return [SN(x, 0, np.array([2, 0, 2])), SN(x, 1, np.array([3])), SN(x, -1, np.array(1)),
            SN(make((), dt), 0, np.array([0])), SN(x, 0, np.zeros(0, np.int64)), SN(make((2, 3, 4), dt), 1, np.array([1, 1]))]


def _index_add(dt):
    x = make((3, 4), dt)
    return [SN(x, 0, np.array([2, 0, 2]), make((3, 4), dt, seed=1)),
            SN(x, 1, np.array([1, 3]), make((3, 2), dt, seed=2), alpha=2),
            SN(make((2, 3, 4), dt), -1, np.array([0]), make((2, 3, 1), dt, seed=3))]


def _index_copy(dt):
    x = make((3, 4), dt)
    return [SN(x, 0, np.array([2, 0]), make((2, 4), dt, seed=1)), SN(x, 1, np.array([3, 1]), make((3, 2), dt, seed=2)),
            SN(make((), dt), 0, np.array(0), make((), dt, seed=5))]


def _index_fill(dt):
    x = make((3, 4), dt)
    v = True if dt == "bool" else 2
    return [SN(x, 0, np.array([2, 0]), v), SN(x, 1, np.array([3, -1]), v), SN(make((2, 3, 4), dt), 2, np.array([1]), v),
            SN(x, 0, np.array([1]), np.array(v, dtype=dt))]


def _masked_fill(dt):
    x = make((3, 4), dt)
    v = True if dt == "bool" else 7
    return [SN(x, _mask((3, 4)), v), SN(x, _mask((4,)), v), SN(make((), dt), np.array(True), v),
            SN(x, _mask((3, 4), 1), np.array(v, dtype=dt)), SN(make((0, 4), dt), _mask((0, 4)), v)]


def _masked_select(dt):
    x = make((3, 4), dt)
    return [SN(x, _mask((3, 4))), SN(x, _mask((4,))), SN(make((4,), dt), _mask((3, 4))), SN(make((), dt), np.array(True))]


def _masked_scatter(dt):
    x = make((3, 4), dt)
    return [SN(x, _mask((3, 4)), make((12,), dt, seed=3)), SN(x, _mask((4,)), make((3, 5), dt, seed=4)),
            SN(make((2, 3, 4), dt), _mask((2, 3, 4)), make((24,), dt)),
            # exactly as many source elements as the mask selects (tools/mutate.py: `<` -> `<=` survived)
            SN(x, _mask((3, 4)), make((int(_mask((3, 4)).sum()),), dt, seed=5))]


def _take(dt):
    return [SN(make((3, 4), dt), np.array([[0, 11], [-1, 5]])), SN(make((5,), dt), np.array(2)),
            SN(make((), dt), np.array([0, 0])), SN(make((3, 4), dt), np.zeros(0, np.int64))]


def _take_along_dim(dt):
    x = make((3, 4), dt)
    return [SN(x, _perm((3, 4), 1), 1), SN(x, _idx((1, 4), 3), 0), SN(x, np.array([11, 0, 3])),
            SN(make((2, 3, 4), dt), _idx((2, 3, 2), 4), -1)]


def _put(dt):
    x = make((3, 4), dt)
    return [SN(x, np.array([0, 5, -1]), make((3,), dt, seed=1)), SN(x, np.array([[1, 1], [2, 3]]), make((2, 2), dt, seed=2), True),
            SN(make((), dt), np.array([0]), make((1,), dt, seed=3))]


def _index_reduce(dt):
    out = []
    for red in ("prod", "mean", "amax", "amin"):
        for inc in (True, False):
            out.append(SN(make((3, 4), dt), 0, np.array([2, 0, 2]), make((3, 4), dt, seed=1), red, include_self=inc,
                         name=f"{red}-{inc}"))
    return out


op_db = [
    _info_fi("gather", _gather, supports_out=True),
    _info_fi("scatter", _scatter, supports_out=True, inplace_variant="scatter_"),
    _info_fi("scatter", lambda dt: _scatter(dt, value=True), supports_out=True, inplace_variant="scatter_"),
    _info_fi("scatter", lambda dt: _scatter(dt, reduce="add"), dtypes=F, supports_out=True, inplace_variant="scatter_"),
    _info_fi("scatter", lambda dt: _scatter(dt, reduce="multiply"), dtypes=F, supports_out=True, inplace_variant="scatter_"),
    _info_fi("scatter", lambda dt: _scatter(dt, value=True, reduce="add"), dtypes=F, supports_out=True,
             inplace_variant="scatter_"),
    _info_fi("scatter_add", _scatter_add, supports_out=True, inplace_variant="scatter_add_"),
    _info_fi("scatter_reduce", _scatter_reduce, supports_out=True, inplace_variant="scatter_reduce_"),
    _info_fi("index_select", _index_select, dtypes=FIB, supports_out=True),
    _info_fi("index_add", _index_add, supports_out=True, inplace_variant="index_add_"),
    _info_fi("index_copy", _index_copy, dtypes=FIB, supports_out=True, inplace_variant="index_copy_"),
    _info_fi("index_fill", _index_fill, dtypes=FIB, inplace_variant="index_fill_"),
    _info_fi("masked_fill", _masked_fill, dtypes=FIB, inplace_variant="masked_fill_",
          ref=lambda x, m, v: np.broadcast_to(np.where(m, v, x), np.broadcast_shapes(x.shape, m.shape))),
    _info_fi("masked_select", _masked_select, dtypes=FIB, supports_out=True, supports_meta=False,
          ref=lambda x, m: np.broadcast_to(x, np.broadcast_shapes(x.shape, m.shape))[np.broadcast_to(m, np.broadcast_shapes(x.shape, m.shape))]),
    _info_fi("masked_scatter", _masked_scatter, inplace_variant="masked_scatter_"),
    _info_fi("take", _take, dtypes=FIB, supports_out=True, ref=lambda x, i: np.take(x.reshape(-1), i)),
    _info_fi("take_along_dim", _take_along_dim, supports_out=True),
    _info_fi("put", _put, inplace_variant="put_"),
    _info_fi("index_reduce", _index_reduce, supports_out=True, inplace_variant="index_reduce_"),
    _info_fi("nonzero", _unary_shapes, dtypes=FIB, supports_out=True, supports_meta=False, ref=np.argwhere),
    _info_fi("argwhere", _unary_shapes, dtypes=FIB, supports_meta=False, ref=np.argwhere),
]

op_db.append(OpInfo("nonzero_static", lambda op, dt: [
    SampleInput(s.input, (), {"size": k, **({"fill_value": f} if f is not None else {})}, f"{s.name}-{k}-{f}")
    for s in _unary_shapes(dt) for k, f in ((4, None), (1, 7), (0, None), (30, -2))], dtypes=FIB, supports_out=True,
    method_variant=True))
