"""The generic op test: every OpInfo in ember.testing.op_db through cpu-vs-reference, meta agreement,
out=, in-place, non-contiguous inputs and parity with torch 2.13."""
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


def _call(op, sample, conv):
    x, args, kw = sample.convert(conv)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return op.op(x, *args, **kw)


def _tol(op):
    return {} if op.rtol is None else {"rtol": op.rtol, "atol": op.atol}


def _run(fn):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(), None
    except Exception as e:  # noqa: BLE001
        return None, e


@pytest.mark.parametrize("op,dtype", CASES)
def test_reference(op, dtype):
    if op.ref is None:
        pytest.skip("no numpy reference (covered by the parity test)")
    for s in op.sample_inputs(dtype):
        got = _call(op, s, _ember)
        with np.errstate(all="ignore"):
            want = op.ref(s.input, *s.args, **s.kwargs)
        for g, w in zip(_flat(got), want if isinstance(want, tuple) else [want]):
            w = np.asarray(w)
            assert tuple(g.shape) == w.shape, (s, g.shape, w.shape)
            rt, at = ember.testing.default_tolerances(g.dtype)
            assert_close(g.numpy(), w.astype(g.numpy().dtype), rtol=max(rt, 1e-5), atol=max(at, 1e-5),
                         equal_nan=True, check_dtype=False, msg=None)


@pytest.mark.parametrize("op,dtype", CASES)
def test_meta_matches_cpu(op, dtype):
    if not op.supports_meta:
        pytest.skip("data-dependent output shape")
    for s in op.sample_inputs(dtype):
        got, err = _run(lambda: _call(op, s, _ember))
        m, merr = _run(lambda: _call(op, s, lambda a: _meta(_ember(a))))
        if err is not None:
            assert type(merr) is type(err), (s, err, merr)
            continue
        assert merr is None, (s, merr)
        for c, mm in zip(_flat(got), _flat(m)):
            assert mm.device.type == "meta"
            assert (tuple(mm.shape), mm.dtype) == (tuple(c.shape), c.dtype), s
            if c.numel() > 1:
                assert mm.stride() == c.stride(), (s, mm.stride(), c.stride())


@pytest.mark.parametrize("op,dtype", CASES)
def test_noncontiguous(op, dtype):
    for s in op.sample_inputs(dtype):
        a, err = _run(lambda: _call(op, s, _ember))
        b, err2 = _run(lambda: _call(op, s, _noncontig))
        assert type(err) is type(err2), (s, err, err2)
        if err is None:
            for x, y in zip(_flat(a), _flat(b)):
                assert_close(y, x, equal_nan=True, **_tol(op))


@pytest.mark.parametrize("op,dtype", [c for c in CASES if c.values[0].supports_out])
def test_out(op, dtype):
    for s in op.sample_inputs(dtype):
        r, err = _run(lambda: _call(op, s, _ember))
        if err is not None:
            continue
        out = ember.empty(0, dtype=r.dtype)
        x, args, kw = s.convert(_ember)
        ret = op.op(x, *args, out=out, **kw)
        assert ret is out
        assert_close(out, r, equal_nan=True)


def _inplace_fn(x, op):
    """The Tensor method when torch has one, else the function (torch.nn's gelu_, elu_, ...)."""
    m = getattr(x, op.inplace_variant, None)
    if m is not None:
        return m
    f = resolve(ember, op.inplace_variant)   # "_nn.gelu_": the python_module nn binding
    return lambda *a, **k: f(x, *a, **k)


@pytest.mark.parametrize("op,dtype", [c for c in CASES if c.values[0].inplace_variant])
def test_inplace(op, dtype):
    for s in op.sample_inputs(dtype):
        r, err = _run(lambda: _call(op, s, _ember))
        x, args, kw = s.convert(_ember)
        if err is not None or r.dtype != x.dtype or tuple(r.shape) != tuple(x.shape):
            before = x.numpy().copy()
            _, e = _run(lambda: _inplace_fn(x, op)(*args, **kw))
            assert e is not None, s
            np.testing.assert_array_equal(x.numpy(), before)     # a failed in-place op leaves self unchanged
            continue
        ret = _inplace_fn(x, op)(*args, **kw)
        assert ret is x
        assert_close(x, r, equal_nan=True)


def _torch_dtype(torch, d):
    return getattr(torch, d.name)


@pytest.mark.parity
@pytest.mark.parametrize("op,dtype", CASES)
def test_parity(op, dtype):
    torch = pytest.importorskip("torch")
    tfn = resolve(torch, op.torch_name)
    for s in op.sample_inputs(dtype):
        if s.name in op.skip_parity:
            continue
        want, terr = _run(lambda: (lambda x, args, kw: tfn(x, *args, **kw))(*s.convert(lambda a: torch.from_numpy(a.copy()))))
        got, err = _run(lambda: _call(op, s, _ember))
        if terr is not None:
            assert err is not None and type(err) is type(terr), (s, terr, err)
            continue
        assert err is None, (s, err)
        for g, w in zip(_flat(got), _flat(want)):
            assert tuple(g.shape) == tuple(w.shape), s
            assert g.dtype is _torch_dtype(ember, w.dtype) if False else g.dtype.name == str(w.dtype)[6:], (s, g.dtype, w.dtype)
            if op.check_strides and g.numel() > 1:
                assert g.stride() == w.stride(), (s, g.stride(), w.stride())
            wn = w.numpy()
            assert_close(g.numpy(), wn, equal_nan=True, check_dtype=False,
                         **({"rtol": 1e-5, "atol": 1e-6} if op.rtol is None and wn.dtype == np.float32 else _tol(op)))
