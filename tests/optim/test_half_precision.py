"""float16 / bfloat16 parameters in every optimizer (SGD, Adam, AdamW, RMSprop, Adagrad, Adamax, NAdam, RAdam,
Adadelta): torch's CPU default (single-tensor) path keeps the
state in the parameter's dtype and rounds once per tensor op; ember must give the same bits."""
import numpy as np
import pytest

import ember
import ember.optim as optim

# sizes that are multiples of torch's vector width, so torch's scalar-tail rounding does not come into play
SHAPES = [(4, 16), (64,), (2, 4, 8)]
ODD_SHAPES = [(3, 5), (7,)]

CASES = [
    ("SGD", dict(lr=0.1)),
    ("SGD", dict(lr=0.1, momentum=0.9, weight_decay=0.01)),
    ("SGD", dict(lr=0.05, momentum=0.8, dampening=0.2, maximize=True)),
    ("SGD", dict(lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.1)),
    ("Adam", dict(lr=0.01)),
    ("Adam", dict(lr=0.01, amsgrad=True, weight_decay=0.1, eps=1e-3)),
    ("Adam", dict(lr=0.01, weight_decay=0.05, decoupled_weight_decay=True, maximize=True)),
    ("AdamW", dict(lr=0.01)),
    ("AdamW", dict(lr=0.01, weight_decay=0.1, amsgrad=True, betas=(0.8, 0.99))),
    ("RMSprop", dict(lr=0.01)),
    ("RMSprop", dict(lr=0.01, momentum=0.9, centered=True, weight_decay=0.1, eps=1e-3)),
    ("Adagrad", dict(lr=0.1, lr_decay=0.01, weight_decay=0.1)),
    ("Adamax", dict(lr=0.01, weight_decay=0.1)),
    ("NAdam", dict(lr=0.01, eps=1e-3)),
    ("NAdam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True, eps=1e-3)),
    ("RAdam", dict(lr=0.01, eps=1e-3)),
    ("RAdam", dict(lr=0.01, betas=(0.5, 0.6), weight_decay=0.1, eps=1e-3)),
    ("Adadelta", dict(lr=0.5, weight_decay=0.1)),
]


def _run(torch, name, kwargs, dtype, shapes, steps=8):
    rng = np.random.default_rng(0)
    init = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    ed, td = getattr(ember, dtype), getattr(torch, dtype)
    pe = [ember.nn.Parameter(ember.tensor(a).to(ed)) for a in init]
    pt = [torch.nn.Parameter(torch.tensor(a).to(td)) for a in init]
    oe, ot = getattr(optim, name)(pe, **kwargs), getattr(torch.optim, name)(pt, **kwargs)
    for step in range(steps):
        r = np.random.default_rng(100 + step)
        for a, b, s in zip(pe, pt, shapes):
            g = r.standard_normal(s).astype(np.float32)
            a.grad, b.grad = ember.tensor(g).to(ed), torch.tensor(g).to(td)
        oe.step()
        ot.step()
    return pe, pt, oe, ot


@pytest.mark.parity
@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("name,kwargs", CASES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CASES)])
def test_half_params_bitwise_like_torch(name, kwargs, dtype):
    torch = pytest.importorskip("torch")
    pe, pt, oe, ot = _run(torch, name, kwargs, dtype, SHAPES)
    for a, b in zip(pe, pt):
        assert a.dtype is getattr(ember, dtype)
        np.testing.assert_array_equal(a.detach().float().numpy(), b.detach().float().numpy())
    for a, b in zip(pe, pt):
        se, st = oe.state[a], ot.state[b]
        assert list(se) == list(st)
        for k, v in st.items():
            assert se[k].dtype.name == str(v.dtype).split(".")[1]
            np.testing.assert_array_equal(se[k].float().numpy(), v.float().numpy())


@pytest.mark.parity
@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("name,kwargs", CASES[::2], ids=[f"{n}-{i}" for i, (n, _) in enumerate(CASES[::2])])
def test_half_params_odd_sizes_close_to_torch(name, kwargs, dtype):
    """Odd sizes hit torch's scalar loop tail; results stay within a few roundings of torch."""
    torch = pytest.importorskip("torch")
    pe, pt, _, _ = _run(torch, name, kwargs, dtype, ODD_SHAPES)
    tol = 2 ** -6 if dtype == "bfloat16" else 2 ** -9
    for a, b in zip(pe, pt):
        np.testing.assert_allclose(a.detach().float().numpy(), b.detach().float().numpy(), rtol=tol, atol=tol)


@pytest.mark.parity
@pytest.mark.parametrize("dtype", ["bfloat16", "float16", "float32"])
def test_opmath_single_ops_match_torch_bitwise(dtype):
    """Each Ops method is one torch op: same bits as torch's CPU kernel on a vector-width multiple."""
    torch = pytest.importorskip("torch")
    from ember.optim._opmath import Ops
    rng = np.random.default_rng(0)
    a32, b32 = rng.standard_normal(64 * 50).astype(np.float32), rng.standard_normal(64 * 50).astype(np.float32)
    td = getattr(torch, dtype)
    ta, tb = torch.tensor(a32).to(td), torch.tensor(b32).to(td)
    tc = ta.abs() + 0.5
    o = Ops(getattr(ember, dtype)._np)
    a, b, c = (t.float().numpy().astype(o.dt) for t in (ta, tb, tc))
    cases = [(o.add(a, b, 0.37), ta.add(tb, alpha=0.37)), (o.add_scalar(a, 1e-3), ta.add(1e-3)),
             (o.mul(a, 0.9), ta.mul(0.9)), (o.div(a, 1.37), ta / 1.37), (o.rdiv(0.937, c), 0.937 / tc),
             (o.addcmul(a, b, b, 0.1), ta.addcmul(tb, tb, value=0.1)),
             (o.addcdiv(a, b, c, -0.1), ta.addcdiv(tb, tc, value=-0.1)), (o.tmul(a, b), ta * tb),
             (o.tdiv(a, c), ta / tc)]
    cases += [(o.lerp(a, b, w), ta.lerp(tb, w)) for w in (0.01, 0.1, 0.5, 0.6, 0.9)]
    if dtype != "float32":        # torch's float32 sqrt (Sleef) is off by an ulp on some inputs; numpy's is exact
        cases.append((o.sqrt(c), tc.sqrt()))
    for i, (mine, theirs) in enumerate(cases):
        np.testing.assert_array_equal(mine.astype(np.float32), theirs.float().numpy(), err_msg=f"case {i}")
