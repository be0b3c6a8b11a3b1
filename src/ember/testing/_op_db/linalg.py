"""OpInfo entries of the linear algebra (torch's common_methods_invocations.py op_db, this family's part)."""
import numpy as np

from .._opinfo import OpInfo, SampleInput
from .._samples import make, reduction
from ._common import F, S, SN, _info, _info_fi


def _trace(dt):
    return [SN(make((3, 4), dt)), SN(make((4, 4), dt)), SN(make((0, 3), dt))]


def _outer(dt):
    return [SN(make((3,), dt), make((4,), dt, seed=1)), SN(make((0,), dt), make((2,), dt))]


def _kron(dt):
    return [SN(make((2, 3), dt), make((3, 2), dt, seed=1)), SN(make((2,), dt), make((3, 2), dt, seed=1)),
            SN(make((), dt), make((3,), dt, seed=2)), SN(make((2, 1, 3), dt), make((2, 2), dt))]


def _cross(dt):
    return [SN(make((3,), dt), make((3,), dt, seed=1)), SN(make((4, 3), dt), make((4, 3), dt, seed=1)),
            SN(make((3, 2), dt), make((3, 2), dt, seed=1), dim=0), SN(make((2, 1, 3), dt), make((1, 4, 3), dt, seed=2))]


def _torch_cross(dt):
    return [SN(make((4, 3), dt), make((4, 3), dt, seed=1), 1), SN(make((3, 2), dt), make((3, 2), dt, seed=1), dim=0)]


def _scales(dt):
    """(beta, alpha) pairs for the add*-products: integer scales for integer dtypes (torch refuses floats)."""
    return [(1, 1), (2, 3), (0, 2)] + ([(0.5, -1.5)] if dt in ("float32", "float64") else [])


def _baddbmm(dt):
    b1, b2 = make((2, 3, 4), dt, seed=1), make((2, 4, 5), dt, seed=2)
    out = [SN(make(s, dt), b1, b2, beta=be, alpha=al, name=f"{s}-{be}-{al}")
           for s in ((2, 3, 5), (3, 1), (5,)) for be, al in _scales(dt)]
    return out + [SN(make((0, 3, 2), dt), make((0, 3, 4), dt), make((0, 4, 2), dt), name="empty-batch")]


def _addbmm(dt):
    b1, b2 = make((2, 3, 4), dt, seed=1), make((2, 4, 5), dt, seed=2)
    out = [SN(make(s, dt), b1, b2, beta=be, alpha=al, name=f"{s}-{be}-{al}")
           for s in ((3, 5), (1, 5), ()) for be, al in _scales(dt)]
    return out + [SN(make((3, 2), dt), make((0, 3, 4), dt), make((0, 4, 2), dt), name="empty-batch")]


def _addmv(dt):
    m, v = make((3, 4), dt, seed=1), make((4,), dt, seed=2)
    out = [SN(make(s, dt), m, v, beta=be, alpha=al, name=f"{s}-{be}-{al}")
           for s in ((3,), (1,), ()) for be, al in _scales(dt)]
    return out + [SN(make((3,), dt), make((3, 0), dt), make((0,), dt), name="empty-k")]


def _addr(dt):
    v1, v2 = make((3,), dt, seed=1), make((4,), dt, seed=2)
    return [SN(make(s, dt), v1, v2, beta=be, alpha=al, name=f"{s}-{be}-{al}")
            for s in ((3, 4), (3, 1), (4,), ()) for be, al in _scales(dt)]


def _einsum(dt):
    a, b, c = make((3, 4), dt), make((4, 5), dt, seed=1), make((5,), dt, seed=2)
    return [SN("ij,jk->ik", a, b), SN("ij,jk,k->i", a, b, c), SN("ii", make((3, 3), dt)), SN("ij->ji", a),
            SN("bij,bjk->bik", make((2, 3, 4), dt), make((2, 4, 2), dt, seed=4)), SN("i,j", c, c), SN("...ij->...ji", make((2, 3, 4), dt)),
            SN("ij,ij->", a, make((3, 4), dt, seed=7)),
            SN("iij->j", make((3, 3, 2), dt)), SN("...ij,...jk", make((2, 1, 3, 4), dt), make((5, 4, 2), dt, seed=8)),
            SN("bn,anm,bm->ba", make((2, 3), dt), make((4, 3, 5), dt, seed=9), make((2, 5), dt, seed=10)), SN("ij->", make((0, 3), dt))]


def _tensordot(dt):
    a, b = make((3, 4, 5), dt), make((4, 5, 2), dt, seed=1)
    return [SN(a, b), SN(make((3, 4), dt), make((4, 2), dt, seed=1), 1),
            SN(a, make((5, 3), dt, seed=2), ([2, 0], [0, 1])), SN(make((3,), dt), make((2,), dt), 0)]


def _np_tensordot(a, b, dims=2):
    return np.tensordot(a, b, dims)


def _spd_dt(shape, dt, seed=0):
    x = make(shape, dt, seed=seed)
    n = shape[-1]
    return (x @ np.swapaxes(x, -1, -2) + n * np.eye(n)).astype(dt)


def _square(dt):
    return [SN(_spd_dt((3, 3), dt)), SN(_spd_dt((2, 4, 4), dt, 1) - 2 * np.eye(4, dtype=dt)), SN(make((3, 3), dt, seed=2) + 4 * np.eye(3, dtype=dt)),
            SN(np.zeros((0, 0), dt)), SN(_spd_dt((2, 3, 3), dt, 3))]


def _solve(dt):
    a = make((3, 3), dt) + 4 * np.eye(3, dtype=dt)
    return [SN(a, make((3, 2), dt, seed=1)), SN(a, make((3,), dt, seed=2)), SN(_spd_dt((2, 3, 3), dt), make((3, 4), dt, seed=3)),
            SN(a, make((2, 3), dt, seed=4), left=False)]


def _rect(dt):
    return [SN(make((4, 3), dt)), SN(make((3, 5), dt, seed=1)), SN(make((2, 4, 3), dt, seed=2)), SN(make((3, 3), dt, seed=3))]


def _lstsq(dt):
    a = make((5, 3), dt) + np.eye(5, 3, dtype=dt) * 3
    return [SN(a, make((5, 2), dt, seed=1)), SN(a, make((5, 2), dt, seed=1), driver="gelsd"), SN(a, make((5,), dt, seed=2)),
            SN(make((2, 4, 2), dt, seed=3), make((2, 4, 3), dt, seed=4))]


def _rank(dt):
    low = (make((4, 1), dt) @ make((1, 3), dt, seed=1)).astype(dt)
    t = lambda v: np.asarray(v, dt)  # noqa: E731  (a 0-dim array becomes a tensor: the *_tensor overloads)
    return [SN(low), SN(make((3, 4), dt)), SN(_spd_dt((2, 3, 3), dt), hermitian=True), SN(make((3, 3), dt), atol=1.0),
            SN(make((3, 3), dt), atol=t(1.0), rtol=t(0.1)), SN(make((3, 3), dt), tol=1.5), SN(make((3, 3), dt), tol=t(1.5))]


def _pinv(dt):
    t = lambda v: np.asarray(v, dt)  # noqa: E731
    return [SN(make((4, 3), dt)), SN(make((2, 3, 5), dt, seed=1)), SN(_spd_dt((3, 3), dt), hermitian=True), SN(make((3, 3), dt), rtol=0.1),
            SN(make((3, 3), dt), rcond=0.1), SN(make((3, 4), dt), rcond=t(0.1)), SN(make((3, 4), dt), atol=t(0.1), rtol=t(0.2))]


def _mpow(dt):
    a = (make((3, 3), dt) / 3 + np.eye(3, dtype=dt)).astype(dt)
    return [SN(a, 0), SN(a, 1), SN(a, 3), SN(a, -2), SN(make((2, 2, 2), dt), 5)]


def _mpow_int(dt):
    return [SN(np.arange(9, dtype=dt).reshape(3, 3) % 3, 3), SN(np.arange(4, dtype=dt).reshape(2, 2), 0)]


_LIN = dict(dtypes=F, method_variant=False, rtol=1e-4, atol=1e-4)


def _chol(dt, seed=0, batch=()):
    return np.linalg.cholesky(_spd_dt(batch + (3, 3), dt, seed)).astype(dt)


def _spd(shape, dt, seed=0):
    a = make(shape, "float64", seed=seed)
    return (a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])).astype(dt)


def _fix_signs(vectors, rows=None):
    """Flip each column of `vectors` (and the matching row of `rows`) so its largest-|.| entry is positive."""
    k = min(vectors.shape[-1], rows.shape[-2]) if rows is not None else vectors.shape[-1]
    cols = vectors[..., :k]
    pick = np.take_along_axis(cols, np.abs(cols).argmax(-2)[..., None, :], -2)
    s = np.where(pick < 0, -1.0, 1.0).astype(vectors.dtype)
    vectors = vectors.copy()
    vectors[..., :k] *= s
    if rows is None:
        return vectors
    rows = rows.copy()
    rows[..., :k, :] *= np.swapaxes(s, -1, -2)
    return vectors, rows


def _svd_canonical(outs):
    u, s, vh = outs
    u, vh = _fix_signs(u, vh)
    return [u, s, vh]


def _eigh_canonical(outs):
    w, v = outs
    return [w, _fix_signs(v)]


def _multi_dot(dt):
    """linalg.multi_dot's list of matrices (1-D first and last: a row and a column vector)."""
    return [SN([make((3, 4), dt), make((4, 5), dt, seed=1), make((5, 2), dt, seed=2)], name="3-matrices"),
            SN([make((4,), dt), make((4, 3), dt, seed=1), make((3,), dt, seed=2)], name="vector-ends"),
            SN([make((2, 6), dt), make((6, 2), dt, seed=3)], name="2-matrices"),
            SN([make((6, 2), dt), make((2, 6), dt, seed=7), make((6, 3), dt, seed=8)], name="right-first"),
            SN([make((3, 2), dt), make((2, 4), dt, seed=4), make((4, 4), dt, seed=5), make((4,), dt, seed=6)],
               name="4-tensors")]


def _svd(dt):
    return [S(make((3, 3), dt)), S(make((4, 3), dt, seed=1)), S(make((2, 3, 5), dt, seed=2), full_matrices=False),
            S(make((4, 2), dt, seed=3), full_matrices=False)]


def _svd_legacy(dt):
    return [S(make((3, 3), dt)), S(make((4, 3), dt, seed=1)), S(make((2, 3, 5), dt, seed=2)), S(make((3, 3), dt, seed=4), some=False)]


def _svd_legacy_canonical(outs):
    u, s, v = outs
    u, vh = _fix_signs(u, np.swapaxes(v, -1, -2))
    return [u, s, vh]


def _triangular(dt):
    a = np.triu(make((3, 3), dt) + 4 * np.eye(3, dtype=dt)).astype(dt)
    return [SN(a, make((3, 2), dt, seed=1), upper=True), SN(np.swapaxes(a, -1, -2).copy(), make((3, 2), dt, seed=2), upper=False),
            SN(a, make((2, 3), dt, seed=3), upper=True, left=False),
            SN(a, make((3, 2), dt, seed=4), upper=True, unitriangular=True)]


def _eigh(dt):
    return [S(_spd((3, 3), dt)), S(_spd((2, 4, 4), dt, 1), "U")]


def _sq(shape, dt, seed=0, boost=3.0):
    """A random batch of square matrices with `boost` added on the diagonal (well conditioned)."""
    return (make(shape, "float64", seed=seed) + boost * np.eye(shape[-1])).astype(dt)


def _pivots(batch, n, seed=0):
    """Valid LAPACK-style pivots: pivots[..., j] in [j + 1, n]."""
    rng = np.random.default_rng(seed)
    return np.stack([rng.integers(np.arange(1, n + 1), n + 1) for _ in range(int(np.prod(batch, dtype=int)))]
                    ).reshape(tuple(batch) + (n,)).astype(np.int32)


def _lu_unpack(dt):
    out = []
    for shape, seed in (((3, 3), 0), ((2, 4, 3), 1), ((3, 5), 2)):
        m, n = shape[-2:]
        lu, piv = make(shape, dt, seed=seed), _pivots(shape[:-2], min(m, n), seed)
        piv = np.minimum(piv, m).astype(np.int32)
        out += [S(lu, piv), S(lu, piv, False), S(lu, piv, unpack_pivots=False)]
    return out


def _lu_solve(dt):
    out = []
    for shape, bshape, seed in (((3, 3), (3, 2), 0), ((2, 3, 3), (2, 3, 1), 1), ((3, 3), (2, 3, 2), 2)):
        lu, piv = _sq(shape, dt, seed), _pivots(shape[:-2], shape[-1], seed)
        b = make(bshape, dt, seed=seed + 10)
        out += [S(lu, piv, b), S(lu, piv, b, adjoint=True), S(lu, piv, np.swapaxes(b, -1, -2).copy(), left=False),
                S(lu, piv, np.swapaxes(b, -1, -2).copy(), left=False, adjoint=True)]
    return out


def _legacy_lu_solve(dt):
    lu, piv = _sq((2, 3, 3), dt), _pivots((2,), 3)
    return [S(make((2, 3, 2), dt, seed=1), lu, piv), S(make((3, 1), dt, seed=2), lu[0], piv[0])]


def _geqrf(dt):
    return [S(make((3, 3), dt)), S(make((4, 3), dt, seed=1)), S(make((2, 3, 5), dt, seed=2)), S(make((0, 3), dt))]


def _orgqr(dt):
    """Householder reflectors (the strictly lower part of `input`) and their scales, as geqrf gives them."""
    return [S(make((4, 3), dt), make((3,), dt, 0.2, 1.5, seed=1)), S(make((3, 3), dt, seed=2), make((2,), dt, seed=3)),
            S(make((2, 4, 2), dt, seed=4), make((2, 2), dt, 0.2, 1.5, seed=5))]


def _ormqr(dt):
    tau = lambda n, seed, *b: make(b + (n,), dt, 0.2, 1.5, seed=seed)  # noqa: E731
    return [SN(make((4, 3), dt), tau(3, 1), make((4, 2), dt, seed=2), name="left"),
            SN(make((4, 3), dt), tau(3, 1), make((4, 2), dt, seed=2), transpose=True, name="left-transpose"),
            SN(make((3, 2), dt), tau(2, 3), make((4, 3), dt, seed=4), left=False, name="right"),
            SN(make((3, 3), dt), tau(3, 5), make((2, 3), dt, seed=6), False, True, name="right-transpose"),
            SN(make((2, 4, 3), dt), tau(2, 7, 2), make((2, 4, 2), dt, seed=8), name="batched-wide-other"),
            SN(make((3, 5), dt), tau(3, 9), make((3, 2), dt, seed=10), name="more-columns-than-rows")]


def _vdot(dt):
    return [S(make((5,), dt), make((5,), dt, seed=1)), S(make((0,), dt), make((0,), dt)),
            S(make((1,), dt, seed=2), make((1,), dt, seed=3))]


def _tensorinv(dt):
    a = _sq((6, 6), dt).reshape(6, 2, 3)
    b = _sq((4, 4), dt, seed=1).reshape(2, 2, 4)
    return [S(a, ind=1), S(b), S(_sq((4, 4), dt, seed=2).reshape(4, 2, 2), 1)]


def _tensorsolve(dt):
    a = _sq((6, 6), dt).reshape(2, 3, 6)
    a2 = np.moveaxis(_sq((6, 6), dt, seed=1).reshape(2, 3, 6), -1, 0).copy()      # (6, 2, 3)
    return [S(a, make((2, 3), dt, seed=3)), S(a2, make((2, 3), dt, seed=4), dims=(0,)),
            S(_sq((4, 4), dt, seed=2), make((4,), dt, seed=5))]


op_db = [
    OpInfo("linalg.vector_norm", reduction((None, 0, (0, 1))), dtypes=F, method_variant=False, supports_out=True,
           aten_name="linalg_vector_norm"),
    OpInfo("linalg.matrix_norm", lambda op, dt: [SampleInput(make(s, dt), (o,), {}, f"{s}-{o}") for s in ((3, 4), (2, 3, 3))
                                                 for o in ("fro", "nuc", 1, -1, 2, float("inf"))],
           dtypes=F, method_variant=False, supports_meta=True, aten_name="linalg_matrix_norm", supports_out=True),
    _info_fi("trace", _trace, ref=np.trace),
    _info_fi("outer", _outer, supports_out=True, ref=np.outer),
    _info_fi("ger", _outer, supports_out=True, ref=np.outer),
    _info_fi("baddbmm", _baddbmm, supports_out=True, method_variant=True, inplace_variant="baddbmm_", rtol=1e-5, atol=1e-5),
    _info_fi("addbmm", _addbmm, supports_out=True, method_variant=True, inplace_variant="addbmm_", rtol=1e-5, atol=1e-5),
    _info_fi("addmv", _addmv, supports_out=True, method_variant=True, inplace_variant="addmv_", rtol=1e-5, atol=1e-5),
    _info_fi("addr", _addr, supports_out=True, method_variant=True, inplace_variant="addr_"),
    _info_fi("kron", _kron, supports_out=True, ref=np.kron),
    _info_fi("linalg.cross", _cross, supports_out=True, method_variant=False, aten_name="linalg_cross"),
    _info_fi("cross", _torch_cross, supports_out=True),
    OpInfo("einsum", lambda op, dt: _einsum(dt), dtypes=F, method_variant=False, check_strides=False,
           ref=lambda eq, *ops: np.einsum(eq, *ops), rtol=1e-5, atol=1e-5),
    _info_fi("tensordot", _tensordot, dtypes=F, method_variant=False, ref=_np_tensordot, rtol=1e-5, atol=1e-5,
             supports_out=True),
    _info_fi("inner", lambda dt: [SN(make((3, 4), dt), make((2, 4), dt, seed=1)), SN(make((4,), dt), make((4,), dt, seed=2)),
                                  SN(make((2, 3, 4), dt), make((4,), dt, seed=3)), SN(make((3, 4), dt), make((), dt, seed=4))],
             ref=np.inner, supports_out=True, method_variant=True, rtol=1e-5, atol=1e-5),
    _info_fi("chain_matmul", lambda dt: [SN(make((3, 4), dt), make((4, 2), dt, seed=1)),
                                         SN(make((2, 3), dt), make((3, 4), dt, seed=2), make((4, 5), dt, seed=3)),
                                         SN(make((3, 3), dt), name="one")],
             ref=lambda *ms: np.linalg.multi_dot(ms) if len(ms) > 1 else ms[0], supports_out=True, method_variant=False,
             rtol=1e-5, atol=1e-5, dtypes=F),
    _info_fi("linalg.inv", _square, supports_out=True, ref=np.linalg.inv, aten_name="linalg_inv", **_LIN),
    _info_fi("inverse", _square, supports_out=True, ref=np.linalg.inv, dtypes=F, rtol=1e-4, atol=1e-4),
    _info_fi("linalg.det", _square, supports_out=True, ref=np.linalg.det, aten_name="linalg_det", **_LIN),
    _info_fi("det", _square, dtypes=F, rtol=1e-4, atol=1e-4),
    _info_fi("linalg.slogdet", _square, ref=np.linalg.slogdet, aten_name="linalg_slogdet", supports_out=True, **_LIN),
    _info_fi("logdet", lambda dt: _square(dt)[:2], dtypes=F, rtol=1e-4, atol=1e-4),
    _info_fi("linalg.solve", _solve, supports_out=True, aten_name="linalg_solve", check_strides=False, **_LIN),
    _info_fi("linalg.cholesky", lambda dt: [SN(_spd_dt((3, 3), dt)), SN(_spd_dt((2, 4, 4), dt, 1)), SN(_spd_dt((3, 3), dt, 2), upper=True)],
          supports_out=True, aten_name="linalg_cholesky", **_LIN),
    _info_fi("linalg.qr", lambda dt: [SN(make((4, 3), dt)), SN(make((3, 5), dt), "complete"), SN(make((2, 4, 3), dt), "r")],
          aten_name="linalg_qr", supports_out=True, **_LIN),
    _info_fi("linalg.svdvals", _rect, supports_out=True, ref=lambda a: np.linalg.svd(a, compute_uv=False),
          aten_name="linalg_svdvals", **_LIN),
    _info_fi("linalg.eigvalsh", lambda dt: [SN(_spd_dt((3, 3), dt)), SN(_spd_dt((2, 4, 4), dt, 1), "U")], supports_out=True,
          ref=lambda a, UPLO="L": np.linalg.eigvalsh(a, UPLO), aten_name="linalg_eigvalsh", **_LIN),
    _info_fi("linalg.lstsq", _lstsq, aten_name="linalg_lstsq", check_strides=False, supports_out=True, **_LIN),
    _info_fi("linalg.pinv", _pinv, aten_name="linalg_pinv", supports_out=True, **_LIN),
    _info_fi("pinverse", lambda dt: [SN(make((4, 3), dt)), SN(make((2, 3, 5), dt), 0.1)], dtypes=F, rtol=1e-4, atol=1e-4),
    _info_fi("linalg.matrix_rank", _rank, aten_name="linalg_matrix_rank", supports_out=True, **_LIN),
    _info_fi("linalg.matrix_power", _mpow, supports_out=True, aten_name="linalg_matrix_power", **_LIN),
    _info_fi("matrix_power", _mpow_int, dtypes=("int64",), supports_out=True),
    _info_fi("linalg.eigvals", lambda dt: [SN(make((3, 3), dt)), SN(make((2, 4, 4), dt, seed=1))], aten_name="linalg_eigvals",
          supports_out=True, **_LIN),
    _info_fi("linalg.matrix_exp", lambda dt: [SN(make((3, 3), dt)), SN(4 * make((2, 4, 4), dt, seed=1)), SN(np.zeros((0, 0), dt))],
          aten_name="linalg_matrix_exp", **_LIN),
    _info_fi("matrix_exp", lambda dt: [SN(make((3, 3), dt)), SN(make((2, 2, 2), dt, seed=1))], dtypes=F, rtol=1e-4, atol=1e-4),
    _info_fi("cholesky_solve", lambda dt: [SN(make((3, 2), dt), _chol(dt)), SN(make((2, 3, 4), dt), _chol(dt, 1)),
                                        SN(make((3, 2), dt), np.swapaxes(_chol(dt), -1, -2).copy(), True)],
          dtypes=F, supports_out=True, rtol=1e-4, atol=1e-4),
    _info_fi("cholesky_inverse", lambda dt: [SN(_chol(dt)), SN(_chol(dt, 1, (2,))), SN(np.swapaxes(_chol(dt), -1, -2).copy(), True)],
          dtypes=F, supports_out=True, rtol=1e-4, atol=1e-4),
    _info_fi("linalg.vecdot", lambda dt: [SN(make((3, 4), dt), make((3, 4), dt, seed=1)), SN(make((2, 3), dt), make((3,), dt), dim=-1),
                                       SN(make((3, 4), dt), make((3, 4), dt, seed=2), dim=0)],
          supports_out=True, aten_name="linalg_vecdot", **_LIN),
    _info_fi("linalg.cond", lambda dt: [SN(_spd_dt((3, 3), dt)), SN(_spd_dt((2, 3, 3), dt), "fro"), SN(_spd_dt((3, 3), dt), 1),
                                     SN(make((3, 4), dt)), SN(_spd_dt((3, 3), dt), -2), SN(_spd_dt((3, 3), dt), float("inf"))],
          aten_name="linalg_cond", supports_out=True, **_LIN),
    _info_fi("linalg.multi_dot", _multi_dot, dtypes=F, supports_out=True, method_variant=False,
             aten_name="linalg_multi_dot", rtol=1e-5, atol=1e-5),
    _info("linalg.svd", _svd, output_func=_svd_canonical, supports_out=True, rtol=1e-4, atol=1e-4, aten_name="linalg_svd"),
    _info("linalg.eigh", _eigh, output_func=_eigh_canonical, supports_out=True, rtol=1e-4, atol=1e-4, aten_name="linalg_eigh"),
    _info("lu_unpack", _lu_unpack, supports_out=True),
    _info("linalg.lu_solve", _lu_solve, supports_out=True, rtol=1e-4, atol=1e-5, aten_name="linalg_lu_solve"),
    _info("lu_solve", _legacy_lu_solve, supports_out=True, method_variant=True, rtol=1e-4, atol=1e-5),
    # float32 only in the generic database: torch's geqrf backward raises NotImplementedError (not a
    # RuntimeError), which the generic gradcheck test cannot compare; float64 is checked in test_linalg_lu.py
    _info("geqrf", _geqrf, dtypes=("float32",), supports_out=True, method_variant=True, rtol=1e-4, atol=1e-5),
    _info("orgqr", _orgqr, supports_out=True, method_variant=True, rtol=1e-4, atol=1e-5),
    _info("ormqr", _ormqr, supports_out=True, method_variant=True, rtol=1e-4, atol=1e-5),
    _info("vdot", _vdot, dtypes=F + ("int64",), supports_out=True, method_variant=True),
    _info("linalg.tensorinv", _tensorinv, supports_out=True, rtol=1e-4, atol=1e-5, aten_name="linalg_tensorinv"),
    # the other public forms of the decompositions and products
    _info_fi("linalg.matmul", lambda dt: [SN(make((3, 4), dt), make((4, 2), dt, seed=1)),
                                       SN(make((2, 3, 4), dt), make((4,), dt, seed=2))], supports_out=True,
             aten_name="linalg_matmul", **_LIN),
    _info_fi("linalg.diagonal", lambda dt: [SN(make((3, 4), dt)), SN(make((2, 3, 3), dt), offset=1),
                                         SN(make((2, 3, 4), dt), dim1=0, dim2=2)], aten_name="linalg_diagonal", **_LIN),
    _info_fi("qr", lambda dt: [SN(make((4, 3), dt)), SN(make((3, 5), dt), False)], method_variant=True,
             supports_out=True, dtypes=F, rtol=1e-4, atol=1e-4),
    _info("svd", _svd_legacy, output_func=_svd_legacy_canonical, supports_out=True, method_variant=True, rtol=1e-4,
          atol=1e-4),
    _info_fi("slogdet", _square, method_variant=True, supports_out=True, dtypes=F, rtol=1e-4, atol=1e-4),
    _info_fi("cholesky", lambda dt: [SN(_spd_dt((3, 3), dt)), SN(_spd_dt((2, 3, 3), dt, 1), True)], method_variant=True,
             supports_out=True, dtypes=F, rtol=1e-4, atol=1e-4),
    # eigenvalues only, sorted: eigenvectors of a general matrix are fixed up to a complex phase
    _info_fi("linalg.eig", lambda dt: [SN(make((3, 3), dt)), SN(make((2, 4, 4), dt, seed=1))], supports_out=True,
             aten_name="linalg_eig", output_func=lambda outs: [np.sort(outs[0], axis=-1)], check_strides=False,
             **_LIN),
    _info_fi("linalg.cholesky_ex", lambda dt: [SN(_spd_dt((3, 3), dt)), SN(_spd_dt((2, 3, 3), dt, 1), upper=True)],
             supports_out=True, aten_name="linalg_cholesky_ex", **_LIN),
    _info_fi("linalg.inv_ex", _square, supports_out=True, aten_name="linalg_inv_ex", **_LIN),
    _info_fi("linalg.solve_ex", _solve, supports_out=True, aten_name="linalg_solve_ex", check_strides=False, **_LIN),
    _info_fi("linalg.solve_triangular", _triangular, supports_out=True, aten_name="linalg_solve_triangular", **_LIN),
    _info("linalg.tensorsolve", _tensorsolve, supports_out=True, rtol=1e-4, atol=1e-5,
          aten_name="linalg_tensorsolve"),
]
