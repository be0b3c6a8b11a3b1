"""Meta functions of the margin losses (multi_margin_loss, multilabel_margin_loss): torch's shape checks and messages."""

from ..._core import dtype as D
from ..common import _tn, resize_internal
from ..common import alloc
from ..common import size_str


def _frames(self):
    """(nframe, dim) of a margin-loss input: a non-empty vector, or a matrix with a possibly empty batch."""
    nd = self.dim()
    if not ((nd <= 1 and self.numel() > 0) or (nd == 2 and self._size[1] > 0)):
        raise RuntimeError(f"Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
                           f"{size_str(self._size)}")
    if nd <= 1:
        return 1, (1 if nd == 0 else self._size[0])
    return self._size[0], self._size[1]


def _check_float(self, kernel):
    if self.dtype not in (D.float32, D.float64):
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_tn(self.dtype)}'")


def _check_long(target):
    if target.dtype is not D.int64:
        raise RuntimeError(f"expected scalar type Long but found {_tn(target.dtype)}")


def multi_margin_spec(self, target, p, margin, weight, reduction):
    """Validate the arguments; returns (nframe, dim, output shape)."""
    if p not in (1, 2):
        raise RuntimeError("only p == 1 and p == 2 supported")
    nframe, dim = _frames(self)
    if not (target.dim() <= 1 and target.numel() == nframe):
        raise RuntimeError(f"multi_margin_loss: target tensor should be 1-D with size equal to the number of input "
                           f"samples (batch size). Expected target size [{nframe}], but got "
                           f"{size_str(target._size)}. Input has shape {size_str(self._size)}.")
    if weight is not None and not (weight.dim() <= 1 and weight.numel() == dim):
        raise RuntimeError(f"inconsistent weight size, expected {dim} but got {size_str(weight._size)}")
    _check_float(self, "multi_margin_loss_cpu_kernel")
    _check_long(target)
    if weight is not None and weight.dtype is not self.dtype:
        raise RuntimeError(f"expected scalar type {_tn(self.dtype)} but found {_tn(weight.dtype)}")
    shape = (nframe,) if reduction == 0 and target.dim() > 0 else ()
    return nframe, dim, shape


def multilabel_margin_spec(self, target, reduction):
    nframe, dim = _frames(self)
    ok = (target.dim() <= 1 and target.numel() == dim) if self.dim() <= 1 else \
        (target.dim() == 2 and tuple(target._size) == (nframe, dim))
    if not ok:
        raise RuntimeError(f"inconsistent target size: {size_str(target._size)} for input of size: "
                           f"{size_str(self._size)}")
    _check_float(self, "multilabel_margin_loss_forward_out_frame")
    _check_long(target)
    shape = (nframe,) if reduction == 0 and target.dim() > 1 else ()
    return nframe, dim, shape


def multi_margin_loss(self, target, p=1, margin=1, weight=None, reduction=1):
    shape = multi_margin_spec(self, target, p, margin, weight, reduction)[2]
    return alloc(shape, self.dtype, self.device)


def multi_margin_loss_backward(grad_output, self, target, p, margin, weight=None, reduction=1):
    multi_margin_spec(self, target, p, margin, weight, reduction)
    return alloc(self._size, self.dtype, self.device)


def multilabel_margin_loss_forward(self, target, reduction):
    shape = multilabel_margin_spec(self, target, reduction)[2]
    return alloc(shape, self.dtype, self.device), alloc(self._size, self.dtype, self.device)


def multilabel_margin_loss_backward(grad_output, self, target, reduction, is_target):
    multilabel_margin_spec(self, target, reduction)
    return alloc(self._size, self.dtype, self.device)


def _check_out(out, shape, self):
    """These kernels write out= in the input's dtype and resize it silently (torch's resize_, no warning)."""
    if out.dtype is not self.dtype:
        raise RuntimeError(f"expected scalar type {_tn(self.dtype)} but found {_tn(out.dtype)}")
    if tuple(out._size) != tuple(shape):
        resize_internal(out, shape)
    return out


def multi_margin_loss_out(self, target, p=1, margin=1, weight=None, reduction=1, *, out):
    return _check_out(out, multi_margin_spec(self, target, p, margin, weight, reduction)[2], self)


def multilabel_margin_loss_out(self, target, reduction=1, *, out):
    return _check_out(out, multilabel_margin_spec(self, target, reduction)[2], self)
