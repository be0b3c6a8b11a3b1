"""Meta functions of the activations (torch's Activation.cpp, GatedLinearUnit.cpp): their dtype kinds,
the meta kernels (made by kernels/meta/elementwise_math.py's `unary_meta`), and the shape rules that the
cpu kernels of kernels/cpu/activation.py share (gelu_backward's broadcast and dtype, glu's halved dim)."""
from ..._core.device import META
from ..._core.promotion import result_type
from ..._core.strides import wrap_dim
from ..common import broadcast_shapes, check_out, empty_tensor, _tname
from .elementwise_common import out_strides
from .elementwise_math import unary_kind_dtype, unary_meta

# dtype kind of each activation (see elementwise_math.UNARY_KINDS): integer inputs are an error
# ("float_only"), except for threshold and hardtanh, which keep any dtype ("same")
ACTIVATION_KINDS = {n: "float_only" for n in ("gelu silu mish softplus elu selu celu leaky_relu hardsigmoid "
                                               "hardswish log_sigmoid hardshrink").split()}
ACTIVATION_KINDS.update(threshold="same", hardtanh="same")

for _n, _kind in ACTIVATION_KINDS.items():
    globals()[_n], globals()[_n + "_"], globals()[_n + "_out"] = unary_meta(_n, _kind)


def _checked_hardtanh(fn):
    """torch's meta hardtanh (torch/_refs): no bool; uint8 with negative limits ("Cannot", capitalised there)."""
    def meta(self, min_val=-1, max_val=1, *args, **kwargs):
        from ..._core import dtype as D
        if self.dtype is D.bool_:
            raise RuntimeError("Bool inputs not supported for hardtanh")
        if self.dtype is D.uint8 and (int(min_val) < 0 or int(max_val) < 0):
            raise RuntimeError("Cannot do hardtanh on an unsigned type with negative limits")
        return fn(self, min_val, max_val, *args, **kwargs)
    meta.__name__ = fn.__name__
    return meta


hardtanh, hardtanh_, hardtanh_out = map(_checked_hardtanh, (hardtanh, hardtanh_, hardtanh_out))


# ------------------------------------------------------------------ gelu_backward
def gelu_backward_spec(grad_output, self):
    """(shape, dtype) of gelu_backward: the broadcast shape, the promoted floating dtype."""
    rdt = result_type(grad_output, self)
    if not rdt.is_floating_point:
        raise NotImplementedError(f"\"GeluBackwardKernelImpl\" not implemented for '{_tname(rdt)}'")
    return broadcast_shapes(grad_output._size, self._size), rdt


def gelu_backward(grad_output, self, approximate="none"):
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    shape, rdt = gelu_backward_spec(grad_output, self)
    return empty_tensor(shape, rdt, META, out_strides(shape, grad_output, self))


# ------------------------------------------------------------------ glu
def glu_shape(self, dim):
    if self.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    d = wrap_dim(dim, self.dim())
    n = self._size[d]
    if n % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {d} is size {n}")
    return d, self._size[:d] + (n // 2,) + self._size[d + 1:]


def glu(self, dim=-1):
    shape = glu_shape(self, dim)[1]                  # torch checks the halved dim before the dtype
    unary_kind_dtype(self, "float_only", "glu")
    return empty_tensor(shape, self.dtype, META)


def glu_out(self, dim=-1, out=None):
    check_out(out, glu_shape(self, dim)[1], self.dtype, "glu")
    return out


# ------------------------------------------------------------------ hardshrink.out
def check_hardshrink_out(self, out):
    """hardshrink is a structured TensorIterator op: `out` must have the input's dtype exactly."""
    if out.dtype is not self.dtype and (self.dtype.is_floating_point or self.dtype.is_complex):
        raise RuntimeError(f"Found dtype {_tname(out.dtype)} but expected {_tname(self.dtype)}")


def _hardshrink_checked(f):
    def g(self, lambd=0.5, *, out):
        check_hardshrink_out(self, out)
        return f(self, lambd, out=out)
    g.__name__ = "hardshrink_out"
    return g


hardshrink_out = _hardshrink_checked(hardshrink_out)


# ------------------------------------------------------------------ softshrink
def softshrink_check(self, lambd):
    """torch's softshrink_check: floating inputs only, 0 <= lambd <= the dtype's largest value."""
    import numpy as np
    d = self.dtype
    if not d.is_floating_point:
        raise NotImplementedError(f"\"softshrink_check\" not implemented for '{_tname(d)}'")
    hi = float(np.finfo(d._np).max)
    if not 0 <= lambd <= hi:
        raise RuntimeError(f"lambda must be in range [0, {hi:g}] for input dtype {_tname(d)}, but found {lambd:g}")


def softshrink(self, lambd=0.5):
    softshrink_check(self, lambd)
    return empty_tensor(self._size, self.dtype, META, out_strides(self._size, self))


def softshrink_out(self, lambd=0.5, *, out):
    softshrink_check(self, lambd)
    check_hardshrink_out(self, out)
    check_out(out, self._size, self.dtype, "softshrink")
    return out


def hardshrink_backward_spec(grad_out, self):
    """(shape, dtype) of hardshrink_backward: TensorIterator's binary op over (grad_out, self), floating only
    (torch's cpu loop is shared with softshrink's backward, hence the kernel name in the message)."""
    rdt = result_type(grad_out, self)
    if not rdt.is_floating_point:
        raise NotImplementedError(f"\"shrink_backward_cpu\" not implemented for '{_tname(rdt)}'")
    return broadcast_shapes(grad_out._size, self._size), rdt


def hardshrink_backward(grad_out, self, lambd):
    shape, rdt = hardshrink_backward_spec(grad_out, self)
    return empty_tensor(shape, rdt, META, out_strides(shape, grad_out, self))


def hardshrink_backward_grad_input(grad_out, self, lambd, *, grad_input):
    shape, rdt = hardshrink_backward_spec(grad_out, self)
    check_out(grad_input, shape, rdt, "hardshrink_backward")
    return grad_input


def softshrink_backward_spec(grad_output, self):
    return broadcast_shapes(grad_output._size, self._size), result_type(grad_output, self)


def softshrink_backward(grad_output, self, lambd):
    shape, rdt = softshrink_backward_spec(grad_output, self)
    return empty_tensor(shape, rdt, META, out_strides(shape, grad_output, self))


# ------------------------------------------------------------------ rrelu_with_noise
def check_rrelu_with_noise(self, noise, training):
    """torch's checks, in its order: the noise shape, then the floating dtype (eval mode runs leaky_relu, so its
    kernel is the one named) and, in training, the noise dtype. The bounds are checked by the cpu kernel only
    when it draws a slope (torch's uniform distribution checks them; an input without elements <= 0 passes)."""
    if tuple(self._size) != tuple(noise._size):
        raise RuntimeError(f"noise tensor shape must match self tensor shape. Got self.shape = {list(self._size)} "
                           f"noise.shape = {list(noise._size)}")
    if not self.dtype.is_floating_point:
        kernel = "rrelu_with_noise_out_cpu" if training else "leaky_relu_cpu"
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_tname(self.dtype)}'")
    if training and noise.dtype is not self.dtype:
        raise RuntimeError(f"expected scalar type {_tname(self.dtype)} but found {_tname(noise.dtype)}")


def rrelu_with_noise(self, noise, lower=0.125, upper=1.0 / 3, training=False, generator=None):
    check_rrelu_with_noise(self, noise, training)
    return empty_tensor(self._size, self.dtype, META)


def rrelu_with_noise_(self, noise, lower=0.125, upper=1.0 / 3, training=False, generator=None):
    check_rrelu_with_noise(self, noise, training)
    return self
