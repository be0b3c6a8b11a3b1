"""OpInfo entries of the the LU / LDL family (torch's common_methods_invocations.py op_db, this family's part)."""
import numpy as np

from .._samples import make
from ._common import S, _info


def _symmetric(shape, dt, seed=0, shift=0.0):
    a = make(shape, "float64", seed=seed)
    return (a + np.swapaxes(a, -1, -2) + shift * np.eye(shape[-1])).astype(dt)


def _ldl_inputs(shape, dt, seed=0):
    """(LD, pivots) of an indefinite symmetric matrix batch from ember's sytf2 loop (LAPACK's layout)."""
    from ...kernels.cpu.linalg_ldl import _sytf2
    a = _symmetric(shape, "float64", seed)
    flat = a.reshape((-1,) + shape[-2:]).copy()
    piv = np.stack([_sytf2(m, False)[0] for m in flat])
    return np.tril(flat).reshape(shape).astype(dt), piv.reshape(shape[:-1])


def _lu_factor(dt):
    return [S(make((3, 3), dt)), S(make((2, 3, 3), dt, seed=1)), S(make((4, 3), dt, seed=2)),
            S(make((2, 3, 5), dt, seed=3)), S(make((0, 2, 2), dt)), S(make((1, 1), dt, seed=4))]


def _lu(dt):
    return [S(make((3, 3), dt)), S(make((2, 4, 2), dt, seed=1)), S(make((3, 5), dt, seed=2)),
            S(make((2, 2, 2), dt, seed=3))]


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


op_db = [
    _info("linalg.lu_factor", _lu_factor, supports_out=True, aten_name="linalg_lu_factor"),
    _info("linalg.lu_factor_ex", _lu_factor, supports_out=True, aten_name="linalg_lu_factor_ex"),
    _info("linalg.lu", _lu, supports_out=True, aten_name="linalg_lu"),
    _info("linalg.ldl_factor", _ldl_factor, supports_out=True, aten_name="linalg_ldl_factor"),
    _info("linalg.ldl_factor_ex", _ldl_factor, supports_out=True, aten_name="linalg_ldl_factor_ex"),
    # torch 2.13's ldl_solve crashes (segfault) when LD and B batches broadcast: samples keep equal batches
    _info("linalg.ldl_solve", _ldl_solve, supports_out=True, rtol=1e-4, atol=1e-5, aten_name="linalg_ldl_solve"),
]
