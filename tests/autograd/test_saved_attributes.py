"""torch's `_saved_<name>` attributes on generated backward nodes (derivatives-yaml names): saved tensors read back
as tensors, sizes and int lists as tuples of ints, None where nothing was saved; freed after backward (torch's
error). ember saves what its formulas read: the names both save are compared, value by value."""
import pytest

import ember

torch = pytest.importorskip("torch")


def _norm(v, lib):
    if isinstance(v, lib.Tensor):
        # (values to 6 digits: float32 exp/tanh differ from torch's in the last bit, a known open item)
        return ("tensor", tuple(v.shape), str(v.dtype).split(".")[-1],
                [float(f"{x:.6g}") for x in v.detach().double().reshape(-1).tolist()])
    if isinstance(v, lib.dtype):
        return ("dtype", str(v).split(".")[-1])
    if isinstance(v, tuple):
        return tuple(_norm(x, lib) for x in v)
    return v


def _a(lib):
    return lib.tensor([[0.5, 1.5, 2.0], [3.0, -1.0, 0.25]], requires_grad=True)


def _b(lib):
    return lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)


_CASES = {
    "MulBackward0": lambda L: _a(L) * _b(L),
    "DivBackward0": lambda L: _a(L) / _b(L),
    "ExpBackward0": lambda L: _a(L).exp(),
    "TanhBackward0": lambda L: _a(L).tanh(),
    "SliceBackward0": lambda L: _a(L)[:, 1:3],
    "SelectBackward0": lambda L: _a(L)[1],
    "SumBackward1": lambda L: _a(L).sum(1),
    "SumBackward1_keep": lambda L: _a(L).sum((0, 1), keepdim=True),
    "MeanBackward1": lambda L: _a(L).mean(0),
    "ViewBackward0": lambda L: _a(L).view(3, 2),
    "TransposeBackward0": lambda L: _a(L).transpose(0, 1),
    "PowBackward0": lambda L: _a(L).pow(2),
    "CatBackward0": lambda L: L.cat([_a(L), _b(L)], 1),
    "MmBackward0": lambda L: _a(L).mm(_b(L).t()),
    "SoftmaxBackward0": lambda L: _a(L).softmax(1),
    "UnsqueezeBackward0": lambda L: _a(L).unsqueeze(1),
    "ExpandBackward0": lambda L: _a(L)[0].expand(4, 3),
    "MaxBackward0": lambda L: _a(L).max(1)[0],
    "MaxBackward1": lambda L: _a(L).max(),
    "MinBackward0": lambda L: _a(L).min(0, keepdim=True)[0],
    "MinBackward1": lambda L: _a(L).min(),
}


def _saved(lib, case):
    y = case(lib)
    fn = y.grad_fn
    return type(fn).__name__, {n: _norm(getattr(fn, n), lib) for n in dir(fn) if n.startswith("_saved_")}


@pytest.mark.parity
@pytest.mark.parametrize("name", sorted(_CASES))
def test_saved_attributes_match_torch(name):
    en, ev = _saved(ember, _CASES[name])
    tn, tv = _saved(torch, _CASES[name])
    assert en == tn
    common = sorted(set(ev) & set(tv))
    assert common, (sorted(ev), sorted(tv))
    assert {n: ev[n] for n in common} == {n: tv[n] for n in common}


@pytest.mark.parity
def test_saved_tensor_freed_after_backward_and_none_when_unneeded():
    for lib in (ember, torch):
        a = lib.ones(2, requires_grad=True)
        b = lib.ones(2)
        y = a.exp()
        assert lib.equal(y.grad_fn._saved_result, y)
        assert (a * b).grad_fn._saved_self is None      # self's operand is not needed: b needs no gradient
        y.sum().backward()
        with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
            y.grad_fn._saved_result
        with pytest.raises(AttributeError):
            y.grad_fn._saved_nonexistent
