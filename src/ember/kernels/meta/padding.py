"""Meta function for constant_pad_nd: pad pairs run from the last dim backwards; negative pads crop."""
from ..common import alloc, size_str


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


def mode_pad_spec(self, padding, k, name, reflect):
    pad = [int(p) for p in padding]
    if len(pad) != 2 * k:
        raise RuntimeError(f"padding size is expected to be {2 * k}, but got: {len(pad)}")
    if self.dim() not in (k + 1, k + 2) or any(s == 0 for s in self._size[1:]):
        raise RuntimeError(f"Expected {k + 1}D or {k + 2}D (batch mode) tensor with possibly 0 batch size and "
                           f"other non-zero dimensions for input, but got: {size_str(self._size)}")
    shape = list(self._size)
    pairs = []
    for i in range(k):
        d = self.dim() - 1 - i
        l, r = pad[2 * i], pad[2 * i + 1]
        if reflect and (l >= self._size[d] or r >= self._size[d]):
            raise RuntimeError(f"Argument #4: Padding size should be less than the corresponding input dimension, "
                               f"but got: padding ({l}, {r}) at dimension {d} of input {size_str(self._size)}")
        shape[d] += l + r
        if shape[d] < 1:
            raise RuntimeError(f"input ({'x'.join(map(str, self._size[-k:]))}) is too small. Calculated output "
                               f"{'x'.join(map(str, shape[-k:]))}")
        pairs.append((l, r))
    return tuple(shape), pairs[::-1]


def _mode_meta(k, name, reflect):
    def f(self, padding):
        shape, _ = mode_pad_spec(self, padding, k, name, reflect)
        return alloc(shape, self.dtype, self.device)
    f.__name__ = name
    return f


reflection_pad1d = _mode_meta(1, "reflection_pad1d", True)
reflection_pad2d = _mode_meta(2, "reflection_pad2d", True)
reflection_pad3d = _mode_meta(3, "reflection_pad3d", True)
replication_pad1d = _mode_meta(1, "replication_pad1d", False)
replication_pad2d = _mode_meta(2, "replication_pad2d", False)
replication_pad3d = _mode_meta(3, "replication_pad3d", False)


def circular_spec(self, pad):
    pad = [int(p) for p in pad]
    k = len(pad) // 2
    shape = list(self._size)
    pairs = []
    for i in range(k):
        d = self.dim() - 1 - i
        l, r = pad[2 * i], pad[2 * i + 1]
        if l > self._size[d] or r > self._size[d]:
            raise RuntimeError("Padding value causes wrapping around more than once.")
        shape[d] += l + r
        pairs.append((l, r))
    return tuple(shape), pairs[::-1]
