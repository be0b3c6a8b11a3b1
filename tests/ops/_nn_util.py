"""Helpers for nn op parity tests: the same random data as an ember tensor and a torch tensor."""
import numpy as np

import ember

RNG = np.random.default_rng(0)
DTYPES = [np.float32, np.float64]


def arr(*shape, dtype=np.float32, low=None, high=None):
    if low is not None:
        return RNG.uniform(low, high, shape).astype(dtype)
    return RNG.standard_normal(shape).astype(dtype)


def pair(torch, a):
    """(ember tensor, torch tensor) holding copies of numpy array `a`."""
    if a is None:
        return None, None
    return ember.from_numpy(np.array(a)), torch.from_numpy(np.array(a))


def close(e, t, rtol=None, atol=None):
    """ember result `e` matches torch result `t` in shape, dtype and values."""
    assert tuple(e.shape) == tuple(t.shape), (tuple(e.shape), tuple(t.shape))
    assert str(e.dtype).split(".")[-1] == str(t.dtype).split(".")[-1], (e.dtype, t.dtype)
    ev, tv = e.numpy(), t.detach().numpy()
    if rtol is None:
        rtol = atol = 1e-4 if tv.dtype in (np.float32, np.float16) else 1e-9
    np.testing.assert_allclose(ev, tv, rtol=rtol, atol=atol, equal_nan=True)


def meta_matches(fn, *args, **kw):
    """fn on meta tensors gives the same shape/dtype/strides as on cpu."""
    cpu = fn(*args, **kw)
    margs = [a.to("meta") if isinstance(a, ember.Tensor) else a for a in args]
    mkw = {k: (v.to("meta") if isinstance(v, ember.Tensor) else v) for k, v in kw.items()}
    meta = fn(*margs, **mkw)
    cpus = cpu if isinstance(cpu, tuple) else (cpu,)
    metas = meta if isinstance(meta, tuple) else (meta,)
    for c, m in zip(cpus, metas):
        assert m.device.type == "meta"
        assert tuple(c.shape) == tuple(m.shape) and c.dtype == m.dtype and c.stride() == m.stride()
