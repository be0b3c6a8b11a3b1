"""OpInfo entries of the reductions and statistics (torch's common_methods_invocations.py op_db, this family's part)."""
import numpy as np

from .._opinfo import DType, OpInfo, SampleInput
from .._samples import along_dim, make, reduction
from ._common import F, FI, FIB, _aten


def _np_red(fn):
    def r(a, dim=None, keepdim=False, **kw):
        axis = tuple(range(a.ndim)) if dim is None else dim
        if a.ndim == 0:
            axis = None
        res = fn(a, axis=axis, keepdims=keepdim, **kw)
        return res
    return r


def _histogram_samples(op, dt):
    x = make((4, 5), dt, seed=1)
    x[0, :2] = [-3.0, 3.0]                                # the range's own edges
    w = make((4, 5), dt, 0.0, 2.0, seed=2)
    edges = np.array([-2.0, -0.5, 0.0, 1.0, 2.5], dt)
    return [SampleInput(x, (), {}, "default-bins"), SampleInput(x, (7,), {}, "7-bins"),
            SampleInput(x, (4,), {"range": [-1.0, 1.0]}, "range"), SampleInput(x, (5,), {"weight": w}, "weight"),
            SampleInput(x, (6,), {"density": True}, "density"), SampleInput(x, (edges,), {}, "edges"),
            SampleInput(x, (edges,), {"weight": w, "density": True}, "edges-weight-density"),
            SampleInput(np.full((3,), 1.5, dt), (4,), {}, "constant"), SampleInput(make((0,), dt), (3,), {}, "empty")]


def _aminmax_samples(op, dt):
    out = []
    for shape in [(), (5,), (3, 4), (2, 3, 4)]:
        x = np.asarray(make(shape, dt))
        out.append(SampleInput(x, (), {}, f"{shape}-all"))
        out.append(SampleInput(x, (), {"keepdim": True}, f"{shape}-all-keepdim"))
        if shape:
            out += [SampleInput(x, (), {"dim": d, "keepdim": k}, f"{shape}-{d}-{k}") for d in (0, -1) for k in (False, True)]
    out.append(SampleInput(make((0, 3), dt), (), {"dim": 1}, "empty-rows"))
    return out


op_db = [
    OpInfo("var", reduction(), ref=_np_red(lambda a, **k: np.var(a, ddof=1, **k)), dtypes=F, method_variant=True,
           supports_out=True),
    OpInfo("std", reduction(), ref=_np_red(lambda a, **k: np.std(a, ddof=1, **k)), dtypes=F, supports_out=True),
    OpInfo("var", lambda op, dt: [SampleInput(make((3, 4), dt), (1,), {"correction": 0}, "correction=0")],
           dtypes=F, method_variant=False, supports_out=True),
    OpInfo("std", lambda op, dt: [SampleInput(make((3, 4), dt), (1,), {"correction": 2, "keepdim": True}, "correction=2")],
           dtypes=F, method_variant=False, supports_out=True),
    OpInfo("argmin", reduction((None, 0, -1)), dtypes=FI, supports_out=True),
    OpInfo("max", lambda op, dt: [SampleInput(make((3, 4), dt), (make((4,), dt, seed=1),), {}, "other")], dtypes=FI,
           ref=np.maximum),
    OpInfo("min", lambda op, dt: [SampleInput(make((3, 4), dt), (make((4,), dt, seed=1),), {}, "other")], dtypes=FI,
           ref=np.minimum),
    _aten("norm.Scalar", lambda op, dt: [SampleInput(make((3, 4), dt), (p,), {}, f"p={p}") for p in (2, 1, 3.5)], F),
    _aten("norm.ScalarOpt_dim", lambda op, dt: [SampleInput(make((3, 4), dt), (p, [d], k), {}, f"p={p}-{d}-{k}")
                                                for p, d, k in ((2, 1, False), (None, 0, True), (1, -1, False))], F),
    # the aten norm's dtype= and out= forms (torch.norm is a Python composite over linalg norms: only ops.aten
    # reaches them); test_out reaches norm.out / norm.dtype_out
    _aten("norm", lambda op, dt: [SampleInput(make((3, 4), dt), (2, [1], False), {}, "dim"),
                                  SampleInput(make((3, 4), dt), (3.5, [0, 1], True), {"dtype": DType("float64")}, "dim-dtype")],
          F, supports_out=True),
    _aten("norm.ScalarOpt_dtype", lambda op, dt: [SampleInput(make((3, 4), dt), (p,), {"dtype": DType("float64")}, f"p={p}")
                                                  for p in (2, 1)], F),
    OpInfo("all", reduction(), dtypes=FIB, supports_out=True),
    OpInfo("any", reduction(), dtypes=FIB, supports_out=True),
    OpInfo("var_mean", reduction(), dtypes=F, method_variant=False),
    OpInfo("std_mean", reduction(), dtypes=F, method_variant=False),
    OpInfo("logsumexp", reduction((0, -1, (0, 1))), dtypes=FI, supports_out=True),
    OpInfo("norm", lambda op, dt: [SampleInput(make(s, dt), (p,), k, f"{s}-{p}-{k}") for s in ((5,), (3, 4), (2, 3, 4))
                                   for p in (1, 2, 3.5, float("inf")) for k in ({}, {"dim": 0}, {"dim": (0, 1), "keepdim": True})
                                   if not (len(s) < 2 and "keepdim" in k)], dtypes=F),
    OpInfo("count_nonzero", lambda op, dt: [SampleInput(make(s, dt), (), k, f"{s}{k}") for s in ((3, 4), (2, 3, 4), (0, 2))
                                            for k in ({}, {"dim": 0}, {"dim": (0, 1)})],
           ref=lambda a, dim=None: np.count_nonzero(a, axis=dim), dtypes=FIB),
    OpInfo("median", along_dim(empty=False, distinct=True, kwargs=({}, {"keepdim": True})), dtypes=FI),
    OpInfo("nanmedian", along_dim(empty=False, distinct=True), dtypes=F),
    OpInfo("mode", along_dim(empty=False), dtypes=("int64",)),
    OpInfo("bincount", lambda op, dt: [SampleInput(np.array([1, 3, 1, 0, 7]), (), k, f"{k}")
                                       for k in ({}, {"minlength": 10})], dtypes=("int64",), supports_meta=False,
           method_variant=True),
    OpInfo("histc", lambda op, dt: [SampleInput(make(s, dt), (), k, f"{s}{k}") for s in ((10,), (3, 4))
                                    for k in ({}, {"bins": 4}, {"bins": 5, "min": -1, "max": 1})], dtypes=F,
           supports_out=True),
    OpInfo("sum", reduction(), ref=_np_red(np.sum), dtypes=FI),
    OpInfo("mean", reduction(), ref=_np_red(np.mean), dtypes=F),
    OpInfo("amax", reduction((0, -1, (0, 1))), dtypes=FI),
    OpInfo("amin", reduction((0, -1, (0, 1))), dtypes=FI),
    OpInfo("frobenius_norm", lambda op, dt: [SampleInput(make((3, 4), dt), ([0, 1],), {}, "both"),
                                             SampleInput(make((2, 3, 4), dt), ([1],), {"keepdim": True}, "one-keepdim"),
                                             SampleInput(make((2, 3, 4), dt), ([-1, 0],), {}, "two")],
           dtypes=F, supports_out=True, method_variant=False,
           ref=lambda x, dim, keepdim=False: np.sqrt(np.sum(x * x, axis=tuple(dim), keepdims=keepdim))),
    OpInfo("nuclear_norm", lambda op, dt: [SampleInput(make((3, 4), dt), (), {}, "2d"),
                                           SampleInput(make((3, 4), dt), (), {"keepdim": True}, "keepdim"),
                                           SampleInput(make((2, 3, 4), dt), ([0, 2],), {}, "dims"),
                                           SampleInput(make((2, 3, 4), dt), ([2, 1], True), {}, "dims-keepdim")],
           dtypes=F, supports_out=True, method_variant=False, rtol=1e-4, atol=1e-4),
    OpInfo("renorm", lambda op, dt: [SampleInput(make((3, 4), dt), (2, 0, 1.0), {}, "p2-dim0"),
                                     SampleInput(make((3, 4, 2), dt, seed=1), (1, 1, 0.5), {}, "p1-dim1"),
                                     SampleInput(make((3, 4, 2), dt, seed=2), (3.0, -1, 2.0), {}, "p3-last"),
                                     SampleInput(make((2, 5), dt, seed=3), (float("inf"), 0, 1.5), {}, "inf"),
                                     SampleInput(make((2, 5), dt, seed=4), (2, 1, 100.0), {}, "untouched")],
           dtypes=F, supports_out=True, inplace_variant="renorm_"),
    OpInfo("histogram", _histogram_samples, dtypes=F, supports_out=True, method_variant=True, supports_meta=False),
    OpInfo("aminmax", _aminmax_samples, dtypes=FI + ("bool",), supports_out=True,
           ref=lambda x, dim=None, keepdim=False: (_np_red(np.amin)(x, dim, keepdim), _np_red(np.amax)(x, dim, keepdim))),
    OpInfo("hash_tensor", lambda op, dt: [SampleInput(make(s, dt), args, k, f"{s}-{args}-{k}")
                                          for s, args, k in (((3, 4), (), {}), ((3, 4), (1,), {}),
                                                             ((2, 3, 4), ([0, 2],), {"keepdim": True}), ((), (), {}))],
           dtypes=FIB, supports_out=True),
]
