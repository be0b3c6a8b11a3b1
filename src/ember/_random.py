"""Random number generation: Generator objects and the default generator (ATen CPUGeneratorImpl).

A Generator wraps a numpy PCG64 bit generator seeded from an int; `ember.manual_seed(s)` reseeds the
default one, so every random op is reproducible from the seed. Streams differ from torch's (torch
uses mt19937 with its own transforms); reproducibility is within ember.
"""
import os

import numpy as np


class Generator:
    """A seed and the numpy PCG64 stream it starts. The stream (`_rng`) is built on first use, so
    `import ember` does not pay for importing numpy.random (about 25 ms)."""

    def __init__(self, device="cpu"):
        from ._core.device import as_device
        self.device = as_device(device)
        self._seed = 67280421310721

    def __getattr__(self, name):
        # only reached while `_rng` is not an instance attribute yet: build it from the seed
        if name == "_rng":
            rng = self._rng = np.random.Generator(np.random.PCG64(self._seed))
            return rng
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def manual_seed(self, seed):
        seed = int(seed)
        if seed < 0:
            seed &= (1 << 64) - 1
        self._seed = seed
        self.__dict__.pop("_rng", None)     # the next random op starts the stream of `seed`
        return self

    def seed(self):
        s = int.from_bytes(os.urandom(8), "little") & ((1 << 63) - 1)
        self.manual_seed(s)
        return s

    def initial_seed(self):
        return self._seed

    def get_state(self):
        import pickle
        from ._core.dtype import uint8
        from ._core.tensor_impl import TensorImpl
        return TensorImpl._wrap_np(np.frombuffer(pickle.dumps(self._rng.bit_generator.state), np.uint8).copy(), uint8)

    def set_state(self, new_state):
        import pickle
        self._rng.bit_generator.state = pickle.loads(bytes(new_state.numpy().tolist()))
        return self


default_generator = Generator()
default_generator.seed()     # a fresh seed per process, as torch, until manual_seed is called


def _gen(generator):
    return (generator or default_generator)._rng


def manual_seed(seed):
    default_generator.manual_seed(seed)
    return default_generator


def seed():
    return default_generator.seed()


def initial_seed():
    return default_generator.initial_seed()


def get_rng_state():
    return default_generator.get_state()


def set_rng_state(new_state):
    from ._core.tensor_impl import TensorImpl as Tensor
    if not isinstance(new_state, Tensor):
        raise TypeError(f"expected a ember.ByteTensor, but got {type(new_state).__name__}")
    default_generator.set_state(new_state)
