"""torch's out= rules, one per kind of ATen kernel (TensorIterator, structured kernels, linalg's
checkLinalgCompatibleDtype, fft, the factories' resize_): which `out` dtype each kind accepts, the exact
message of its refusal, and whether resizing a wrongly sized non-empty `out` warns.

A dtype rule is a callable `rule(i, dtype, out)` that raises torch's error when the i-th `out` cannot take a
result of `dtype`. An out= kernel names its kind once (`write_outs(results, outs, rule=EXACT)`) instead of
spelling a message per op. `write_outs` follows torch's order: every `out` is checked before any is
resized or written, so a refused call leaves all of them unchanged.
"""
import numpy as np

from .._core import dtype as D

from .._core.promotion import can_cast
from .._core.strides import wrap_dim
from .common import _tname, c_type_name, resize_internal, resize_out, warn_resized, warn_user


# ---- dtype rules

def castable(i, dtype, out):
    """TensorIterator (binary ops, float unary ops, reductions): the result must be castable to `out`."""
    if not can_cast(dtype, out.dtype):
        raise RuntimeError(f"result type {_tname(dtype)} can't be cast to the desired output type {_tname(out.dtype)}")


def exact(i, dtype, out):
    """Structured kernels (set_output_raw_strided on a given `out`): exactly the result's dtype."""
    if out.dtype is not dtype:
        raise RuntimeError(f"Expected out tensor to have dtype {c_type_name(dtype)}, but got {c_type_name(out.dtype)} "
                           "instead")


def same_dtype(i, dtype, out):
    """TensorIterator built with check_all_same_dtype (neg, abs, floor, round, sign, lerp, ...): every operand,
    `out` included, has the inputs' dtype."""
    if out.dtype is not dtype:
        raise RuntimeError(f"Found dtype {_tname(out.dtype)} but expected {_tname(dtype)}")


def abs_complex_to_real(self_dtype):
    """abs of a complex tensor (unary_op_impl_with_complex_to_float_out): a real `out` takes the real result if
    castable; a complex `out` goes through TensorIterator::unary_op, so it has self's dtype."""
    def rule(i, dtype, out):
        if out.dtype.is_complex:
            same_dtype(i, self_dtype, out)
        else:
            castable(i, dtype, out)
    return rule


def same(message):
    """`out` must have exactly the result's dtype; message(i, wanted, got) is torch's text for the op."""
    def rule(i, dtype, out):
        if out.dtype is not dtype:
            raise RuntimeError(message(i, dtype, out.dtype))
    return rule


def linalg_castable(name, what=("result",)):
    """linalg's checkLinalgCompatibleDtype: castable, naming the function and the output (`what[i]`)."""
    def rule(i, dtype, out):
        if not can_cast(dtype, out.dtype):
            w = what[i]
            raise RuntimeError(f"{name}: Expected {w} to be safely castable from {_tname(dtype)} dtype, but got {w} "
                               f"with dtype {_tname(out.dtype)}")
    return rule


def fft_complex(name):
    """fft's c2c and r2c transforms: any complex `out` (the result is cast into it)."""
    def rule(i, dtype, out):
        if not out.dtype.is_complex:
            raise RuntimeError(f"{name} expects a complex output tensor, but got {_tname(out.dtype)}")
    return rule


def fft_real(name):
    """fft's c2r transforms: any floating `out`."""
    def rule(i, dtype, out):
        if not out.dtype.is_floating_point:
            raise RuntimeError(f"{name} expects a floating point output tensor, but got {_tname(out.dtype)}")
    return rule


def fft_conjugated(name, reverse=False):
    """The inverse transforms of real input (ifft, ihfft): torch conjugates the r2c result into `out` with
    conj_physical's out= (TensorIterator::unary_op, one dtype for all); `reverse`: ihfftn over one dim
    conjugates `out` in place after the copy, so the message names the two dtypes the other way round."""
    complex_rule = fft_complex(name)

    def rule(i, dtype, out):
        complex_rule(i, dtype, out)
        if out.dtype is not dtype:
            got, want = (dtype, out.dtype) if reverse else (out.dtype, dtype)
            raise RuntimeError(f"Found dtype {_tname(got)} but expected {_tname(want)}")
    return rule


def floating_result(name):
    """logsumexp: any floating (not complex) `out`."""
    def rule(i, dtype, out):
        if not out.dtype.is_floating_point:
            raise RuntimeError(f"{name}: Expected floating point type for result tensor, but got: {_tname(out.dtype)}")
    return rule


def boolean_output(name):
    """isposinf / isneginf / signbit: a bool `out` only."""
    def rule(i, dtype, out):
        if out.dtype is not D.bool_:
            raise RuntimeError(f"{name} does not support non-boolean outputs.")
    return rule


NAN_TO_NUM = same(lambda i, want, got: f"nan_to_num: dtype of out: {_tname(got)} should be same as input: "
                                       f"{_tname(want)}")


def same_scalar_type(name):
    """index_select / masked_select: exactly self's dtype."""
    return same(lambda i, want, got: f"{name}(): self and result must have the same scalar type")


TAKE = same(lambda i, want, got: f"take(): self and out expected to have the same dtype, but got self.dtype = "
                                 f"{_tname(want)} and out.dtype = {_tname(got)}")
NARROW_COPY = same(lambda i, want, got: "Expected self.dtype() == output.dtype() to be true, but got false.  (Could "
                                        "this error message be improved?  If so, please report an enhancement request "
                                        "to PyTorch.)")
SEARCHSORTED = same(lambda i, want, got: "torch.searchsorted(): output tensor's dtype is wrong, it can only be "
                                         "Int(int32) or Long(int64) depending on whether out_int32 flag is True, but we "
                                         f"got output tensor's dtype {_tname(got)} and out_int32 flag is "
                                         f"{want.name == 'int32'}")
HISTOGRAM = same(lambda i, want, got: "torch.histogram: input tensor and hist tensor should have the same dtype, but "
                                      f"got input {c_type_name(want)} and hist {c_type_name(got)}")
# linalg's checks of an out against the input (solve_triangular)
SCALAR_TYPE = same(lambda i, want, got: f"expected scalar type {_tname(want)} but found {_tname(got)}")
# check_scalar_type_device_layout_equal (logcumsumexp, cummax/cummin)
SCALAR_TYPE_LAYOUT = same(lambda i, want, got: f"expected scalar_type {_tname(want)} but found {_tname(got)}")
# (torch's check of `residuals` names it "solution")
LSTSQ = linalg_castable("torch.linalg.lstsq", ("solution", "solution", "rank", "singular_values"))


# ---- resize rules

def resize_silently(out, shape):
    """The factories (empty, zeros, full, eye, linspace, rand*, ...) and narrow_copy: `out.resize_(size)`,
    no deprecation warning."""
    if tuple(out._size) != tuple(shape):
        resize_internal(out, shape)


def resize_counted(out, shape):
    """arange (and fftfreq, built on it): a size mismatch warns with arange's own message."""
    if tuple(out._size) != tuple(shape):
        if out.numel() != 0:
            warn_user(f"The number of elements in the out tensor of shape {list(out._size)} is {out.numel()} "
                      f"which does not match the computed number of elements {int(np.prod(shape))}. Note that "
                      "this may occur as a result of rounding error. The out tensor will be resized to a tensor "
                      f"of shape ({', '.join(str(s) for s in shape)},).")
        resize_internal(out, shape)


def resize_keepdim(self, dim, keepdim):
    """kthvalue / mode (_reduction_with_indices_allocate_or_resize_output): without keepdim, an `out` with one
    dim fewer than self is unsqueezed at `dim`, resized to the keepdim shape (so the warning names those two
    shapes) and squeezed again. Returns the resize(out, shape) of one call."""
    def resize(out, shape):
        if tuple(out._size) == tuple(shape):
            return
        if self.dim() == 0:
            return resize_out(out, shape)
        d = wrap_dim(dim, self.dim())
        kept = list(self._size)
        kept[d] = 1
        had = list(out._size)
        if not keepdim and len(had) == self.dim() - 1:
            had.insert(d, 1)
        if had != kept and out.numel() != 0:
            warn_resized(had, kept)
        resize_internal(out, shape)
    return resize


# ---- the protocol

def check_outs(dtypes, outs, rule=castable):
    for i, (d, o) in enumerate(zip(dtypes, outs)):
        rule(i, d, o)


def write_outs(results, outs, rule=castable, order=None, resize=resize_out, dispatch=False):
    """Copy computed `results` into `outs` with torch's out= protocol: check every `out` against its result's
    dtype with `rule`, then resize (in `order`, torch's order of the kernel's resize calls; warnings follow
    it) and copy, casting. `dispatch=True` (composite kernels) copies with `copy_` through the dispatcher,
    so tracing and functionalization see the write. Returns the `outs` tuple."""
    outs = tuple(outs)
    check_outs([r.dtype for r in results], outs, rule)
    for j in (order if order is not None else range(len(outs))):
        resize(outs[j], results[j]._size)
    for r, o in zip(results, outs):
        if dispatch:
            o.copy_(r)
        elif o._np is not None and r._np is not None:
            np.copyto(o._np, r._np, casting="unsafe")
    return outs


__all__ = ["castable", "exact", "same_dtype", "abs_complex_to_real", "same", "linalg_castable", "fft_complex",
           "fft_real", "fft_conjugated", "floating_result", "boolean_output", "same_scalar_type", "NAN_TO_NUM", "TAKE",
           "NARROW_COPY", "SEARCHSORTED", "HISTOGRAM", "SCALAR_TYPE", "SCALAR_TYPE_LAYOUT", "LSTSQ",
           "resize_silently", "resize_counted", "resize_keepdim", "check_outs", "write_outs"]
