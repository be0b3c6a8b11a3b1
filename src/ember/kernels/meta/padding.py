"""Meta function for constant_pad_nd: pad pairs run from the last dim backwards; negative pads crop."""
from .nn_common import alloc


def pad_spec(self, pad):
    pad = [int(p) for p in pad]
    if len(pad) % 2:
        raise RuntimeError(f"Length of pad must be even but instead it equals {len(pad)}")
    if len(pad) // 2 > self.dim():
        raise RuntimeError(f"Length of pad should be no more than twice the number of dimensions of the input. "
                           f"Pad length is {len(pad)} while the input has {self.dim()} dimensions.")
    shape = list(self._size)
    pairs = []
    for i in range(len(pad) // 2):
        d = self.dim() - 1 - i
        shape[d] += pad[2 * i] + pad[2 * i + 1]
        if shape[d] < 0:
            raise RuntimeError(f"The input size {self._size[d]}, plus negative padding {pad[2 * i]} and "
                               f"{pad[2 * i + 1]} resulted in a negative output size, which is invalid. "
                               f"Check dimension {d} of your input.")
        pairs.append((pad[2 * i], pad[2 * i + 1]))
    return tuple(shape), pairs[::-1]


def constant_pad_nd(self, pad, value=0):
    shape, _ = pad_spec(self, pad)
    return alloc(shape, self.dtype, self.device)
