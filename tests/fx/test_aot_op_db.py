"""Every differentiable op of the op database through aot_function (joint graph, functionalization,
partition, compiled autograd.Function): outputs and input gradients equal eager. Ops that cannot go
through are listed with the reason and must fail that way."""
import pytest

import ember
from ember._functorch.aot_autograd import aot_function, nop
from ember._subclasses.fake_tensor import DataDependentOutputException, DynamicOutputShapeException
from ember.testing import assert_close

from ._op_db_util import as_function, assert_listed_entries_exist, first_sample, flat, ops_with_samples, run_listed

AOT_XFAIL = {
    "masked_select": (DynamicOutputShapeException, "output shape depends on the data (as in torch)"),
    "masked_scatter": (DynamicOutputShapeException, "its backward is a masked_select (data-dependent shape)"),
    "combinations": (DynamicOutputShapeException, "decomposes into masked_select (data-dependent shape, as torch)"),
    "nn.functional.ctc_loss#1": (DataDependentOutputException, "reads target lengths as values"),
    "nn.functional.gaussian_nll_loss": (DataDependentOutputException, "checks `var < 0` on values, as torch's"),
    "linalg.tensorinv": (DataDependentOutputException, "ember's tensorinv checks invertibility on values"),
    "istft": (DataDependentOutputException, "checks the window envelope's minimum on values, as torch's"),
    "as_strided_copy": (NotImplementedError, "as_strided's backward scatters storage positions in numpy: not traceable"),
}


def _cases():
    out = []
    for op in ops_with_samples():
        if op.randomness or not any(d.startswith("float") for d in op.dtypes):
            continue
        out.append(op)
    return out


def _differentiable_call(op):
    fn, tensors = as_function(op, first_sample(op))
    ts = [t.detach().requires_grad_(t.dtype.is_floating_point) for t in tensors]
    if not any(t.requires_grad for t in ts):
        pytest.skip("no floating-point input")
    try:
        want = fn(*ts)
        outs = [w for w in flat(want) if isinstance(w, ember.Tensor) and w.requires_grad]
        if not outs:
            pytest.skip("no differentiable output")
        ref = ember.autograd.grad([w.sum() for w in outs], [t for t in ts if t.requires_grad], allow_unused=True)
    except Exception as e:  # noqa: BLE001  (eager's own gradient is tested by tests/autograd's op-db sweep)
        pytest.skip(f"eager has no gradient here: {type(e).__name__}: {e}")
    return fn, ts, want, ref


def _check(fn, ts, want, ref):
    got = aot_function(fn, nop)(*ts)
    for g, w in zip(flat(got), flat(want)):
        if isinstance(w, ember.Tensor):
            assert_close(g, w, equal_nan=True)
    outs = [g for g, w in zip(flat(got), flat(want)) if isinstance(w, ember.Tensor) and w.requires_grad]
    grads = ember.autograd.grad([g.sum() for g in outs], [t for t in ts if t.requires_grad], allow_unused=True)
    for a, b in zip(grads, ref):
        if b is None:
            assert a is None or not a.abs().sum().item()
        else:
            assert_close(a, b, equal_nan=True, atol=1e-4, rtol=1e-4)


@pytest.mark.parametrize("op", _cases(), ids=lambda o: o.name)
def test_aot_function_matches_eager(op):
    fn, ts, want, ref = _differentiable_call(op)
    run_listed(op, AOT_XFAIL, lambda: _check(fn, ts, want, ref))


def test_xfail_list_names_real_ops():
    assert_listed_entries_exist(AOT_XFAIL)
