"""The elementwise kernels' small no-grad path (kernels/cpu/elementwise.py make_binary: two same-dtype same-shape
(or 0-d other) contiguous tensors, or a floating tensor and a Python number, one ufunc call, the result made inline) against
torch: values, dtypes, shapes and strides as the general path gives them, and every case it must leave to the
general path (bool subtraction's error, alpha, broadcasting, strided operands, inference mode); a 0-d
other of self's dtype broadcasts on the small path."""
import numpy as np
import pytest

import ember
from ember._core.tensor_impl import TensorImpl

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.parity

_OPS = ["add", "sub", "mul", "div", "eq", "ne", "lt", "le", "gt", "ge"]
_DTYPES = ["float32", "float64", "float16", "int64", "int32", "uint8", "bool"]


def _pair(mod, dt, shape):
    x = np.arange(1, 1 + int(np.prod(shape))).reshape(shape) % 5
    y = (np.arange(int(np.prod(shape))).reshape(shape) * 3) % 7
    return (mod.tensor(x.tolist(), dtype=getattr(mod, dt)), mod.tensor(y.tolist(), dtype=getattr(mod, dt)))


def _same(e, t):
    assert str(e.dtype) == str(t.dtype).replace("torch.", "ember.")
    assert tuple(e.shape) == tuple(t.shape) and e.stride() == t.stride()
    np.testing.assert_array_equal(e.numpy(), t.numpy())


@pytest.mark.parametrize("op", _OPS)
@pytest.mark.parametrize("dt", _DTYPES)
@pytest.mark.parametrize("shape", [(4,), (), (2, 3)])
def test_two_tensors_match_torch(op, dt, shape):
    (ea, eb), (ta, tb) = _pair(ember, dt, shape), _pair(torch, dt, shape)
    try:
        t = getattr(torch, op)(ta, tb)
    except RuntimeError as err:          # bool subtraction
        with pytest.raises(RuntimeError, match=str(err)[:40]):
            getattr(ember, op)(ea, eb)
        return
    _same(getattr(ember, op)(ea, eb), t)


@pytest.mark.parametrize("op", _OPS)
@pytest.mark.parametrize("dt", ["float32", "float64", "float16", "int64"])
@pytest.mark.parametrize("number", [2, 0.5, -3, 1e30])
def test_tensor_and_number_match_torch(op, dt, number):
    (ea, _), (ta, _) = _pair(ember, dt, (2, 2)), _pair(torch, dt, (2, 2))
    with np.errstate(all="ignore"):
        _same(getattr(ember, op)(ea, number), getattr(torch, op)(ta, number))


@pytest.mark.parametrize("op", _OPS)
@pytest.mark.parametrize("dt", _DTYPES)
@pytest.mark.parametrize("shape", [(4,), (2, 3), (0, 3)])
def test_a_0dim_other_matches_torch(op, dt, shape):
    """A 0-d other of self's dtype (the crf tagger's `alpha + x[t, k]`, `score - m`) on the small path: the
    result broadcasts to self's shape and strides, also for a 0-d view at an offset and a transposed self."""
    (ea, _), (ta, _) = _pair(ember, dt, shape), _pair(torch, dt, shape)
    (_, eb), (_, tb) = _pair(ember, dt, (2, 3)), _pair(torch, dt, (2, 3))
    pairs = [(ea, eb[1, 2], ta, tb[1, 2]), (ea, eb.sum().to(eb.dtype), ta, tb.sum().to(tb.dtype))]
    if len(shape) == 2:
        pairs.append((ea.t(), eb[0, 1], ta.t(), tb[0, 1]))
    for x, y, u, v in pairs:
        try:
            t = getattr(torch, op)(u, v)
        except RuntimeError as err:          # bool subtraction
            with pytest.raises(RuntimeError, match=str(err)[:40]):
                getattr(ember, op)(x, y)
            continue
        _same(getattr(ember, op)(x, y), t)


@pytest.mark.parametrize("op", ["add", "sub"])
def test_alpha_and_strided_and_broadcast_operands_match_torch(op):
    (ea, eb), (ta, tb) = _pair(ember, "float32", (3, 4)), _pair(torch, "float32", (3, 4))
    _same(getattr(ember, op)(ea, eb, alpha=2), getattr(torch, op)(ta, tb, alpha=2))
    _same(getattr(ember, op)(ea.t(), eb.t()), getattr(torch, op)(ta.t(), tb.t()))
    _same(getattr(ember, op)(ea.t(), eb.t().contiguous()), getattr(torch, op)(ta.t(), tb.t().contiguous()))
    _same(getattr(ember, op)(ea, eb[:1]), getattr(torch, op)(ta, tb[:1]))
    _same(getattr(ember, op)(ea, eb.double()), getattr(torch, op)(ta, tb.double()))


def test_inference_mode_result_is_an_inference_tensor():
    (ea, eb), (ta, tb) = _pair(ember, "float32", (4,)), _pair(torch, "float32", (4,))
    with ember.inference_mode(), torch.inference_mode():
        e, t = ea + eb, ta + tb
    assert e.is_inference() and t.is_inference()
    _same(e, t)


def test_a_dense_array_in_another_order_keeps_its_strides():
    """TensorImpl's invariant: `_stride` None means a c-contiguous `_np` (the small path reads it instead of
    numpy's flags), so wrapping a dense Fortran-order result records its strides."""
    arr = np.asfortranarray(np.arange(12, dtype=np.float32).reshape(3, 4))
    e = TensorImpl._wrap_np(arr)
    assert e._stride == (1, 3)
    t = torch.from_numpy(arr.copy(order="F"))
    _same(e + e, t + t)
    _same(e * 2.0, t * 2.0)
