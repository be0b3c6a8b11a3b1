"""Meta functions for the loss ops: torch's shape/dtype checks and result shapes (reduction
0 = none keeps the elementwise shape, 1 = mean and 2 = sum give a 0-dim tensor)."""
from ..._core import dtype as D
from ..common import broadcast_shapes
from ..common import alloc, size_str, _tn
from .softmax import _like


def _torch_size(s):
    return f"torch.Size([{', '.join(map(str, s))}])"


def pointwise_spec(self, target, reduction, name="loss"):
    if name in ("binary_cross_entropy",) and tuple(self._size) != tuple(target._size):
        raise ValueError(f"Using a target size ({_torch_size(target._size)}) that is different to the input size "
                         f"({_torch_size(self._size)}) is deprecated. Please ensure they have the same size.")
    if name == "binary_cross_entropy_with_logits" and tuple(self._size) != tuple(target._size):
        raise ValueError(f"Target size ({_torch_size(target._size)}) must be the same as input size "
                         f"({_torch_size(self._size)})")
    try:
        shape = broadcast_shapes(self._size, target._size)
    except RuntimeError as e:       # torch's TensorIterator message stops at the dimension
        raise RuntimeError(str(e).split(":")[0]) from None
    return (tuple(shape) if reduction == 0 else ()), self.dtype


def pointwise(name):
    def meta(self, target, reduction=1, *args, **kw):   # every pointwise loss takes reduction third
        shape, dt = pointwise_spec(self, target, reduction, name)
        return alloc(shape, dt, self.device)
    meta.__name__ = name
    return meta


def nll_spec(self, target, weight, reduction, ignore_index, spatial):
    if not spatial:
        if self.dim() not in (1, 2):
            raise RuntimeError("input tensor should be 1D or 2D")
        if target.dim() > 1:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if target.dtype not in (D.int64, D.uint8):
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {_tn(target.dtype)}")
    if not spatial:
        no_batch = self.dim() == 1 and target.dim() == 0
        if not (no_batch or self._size[0] == target._size[0]):
            raise RuntimeError(f"size mismatch (got input: {size_str(self._size)}, target: "
                               f"{size_str(target._size)})")
        c = self._size[-1]
        out = () if reduction != 0 or self.dim() == 1 else (self._size[0],)
    else:
        if self.dim() != 4:
            raise RuntimeError(f"only batches of spatial inputs supported (4D tensors), but got input of dimension: "
                               f"{self.dim()}")
        if target.dim() != 3:
            raise RuntimeError(f"only batches of spatial targets supported (3D tensors) but got targets of "
                               f"dimension: {target.dim()}")
        s = self._size
        if (s[0], s[2], s[3]) != tuple(target._size):
            raise RuntimeError(f"size mismatch (got input: {size_str(s)} , target: {size_str(target._size)}")
        c = s[1]
        out = () if reduction != 0 else tuple(target._size)
    if weight is not None and weight.numel() != c:
        raise RuntimeError(f"weight tensor should be defined either for all {c} classes or no classes but got "
                           f"weight tensor of shape: {size_str(weight._size)}")
    return out, self.dtype


def nll_loss_forward(self, target, weight, reduction, ignore_index):
    out, dt = nll_spec(self, target, weight, reduction, ignore_index, False)
    return alloc(out, dt, self.device), alloc((), dt, self.device)


def nll_loss2d_forward(self, target, weight, reduction, ignore_index):
    out, dt = nll_spec(self, target, weight, reduction, ignore_index, True)
    return alloc(out, dt, self.device), alloc((), dt, self.device)


mse_loss = pointwise("mse_loss")
l1_loss = pointwise("l1_loss")
smooth_l1_loss = pointwise("smooth_l1_loss")
huber_loss = pointwise("huber_loss")
soft_margin_loss = pointwise("soft_margin_loss")
def binary_cross_entropy(self, target, weight=None, reduction=1):
    shape, dt = pointwise_spec(self, target, reduction, "binary_cross_entropy")
    return alloc(shape, dt, self.device)


def binary_cross_entropy_with_logits(self, target, weight=None, pos_weight=None, reduction=1):
    shape, dt = pointwise_spec(self, target, reduction, "binary_cross_entropy_with_logits")
    return alloc(shape, dt, self.device)


def nll_loss_backward(grad_output, self, target, weight, reduction, ignore_index, total_weight):
    return _like(self)


nll_loss2d_backward = nll_loss_backward


def mse_loss_backward(grad_output, self, target, reduction):
    return _like(self)
