"""torch.func.rearrange (ember.func.rearrange) against torch: einops patterns and their errors."""
import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")

X = np.arange(2 * 3 * 4 * 6, dtype=np.float64).reshape(2, 3, 4, 6)

CASES = [
    ("b c h w -> b h w c", {}),
    ("b c h w -> (b h) w c", {}),
    ("b c h w -> b (c h w)", {}),
    ("b c (h1 h) w -> b c h1 h w", {"h1": 2}),
    ("b c h (w1 w2) -> b (c w2) h w1", {"w1": 3}),
    ("b c h (w1 w2) -> b (c w2) h w1", {"w1": 3, "w2": 2}),
    ("b ... -> b (...)", {}),
    ("... w -> w ...", {}),
    ("b c ... -> (b c) ...", {}),
    ("b c h w -> b 1 c h w 1", {}),
    ("b c h w -> c b h w", {}),
    ("b c h (w w2) -> (w2 b) c 1 h w", {"w2": 2}),
]

ERRORS = [
    ("b c h w -> b c h", {}),
    ("b c h -> b c h", {}),
    ("b c h w -> b c h w", {"q": 2}),
    ("b c h w b -> b c h w", {}),
    ("b c h w b", {}),
    ("b c h w -> b c h w 2", {}),
    ("b c h w -> b c (h (w))", {}),
    ("b c h w) -> b c h w", {}),
    ("b c h w -> b c h w .", {}),
    ("b c h w -> b c h w ...", {}),
    ("b (c ...) -> b c ...", {}),
    ("b c h w -> b c h w", {"h": 4.0}),
    ("b c h w -> b c h w $", {}),
    ("b c h w x y -> b c h w x y", {}),
]


@pytest.mark.parity
@pytest.mark.parametrize("pattern,lengths", CASES)
def test_rearrange_matches_torch(pattern, lengths):
    e = ember.func.rearrange(ember.tensor(X), pattern, **lengths)
    t = torch.func.rearrange(torch.tensor(X), pattern, **lengths)
    assert tuple(e.shape) == tuple(t.shape)
    np.testing.assert_array_equal(e.numpy(), t.numpy())


@pytest.mark.parity
def test_list_of_tensors_is_stacked_and_gradients_flow():
    def run(lib):
        xs = [lib.tensor(X[i], requires_grad=True) for i in range(2)]
        y = lib.func.rearrange(xs, "b c h w -> h (b w) c")
        (y * lib.arange(y.numel(), dtype=y.dtype).reshape(y.shape)).sum().backward()
        return y.detach().numpy(), [x.grad.numpy() for x in xs]
    (ey, eg), (ty, tg) = run(ember), run(torch)
    np.testing.assert_array_equal(ey, ty)
    for a, b in zip(eg, tg):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parity
@pytest.mark.parametrize("pattern,lengths", ERRORS)
def test_errors_match_torch(pattern, lengths):
    with pytest.raises((ValueError, TypeError)) as te:
        torch.func.rearrange(torch.tensor(X), pattern, **lengths)
    with pytest.raises(te.type) as ee:
        ember.func.rearrange(ember.tensor(X), pattern, **lengths)
    if "{" not in str(te.value):                 # set reprs (which identifiers) may list in another order
        assert str(ee.value) == str(te.value)
