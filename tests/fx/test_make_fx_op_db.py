"""Every op of the op database through make_fx, real and fake tracing: the traced graph run on the sample
equals eager. Ops that cannot be traced with fake tensors are listed with the reason and must fail with it."""
import pytest

import ember
from ember._subclasses.fake_tensor import DataDependentOutputException, DynamicOutputShapeException
from ember.fx.experimental.proxy_tensor import make_fx
from ember.testing import assert_close

from ._op_db_util import as_function, first_sample, flat, ops_with_samples

_DYNAMIC = (DynamicOutputShapeException, "output shape depends on the data (torch raises the same)")
_DATA = (DataDependentOutputException, "the op reads a value of its input (torch raises the same)")
FAKE_XFAIL = {
    "nonzero": _DYNAMIC, "argwhere": _DYNAMIC, "masked_select": _DYNAMIC, "unique": _DYNAMIC,
    "bincount": _DYNAMIC, "repeat_interleave": _DYNAMIC,
    "where": (DynamicOutputShapeException, "the one-argument sample is where(cond) = nonzero(cond, as_tuple=True)"),
    "combinations": (DynamicOutputShapeException, "ember's combinations selects with masked_select"),
    "nn.functional.gaussian_nll_loss": (DataDependentOutputException, "checks `var < 0` on values, as torch's"),
    "linalg.tensorinv": (DataDependentOutputException, "ember's tensorinv checks invertibility on values"),
    "nn.functional.one_hot": (RuntimeError, "num_classes=-1 reads max(input): data-dependent (its kernel calls "
                                            ".item() on the meta input)"),
    "nn.functional.ctc_loss": ((AssertionError, DataDependentOutputException),
                               "the lengths become new real tensors inside the op, or are read as values"),
}

OPS = ops_with_samples()


def _check(op, mode):
    fn, tensors = as_function(op, first_sample(op))
    if op.randomness:
        ember.manual_seed(0)
    want = fn(*tensors)
    if op.randomness:
        ember.manual_seed(0)
    gm = make_fx(fn, tracing_mode=mode)(*tensors)
    assert all(n.op != "call_function" or isinstance(n.target, type(ember.ops.aten.add.Tensor))
               or n.target.__name__ == "getitem" for n in gm.graph.nodes)
    if op.randomness:
        ember.manual_seed(0)
    got = gm(*tensors)
    for g, w in zip(flat(got), flat(want)):
        if isinstance(w, ember.Tensor):
            assert_close(g, w, equal_nan=True)
        else:
            assert g == w
    if mode == "fake":            # the fake values recorded in the graph have the real geometry
        out = next(n for n in gm.graph.nodes if n.op == "output")
        for node, w in zip(flat(out.args[0]), flat(want)):
            if isinstance(w, ember.Tensor) and hasattr(node, "meta") and "val" in node.meta:
                assert tuple(node.meta["val"].shape) == tuple(w.shape)


@pytest.mark.parametrize("op", OPS, ids=lambda o: o.name)
def test_make_fx_real(op):
    _check(op, "real")


@pytest.mark.parametrize("op", OPS, ids=lambda o: o.name)
def test_make_fx_fake(op):
    if op.name in FAKE_XFAIL:       # some names have several entries: only the failing samples are listed
        exc, reason = FAKE_XFAIL[op.name]
        try:
            _check(op, "fake")
        except exc:
            pytest.xfail(reason)
        return
    _check(op, "fake")


def test_xfail_list_names_real_ops():
    names = {op.name for op in OPS}
    assert set(FAKE_XFAIL) <= names
