"""Reflected operators (`1 + a`, `1 - a`, `2 * a`, `1 / a`, `2 ** a`, ...) against torch: which function a
TorchFunctionMode sees (the binding for the operators torch's C TensorBase defines, Tensor.__r*__ for the ones
torch/_tensor.py writes), `1 / a` computed as a.reciprocal() * 1 (its bits), and a TypeError turned into
Python's own "unsupported operand" error."""
import numpy as np
import pytest

import ember

OPS = {
    "1 + a": lambda L, a, i: 1 + a, "2 * a": lambda L, a, i: 2 * a, "1 - a": lambda L, a, i: 1 - a,
    "1 / a": lambda L, a, i: 1 / a, "3 / a": lambda L, a, i: 3 / a, "2 ** a": lambda L, a, i: 2 ** a,
    "1 // a": lambda L, a, i: 1 // a, "1 % a": lambda L, a, i: 1 % a, "1 & i": lambda L, a, i: 1 & i,
    "1 | i": lambda L, a, i: 1 | i, "1 ^ i": lambda L, a, i: 1 ^ i, "1 << i": lambda L, a, i: 1 << i,
    "1 >> i": lambda L, a, i: 1 >> i,
}


def _seen(L, op):
    mode_base = L.overrides.TorchFunctionMode
    seen = []

    class Mode(mode_base):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            name = func.__name__
            seen.append((name, getattr(L.Tensor, name, None) is func, [type(x).__name__ for x in args]))
            return func(*args, **(kwargs or {}))

    a, i = L.tensor([1.5, 2.0]), L.tensor([1, 2])
    with Mode():
        r = OPS[op](L, a, i)
    return seen, r.tolist(), str(r.dtype).split(".")[1]


@pytest.mark.parity
@pytest.mark.parametrize("op", sorted(OPS))
def test_mode_sees_torchs_function(op):
    torch = pytest.importorskip("torch")
    assert _seen(ember, op) == _seen(torch, op)


@pytest.mark.parity
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_number_over_tensor_is_reciprocal_times_number(dtype):
    torch = pytest.importorskip("torch")
    x = np.random.default_rng(0).random(4096).astype(dtype) + 0.5
    want = (3 / torch.from_numpy(x)).numpy()
    got = (3 / ember.from_numpy(x)).numpy()
    assert got.tobytes() == want.tobytes()
    assert (ember.tensor([1, 2]) .__rtruediv__(3)).tolist() == (torch.tensor([1, 2]).__rtruediv__(3)).tolist()


@pytest.mark.parity
@pytest.mark.parametrize("expr", ["'s' + a", "None * a", "'s' - a", "None / a", "None ** a", "[1] @ a"])
def test_type_errors_become_pythons(expr):
    torch = pytest.importorskip("torch")
    msgs = []
    for L in (torch, ember):
        with pytest.raises(TypeError) as e:
            eval(expr, {"a": L.ones(2)})
        msgs.append(str(e.value).replace("ember.", "torch."))
    assert msgs[0] == msgs[1]


def test_plain_calls_skip_the_protocol_after_a_subclass():
    """A Tensor subclass taking part in the protocol sets the flag for good; plain-tensor calls still pass it by."""
    class Sub(ember.Tensor):
        pass
    from ember._core import torch_function as tf
    assert tf.TF_ACTIVE[0]
    calls = []
    real = tf.bound

    def spy(*args):
        calls.append(args[-1])
        return real(*args)
    import ember._generated.variable_methods.elementwise as m
    old = m._tf_bound
    m._tf_bound = spy
    try:
        a = ember.ones(2)
        a.add(a)
        assert calls == []
        a.add(a.as_subclass(Sub))
        assert calls and set(calls) == {"ember.Tensor.add"}     # (the default __torch_function__ calls again)
    finally:
        m._tf_bound = old


def test_linear_keeps_the_subclass_once_mm_is_warm():
    """F.linear's direct path (no dispatch once mm's cache holds the cpu kernel) left the protocol out: a subclass
    input came back a plain Tensor depending on what ran before."""
    x, w = ember.ones(2, 4), ember.ones(3, 4)
    ember.nn.functional.linear(x, w)
    ember.mm(x, w.t())

    class Sub(ember.Tensor):
        pass
    s = x.as_subclass(Sub)
    assert type(ember.nn.functional.linear(s, w)) is Sub
    assert type(ember.nn.functional.linear(s, w, ember.ones(3))) is Sub
    assert type(ember.nn.functional.linear(x, w)) is ember.Tensor
