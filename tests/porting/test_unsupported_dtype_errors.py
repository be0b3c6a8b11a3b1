"""Ops that refuse a dtype do it as torch does: NotImplementedError with the kernel name torch's message shows
("gelu" on a Long tensor names GeluKernelImpl, selu names elu_cpu), TypeError for `~` on a float tensor, and
the integer average pools torch's CPU kernels do run (int64, dividing toward zero)."""
import pytest

import ember

torch = pytest.importorskip("torch")

ACTIVATIONS = ["gelu", "silu", "elu", "selu", "celu", "leaky_relu", "hardshrink", "softplus", "mish", "hardswish",
               "hardsigmoid", "logsigmoid", "glu"]

CALLS = {
    **{f"F.{n}(long)": (lambda T, n=n: getattr(T.nn.functional, n)(T.tensor([1, -2, 3, 4]))) for n in ACTIVATIONS},
    "F.glu(odd long dim)": lambda T: T.nn.functional.glu(T.tensor([[1, 2]]), 0),
    "bitwise_and(float)": lambda T: T.tensor([1.5]) & T.tensor([1.0]),
    "bitwise_not(float)": lambda T: T.bitwise_not(T.tensor([1.5])),
    "bitwise_not_(float)": lambda T: T.tensor([1.5]).bitwise_not_(),
    "~float": lambda T: ~T.tensor([1.5]),
    "~complex": lambda T: ~T.tensor([1j]),
    **{f"avg_pool{d}d({dt})": (lambda T, d=d, dt=dt: getattr(T.nn.functional, f"avg_pool{d}d")(
        T.ones((1, 1) + (4,) * d, dtype=getattr(T, dt)), 2))
       for d in (1, 2, 3) for dt in ("int32", "int16", "int8", "uint8", "bool")},
    "avg_pool3d(too small)": lambda T: T.nn.functional.avg_pool3d(T.ones(1, 1, 1, 4, 4), 2),
    "avg_pool3d(too small, int32)": lambda T: T.nn.functional.avg_pool3d(T.ones(1, 1, 1, 4, 4, dtype=T.int32), 2),
    **{f"adaptive_{k}_pool{d}d(long)": (lambda T, d=d, k=k: getattr(T.nn.functional, f"adaptive_{k}_pool{d}d")(
        T.ones((1, 1) + (4,) * d, dtype=T.long), 2))
       for d in (1, 2, 3) for k in ("avg", "max")},
}


@pytest.mark.parity
@pytest.mark.parametrize("name", sorted(CALLS))
def test_refusal_matches_torch(name):
    with pytest.raises(Exception) as want:
        CALLS[name](torch)
    with pytest.raises(Exception) as got:
        CALLS[name](ember)
    assert type(got.value) is type(want.value)
    assert str(got.value) == str(want.value)


@pytest.mark.parity
@pytest.mark.parametrize("d,kw", [(d, kw) for d in (1, 2, 3) for kw in (
    {}, {"divisor_override": 3}, {"padding": 1, "count_include_pad": False}, {"padding": 1, "ceil_mode": True})
    if not (d == 1 and "divisor_override" in kw)])           # avg_pool1d has no divisor_override
def test_int64_average_pools_divide_toward_zero(d, kw):
    values = [[-11, 2, 7, -3], [3, -1, 5, 9], [-8, 4, 0, 1], [6, -7, 2, -2]]
    data = values[0] if d == 1 else values if d == 2 else [values, values[::-1]]
    want = getattr(torch.nn.functional, f"avg_pool{d}d")(torch.tensor([[data]]), 2, **kw)
    got = getattr(ember.nn.functional, f"avg_pool{d}d")(ember.tensor([[data]]), 2, **kw)
    assert got.dtype == ember.int64 and got.tolist() == want.tolist()


COMPLEX_REFUSED = ["gelu", "mish", "softplus", "elu", "selu", "celu", "leaky_relu", "hardsigmoid", "hardswish",
                   "logsigmoid", "hardshrink", "glu"]


@pytest.mark.parity
@pytest.mark.parametrize("name", COMPLEX_REFUSED + ["silu", "sigmoid", "tanh", "softsign"])
def test_activation_on_complex_refused_or_computed_like_torch(name):
    """torch's CPU kernels of these activations have no complex version ("leaky_relu_cpu" not implemented for
    'ComplexFloat'); ember computed them on the real part or on both parts. silu, sigmoid, tanh and softsign do
    take complex input in both."""
    torch = pytest.importorskip("torch")
    got = []
    for lib in (torch, ember):
        x = lib.tensor([1 + 1j, -2 - 0.5j], dtype=lib.complex64)
        arg = lib.cat([x, x]) if name == "glu" else x
        try:
            r = getattr(lib.nn.functional, name)(arg)
            got.append(("ok", str(r.dtype).split(".")[-1], [complex(v) for v in r.detach().numpy().round(5)]))
        except NotImplementedError as e:
            got.append(("NotImplementedError", str(e)))
    assert got[0] == got[1]
