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
