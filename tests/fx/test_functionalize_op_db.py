"""The in-place and out= variants of the op database through make_fx (fake) and functionalization: the pure
graph run on the sample equals eager, the graph has no mutating op left, and the updated values of the
mutated inputs (self, or the out tensors) are returned for the epilogue. Ops that cannot go through are
listed with the reason and must fail that way."""
import warnings

import numpy as np
import pytest

import ember
from ember._functorch.functionalize import functionalize_graph
from ember._subclasses.fake_tensor import DataDependentOutputException, DynamicOutputShapeException
from ember.fx.experimental.proxy_tensor import make_fx
from ember.testing import assert_close

from ._op_db_util import assert_listed_entries_exist, flat, ops_with_samples, run_listed

_DYNAMIC = (DynamicOutputShapeException, "output shape depends on the data (torch raises the same)")
XFAIL = {
    "masked_select": _DYNAMIC, "nonzero": _DYNAMIC,
    "linalg.tensorinv": (DataDependentOutputException, "ember's tensorinv checks invertibility on values"),
}


def _tensor(a):
    return ember.from_numpy(np.array(a, copy=True))


def _pure(gm):
    for n in gm.graph.nodes:
        if n.op == "call_function" and hasattr(n.target, "_schema"):
            assert not any(a.is_write for a in n.target._schema.arguments.flat_all), n.target


def _inplace_method(x, op):
    m = getattr(x, op.inplace_variant, None)
    if m is not None:
        return m
    from ember.testing._opinfo import resolve
    f = resolve(ember, op.inplace_variant)
    return lambda *a, **k: f(x, *a, **k)


def _sample(op):
    dt = next((d for d in op.dtypes if d.startswith("float")), op.dtypes[0])
    samples = op.sample_inputs(dt)
    return samples[0] if samples else None


def _fn_of(sample, body):
    """(fn, tensors): fn(*tensors) runs body(x, args, kwargs) with the sample's arrays replaced by tensors."""
    tensors = [_tensor(a) for a in sample.arrays()]

    def fn(*ts):
        x, args, kw = sample.bind(ts)       # TensorList arguments get their tensors too
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return body(x, args, kw)
    return fn, tensors


def _check(fn, tensors, mutated):
    want_in = [t.clone() for t in tensors]
    want = fn(*want_in)
    gm = make_fx(fn, tracing_mode="fake")(*[t.clone() for t in tensors])
    fg = functionalize_graph(gm)
    fg.gm.graph.lint()
    _pure(fg.gm)
    got = fg.gm(*[t.clone() for t in tensors])
    for g, w in zip(flat(got[:fg.num_original_outputs]), flat(want)):
        if isinstance(w, ember.Tensor):
            assert_close(g, w, equal_nan=True)
    assert fg.mutated_inputs == mutated
    for k, i in enumerate(fg.mutated_inputs):
        assert_close(got[fg.num_original_outputs + k], want_in[i], equal_nan=True)


_INPLACE = [op for op in ops_with_samples() if op.inplace_variant and not op.randomness]
_OUT = [op for op in ops_with_samples() if op.supports_out and not op.randomness]


@pytest.mark.parametrize("op", _INPLACE, ids=lambda o: o.name)
def test_inplace_variant_functionalized(op):
    s = _sample(op)
    fn, tensors = _fn_of(s, lambda x, a, k: _inplace_method(x, op)(*a, **k))
    try:
        r = fn(*[t.clone() for t in tensors])
    except Exception as e:  # noqa: BLE001  (check_inplace in tests/ops covers the refusal)
        pytest.skip(f"eager refuses the in-place call: {type(e).__name__}")
    assert isinstance(r, ember.Tensor)
    _run_listed(op, lambda: _check(fn, tensors, [0]))


@pytest.mark.parametrize("op", _OUT, ids=lambda o: o.name)
def test_out_variant_functionalized(op):
    s = _sample(op)
    fn0, tensors = _fn_of(s, lambda x, a, k: op.op(x, *a, **k))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            ref = flat(fn0(*[t.clone() for t in tensors]))
        except Exception as e:  # noqa: BLE001
            pytest.skip(f"eager refuses the sample: {type(e).__name__}")
    if not all(isinstance(r, ember.Tensor) for r in ref):
        pytest.skip("non-tensor outputs")
    n = len(tensors)

    def fn(*ts):
        outs = ts[n:]
        return fn_out(*ts[:n], outs=outs)

    def body(x, a, k, outs):
        return op.op(x, *a, out=outs[0] if len(outs) == 1 else tuple(outs), **k)

    def fn_out(*ts, outs):
        f, _ = _fn_of(s, lambda x, a, k: body(x, a, k, outs))
        return f(*ts)

    outs = [ember.zeros(tuple(r.shape), dtype=r.dtype) for r in ref]
    try:
        fn(*[t.clone() for t in tensors + outs])
    except TypeError as e:  # as torch: where(c, x, 1.0, out=o) has no overload taking a number with out=
        pytest.skip(f"eager refuses out= for this sample: {e}")
    _run_listed(op, lambda: _check(fn, tensors + outs, list(range(n, n + len(outs)))))


def _run_listed(op, check):
    run_listed(op, XFAIL, check)


def test_xfail_list_names_real_ops():
    assert_listed_entries_exist(XFAIL)
