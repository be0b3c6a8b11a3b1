"""torch.device: a device type plus an optional index (c10/core/Device.h)."""

# torch's device types (c10/core/DeviceType.h), in the order its parse error lists them
_KNOWN = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve", "fpga", "maia", "xla",
          "lazy", "vulkan", "mps", "meta", "hpu", "mtia", "privateuseone")
_BACKENDS = ("cpu", "meta")     # the device types ember has a backend for
_NOT_COMPILED = "Torch not compiled with CUDA enabled"


class device:
    __slots__ = ("type", "index")

    def __new__(cls, type_or_str, index=None):
        if isinstance(type_or_str, device):
            return type_or_str
        if isinstance(type_or_str, int) and not isinstance(type_or_str, bool):
            raise RuntimeError("Cannot access accelerator device when none is available.")
        if not isinstance(type_or_str, str):
            raise TypeError(f"device() received an invalid combination of arguments: got {type(type_or_str).__name__}")
        s = type_or_str
        if ":" in s:
            if index is not None:
                raise RuntimeError(f"type (string) must not include an index because index was passed explicitly: {s}")
            s, _, idx = s.partition(":")
            if not idx.isdigit():
                raise RuntimeError(f"Invalid device string: '{type_or_str}'")
            index = int(idx)
        if s not in _KNOWN:
            raise RuntimeError(f"Expected one of {', '.join(_KNOWN)} device type at start of device string: "
                               f"{type_or_str}")
        self = object.__new__(cls)
        self.type = s
        self.index = index
        return self

    def __eq__(self, other):
        if isinstance(other, str):
            try:
                other = device(other)
            except (RuntimeError, TypeError):
                return False
        return isinstance(other, device) and self.type == other.type and self.index == other.index

    def __hash__(self):
        return hash((self.type, self.index))

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __repr__(self):
        return f"device(type='{self.type}')" if self.index is None else f"device(type='{self.type}', index={self.index})"

    def __reduce__(self):
        return (device, (self.type,) if self.index is None else (self.type, self.index))


CPU = device("cpu")
META = device("meta")


def as_device(d):
    """The device a tensor is to be made on (None stays None), refusing one ember has no backend for:
    cuda with torch's CPU-build AssertionError, the other types with NotImplementedError."""
    if d is None:
        return None
    d = d if isinstance(d, device) else device(d)
    if d.type not in _BACKENDS:
        check_backend(d)
    return d


def check_backend(d):
    if d.type == "cuda":
        raise AssertionError(_NOT_COMPILED)
    if d.type not in _BACKENDS:
        name = {"mps": "MPS", "xpu": "XPU", "hip": "HIP", "xla": "XLA", "lazy": "Lazy", "ipu": "IPU", "hpu": "HPU",
                "mtia": "MTIA", "maia": "MAIA", "vulkan": "Vulkan", "privateuseone": "PrivateUse1"}.get(d.type, d.type)
        raise NotImplementedError(f"Could not run tensor creation with arguments from the '{name}' backend: ember "
                                  f"has the CPU and Meta backends only, so tensors live on 'cpu' or 'meta'.")


# torch.set_default_device: the device factories use when none is given (None: cpu)
_default = [None]


def set_default_device(d):
    """torch.set_default_device: factories without `device=` make their tensors on `d` (None resets to cpu)."""
    _default[0] = None if d is None else d if isinstance(d, device) else device(d)   # checked when used
    if _default[0] is not None and _default[0].type == "cpu" and _default[0].index is None:
        _default[0] = None


def get_default_device():
    return _default[0] or CPU


def default_device_or_none():
    """The default device when it is not cpu (the hot path checks this one value)."""
    return _default[0]
