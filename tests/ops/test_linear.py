"""linear and bilinear (and pixel_shuffle next to bilinear) against torch."""
import pytest
import ember
from ._nn_util import DTYPES, arr, close, meta_matches, pair
import ember.nn.functional as EF


@pytest.mark.parity
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("xs,ws,bias", [((5, 3), (4, 3), True), ((2, 5, 3), (4, 3), True), ((3,), (4, 3), False),
                                        ((2, 2, 3), (1, 3), False)])
def test_linear(dtype, xs, ws, bias):
    torch = pytest.importorskip("torch")
    x, tx = pair(torch, arr(*xs, dtype=dtype))
    w, tw = pair(torch, arr(*ws, dtype=dtype))
    b, tb = pair(torch, arr(ws[0], dtype=dtype) if bias else None)
    close(ember._nn.linear(x, w, b), torch.nn.functional.linear(tx, tw, tb))
    meta_matches(ember._nn.linear, x, w, b)


def both(torch, name, e_args, t_args, **kw):
    tf = getattr(torch.nn.functional, name, None) or getattr(torch, name)
    return getattr(EF, name)(*e_args, **kw), tf(*t_args, **kw)


@pytest.mark.parity
@pytest.mark.parametrize("dtype", DTYPES)
def test_bilinear_pixel_shuffle(dtype):
    torch = pytest.importorskip("torch")
    a, ta = pair(torch, arr(3, 4, dtype=dtype))
    b, tb = pair(torch, arr(3, 5, dtype=dtype))
    w, tw = pair(torch, arr(6, 4, 5, dtype=dtype))
    bb, tbb = pair(torch, arr(6, dtype=dtype))
    close(*both(torch, "bilinear", (a, b, w, bb), (ta, tb, tw, tbb)))
    x, tx = pair(torch, arr(2, 8, 3, 5, dtype=dtype))
    close(*both(torch, "pixel_shuffle", (x, 2), (tx, 2)))
    x, tx = pair(torch, arr(2, 3, 4, 6, dtype=dtype))
    close(*both(torch, "pixel_unshuffle", (x, 2), (tx, 2)))
    with pytest.raises(RuntimeError, match="divisible by the square of upscale_factor"):
        EF.pixel_shuffle(ember.randn(1, 5, 2, 2), 2)
