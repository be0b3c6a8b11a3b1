"""float16 / bfloat16 parameters in SGD / Adam / AdamW: torch's CPU default (single-tensor) path keeps the
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
]


def _run(torch, name, kwargs, dtype, shapes, steps=6):
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
