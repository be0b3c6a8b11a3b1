"""numpy scalars where a script passes numbers (`x / np.sqrt(d)`, `loss * np.float32(0.5)`, `x.view(n, np.prod(s))`):
torch's argument parser reads them as Python numbers (an integer as an int, a float, numpy.bool_ and complex64
as a float, complex128 as a complex); ember's elementwise kernels raised AttributeError on them and a lone numpy
integer size was taken for a sequence."""
import warnings

import numpy as np
import pytest

import ember

CALLS = ["i + np.bool_(True)", "b + np.bool_(True)", "b * np.bool_(True)", "h + np.bool_(True)", "i * np.float32(2)",
         "h * np.float32(2)", "h * np.float64(2)", "i * np.int8(2)", "lib.ones(2, dtype=lib.int8) * np.int64(1000)",
         "i * np.uint8(2)", "h * np.complex64(1j)", "f / np.sqrt(2.0)", "f + np.float64(1)", "i * np.float64(1.5)",
         "lib.add(f, np.float32(2))", "lib.add(f, f, alpha=np.float32(2))", "f.clone().add_(np.int32(1))",
         "lib.mul(i, np.float16(2.5))", "lib.where(b, f, np.float32(2))", "f ** np.float32(2)", "np.float32(2) * f",
         "np.float32(2) - f", "np.float32(2) / f", "np.int64(2) ** f", "i == np.int64(1)", "f > np.float32(0)",
         "f.view(np.int64(2))", "f.view(np.int64(2), np.int64(1))", "f.reshape(np.int32(2))", "f.expand(np.int64(2))",
         "f.repeat(np.int64(2))", "lib.zeros(np.int64(2), np.int32(3))", "f.pow(np.float32(2))",
         "f.clone().mul_(np.float32(2))", "f.div(np.int64(2))", "i // np.int64(2)", "i % np.int32(2)",
         "i & np.int64(3)", "i << np.int64(1)", "np.int64(5) - i", "lib.sub(f, np.float32(1), out=lib.empty(2))",
         "f.clone().sub_(np.bool_(True))", "lib.rsub(f, np.float64(3))", "f.unsqueeze(np.int64(0))",
         "lib.ones(6).view(2, 3).permute(np.int64(1), 0)", "lib.randn(np.int64(3)).shape"]


def _outcome(lib, call):
    env = dict(np=np, lib=lib, i=lib.tensor([1, 2]), f=lib.tensor([1.5, 2.0]),
               h=lib.ones(2, dtype=lib.float16), b=lib.tensor([True, False]))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = eval(call, env)
    except Exception as e:      # noqa: BLE001 - the exception type and message are what is compared
        return type(e).__name__, str(e)
    if isinstance(r, lib.Size):
        return list(r)
    return str(r.dtype).split(".")[-1], list(r.shape), r.tolist()


@pytest.mark.parity
@pytest.mark.parametrize("call", CALLS)
def test_numpy_scalars_read_as_torch_reads_them(call):
    torch = pytest.importorskip("torch")
    assert _outcome(ember, call) == _outcome(torch, call)


def test_numpy_float_scalar_in_a_training_step():
    """The tutorial pattern: scaled dot-product scores divided by np.sqrt(d), a loss scaled by a numpy float."""
    q = ember.randn(2, 4, 8, requires_grad=True)
    scores = q @ q.transpose(1, 2) / np.sqrt(8)
    loss = scores.softmax(-1).sum() * np.float32(0.5)
    loss.backward()
    assert loss.dtype is ember.float32 and q.grad.shape == q.shape
