"""The op database: one OpInfo per op (ember's issue-3 ops and the core ops), driven by tests/ops/test_ops.py."""
import numpy as np

from ._opinfo import OpInfo, SampleInput
from ._samples import BROADCAST, SHAPES, along_dim, binary, make, reduction, unary

F = ("float32", "float64")
FI = ("float32", "float64", "int64")
FIB = ("float32", "float64", "int64", "bool")


def _u(name, ref=None, domain=(-3.0, 3.0), dtypes=F, inplace=True, out=True, **kw):
    return OpInfo(name, unary(domain), ref=ref, dtypes=dtypes, supports_out=out,
                  inplace_variant=name + "_" if inplace else None, **kw)


def _b(name, ref=None, domain=(-3.0, 3.0), rhs_domain=None, dtypes=F, inplace=True, out=True, scalar_rhs=True, **kw):
    return OpInfo(name, binary(domain, rhs_domain, scalar_rhs), ref=ref, dtypes=dtypes, supports_out=out,
                  inplace_variant=name + "_" if inplace else None, **kw)


def _with_args(name, samples, ref=None, dtypes=F, inplace=True, out=True, **kw):
    def f(op, dtype):
        return [SampleInput(make(s, dtype), tuple(a), dict(k), f"{s}-{a}-{k}") for s in SHAPES for a, k in samples]
    return OpInfo(name, f, ref=ref, dtypes=dtypes, supports_out=out, inplace_variant=name + "_" if inplace else None, **kw)


def _ternary(name, ref, scalar_weight=False, kwargs=({},), inplace=True):
    def f(op, dtype):
        out = []
        for i, (sa, sb) in enumerate(BROADCAST[:4]):
            for k in kwargs:
                w = 0.3 if scalar_weight else make(sb, dtype, 0.0, 1.0, seed=9)
                out.append(SampleInput(make(sa, dtype, seed=i), (make(sb, dtype, 1.0, 3.0, seed=i + 1), w), dict(k),
                                       f"{sa}x{sb}-{k}"))
        return out
    return OpInfo(name, f, ref=ref, dtypes=F, supports_out=True, inplace_variant=name + "_" if inplace else None)


def _sel(a, d):
    return a


def _np_red(fn):
    def r(a, dim=None, keepdim=False, **kw):
        axis = tuple(range(a.ndim)) if dim is None else dim
        if a.ndim == 0:
            axis = None
        res = fn(a, axis=axis, keepdims=keepdim, **kw)
        return res
    return r


def _gelu_tanh(a, approximate="none"):
    return 0.5 * a * (1 + np.tanh(np.sqrt(2 / np.pi) * (a + 0.044715 * a ** 3)))


def _elu_ref(a, alpha=1.0, scale=1.0, input_scale=1.0):
    return np.where(a > 0, a * scale, alpha * scale * np.expm1(a * input_scale))


def _cummax_ref(fn):
    def r(a, dim):
        return fn.accumulate(a, axis=dim) if a.ndim else a
    return r


op_db = [
    # ------------------------------------------------------------------ issue-3 unary math
    _u("exp2", np.exp2), _u("expm1", np.expm1), _u("log1p", np.log1p, (-0.9, 3.0)), _u("log2", np.log2, (0.1, 5.0)),
    _u("log10", np.log10, (0.1, 5.0)), _u("erf"), _u("erfc"), _u("erfinv", domain=(-0.99, 0.99)),
    _u("asin", np.arcsin, (-0.99, 0.99)), _u("acos", np.arccos, (-0.99, 0.99)), _u("atan", np.arctan),
    _u("arcsin", np.arcsin, (-0.99, 0.99)), _u("arctan", np.arctan),
    _u("sinh", np.sinh), _u("cosh", np.cosh), _u("tan", np.tan, (-1.2, 1.2)), _u("asinh", np.arcsinh),
    _u("acosh", np.arccosh, (1.0, 4.0)), _u("atanh", np.arctanh, (-0.9, 0.9)),
    _u("sign", np.sign, dtypes=FI), _u("sgn", np.sign), _u("floor", np.floor, dtypes=FI), _u("ceil", np.ceil, dtypes=FI),
    _u("round", np.round, dtypes=FI), _u("trunc", np.trunc, dtypes=FI), _u("frac", lambda a: a - np.trunc(a)),
    _u("reciprocal", lambda a: 1 / a, (0.5, 3.0)), _u("square", np.square, dtypes=FI),
    _u("logit", lambda a: np.log(a / (1 - a)), (0.05, 0.95)),
    _u("nan_to_num", np.nan_to_num, dtypes=FI),
    _u("isnan", np.isnan, dtypes=FI, inplace=False, out=False), _u("isinf", np.isinf, dtypes=FI, inplace=False, out=False),
    _u("isfinite", np.isfinite, dtypes=FI, inplace=False, out=False),
    _u("isposinf", np.isposinf, dtypes=F, inplace=False), _u("isneginf", np.isneginf, dtypes=F, inplace=False),
    _with_args("round", [((), {"decimals": 2}), ((), {"decimals": -1})], lambda a, decimals: np.round(a, decimals)),
    # ------------------------------------------------------------------ binary / ternary math
    _b("atan2", np.arctan2, scalar_rhs=False), _b("arctan2", np.arctan2, scalar_rhs=False), _b("hypot", np.hypot, scalar_rhs=False),
    _b("fmod", np.fmod, rhs_domain=(0.5, 3.0)), _b("maximum", np.maximum, inplace=False, scalar_rhs=False, dtypes=FI),
    _b("minimum", np.minimum, inplace=False, scalar_rhs=False, dtypes=FI),
    _b("fmax", np.fmax, inplace=False, scalar_rhs=False), _b("fmin", np.fmin, inplace=False, scalar_rhs=False),
    _b("xlogy", lambda a, b: np.where(a == 0, 0.0, a * np.log(b)), rhs_domain=(0.1, 3.0)),
    _b("logaddexp", np.logaddexp, inplace=False, scalar_rhs=False),
    _ternary("lerp", lambda a, b, w: a + w * (b - a)), _ternary("lerp", lambda a, b, w: a + w * (b - a), True),
    _ternary("addcmul", lambda a, b, c, value=1: a + value * b * c, kwargs=({}, {"value": 0.5})),
    _ternary("addcdiv", lambda a, b, c, value=1: a + value * b / c, kwargs=({}, {"value": 2})),
    # ------------------------------------------------------------------ activations
    _with_args("_nn.gelu", [((), {}), ((), {"approximate": "tanh"})], torch_name="nn.functional.gelu"),
    _u("_nn.silu", lambda a: a / (1 + np.exp(-a)), torch_name="nn.functional.silu"),
    _u("_nn.mish", lambda a: a * np.tanh(np.log1p(np.exp(a))), torch_name="nn.functional.mish"),
    _with_args("_nn.softplus", [((), {}), ((2, 1), {})], inplace=False, torch_name="nn.functional.softplus"),
    _with_args("_nn.elu", [((), {}), ((0.5, 2.0, 1.5), {})], _elu_ref, torch_name="_C._nn.elu"),
    _u("selu", out=False, torch_name="nn.functional.selu"),
    _with_args("celu", [((), {}), ((0.5,), {})], out=False, torch_name="nn.functional.celu"),
    _with_args("_nn.leaky_relu", [((), {}), ((0.2,), {})], lambda a, s=0.01: np.where(a > 0, a, a * s),
               torch_name="nn.functional.leaky_relu"),
    _with_args("_nn.hardtanh", [((), {}), ((-0.5, 2.0), {})], lambda a, lo=-1, hi=1: np.clip(a, lo, hi),
               torch_name="nn.functional.hardtanh"),
    _u("_nn.hardsigmoid", lambda a: np.clip(a / 6 + 0.5, 0, 1), torch_name="nn.functional.hardsigmoid"),
    _u("_nn.hardswish", lambda a: a * np.clip(a + 3, 0, 6) / 6, torch_name="nn.functional.hardswish"),
    _u("_nn.relu6", lambda a: np.clip(a, 0, 6), out=False, torch_name="nn.functional.relu6"),
    _u("_nn.log_sigmoid", lambda a: -np.logaddexp(0, -a), inplace=False, torch_name="nn.functional.logsigmoid"),
    _with_args("threshold", [((0.5, 9.0), {})], lambda a, t, v: np.where(a <= t, v, a)),
    OpInfo("_nn.glu", along_dim(((4,), (3, 4), (2, 3, 4)), (0, -1), empty=False), dtypes=F, supports_out=True,
           torch_name="nn.functional.glu"),
    # ------------------------------------------------------------------ statistics / scans
    OpInfo("var", reduction(), ref=_np_red(lambda a, **k: np.var(a, ddof=1, **k)), dtypes=F, method_variant=True),
    OpInfo("std", reduction(), ref=_np_red(lambda a, **k: np.std(a, ddof=1, **k)), dtypes=F),
    OpInfo("var_mean", reduction(), dtypes=F, method_variant=False),
    OpInfo("std_mean", reduction(), dtypes=F, method_variant=False),
    OpInfo("logsumexp", reduction((0, -1, (0, 1))), dtypes=FI, supports_out=True),
    OpInfo("norm", lambda op, dt: [SampleInput(make(s, dt), (p,), k, f"{s}-{p}-{k}") for s in ((5,), (3, 4), (2, 3, 4))
                                   for p in (1, 2, 3.5, float("inf")) for k in ({}, {"dim": 0}, {"dim": (0, 1), "keepdim": True})
                                   if not (len(s) < 2 and "keepdim" in k)], dtypes=F),
    OpInfo("linalg.vector_norm", reduction((None, 0, (0, 1))), dtypes=F, method_variant=False, supports_out=True,
           aten_name="linalg_vector_norm"),
    OpInfo("linalg.matrix_norm", lambda op, dt: [SampleInput(make(s, dt), (o,), {}, f"{s}-{o}") for s in ((3, 4), (2, 3, 3))
                                                 for o in ("fro", "nuc", 1, -1, 2, float("inf"))],
           dtypes=F, method_variant=False, supports_meta=True, aten_name="linalg_matrix_norm"),
    OpInfo("cumsum", along_dim(), ref=lambda a, dim: np.cumsum(a, axis=dim) if a.ndim else a, dtypes=FI,
           supports_out=True, inplace_variant="cumsum_"),
    OpInfo("cumprod", along_dim(), ref=lambda a, dim: np.cumprod(a, axis=dim) if a.ndim else a, dtypes=FI,
           supports_out=True, inplace_variant="cumprod_"),
    OpInfo("cummax", along_dim(), dtypes=FI), OpInfo("cummin", along_dim(), dtypes=FI),
    OpInfo("logcumsumexp", along_dim(), dtypes=F, supports_out=True),
    OpInfo("count_nonzero", lambda op, dt: [SampleInput(make(s, dt), (), k, f"{s}{k}") for s in ((3, 4), (2, 3, 4), (0, 2))
                                            for k in ({}, {"dim": 0}, {"dim": (0, 1)})],
           ref=lambda a, dim=None: np.count_nonzero(a, axis=dim), dtypes=FIB),
    # ------------------------------------------------------------------ order statistics / sorting
    OpInfo("median", along_dim(empty=False, distinct=True, kwargs=({}, {"keepdim": True})), dtypes=FI),
    OpInfo("nanmedian", along_dim(empty=False, distinct=True), dtypes=F),
    OpInfo("mode", along_dim(empty=False), dtypes=("int64",)),
    OpInfo("kthvalue", lambda op, dt: [SampleInput(make(s, dt), (2,), {"dim": d}, f"{s}{d}") for s in ((5,), (3, 4), (2, 3, 4))
                                       for d in (0, -1)], dtypes=F),
    OpInfo("sort", along_dim(kwargs=({}, {"descending": True}), distinct=True), dtypes=FI),
    OpInfo("argsort", along_dim(kwargs=({}, {"descending": True}), distinct=True), dtypes=FI),
    OpInfo("topk", lambda op, dt: [SampleInput(np.random.default_rng(1).permutation(int(np.prod(s))).reshape(s).astype(dt),
                                               (2,), k, f"{s}{k}") for s in ((5,), (3, 4), (2, 3, 4))
                                   for k in ({}, {"dim": 0}, {"largest": False})], dtypes=FI),
    OpInfo("msort", lambda op, dt: [SampleInput(make(s, dt), (), {}, f"{s}") for s in ((5,), (3, 4))], dtypes=FI),
    OpInfo("bincount", lambda op, dt: [SampleInput(np.array([1, 3, 1, 0, 7]), (), k, f"{k}")
                                       for k in ({}, {"minlength": 10})], dtypes=("int64",), supports_meta=False,
           method_variant=True),
    OpInfo("histc", lambda op, dt: [SampleInput(make(s, dt), (), k, f"{s}{k}") for s in ((10,), (3, 4))
                                    for k in ({}, {"bins": 4}, {"bins": 5, "min": -1, "max": 1})], dtypes=F,
           supports_out=True),
    # ------------------------------------------------------------------ core ops already on main
    _b("add", np.add, dtypes=FI), _b("sub", np.subtract, dtypes=FI), _b("mul", np.multiply, dtypes=FI),
    _b("div", np.true_divide, rhs_domain=(0.5, 3.0)), _b("pow", np.power, domain=(0.5, 2.0)),
    _b("eq", np.equal, dtypes=FI, inplace=False), _b("lt", np.less, dtypes=FI, inplace=False),
    _b("ge", np.greater_equal, dtypes=FI, inplace=False),
    _u("neg", np.negative, dtypes=FI), _u("abs", np.abs, dtypes=FI), _u("exp", np.exp), _u("log", np.log, (0.1, 5.0)),
    _u("sqrt", np.sqrt, (0.0, 5.0)), _u("sin", np.sin), _u("cos", np.cos), _u("tanh", np.tanh),
    _u("sigmoid", lambda a: 1 / (1 + np.exp(-a))), _u("relu", lambda a: np.maximum(a, 0), dtypes=FI, out=False),
    _with_args("clamp", [((-1.0, 1.0), {}), ((None, 0.5), {})], lambda a, lo, hi: np.clip(a, lo, hi)),
    OpInfo("sum", reduction(), ref=_np_red(np.sum), dtypes=FI), OpInfo("mean", reduction(), ref=_np_red(np.mean), dtypes=F),
    OpInfo("amax", reduction((0, -1, (0, 1))), dtypes=FI), OpInfo("amin", reduction((0, -1, (0, 1))), dtypes=FI),
]

from ._op_db_shape import op_db_shape  # noqa: E402  (shape/indexing ops)
op_db += op_db_shape

from ._op_db_nn import op_db_nn  # noqa: E402  (nn ops: convs, pools, norms, losses, attention)
from ._op_db_nn2 import op_db_nn2  # noqa: E402  (the rest of issue 3's nn ops, svd/eigh, random ops)
op_db += op_db_nn + op_db_nn2

from ._op_db_lu import op_db_lu  # noqa: E402  (LU / LDL family, geqrf, vdot, isclose, tensorinv/tensorsolve)
op_db += op_db_lu
from ._op_db_misc3 import op_db_misc3  # noqa: E402  (antialiased interpolate, rsub.Scalar)
op_db += op_db_misc3
