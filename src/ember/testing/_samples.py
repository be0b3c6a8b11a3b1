"""Sample-input generators for the op database: shapes incl. 0-dim, empty, broadcasting; values in a domain."""
import numpy as np

from ._opinfo import SampleInput

SHAPES = [(), (0,), (5,), (3, 4), (2, 3, 4)]
BROADCAST = [((3, 4), (3, 4)), ((3, 4), (4,)), ((2, 1, 4), (3, 1)), ((3, 4), ()), ((), (3,)), ((0, 4), (4,))]


def make(shape, dtype, low=-3.0, high=3.0, seed=0):
    rng = np.random.default_rng(seed + 7 * len(shape) + int(np.prod(shape) if shape else 1))
    if dtype == "bool":
        return rng.random(shape) < 0.5
    if dtype.startswith("int") or dtype.startswith("uint"):
        lo = 0 if dtype.startswith("uint") else int(np.floor(low))
        return rng.integers(lo, max(int(np.ceil(high)), lo + 1) + 1, shape).astype(dtype)
    return np.asarray(rng.uniform(low, high, shape)).astype(dtype)


def unary(domain=(-3.0, 3.0), args=((),), kwargs=({},)):
    def f(op, dtype):
        out = []
        for s in SHAPES:
            for a, k in zip(args, kwargs) if len(args) == len(kwargs) else [(a, {}) for a in args]:
                out.append(SampleInput(make(s, dtype, *domain), tuple(a), dict(k), f"{s}"))
        return out
    return f


def binary(domain=(-3.0, 3.0), rhs_domain=None, scalar_rhs=True):
    def f(op, dtype):
        out = []
        for i, (sa, sb) in enumerate(BROADCAST):
            out.append(SampleInput(make(sa, dtype, *domain, seed=i), (make(sb, dtype, *(rhs_domain or domain), seed=i + 50),),
                                   {}, f"{sa}x{sb}"))
        if scalar_rhs:
            out.append(SampleInput(make((3, 4), dtype, *domain), (1.5 if dtype.startswith("float") else 2,), {}, "scalar"))
        return out
    return f


def reduction(dims=(None, 0, -1, (0, 1)), keepdim=(False, True), dim_kw="dim", extra=None):
    def f(op, dtype):
        out = []
        for s in [(), (5,), (3, 4), (2, 3, 4), (0, 3)]:
            for d in dims:
                dd = d
                if dd is not None:
                    if len(s) == 0 and dd not in (0, -1):
                        continue
                    if isinstance(dd, tuple) and len(s) < 2:
                        continue
                    if dd is not None and not isinstance(dd, tuple) and len(s) == 0 and extra == "need_dim_size":
                        continue
                for k in (keepdim if dd is not None else (None,)):
                    kw = dict(extra or {}) if isinstance(extra, dict) else {}
                    if dd is not None:
                        kw[dim_kw] = dd
                        kw["keepdim"] = k
                    out.append(SampleInput(make(s, dtype), (), kw, f"{s}-{dd}-{k}"))
        return out
    return f


def along_dim(shapes=((5,), (3, 4), (2, 3, 4), ()), dims=(0, -1), kwargs=({},), distinct=False, empty=True):
    def f(op, dtype):
        out = []
        for s in shapes + (((0, 3),) if empty else ()):
            for d in dims:
                for k in kwargs:
                    a = make(s, dtype)
                    if distinct and a.size:
                        a = np.random.default_rng(3).permutation(a.size).reshape(s).astype(dtype)
                    out.append(SampleInput(a, (), {"dim": d, **k}, f"{s}-{d}-{k}"))
        return out
    return f
