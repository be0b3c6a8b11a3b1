"""cpu kernels for random ops: numpy's PCG64 stream of the given (or default) ember.Generator.
Shapes, dtypes and argument checks come from kernels/meta/creation.py."""
import numpy as np

from ..._core.device import CPU
from ..._random import _gen
from ..meta import creation as M
from ..meta import random as M_random
from ..._core import dtype as D
from ..._core.tensor_impl import TensorImpl as Tensor
from ..common import _tname
from ..._core.device import as_device
from ..common import as_dtype
from ..meta.index import bshape
from ..out_rules import resize_silently
from ..common import check_out
from ..common import empty_tensor
from ..._core.promotion import get_default_dtype
from ..._core.promotion import result_type


def _fill(t, values):
    if t._np is not None:
        t._np[...] = values
    return t


def _uniform(rng, shape, dt):
    if dt.is_complex:               # both parts drawn, as torch (view_as_real, then the real kernel)
        parts = rng.random((*shape, 2), dtype=np.float32 if dt._np == np.complex64 else np.float64)
        return parts[..., 0] + 1j * parts[..., 1]
    if dt.name in _HALF_DIGITS:
        # torch's uniform_real keeps as many random bits as the dtype's mantissa holds, so `from + u*(to-from)`
        # rounds below `to` (a full-precision u would round up to `to` itself about once per 2**digits draws)
        scale = float(1 << _HALF_DIGITS[dt.name])
        return np.floor(rng.random(shape) * scale) / scale
    return rng.random(shape, dtype=np.float32 if dt._np == np.float32 else np.float64)


_HALF_DIGITS = {"float16": 11, "bfloat16": 8}     # std::numeric_limits<T>::digits


def _sample_normal(rng, mean, std, shape, dt):
    """N(mean, std^2) samples; for a complex dtype both parts are drawn with std / sqrt(2) (so the complex
    variance is std^2) and `mean` is added to each part, as torch's normal_ on view_as_real."""
    if dt.is_complex:
        parts = rng.normal(mean, std / np.sqrt(2.0), (*shape, 2))
        return parts[..., 0] + 1j * parts[..., 1]
    return rng.normal(mean, std, shape) if (mean, std) != (0, 1) else rng.standard_normal(shape)


def rand(size, *, generator=None, dtype=None, layout=None, device=None, pin_memory=None):
    t = M.alloc(M.check_size(size), M_random.float_factory_dtype(dtype, "check_uniform_bounds"), CPU)
    return _fill(t, _uniform(_gen(generator), t._size, t.dtype))


def randn(size, *, generator=None, dtype=None, layout=None, device=None, pin_memory=None):
    t = M.alloc(M.check_size(size), M_random.float_factory_dtype(dtype, "normal_kernel_cpu"), CPU)
    return _fill(t, _sample_normal(_gen(generator), 0, 1, t._size, t.dtype))


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
    return _fill(self, _sample_normal(_gen(generator), mean, std, self._size, self.dtype) if self._np is not None else None)


def uniform_(self, from_=0, to=1, *, generator=None):
    M_random.uniform_(self, from_, to)
    if self._np is None:
        return self
    u = _uniform(_gen(generator), self._size, self.dtype)
    if self.dtype.is_complex:       # each part in [from, to)
        return _fill(self, (from_ + (to - from_) * u.real) + 1j * (from_ + (to - from_) * u.imag))
    return _fill(self, from_ + (to - from_) * u)


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


def _fill_random_ops(t, values):
    if t._np is not None and t.numel():
        t._np[...] = values
    return t


def _float_check(dt, kernel):
    if not dt.is_floating_point:
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_tname(dt)}'")


def _continuous_check(self, name, long_name=False):
    if not self.dtype.is_floating_point:
        n = {"Long": "long int", "Int": "int", "Short": "short int", "Bool": "bool", "Byte": "unsigned char",
             "Char": "signed char"}.get(_tname(self.dtype), _tname(self.dtype)) if long_name else _tname(self.dtype)
        raise RuntimeError(f"{name} distribution is a continuous probability distribution. dtype must be a floating "
                           f"point but you specified {n}")


def _std_check(std):
    if isinstance(std, Tensor):
        if std._np is not None and std.numel() and (std._np < 0).any():
            raise RuntimeError("normal expects all elements of std >= 0.0")
    elif std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std:g}")


def _draw_normal(out, mean, std, generator):
    if out._np is None or out.numel() == 0:
        return out
    m = mean._np if isinstance(mean, Tensor) else mean
    s = std._np if isinstance(std, Tensor) else std
    return _fill_random_ops(out, m + s * _gen(generator).standard_normal(out._size))


def _normal_spec(mean, std):
    ts = [t for t in (mean, std) if isinstance(t, Tensor)]
    shape = bshape(*[t._size for t in ts])
    dt = ts[0].dtype if len(ts) == 1 else result_type(mean, std)
    _float_check(dt, "normal_kernel_cpu")
    _std_check(std)
    return shape, dt, ts[0].device


def _normal(mean, std, generator):
    shape, dt, dev = _normal_spec(mean, std)
    return _draw_normal(empty_tensor(shape, dt, dev), mean, std, generator)


def _normal_out(mean, std, generator, out):
    shape, dt, _ = _normal_spec(mean, std)
    check_out(out, shape, dt, "normal")
    return _draw_normal(out, mean, std, generator)


def normal_Tensor_float(mean, std=1, *, generator=None):
    return _normal(mean, std, generator)


def normal_Tensor_float_out(mean, std=1, *, generator=None, out):
    """torch sizes the draw by broadcasting `mean` with `out`'s current shape (its std tensor is
    empty_like(out)), so an `out` that does not broadcast with `mean` is refused, an empty one included."""
    _, dt, _ = _normal_spec(mean, std)
    check_out(out, bshape(mean._size, out._size), dt, "normal")
    return _draw_normal(out, mean, std, generator)


def normal_float_Tensor(mean, std, *, generator=None):
    return _normal(mean, std, generator)


def normal_float_Tensor_out(mean, std, *, generator=None, out):
    return _normal_out(mean, std, generator, out)


def normal_Tensor_Tensor(mean, std, *, generator=None):
    return _normal(mean, std, generator)


def normal_Tensor_Tensor_out(mean, std, *, generator=None, out):
    return _normal_out(mean, std, generator, out)


def _size(size):
    size = tuple(int(s) for s in size)
    for s in size:
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: [{', '.join(map(str, size))}]")
    return size


def normal_float_float(mean, std, size, *, generator=None, dtype=None, layout=None, device=None, pin_memory=None):
    dt = as_dtype(dtype) or get_default_dtype()
    _float_check(dt, "normal_kernel_cpu")
    _std_check(std)
    out = empty_tensor(_size(size), dt, as_device(device) or as_device("cpu"))
    return _draw_normal(out, mean, std, generator)


def normal_float_float_out(mean, std, size, *, generator=None, out):
    _std_check(std)
    check_out(out, _size(size), out.dtype, "normal", resize=resize_silently)
    return _draw_normal(out, mean, std, generator)


def _multinomial_check(self, num_samples, replacement):
    if not self.dtype.is_floating_point:
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got: {_tname(self.dtype)}")
    if self.dim() not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    n_cat = self._size[-1]
    if not replacement and num_samples > n_cat:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    if n_cat > 2 ** 24:
        raise RuntimeError("number of categories cannot exceed 2^24")
    return self._size[:-1] + (num_samples,)


def _multinomial_draw(p, num_samples, replacement, rng):
    """Rows of p (2-d) -> (rows, num_samples) category indices. With replacement: one searchsorted of uniforms
    against row-offset CDFs; without: the top num_samples of p / Exp(1) keys (torch's algorithm)."""
    p = p.astype(np.float64)
    if not np.isfinite(p).all() or (p < 0).any():
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    total = p.sum(-1)
    if (total <= 0).any():
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    rows, n = p.shape
    if replacement:
        cdf = np.cumsum(p, -1)
        cdf = cdf / cdf[:, -1:]
        offs = 2.0 * np.arange(rows)[:, None]
        u = rng.random((rows, num_samples)) + offs
        idx = np.searchsorted((cdf + offs).reshape(-1), u.reshape(-1), side="right").reshape(rows, num_samples)
        return np.minimum(idx - n * np.arange(rows)[:, None], n - 1)
    keys = p / rng.exponential(1.0, p.shape)
    return np.argsort(-keys, axis=-1, kind="stable")[:, :num_samples]


def multinomial(self, num_samples, replacement=False, *, generator=None):
    shape = _multinomial_check(self, num_samples, replacement)
    out = empty_tensor(shape, D.int64, self.device)
    if self._np is None:
        return out
    return _fill_random_ops(out, _multinomial_draw(self._np.reshape(-1, self._size[-1]), num_samples, replacement,
                                        _gen(generator)).reshape(shape))


def multinomial_out(self, num_samples, replacement=False, *, generator=None, out):
    r = multinomial(self, num_samples, replacement, generator=generator)
    check_out(out, r._size, r.dtype, "multinomial", resize=resize_silently)
    if out._np is not None and r.numel():
        out._np[...] = r._np
    return out


def exponential_(self, lambd=1, *, generator=None):
    _continuous_check(self, "Exponential")
    if not lambd > 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd:g}")
    if self._np is None:
        return self
    return _fill_random_ops(self, _gen(generator).exponential(1.0 / lambd, self._size))


def geometric_(self, p, *, generator=None):
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={p:g}")
    if self._np is None:
        return self
    return _fill_random_ops(self, _gen(generator).geometric(p, self._size))


def log_normal_(self, mean=1, std=2, *, generator=None):
    _float_check(self.dtype, "log_normal_cpu")
    if not std > 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={std:g}")
    if self._np is None:
        return self
    return _fill_random_ops(self, _gen(generator).lognormal(mean, std, self._size))


def cauchy_(self, median=0, sigma=1, *, generator=None):
    _continuous_check(self, "Cauchy", long_name=True)
    if not sigma > 0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={sigma:g}")
    if self._np is None:
        return self
    return _fill_random_ops(self, median + sigma * _gen(generator).standard_cauchy(self._size))


def poisson(self, generator=None):
    _float_check(self.dtype, "poisson_cpu")
    out = empty_tensor(self._size, self.dtype, self.device)
    if self._np is None or self.numel() == 0:
        return out
    if (self._np < 0).any():
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    return _fill_random_ops(out, _gen(generator).poisson(self._np.astype(np.float64)))
