"""OpInfo entries of the sorting and searching ops (torch's common_methods_invocations.py op_db, this family's part)."""
import numpy as np

from .._opinfo import OpInfo, SampleInput
from .._samples import along_dim, make
from ._common import F, FI, S, SN, _info, _info_fi


def _sorted(shape, dt, seed=0):
    return np.sort(make(shape, dt, seed=seed), axis=-1)


def _searchsorted(dt):
    seq = _sorted((6,), dt)
    v = make((3, 4), dt, seed=3)
    return [SN(seq, v), SN(seq, v, right=True), SN(seq, v, side="right"), SN(_sorted((3, 6), dt), make((3, 4), dt, seed=1)),
            SN(_sorted((2, 3, 5), dt), make((2, 3, 2), dt, seed=2), right=True), SN(seq, make((), dt, seed=5), out_int32=True),
            SN(make((6,), dt), v, sorter=np.argsort(make((6,), dt), kind="stable").astype(np.int64)),
            SN(seq, 1 if dt.startswith("int") else 0.5), SN(seq, 1, right=True, out_int32=True)]   # searchsorted.Scalar


def _bucketize(dt):
    b = _sorted((5,), dt)
    return [SN(make((3, 4), dt, seed=1), b), SN(make((3, 4), dt, seed=1), b, right=True), SN(make((), dt, seed=2), b, out_int32=True),
            SN(1 if dt.startswith("int") else 0.5, b), SN(2, b, right=True)]                          # bucketize.Scalar


def _unique(dt):
    x = np.array([3, 1, 2, 3, 1, 5, 2, 3], dtype=dt)
    m = np.array([[1, 2], [0, 1], [1, 2], [0, 0]], dtype=dt)
    return [S(x), S(x, return_inverse=True, return_counts=True), S(m, sorted=True, return_inverse=True, dim=0),
            S(m.T.copy(), return_counts=True, dim=1)]


op_db = [
    OpInfo("kthvalue", lambda op, dt: [SampleInput(make(s, dt), (2,), {"dim": d}, f"{s}{d}") for s in ((5,), (3, 4), (2, 3, 4))
                                       for d in (0, -1)], dtypes=F),
    OpInfo("sort", along_dim(kwargs=({}, {"descending": True}), distinct=True), dtypes=FI),
    OpInfo("argsort", along_dim(kwargs=({}, {"descending": True}), distinct=True), dtypes=FI),
    # stable=True: ties keep their order, so samples with repeated values have one answer (argsort.stable)
    OpInfo("argsort", lambda op, dt: [SampleInput(np.round(make(s, dt)), (), k, f"{s}{k}") for s in ((7,), (3, 4))
                                      for k in ({"stable": True}, {"stable": True, "descending": True, "dim": 0})],
           dtypes=FI, supports_out=True),
    OpInfo("topk", lambda op, dt: [SampleInput(np.random.default_rng(1).permutation(int(np.prod(s))).reshape(s).astype(dt),
                                               (2,), k, f"{s}{k}") for s in ((5,), (3, 4), (2, 3, 4))
                                   for k in ({}, {"dim": 0}, {"largest": False})], dtypes=FI),
    OpInfo("msort", lambda op, dt: [SampleInput(make(s, dt), (), {}, f"{s}") for s in ((5,), (3, 4))], dtypes=FI,
           supports_out=True),
    _info_fi("searchsorted", _searchsorted, supports_out=True, method_variant=False),
    _info_fi("bucketize", _bucketize, supports_out=True, method_variant=False),
    _info("unique", _unique, dtypes=("float32", "int64"), supports_meta=False, method_variant=True, aten_name="_unique2"),
]
