"""torch.backends.mkldnn: ember does not link oneDNN, so `is_available()` is False; `enabled`,
`deterministic`, `allow_tf32` are settable module attributes with torch's defaults."""
from ._flags import FlagSet

VERBOSE_OFF = 0
VERBOSE_ON = 1
VERBOSE_ON_CREATION = 2

_FLAGS = FlagSet(globals(), {"enabled": True, "deterministic": False, "allow_tf32": True, "fp32_precision": "none"})


def is_available():
    return False


def is_acl_available():
    return False


def set_flags(_enabled=None, _deterministic=None, _allow_tf32=None, _fp32_precision="none"):
    return _FLAGS.set((_enabled, _deterministic, _allow_tf32, _fp32_precision))


def flags(enabled=False, deterministic=False, allow_tf32=True, fp32_precision="none"):
    return _FLAGS.context((enabled, deterministic, allow_tf32, fp32_precision))


class verbose:
    """`with torch.backends.mkldnn.verbose(level)`: oneDNN's verbose log; nothing to log without oneDNN."""

    def __init__(self, level):
        self.level = level

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False
