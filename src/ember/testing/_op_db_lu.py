"""OpInfo entries for the LU / LDL family, geqrf, vdot, isclose and linalg.tensorinv / tensorsolve.
Factor inputs of the solves (LU + pivots, LD + pivots) are built with numpy here (LDL with ember's own
Bunch-Kaufman loop, so 2x2 pivot blocks occur); matrices are kept well conditioned so a finite-difference
step never changes a pivot choice. allclose returns a Python bool and is tested in tests/ops/test_linalg_lu.py."""
import numpy as np

from ._opinfo import OpInfo, SampleInput
from ._samples import make

F = ("float32", "float64")


def S(x, *args, **kw):
    return SampleInput(x, args, kw)


def _info(name, samples, dtypes=F, **kw):
    def f(op, dt):
        out = samples(dt)
        for i, s in enumerate(out):
            s.name = s.name or str(i)
        return out
    kw.setdefault("method_variant", False)
    kw.setdefault("aten_name", name.split(".")[-1])
    return OpInfo(name, f, dtypes=dtypes, **kw)


def _sq(shape, dt, seed=0, boost=3.0):
    """A random batch of square matrices with `boost` added on the diagonal (well conditioned)."""
    return (make(shape, "float64", seed=seed) + boost * np.eye(shape[-1])).astype(dt)


def _pivots(batch, n, seed=0):
    """Valid LAPACK-style pivots: pivots[..., j] in [j + 1, n]."""
    rng = np.random.default_rng(seed)
    return np.stack([rng.integers(np.arange(1, n + 1), n + 1) for _ in range(int(np.prod(batch, dtype=int)))]
                    ).reshape(tuple(batch) + (n,)).astype(np.int32)


def _symmetric(shape, dt, seed=0, shift=0.0):
    a = make(shape, "float64", seed=seed)
    return (a + np.swapaxes(a, -1, -2) + shift * np.eye(shape[-1])).astype(dt)


def _ldl_inputs(shape, dt, seed=0):
    """(LD, pivots) of an indefinite symmetric matrix batch from ember's sytf2 loop (LAPACK's layout)."""
    from ..kernels.cpu.linalg_ldl import _sytf2
    a = _symmetric(shape, "float64", seed)
    flat = a.reshape((-1,) + shape[-2:]).copy()
    piv = np.stack([_sytf2(m, False)[0] for m in flat])
    return np.tril(flat).reshape(shape).astype(dt), piv.reshape(shape[:-1])


# ------------------------------------------------------------------ samples
def _lu_factor(dt):
    return [S(make((3, 3), dt)), S(make((2, 3, 3), dt, seed=1)), S(make((4, 3), dt, seed=2)),
            S(make((2, 3, 5), dt, seed=3)), S(make((0, 2, 2), dt)), S(make((1, 1), dt, seed=4))]


def _lu(dt):
    return [S(make((3, 3), dt)), S(make((2, 4, 2), dt, seed=1)), S(make((3, 5), dt, seed=2)),
            S(make((2, 2, 2), dt, seed=3))]


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


def _ldl_factor(dt):
    return [S(_symmetric((3, 3), dt)), S(_symmetric((2, 4, 4), dt, 1)), S(_symmetric((5, 5), dt, 2), hermitian=True),
            S(_symmetric((0, 2, 2), dt))]


def _ldl_solve(dt):
    out = []
    for shape, seed in (((4, 4), 0), ((2, 5, 5), 3), ((6, 6), 5)):
        ld, piv = _ldl_inputs(shape, dt, seed)
        b = make(shape[:-1] + (2,), dt, seed=seed + 1)
        out += [S(ld, piv, b), S(ld, piv, b, hermitian=True)]
    return out


def _geqrf(dt):
    return [S(make((3, 3), dt)), S(make((4, 3), dt, seed=1)), S(make((2, 3, 5), dt, seed=2)), S(make((0, 3), dt))]


def _vdot(dt):
    return [S(make((5,), dt), make((5,), dt, seed=1)), S(make((0,), dt), make((0,), dt)),
            S(make((1,), dt, seed=2), make((1,), dt, seed=3))]


def _isclose(dt):
    a = make((3, 4), dt)
    near = (a + (np.asarray(1e-6, a.dtype) if a.dtype.kind == "f" else 0)).astype(dt)
    far = make((3, 4), dt, seed=5)
    out = [S(a, near), S(a, far), S(a, far, 0.5, 1.0), S(a, near, rtol=0.0, atol=0.0),
           S(make((2, 1, 4), dt), make((3, 1), dt, seed=1))]
    if dt.startswith("float"):
        special = np.array([np.inf, -np.inf, np.nan, 1.0, np.inf, 0.0], dt)
        other = np.array([np.inf, np.inf, np.nan, 1.0 + 1e-6, 1e30, 1e-9], dt)
        out += [S(special, other), S(special, other, equal_nan=True)]
    return out


def _tensorinv(dt):
    a = _sq((6, 6), dt).reshape(6, 2, 3)
    b = _sq((4, 4), dt, seed=1).reshape(2, 2, 4)
    return [S(a, ind=1), S(b), S(_sq((4, 4), dt, seed=2).reshape(4, 2, 2), 1)]


def _tensorsolve(dt):
    a = _sq((6, 6), dt).reshape(2, 3, 6)
    a2 = np.moveaxis(_sq((6, 6), dt, seed=1).reshape(2, 3, 6), -1, 0).copy()      # (6, 2, 3)
    return [S(a, make((2, 3), dt, seed=3)), S(a2, make((2, 3), dt, seed=4), dims=(0,)),
            S(_sq((4, 4), dt, seed=2), make((4,), dt, seed=5))]


op_db_lu = [
    _info("linalg.lu_factor", _lu_factor, supports_out=True, aten_name="linalg_lu_factor"),
    _info("linalg.lu_factor_ex", _lu_factor, supports_out=True, aten_name="linalg_lu_factor_ex"),
    _info("linalg.lu", _lu, supports_out=True, aten_name="linalg_lu"),
    _info("lu_unpack", _lu_unpack, supports_out=True),
    _info("linalg.lu_solve", _lu_solve, supports_out=True, rtol=1e-4, atol=1e-5, aten_name="linalg_lu_solve"),
    _info("lu_solve", _legacy_lu_solve, supports_out=True, method_variant=True, rtol=1e-4, atol=1e-5),
    _info("linalg.ldl_factor", _ldl_factor, supports_out=True, aten_name="linalg_ldl_factor"),
    _info("linalg.ldl_factor_ex", _ldl_factor, supports_out=True, aten_name="linalg_ldl_factor_ex"),
    # torch 2.13's ldl_solve crashes (segfault) when LD and B batches broadcast: samples keep equal batches
    _info("linalg.ldl_solve", _ldl_solve, supports_out=True, rtol=1e-4, atol=1e-5, aten_name="linalg_ldl_solve"),
    # float32 only in the generic database: torch's geqrf backward raises NotImplementedError (not a
    # RuntimeError), which the generic gradcheck test cannot compare; float64 is checked in test_linalg_lu.py
    _info("geqrf", _geqrf, dtypes=("float32",), supports_out=True, method_variant=True, rtol=1e-4, atol=1e-5),
    _info("vdot", _vdot, dtypes=F + ("int64",), supports_out=True, method_variant=True),
    _info("isclose", _isclose, dtypes=F + ("int64", "bool"), method_variant=True),
    _info("linalg.tensorinv", _tensorinv, supports_out=True, rtol=1e-4, atol=1e-5, aten_name="linalg_tensorinv"),
    _info("linalg.tensorsolve", _tensorsolve, supports_out=True, rtol=1e-4, atol=1e-5,
          aten_name="linalg_tensorsolve"),
]
