"""Random sampling ops (normal overloads, multinomial, exponential_/geometric_/log_normal_/cauchy_, poisson):
numpy draws from the given (or default) ember.Generator's PCG64 stream, so every result is reproducible from
ember.manual_seed. Registered CompositeExplicitAutograd: on meta tensors the same code checks arguments and
returns shapes without drawing. Streams differ from torch's; distributions and errors match."""
import numpy as np

from ..._core import dtype as D
from ..._core.device import as_device
from ..._core.promotion import get_default_dtype, result_type
from ..._random import _gen
from ..._core.tensor_impl import TensorImpl as Tensor
from ..common import _tname, as_dtype, check_out, empty_tensor
from ..meta.index import bshape


def _fill(t, values):
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
    return _fill(out, m + s * _gen(generator).standard_normal(out._size))


# ------------------------------------------------------------------ normal overloads
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
    return _normal_out(mean, std, generator, out)


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
    check_out(out, _size(size), out.dtype, "normal")
    return _draw_normal(out, mean, std, generator)


# ------------------------------------------------------------------ multinomial
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
    return _fill(out, _multinomial_draw(self._np.reshape(-1, self._size[-1]), num_samples, replacement,
                                        _gen(generator)).reshape(shape))


def multinomial_out(self, num_samples, replacement=False, *, generator=None, out):
    r = multinomial(self, num_samples, replacement, generator=generator)
    check_out(out, r._size, r.dtype, "multinomial")
    if out._np is not None and r.numel():
        out._np[...] = r._np
    return out


# ------------------------------------------------------------------ in-place distributions (validate, then write)
def exponential_(self, lambd=1, *, generator=None):
    _continuous_check(self, "Exponential")
    if not lambd > 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd:g}")
    if self._np is None:
        return self
    return _fill(self, _gen(generator).exponential(1.0 / lambd, self._size))


def geometric_(self, p, *, generator=None):
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={p:g}")
    if self._np is None:
        return self
    return _fill(self, _gen(generator).geometric(p, self._size))


def log_normal_(self, mean=1, std=2, *, generator=None):
    _float_check(self.dtype, "log_normal_cpu")
    if not std > 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={std:g}")
    if self._np is None:
        return self
    return _fill(self, _gen(generator).lognormal(mean, std, self._size))


def cauchy_(self, median=0, sigma=1, *, generator=None):
    _continuous_check(self, "Cauchy", long_name=True)
    if not sigma > 0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={sigma:g}")
    if self._np is None:
        return self
    return _fill(self, median + sigma * _gen(generator).standard_cauchy(self._size))


def poisson(self, generator=None):
    _float_check(self.dtype, "poisson_cpu")
    out = empty_tensor(self._size, self.dtype, self.device)
    if self._np is None or self.numel() == 0:
        return out
    if (self._np < 0).any():
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    return _fill(out, _gen(generator).poisson(self._np.astype(np.float64)))
