"""OpInfo entries of torch's statistics composites (diff, nansum, nanmean, quantile, nanquantile, cov, corrcoef)
and of complex/polar (torch's common_methods_invocations.py op_db, these ops' part)."""
import numpy as np

from .._opinfo import OpInfo, SampleInput
from .._samples import make
from ._common import F, FI


def _with_nans(shape, dt, seed=0):
    a = make(shape, dt, seed=seed)
    if a.size and a.dtype.kind == "f":
        a = a.copy()
        a.reshape(-1)[:: 3] = np.nan
    return a


def _diff(op, dt):
    return [SampleInput(make((5,), dt), (), {}, "1d"), SampleInput(make((3, 4), dt), (2, 0), {}, "n2-dim0"),
            SampleInput(make((3, 4), dt), (1, -1), {"prepend": make((3, 2), dt, seed=1),
                                                   "append": make((3, 1), dt, seed=2)}, "pre-app"),
            SampleInput(make((2, 3, 4), dt), (0,), {}, "n0"), SampleInput(make((2, 3), dt), (4,), {}, "n>len")]


def _nan_reduce(op, dt):
    out = [SampleInput(make((3, 4), dt), (), {}, "plain"), SampleInput(make((2, 3, 4), dt), (1, True), {}, "dim1k")]
    if dt != "int64":
        out += [SampleInput(_with_nans((3, 4), dt), (), {}, "nan"),
                SampleInput(_with_nans((3, 4), dt, 1), ([0],), {}, "nan-dim0"),
                SampleInput(_with_nans((2, 3, 4), dt, 2), ((0, 2),), {}, "nan-dims")]
    return out


def _quantile(op, dt):
    q1 = np.asarray([0.05, 0.25, 0.5, 0.9, 0.95], dtype=dt)   # (inside [0, 1] under gradcheck's steps)
    out = []
    for i, interp in enumerate(("linear", "lower", "higher", "midpoint", "nearest")):
        out.append(SampleInput(make((3, 5), dt, seed=i), (0.3,), {"interpolation": interp}, f"flat-{interp}"))
        out.append(SampleInput(make((3, 6), dt, seed=i), (q1, 1, True), {"interpolation": interp}, f"q1d-{interp}"))
    out += [SampleInput(_with_nans((4, 5), dt), (0.5, 0), {}, "nan-dim0"),
            SampleInput(_with_nans((2, 3, 4), dt, 1), (q1, -1), {}, "nan-q1d"),
            SampleInput(make((), dt), (0.5,), {}, "0d"), SampleInput(make((7,), dt), (np.asarray(0.4, dt), 0), {}, "q0d")]
    return out


def _cov(op, dt):
    return [SampleInput(make((3, 5), dt), (), {}, "2d"), SampleInput(make((6,), dt), (), {}, "1d"),
            SampleInput(make((2, 4), dt), (), {"correction": 0}, "c0"),
            SampleInput(make((3, 5), dt), (), {"fweights": np.array([1, 2, 1, 3, 1])}, "fw"),
            SampleInput(make((3, 5), dt), (), {"aweights": make((5,), "float64" if dt == "int64" else dt, 0.5, 2.0),
                                                "correction": 2}, "aw")]


def _corrcoef(op, dt):
    return [SampleInput(make((3, 5), dt), (), {}, "2d"), SampleInput(make((6,), dt), (), {}, "1d")]


def _pair(op, dt):
    return [SampleInput(make((3, 4), dt), (make((3, 4), dt, seed=1),), {}, "same"),
            SampleInput(make((3, 1), dt, 0.1, 2.0), (make((4,), dt, seed=2),), {}, "broadcast")]


op_db = [
    OpInfo("diff", _diff, dtypes=FI + ("bool",), ref=lambda a, n=1, dim=-1, prepend=None, append=None:
           np.diff(a, n, dim, **({"prepend": prepend} if prepend is not None else {}),
                   **({"append": append} if append is not None else {}))),
    OpInfo("nansum", _nan_reduce, dtypes=FI, ref=lambda a, dim=None, keepdim=False: np.nansum(
        a, axis=tuple(dim) if isinstance(dim, (list, tuple)) else dim, keepdims=keepdim)),
    OpInfo("nanmean", _nan_reduce, dtypes=F, ref=lambda a, dim=None, keepdim=False: np.nanmean(
        a, axis=tuple(dim) if isinstance(dim, (list, tuple)) else dim, keepdims=keepdim)),
    OpInfo("quantile", _quantile, dtypes=F),
    OpInfo("nanquantile", _quantile, dtypes=F),
    OpInfo("cov", _cov, dtypes=FI, rtol=1e-5, atol=1e-5),
    OpInfo("corrcoef", _corrcoef, dtypes=FI, rtol=1e-5, atol=1e-5),
    OpInfo("complex", _pair, dtypes=F, method_variant=False),
    OpInfo("polar", _pair, dtypes=F, method_variant=False, rtol=1e-5, atol=1e-5),
]
