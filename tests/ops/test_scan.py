"""The scans' composites: cumulative_trapezoid (x and dx forms, broadcasting of x, integer inputs, errors) and its
gradients, against torch."""
import numpy as np
import pytest

import ember

CASES = [
    lambda t, y: t.cumulative_trapezoid(y),
    lambda t, y: t.cumulative_trapezoid(y, dx=0.5, dim=0),
    lambda t, y: t.cumulative_trapezoid(y, t.tensor([0.0, 0.5, 2.0, 2.5]), dim=1),
    lambda t, y: t.cumulative_trapezoid(y, t.tensor([[0.0, 1.0, 1.5, 4.0]])),
    lambda t, y: t.cumulative_trapezoid(y, t.tensor([0.0, 1.0, 3.0]), dim=0),
    lambda t, y: t.cumulative_trapezoid(y[:, :1]),
    lambda t, y: t.cumulative_trapezoid(y[:, :0]),
]


@pytest.mark.parity
@pytest.mark.parametrize("i", range(len(CASES)))
def test_cumulative_trapezoid_values_and_gradients_match_torch(i):
    torch = pytest.importorskip("torch")
    data = np.random.default_rng(0).standard_normal((3, 4))
    res = []
    for lib in (ember, torch):
        y = lib.tensor(data, requires_grad=True)
        out = CASES[i](lib, y)
        if out.numel():
            (out * lib.arange(1.0, out.numel() + 1, dtype=out.dtype).reshape(out.shape)).sum().backward()
        res.append((tuple(out.shape), str(out.dtype).split(".")[-1], out.detach().numpy(),
                    None if y.grad is None else y.grad.numpy()))
    assert res[0][:2] == res[1][:2]
    np.testing.assert_allclose(res[0][2], res[1][2], rtol=1e-12)
    if res[1][3] is not None:
        np.testing.assert_allclose(res[0][3], res[1][3], rtol=1e-12)


@pytest.mark.parity
def test_cumulative_trapezoid_integer_input_matches_torch():
    torch = pytest.importorskip("torch")
    outs = [lib.cumulative_trapezoid(lib.tensor([1, 4, 9, 16])) for lib in (ember, torch)]
    assert str(outs[0].dtype).split(".")[-1] == str(outs[1].dtype).split(".")[-1]
    np.testing.assert_array_equal(outs[0].numpy(), outs[1].numpy())


@pytest.mark.parity
@pytest.mark.parametrize("call", [
    lambda t: t.cumulative_trapezoid(t.ones(3), t.ones(2)),
    lambda t: t.cumulative_trapezoid(t.tensor([True, False])),
    lambda t: t.cumulative_trapezoid(t.ones(3), t.tensor([True, False, True])),
    lambda t: t.cumulative_trapezoid(t.ones(3), dx=True),
])
def test_cumulative_trapezoid_errors_match_torch(call):
    torch = pytest.importorskip("torch")
    msgs = []
    for lib in (ember, torch):
        with pytest.raises(RuntimeError) as e:
            call(lib)
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]
