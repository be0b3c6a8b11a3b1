"""Meta functions for im2col (F.unfold) and col2im (F.fold)."""
from ..common import alloc, size_str


def _two(v):
    v = (v,) if isinstance(v, int) else tuple(int(x) for x in v)
    return v * 2 if len(v) == 1 else v


def im2col_spec(self, kernel_size, dilation, padding, stride):
    k, dl, p, s = _two(kernel_size), _two(dilation), _two(padding), _two(stride)
    if self.dim() not in (3, 4) or any(x == 0 for x in self._size[-3:]):
        raise RuntimeError(f"Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero "
                           f"dimensions for input, but got: {size_str(self._size)}")
    h, w = self._size[-2:]
    o = [(sz + 2 * p[i] - (dl[i] * (k[i] - 1) + 1)) // s[i] + 1 for i, sz in enumerate((h, w))]
    if o[0] < 1 or o[1] < 1:
        raise RuntimeError(f"Given input with spatial size ({h}, {w}), kernel_size=({k[0]}, {k[1]}), dilation=("
                           f"{dl[0]}, {dl[1]}), padding=({p[0]}, {p[1]}), calculated shape of the array of sliding "
                           f"blocks as ({o[0]}, {o[1]}), but its components must be at least one.")
    c = self._size[-3]
    return tuple(self._size[:-3]) + (c * k[0] * k[1], o[0] * o[1]), (k, dl, p, s, o)


def im2col(self, kernel_size, dilation, padding, stride):
    shape, _ = im2col_spec(self, kernel_size, dilation, padding, stride)
    return alloc(shape, self.dtype, self.device)


def col2im_spec(self, output_size, kernel_size, dilation, padding, stride):
    k, dl, p, s, osz = _two(kernel_size), _two(dilation), _two(padding), _two(stride), _two(output_size)
    if self.dim() not in (2, 3):
        raise RuntimeError(f"Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and "
                           f"non-zero dimensions for input, but got: {size_str(self._size)}")
    kk = k[0] * k[1]
    ck = self._size[-2]
    if ck % kk:
        raise RuntimeError(f"Expected size of input's dimension 1 to be divisible by the product of kernel_size, "
                           f"but got input.size(1)={ck} and kernel_size=({k[0]}, {k[1]})")
    o = [(osz[i] + 2 * p[i] - (dl[i] * (k[i] - 1) + 1)) // s[i] + 1 for i in range(2)]
    if o[0] * o[1] != self._size[-1]:
        raise RuntimeError(f"Given output_size=({osz[0]}, {osz[1]}), kernel_size=({k[0]}, {k[1]}), dilation=("
                           f"{dl[0]}, {dl[1]}), padding=({p[0]}, {p[1]}), stride=({s[0]}, {s[1]}), expected size "
                           f"of input's dimension 2 to match the calculated number of sliding blocks {o[0]} * "
                           f"{o[1]} = {o[0] * o[1]}, but got input.size(2)={self._size[-1]}.")
    return tuple(self._size[:-2]) + (ck // kk,) + osz, (k, dl, p, s, o)


def col2im(self, output_size, kernel_size, dilation, padding, stride):
    shape, _ = col2im_spec(self, output_size, kernel_size, dilation, padding, stride)
    return alloc(shape, self.dtype, self.device)
