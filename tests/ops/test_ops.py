"""The generic op test: every OpInfo in ember.testing.op_db through cpu-vs-reference, meta agreement,
out=, in-place, non-contiguous inputs and parity with torch 2.13. Random ops (OpInfo.randomness) are
checked for seeding, shapes/strides and moments instead of values; samples listed in OpInfo.known_bugs
run as strict xfails."""
import contextlib
import warnings

import numpy as np
import pytest

import ember
from ember.testing import assert_close, op_db
from ember.testing._opinfo import resolve

CASES = [pytest.param(op, dt, id=f"{op.name}-{dt}") for op in op_db for dt in op.dtypes]


def _flat(r):
    return list(r) if isinstance(r, tuple) else [r]


def _ember(a):
    return ember.from_numpy(np.array(a, copy=True))


def _noncontig(a):
    big = np.zeros(a.shape + (2,), a.dtype)
    big[..., 0] = a
    return ember.from_numpy(big).select(-1, 0)


def _meta(t):
    return ember.empty_strided(t.shape, t.stride(), dtype=t.dtype, device="meta")


@contextlib.contextmanager
def _seeded(op, seed=1234):
    """Random ops run under a fixed seed, so two calls (contiguous or not, out= or not) draw the same values."""
    if op.randomness:
        ember.manual_seed(seed)
    yield


def _call(op, sample, conv, seed=1234, **extra):
    x, args, kw = sample.convert(conv)
    with warnings.catch_warnings(), _seeded(op, seed):
        warnings.simplefilter("ignore")
        return op.op(x, *args, **kw, **extra)


def _tol(op):
    return {} if op.rtol is None else {"rtol": op.rtol, "atol": op.atol}


def _run(fn):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(), None
    except Exception as e:  # noqa: BLE001
        return None, e


# ---------------------------------------------------------------- one check on one sample
def check_reference(op, s):
    got = _call(op, s, _ember)
    with np.errstate(all="ignore"):
        want = op.ref(s.input, *s.args, **s.kwargs)
    for g, w in zip(_flat(got), want if isinstance(want, tuple) else [want]):
        w = np.asarray(w)
        assert tuple(g.shape) == w.shape, (s, g.shape, w.shape)
        rt, at = ember.testing.default_tolerances(g.dtype)
        g = g.resolve_conj()          # ifft of a real input is a conjugate view, as torch's
        assert_close(g.numpy(), w.astype(g.numpy().dtype), rtol=max(rt, 1e-5), atol=max(at, 1e-5),
                     equal_nan=True, check_dtype=False, msg=None)


def check_meta(op, s):
    if not s.arrays():
        return                    # a factory sample (normal(0., 1., size)): nothing to put on meta
    got, err = _run(lambda: _call(op, s, _ember))
    m, merr = _run(lambda: _call(op, s, lambda a: _meta(_ember(a))))
    if err is not None:
        assert type(merr) is type(err), (s, err, merr)
        return
    assert merr is None, (s, merr)
    for c, mm in zip(_flat(got), _flat(m)):
        assert mm.device.type == "meta"
        assert (tuple(mm.shape), mm.dtype) == (tuple(c.shape), c.dtype), s
        if c.numel() > 1:
            assert mm.stride() == c.stride(), (s, mm.stride(), c.stride())


def check_noncontiguous(op, s):
    a, err = _run(lambda: _call(op, s, _ember))
    b, err2 = _run(lambda: _call(op, s, _noncontig))
    assert type(err) is type(err2), (s, err, err2)
    if err is None:
        for x, y in zip(_flat(a), _flat(b)):
            assert_close(y, x, equal_nan=True, **_tol(op))


# ops whose out= takes part in the result's shape, so the out tensors are given that shape instead of empty
OUT_OF_RESULT_SHAPE = {
    "normal": "torch's normal(Tensor mean, float std, out=) broadcasts mean with out's own shape: an empty out "
              "is refused",
}


def check_out(op, s):
    r, err = _run(lambda: _call(op, s, _ember))
    if err is not None:
        return
    shaped = op.name in OUT_OF_RESULT_SHAPE
    outs = [ember.empty(tuple(t.shape) if shaped else 0, dtype=t.dtype) for t in _flat(r)]
    x, args, kw = s.convert(_ember)
    with _seeded(op):
        ret = op.op(x, *args, out=outs[0] if len(outs) == 1 else tuple(outs), **kw)
    for o, got, want in zip(outs, _flat(ret), _flat(r)):
        assert got is o
        assert_close(o, want, equal_nan=True)


def _inplace_fn(x, op):
    """The Tensor method when torch has one, else the function (torch.nn's gelu_, elu_, ...)."""
    m = getattr(x, op.inplace_variant, None)
    if m is not None:
        return m
    f = resolve(ember, op.inplace_variant)   # "_nn.gelu_": the python_module nn binding
    return lambda *a, **k: f(x, *a, **k)


def check_inplace(op, s):
    if not isinstance(s.input, np.ndarray):
        return                    # a number or TensorList first argument (float_power(2, x)): no self to write
    r, err = _run(lambda: _call(op, s, _ember))
    x, args, kw = s.convert(_ember)
    if err is not None or r.dtype != x.dtype or tuple(r.shape) != tuple(x.shape):
        before = x.numpy().copy()
        _, e = _run(lambda: _inplace_fn(x, op)(*args, **kw))
        assert e is not None, s
        np.testing.assert_array_equal(x.numpy(), before)     # a failed in-place op leaves self unchanged
        return
    with _seeded(op):
        ret = _inplace_fn(x, op)(*args, **kw)
    assert ret is x
    assert_close(x, r, equal_nan=True)


def _torch_call(torch, op, s):
    tfn = resolve(torch, op.torch_name)
    return _run(lambda: (lambda x, args, kw: tfn(x, *args, **kw))(*s.convert(lambda a: torch.from_numpy(a.copy()))))


def check_parity(op, s):
    torch = pytest.importorskip("torch")
    if s.name in op.skip_parity:
        return
    want, terr = _torch_call(torch, op, s)
    got, err = _run(lambda: _call(op, s, _ember))
    if terr is not None:
        assert err is not None and type(err) is type(terr), (s, terr, err)
        return
    assert err is None, (s, err)
    got, want = _flat(got), _flat(want)
    assert len(got) == len(want), (s, len(got), len(want))
    if op.parity_outputs is not None:
        got, want = [got[i] for i in op.parity_outputs], [want[i] for i in op.parity_outputs]
    for g, w in zip(got, want):
        assert tuple(g.shape) == tuple(w.shape), s
        assert g.dtype.name == str(w.dtype)[6:], (s, g.dtype, w.dtype)
        if op.check_strides and g.numel() > 1:
            assert g.stride() == w.stride(), (s, g.stride(), w.stride())
    if op.randomness:
        return                                # values: see test_random_* (ember's stream is not torch's)
    gn, wn = [g.resolve_conj().numpy() for g in got], [w.resolve_conj().numpy() for w in want]
    if op.output_func is not None:
        gn, wn = op.output_func(gn), op.output_func(wn)
    for g, w in zip(gn, wn):
        assert_close(g, w, equal_nan=True, check_dtype=False,
                     **({"rtol": 1e-5, "atol": 1e-6} if op.rtol is None and w.dtype == np.float32 else _tol(op)))


def _all_checks(op):
    checks = [check_meta] if op.supports_meta else []
    checks += ([] if op.layout_dependent else [check_noncontiguous]) + [check_parity]
    checks += [check_reference] if op.ref is not None else []
    checks += [check_out] if op.supports_out else []
    checks += [check_inplace] if op.inplace_variant else []
    return checks


# ---------------------------------------------------------------- the generic tests
@pytest.mark.parametrize("op,dtype", CASES)
def test_reference(op, dtype):
    if op.ref is None:
        pytest.skip("no numpy reference (covered by the parity test)")
    for s in op.sample_inputs(dtype):
        check_reference(op, s)


@pytest.mark.parametrize("op,dtype", CASES)
def test_meta_matches_cpu(op, dtype):
    if not op.supports_meta:
        pytest.skip("data-dependent output shape")
    for s in op.sample_inputs(dtype):
        check_meta(op, s)


@pytest.mark.parametrize("op,dtype", [c for c in CASES if not c.values[0].layout_dependent])
def test_noncontiguous(op, dtype):
    for s in op.sample_inputs(dtype):
        check_noncontiguous(op, s)


@pytest.mark.parametrize("op,dtype", [c for c in CASES if c.values[0].supports_out])
def test_out(op, dtype):
    for s in op.sample_inputs(dtype):
        check_out(op, s)


@pytest.mark.parametrize("op,dtype", [c for c in CASES if c.values[0].inplace_variant])
def test_inplace(op, dtype):
    for s in op.sample_inputs(dtype):
        check_inplace(op, s)


@pytest.mark.parity
@pytest.mark.parametrize("op,dtype", CASES)
def test_parity(op, dtype):
    pytest.importorskip("torch")
    for s in op.sample_inputs(dtype):
        check_parity(op, s)


KNOWN_BUGS = [pytest.param(op, dt, name, id=f"{op.name}-{dt}-{name}",
                           marks=pytest.mark.xfail(strict=True, reason=reason))
              for op in op_db for dt in op.dtypes for name, reason in op.known_bugs.items()]


@pytest.mark.parametrize("op,dtype,name", KNOWN_BUGS)
def test_known_bugs(op, dtype, name):
    """A sample an op gets wrong today (reason in OpInfo.known_bugs): strict xfail, so the fix must drop the entry."""
    (s,) = [s for s in op.sample_inputs(dtype, include_known_bugs=True) if s.name == name]
    for check in _all_checks(op):
        check(op, s)


# ---------------------------------------------------------------- random ops (OpInfo.randomness)
RANDOM = [c for c in CASES if c.values[0].randomness]


def _values(r):
    return [t.numpy().copy() for t in _flat(r)]


@pytest.mark.parametrize("op,dtype", RANDOM)
def test_random_seeding(op, dtype):
    """Same seed (global or an explicit Generator) -> same values; another seed -> other values."""
    for s in op.sample_inputs(dtype):
        a = _values(_call(op, s, _ember, seed=11))
        b = _values(_call(op, s, _ember, seed=11))
        c = _values(_call(op, s, _ember, seed=12))
        for x, y in zip(a, b):
            np.testing.assert_array_equal(x, y, err_msg=str(s))
        if sum(x.size for x in a) >= 8:
            assert any(not np.array_equal(x, z) for x, z in zip(a, c)), s
        if op.supports_generator:
            g = [_call(op, s, _ember, generator=ember.Generator().manual_seed(n)) for n in (5, 5, 6)]
            ga, gb, gc = (_values(r) for r in g)
            for x, y in zip(ga, gb):
                np.testing.assert_array_equal(x, y, err_msg=str(s))
            if sum(x.size for x in ga) >= 8:
                assert any(not np.array_equal(x, z) for x, z in zip(ga, gc)), s


def _moments(a):
    a = a.astype(np.float64).reshape(a.shape[0], -1) if a.ndim > 1 else a.astype(np.float64).reshape(-1, 1)
    m = a.mean(0)
    v = a.var(0)
    m4 = ((a - m) ** 4).mean(0)
    return m, v, m4, a.shape[0]


@pytest.mark.parity
@pytest.mark.parametrize("op,dtype", [c for c in RANDOM if c.values[0].stat_inputs_func])
def test_random_moments(op, dtype):
    """Per output position over the first (sample) dim: mean and variance agree with torch's within ~6 standard
    errors (each estimated from both samples' own variance and fourth moment)."""
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    for s in op.stat_inputs_func(op, dtype):
        got, want = _flat(_call(op, s, _ember, seed=3)), _flat(_torch_call(torch, op, s)[0])
        for g, w in zip(got, want):
            me, ve, m4e, n = _moments(g.numpy())
            mt, vt, m4t, _ = _moments(w.numpy())
            tol_m = 6 * np.sqrt((ve + vt) / n) + 1e-6
            tol_v = 6 * np.sqrt((np.maximum(m4e - ve ** 2, 0) + np.maximum(m4t - vt ** 2, 0)) / n) + 1e-6
            assert (np.abs(me - mt) <= tol_m).all(), (s, me, mt, tol_m)
            assert (np.abs(ve - vt) <= tol_v).all(), (s, ve, vt, tol_v)
