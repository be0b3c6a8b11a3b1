"""Forward-mode AD through the nn ops (conv, batch/layer/group norm, pooling, losses, ...): the
tangent of every nn call of the gradgrad list and of the nn OpInfos against central finite
differences, and against torch.func.jvp."""
import numpy as np
import pytest

import ember
import ember.autograd.forward_ad as fwAD
from ember.testing._op_db_nn import op_db_nn
from ember.testing._opinfo import resolve

from .test_op_db_gradgrad import NN_CASES, NO_TORCH_PARITY, XFAIL, _ember_T, _nn_samples, _split


def _t(a):
    return ember.tensor(np.asarray(a).tolist(), dtype=ember.float64)


def _jvp(f, arrays, tangents):
    with fwAD.dual_level():
        duals = [fwAD.make_dual(_t(a), _t(t)) for a, t in zip(arrays, tangents)]
        p, t = fwAD.unpack_dual(f(*duals))
        return p.detach().numpy(), (np.zeros(tuple(p.shape)) if t is None else t.detach().numpy())


def _finite_difference(f, arrays, tangents, eps=1e-6):
    plus = f(*[_t(a + eps * t) for a, t in zip(arrays, tangents)]).numpy()
    minus = f(*[_t(a - eps * t) for a, t in zip(arrays, tangents)]).numpy()
    return (plus - minus) / (2 * eps)


def _tangents(arrays):
    rng = np.random.default_rng(5)
    return [rng.standard_normal(a.shape) for a in arrays]


def _case(name):
    marks = [pytest.mark.xfail(reason=XFAIL[name], strict=False)] if name in XFAIL else []
    return pytest.param(name, id=name, marks=marks)


def _ember_case(name):
    fn, arrays = NN_CASES[name]
    return (lambda *xs: fn(ember, ember.nn.functional, _ember_T, *xs)), arrays


@pytest.mark.parametrize("name", [_case(n) for n in NN_CASES])
def test_nn_jvp_matches_finite_differences(name):
    f, arrays = _ember_case(name)
    ts = _tangents(arrays)
    _, t = _jvp(f, arrays, ts)
    np.testing.assert_allclose(t, _finite_difference(f, arrays, ts), rtol=1e-5, atol=1e-6)


@pytest.mark.parity
@pytest.mark.parametrize("name", [_case(n) for n in NN_CASES if n not in NO_TORCH_PARITY or n == "embedding_scale_grad_by_freq"])
def test_nn_jvp_matches_torch(name):
    torch = pytest.importorskip("torch")
    fn, arrays = NN_CASES[name]
    f, _ = _ember_case(name)
    ts = _tangents(arrays)
    p, t = _jvp(f, arrays, ts)
    tp, tt = torch.func.jvp(lambda *xs: fn(torch, torch.nn.functional, torch.from_numpy, *xs),
                            tuple(torch.tensor(a) for a in arrays), tuple(torch.tensor(v) for v in ts))
    np.testing.assert_allclose(p, tp.detach().numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(t, tt.detach().numpy(), rtol=1e-8, atol=1e-10)


def _db_fn(op, s, lib=None):
    build, _ = _split(s)
    fn = op.op if lib is None else resolve(lib, op.torch_name)

    def f(*ts):
        x, args, kw = build(None, ts)
        r = fn(x, *args, **kw)
        return r[0] if isinstance(r, tuple) else r
    return f


@pytest.mark.parametrize("op", [pytest.param(op, id=op.name) for op in op_db_nn if "float64" in op.dtypes])
def test_op_db_nn_jvp(op):
    torch = None
    try:
        import torch
    except ImportError:
        pass
    ran = 0
    for s in _nn_samples(op):
        arrays = s.arrays()
        f = _db_fn(op, s)
        ts = _tangents(arrays)
        p, t = _jvp(f, arrays, ts)
        np.testing.assert_allclose(t, _finite_difference(f, arrays, ts), rtol=1e-5, atol=1e-6, err_msg=repr(s))
        if torch is not None:
            try:
                _, tt = torch.func.jvp(_db_fn(op, s, torch), tuple(torch.tensor(a) for a in arrays),
                                       tuple(torch.tensor(v) for v in ts))
            except NotImplementedError:      # torch has no forward AD here (sdpa's flash kernel)
                tt = None
            if tt is not None:
                np.testing.assert_allclose(t, tt.detach().numpy(), rtol=1e-8, atol=1e-10, err_msg=repr(s))
        ran += 1
    if not ran:
        pytest.skip("no float64 sample")
