"""The padding layers: Zero/Constant/Reflection/Replication/CircularPad{1,2,3}d (torch/nn/modules/padding.py)."""
from .. import functional as F
from .module import Module
from .utils import _ntuple

__all__ = ["CircularPad1d", "CircularPad2d", "CircularPad3d", "ConstantPad1d", "ConstantPad2d", "ConstantPad3d", "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d", "ReplicationPad3d", "ZeroPad1d", "ZeroPad2d", "ZeroPad3d"]


class _PadNd(Module):
    _mode = "constant"
    _n = 1

    def __init__(self, padding, value=None):
        super().__init__()
        self.padding = _ntuple(2 * type(self)._n)(padding)
        if value is not None:
            self.value = value

    def forward(self, input):
        if self._mode == "constant":
            return F.pad(input, self.padding, "constant", getattr(self, "value", 0.0))
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self):
        if self._mode == "constant":
            return f"padding={self.padding}, value={self.value}"
        return f"{self.padding}"


def _pad_cls(name, mode, n, default_value=None):
    if mode == "constant" and default_value is not None:
        def __init__(self, padding):
            _PadNd.__init__(self, padding, default_value)
    elif mode == "constant":
        def __init__(self, padding, value):
            _PadNd.__init__(self, padding, value)
    else:
        def __init__(self, padding):
            _PadNd.__init__(self, padding)
    cls = type(name, (_PadNd,), {"_mode": mode, "_n": n, "__init__": __init__, "__module__": __name__})
    if default_value is not None:
        cls.extra_repr = lambda self: f"{self.padding}"
    return cls


ZeroPad1d = _pad_cls("ZeroPad1d", "constant", 1, 0.0)
ZeroPad2d = _pad_cls("ZeroPad2d", "constant", 2, 0.0)
ConstantPad1d = _pad_cls("ConstantPad1d", "constant", 1)
ConstantPad2d = _pad_cls("ConstantPad2d", "constant", 2)
ReflectionPad1d = _pad_cls("ReflectionPad1d", "reflect", 1)
ReflectionPad2d = _pad_cls("ReflectionPad2d", "reflect", 2)
ReplicationPad1d = _pad_cls("ReplicationPad1d", "replicate", 1)
ReplicationPad2d = _pad_cls("ReplicationPad2d", "replicate", 2)
CircularPad1d = _pad_cls("CircularPad1d", "circular", 1)
CircularPad2d = _pad_cls("CircularPad2d", "circular", 2)
ZeroPad3d = _pad_cls("ZeroPad3d", "constant", 3, 0.0)
ConstantPad3d = _pad_cls("ConstantPad3d", "constant", 3)
ReflectionPad3d = _pad_cls("ReflectionPad3d", "reflect", 3)
ReplicationPad3d = _pad_cls("ReplicationPad3d", "replicate", 3)
CircularPad3d = _pad_cls("CircularPad3d", "circular", 3)
