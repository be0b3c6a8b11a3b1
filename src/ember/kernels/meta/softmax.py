"""Meta functions for _softmax/_log_softmax: dim check, result dtype (half_to_float)."""
from ..._core import dtype as D
from ..._core.strides import wrap_dim
from ..common import alloc


def softmax_spec(self, dim, half_to_float, name="softmax"):
    wrap_dim(dim, max(self.dim(), 1))
    if not self.dtype.is_floating_point:
        from ..common import _tn
        raise NotImplementedError(f"\"{name}_lastdim_kernel_impl\" not implemented for '{_tn(self.dtype)}'")
    dt = self.dtype
    if half_to_float:
        if dt is not D.float16:
            raise RuntimeError("conversion of inputs to float is only supported for Half")
        dt = D.float32
    return self._size, dt


def _softmax(self, dim, half_to_float):
    shape, dt = softmax_spec(self, dim, half_to_float)
    return alloc(shape, dt, self.device)


def _log_softmax(self, dim, half_to_float):
    shape, dt = softmax_spec(self, dim, half_to_float, "log_softmax")
    return alloc(shape, dt, self.device)


def _like(t):
    return alloc(t._size, t.dtype, t.device)


def _softmax_backward_data(grad_output, output, dim, input_dtype):
    return _like(grad_output)


_log_softmax_backward_data = _softmax_backward_data
