"""torch.device: a device type plus an optional index (c10/core/Device.h)."""

_KNOWN = ("cpu", "meta", "cuda")


class device:
    __slots__ = ("type", "index")

    def __new__(cls, type_or_str, index=None):
        if isinstance(type_or_str, device):
            return type_or_str
        if isinstance(type_or_str, int) and not isinstance(type_or_str, bool):
            raise RuntimeError("ember has no CUDA devices: device ordinal given without a type")
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
            raise RuntimeError(f"Expected one of cpu, cuda, meta device type at start of device string: {type_or_str}")
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
    if d is None:
        return None
    return d if isinstance(d, device) else device(d)
