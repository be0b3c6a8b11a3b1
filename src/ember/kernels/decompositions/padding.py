"""CompositeImplicitAutograd kernels of padding (torch's PadNd.cpp: pad, _pad_circular)."""

from ..._ops import ops

aten = ops.aten


def pad(self, pad, mode="constant", value=None):
    pad = [int(p) for p in pad]
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > self.dim():
        raise RuntimeError("Padding length should be less than or equal to two times the input dimension but got "
                           f"padding length {len(pad)} and input of dimension {self.dim()}")
    if mode == "constant":
        return aten.constant_pad_nd.default(self, pad, 0 if value is None else value)
    if mode not in ("reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if value is not None and value != 0:
        raise RuntimeError(f"Padding mode \"{mode}\" doesn't take in value argument")
    k = len(pad) // 2
    if k > 3 or self.dim() not in (k + 1, k + 2):
        raise NotImplementedError(f"Only 2D, 3D, 4D, 5D padding with non-constant padding are supported for now")
    if mode == "reflect":
        return getattr(aten, f"reflection_pad{k}d").default(self, pad)
    if mode == "replicate":
        return getattr(aten, f"replication_pad{k}d").default(self, pad)
    if mode == "circular":
        return aten._pad_circular.default(self, pad)
    raise RuntimeError(f"Unrecognised padding mode {mode}")


def _pad_circular(self, pad):
    """torch's composite (PadNd.cpp): the input copied into the middle of a new tensor, then each padded dim's
    wrapped borders copied from inside it, slice by slice (so the graph ends in CopySlices, as torch's). It
    replaces a numpy "wrap" pad, which got negative (cropping) pads wrong."""
    from ..meta.padding import circular_spec
    out_shape, _ = circular_spec(self, pad)      # torch's checks
    pad = [int(p) for p in pad]
    k = len(pad) // 2
    nd = self.dim()
    out = aten.new_empty.default(self, list(out_shape))
    out_slice, in_slice = out, self
    for i in range(k):
        d = nd - 1 - i
        left, right = pad[2 * i], pad[2 * i + 1]
        out_slice = aten.slice.Tensor(out_slice, d, max(left, 0), out_shape[d] - max(right, 0))
        in_slice = aten.slice.Tensor(in_slice, d, max(-left, 0), self._size[d] - max(-right, 0))
    aten.copy_.default(out_slice, in_slice)
    for i in range(k):
        d = nd - 1 - i
        left, right = pad[2 * i], pad[2 * i + 1]
        if left > 0:
            src = aten.slice.Tensor(out, d, out_shape[d] - left - max(right, 0), out_shape[d] - max(right, 0))
            aten.copy_.default(aten.slice.Tensor(out, d, 0, left), src)
        if right > 0:
            src = aten.slice.Tensor(out, d, max(left, 0), max(left, 0) + right)
            aten.copy_.default(aten.slice.Tensor(out, d, out_shape[d] - right, out_shape[d]), src)
    return out
