"""CompositeImplicitAutograd kernels of copies and conversions (torch's TensorConversions.cpp: to, contiguous)."""

from ..._core.device import as_device
from ..common import as_dtype
from ..._ops import ops
from ..._core.memory_format import format_name
from ..._core.strides import suggest_memory_format

aten = ops.aten


def contiguous(self, memory_format="contiguous_format"):
    if self.is_contiguous(memory_format=memory_format):
        return self
    return aten.clone.default(self, memory_format=memory_format)


def _to_impl(self, dtype, device, copy, memory_format, non_blocking=False, layout=None, pin_memory=None):
    """torch's to_impl: `self` itself when nothing changes (to_will_alias), else _to_copy called with the arguments
    the `to` overload was given, as torch passes them (a dispatch mode sees `dtype` and those of layout, device,
    pin_memory, non_blocking and memory_format that the overload had: `x.to(float64)` is
    `_to_copy(x, dtype=float64)`; None ones are left out, as torch leaves out defaults)."""
    dt = as_dtype(dtype) or self.dtype
    dev = as_device(device) or self.device
    mf = format_name(memory_format) or "preserve_format"
    # torch's to_will_alias: a memory format other than preserve aliases when it is the one the strides
    # suggest (suggest_memory_format), not when the tensor is contiguous in it: a transposed matrix
    # `.to(memory_format=contiguous_format)` is returned as it is, an empty one `.to(memory_format=
    # channels_last)` is copied
    if (not copy and dt is self.dtype and dev == self.device     # (torch copies `x.to("cpu:0")`)
            and (mf == "preserve_format" or suggest_memory_format(self._size, self.stride()) == mf)):
        return self
    kw = {}
    if dtype is not None:
        kw["dtype"] = dt
    if layout is not None:
        kw["layout"] = layout
    if device is not None:
        kw["device"] = dev
    if pin_memory is not None:
        kw["pin_memory"] = pin_memory
    if non_blocking:
        kw["non_blocking"] = True
    if memory_format is not None:
        kw["memory_format"] = memory_format
    return aten._to_copy.default(self, **kw)


def to_dtype(self, dtype, non_blocking=False, copy=False, memory_format=None):
    return _to_impl(self, dtype, None, copy, memory_format, non_blocking)


def to_device(self, device, dtype, non_blocking=False, copy=False, memory_format=None):
    return _to_impl(self, dtype, device, copy, memory_format, non_blocking)


def to_other(self, other, non_blocking=False, copy=False, memory_format=None):
    return _to_impl(self, other.dtype, other.device, copy, memory_format, non_blocking)


def to_dtype_layout(self, dtype=None, layout=None, device=None, pin_memory=None, non_blocking=False, copy=False,
                    memory_format=None):
    if format_name(layout) not in (None, "strided"):
        raise RuntimeError(f"to(): layout {layout} is not supported by ember (strided only)")
    return _to_impl(self, dtype, device, copy, memory_format, non_blocking, layout, pin_memory)


def resize_as_(self, the_template, *, memory_format=None):
    """torch's resize_as_: self resized to the template's sizes; with memory_format, restrided to it
    (preserve_format: the template's own layout, channels_last when the template is)."""
    if self.requires_grad:              # torch's VariableType check, whatever the grad mode
        raise RuntimeError("cannot resize variables that require grad")
    if format_name(memory_format) == "preserve_format":
        memory_format = ("channels_last" if the_template.dim() == 4 and not the_template.is_contiguous()
                         and the_template.is_contiguous(memory_format="channels_last") else "contiguous_format")
    return aten.resize_.default(self, list(the_template.shape), memory_format=memory_format)
