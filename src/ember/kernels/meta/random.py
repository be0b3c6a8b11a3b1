"""Meta functions of the random ops (torch's random factories and in-place samplers): output shape and dtype."""

from ..._core import dtype as D
from ..._core.device import META
from .creation import alloc
from ..common import as_dtype
from .creation import check_size
from ..._core.strides import dense_strides_like
from ..._core.promotion import get_default_dtype


def float_factory_dtype(dtype, name):
    dt = as_dtype(dtype) or get_default_dtype()
    if not (dt.is_floating_point or dt.is_complex):
        raise NotImplementedError(f"\"{name}\" not implemented for '{dt.name}'")
    return dt


def rand(size, *, generator=None, dtype=None, layout=None, device=None, pin_memory=None):
    return alloc(check_size(size), float_factory_dtype(dtype, "check_uniform_bounds"), META)


def randn(size, *, generator=None, dtype=None, layout=None, device=None, pin_memory=None):
    return alloc(check_size(size), float_factory_dtype(dtype, "normal_kernel_cpu"), META)


def randint_dtype(dtype):
    return as_dtype(dtype) or D.int64


def randint(high, size, *, generator=None, dtype=None, layout=None, device=None, pin_memory=None):
    return randint_low(0, high, size, dtype=dtype)


def randint_low(low, high, size, *, generator=None, dtype=None, layout=None, device=None, pin_memory=None):
    check_randint(low, high)
    return alloc(check_size(size), randint_dtype(dtype), META)


def check_randint(low, high):
    if not low < high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")


def randperm(n, *, generator=None, dtype=None, layout=None, device=None, pin_memory=None):
    if n < 0:
        raise RuntimeError(f"n must be non-negative, got{n}")
    return alloc((int(n),), randint_dtype(dtype), META)


def check_float_fill(self, name):
    if not (self.dtype.is_floating_point or self.dtype.is_complex):
        raise NotImplementedError(f"\"{name}_kernel_cpu\" not implemented for '{self.dtype.name}'")


def normal_(self, mean=0, std=1, *, generator=None):
    check_float_fill(self, "normal")
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
    return self


def uniform_(self, from_=0, to=1, *, generator=None):
    check_float_fill(self, "uniform")
    if from_ > to:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={from_} > to={to}")
    return self


def random_bounds(self, from_=None, to=None):
    """[low, high) of random_: defaults span the dtype's exactly representable non-negative integers."""
    import numpy as np
    d = self.dtype
    low = 0 if from_ is None else int(from_)
    if to is not None:
        high = int(to)
        check_randint(low, high)
    elif d is D.bool_:
        high = 2
    elif d.is_floating_point:
        high = 2 ** (np.finfo(d._np).nmant + 1) + 1
    else:
        high = int(np.iinfo(d._np).max) + 1
    return low, high


def random_(self, from_=None, to=None, *, generator=None):
    random_bounds(self, from_, to)
    return self


def random_to(self, to, *, generator=None):
    random_bounds(self, 0, to)
    return self


def bernoulli_(self, p=0.5, *, generator=None):
    if not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p}")
    return self


def bernoulli(self, p=None, *, generator=None):
    return alloc(self._size, self.dtype, META, dense_strides_like(self._size, self.stride()))


def bernoulli_out(self, *, generator=None, out):
    from ..common import check_out
    check_out(out, self._size, out.dtype, "bernoulli")
    return out
