"""OpInfo entries of the random ops (torch's common_methods_invocations.py op_db, this family's part)."""
import numpy as np

from ._common import A, N_STAT, S, _RAND, _info


def _tile_rows(row, dt, n=N_STAT):
    return np.ascontiguousarray(np.broadcast_to(np.asarray(row, dtype=dt), (n, len(row))))


def _normal(dt):
    return [S(A((3, 4), dt), 0.5), S(2.0, A((4,), dt, 0.5, 2.0, seed=1)),
            S(A((2, 3), dt), A((2, 3), dt, 0.5, 2.0, seed=1)), S(0.0, 2.0, (3, 4))]


def _normal_stat(dt):
    return [S(_tile_rows([0.0, 10.0, -5.0], dt), 0.5), S(1.0, _tile_rows([0.5, 3.0], dt)), S(-1.0, 2.0, (N_STAT, 1))]


def _fill_inplace(*args, **kw):
    return lambda dt: [S(A((3, 4), dt), *args, **kw), S(A((2, 3, 2), dt), *args, **kw), S(A((0, 3), dt), *args, **kw)]


def _fill_stat(*args, **kw):
    return lambda op, dt: [S(np.zeros((N_STAT, 2), dt), *args, **kw)]


def _bernoulli(dt):
    return [S(A((3, 4), dt, 0.0, 1.0)), S(A((2, 3, 2), dt, 0.0, 1.0, seed=1)), S(A((0, 2), dt, 0.0, 1.0))]


def _bernoulli_p(dt):      # bernoulli.p has no out= overload (in torch neither)
    return [S(A((2, 5), dt, 0.0, 1.0, seed=1), 0.3), S(A((3, 4), dt, 0.0, 1.0), 0.8)]


def _multinomial(dt):
    return [S(A((6,), dt, 0.1, 1.0), 4), S(A((3, 5), dt, 0.1, 1.0), 7, True), S(A((2, 6), dt, 0.0, 1.0, seed=1), 6)]


def _multinomial_stat(op, dt):
    return [S(_tile_rows([0.2, 0.0, 0.8, 1.0], dt), 1), S(_tile_rows([1.0, 2.0, 3.0, 4.0], dt, 20_000), 3)]


def _sizes(dt):
    return [S((3, 4)), S((2, 0)), S(())]


def _like(*args):
    return lambda dt: [S(A((3, 4), dt), *args), S(A((0, 2), dt), *args), S(A((), dt), *args)]


_FACTORY = dict(supports_generator=True, **_RAND)


op_db = [
    # factories and *_like (default dtypes: float32, int64); torch's own moments are the reference
    _info("rand", _sizes, dtypes=("float32",), supports_out=True, stat_inputs_func=lambda op, dt: [S((N_STAT, 2))],
          **_FACTORY),
    _info("randn", _sizes, dtypes=("float32",), supports_out=True, stat_inputs_func=lambda op, dt: [S((N_STAT, 2))],
          **_FACTORY),
    _info("randint", lambda dt: [S(10, (3, 4)), S(-5, 5, (2, 3)), S(3, (0,))], dtypes=("int64",), supports_out=True,
          stat_inputs_func=lambda op, dt: [S(7, (N_STAT, 2)), S(-4, 9, (N_STAT, 1))], **_FACTORY),
    _info("randperm", lambda dt: [S(7), S(1), S(0)], dtypes=("int64",), supports_out=True, **_FACTORY),
    _info("rand_like", _like(), stat_inputs_func=lambda op, dt: [S(np.zeros((N_STAT, 2), dt))], **_FACTORY),
    _info("randn_like", _like(), stat_inputs_func=lambda op, dt: [S(np.zeros((N_STAT, 2), dt))], **_FACTORY),
    _info("randint_like", _like(10), dtypes=("float32", "int64"),
          stat_inputs_func=lambda op, dt: [S(np.zeros((N_STAT, 2), dt), 6)], **_FACTORY),
    _info("randint_like", _like(-3, 4), dtypes=("float32", "int64"), **_FACTORY),
    _info("Tensor.random_", lambda dt: [S(A((3, 4), dt), 0, 10), S(A((3, 4), dt), 10), S(A((2, 3), dt)),
                                        S(A((0, 3), dt), 5)], dtypes=("float32", "int64"),
          torch_name="Tensor.random_", aten_name="random_",
          stat_inputs_func=lambda op, dt: [S(np.zeros((N_STAT, 2), dt), -2, 5)], **_FACTORY),

    _info("normal", _normal, supports_out=True, supports_generator=True, stat_inputs_func=lambda op, dt: _normal_stat(dt),
          **_RAND),
    _info("Tensor.uniform_", _fill_inplace(-1.0, 2.0), torch_name="Tensor.uniform_", aten_name="uniform_",
          supports_generator=True, stat_inputs_func=_fill_stat(-1.0, 2.0), **_RAND),
    _info("Tensor.normal_", _fill_inplace(1.0, 3.0), torch_name="Tensor.normal_", aten_name="normal_",
          supports_generator=True, stat_inputs_func=_fill_stat(1.0, 3.0), **_RAND),
    _info("Tensor.exponential_", _fill_inplace(2.0), torch_name="Tensor.exponential_", aten_name="exponential_",
          supports_generator=True, stat_inputs_func=_fill_stat(0.5), **_RAND),
    _info("bernoulli", _bernoulli, supports_out=True, supports_generator=True,
          stat_inputs_func=lambda op, dt: [S(_tile_rows([0.1, 0.5, 0.9], dt))], **_RAND),
    _info("bernoulli", _bernoulli_p, supports_generator=True,
          stat_inputs_func=lambda op, dt: [S(np.zeros((N_STAT, 1), dt), 0.3)], **_RAND),
    _info("multinomial", _multinomial, supports_out=True, supports_generator=True, stat_inputs_func=_multinomial_stat,
          **_RAND),
]
