"""grad_fn names over the whole op database equal torch's (tutorials and debugging sessions print them).

For every op of `ember.testing.op_db` with a floating dtype, the first samples run in ember and in torch 2.13
with the floating inputs requiring grad; the class names of the outputs' grad_fn must agree. The ops listed in
KNOWN_DIFFERENCES build their result through other ops than torch's (or have a node where torch has none) and
are checked to still differ, so fixing one forces its entry out of the list."""
import warnings

import numpy as np
import pytest

import ember
from ember.testing import op_db
from ember.testing._opinfo import resolve

KNOWN_DIFFERENCES = {
    # op name -> why its nodes differ from torch's (none left: tensorinv's _reshape_alias, quantile's in-place
    # squeeze_ and 1-D @ 2-D matmul's squeeze_ now match)
}

torch = pytest.importorskip("torch")


def _names(r):
    r = list(r) if isinstance(r, (tuple, list)) else [r]
    return [type(x.grad_fn).__name__ if x.grad_fn is not None else None for x in r if hasattr(x, "grad_fn")]


def _convert(make):
    def conv(a):
        t = make(np.array(a, copy=True))
        return t.requires_grad_() if t.dtype.is_floating_point else t
    return conv


def _cases():
    out = []
    for op in op_db:
        if op.randomness:
            continue
        dt = next((d for d in ("float64", "float32") if d in op.dtypes), None)
        if dt is not None:
            out.append(pytest.param(op, dt, id=op.name))
    return out


def _pairs(op, dt):
    """(sample name, ember names, torch names) for the first three samples both libraries accept."""
    out = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for s in list(op.sample_inputs(dt))[:3]:
            try:
                x, a, k = s.convert(_convert(torch.from_numpy))
                want = _names(resolve(torch, op.torch_name)(x, *a, **k))
            except Exception:   # noqa: BLE001  (a sample torch refuses says nothing about names)
                continue
            x, a, k = s.convert(_convert(ember.from_numpy))
            out.append((s.name, _names(op.op(x, *a, **k)), want))
    return out


@pytest.mark.parity
@pytest.mark.parametrize("op,dt", _cases())
def test_grad_fn_names_match_torch(op, dt):
    if op.name in KNOWN_DIFFERENCES:
        pytest.skip(KNOWN_DIFFERENCES[op.name])
    differ = [p for p in _pairs(op, dt) if p[1] != p[2]]
    assert not differ, differ


@pytest.mark.parity
def test_known_differences_still_differ():
    """An op fixed to name its nodes like torch must leave KNOWN_DIFFERENCES."""
    by_name = {}
    for p in _cases():
        op, dt = p.values
        by_name.setdefault(op.name, []).append((op, dt))
    assert not set(KNOWN_DIFFERENCES) - set(by_name), "KNOWN_DIFFERENCES names an op the database lacks"
    fixed = [n for n in KNOWN_DIFFERENCES
             if not any(p[1] != p[2] for op, dt in by_name[n] for p in _pairs(op, dt))]
    assert not fixed, f"these now name their nodes like torch: remove them from KNOWN_DIFFERENCES: {fixed}"


CALLS = [
    "x.clone().clamp_min_(0.1)", "x.clone().clamp_max_(0.1)", "x.clone().clamp_min_(L.zeros(3))",
    "x.clone().clamp_max_(L.zeros(3))", "L.clamp_min_(x.clone(), 0.1)", "L.clamp_max_(x.clone(), 0.1)",
    "x.clone().clamp_(0.1)", "L.dist(x, y)", "L.dist(x, y, 3)", "L.dist(x, y[0])", "x.dist(y, float('inf'))",
    "L.dist(x, y, 1)", "L.pdist(L.cat([x, y]))", "L.pdist(L.cat([x, y]), 1)", "L.pdist(L.cat([x, y]), 0.5)",
    "L.pdist(L.cat([x, y]), 3)", "L.pdist(L.cat([x, y]), float('inf'))", "L.pdist(L.cat([x, y]), 0)",
    "L.pdist(L.cat([x, x, y]))", "L.pdist(L.cat([x, y]).t())", "L.nn.functional.pdist(x)",
    # in-place views (SqueezeBackward3/4/5, UnsqueezeBackward1, TransposeBackward1), on a view too
    "(x[:1] * 1).squeeze_()", "(x[:1] * 1).squeeze_(0)", "(x[:1] * 1).squeeze_((0, 1))", "(x * 1).unsqueeze_(1)",
    "(x * 1).transpose_(0, 1)", "(x * y)[:1].squeeze_(0)", "(x * 1).t().unsqueeze_(-1).transpose_(0, 2)",
    # reshape: view when contiguous, _reshape_alias when only viewable, else a copy and _unsafe_view
    "x.reshape(3, 2)", "x.t().reshape(3, 1, 2)", "x[:, :1].reshape(2)", "x.t().reshape(6)",
    # composites ending in torch's in-place views
    "x[0] @ y.t()", "L.matmul(x[1], y.t())", "L.quantile(x, 0.3)", "L.quantile(x, L.tensor([0.2, 0.9]), dim=1)",
    "L.nanquantile(x, L.tensor([0.2, 0.9]), dim=0, keepdim=True, interpolation='midpoint')",
]


@pytest.mark.parity
@pytest.mark.parametrize("call", CALLS)
def test_call_grad_fn_names_match_torch(call):
    """Calls outside the op database (in-place forms, composites): same grad_fn class and gradient as torch."""
    got = []
    for L in (torch, ember):
        x = L.tensor([[-0.5, 0.2, 1.5], [0.3, -1.0, 0.05]], requires_grad=True)
        y = L.tensor([[0.1, 0.4, -0.2], [1.0, 0.0, 0.3]], requires_grad=True)
        r = eval(call, {"L": L, "x": x, "y": y})
        r.sum().backward()
        got.append((type(r.grad_fn).__name__, np.round(x.grad.numpy(), 5).tolist(),
                    None if y.grad is None else np.round(y.grad.numpy(), 5).tolist()))
    assert got[0] == got[1]
