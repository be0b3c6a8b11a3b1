"""Run-time C building, the counterpart of torch's `torch/_inductor/cpp_builder.py` (compile a C
source with the system compiler) and `torch/_inductor/codecache.py` (a disk cache keyed by a hash of
the source, the flags, the compiler and the cpu). ember's hand-written cpu kernels
(`kernels/cpu/csrc/*.c`, loaded by `kernels/cpu/runtime/clib.py`) use it today; the compiler
(`ember/_inductor`) will build the C it emits through the same functions.

- `build.py`: `load(source, name, flags)` compiles once into the cache and returns a `ctypes.CDLL`;
  `function(lib, name, sig)` types one of its functions; `available()`, `compiler()`, `cache_dir()`,
  `CompileError`. The first real compile in a process prints one line to stderr.
- `protos.py`: reads the C prototypes so a wrong ctypes signature raises instead of crashing.
"""
from .build import (BUILD_MESSAGE, CompileError, available, cache_dir, compiler, disabled, function,
                    load)
from . import protos

__all__ = ["BUILD_MESSAGE", "CompileError", "available", "cache_dir", "compiler", "disabled", "function",
           "load", "protos"]
