"""cpu kernels for random ops: numpy's PCG64 stream of the given (or default) ember.Generator.
Shapes, dtypes and argument checks come from kernels/meta/creation.py."""
import numpy as np

from ..._core.device import CPU
from ..._random import _gen
from ..meta import creation as M
from ..meta import random as M_random


def _fill(t, values):
    if t._np is not None:
        t._np[...] = values
    return t


def _uniform(rng, shape, dt):
    return rng.random(shape, dtype=np.float32 if dt._np == np.float32 else np.float64)


def rand(size, *, generator=None, dtype=None, layout=None, device=None, pin_memory=None):
    t = M.alloc(M.check_size(size), M_random.float_factory_dtype(dtype, "check_uniform_bounds"), CPU)
    return _fill(t, _uniform(_gen(generator), t._size, t.dtype))


def randn(size, *, generator=None, dtype=None, layout=None, device=None, pin_memory=None):
    t = M.alloc(M.check_size(size), M_random.float_factory_dtype(dtype, "normal_kernel_cpu"), CPU)
    return _fill(t, _gen(generator).standard_normal(t._size))


def randint(high, size, *, generator=None, dtype=None, layout=None, device=None, pin_memory=None):
    return randint_low(0, high, size, generator=generator, dtype=dtype)


def randint_low(low, high, size, *, generator=None, dtype=None, layout=None, device=None, pin_memory=None):
    M_random.check_randint(low, high)
    t = M.alloc(M.check_size(size), M_random.randint_dtype(dtype), CPU)
    return _fill(t, _gen(generator).integers(int(low), int(high), t._size))


def randperm(n, *, generator=None, dtype=None, layout=None, device=None, pin_memory=None):
    t = M_random.randperm(n, dtype=dtype)
    t = M.alloc(t._size, t.dtype, CPU)
    return _fill(t, _gen(generator).permutation(int(n)))


# ------------------------------------------------------------------ CompositeExplicitAutograd: *_like
def _like(self, dtype, device, memory_format):
    shape, dt, dev, st = M.like_spec(self, dtype, device, memory_format)
    return M.alloc(shape, dt, dev, st)


def rand_like(self, *, generator=None, dtype=None, layout=None, device=None, pin_memory=None, memory_format=None):
    return uniform_(_like(self, dtype, device, memory_format), generator=generator)


def randn_like(self, *, generator=None, dtype=None, layout=None, device=None, pin_memory=None, memory_format=None):
    return normal_(_like(self, dtype, device, memory_format), generator=generator)


def randint_like(self, high, *, generator=None, dtype=None, layout=None, device=None, pin_memory=None,
                 memory_format=None):
    return random_(_like(self, dtype, device, memory_format), 0, _int(high), generator=generator)


def randint_like_low(self, low, high, *, generator=None, dtype=None, layout=None, device=None, pin_memory=None,
                     memory_format=None):
    return random_(_like(self, dtype, device, memory_format), low, high, generator=generator)


def _int(x):
    return int(x.item()) if hasattr(x, "item") else int(x)


# ------------------------------------------------------------------ in-place fillers (validate, then write)
def normal_(self, mean=0, std=1, *, generator=None):
    M_random.normal_(self, mean, std)
    return _fill(self, _gen(generator).normal(mean, std, self._size) if self._np is not None else None)


def uniform_(self, from_=0, to=1, *, generator=None):
    M_random.uniform_(self, from_, to)
    if self._np is None:
        return self
    return _fill(self, from_ + (to - from_) * _uniform(_gen(generator), self._size, self.dtype))


def random_(self, from_=None, to=None, *, generator=None):
    low, high = M_random.random_bounds(self, from_, to)
    if self._np is None:
        return self
    return _fill(self, _gen(generator).integers(low, high, self._size, dtype=np.uint64 if low >= 0 and high > 2 ** 63 else np.int64))


def random_to(self, to, *, generator=None):
    return random_(self, 0, to, generator=generator)


def bernoulli_(self, p=0.5, *, generator=None):
    M_random.bernoulli_(self, p)
    if self._np is None:
        return self
    return _fill(self, _gen(generator).random(self._size) < p)


def _check_probs(self):
    if self.numel() and not ((self._np >= 0) & (self._np <= 1)).all():
        raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.")


def bernoulli(self, p=None, *, generator=None):
    out = M_random.bernoulli(self)
    out = M.alloc(out._size, out.dtype, CPU, out.stride())
    if p is None:
        _check_probs(self)
    probs = self._np if p is None else p
    return _fill(out, _gen(generator).random(self._size) < probs)


def bernoulli_out(self, *, generator=None, out):
    """out may have any dtype (torch writes the 0/1 draws cast to it); a wrongly sized out is resized."""
    _check_probs(self)
    M_random.bernoulli_out(self, out=out)
    if out.numel():
        _fill(out, _gen(generator).random(self._size) < self._np)
    return out


def bernoulli_p(self, p, *, generator=None):
    return bernoulli(self, p, generator=generator)
