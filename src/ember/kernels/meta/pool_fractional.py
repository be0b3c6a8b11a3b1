"""Meta functions of fractional max pooling (torch's FractionalMaxPool2d.cpp / FractionalMaxPool3d.cpp meta
checks): argument lengths, the random samples' shape and dtype, non-empty planes, pools that fit."""
from ..._core import dtype as D
from ..common import alloc, size_str
from .pool import check_grad

_DIMS = {2: ("height", "width"), 3: ("time", "height", "width")}
_WORD = {2: "", 3: "three "}


def ints(v, d):
    """An int[d] argument: one int stands for all d."""
    return (int(v),) * d if isinstance(v, int) else tuple(int(x) for x in v)


def _check_samples(self, random_samples, d):
    """_random_samples: the input's dtype, (batch >= input's, channels, d)."""
    nd = self.dim()
    if random_samples.dtype != self.dtype:
        raise RuntimeError("Expect _random_samples to have the same dtype as input")
    if random_samples.dim() != 3:
        raise RuntimeError(f"Expect _random_samples to have 3 dimensions, got {random_samples.dim()}")
    n, c, dd = random_samples._size
    if nd == d + 2:
        if n < self._size[0]:
            raise RuntimeError("Expect _random_samples.size(0) no less then input batch size.")
    if c != self._size[-d - 1]:
        raise RuntimeError("Expect _random_samples.size(1) equals to input channel size.")
    if dd != d:
        raise RuntimeError(f"Expect _random_samples.size(2) equals to {d}; got {dd}.")


def spec(self, kernel_size, output_size, random_samples, d):
    """The output shape of fractional_max_pool{d}d, after torch's checks (its messages, its order)."""
    name = f"fractional_max_pool{d}d"
    where = name + ("()" if d == 2 else "_out()")
    k, o = ints(kernel_size, d), ints(output_size, d)
    if len(k) != d:
        raise RuntimeError(f"{name}: kernel_size must either be a single Int or tuple of {_WORD[d]}Ints")
    if len(o) != d:
        raise RuntimeError(f"{name}: output_size must either be a single Int or tuple of {_WORD[d]}Ints")
    nd = self.dim()
    if nd not in (d + 1, d + 2):
        raise RuntimeError(f"{where}: Expected {d + 1}D or {d + 2}D tensor, but got: {size_str(self._size)}")
    if d == 2:
        _check_samples(self, random_samples, d)
    for i in range(1, nd):
        if self._size[i] <= 0:
            raise RuntimeError(f"{where}: Expected input to have non-zero size for non-batch dimensions, but "
                               f"got{size_str(self._size)} with dimension {i} being empty.")
    sp = self._size[-d:]
    for i in range(d):      # (torch's 3d check is strict: a pool ending flush with the input is refused)
        if o[i] + k[i] - 1 > sp[i] - (1 if d == 3 else 0):
            what = _DIMS[d][i]
            raise RuntimeError(f"{where}: pool {what} {k[i]} too large relative to input {what} {sp[i]}")
    if d == 3:                 # (torch's 3d kernel checks them after the sizes)
        _check_samples(self, random_samples, d)
    return tuple(self._size[:-d]) + o


def fractional_max_pool2d(self, kernel_size, output_size, random_samples):
    shape = spec(self, kernel_size, output_size, random_samples, 2)
    return alloc(shape, self.dtype, self.device), alloc(shape, D.int64, self.device)


def fractional_max_pool3d(self, kernel_size, output_size, random_samples):
    shape = spec(self, kernel_size, output_size, random_samples, 3)
    return alloc(shape, self.dtype, self.device), alloc(shape, D.int64, self.device)


def _backward(grad_output, self, indices, d):
    check_grad(grad_output, indices._size, f"fractional_max_pool{d}d_backward")
    return alloc(self._size, self.dtype, self.device)


def fractional_max_pool2d_backward(grad_output, self, kernel_size, output_size, indices):
    return _backward(grad_output, self, indices, 2)


def fractional_max_pool3d_backward(grad_output, self, kernel_size, output_size, indices):
    return _backward(grad_output, self, indices, 3)
