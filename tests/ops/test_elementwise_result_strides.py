"""The strides of elementwise results against torch for inputs whose size-1 dims carry odd strides (TensorIterator's
fast setup keeps a dense input's exact strides or makes a contiguous result; a number or broadcast operand makes it
order the dims by strides, ties going to later operands), including empty results and resized out= tensors."""
import itertools

import pytest

import ember

SHAPES = [(3, 1, 4), (1, 3, 4), (3, 4, 1), (1, 1, 4), (2, 1, 1, 3), (1,), (3, 1), (1, 3), (0, 1, 4), (2, 0, 1)]
ODD = (1, 7, 100)


def _layouts(shape):
    """Dense layouts of `shape` in every dim order, each size-1 dim given the dense stride or an odd one."""
    n = len(shape)
    for perm in itertools.permutations(range(n)):
        for odd in (None, 7, 1):
            st, acc = [0] * n, 1
            for d in reversed(perm):
                st[d] = acc if shape[d] != 1 or odd is None else odd
                acc *= max(shape[d], 1)
            yield tuple(st)


FORMS = {
    "x + 1": lambda L, e, sh: e + 1,
    "-x": lambda L, e, sh: -e,
    "exp": lambda L, e, sh: e.exp(),
    "x + x": lambda L, e, sh: e + e,
    "x * 2.": lambda L, e, sh: e * 2.,
    "x + row": lambda L, e, sh: e + L.zeros(sh[-1]),
    "full + x": lambda L, e, sh: L.zeros(sh) + e,
    "x * 0-d": lambda L, e, sh: e * L.ones(()),
    "sigmoid": lambda L, e, sh: L.sigmoid(e),
    "clamp": lambda L, e, sh: e.clamp(0),
    "x > 0": lambda L, e, sh: e > 0,
    "pow": lambda L, e, sh: e ** 2,
    "relu": lambda L, e, sh: L.relu(e),
    "add out resized": lambda L, e, sh: L.add(e, 1, out=L.empty(0)),
    "neg out resized": lambda L, e, sh: L.neg(e, out=L.empty(0)),
    "add alpha out resized": lambda L, e, sh: L.add(e, e, alpha=2., out=L.empty(0)),
}


def _strides(L, shape):
    res = []
    for st in sorted(set(_layouts(shape))):
        e = L.empty_strided(shape, st)
        res.append((st, [(name, f(L, e, shape).stride()) for name, f in FORMS.items()]))
    return res


@pytest.mark.parity
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_result_strides_like_torch(shape):
    torch = pytest.importorskip("torch")
    assert _strides(ember, shape) == _strides(torch, shape)


@pytest.mark.parity
def test_resized_out_takes_the_inputs_order():
    torch = pytest.importorskip("torch")
    got = []
    for L in (torch, ember):
        x = L.arange(12.).reshape(3, 4)
        o1, o2 = L.empty(0), L.empty(0)
        L.add(x.t(), 1, out=o1)
        L.neg(x.t(), out=o2)
        got.append((o1.stride(), o2.stride(), o1.tolist(), o2.tolist()))
    assert got[0] == got[1]
