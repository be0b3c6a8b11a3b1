"""Every op of the op database through make_fx, real, fake and symbolic tracing: the traced graph run on the sample
equals eager. Ops that cannot be traced with fake tensors are listed with the reason and must fail with it."""
import operator

import pytest

import ember
from ember._subclasses.fake_tensor import DataDependentOutputException, DynamicOutputShapeException
from ember.fx.experimental.proxy_tensor import make_fx
from ember.testing import assert_close

from ._op_db_util import as_function, assert_listed_entries_exist, first_sample, flat, ops_with_samples, run_listed

_DYNAMIC = (DynamicOutputShapeException, "output shape depends on the data (torch raises the same)")
_DATA = (DataDependentOutputException, "the op reads a value of its input (torch raises the same)")
# keyed by op-db entry (`name`, or `name#i` for the i-th of several entries of one name); strict: a listed entry
# that passes fails its test
FAKE_XFAIL = {
    "nonzero": _DYNAMIC, "argwhere": _DYNAMIC, "masked_select": _DYNAMIC, "unique": _DYNAMIC,
    "bincount": _DYNAMIC,
    "istft": (DataDependentOutputException, "checks the window envelope's minimum on values, as torch's"),
    "where#0": (DynamicOutputShapeException, "the one-argument sample is where(cond) = nonzero(cond, as_tuple=True)"),
    "combinations": (DynamicOutputShapeException, "ember's combinations selects with masked_select"),
    "nn.functional.gaussian_nll_loss": (DataDependentOutputException, "checks `var < 0` on values, as torch's"),
    "linalg.tensorinv": (DataDependentOutputException, "ember's tensorinv checks invertibility on values"),
    "nn.functional.one_hot#1": (RuntimeError, "num_classes=-1 reads max(input): data-dependent (its kernel calls "
                                              ".item() on the meta input)"),
    **{f"nn.functional.ctc_loss#{i}": ((AssertionError, DataDependentOutputException),
                                       "the lengths become new real tensors inside the op, or are read as values")
       for i in range(3)},
}

OPS = ops_with_samples()
# what a symbolic graph computes sizes with, besides aten.sym_size.int
_SIZE_ARITHMETIC = {operator.add, operator.sub, operator.mul, operator.floordiv, operator.mod, operator.neg,
                    operator.truediv, operator.pow, ember.sym_max, ember.sym_min}


def _check(op, mode):
    fn, tensors = as_function(op, first_sample(op))
    if op.randomness:
        ember.manual_seed(0)
    want = fn(*tensors)
    if op.randomness:
        ember.manual_seed(0)
    gm = make_fx(fn, tracing_mode=mode)(*tensors)
    assert all(n.op != "call_function" or isinstance(n.target, type(ember.ops.aten.add.Tensor))
               or n.target.__name__ == "getitem" or (mode == "symbolic" and n.target in _SIZE_ARITHMETIC)
               for n in gm.graph.nodes)
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
    run_listed(op, FAKE_XFAIL, lambda: _check(op, "fake"))


@pytest.mark.parametrize("op", OPS, ids=lambda o: o.name)
def test_make_fx_symbolic(op):
    """Every size of every input a symbol: the graph (sym_size reads and size arithmetic where sizes are used)
    run on the sample equals eager. The ops that fail under fake tracing fail here the same way."""
    run_listed(op, FAKE_XFAIL, lambda: _check(op, "symbolic"))


def test_xfail_list_names_real_ops():
    assert_listed_entries_exist(FAKE_XFAIL)
