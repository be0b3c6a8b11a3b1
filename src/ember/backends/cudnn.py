"""torch.backends.cudnn without CUDA: `is_available()` False, `version()` None, and the switches
scripts set for reproducibility or speed (`enabled`, `benchmark`, `deterministic`, `allow_tf32`, ...)
kept as plain module attributes with torch's defaults; nothing in ember reads them."""
from ._flags import FlagSet

_FLAGS = FlagSet(globals(), {"enabled": True, "benchmark": False, "benchmark_limit": 10, "deterministic": False,
                             "allow_tf32": True, "fp32_precision": "none", "depthwise_kernel": "auto"})


def is_available():
    return False


def version():
    return None


def is_acceptable(tensor):
    return False


def set_flags(_enabled=None, _benchmark=None, _benchmark_limit=None, _deterministic=None, _allow_tf32=None,
              _fp32_precision="none", _depthwise_kernel=None):
    return _FLAGS.set((_enabled, _benchmark, _benchmark_limit, _deterministic, _allow_tf32, _fp32_precision,
                       _depthwise_kernel))


def flags(enabled=False, benchmark=False, benchmark_limit=10, deterministic=False, allow_tf32=True,
          fp32_precision="none", depthwise_kernel="auto"):
    """`with torch.backends.cudnn.flags(enabled=False): ...` sets the switches and restores them on exit."""
    return _FLAGS.context((enabled, benchmark, benchmark_limit, deterministic, allow_tf32, fp32_precision,
                           depthwise_kernel))
