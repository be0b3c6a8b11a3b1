"""CompositeImplicitAutograd factories (torch's RangeFactories.cpp composites): logspace with 0-d tensor
start/end, which read their values and call the Scalar overload."""
from ..._ops import ops

aten = ops.aten


def _value(t, what):
    if getattr(t, "dim", None) is None:
        return t
    if t.dim() != 0:
        raise RuntimeError(f"logspace only supports 0-dimensional start and end tensors, but got {what} with "
                           f"{t.dim()} dimension(s).")
    return t.item()


def logspace(start, end, steps, base=10.0, *, dtype=None, layout=None, device=None, pin_memory=None):
    return aten.logspace.default(_value(start, "start"), _value(end, "end"), steps, base, dtype=dtype, layout=layout,
                                 device=device, pin_memory=pin_memory)


def logspace_out(start, end, steps, base=10.0, *, out):
    """Computed in out's dtype; a wrongly sized `out` is resized without a warning (torch's logspace_out)."""
    r = aten.logspace.default(_value(start, "start"), _value(end, "end"), steps, base, dtype=out.dtype,
                              device=out.device)
    if tuple(out._size) != tuple(r._size):
        out.resize_(r._size)
    return out.copy_(r)
