"""Builders shared by the op database's family modules: dtype tuples, SampleInput / OpInfo shorthands and
array makers."""
import numpy as np

from .._opinfo import OpInfo, SampleInput
from .._samples import SHAPES, make, unary


F = ("float32", "float64")


FI = ("float32", "float64", "int64")


FIB = ("float32", "float64", "int64", "bool")


def _u(name, ref=None, domain=(-3.0, 3.0), dtypes=F, inplace=True, out=True, **kw):
    return OpInfo(name, unary(domain), ref=ref, dtypes=dtypes, supports_out=out,
                  inplace_variant=name + "_" if inplace else None, **kw)


def _with_args(name, samples, ref=None, dtypes=F, inplace=True, out=True, **kw):
    def f(op, dtype):
        return [SampleInput(make(s, dtype), tuple(a), dict(k), f"{s}-{a}-{k}") for s in SHAPES for a, k in samples]
    return OpInfo(name, f, ref=ref, dtypes=dtypes, supports_out=out, inplace_variant=name + "_" if inplace else None, **kw)


def SN(x, *args, name="", **kw):
    fix = lambda a: np.asarray(a) if isinstance(a, np.generic) else a  # noqa: E731  (make(()) of bool)
    x, args, kw = fix(x), tuple(fix(a) for a in args), {k: fix(v) for k, v in kw.items()}
    return SampleInput(x, args, kw, name or f"{getattr(x, 'shape', x)}-{len(args)}-{sorted(kw)}")


def _info_fi(name, samples, dtypes=FI, **kw):
    return OpInfo(name, lambda op, dt: samples(dt), dtypes=dtypes, **kw)


def _mask(shape, seed=0):
    return np.random.default_rng(seed).random(shape) < 0.5


def _unary_shapes(dt, shapes=((), (0,), (5,), (3, 4), (2, 3, 4))):
    out = []
    for s in shapes:
        x = make(s, dt)
        if dt != "bool" and x.size:
            x = np.where(_mask(s, 3), 0, x).astype(dt)
        out.append(SN(x, name=str(s)))
    return out


def _s(*cases):
    """cases: (input_shape, args, kwargs[, name]); array args given as ('arr', shape[, low, high]) or ('idx', shape, n)."""
    def build(spec, dtype, seed):
        if isinstance(spec, tuple) and spec and spec[0] == "arr":
            lo, hi = (spec[2], spec[3]) if len(spec) > 2 else (-3.0, 3.0)
            return make(spec[1], dtype, lo, hi, seed=seed)
        if isinstance(spec, tuple) and spec and spec[0] == "idx":
            return np.random.default_rng(seed).integers(0, spec[2], spec[1]).astype(np.int64)
        return spec

    def f(op, dtype):
        out = []
        for i, c in enumerate(cases):
            shape, args, kw = c[:3]
            x = make(shape, dtype, seed=i) if not (isinstance(shape, tuple) and shape and shape[0] in ("arr", "idx")) \
                else build(shape, dtype, i)
            out.append(SampleInput(x, tuple(build(a, dtype, 10 + i + j) for j, a in enumerate(args)),
                                   {k: build(v, dtype, 30 + i) for k, v in kw.items()}, f"{op.name}-{i}"))
        return out
    return f


I64 = ("int64",)


def S(x, *args, **kw):
    return SampleInput(x, args, kw)


def _aten(overload, samples, dtypes=FI, **kw):
    """An overload called as ops.aten.<overload> in ember and torch (one no public binding picks: the
    Python bindings hide it, or ember's public function reaches the op another way)."""
    return OpInfo("ops.aten." + overload, samples, dtypes=dtypes, method_variant=False,
                  aten_name=overload.split(".")[0], **kw)


def _info(name, samples, dtypes=F, **kw):
    """name: ember path ("nn.functional.pad"); torch's path is the same unless torch_name says otherwise."""
    def f(op, dt):
        out = samples(dt)
        for i, s in enumerate(out):
            s.name = s.name or str(i)
        return out
    kw.setdefault("method_variant", False)
    kw.setdefault("aten_name", name.split(".")[-1])
    return OpInfo(name, f, dtypes=dtypes, **kw)


def A(shape, dt, lo=-3.0, hi=3.0, seed=0):
    return make(shape, dt, lo, hi, seed=seed)


def idx(shape, high, seed=0, low=0):
    return np.asarray(np.random.default_rng(seed).integers(low, high, shape), dtype=np.int64)


N_STAT = 40_000


_RAND = dict(randomness=True, method_variant=False, check_strides=True)
