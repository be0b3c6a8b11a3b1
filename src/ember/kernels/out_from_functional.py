"""out= kernels made from an op's functional overload, for every family (what torchgen generates for an
`autogen: op.out` entry; here for the ops whose out kernel ember does not write by hand).

Each runs the functional overload, then applies torch's out= rules: every `out` tensor is checked against
its result first (so a refused call changes nothing), then each wrongly sized `out` is resized (with torch's
warning when it held elements) and the values are copied in. The dtype rule is TensorIterator's (the result
must be castable to `out`'s dtype) unless the op's kernel in torch checks otherwise; those ops pass their
own check, raising torch's message. An overload whose functional form takes `dtype` and was given none
computes in `out`'s dtype, as torch's factories and reductions do (`torch.zeros(3, out=long_t)`). Only
overloads torch's Python functions accept are registered (torch.flip/trace/clone and a dim-less torch.sum
take no out=). Computing before copying makes an `out` that aliases an input safe. Registered as
CompositeExplicitAutograd: one kernel for every backend (on meta only the resize happens).
"""
import numpy as np

from .._core import dtype as D
from .._grad_mode import no_grad
from .._ops import ops
from .common import _tname, c_type_name, resize_internal, resize_out
from .out_rules import (SCALAR_TYPE_LAYOUT, castable, exact, linalg_castable, resize_counted, resize_keepdim,
                        resize_silently, same, same_dtype)


def _out_of(name, overload="default", outs=("out",), check=castable, dtype_must_match=None, fill_dtype=True,
            precheck=None, resize=resize_out, resize_for=None):
    """An out= kernel for ops.aten.<name>.<overload>; `outs` names its out arguments in schema order,
    `check(i, dtype, out)` (a rule of out_rules.py) raises torch's error when the i-th `out` cannot take the
    i-th result, `precheck(args, out)` what torch refuses before computing, and `resize(out, shape)` is the
    kernel's resize (the factories' is silent; `resize_for(op, args, kwargs)` makes it from the call's
    arguments). `fill_dtype=False`: the result is computed in its own dtype
    even when the functional form takes one (torch's mean)."""
    def kernel(*args, **kwargs):
        targets = tuple(kwargs.pop(n) for n in outs)
        op = getattr(getattr(ops.aten, name), overload)
        if dtype_must_match is not None:
            _check_dtype_arg(dtype_must_match, op, args, kwargs, targets[0].dtype)
        if precheck is not None:
            precheck(args, targets[0])
        if fill_dtype:
            args, kwargs = _default_dtype(op, args, kwargs, targets[0].dtype)
        with no_grad():
            r = op(*args, **kwargs)
        results = r if isinstance(r, tuple) else (r,)
        for i, (res, out) in enumerate(zip(results, targets)):
            check(i, res.dtype, out)
        fit = resize if resize_for is None else resize_for(op, args, kwargs)
        for res, out in zip(results, targets):
            fit(out, res._size)
            if out._np is not None and res._np is not None:
                np.copyto(out._np, res._np, casting="unsafe")
        return targets[0] if len(targets) == 1 else targets
    kernel.__name__ = f"{name}_{overload}_out"
    return kernel


def _no_overlap(args, out):
    """TensorIterator's memory-overlap rules for the out= of a pointwise op made here (`where`, `clamp_min`,
    `max.other`, ...): computing first would make an overlapping `out` safe, but torch refuses it."""
    from .meta.elementwise_common import check_mem_overlap
    check_mem_overlap(out, *args)


def _arg(op, args, kwargs, name):
    """The value of argument `name` in a call of op (its schema default when not given)."""
    import ast
    params = op._schema.arguments.flat_positional
    for i, a in enumerate(params):
        if a.name == name:
            if i < len(args):
                return args[i]
            if name in kwargs:
                return kwargs[name]
            return ast.literal_eval(a.default) if a.default is not None else None
    return kwargs.get(name)


def _keepdim_resize(op, args, kwargs):
    return resize_keepdim(args[0], _arg(op, args, kwargs, "dim"), _arg(op, args, kwargs, "keepdim"))


def _dtype_arg(op, args, kwargs):
    names = [a.name for a in op._schema.arguments.flat_positional]
    if "dtype" in names and names.index("dtype") < len(args):
        return args[names.index("dtype")]
    return kwargs.get("dtype")


def _check_dtype_arg(name, op, args, kwargs, out_dtype):
    """Reductions given both dtype= and out=: the two must agree (torch's check_reduction_dtype)."""
    d = _dtype_arg(op, args, kwargs)
    if d is not None and d != out_dtype:
        raise RuntimeError(f"{name}: provided dtype must match dtype of result. Got {_tname(out_dtype)} and "
                           f"{_tname(d)}.")


def _default_dtype(op, args, kwargs, dtype):
    """Fill an omitted (or None) `dtype` argument of the functional overload with `dtype`."""
    names = [a.name for a in op._schema.arguments.flat_positional]
    if "dtype" in names and names.index("dtype") < len(args):
        i = names.index("dtype")
        if args[i] is None:
            args = args[:i] + (dtype,) + args[i + 1:]
    elif "dtype" in (a.name for a in op._schema.arguments.flat_all) and kwargs.get("dtype") is None:
        kwargs = dict(kwargs, dtype=dtype)
    return args, kwargs


# ---- torch's dtype checks for ops whose out= is not TensorIterator's ----

def _legacy(d):
    return "CPUBoolType" if d == D.bool_ else f"torch.{_tname(d)}Tensor"


def _cat(i, dtype, out):
    from .._core.promotion import can_cast
    if not can_cast(dtype, out.dtype):
        raise TypeError(f"torch.cat(): input types can't be cast to the desired output type {_tname(out.dtype)}")


def _nansum_kernel(args, out):
    """torch's nansum out= kernel runs in out's dtype, which has no integral version for float input."""
    if args[0].dtype.is_floating_point and not (out.dtype.is_floating_point or out.dtype.is_complex):
        raise NotImplementedError(f"\"nansum_cpu\" not implemented for '{_tname(out.dtype)}'")


# values/indices of sort, topk, max/min over a dim; triangular_solve; slice_scatter (set_output_raw_strided)
_exact = exact
_cummax = SCALAR_TYPE_LAYOUT
_mode = same(lambda i, want, got: f"expected scalar type '{_tname(want)}' but got '{_tname(got)}' for "
                                   f"{('values', 'indices')[i]} output")
_kthvalue = same(lambda i, want, got: ("output values must be of same type as input", "output indices must be "
                                        "of scalar type Long")[i])
_median = same(lambda i, want, got: (
    f"Expected tensor for 'values' to have the same type as tensor for argument #2 'self'; but type {_legacy(got)} "
    f"does not equal {_legacy(want)} (while checking arguments for median)" if i == 0 else
    f"Expected tensor for argument #1 'indices' to have scalar type Long; but got {_legacy(got)} instead (while "
    "checking arguments for median)"))
_quantile = same(lambda i, want, got: "quantile() out tensor must be same dtype as the input tensor")
_complex = same(lambda i, want, got: f"Expected object of scalar type {_tname(want)} but got scalar type "
                                      f"{_tname(got)} for argument 'out'")
# TensorIterator ops built with check_all_same_dtype (unary float ops, conj_physical, clamp_min/max with a
# Scalar bound)
_unary_same = same_dtype
_amax = same(lambda i, want, got: f"Expected the dtype for input and out to match, but got {_tname(want)} for "
                                   f"input's dtype and {_tname(got)} for out's dtype.")
_where = same(lambda i, want, got: f"Expected out type to be {_tname(want)} but got {_tname(got)}")


def addbmm_out(self, batch1, batch2, *, beta=1, alpha=1, out):
    """torch's addbmm_out resizes `out` like `self` expanded (no deprecation warning) and then checks it as
    addmm's `self`, so a wrong dtype names "self and mat2"."""
    with no_grad():
        r = ops.aten.addbmm.default(self, batch1, batch2, beta=beta, alpha=alpha)
    if out.dtype is not r.dtype:
        raise RuntimeError(f"self and mat2 must have the same dtype, but got {_tname(out.dtype)} and "
                           f"{_tname(batch1.dtype)}")
    if tuple(out._size) != tuple(r._size):
        resize_internal(out, r._size)
    if out._np is not None and r._np is not None:
        np.copyto(out._np, r._np)
    return out


def _bool_result(name):
    """all/any: `out` must be bool or uint8 (the result is cast into it)."""
    def check(i, dtype, out):
        if out.dtype not in (D.bool_, D.uint8):
            raise RuntimeError(f"{name} only supports bool tensor for result, got: {_tname(out.dtype)}")
    return check


def _unary_extremum(i, dtype, out):
    """max()/min() of a whole tensor: torch's bare canCast check."""
    from .._core.promotion import can_cast
    if not can_cast(dtype, out.dtype):
        raise RuntimeError("Expected canCast( typeMetaToScalarType(self.dtype()), typeMetaToScalarType(out.dtype())) "
                           "to be true, but got false.  (Could this error message be improved?  If so, please report "
                           "an enhancement request to PyTorch.)")


def _arange_dtype(args, out):
    if out.dtype is D.bool_ or out.dtype.is_complex:
        raise NotImplementedError(f"\"arange_cpu\" not implemented for '{_tname(out.dtype)}'")


_VALUES = ("values", "indices")

# linalg
mm_out = _out_of("mm", check=_exact)
bmm_out = _out_of("bmm", check=_exact)
matmul_out = _out_of("matmul", check=_exact)
addmm_out = _out_of("addmm", check=_exact)
baddbmm_out = _out_of("baddbmm", check=_exact)
addmv_out = _out_of("addmv", check=_exact)
isin_Tensor_Tensor_out = _out_of("isin", "Tensor_Tensor", check=_exact)
isin_Tensor_Scalar_out = _out_of("isin", "Tensor_Scalar", check=_exact)
# torch's isin.Scalar_Tensor_out first resizes `out` to [0] (warning about that shape), then to the 0-d result
isin_Scalar_Tensor_out = _out_of("isin", "Scalar_Tensor", check=_exact,
                                 precheck=lambda args, out: resize_out(out, (0,)) if out._size != () else None)
addr_out = _out_of("addr")
mv_out = _out_of("mv", check=_exact)
dot_out = _out_of("dot", check=_exact)
linalg_householder_product_out = _out_of("linalg_householder_product",
                                        check=linalg_castable("torch.linalg.householder_product"))
triangular_solve_X = _out_of("triangular_solve", outs=("X", "M"), check=_exact)
# reductions
sum_IntList_out = _out_of("sum", "dim_IntList", dtype_must_match="sum")
_mean_into = _out_of("mean", check=exact)


def mean_dtype_out(self, *, dtype=None, out):
    """torch's mean_dtype_out: self's dtype must cast to `out`'s, then mean.out over all dims computes in
    dtype= (or `out`'s dtype) and sets `out` as is."""
    from .._core.promotion import can_cast
    if not can_cast(self.dtype, out.dtype):
        raise RuntimeError(f"mean.dtype_out(): input types can't be cast to the desired output type {_tname(out.dtype)}")
    if dtype is None and not (self.dtype.is_floating_point or self.dtype.is_complex):
        raise RuntimeError("mean(): could not infer output dtype. Input dtype must be either a floating point or "
                           f"complex dtype. Got: {_tname(self.dtype)}")
    return _mean_into(self, dtype=dtype, out=out)


mean_out = _out_of("mean", "dim", dtype_must_match="mean", fill_dtype=False)
prod_int_out = _out_of("prod", "dim_int", dtype_must_match="prod")
nansum_out = _out_of("nansum", dtype_must_match="nansum", precheck=_nansum_kernel)
nanmean_out = _out_of("nanmean", dtype_must_match="nanmean", precheck=_nansum_kernel)
amax_out = _out_of("amax", check=_amax)
amin_out = _out_of("amin", check=_amax)
argmax_out = _out_of("argmax", check=_exact)
argmin_out = _out_of("argmin", check=_exact)
all_all_out = _out_of("all", check=_bool_result("all"))
all_out = _out_of("all", "dim", check=_bool_result("all"))
all_dims_out = _out_of("all", "dims", check=_bool_result("all"))
any_all_out = _out_of("any", check=_bool_result("any"))
any_out = _out_of("any", "dim", check=_bool_result("any"))
any_dims_out = _out_of("any", "dims", check=_bool_result("any"))
max_unary_out = _out_of("max", check=_unary_extremum)
min_unary_out = _out_of("min", check=_unary_extremum)
max_out = _out_of("max", "other", precheck=_no_overlap)
min_out = _out_of("min", "other", precheck=_no_overlap)
max_dim_max = _out_of("max", "dim", outs=("max", "max_values"), check=_exact)
min_dim_min = _out_of("min", "dim", outs=("min", "min_indices"), check=_exact)
median_dim_values = _out_of("median", "dim", outs=_VALUES, check=_median)
nanmedian_dim_values = _out_of("nanmedian", "dim", outs=_VALUES, check=_median)
mode_values = _out_of("mode", outs=_VALUES, check=_mode, resize_for=_keepdim_resize)
quantile_out = _out_of("quantile", check=_quantile)
quantile_scalar_out = _out_of("quantile", "scalar", check=_quantile)
nanquantile_out = _out_of("nanquantile", check=_quantile)
nanquantile_scalar_out = _out_of("nanquantile", "scalar", check=_quantile)
diff_out = _out_of("diff")
# scans, sorting
cummax_out = _out_of("cummax", outs=_VALUES, check=_cummax)
cummin_out = _out_of("cummin", outs=_VALUES, check=_cummax)
sort_values = _out_of("sort", outs=_VALUES, check=_exact)
sort_values_stable = _out_of("sort", "stable", outs=_VALUES, check=_exact)
topk_values = _out_of("topk", outs=_VALUES, check=_exact)
kthvalue_values = _out_of("kthvalue", outs=_VALUES, check=_kthvalue, resize_for=_keepdim_resize)
# shape, view, elementwise, complex, softmax
stack_out = _out_of("stack", check=_cat)
slice_scatter_out = _out_of("slice_scatter", check=_exact)
where_self_out = _out_of("where", "self", check=_where, precheck=_no_overlap)
clamp_min_out = _out_of("clamp_min", check=_unary_same, precheck=_no_overlap)
clamp_max_out = _out_of("clamp_max", check=_unary_same, precheck=_no_overlap)
clamp_min_Tensor_out = _out_of("clamp_min", "Tensor", precheck=_no_overlap)
clamp_max_Tensor_out = _out_of("clamp_max", "Tensor", precheck=_no_overlap)
complex_out = _out_of("complex", check=_complex)
polar_out = _out_of("polar", check=_complex)
conj_physical_out = _out_of("conj_physical", check=_unary_same, precheck=_no_overlap)
# (computed in dtype= when given, else in self's dtype; _softmax.out then sets `out` as is)
softmax_int_out = _out_of("softmax", "int", check=exact, fill_dtype=False)
log_softmax_int_out = _out_of("log_softmax", "int", check=exact, fill_dtype=False)
# factories: torch's resize_ their `out` without the deprecation warning; arange warns its own way
empty_out = _out_of("empty", "memory_format", resize=resize_silently)
zeros_out = _out_of("zeros", resize=resize_silently)
ones_out = _out_of("ones", resize=resize_silently)
full_out = _out_of("full", resize=resize_silently)
arange_out = _out_of("arange", resize=resize_counted, precheck=_arange_dtype)
arange_start_out = _out_of("arange", "start_step", resize=resize_counted, precheck=_arange_dtype)
linspace_out = _out_of("linspace", resize=resize_silently)
eye_out = _out_of("eye", resize=resize_silently)
eye_m_out = _out_of("eye", "m", resize=resize_silently)
rand_out = _out_of("rand", resize=resize_silently)
rand_generator_out = _out_of("rand", "generator", resize=resize_silently)
randn_out = _out_of("randn", resize=resize_silently)
randn_generator_out = _out_of("randn", "generator", resize=resize_silently)
randint_out = _out_of("randint", resize=resize_silently)
randint_low_out = _out_of("randint", "low", resize=resize_silently)
randint_generator_out = _out_of("randint", "generator", resize=resize_silently)
randint_low_generator_out = _out_of("randint", "low_generator", resize=resize_silently)
randperm_out = _out_of("randperm", resize=resize_silently)
randperm_generator_out = _out_of("randperm", "generator", resize=resize_silently)
# issue 19's ops
aminmax_out = _out_of("aminmax", outs=("min", "max"), check=_exact)
renorm_out = _out_of("renorm", check=_exact)


def _histogram_out(overload):
    """torch.histogram(out=(hist, bin_edges)): both must have the input's dtype (torch's message); bin_edges is
    resized before hist, as torch does."""
    def kernel(self, *args, hist, bin_edges, **kwargs):
        with no_grad():
            h, e = getattr(ops.aten.histogram, overload)(self, *args, **kwargs)
        for what, o in (("hist", hist), ("bin_edges", bin_edges)):
            if o.dtype is not self.dtype:
                raise RuntimeError(f"torch.histogram: input tensor and {what} tensor should have the same dtype, but "
                                   f"got input {c_type_name(self.dtype)} and {what} {c_type_name(o.dtype)}"
                                   + (" for dimension 0" if what == "bin_edges" else ""))
        for o, r in ((bin_edges, e), (hist, h)):
            resize_out(o, r._size)
            if o._np is not None and r._np is not None:
                np.copyto(o._np, r._np)
        return hist, bin_edges
    kernel.__name__ = f"histogram_{overload}_out"
    return kernel


histogram_bins_tensor_out = _histogram_out("bins_tensor")
histogram_bin_ct_out = _histogram_out("bin_ct")
nonzero_static_out = _out_of("nonzero_static", check=same(
    lambda i, want, got: f"nonzero_static: Expected out tensor to have scalar type Long but got scalar type{_tname(got)}"))
