"""out= kernels made from an op's functional overload, for every family (what torchgen generates for an
`autogen: op.out` entry; here for the ops whose out kernel ember does not write by hand).

Each runs the functional overload, then applies torch's out= rules: the result must be castable to
`out`'s dtype, a wrongly sized `out` is resized (with torch's warning when it held elements), and the
values are copied in. An overload whose functional form takes `dtype` and was given none computes in
`out`'s dtype, as torch's factories and reductions do (`torch.zeros(3, out=long_t)`). Only overloads
torch's Python functions accept are registered (torch.flip/trace/clone and a dim-less torch.sum take no
out=). Registered as CompositeExplicitAutograd: one kernel for every backend (on meta only the resize
happens).
"""
import numpy as np

from .._grad_mode import no_grad
from .._ops import ops
from .common import check_out


def _out_of(name, overload="default"):
    def kernel(*args, out, **kwargs):
        op = getattr(getattr(ops.aten, name), overload)
        args, kwargs = _default_dtype(op, args, kwargs, out.dtype)
        with no_grad():
            r = op(*args, **kwargs)
        check_out(out, r._size, r.dtype, name)
        if out._np is not None and r._np is not None:
            np.copyto(out._np, r._np, casting="unsafe")
        return out
    kernel.__name__ = f"{name}_out"
    return kernel


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


# linalg
mm_out = _out_of("mm")
bmm_out = _out_of("bmm")
matmul_out = _out_of("matmul")
addmm_out = _out_of("addmm")
mv_out = _out_of("mv")
dot_out = _out_of("dot")
# reductions
sum_IntList_out = _out_of("sum", "dim_IntList")
mean_dtype_out = _out_of("mean")
mean_out = _out_of("mean", "dim")
prod_int_out = _out_of("prod", "dim_int")
amax_out = _out_of("amax")
amin_out = _out_of("amin")
argmax_out = _out_of("argmax")
argmin_out = _out_of("argmin")
# shape, elementwise, softmax
stack_out = _out_of("stack")
where_self_out = _out_of("where", "self")
clamp_min_out = _out_of("clamp_min")
clamp_max_out = _out_of("clamp_max")
softmax_int_out = _out_of("softmax", "int")
log_softmax_int_out = _out_of("log_softmax", "int")
# factories
zeros_out = _out_of("zeros")
ones_out = _out_of("ones")
full_out = _out_of("full")
arange_out = _out_of("arange")
arange_start_out = _out_of("arange", "start_step")
linspace_out = _out_of("linspace")
eye_out = _out_of("eye")
eye_m_out = _out_of("eye", "m")
rand_out = _out_of("rand")
rand_generator_out = _out_of("rand", "generator")
randn_out = _out_of("randn")
randn_generator_out = _out_of("randn", "generator")
randint_out = _out_of("randint")
randint_low_out = _out_of("randint", "low")
randperm_out = _out_of("randperm")
