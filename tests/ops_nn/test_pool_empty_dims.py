"""Which empty dims the 1-d/2-d pools accept: only a batch dim may be empty (adaptive_avg_pool2d checks only
the pooled dims), with torch's exception type and message."""
import pytest

import ember

F = ember.nn.functional
SHAPES = [(2, 0, 4, 4), (0, 3, 4, 4), (0, 4, 4), (3, 0, 4), (2, 0, 4), (0, 4), (2, 3, 0, 4), (3, 4), (2, 3, 4, 4, 4)]
CALLS = {
    "max_pool2d": lambda F, x: F.max_pool2d(x, 2),
    "avg_pool2d": lambda F, x: F.avg_pool2d(x, 2),
    "adaptive_avg_pool2d": lambda F, x: F.adaptive_avg_pool2d(x, 2),
    "adaptive_max_pool2d": lambda F, x: F.adaptive_max_pool2d(x, 2),
    "max_pool1d": lambda F, x: F.max_pool1d(x, 2),
}


def _run(lib, F, name, shape, device="cpu"):
    try:
        return tuple(CALLS[name](F, lib.zeros(shape, device=device)).shape), None
    except (RuntimeError, IndexError) as e:
        return None, f"{type(e).__name__}: {e}"


@pytest.mark.parametrize("device", ["cpu", "meta"])
def test_a_channel_dim_of_zero_is_refused_by_the_2d_pools(device):
    for name in ("max_pool2d", "avg_pool2d"):
        with pytest.raises(RuntimeError, match=r"Expected 3D or 4D \(batch mode\) tensor with optional 0 dim "
                                               r"batch size for input, but got:\[2, 0, 4, 4\]"):
            CALLS[name](F, ember.zeros(2, 0, 4, 4, device=device))
        assert tuple(CALLS[name](F, ember.zeros(0, 3, 4, 4, device=device)).shape) == (0, 3, 2, 2)


@pytest.mark.parity
@pytest.mark.parametrize("name", sorted(CALLS))
@pytest.mark.parametrize("shape", SHAPES)
def test_empty_dims_like_torch(name, shape):
    torch = pytest.importorskip("torch")
    got, err = _run(ember, F, name, shape)
    want, terr = _run(torch, torch.nn.functional, name, shape)
    assert got == want
    assert (err is None) == (terr is None)
    if terr is not None:
        assert err == terr
