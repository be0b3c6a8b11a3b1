"""ember._decomp: each decomposition, traced in place of its op on every op-database sample that reaches
it, gives the op's result and removes the op from the graph; get_decompositions selects by overload and
by packet."""
import pytest

import ember
from ember._decomp import core_aten_decompositions, decomposition_table, get_decompositions
from ember.fx.experimental.proxy_tensor import make_fx
from ember.testing import assert_close

from ._op_db_util import as_function, first_sample, flat, ops_with_samples

aten = ember.ops.aten


def _targets(gm):
    return {n.target for n in gm.graph.nodes if n.op == "call_function"}


def _reaching_samples():
    """(decomposed op, op-db entry) for every op-db sample whose graph contains a decomposed op."""
    pairs = {}
    for op in ops_with_samples():
        if op.randomness:
            continue
        fn, tensors = as_function(op, first_sample(op))
        try:
            gm = make_fx(fn)(*tensors)
        except Exception:  # noqa: BLE001  (ops make_fx cannot trace are covered by its own sweep)
            continue
        for t in _targets(gm) & set(decomposition_table):
            pairs.setdefault(t, []).append(op)
    return pairs


PAIRS = _reaching_samples()
CASES = [pytest.param(d, op, id=f"{d}-{op.name}") for d, ops in PAIRS.items() for op in ops]


@pytest.mark.parametrize("decomposed,op", CASES)
def test_decomposition_matches_op(decomposed, op):
    fn, tensors = as_function(op, first_sample(op))
    want = fn(*tensors)
    gm = make_fx(fn, decomposition_table={decomposed: decomposition_table[decomposed]})(*tensors)
    assert decomposed not in _targets(gm)
    for g, w in zip(flat(gm(*tensors)), flat(want)):
        if isinstance(w, ember.Tensor):
            assert_close(g, w, equal_nan=True, atol=1e-5, rtol=1e-4)


def test_most_decompositions_are_reached_by_the_op_db():
    from .test_decompositions_core import CHECKED_DIRECTLY
    unreached = set(decomposition_table) - set(PAIRS) - CHECKED_DIRECTLY
    assert len(unreached) <= len(decomposition_table) // 3, sorted(map(str, unreached))


def test_get_decompositions_by_overload_and_packet():
    d = get_decompositions([aten.silu.default, aten.lerp, aten.native_layer_norm.default])
    assert set(d) == {aten.silu.default, aten.lerp.Scalar, aten.native_layer_norm.default}
    assert get_decompositions([aten.mm.default]) == {}
    assert set(core_aten_decompositions()) == set(decomposition_table)


def test_decomposed_graph_is_core_only():
    def f(x, w, b):
        h = ember.nn.functional.layer_norm(x, (4,), w, b)
        return ember.nn.functional.gelu(h).softmax(-1)

    x, w, b = ember.randn(2, 4), ember.randn(4), ember.randn(4)
    gm = make_fx(f, decomposition_table=core_aten_decompositions())(x, w, b)
    names = {t._packet.__name__ for t in _targets(gm)}
    assert names <= {"mean", "sub", "mul", "rsqrt", "add", "erf", "amax", "exp", "sum", "div"}, names
    assert_close(gm(x, w, b), f(x, w, b))


@pytest.mark.parametrize("op,args", [
    (aten.dot.default, ((5,), (5,))), (aten.mv.default, ((3, 5), (5,))), (aten.outer.default, ((3,), (4,))),
    (aten.relu6.default, ((6,),))], ids=str)
def test_decompositions_the_op_db_does_not_reach(op, args):
    ember.manual_seed(0)
    xs = [ember.randn(*s) * 4 for s in args]
    assert_close(decomposition_table[op](*xs), op(*xs))
